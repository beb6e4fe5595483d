"""The array library a simulation's matrix work runs on: numpy by default, another array-API library on request.

A check runs `using(name)` for one of BACKENDS. The draws are always made by numpy's generators from thmcheck's
SeedSequence, in float64, and moved (`to_backend`), so every backend works on the same sample and a verdict
differs between backends by float round-off only. What the kernels compute on a backend array they write against
the array API standard (`array_api_compat.array_namespace`); what has no form there is named here:
- the elementwise pass of an activation is its sympy expression walked into the namespace's functions
  (`activation_values`); erf, which the standard lacks, is the library's own special function (torch, cupy,
  jax), and for array-api-strict, a CPU library for testing conformance, scipy's on a host copy;
- the top singular pair is ARPACK's (scipy), its matrix products made on the backend and only vectors moved.
numpy runs its own fused, in-place kernels (`checkers.onestep.simulation`); the others run the generic path.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import importlib.util
import operator
from collections.abc import Iterator
from functools import reduce

from theorems.errors import InvalidInput

#: backend name -> (module, the extra that installs it)
BACKENDS = {
    "numpy": ("numpy", None),
    "array-api-strict": ("array_api_strict", "test"),
    "torch": ("torch", "torch"),
    "cupy": ("cupy", "cupy"),
    "jax": ("jax.numpy", "jax"),
}
DEFAULT = "numpy"

_current: contextvars.ContextVar[str] = contextvars.ContextVar("thmcheck_backend", default=DEFAULT)
# the dtypes of the arrays moved onto the backend inside `using`: what its matrix work computed in
_moved: contextvars.ContextVar[set | None] = contextvars.ContextVar("thmcheck_moved_dtypes", default=None)


def require(name: str) -> None:
    """InvalidInput, with the way to install it, for a backend that is not one of BACKENDS, not installed, or installed
    but failing to import (a broken install)."""
    if name not in BACKENDS:
        raise InvalidInput(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    module, extra = BACKENDS[name]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        raise InvalidInput(f"backend {name!r} is not installed here: pip install -e '.[{extra}]'")
    # what a broken install raises (a library it cannot load, a version it refuses) is the environment's; any other
    # error propagates, a bug to report
    try:
        importlib.import_module(module)
    except (ImportError, OSError, RuntimeError) as error:
        raise InvalidInput(f"backend {name!r} is installed here but fails to import ({type(error).__name__}: "
                           f"{error}); reinstall it: pip install -e '.[{extra}]'") from None


@contextlib.contextmanager
def using(name: str) -> Iterator[None]:
    """Run what is inside on backend `name`, in this thread (the kernels read it only where they move the draws).

    torch on the CPU computes on one thread inside, as numpy's BLAS does in a check (`checkers.engine.run_check`):
    its own thread pool splits a matrix product's sums by the core count, which moved the last digits of
    gaussian-equivalence's risk between one thread and two."""
    require(name)
    if name == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)  # else jax silently rounds every float64 array to float32
    token, moved = _current.set(name), _moved.set(set())
    try:
        with _one_torch_thread() if name == "torch" and _device() == "cpu" else contextlib.nullcontext():
            yield
    finally:
        _current.reset(token)
        _moved.reset(moved)


@contextlib.contextmanager
def _one_torch_thread() -> Iterator[None]:
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def current() -> str:
    return _current.get()


def namespace():
    """The current backend's array namespace."""
    return importlib.import_module(BACKENDS[current()][0])


def _device():
    if current() == "torch":
        import torch
        return "cuda" if torch.cuda.is_available() else "cpu"
    return None


def device_name() -> str:
    """Where the current backend computes: "cpu", or the accelerator its library runs on ("cuda", jax's platform)."""
    name = current()
    if name == "torch":
        return _device()
    if name == "cupy":
        return "cuda"
    if name == "jax":
        import jax
        return jax.default_backend()
    return "cpu"


