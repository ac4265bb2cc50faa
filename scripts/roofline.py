"""The roofline of a problem from the records of a profile (scripts/profile_kernels.py draws one
per problem): each chapter's main kernel at its arithmetic intensity and achieved rate, under the
roofs of the GPU the profile was made on. Needs matplotlib."""
import math

from plot_ladder import save
from profile_table import as_float, measures

# Sizes on the axes of this figure, in fractions of their width and height: a character of a
# label (8 points), a label's height, a marker's half width and half height (7 points), and the
# gap between a point and its label. Points closer than SAME share one label ("ch 2, 3").
CHAR, LINE, MARK_X, MARK_Y, GAP, SAME = 0.0105, 0.045, 0.008, 0.0125, 0.018, 0.01


def place_labels(points, others, names):
    """[(x, y, text, ha)] in fractions of the axes: the labels of @p points ((x, y) fractions, in
    order) named @p names, one per place, none over another label or over a marker (these
    points and @p others). Each label sits right of its point, else left of it, else under or
    over it, else under or over it on the right; where all are taken, right of it all the same."""
    labels = []  # [x, y, [names]]
    for point, name in zip(points, names):
        same = [label for label in labels
                if abs(label[0] - point[0]) < SAME and abs(label[1] - point[1]) < SAME]
        if same:
            same[0][2].append(name)
        else:
            labels.append([point[0], point[1], [name]])
    taken = [(x - MARK_X, x + MARK_X, y - MARK_Y, y + MARK_Y) for x, y in points + others]
    placed = []
    for x, y, group in labels:
        text = "ch " + ", ".join(group)
        width = CHAR * len(text)
        choices = []
        for dx, dy, ha in ((GAP, 0, "left"), (-GAP, 0, "right"), (0, -LINE, "center"),
                           (0, LINE, "center"), (GAP, -LINE, "left"), (GAP, LINE, "left")):
            left = x + dx - {"left": 0, "center": width / 2, "right": width}[ha]
            box = (left, left + width, y + dy - LINE / 2, y + dy + LINE / 2)
            free = 0 <= box[0] and box[1] <= 1 and not any(
                box[0] < other[1] and other[0] < box[1] and box[2] < other[3] and other[2] < box[3]
                for other in taken)
            choices.append((not free, len(choices), box, (x + dx, y + dy, text, ha)))
        _, _, box, label = min(choices)
        taken.append(box)
        placed.append(label)
    return placed


def ceilings_of(records, problem, mine):
    """[(rate, name)], the flat roofs of @p problem: the FP32 FMA rate that ncu measured (the
    highest of the points @p mine, in the figure's units), and the TF32 tensor-core peak that the
    executables reported (`peak_flops`) for a run of @p records that used tensor cores."""
    compute = max(row["peak_compute"] for row in mine)
    ceilings = [(compute, "min-plus step peak" if problem == "minplus" else "FP32 peak (FMA)")]
    tf32 = max([as_float(record.get("peak_flops")) for record in records
                if record["problem"] == problem and record.get("peak") == "tf32"] + [0.0])
    if tf32 > 0:
        ceilings.append((tf32, "TF32 tensor-core peak"))
    return ceilings


def title_of(records, problem):
    """The problem, and from which chapter on its runs used tensor cores: the records' `peak`
    says so ("matmul (FP32; chapter 6+ TF32)"); no tool knows the chapters' content."""
    tf32 = sorted({int(r["chapter"]) for r in records
                   if r["problem"] == problem and r.get("peak") == "tf32"})
    return f"{problem} (FP32; chapter {tf32[0]}+ TF32)" if tf32 else problem


