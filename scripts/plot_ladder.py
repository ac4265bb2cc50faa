#!/usr/bin/env python3
"""Draws the performance ladder's plot from its CSV: rate per chapter for each problem.

One panel per problem. Each size is a line through the chapters that carry the problem; a
chapter's variant (chapter 3's dispatch) is a hollow diamond just right of its chapter, in the
colour of its size; cuBLAS (matmul) is a dashed line in the colour of its size; the hardware
ceiling (the FP32 or min-plus peak, or the memory-bandwidth bound where it is lower) is a solid
black line. Only runs that passed their check are drawn. Each panel's legend stands under its
chapters, off the lines; the numbers at the lines' ends and on the ceilings sit on a white ground,
so the lines they cross do not cover them.

    scripts/plot_ladder.py results/ladder.csv results/ladder    # writes ladder.png and ladder.svg

Needs matplotlib (Debian/Ubuntu: python3-matplotlib). Exit status: 0 on success, 1 when the CSV
cannot be read or has no passing results, 3 when matplotlib is missing.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The one reader of the ladder's CSV, with the table's rate format and labels.
from results_table import (CUBLAS, CUBLAS_TF32, TableError, format_rate,  # noqa: E402
                           is_result, ordered_unique, problems_of, read_rows, variant_of)

CHAPTER_TITLES = {
    1: "1\nglobal\nmemory", 2: "2\nstatic\nshared tile", 3: "3\ndynamic\nshared buffer",
    4: "4\nregister\nblocking", 5: "5\nwarp tiles,\npipeline", 6: "6\ntensor\ncores",
    7: "7\nTMA,\nwgmma",
}
PROBLEM_TITLES = {"matmul": "matmul (SGEMM)", "minplus": "minplus (min-plus product)"}
# How each baseline is drawn: a horizontal line in the colour of its size.
BASELINE_STYLES = {CUBLAS: ("--", "cuBLAS SGEMM, FP32"), CUBLAS_TF32: ("-.", "cuBLAS TF32")}
# A number on the plot: on a white ground, so that a line it crosses does not cover it.
LABEL_GROUND = dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85)
# How far under its panel a legend starts: below the chapters' three-line titles (inches).
LEGEND_DROP = 0.62
# Rates that span more than this factor in one panel are drawn on a logarithmic axis, so that the
# FP32 chapters stay readable next to tensor cores.
LOG_SPAN = 30.0


def spread_labels(labels, gap):
    """Label heights moved apart by at least @p gap, in order, so that none overlap."""
    placed = []
    for y, text, colour in sorted(labels):
        if placed and y < placed[-1][0] + gap:
            y = placed[-1][0] + gap
        placed.append((y, text, colour))
    return placed


def draw_panel(axes, problem, rows, colormap):
    """One problem: a line per size through the chapters, cuBLAS dashed, ceilings solid."""
    from matplotlib.lines import Line2D

    group = [r for r in rows if r["problem"] == problem]
    passed = [r for r in group if is_result(r)]
    sizes = ordered_unique(r["sizes"] for r in group)
    chapters = sorted({int(r["chapter"]) for r in group if r["chapter"]})
    colours = {size: colormap(0.1 + 0.65 * i / max(1, len(sizes) - 1))
               for i, size in enumerate(sizes)}
    highest, lowest = 0.0, float("inf")
    handles = []
    end_labels = {}  # chapter -> [(rate, text, colour)] for the last point of each line
    drawn_baselines = set()
    has_variant = False

    for size in sizes:
        at_size = [r for r in passed if r["sizes"] == size]
        # A chapter that carries the problem but has no result here (FAIL, ERROR) leaves a gap,
        # so the line never suggests a result that was not measured.
        rates = {int(r["chapter"]): float(r["rate"])
                 for r in at_size if r["chapter"] and not variant_of(r)}
        for row in filter(variant_of, at_size):
            rate = float(row["rate"])
            # Just right of its chapter's point, so that both show.
            axes.plot([int(row["chapter"]) + 0.15], [rate], marker="D", markersize=7,
                      linestyle="none", markerfacecolor="none",
                      markeredgecolor=colours[size], markeredgewidth=1.5)
            highest = max(highest, rate)
            has_variant = True
        if rates:
            ys = [rates.get(chapter, float("nan")) for chapter in chapters]
            handles += axes.plot(chapters, ys, marker="o", linewidth=2, markersize=6,
                                 color=colours[size], label=f"size {size}")
            last = max(rates)
            end_labels.setdefault(last, []).append(
                (rates[last], format_rate(rates[last]), colours[size]))
            highest = max(highest, max(rates.values()))
            lowest = min([lowest] + [rate for rate in rates.values() if rate > 0])
        for row in at_size:
            if row["implementation"] in BASELINE_STYLES:
                rate = float(row["rate"])
                style = BASELINE_STYLES[row["implementation"]][0]
                axes.axhline(rate, color=colours[size], linestyle=style, linewidth=1.3)
                highest = max(highest, rate)
                drawn_baselines.add(row["implementation"])
    for baseline, (style, label) in BASELINE_STYLES.items():
        if baseline in drawn_baselines:
            handles.append(Line2D([], [], color="grey", linestyle=style, linewidth=1.3,
                                  label=label))
    if has_variant:
        handles.append(Line2D([], [], marker="D", markersize=7, linestyle="none",
                              markerfacecolor="none", markeredgecolor="grey",
                              label="chapter 3 dispatch"))

    # Ceilings: one line per distinct value (per size when they differ, as memory bounds do).
    ceilings = {}
    for row in group:
        if row["ceiling_rate"]:
            key = (row["ceiling_name"], round(float(row["ceiling_rate"]), 6))
            ceilings.setdefault(key, []).append(row["sizes"])
    for (name, rate), at_sizes in ceilings.items():
        at_sizes = ordered_unique(at_sizes)
        label = f"{name} {format_rate(rate)}"
        if len(ceilings) > 1:
            label += f" ({', '.join(at_sizes)})"
        style = ":" if name == "memory bound" else "-"
        # One ceiling for all sizes is black; several take the colour of their size.
        colour = "black" if len(ceilings) == 1 else colours[at_sizes[0]]
        axes.axhline(rate, color=colour, linestyle=style, linewidth=1.6)
        axes.annotate(label, (0.99, rate), xycoords=("axes fraction", "data"),
                      textcoords="offset points", xytext=(0, 3), fontsize=8, ha="right",
                      color=colour, bbox=LABEL_GROUND)
        highest = max(highest, rate)

    logarithmic = lowest < float("inf") and highest / lowest > LOG_SPAN
    # Headroom above the highest line for its number: about an eighth of the panel either way.
    top = max(highest, 1e-9) * (1.12 if not logarithmic else (2 * highest / lowest) ** 0.14)
    bottom = lowest / 2 if logarithmic else 0
    for chapter, labels in end_labels.items():
        if logarithmic:  # spread the labels evenly on the logarithmic axis
            span = math.log10(top) - math.log10(bottom)
            logged = [(math.log10(y), text, colour) for y, text, colour in labels]
            placed = [(10 ** y, text, colour)
                      for y, text, colour in spread_labels(logged, gap=0.045 * span)]
        else:
            placed = spread_labels(labels, gap=0.045 * top)
        for y, text, colour in placed:
            axes.annotate(text, (chapter, y), textcoords="offset points", xytext=(7, -3),
                          fontsize=8, color=colour, bbox=LABEL_GROUND)

    if not passed:
        axes.text(0.5, 0.5, "no passing results", transform=axes.transAxes, ha="center",
                  va="center", color="grey")
    axes.set_title(PROBLEM_TITLES.get(problem, problem), fontsize=11, fontweight="bold")
    axes.set_ylabel(group[0]["rate_unit"])
    ticks = chapters or [1]
    axes.set_xticks(ticks)
    axes.set_xticklabels([CHAPTER_TITLES.get(c, str(c)) for c in ticks], fontsize=8)
    axes.set_xlim(min(ticks) - 0.35, max(ticks) + 0.6)
    if logarithmic:
        axes.set_yscale("log")
    axes.set_ylim(bottom, top)
    axes.grid(axis="y", alpha=0.3)
    if handles:
        # Under the panel, where no line runs.
        from matplotlib.transforms import ScaledTranslation
        drop = ScaledTranslation(0, -LEGEND_DROP, axes.figure.dpi_scale_trans)
        axes.legend(handles=handles, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, 0),
                    bbox_transform=axes.transAxes + drop, ncol=4, frameon=False,
                    columnspacing=1.2, handlelength=2.4)


def plot(rows, stem):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ladder"  # the same CSV gives the same SVG
    import matplotlib.pyplot as plt

    problems = problems_of(rows)
    columns = 2 if len(problems) > 1 else 1
    lines = (len(problems) + columns - 1) // columns
    figure, axes_grid = plt.subplots(lines, columns, figsize=(6.2 * columns, 5.0 * lines),
                                     squeeze=False)
    colormap = plt.get_cmap("viridis")
    for axes, problem in zip(axes_grid.flat, problems):
        draw_panel(axes, problem, rows, colormap)
    for axes in axes_grid.flat[len(problems):]:
        axes.set_visible(False)

    figure.suptitle(f"Performance ladder: {rows[0]['device']}, {rows[0]['date']}",
                    fontsize=13, fontweight="bold")
    figure.text(0.5, 0.005,
                "Median of the timed runs; runs that failed their check are left out. Each size "
                "has its colour: its line, its cuBLAS lines and its chapter 3 dispatch. "
                "cuBLAS SGEMM: pedantic FP32 (TF32 off); cuBLAS TF32: TF32 tensor cores allowed. "
                "A panel whose rates span more than 30x has a logarithmic axis. Ceiling: FP32 "
                "peak (min-plus step peak for minplus), or the memory-bandwidth bound where lower.",
                ha="center", va="bottom", fontsize=8, wrap=True)
    figure.tight_layout(rect=(0, 0.03, 1, 0.97))
    return save(figure, stem, 130)


def save(figure, stem, dpi):
    """Writes @p figure to stem.png and stem.svg without a date or a version in them (the same
    input gives the same files), closes it, and returns the paths."""
    import matplotlib.pyplot as plt
    written = []
    for extension in ("png", "svg"):
        written.append(f"{stem}.{extension}")
        figure.savefig(written[-1], dpi=dpi,
                       metadata={"Date": None} if extension == "svg" else {"Software": None})
    plt.close(figure)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot the performance ladder's CSV.")
    parser.add_argument("csv", help="the ladder's results CSV (results/ladder.csv)")
    parser.add_argument("stem", help="output path without extension; .png and .svg are written")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401 (only to report its absence clearly)
    except ImportError:
        print("error: this Python has no matplotlib; install python3-matplotlib "
              f"({sys.executable})", file=sys.stderr)
        return 3
    try:
        rows = read_rows(args.csv)
        if not any(is_result(r) for r in rows):
            raise TableError(f"{args.csv}: no run passed its check; nothing to plot")
    except TableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(args.stem) or ".", exist_ok=True)
    for path in plot(rows, args.stem):
        print(f"plot written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