def dtype_name() -> str | None:
    """The dtypes of the arrays moved onto the current backend so far, what its work computed in ("float64", or
    several joined), or None on numpy, whose kernels choose theirs per check, or where nothing was moved."""
    moved = _moved.get()
    return ", ".join(sorted(moved)) if moved and current() != DEFAULT else None


def to_backend(array, *, like=None):
    """A numpy array on the current backend, or on the library and device of the array `like` (the same object on
    numpy)."""
    moved = _moved.get()
    if moved is not None and hasattr(array, "dtype"):
        moved.add(str(array.dtype))
    if like is not None:
        import array_api_compat
        return namespace_of(like).asarray(array, device=array_api_compat.device(like))
    if current() == DEFAULT:
        return array
    device = _device()
    return namespace().asarray(array) if device is None else namespace().asarray(array, device=device)


def to_numpy(array):
    """A backend array as a numpy array on the host (the same object where it already is one)."""
    import numpy as np
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get") and type(array).__module__.startswith("cupy"):
        return array.get()
    if type(array).__module__.startswith("torch"):
        return array.detach().cpu().numpy()
    return np.from_dlpack(array)


def _erf(xp):
    name = current()
    if name == "torch":
        import torch
        return torch.special.erf
    if name == "cupy":
        import cupyx.scipy.special
        return cupyx.scipy.special.erf
    if name == "jax":
        import jax.scipy.special
        return jax.scipy.special.erf
    import scipy.special

    def on_host(x):  # array-api-strict has no special functions; it is a CPU library for tests
        return xp.asarray(scipy.special.erf(to_numpy(x)))
    return on_host


def _evaluate(expression, x, xp):
    """The sympy expression of z at the backend array x, through the namespace's elementwise functions."""
    import sympy

    if expression.is_number:
        return float(expression)
    if isinstance(expression, sympy.Symbol):
        return x
    args = [_evaluate(argument, x, xp) for argument in expression.args]
    if isinstance(expression, sympy.Add):
        return reduce(operator.add, args)
    if isinstance(expression, sympy.Mul):
        return reduce(operator.mul, args)
    if isinstance(expression, sympy.Pow):
        base, exponent = args
        return base ** (int(exponent) if isinstance(exponent, float) and exponent.is_integer() else exponent)

    def constant(value):
        return value if not isinstance(value, float) else xp.full_like(x, value)

    if isinstance(expression, (sympy.Max, sympy.Min)):
        combine = xp.maximum if isinstance(expression, sympy.Max) else xp.minimum
        return reduce(lambda left, right: combine(constant(left), constant(right)), args)
    if isinstance(expression, sympy.Heaviside):  # 1 for z > 0, else 0, as on numpy (the kink has measure zero)
        return xp.where(args[0] > 0, xp.ones_like(x), xp.zeros_like(x))
    functions = {sympy.tanh: xp.tanh, sympy.exp: xp.exp, sympy.log: xp.log, sympy.cosh: xp.cosh,
                 sympy.sinh: xp.sinh, sympy.Abs: xp.abs, sympy.sign: xp.sign, sympy.erf: _erf(xp),
                 sympy.sin: xp.sin, sympy.cos: xp.cos, sympy.atan: xp.atan}
    function = functions.get(type(expression))
    if function is None:
        raise InvalidInput(f"{expression.func} has no array-API form here: run this activation on numpy")
    return function(args[0])


def activation_value(sigma, x):
    """sigma(x): numpy's own evaluation on a numpy array, the activation's exact expression on another backend's."""
    if type(x).__module__ == "numpy":
        return sigma(x)
    xp = namespace_of(x)
    value = _evaluate(sigma.expression, x, xp)
    return xp.full_like(x, value) if isinstance(value, float) else value


def activation_values(sigma, x):
    """(sigma(x), sigma'(x)) on a backend array, from the activation's exact expressions."""
    return activation_value(sigma, x), activation_value(sigma.first_derivative, x)


def namespace_of(*arrays):
    import array_api_compat
    return array_api_compat.array_namespace(*arrays)
