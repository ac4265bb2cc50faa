#!/usr/bin/env python3
"""Checks that every figure the course quotes from the recorded ladder is the one in
results/ladder.csv.

A figure of the recorded ladder is quoted as a link to the CSV whose title names its row, the
implementation and then the problem and sizes as the CSV spells them:

    [93.3% of cuBLAS](../../results/ladder.csv "ch05, matmul 4096")
    [380](../../results/ladder.csv "chapter 7, matmul 8192")

On GitHub it is a link to the measurements; on the site, its text. The implementation is chNN,
"chapter N", "chNN dispatch", cuBLAS or cuBLAS TF32; the link's text says which column: a time in
ms is median_ms, a percentage the share of cuBLAS (or, with "peak" in the text or for a problem
cuBLAS does not run, the share of the peak), a factor (1.05x, 2.0 times) the speedup over the
previous chapter, anything else the rate. The figure must equal the CSV's value rounded to the
decimals it is written with.

A sentence, or a table row or column, that speaks of the recorded ladder ("recorded ladder",
"ladder recorded") may quote no figure in any other way: in a sentence, a percentage, a factor, a
rate or a time outside such a link; in a row, any number outside code but for the row's name,
dates and labels (step 4, chapter 6); in a column, the same. So a number of the recorded ladder cannot be written without its
source, and another run's figures go in a sentence of their own. Read: README.md, docs/pages/*.md and
every Markdown file of chapters/ and solutions/.

  recorded_ladder.py [--root DIR]       (the repository; default: this file's)

Prints one line per problem and exits 1 when there is any, 0 otherwise. Standard library only.
"""

import argparse
import csv
import re
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs"))
# pylint: disable=wrong-import-position
from verdict import report  # noqa: E402

SOURCES = ("README.md", "docs/pages/*.md", "chapters/*/*.md", "solutions/*/*.md")
PHRASE = re.compile(r"recorded\s+ladder|ladder\s+recorded", re.IGNORECASE)
QUOTE = re.compile(r"\[(?P<text>[^\[\]]+)\]\(\s*(?P<path>(?:[\w.\-]+/)*results/ladder\.csv)"
                   r"(?:\s+\"(?P<title>[^\"]*)\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)")
# A figure outside a link: a number with a unit, or a factor.
FIGURE = re.compile(r"(?<![\w.\-])\d+(?:\.\d+)?%?(?:(?:-|,\s*|\s+(?:and|to)\s+)\d+(?:\.\d+)?%?)*"
                    r"\s*(?:%|x\b|times\b|ms\b|TFLOP/s|T\s?steps?/s|Tstep/s|Gpixel/s|Gsample/s)")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
LABEL = re.compile(r"\b(?:steps?|chapters?|ch)\s*\d+\b", re.IGNORECASE)  # "step 4", "ch07"
IMPLEMENTATION = re.compile(r"^(?:ch(?:apter\s*)?0*(\d+)(\s+dispatch)?|(cuBLAS(?: TF32)?))$")


class LadderError(Exception):
    """A CSV that cannot be read."""


def read_ladder(path):
    """{(implementation, problem, sizes): row}: the last row of each in the file."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise LadderError(f"{path}: cannot be read ({error.strerror})") from error
    needed = {"implementation", "problem", "sizes", "rate", "median_ms", "cublas_percent",
              "peak_percent", "speedup"}
    if not rows or not needed <= set(rows[0]):
        raise LadderError(f"{path}: not a ladder CSV (columns {', '.join(sorted(needed))})")
    return {(row["implementation"], row["problem"], row["sizes"]): row for row in rows}


def row_key(title):
    """(implementation, problem, sizes) named by a quote's title, or None."""
    who, _, what = (title or "").partition(",")
    match = IMPLEMENTATION.match(who.strip())
    problem, _, sizes = what.strip().partition(" ")
    if not match or not problem or not sizes.strip():
        return None
    if match.group(3):
        return match.group(3), problem, sizes.strip()
    return f"ch{int(match.group(1)):02d}{' dispatch' if match.group(2) else ''}", problem, \
        sizes.strip()


def column(text, row):
    """The CSV column the link text @p text quotes, and its words."""
    if re.search(r"\d\s*ms\b", text):
        return "median_ms", "time"
    if "%" in text:
        if "peak" in text or not row.get("cublas_percent"):
            return "peak_percent", "share of the peak"
        return "cublas_percent", "share of cuBLAS"
    if re.search(r"\d\s*(?:x\b|times\b)", text):
        return "speedup", "speedup"
    return "rate", "rate"


def check_quote(match, ladder, where):
    """The problem with one quote, or None."""
    text, title = match.group("text"), match.group("title")
    key = row_key(title)
    if not key:
        return (f"{where}: [{text}]({match.group('path')}) names no row of the recorded ladder: "
                'give it the title "chNN, PROBLEM SIZES" (e.g. "ch05, matmul 4096")')
    row = ladder.get(key)
    if row is None:
        return f"{where}: '{text}' ({title}): the recorded ladder has no such row"
    number = NUMBER.search(text)
    if not number:
        return f"{where}: '{text}' ({title}): no figure in the link's text"
    name, words = column(text, row)
    try:
        value = float(row[name])
    except (TypeError, ValueError):
        return f"{where}: '{text}' ({title}): the recorded ladder has no {words} ({name}) there"
    quoted = number.group(1)
    decimals = len(quoted.partition(".")[2])
    if abs(float(quoted) - value) > 0.5 * 10 ** -decimals + 1e-9:
        return (f"{where}: '{text}' ({title}): the recorded ladder has {value:g} ({words}, "
                f"{name}), {value:.{decimals}f} as written")
    return None


