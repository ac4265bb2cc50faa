#!/usr/bin/env python3
"""Writes the README's table of what each chapter takes, from the chapters' executables.

Every chapter executable describes what it takes (`--describe`, its "support" field), from the
same lists that its command line and driver refuse other values with. This script lays out the
descriptions of every chapter of a build folder (its course_chapters.json) as a Markdown table in
the README between `<!-- supports:begin -->` and `<!-- supports:end -->`, so the README cannot
describe a chapter differently from the chapter itself; a chapter's student and solution
executables must describe it alike.

    scripts/update_supports_table.py --build-dir build [--check]   # --check: exit 1 if it differs

Exit status: 0 done (or, with --check, the README agrees), 1 the README differs (--check) or
cannot be written, 2 bad command line, 4 the executables cannot be asked. Standard library only.
"""

import argparse
import difflib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import course_description  # noqa: E402
import readme_block  # noqa: E402

BLOCK = "supports"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = ["| chapter | problems | matmul, minplus | conv2d | conv1d |",
          "| ---: | --- | --- | --- | --- |"]


def build_table(chapters):
    """The Markdown table of @p chapters (course_description.read_manifest), in chapter order."""
    rows = []
    for chapter in chapters:
        # A build without solutions/ (a student's hand-out) has the student's executable only.
        supports = [course_description.describe(chapter[edition])["support"]
                    for edition in ("student", "solution") if chapter[edition]]
        student = supports[0]
        for other in supports[1:]:
            if other != student:
                raise course_description.DescriptionError(
                    f"{chapter['label']}: its executables describe it differently:\n"
                    f"  {student}\n  {other}")
        rows.append(f"| {chapter['number']} | {student['problems']} | {student['products']} | "
                    f"{student['conv2d']} | {student['conv1d']} |")
    return "\n".join(HEADER + rows)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the README's table of what each chapter takes, from the executables.")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="a built build folder (default: build)")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"),
                        help="the README (default: the repository's)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the README's table differs")
    args = parser.parse_args(argv)
    try:
        table = build_table(course_description.read_manifest(args.build_dir))
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
    except course_description.DescriptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
