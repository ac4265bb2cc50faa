#!/usr/bin/env python3
"""Writes the README's table of what each chapter takes, from the chapters' executables.

Every chapter executable prints its own row with `--supports-table`, built from the lists that its
command line and driver refuse other values with (the tile and block widths, the compiled masks,
the tap limit, the problems it has kernels for). This script gathers the rows of every chapter of
a build folder (its course_chapters.tsv) into the README between `<!-- supports:begin -->` and
`<!-- supports:end -->`, so the README cannot describe a chapter differently from the chapter
itself; a chapter's student and solution executables must print the same row.

    scripts/update_supports_table.py --build-dir build [--check]   # --check: exit 1 if it differs

Exit status: 0 done (or, with --check, the README agrees), 1 the README differs (--check) or
cannot be written, 2 bad command line, 4 the executables cannot be asked. Standard library only.
"""

import argparse
import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import course_chapters  # noqa: E402
import readme_block  # noqa: E402

BLOCK = "supports"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SupportsError(Exception):
    """An executable cannot be asked; the message says which."""


def table_of(executable):
    """(header lines, row line) that @p executable prints with --supports-table."""
    try:
        done = subprocess.run([executable, "--supports-table"], capture_output=True, text=True,
                              timeout=60, check=False)
    except OSError as error:
        raise SupportsError(f"{executable}: {error.strerror} (build the course first)") from error
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or len(lines) != 3 or not all(l.startswith("|") for l in lines):
        raise SupportsError(f"{executable} --supports-table printed no table (exit "
                            f"{done.returncode}): {done.stdout}{done.stderr}")
    return lines[:2], lines[2]


def build_table(chapters):
    """The Markdown table of @p chapters (course_chapters.Chapter), in chapter order."""
    header = None
    rows = []
    for chapter in chapters:
        # A build without solutions/ (a student's hand-out) has the student's executable only.
        tables = [table_of(executable) for executable in (chapter.student, chapter.solution)
                  if executable]
        row = tables[0][1]
        for _, other_row in tables[1:]:
            if other_row != row:
                raise SupportsError(f"{chapter.label}: its executables describe it differently:"
                                    f"\n  {row}\n  {other_row}")
        for other_header, _ in tables:
            if header is not None and other_header != header:
                raise SupportsError(f"{chapter.label}: a table header unlike the other "
                                    f"chapters': {other_header}")
            header = other_header
        rows.append(row)
    return "\n".join(header + rows)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the README's table of what each chapter takes, from the executables.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="a built build folder (default: build)")
    source.add_argument("--manifest", help="a build folder's course_chapters.tsv")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"),
                        help="the README (default: the repository's)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the README's table differs")
    args = parser.parse_args(argv)
    manifest = args.manifest or os.path.join(args.build_dir, "course_chapters.tsv")
    try:
        table = build_table(course_chapters.read_chapters(manifest))
        with open(args.readme, encoding="utf-8") as handle:
            text = handle.read()
        current = readme_block.extract_block(text, BLOCK, os.path.basename(args.readme))
        if current == table:
            print(f"{args.readme}: the table of what each chapter takes is up to date")
            return 0
        if args.check:
            diff = difflib.unified_diff(current.splitlines(), table.splitlines(),
                                        "README (now)", "what the executables print", lineterm="")
            print(f"error: {args.readme}'s table of what each chapter takes differs from what the "
                  "executables print; regenerate it with scripts/update_supports_table.py "
                  "--build-dir <build folder>", file=sys.stderr)
            print("\n".join(diff), file=sys.stderr)
            return 1
        readme_block.update_file(args.readme, BLOCK, table)
        print(f"{args.readme}: the table of what each chapter takes updated")
        return 0
    except readme_block.BlockError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: {args.readme}: {error.strerror}", file=sys.stderr)
        return 1
    except (SupportsError, course_chapters.ManifestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