def roofline(records, problem, stem):
    """Writes @p stem.png and @p stem.svg, the roofline of @p problem (docs/pages/tools.md says
    how to read it), and returns their paths: each chapter's main kernel at its achieved rate and
    its intensity against DRAM (filled) and L2 (hollow) traffic, under the DRAM and L2 bandwidths
    (slanted) and the compute ceilings (flat: the FP32 FMA rate, in steps of an add and a min for
    minplus; for matmul, where a run of the profile used tensor cores, the TF32 tensor-core peak
    that run's executable reported)."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "roofline"  # the same rows give the same SVG
    import matplotlib.pyplot as plt

    # In the operation the executables count the FMA pipe's work in: a FLOP, or a min-plus step.
    counted = ("rate", "intensity_dram", "intensity_l2", "peak_compute")
    mine = []
    for record in records:
        shown = measures(record)
        if record["problem"] == problem and as_float(shown["rate"]) > 0:
            mine.append(dict(shown, chapter=str(record["chapter"]), device=record["device"],
                             **{column: as_float(shown[column]) for column in counted}))
    if not mine:
        return []
    unit = mine[0]["operation"]
    figure, axes = plt.subplots(figsize=(8.2, 4.8))
    intensities = [r[c] for r in mine for c in ("intensity_dram", "intensity_l2") if r[c] > 0]
    low, high = min(intensities + [1.0]) / 4, max(intensities + [1.0]) * 4
    ceilings = ceilings_of(records, problem, mine)
    top = max(c for c, _ in ceilings)
    for bandwidth_column, name, style in (("peak_dram", "DRAM", "-"), ("peak_l2", "L2", "--")):
        bandwidth = max(as_float(r.get(bandwidth_column)) for r in mine)
        if bandwidth > 0:
            # Up the slope to the ridge, where the bandwidth meets the highest ceiling, then flat.
            ridge = min(max(top / bandwidth, low), high)
            axes.plot([low, ridge, high], [bandwidth * low, bandwidth * ridge, top], style,
                      color="0.35", linewidth=1.2, label=f"{name} {bandwidth / 1e12:.2f} TB/s")
    for ceiling, name in ceilings:
        axes.axhline(ceiling, color="0.15", linewidth=1.0, linestyle=":")
        axes.text(high, ceiling, f"{name} {ceiling / 1e12:.1f} T{unit}/s ", ha="right",
                  va="bottom", fontsize=8)
    colors = plt.get_cmap("viridis")
    for index, row in enumerate(mine):
        color = colors(index / max(1, len(mine) - 1) * 0.9)
        axes.loglog([row["intensity_dram"]], [row["rate"]], "o", color=color, markersize=7,
                    label=f"ch {row['chapter']}")
        if row["intensity_l2"] > 0:
            axes.loglog([row["intensity_l2"]], [row["rate"]], "o", markersize=7,
                        markerfacecolor="none", markeredgecolor=color)
    bottom = min(row["rate"] for row in mine) / 4

    def fraction(value, lowest, highest):  # where @p value sits on a logarithmic axis
        return math.log(value / lowest) / math.log(highest / lowest)

    def where(row, column):
        return fraction(row[column], low, high), fraction(row["rate"], bottom, top * 2)

    shown = [row for row in mine if row["intensity_dram"] > 0]  # a log axis has no 0
    for x, y, text, ha in place_labels([where(row, "intensity_dram") for row in shown],
                                       [where(row, "intensity_l2") for row in mine
                                        if row["intensity_l2"] > 0],
                                       [row["chapter"] for row in shown]):
        axes.text(x, y, text, fontsize=8, ha=ha, va="center", transform=axes.transAxes)
    axes.set_xlim(low, high)
    axes.set_ylim(bottom, top * 2)
    units = "steps" if unit == "step" else unit
    axes.set_xlabel(f"arithmetic intensity ({units} per byte; filled: DRAM, hollow: L2)")
    axes.set_ylabel(f"achieved {units}/s")
    title = title_of(records, problem)
    axes.set_title(f"Roofline, {title}: {mine[0]['device']}", fontsize=10)
    axes.grid(which="both", alpha=0.25)
    # Beside the plot: inside, it would cover a roof where the roofs meet the ceiling early.
    axes.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    figure.tight_layout()
    return save(figure, stem, 120)
