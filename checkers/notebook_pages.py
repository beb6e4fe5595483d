"""Static pages of the teaching notebooks, built from their outputs: text and figures that open with no network.

marimo's own HTML export loads its frontend from a public CDN, so on a machine without internet its pages are
blank. Here each notebook runs as marimo runs it as a script (`app.run()`, every cell at its controls' default
values) and its outputs are written into one self-contained HTML file: markdown as HTML (formulas kept as TeX
source), matplotlib figures as embedded PNG images, each control as its label and default value. Nothing on the
page loads from elsewhere, and it has no script.

    thmcheck notebooks --out build/notebooks [NOTEBOOK.py ...]
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import json
import re
import sys
from pathlib import Path

from checkers.files import write_atomically
from theorems.errors import EnvironmentFault, InvalidInput

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

_TEX = re.compile(r'<marimo-tex class="arithmatex">\|\|([(\[])(.*?)\|\|[)\]]</marimo-tex>', re.S)
_CONTROL = re.compile(r"<marimo-ui-element[^>]*>\s*<marimo-([a-z-]+)([^>]*)>.*?</marimo-\1>\s*</marimo-ui-element>",
                      re.S)
_ATTRIBUTE = re.compile(r"data-([a-z-]+)='([^']*)'")
_TAG = re.compile(r"<[^>]+>")

STYLE = """body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
img{max-width:100%}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}
code.tex{background:#f4f4f4;padding:0 .2rem}.control{display:inline-block;border:1px solid #bbb;border-radius:.3rem;
padding:.1rem .5rem;margin:.2rem .4rem .2rem 0;background:#fafafa}.note{color:#555;font-size:.9rem}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}"""


def _tex(match: re.Match) -> str:
    opening, source = match.groups()
    element = "div" if opening == "[" else "span"
    return f'<{element} class="tex"><code class="tex">{source}</code></{element}>'


def _control(match: re.Match) -> str:
    """A marimo control (slider, dropdown, text box, ...) as a static chip: its label and its default value."""
    kind, attributes = match.group(1), dict(_ATTRIBUTE.findall(match.group(2)))

    def decoded(name: str):
        raw = attributes.get(name)
        if raw is None:
            return None
        try:
            return json.loads(html.unescape(raw))
        except ValueError:
            return html.unescape(raw)
    label = _TAG.sub("", str(decoded("label") or "")).strip() or kind
    value = decoded("initial-value")
    if isinstance(value, list) and len(value) == 1:  # a dropdown's selection
        value = value[0]
    return (f'<span class="control">{html.escape(label)} = <b>{html.escape(str(value))}</b></span>'
            if value not in (None, "") else f'<span class="control">{html.escape(label)}</span>')


def _static_html(text: str) -> str:
    return _CONTROL.sub(_control, _TEX.sub(_tex, text))


def _figure(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<figure><img alt="figure" src="data:image/png;base64,{encoded}"></figure>'


def render_output(output) -> str:
    """One cell's output as static HTML (empty for a cell that shows nothing)."""
    if output is None:
        return ""
    if type(output).__module__.startswith("matplotlib") and hasattr(output, "savefig"):
        return _figure(output)
    if hasattr(output, "get_figure") and hasattr(output.get_figure(), "savefig"):  # an Axes
        return _figure(output.get_figure())
    text = getattr(output, "text", None)
    if isinstance(text, str):  # marimo's Html outputs: markdown, stacks, controls
        return _static_html(text)
    if hasattr(output, "_repr_html_"):
        return _static_html(output._repr_html_())
    return f"<pre>{html.escape(repr(output))}</pre>"


def _load(path: Path):
    name = f"thmcheck_notebook_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InvalidInput(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    if not hasattr(module, "app"):
        raise InvalidInput(f"{path} is not a marimo notebook (it defines no app)")
    return module.app


def _run(path: Path) -> list:
    """The notebook's cell outputs. A notebook that fails to load or run, or exits, is a fault of the notebook, named
    with it: the user's (exit 2) where the user gave it, a bug of ours where it is one of the project's notebooks."""
    try:
        outputs, _ = _load(path).run()
        return outputs
    except (InvalidInput, KeyboardInterrupt):
        raise
    except (Exception, SystemExit) as error:
        what = ("called sys.exit" if isinstance(error, SystemExit) else f"raised {type(error).__name__}: {error}")
        if path.resolve().parent == NOTEBOOKS:
            raise RuntimeError(f"the project's notebook {path.name} {what}") from error
        raise EnvironmentFault(f"notebook {str(path)!r} {what}; no page was written for it") from None


def page(path: Path) -> str:
    """The notebook's static page: every cell run once at its controls' defaults, its outputs in order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outputs = _run(path)
    body = "\n".join(part for part in (render_output(output) for output in outputs) if part)
    plt.close("all")
    title = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S)
    title = _TAG.sub("", title.group(1)) if title else path.stem
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n<p class=\"note\">A static page of the notebook "
            f"<code>notebooks/{html.escape(path.name)}</code>, every cell run at its controls' default values; open "
            f"it with <code>marimo edit notebooks/{html.escape(path.name)}</code> to move them. Formulas are shown "
            f"as their TeX source.</p>\n{body}\n</body></html>\n")


def write_pages(out: Path, notebooks: list[Path] | None = None) -> list[Path]:
    """Write one page per notebook (default: every notebook of the project) into the folder `out`."""
    notebooks = notebooks or sorted(NOTEBOOKS.glob("*.py"))
    for notebook in notebooks:
        if not notebook.is_file():
            raise InvalidInput(f"no notebook at {str(notebook)!r}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise EnvironmentFault(f"--out {str(out)!r} is a file; give a folder")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for notebook in notebooks:
        target = out / f"{notebook.stem}.html"
        write_atomically(target, page(notebook))
        written.append(target)
    return written


def notebooks_command(arguments) -> int:
    """`thmcheck notebooks --out DIR [NOTEBOOK ...]`: write the pages and say where."""
    try:
        import marimo  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as missing:
        raise EnvironmentFault(f"the notebooks need {missing.name}: pip install -e '.[notebooks]'") from None
    written = write_pages(Path(arguments.out), [Path(p) for p in arguments.notebooks] or None)
    for path in written:
        print(path)
    return 0
