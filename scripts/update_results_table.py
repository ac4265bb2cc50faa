#!/usr/bin/env python3
"""Regenerates the README's results table from the performance ladder's CSV.

The table goes between the lines `<!-- ladder:begin -->` and `<!-- ladder:end -->` of the README;
everything outside them is left as it is. Running it twice on the same CSV changes nothing the
second time. Only runs that passed their check are shown as results; the others are marked FAIL
or ERROR and listed below the table.

    scripts/update_results_table.py results/ladder.csv --goals results/ladder_goals.csv \
        --image results/ladder.svg --readme README.md

Exit status: 0 on success, 1 when the CSV cannot be read or the markers are missing.
Standard library only.
"""

import argparse
import csv
import os
import sys

BEGIN_MARKER = "<!-- ladder:begin -->"
END_MARKER = "<!-- ladder:end -->"

# Columns this script reads from the ladder's CSV (scripts/ladder/results.hpp writes them).
REQUIRED_COLUMNS = (
    "device", "date", "problem", "sizes", "chapter", "implementation", "status", "runs", "rate",
    "rate_unit", "speedup", "cublas_percent", "ceiling_rate", "ceiling_name", "ceiling_percent",
)

PROBLEM_ORDER = ("matmul", "minplus", "conv2d", "conv1d")
CUBLAS = "cuBLAS"


class TableError(Exception):
    """A problem with the inputs that the user must fix; the message says which."""


def format_rate(value):
    """Three significant digits without an exponent, as the ladder prints rates."""
    magnitude = abs(value)
    decimals = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2 if magnitude >= 1 else 3
    return f"{value:.{decimals}f}"


def number(text):
    """The float in a CSV field, or None when the field is empty."""
    return float(text) if text not in ("", None) else None


def read_rows(path):
    """The CSV's rows as dictionaries; raises TableError when it is missing or malformed."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise TableError(f"{path}: not a ladder CSV: missing columns {', '.join(missing)}")
            rows = list(reader)
    except OSError as error:
        raise TableError(f"cannot read {path}: {error.strerror}") from error
    if not rows:
        raise TableError(f"{path}: no results in the file")
    return rows


def read_goals(path):
    """The goals CSV's rows (goal, target, measured, unit, verdict)."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None or "verdict" not in reader.fieldnames:
                raise TableError(f"{path}: not a ladder goals CSV")
            return list(reader)
    except OSError as error:
        raise TableError(f"cannot read {path}: {error.strerror}") from error


def chapter_number(row):
    return int(row["chapter"]) if row["chapter"] else 0


def render_cell(row):
    if row is None:
        return "-"
    if row["status"] != "PASS":
        return row["status"]
    cell = format_rate(float(row["rate"]))
    speedup = number(row["speedup"])
    if speedup is not None:
        cell += f" ({speedup:.2f}x)"
    return cell


def best_chapter_text(rows):
    passed = [r for r in rows if r["status"] == "PASS" and chapter_number(r) > 0]
    if not passed:
        return "-"
    best = max(passed, key=lambda r: float(r["rate"]))
    label = f"ch {chapter_number(best)}"
    cublas = number(best["cublas_percent"])
    if cublas is not None:
        return f"{label}: {cublas:.0f}% of cuBLAS"
    ceiling = number(best["ceiling_percent"])
    if ceiling is not None:
        return f"{label}: {ceiling:.0f}% of {best['ceiling_name']}"
    return label


