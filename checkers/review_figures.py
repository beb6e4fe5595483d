"""A review's figures: per claim, every reading of its runs against what the run claims, in units of the test's
resolution, with the claim's band, the resolution and the mutants' claims on the same axis.

A row is one prediction of one run. For a claimed point (or a band around one) the reading is drawn at (reading -
claim) / resolution, so the claim sits at 0 and the resolution at +-1; for a one-sided claim (a bound), at
(reading - bound) / resolution on the side that holds, so the claim is the region >= 0. The reading's bar is its 95%
t interval plus its systematic bound; an exact reading has none. The mutants' claims at this point sit where the
claims table puts them (their shift from the stated target over the resolution): the reading should lie far from
them. The axis is linear within 10 resolutions and logarithmic beyond, so a reading a million resolutions inside a
bound and one a tenth of a resolution from a point share a panel.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from checkers.files import save_figure
from checkers.report import pyplot
from checkers.stats import critical_value

LINEAR_WITHIN = 10.0  # resolutions drawn on a linear scale either side of the claim
ROW_INCHES, BASE_INCHES, WIDTH_INCHES = 0.36, 1.6, 7.5
LABEL_CHARACTERS = 48  # a row's label wraps onto two lines at most
LEGEND_INCHES = 0.3  # a strip at the bottom for the legend


def half_width(prediction: dict) -> float:
    """The half-width of a reading's 95% interval: Student's t on its degrees of freedom times its standard error,
    plus its systematic bound (0 for an exact reading)."""
    error = prediction.get("standard_error") or 0.0
    freedom = prediction.get("degrees_of_freedom") or math.inf
    return (critical_value(0.05, freedom) * error if error else 0.0) + (prediction.get("systematic") or 0.0)


def reading(prediction: dict) -> dict | None:
    """One row: the reading's position and half-width in resolutions, the side a bound holds on ('point', 'at least',
    'at most'), and the mutants' claims in resolutions; None where the run read nothing or has no resolution."""
    observed, resolution = prediction.get("observed"), prediction.get("resolution")
    lower, upper = prediction.get("interval") or (None, None)
    if observed is None or not resolution or lower is None or not math.isfinite(observed):
        return None
    half = half_width(prediction)
    if math.isfinite(lower) and math.isfinite(upper):
        centre = (lower + upper) / 2
        side, position, band = "point", (observed - centre) / resolution, (upper - lower) / 2 / resolution
    elif math.isfinite(lower):
        side, position, band = "at least", (observed - lower) / resolution, 0.0
    else:
        side, position, band = "at most", (upper - observed) / resolution, 0.0
    mutants = {name: shift / resolution * (-1 if side == "at most" else 1)
               for name, shift in (prediction.get("mutant_shifts") or {}).items() if math.isfinite(shift)}
    return {"position": position, "half_width": half / resolution, "side": side, "band": band, "mutants": mutants}


def _extent(rows: list[tuple[str, dict]]) -> float:
    """How far from the claim the panel must reach, in resolutions: every reading with its bar, every mutant's claim,
    every band, and at least 3."""
    reach = [3.0]
    for _, row in rows:
        reach += [abs(row["position"]) + row["half_width"], 1 + row["band"]]
        reach += [abs(shift) for shift in row["mutants"].values()]
    return 1.2 * max(value for value in reach if math.isfinite(value))


def _scale(axes, rows: list[tuple[str, dict]]) -> None:
    """Linear within LINEAR_WITHIN resolutions; beyond, symmetric-logarithmic, with at most three decades labelled
    on each side."""
    extent = _extent(rows)
    axes.set_xlim(-extent, extent)
    if extent <= LINEAR_WITHIN:
        return
    axes.set_xscale("symlog", linthresh=LINEAR_WITHIN)
    decades = math.ceil(math.log10(extent))
    step = max(1, math.ceil(decades / 3))
    ticks = [10.0 ** power for power in range(decades, 0, -step)][::-1]
    axes.set_xticks([-tick for tick in reversed(ticks)] + [0] + ticks)


def claim_figure(title: str, rows: list[tuple[str, dict]], folder: Path, stem: str) -> list[Path]:
    """Draw one claim's rows (label, `reading`) into folder/stem.png and folder/stem.svg; return the paths."""
    plt = pyplot("review figures")
    figure, axes = plt.subplots(figsize=(WIDTH_INCHES, BASE_INCHES + LEGEND_INCHES + ROW_INCHES * len(rows)))
    try:
        for index, (label, row) in enumerate(rows):
            y = len(rows) - 1 - index
            if row["side"] == "point":
                axes.fill_betweenx([y - 0.4, y + 0.4], -1 - row["band"], 1 + row["band"], color="#dfe9f5", lw=0)
                if row["band"]:
                    axes.fill_betweenx([y - 0.4, y + 0.4], -row["band"], row["band"], color="#b5cbe6", lw=0)
            else:
                axes.fill_betweenx([y - 0.4, y + 0.4], 0, _extent(rows) * 2, color="#dfe9f5", lw=0)
            for shift in row["mutants"].values():
                axes.plot([shift], [y], marker="x", color="#b03030", ms=6, ls="")
            axes.errorbar([row["position"]], [y], xerr=[[row["half_width"]], [row["half_width"]]], fmt="o",
                          color="#1f4e79", ms=5, capsize=3)
        axes.axvline(0, color="#555555", lw=0.8)
        _scale(axes, rows)
        axes.set_yticks(range(len(rows)))
        axes.set_yticklabels([textwrap.fill(textwrap.shorten(label, 2 * LABEL_CHARACTERS, placeholder=" ..."),
                                            LABEL_CHARACTERS) for label, _ in reversed(rows)], fontsize=7)
        axes.set_ylim(-0.7, len(rows) - 0.3)
        axes.set_xlabel("reading - claim, in resolutions (for a bound: distance on the side that holds)", fontsize=9)
        axes.set_title(textwrap.fill(title, 90), fontsize=10, loc="left")
        axes.plot([], [], "o", color="#1f4e79", label="reading, 95% interval + systematic")
        axes.plot([], [], "x", color="#b03030", label="a mutant's claim")
        axes.fill_between([], [], color="#dfe9f5", label="within 1 resolution, or a bound's side")
        height = BASE_INCHES + LEGEND_INCHES + ROW_INCHES * len(rows)
        figure.legend(*axes.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=3, frameon=False)
        figure.tight_layout(rect=(0, LEGEND_INCHES / height, 1, 1))  # the legend's strip kept below the axis label
        folder.mkdir(parents=True, exist_ok=True)
        return [save_figure(figure, folder / f"{stem}.{suffix}", dpi=150, bbox_inches="tight")
                for suffix in ("png", "svg")]
    finally:
        plt.close(figure)
