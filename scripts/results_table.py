"""The performance ladder's results table, written once for every place that shows it: the README
and the build folder (scripts/update_results_table.py), the console (scripts/ladder.sh prints it
after a run) and the site's results page (docs/make_pages.py). All of them read the ladder's CSV
files (the runs, the goals met or missed) through this module, and the Markdown and the console
text are two layouts of the same cells, so no two places can show different figures for the same
measurements.

Every figure comes from the ladder (scripts/ladder/results.cpp), which computes the ratios and
formats the rates once: its CSV holds each row's table cell (`cell`: the rate and the speedup over
the previous chapter, or the status of a run that is not a result), its share of cuBLAS or of the
ceiling (`share`), its ceiling (`ceiling_text`) and which row is the best chapter (`best_percent`
100); the goals CSV holds each goal's `measured_text`. This module only lays them out. Only runs
that passed their check are results: a run marked FAIL or ERROR shows its status instead of a rate
and is listed below the table. A chapter's variant ("ch03 dispatch") has a column of its own, next
to its chapter's. Standard library only.
"""

import csv

REQUIRED_COLUMNS = ("device date problem sizes chapter implementation status runs rate rate_unit "
                    "best_percent ceiling_rate ceiling_name message rate_text cell share "
                    "ceiling_text").split()
PROBLEM_ORDER = ("matmul", "minplus", "conv2d", "conv1d")
CUBLAS = "cuBLAS"
CUBLAS_TF32 = "cuBLAS TF32"
PASS = "PASS"


class TableError(Exception):
    """A problem with the inputs that the user must fix; the message says which."""


def number(text):
    return float(text) if text not in ("", None) else None


