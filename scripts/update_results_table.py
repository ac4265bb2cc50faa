#!/usr/bin/env python3
"""Writes the performance ladder's results table (scripts/results_table.py) from its CSV into the
README between the lines `<!-- ladder:begin -->` and `<!-- ladder:end -->`, leaving everything
outside them as it is (a second run on the same CSV changes nothing); `--print` prints it laid out
for a terminal and `--out FILE` writes the Markdown to FILE instead, leaving the README alone.

    scripts/update_results_table.py results/ladder.csv --goals results/ladder_goals.csv \
        --image results/ladder.svg [--check]   # --check: exit 1 when the README's table differs
    scripts/update_results_table.py build/results/ladder.csv --out build/results/ladder.md --print

Exit status: 0 on success, 1 when the CSV cannot be read, the markers are missing, a file cannot
be written, or (--check) the README's table differs. Standard library only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import readme_block  # noqa: E402
import results_table  # noqa: E402

BLOCK = "ladder"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the ladder's results table from its CSV into the README, a file or "
                    "standard output.")
    parser.add_argument("csv", help="the ladder's results CSV (ladder.csv)")
    parser.add_argument("--goals", help="the ladder's goals CSV (ladder_goals.csv)")
    parser.add_argument("--readme", default="README.md", help="the README to update")
    parser.add_argument("--image", help="the plot to show below the table (a path from here; "
                        "the table links to it relative to the file it goes into)")
    parser.add_argument("--print", action="store_true", dest="print_only",
                        help="print the table, laid out for a terminal, instead of updating the "
                        "README")
    parser.add_argument("--out", help="write the table to this file instead of updating the "
                        "README")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the README's table differs")
    args = parser.parse_args(argv)
    try:
        rows = results_table.read_rows(args.csv)
        goals = results_table.read_goals(args.goals) if args.goals else None
        target = args.out or args.readme
        image = readme_block.link(args.image, target) if args.image else None
        block = results_table.render_table(rows, goals, image)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as handle:
                handle.write(block + "\n")
        if args.print_only:
            print(results_table.render_text(rows, goals))
        if args.print_only or args.out:
            return 0
        if readme_block.update_file(args.readme, BLOCK, block, args.check):
            print(f"{args.readme}: results table already up to date")
        elif args.check:
            print(f"error: {args.readme}'s results table differs from the one written from "
                  f"{args.csv}; regenerate it with scripts/ladder.sh --from-csv {args.csv} "
                  "--update-readme", file=sys.stderr)
            return 1
        else:
            print(f"{args.readme}: results table updated ({rows[0]['device']}, {rows[0]['date']})")
    except OSError as error:
        print(f"error: cannot {'write' if args.out else 'update'} {target}: "
              f"{error.strerror}", file=sys.stderr)
        return 1
    except (results_table.TableError, readme_block.BlockError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