def render_table(rows, goals=None, image=None):
    """The markdown that goes between the markers (without the markers)."""
    device = rows[0]["device"]
    date = rows[0]["date"]
    runs = max((int(r["runs"]) for r in rows if r["runs"]), default=0)
    chapters = sorted({chapter_number(r) for r in rows if chapter_number(r) > 0})
    has_cublas = any(r["implementation"] == CUBLAS for r in rows)
    problems = [p for p in PROBLEM_ORDER if any(r["problem"] == p for r in rows)]

    lines = [
        f"Measured on **{device}** on {date} with `scripts/ladder.sh`: for each kernel the median "
        f"of {runs} timed runs, after a run checked against the CPU reference. Rates: matmul in "
        "TFLOP/s, minplus in Tstep/s (a step is one add and one min), conv2d in Gpixel/s, conv1d "
        "in Gsample/s; in brackets the speedup over the previous chapter. cuBLAS SGEMM runs in "
        "pedantic FP32 (`CUBLAS_PEDANTIC_MATH`: TF32 off). The ceiling is the FP32 peak (for "
        "minplus the min-plus step peak) or, where it is lower, the memory-bandwidth bound.",
        "",
    ]
    header = ["problem", "size"] + [f"ch {c}" for c in chapters]
    header += [CUBLAS] if has_cublas else []
    header += ["ceiling", "best chapter"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| --- | --- | " + " | ".join("---:" for _ in header[2:-1]) + " | --- |")
    for problem in problems:
        sizes = []
        for row in rows:
            if row["problem"] == problem and row["sizes"] not in sizes:
                sizes.append(row["sizes"])
        for size in sizes:
            group = [r for r in rows if r["problem"] == problem and r["sizes"] == size]
            unit = group[0]["rate_unit"]
            cells = [problem, size]
            for chapter in chapters:
                match = [r for r in group if chapter_number(r) == chapter]
                cells.append(render_cell(match[0]) if match else "-")
            if has_cublas:
                match = [r for r in group if r["implementation"] == CUBLAS]
                cells.append(render_cell(match[0]) if match else "-")
            ceiling = next((r for r in group if r["ceiling_rate"]), None)
            cells.append(
                f"{format_rate(float(ceiling['ceiling_rate']))} {unit} ({ceiling['ceiling_name']})"
                if ceiling else "-")
            cells.append(best_chapter_text(group))
            lines.append("| " + " | ".join(cells) + " |")

    not_results = [r for r in rows if r["status"] != "PASS"]
    if not_results:
        lines.append("")
        listed = ", ".join(
            f"{r['problem']} {r['sizes']} {r['implementation']} ({r['status']})"
            for r in not_results)
        lines.append(f"Not results (failed their check or did not run): {listed}.")

    if goals:
        lines.append("")
        lines.append("Performance goals on this GPU:")
        lines.append("")
        for goal in goals:
            measured = number(goal["measured"])
            if measured is None:
                value = ""
            elif goal["unit"] == "x":
                value = f" ({measured:.2f}x)"
            else:
                value = f" ({measured:.1f}%)"
            verdict = goal["verdict"]
            shown = f"**{verdict}**" if verdict in ("met", "missed") else verdict
            lines.append(f"- {goal['goal']}: {shown}{value}")

    if image:
        lines.append("")
        lines.append(f"![Rate per chapter for each problem, with cuBLAS and the ceilings]({image})")
    return "\n".join(lines)


def replace_between_markers(text, block, readme_name="README.md"):
    """@p text with everything between the markers replaced by @p block."""
    begin = text.find(BEGIN_MARKER)
    end = text.find(END_MARKER)
    if begin < 0 or end < 0:
        missing = [m for m, at in ((BEGIN_MARKER, begin), (END_MARKER, end)) if at < 0]
        raise TableError(
            f"{readme_name}: marker(s) {' and '.join(missing)} not found; put the two lines "
            f"{BEGIN_MARKER} and {END_MARKER} where the results table belongs")
    if text.count(BEGIN_MARKER) > 1 or text.count(END_MARKER) > 1:
        raise TableError(f"{readme_name}: the ladder markers appear more than once")
    if end < begin:
        raise TableError(f"{readme_name}: {END_MARKER} comes before {BEGIN_MARKER}")
    return text[:begin + len(BEGIN_MARKER)] + "\n" + block + "\n" + text[end:]


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Regenerate the README's results table from the ladder's CSV.")
    parser.add_argument("csv", help="the ladder's results CSV (results/ladder.csv)")
    parser.add_argument("--goals", help="the ladder's goals CSV (results/ladder_goals.csv)")
    parser.add_argument("--readme", default="README.md", help="the README to update")
    parser.add_argument("--image", help="the plot to show below the table (a path from here; "
                        "the README links to it relative to itself)")
    parser.add_argument("--print", action="store_true", dest="print_only",
                        help="print the table instead of updating the README")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.csv)
        goals = read_goals(args.goals) if args.goals else None
        image = None
        if args.image:
            readme_folder = os.path.dirname(os.path.abspath(args.readme))
            image = os.path.relpath(os.path.abspath(args.image), readme_folder).replace(os.sep, "/")
        block = render_table(rows, goals, image)
        if args.print_only:
            print(block)
            return 0
        try:
            with open(args.readme, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            raise TableError(f"cannot read {args.readme}: {error.strerror}") from error
        updated = replace_between_markers(text, block, os.path.basename(args.readme))
        if updated == text:
            print(f"{args.readme}: results table already up to date")
        else:
            with open(args.readme, "w", encoding="utf-8") as handle:
                handle.write(updated)
            print(f"{args.readme}: results table updated ({rows[0]['device']}, {rows[0]['date']})")
    except TableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