def _read(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            return reader.fieldnames or [], list(reader)
    except OSError as error:
        raise TableError(f"cannot read {path}: {error.strerror}") from error


def read_rows(path):
    columns, rows = _read(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise TableError(f"{path}: not a ladder CSV: missing columns {', '.join(missing)}")
    if not rows:
        raise TableError(f"{path}: no results in the file")
    return rows


def read_goals(path):
    """The goals CSV's rows (goal, target, measured, unit, verdict)."""
    columns, rows = _read(path)
    if "verdict" not in columns or "measured_text" not in columns:
        raise TableError(f"{path}: not a ladder goals CSV")
    return rows


def chapter_number(row):
    return int(row["chapter"]) if row["chapter"] else 0


def variant_of(row):
    """The chapter's variant a row measured ("dispatch" for "ch03 dispatch"), or "" for the
    chapter's main kernels and for the baseline."""
    label = row["implementation"]
    return label.split(" ", 1)[1] if chapter_number(row) > 0 and " " in label else ""


def column_label(row):
    """The table's name for a row's implementation: "ch 3", "ch 3 dispatch", "cuBLAS"."""
    if chapter_number(row) == 0:
        return row["implementation"]
    variant = variant_of(row)
    return f"ch {chapter_number(row)}" + (f" {variant}" if variant else "")


def is_result(row):
    """Whether @p row passed its check and has a rate: only such a row is shown as a result."""
    return row is not None and row["status"] == PASS and number(row["rate"]) is not None


def render_cell(group, label):
    """The cell of column @p label among the rows of one workload, @p group."""
    row = next((r for r in group if column_label(r) == label), None)
    return "-" if row is None else row["cell"] or "no rate"


def best_chapter_text(group):
    """The best chapter (best_percent 100) and its share of cuBLAS or of its ceiling."""
    best = next((r for r in group if is_result(r) and chapter_number(r) > 0
                 and number(r["best_percent"]) == 100), None)
    if best is None:
        return "-"
    return column_label(best) + (f": {best['share']}" if best["share"] else "")


def ceiling_text(group):
    """Every ceiling of the workload's rows (the FP32 peak, and the TF32 tensor peak of the
    tensor-core rows), in the order of the rows."""
    return "; ".join(ordered_unique(r["ceiling_text"] for r in group if r["ceiling_text"])) or "-"


def ordered_unique(values):
    return list(dict.fromkeys(values))


def columns_of(rows):
    """The table's implementation columns for @p rows: each chapter's main kernels, then its
    variant if any, in chapter order; then the baselines that ran."""
    chapters = sorted({(chapter_number(r), variant_of(r), column_label(r))
                       for r in rows if chapter_number(r) > 0})
    baselines = [b for b in (CUBLAS, CUBLAS_TF32) if any(r["implementation"] == b for r in rows)]
    return [label for _, _, label in chapters] + baselines


def problem_lines(rows, problem, columns):
    """One list of cells per size of @p problem, in the order the sizes ran: the size, a cell per
    column of @p columns, the ceiling and the best chapter."""
    lines = []
    for size in ordered_unique(r["sizes"] for r in rows if r["problem"] == problem):
        group = [r for r in rows if r["problem"] == problem and r["sizes"] == size]
        lines.append([size] + [render_cell(group, label) for label in columns]
                     + [ceiling_text(group), best_chapter_text(group)])
    return lines


def problems_of(rows):
    return [p for p in PROBLEM_ORDER if any(r["problem"] == p for r in rows)]


def not_results(rows):
    return [r for r in rows if not is_result(r)]


def runs_of(rows):
    """How many timed runs each kernel's median is of."""
    return max((int(r["runs"]) for r in rows if r["runs"]), default=0)


def goal_value(goal):
    """What a goal measured, as its unit reads ("1.66x", "84.0%"), or "" when not measured."""
    return goal["measured_text"]


def render_table(rows, goals=None, image=None):
    """The Markdown of the results table, with the goals and the plot (@p image, a link)."""
    columns = columns_of(rows)
    lines = [
        f"Measured on **{rows[0]['device']}** on {rows[0]['date']} with `scripts/ladder.sh`: for "
        f"each kernel the median of {runs_of(rows)} timed runs, after a run checked against the "
        "CPU reference. Rates: matmul in TFLOP/s, minplus in Tstep/s (a step is one add and one "
        "min), conv2d in Gpixel/s, conv1d in Gsample/s; in brackets the speedup over the previous "
        "chapter. cuBLAS SGEMM runs in pedantic FP32 (`CUBLAS_PEDANTIC_MATH`: TF32 off)"
        + (", cuBLAS TF32 with `CUBLAS_TF32_TENSOR_OP_MATH` (the baseline of the tensor-core "
           "chapters)" if CUBLAS_TF32 in columns else "")
        + ". The ceiling is the FP32 peak (for minplus the min-plus step peak; for the TF32 "
        "tensor-core runs the TF32 tensor peak) or, where it is lower, the memory-bandwidth "
        "bound.",
        "",
    ]
    header = ["problem", "size"] + columns + ["ceiling", "best chapter"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| --- | --- | " + " | ".join("---:" for _ in header[2:-1]) + " | --- |")
    for problem in problems_of(rows):
        for cells in problem_lines(rows, problem, columns):
            lines.append("| " + " | ".join([problem] + cells) + " |")
    if not_results(rows):
        listed = ", ".join(f"{r['problem']} {r['sizes']} {r['implementation']} ({r['status']})"
                           for r in not_results(rows))
        lines += ["", f"Not results (failed their check or did not run): {listed}."]
    if goals:
        lines += ["", "Performance goals on this GPU:", ""]
        for goal in goals:
            verdict = goal["verdict"]
            shown = f"**{verdict}**" if verdict in ("met", "missed") else verdict
            value = goal_value(goal)
            lines.append(f"- {goal['goal']}: {shown}" + (f" ({value})" if value else ""))
    if image:
        lines += ["", "![Rate per chapter for each problem, with cuBLAS and the ceilings]"
                      f"({image})"]
    return "\n".join(lines)


def aligned(table, left=(0,)):
    """@p table (lists of cells) as fixed-width lines: the columns in @p left and the last one
    left-aligned, the others right-aligned."""
    widths = [max(len(line[c]) for line in table) for c in range(len(table[0]))]
    text = []
    for line in table:
        cells = [cell.ljust(width) if c in left else cell.rjust(width)
                 for c, (cell, width) in enumerate(zip(line[:-1], widths))]
        text.append(("  " + "  ".join(cells + [line[-1]])).rstrip())
    return text


def render_text(rows, goals=None):
    """The same table for a terminal: one block per problem with the columns that carry it, the
    goals with their verdicts, and the runs that are not results with what went wrong."""
    lines = [f"Measured on {rows[0]['device']} on {rows[0]['date']}: the median of "
             f"{runs_of(rows)} timed runs of each kernel, after a run checked against the CPU "
             "reference.", ""]
    for problem in problems_of(rows):
        group = [r for r in rows if r["problem"] == problem]
        columns = columns_of(group)
        lines.append(f"{problem} ({group[0]['rate_unit']}; in brackets the speedup over the "
                     "previous chapter)")
        lines += aligned([["size"] + columns + ["ceiling", "best chapter"]]
                         + problem_lines(rows, problem, columns))
        lines.append("")
    if goals:
        lines.append("Performance goals on this GPU:")
        lines += aligned([[g["verdict"], g["goal"], goal_value(g)] for g in goals], left=(0, 1))
        lines.append("")
    if not_results(rows):
        lines.append("Not results (left out of the table's figures and the plot):")
        for r in not_results(rows):
            says_status = r["message"].startswith(r["status"])
            reason = r["message"] if says_status else f"{r['status']}: {r['message']}"
            lines.append(f"  {r['problem']} {r['sizes']}, {r['implementation']}: "
                         + reason.rstrip(": "))
        lines.append("")
    return "\n".join(lines).rstrip("\n")