def unquoted(text):
    """The figures of @p text outside code spans and quotes of the ladder."""
    text = CODE_SPAN.sub(" ", QUOTE.sub(" ", text))
    return [m.group(0) for m in FIGURE.finditer(text)]


def sentences(text):
    """The sentences of a paragraph, with where each starts: a sentence ends at . ! or ? before
    a space and a capital, a bracket or a backtick (not inside 93.3 or e.g.)."""
    start = 0
    for end in re.finditer(r"(?<=[.!?])\s+(?=[A-Z\[(`*])", text):
        yield start, text[start:end.start()]
        start = end.end()
    yield start, text[start:]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def blocks(lines):
    """The file's paragraphs and tables outside code fences: (kind, [(number, line)])."""
    block, kind, fence = [], None, None
    for number, line in enumerate(lines, start=1):
        opening = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if fence or opening:
            if opening and (fence is None or opening.group(1)[0] == fence[0]):
                fence = None if fence else opening.group(1)
            if block:
                yield kind, block
            block, kind = [], None
            continue
        this = "table" if line.lstrip().startswith("|") else \
            None if not line.strip() or line.lstrip().startswith("#") else "prose"
        if this != kind and block:
            yield kind, block
            block = []
        kind = this
        if this:
            block.append((number, line))
    if block:
        yield kind, block


def check_file(path, rel, ladder):
    problems = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for kind, block in blocks(lines):
        for number, line in block:
            line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)  # examples in code
            for match in QUOTE.finditer(line):
                problem = check_quote(match, ladder, f"{rel}:{number}")
                if problem:
                    problems.append(problem)
            if "results/ladder.csv" in QUOTE.sub(" ", line) and \
                    re.search(r"\]\(\s*(?:[\w.\-]+/)*results/ladder\.csv", line):
                problems.append(f"{rel}:{number}: a link to results/ladder.csv that does not "
                                "close on its line: keep each quote of the recorded ladder on "
                                "one line")
    for kind, block in blocks(lines):
        if kind == "prose":
            text = " ".join(line.strip() for _, line in block)
            starts, offset = [], 0
            for number, line in block:
                starts.append((offset, number))
                offset += len(line.strip()) + 1
            for start, sentence in sentences(text):
                if not PHRASE.search(sentence):
                    continue
                figures = unquoted(sentence)
                if figures:
                    line = max(n for o, n in starts if o <= start)
                    problems.append(
                        f"{rel}:{line}: a sentence on the recorded ladder quotes "
                        f"{', '.join(repr(f) for f in figures)} without its row of "
                        "results/ladder.csv: write [figure](results/ladder.csv \"chNN, "
                        "PROBLEM SIZES\"), or move other runs' figures to a sentence of "
                        "their own")
            continue
        header = cells(block[0][1])
        marked = [i for i, cell in enumerate(header) if PHRASE.search(cell)]
        for number, line in block[2:]:
            row = cells(line)
            # In a row on the recorded ladder every number is a figure but for the row's name
            # (its first cell); in a column on it, every number of the column.
            checked = range(1, len(row)) if PHRASE.search(line) else \
                [i for i in marked if i < len(row)]
            figures = []
            for i in checked:
                cell = LABEL.sub(" ", DATE.sub(" ", CODE_SPAN.sub(" ", QUOTE.sub(" ", row[i]))))
                figures += NUMBER.findall(cell)
            if figures:
                problems.append(
                    f"{rel}:{number}: a table row on the recorded ladder shows "
                    f"{', '.join(repr(f) for f in figures)} without its row of "
                    "results/ladder.csv: write [figure](results/ladder.csv \"chNN, PROBLEM "
                    "SIZES\")")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the repository (default: the one holding this file)")
    args = parser.parse_args()
    root = args.root.resolve()
    csv_path = root / "results" / "ladder.csv"
    if not csv_path.is_file():
        print(f"recorded_ladder: {csv_path.relative_to(root)}: missing: nothing is recorded "
              "to compare with", file=sys.stderr)
        return 1
    try:
        ladder = read_ladder(csv_path)
    except LadderError as error:
        print(f"recorded_ladder: {error}", file=sys.stderr)
        return 1
    problems, quotes, files = [], 0, 0
    for pattern in SOURCES:
        for path in sorted(root.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            files += 1
            quotes += sum(len(QUOTE.findall(CODE_SPAN.sub(" ", line)))
                          for _, block in blocks(path.read_text(encoding="utf-8").splitlines())
                          for _, line in block)
            problems += check_file(path, rel, ladder)
    return report("recorded_ladder", problems,
                  f"{quotes} figure(s) of results/ladder.csv quoted in {files} file(s)")


if __name__ == "__main__":
    sys.exit(main())
