"""The roofline of a problem from the rows of a profile (scripts/profile_kernels.py draws one per
problem): each chapter's main kernel at its arithmetic intensity and achieved rate, under the roofs
of the GPU the profile was made on. Needs matplotlib."""
from plot_ladder import save
from profile_table import as_float


def roofline(rows, problem, stem, tf32):
    """Writes @p stem.png and @p stem.svg, the roofline of @p problem (docs/pages/tools.md says
    how to read it), and returns their paths: each chapter's main kernel at its achieved rate and
    its intensity against DRAM (filled) and L2 (hollow) traffic, under the DRAM and L2 bandwidths
    (slanted) and the compute ceilings (flat: the FP32 FMA rate, in steps of an add and a min for
    minplus; for matmul the TF32 tensor-core rate @p tf32 beside it)."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "roofline"  # the same rows give the same SVG
    import matplotlib.pyplot as plt

    # minplus in steps (an add and a min: two operations), as the course reports it.
    scale = 0.5 if problem == "minplus" else 1.0
    scaled = ("rate", "intensity_dram", "intensity_l2", "peak_compute")
    mine = [dict(row, **{column: as_float(row.get(column)) * scale for column in scaled})
            for row in rows if row["problem"] == problem and as_float(row.get("rate")) > 0]
    if not mine:
        return []
    unit = "step" if problem == "minplus" else "FLOP"
    figure, axes = plt.subplots(figsize=(7.0, 4.8))
    intensities = [r[c] for r in mine for c in ("intensity_dram", "intensity_l2") if r[c] > 0]
    low, high = min(intensities + [1.0]) / 4, max(intensities + [1.0]) * 4
    compute = max(r["peak_compute"] for r in mine)
    ceilings = [(compute, "min-plus step peak" if problem == "minplus" else "FP32 peak (FMA)")]
    if problem == "matmul" and tf32 > 0:
        ceilings.append((tf32, "TF32 tensor-core peak"))
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
        label = f"ch {row['chapter']}"
        axes.loglog([row["intensity_dram"]], [row["rate"]], "o", color=color, markersize=7,
                    label=label)
        if row["intensity_l2"] > 0:
            axes.loglog([row["intensity_l2"]], [row["rate"]], "o", markersize=7,
                        markerfacecolor="none", markeredgecolor=color)
        axes.annotate(label, (row["intensity_dram"], row["rate"]), fontsize=8,
                      xytext=(5, 4 if index % 2 == 0 else -11), textcoords="offset points")
    axes.set_xlim(low, high)
    axes.set_ylim(min(row["rate"] for row in mine) / 4, top * 2)
    units = "steps" if unit == "step" else unit
    axes.set_xlabel(f"arithmetic intensity ({units} per byte; filled: DRAM, hollow: L2)")
    axes.set_ylabel(f"achieved {units}/s")
    title = "matmul (FP32; chapter 6+ TF32)" if problem == "matmul" else problem
    axes.set_title(f"Roofline, {title}: {mine[0]['device']}", fontsize=10)
    axes.grid(which="both", alpha=0.25)
    axes.legend(fontsize=7.5, loc="upper left", framealpha=0.9)  # above the roofs: empty
    figure.tight_layout()
    return save(figure, stem, 120)
