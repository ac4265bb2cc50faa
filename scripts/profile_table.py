"""The profile's table (scripts/profile_kernels.py): the Markdown block that the README, the site's
Results page and build/results/profile.md show, written from the rows of a profile.csv. Standard
library only.
"""

import os

import readme_block

SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def as_float(value):
    """@p value where it is a number, 0.0 where the field was empty or text."""
    return value if isinstance(value, float) else 0.0


def total(row, *columns):
    """The sum of the numeric @p columns of @p row (empty fields count as nothing; none: int 0,
    which the table shows as "-")."""
    return sum(row[column] for column in columns if isinstance(row.get(column), float))


def _si(value, unit):
    if not isinstance(value, float):
        return "-"
    factor, prefix = next(((f, p) for f, p in SI_PREFIXES if abs(value) >= f), (1, ""))
    return f"{value / factor:.3g} {prefix}{unit}".strip()


def _pct(value):
    return f"{value:.0f}%" if isinstance(value, float) else "-"


def _num(value):
    return f"{value:.3g}" if isinstance(value, float) else "-"


def table(rows):
    """The Markdown table of @p rows: one line per chapter and problem."""
    lines = [
        "| chapter | problem | main kernel | time | rate | DRAM read / written | L2 <-> SM "
        "| FLOP per byte: DRAM, L2 | shared requests, wavefronts, bank conflicts "
        "| occupancy, registers | FMA pipe, tensor pipe, issue slots | top stalls (warps per issue) |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        shared = ", ".join(
            _si(total(row, f"shared_load_{what}", f"shared_store_{what}", f"ldmatrix_{what}"), "")
            for what in ("requests", "wavefronts", "conflicts"))
        stalls = ", ".join(f"{row[f'stall_{p}']} {row[f'stall_{p}_ratio']:.2f}"
                           for p in (1, 2) if isinstance(row[f"stall_{p}_ratio"], float))
        # minplus in steps (an add and a min), as the executables and the ladder report it
        steps = row["problem"] == "minplus"
        rate = row["rate"] / 2 if steps and isinstance(row["rate"], float) else row["rate"]
        lines.append(
            f"| {row['chapter']} ({row['edition']}) | {row['problem']} | `{row['kernel']}` "
            f"| {row['time_ns'] / 1e6:.3f} ms | {_si(rate, 'step/s' if steps else 'FLOP/s')} "
            f"| {_si(row['dram_read_bytes'], 'B')} / {_si(row['dram_write_bytes'], 'B')} "
            f"| {_si(32.0 * total(row, 'l2_read_sectors', 'l2_write_sectors'), 'B')} "
            f"| {_num(row['intensity_dram'])}, {_num(row['intensity_l2'])} | {shared} "
            f"| {_pct(row['occupancy_pct'])}, {_num(row['registers'])} "
            f"| {_pct(row['fma_pipe_pct'])}, {_pct(row['tensor_pipe_pct'])}, "
            f"{_pct(row['issue_pct'])} | {stalls or '-'} |")
    return "\n".join(lines)


def header(rows):
    """The sentence above the table: the GPU, and the command that makes such a profile."""
    everything = (len({row["chapter"] for row in rows}) > 1
                  and all(row["edition"] == "solution" for row in rows))
    command = ("scripts/profile.sh --all" if everything else
               f"scripts/profile.sh {'--solution ' if rows[0]['edition'] == 'solution' else ''}"
               f"{rows[0]['chapter']}")
    return (f"Profiled on **{rows[0]['device']}** with Nsight Compute (`{command}`): each line "
            "is the chapter's main kernel, one launch, with the caches flushed before each counter "
            "pass and the clocks as the GPU set them. FLOP per byte is the problem's work (a "
            "multiply-add is two operations; minplus: an add and a min) over the bytes moved "
            "between DRAM and L2, and between L2 and the SMs.")


def render(rows, images, relative_to):
    """The profile block: header, table, and a link to each roofline SVG from @p relative_to."""
    links = "".join(f"\n![Roofline, {os.path.basename(image)[len('roofline_'):-len('.svg')]}]"
                    f"({readme_block.link(image, relative_to)})"
                    for image in sorted(images) if image.endswith(".svg"))
    return header(rows) + "\n\n" + table(rows) + "\n" + links
