"""`thmcheck oracle`: the exact curve of ridge errors after one step against a parameter, as a table, JSON or PNG."""

from __future__ import annotations

import json
from pathlib import Path

from checkers import registry
from checkers.outcome import EXIT_PASS
from checkers.report import pyplot
from theorems.errors import EnvironmentFault


def held_fixed(theorem: str, variable: str, given: dict) -> str:
    """The theorem's parameters other than the varied one, at their values here (its defaults, updated by --param)."""
    parameters = registry.checker(theorem).theorem.instance(given).describe_parameters()
    return ", ".join(f"{name}={value}" for name, value in parameters.items() if name != variable)


def oracle(arguments) -> int:
    from checkers.equivalence.oracle_curve import THEOREMS, oracle_curve, parse_range

    variable, values = parse_range(arguments.vary, THEOREMS[arguments.theorem])
    if arguments.plot:
        _check_plot_path(arguments.plot)
    if arguments.theorem == "giant-step-risk":
        return _giant_step_oracle(arguments, variable, values)
    points = oracle_curve(variable, values, dict(arguments.param), dimension=arguments.dimension,
                          seed=arguments.seed)
    fixed = held_fixed(arguments.theorem, variable, dict(arguments.param))
    if arguments.plot:
        _plot_curve(arguments.plot, variable, [p.value for p in points],
                    {"risk (noiseless teacher)": [p.risk for p in points],
                     "train error": [p.train_error for p in points]}, "deterministic equivalent (dimensionless)",
                    f"Gaussian-equivalent ridge after one step, d = {arguments.dimension}, seed {arguments.seed}\n"
                    f"held fixed: {fixed}")
    if arguments.json:
        print(json.dumps({"variable": variable, "dimension": arguments.dimension, "seed": arguments.seed,
                          "parameters": dict(arguments.param), "held_fixed": fixed,
                          "points": [vars(p) for p in points]}, indent=2, allow_nan=False))
        return EXIT_PASS
    print(f"deterministic equivalent of ridge on the Gaussian-equivalent features after one step (d = "
          f"{arguments.dimension}, seed {arguments.seed}); risk against the noiseless teacher, test error with the "
          f"label noise; kappa is the equivalent's effective ridge (its fixed point kappa = lambda + kappa (N/n) "
          f"df(kappa)/N)\nheld fixed: {fixed}")
    print(f"{variable:>14}  {'risk':>12}  {'test error':>12}  {'train error':>12}  {'kappa':>12}")
    for p in points:
        print(f"{p.value:>14.6g}  {p.risk:>12.8g}  {p.test_error:>12.8g}  {p.train_error:>12.8g}  {p.kappa:>12.6g}")
    return EXIT_PASS


def _check_plot_path(path: str) -> None:
    """Before any computation: --plot names a file whose folder exists (a folder given as the path is refused; it
    would have been written beside it as FOLDER.png)."""
    target = Path(path)
    if target.is_dir():
        raise EnvironmentFault(f"--plot {path!r} is a folder; give a file name such as {str(target / 'curve.png')!r}")
    if not target.parent.is_dir():
        raise EnvironmentFault(f"--plot {path!r}: the folder {str(target.parent)!r} does not exist")


def _plot_curve(path: str, variable: str, values: list[float], curves: dict[str, list[float]], ylabel: str,
                title: str) -> None:
    """An oracle curve to a PNG file: the first curve solid, the others dashed."""
    plt = pyplot("plots")
    figure, axis = plt.subplots(figsize=(6.4, 4))
    for index, (label, series) in enumerate(curves.items()):
        axis.plot(values, series, "-" if index == 0 else "--", label=label)
    axis.set_xlabel(variable)
    axis.set_ylabel(ylabel)
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100, format="png")  # the name as given, with or without .png
    plt.close(figure)


def _giant_step_oracle(arguments, variable: str, values: list[float]) -> int:
    from checkers.equivalence.oracle_curve import giant_step_curve

    points = giant_step_curve(variable, values, dict(arguments.param))
    fixed = held_fixed("giant-step-risk", variable, dict(arguments.param))
    if arguments.plot:
        _plot_curve(arguments.plot, variable, [p.value for p in points],
                    {"test error (noiseless teacher)": [p.test_error for p in points],
                     "train error": [p.train_error for p in points]}, "Result 3.3 in the limit (dimensionless)",
                    f"ridge after one giant step: Cui et al.'s Result 3.3\nheld fixed: {fixed}")
    if arguments.json:
        print(json.dumps({"theorem": "giant-step-risk", "variable": variable, "parameters": dict(arguments.param),
                          "held_fixed": fixed,
                          "points": [vars(p) for p in points]}, indent=2, allow_nan=False))
        return EXIT_PASS
    print("Cui et al.'s Result 3.3 in the limit after one giant step; test error against the noiseless teacher; "
          f"iterations: the damped iterations its fixed point took to converge\nheld fixed: "
          f"{fixed}")
    print(f"{variable:>14}  {'test error':>12}  {'train error':>12}  {'iterations':>10}")
    for p in points:
        iterations = str(p.iterations) if p.iterations else "-"
        print(f"{p.value:>14.6g}  {p.test_error:>12.8g}  {p.train_error:>12.8g}  {iterations:>10}")
    return EXIT_PASS
