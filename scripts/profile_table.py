"""The profile's table (scripts/profile_kernels.py): the Markdown block that the README, the site's
Results page and build/results/profile.md show, written from the records of a profile (each the
profiled run's `--json` object with Nsight Compute's own metrics of its main kernel under "ncu").
Standard library only.
"""

import os

import readme_block

SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
SHARED = {"requests": ("smsp__inst_executed_op_shared_ld.sum",
                       "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed_op_ldsm.sum"),
          "wavefronts": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"),
          "conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum")}
STALL_PREFIX, STALL_SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"


def number(value):
    """@p value as a float where it is a number, None otherwise (shown as "-")."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def as_float(value):
    """@p value where it is a number, 0.0 where the field was empty, null or text."""
    return number(value) or 0.0


def total(ncu, *metrics):
    """The sum of ncu's @p metrics that it measured; int 0 (shown as "-") when none."""
    return sum(float(ncu[m]) for m in metrics if number(ncu.get(m)) is not None)


def measures(record):
    """What the table and the roofline show of one record: ncu's counters set against the run's
    arithmetic as the executable reports it, in FLOPs (`flops`) and in the operation the FMA pipe
    is reckoned in (`operations` of `operation`: a FLOP, or a min-plus step), and the roofs ncu
    measured, the compute roof at the executable's `operations_per_fma_slot`."""
    ncu = record["ncu"]
    flops, operations = as_float(record.get("flops")), as_float(record.get("operations"))
    seconds = as_float(ncu.get("gpu__time_duration.sum")) * 1e-9
    dram = total(ncu, "dram__bytes_read.sum", "dram__bytes_write.sum")
    l2 = 32.0 * total(ncu, "lts__t_sectors_srcunit_tex_op_read.sum",
                      "lts__t_sectors_srcunit_tex_op_write.sum")
    stalls = sorted(((float(value), name[len(STALL_PREFIX):-len(STALL_SUFFIX)])
                     for name, value in ncu.items()
                     if name.startswith(STALL_PREFIX) and number(value) is not None),
                    reverse=True)
    return {
        "operation": record.get("operation", ""),
        "rate": operations / seconds if seconds > 0 else None,  # operations per second
        "flops_per_byte_dram": flops / dram if dram > 0 else None,
        "flops_per_byte_l2": flops / l2 if l2 > 0 else None,
        "intensity_dram": operations / dram if dram > 0 else None,  # operations per byte
        "intensity_l2": operations / l2 if l2 > 0 else None,
        "l2_bytes": l2,
        "peak_compute": as_float(ncu.get(
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"))
        * as_float(ncu.get("sm__cycles_elapsed.avg.per_second"))
        * as_float(record.get("operations_per_fma_slot")),
        "peak_dram": as_float(ncu.get("dram__bytes.sum.peak_sustained"))
        * as_float(ncu.get("dram__cycles_elapsed.avg.per_second")),
        "peak_l2": as_float(ncu.get("lts__t_bytes.sum.peak_sustained"))
        * as_float(ncu.get("lts__cycles_elapsed.avg.per_second")),
        "stalls": stalls[:2],
    }


def kernel_name(record):
    """The main kernel's name as its executable reports it (`kernels[].name`, of the kernel whose
    `symbol` is the one ncu names); ncu's name as recorded where no kernel of the run carries it
    (a record made before the executables reported their kernels' symbols)."""
    symbol = record["ncu"].get("Kernel Name", "")
    return next((kernel["name"] for kernel in record.get("kernels") or []
                 if kernel.get("symbol") == symbol), symbol)


def _si(value, unit):
    if value is None or isinstance(value, int):
        return "-"
    factor, prefix = next(((f, p) for f, p in SI_PREFIXES if abs(value) >= f), (1, ""))
    return f"{value / factor:.3g} {prefix}{unit}".strip()


def _pct(value):
    return f"{value:.0f}%" if value is not None else "-"


def _num(value):
    return f"{value:.3g}" if value is not None else "-"


def table(records):
    """The Markdown table of @p records: one line per chapter and problem."""
    lines = [
        "| chapter | problem | main kernel | time | rate | DRAM read / written | L2 <-> SM "
        "| FLOP per byte: DRAM, L2 | shared requests, wavefronts, bank conflicts "
        "| occupancy, registers | FMA pipe, tensor pipe, issue slots | top stalls (warps per issue) |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for record in records:
        ncu, shown = record["ncu"], measures(record)
        value = {metric: number(ncu.get(metric)) for metric in ncu}
        shared = ", ".join(_si(total(ncu, *SHARED[what]), "")
                           for what in ("requests", "wavefronts", "conflicts"))
        stalls = ", ".join(f"{name} {ratio:.2f}" for ratio, name in shown["stalls"])
        lines.append(
            f"| {record['chapter']} ({record['edition']}) | {record['problem']} "
            f"| `{kernel_name(record)}` "
            f"| {as_float(ncu.get('gpu__time_duration.sum')) / 1e6:.3f} ms "
            f"| {_si(shown['rate'], shown['operation'] + '/s')} "
            f"| {_si(value.get('dram__bytes_read.sum'), 'B')} "
            f"/ {_si(value.get('dram__bytes_write.sum'), 'B')} "
            f"| {_si(shown['l2_bytes'], 'B')} "
            f"| {_num(shown['flops_per_byte_dram'])}, {_num(shown['flops_per_byte_l2'])} "
            f"| {shared} "
            f"| {_pct(value.get('sm__warps_active.avg.pct_of_peak_sustained_active'))}, "
            f"{_num(value.get('launch__registers_per_thread'))} "
            f"| {_pct(value.get('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active'))}, "
            f"{_pct(value.get('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active'))}, "
            f"{_pct(value.get('sm__inst_issued.avg.pct_of_peak_sustained_active'))} "
            f"| {stalls or '-'} |")
    return "\n".join(lines)


def header(records):
    """The sentence above the table: the GPU, and the command that makes such a profile."""
    everything = (len({record["chapter"] for record in records}) > 1
                  and all(record["edition"] == "solution" for record in records))
    first = records[0]
    command = ("scripts/profile.sh --all" if everything else
               f"scripts/profile.sh {'--solution ' if first['edition'] == 'solution' else ''}"
               f"{first['chapter']}")
    return (f"Profiled on **{first['device']}** with Nsight Compute (`{command}`): each line "
            "is the chapter's main kernel, one launch, with the caches flushed before each counter "
            "pass and the clocks as the GPU set them. FLOP per byte is the problem's work (a "
            "multiply-add is two operations; minplus: an add and a min) over the bytes moved "
            "between DRAM and L2, and between L2 and the SMs.")


def render(records, images, relative_to):
    """The profile block: header, table, and a link to each roofline SVG from @p relative_to."""
    links = "".join(f"\n![Roofline, {os.path.basename(image)[len('roofline_'):-len('.svg')]}]"
                    f"({readme_block.link(image, relative_to)})"
                    for image in sorted(images) if image.endswith(".svg"))
    return header(records) + "\n\n" + table(records) + "\n" + links
