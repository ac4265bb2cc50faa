"""Draws a roofline per problem from the rows of a profile (scripts/profile.py): each chapter's
main kernel is a point at its arithmetic intensity (operations per byte) and its achieved rate,
under the roofs of the GPU the profile was made on: the bandwidths of DRAM and of L2 (slanted:
rate = bandwidth x intensity) and the compute ceilings (flat: the FP32 FMA rate, the min-plus rate
for minplus, the TF32 tensor-core rate beside it for matmul). Each kernel has two points: filled
for its intensity against DRAM traffic, hollow against L2 <-> SM traffic. A point far under the
roof at its own intensity has headroom; one on the slanted part is limited by that memory.
Needs matplotlib.
"""

import os

PROBLEM_TITLES = {"matmul": "matmul (FP32; chapter 6+ TF32)", "minplus": "minplus",
                  "conv2d": "conv2d", "conv1d": "conv1d"}


def _value(row, column):
    value = row.get(column, "")
    return value if isinstance(value, float) else 0.0


def draw(rows, problem, stem, tf32_peak=0.0):
    """Writes @p stem.png and @p stem.svg for the rows of @p problem; returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "roofline"  # the same rows give the same SVG
    import matplotlib.pyplot as plt

    mine = [row for row in rows if row["problem"] == problem and _value(row, "rate") > 0]
    if not mine:
        return []
    unit = "operations" if problem == "minplus" else "FLOP"
    figure, axes = plt.subplots(figsize=(7.0, 4.8))
    intensities = [_value(r, c) for r in mine for c in ("intensity_dram", "intensity_l2")
                   if _value(r, c) > 0]
    low = min(intensities + [1.0]) / 4
    high = max(intensities + [1.0]) * 4
    xs = [low, high]
    compute = max(_value(r, "peak_compute") for r in mine)
    ceilings = [(compute, "min-plus peak" if problem == "minplus" else "FP32 peak (FMA)")]
    if problem == "matmul" and tf32_peak > 0:
        ceilings.append((tf32_peak, "TF32 tensor-core peak"))
    top = max(c for c, _ in ceilings)
    for bandwidth_column, name, style in (("peak_dram", "DRAM", "-"), ("peak_l2", "L2", "--")):
        bandwidth = max(_value(r, bandwidth_column) for r in mine)
        if bandwidth > 0:
            axes.plot(xs, [min(bandwidth * x, top) for x in xs], style, color="0.35",
                      linewidth=1.2, label=f"{name} {bandwidth / 1e12:.2f} TB/s")
    for ceiling, name in ceilings:
        axes.axhline(ceiling, color="0.15", linewidth=1.0, linestyle=":")
        axes.text(high, ceiling, f"{name} {ceiling / 1e12:.1f} T{unit}/s ", ha="right",
                  va="bottom", fontsize=8)
    colors = plt.get_cmap("viridis")
    for index, row in enumerate(mine):
        color = colors(index / max(1, len(mine) - 1) * 0.9)
        label = f"ch {row['chapter']}"
        axes.loglog([_value(row, "intensity_dram")], [row["rate"]], "o", color=color,
                    markersize=7, label=label)
        if _value(row, "intensity_l2") > 0:
            axes.loglog([_value(row, "intensity_l2")], [row["rate"]], "o", markersize=7,
                        markerfacecolor="none", markeredgecolor=color)
        axes.annotate(label, (_value(row, "intensity_dram"), row["rate"]), fontsize=8,
                      xytext=(4, 4), textcoords="offset points")
    axes.set_xlim(low, high)
    axes.set_ylim(top / 1e4, top * 2)
    axes.set_xlabel(f"arithmetic intensity ({unit} per byte; filled: DRAM, hollow: L2)")
    axes.set_ylabel(f"achieved {unit}/s")
    axes.set_title(f"Roofline, {PROBLEM_TITLES.get(problem, problem)}: {mine[0]['device']}",
                   fontsize=10)
    axes.grid(which="both", alpha=0.25)
    axes.legend(fontsize=7.5, loc="lower right", framealpha=0.9)
    figure.tight_layout()
    written = []
    for extension in ("png", "svg"):
        path = f"{stem}.{extension}"
        metadata = {"Date": None} if extension == "svg" else {"Software": None}
        figure.savefig(path, dpi=120, metadata=metadata)
        written.append(path)
    plt.close(figure)
    return written


def draw_all(rows, folder, tf32_peak=0.0):
    """One roofline per problem in @p rows, as folder/roofline_PROBLEM.png and .svg."""
    written = []
    for problem in dict.fromkeys(row["problem"] for row in rows):
        written += draw(rows, problem, os.path.join(folder, f"roofline_{problem}"), tf32_peak)
    return written
