#!/usr/bin/env python3
"""Tests of scripts/update_results_table.py and the table writer it shares with the site
(scripts/results_table.py) on the committed sample CSV: the table goes between the markers and
nowhere else, a second run changes nothing, missing markers are an error, --print (the same cells
laid out for a terminal, with the goals) and --out leave the README alone, and runs that failed
their check are marked, not shown. The figures themselves (ratios, speedups, formats) come from
the ladder, whose tests are in test_ladder.cpp.

    python3 tests/ladder/test_update_results_table.py
"""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

from support import call  # noqa: E402 (puts scripts/ on the path)
import readme_block  # noqa: E402
import results_table  # noqa: E402
import update_results_table as table  # noqa: E402

SAMPLE_CSV = os.path.join(HERE, "sample_ladder.csv")
SAMPLE_GOALS = os.path.join(HERE, "sample_ladder_goals.csv")
BEGIN, END = readme_block.markers("ladder")

README = f"""# A course

Some text before.

{BEGIN}
An old table.
{END}

Text after.
"""


def run(*args):
    """(status, stdout, stderr) of the script's main()."""
    return call(table.main, args)


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def line_of(text, prefix):
    """The first line of @p text that starts with @p prefix."""
    return next(line for line in text.splitlines() if line.startswith(prefix))


def cells_of(text, prefix):
    """The cells of the Markdown table line of @p text that starts with @p prefix."""
    return [cell.strip() for cell in line_of(text, prefix).strip("|").split("|")]


def rows_with(changes):
    """The sample's rows with @p changes: {(problem, sizes, implementation): {column: value}}."""
    rows = results_table.read_rows(SAMPLE_CSV)
    for row in rows:
        row.update(changes.get((row["problem"], row["sizes"], row["implementation"]), {}))
    return rows


class UpdateResultsTableTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.readme = os.path.join(self.folder, "README.md")
        write(self.readme, README)

    def tearDown(self):
        shutil.rmtree(self.folder)

    def test_table_goes_between_the_markers_only(self):
        status, out, _ = run(SAMPLE_CSV, "--goals", SAMPLE_GOALS, "--readme", self.readme)
        self.assertEqual(status, 0)
        self.assertIn("results table updated", out)
        before, rest = read(self.readme).split(BEGIN)
        inside, after = rest.split(END)
        self.assertEqual(before, README.split(BEGIN)[0])
        self.assertEqual(after, README.split(END)[1])
        self.assertNotIn("An old table", inside)
        for expected in (
                "**Example GPU**", "2025-01-15",  # names the GPU and the date
                "| problem | size | ch 1 | ch 2 | ch 3 | ch 3 dispatch | ch 4 | cuBLAS |",
                "| matmul | 4096 | 4.60 | 9.40 (2.04x) |", "ch 4: 84% of cuBLAS",
                "CUBLAS_PEDANTIC_MATH", "chapter 4 at least 65% of cuBLAS: **met** (84.0%)"):
            self.assertIn(expected, inside)

    def test_check_fails_until_the_table_is_written_and_a_second_run_changes_nothing(self):
        args = (SAMPLE_CSV, "--goals", SAMPLE_GOALS, "--readme", self.readme)
        status, _, err = run(*args, "--check")
        self.assertEqual(status, 1)
        self.assertIn("differs", err)
        self.assertEqual(read(self.readme), README)  # --check writes nothing
        self.assertEqual(run(*args)[0], 0)
        self.assertEqual(run(*args, "--check")[0], 0)
        first = read(self.readme)
        status, out, _ = run(*args)
        self.assertEqual(status, 0)
        self.assertIn("already up to date", out)
        self.assertEqual(read(self.readme), first)
        self.assertEqual(first.count(BEGIN), 1)
        self.assertEqual(first.count(END), 1)

    def test_failed_runs_are_marked_not_shown(self):
        run(SAMPLE_CSV, "--readme", self.readme)
        text = read(self.readme)
        # Chapter 3 failed its check, chapter 3 dispatch did not run here: so chapter 4 has no
        # speedup over chapter 3.
        self.assertEqual(cells_of(text, "| minplus | 1024 |")[4:7], ["FAIL", "-", "10.9"])
        self.assertIn("minplus 1024 ch03 (FAIL)", text)

    def test_missing_markers_fail_clearly(self):
        write(self.readme, f"# A course\n\n{BEGIN}\nno end marker\n")
        status, _, err = run(SAMPLE_CSV, "--readme", self.readme)
        self.assertEqual(status, 1)
        self.assertIn(END, err)
        self.assertIn("not found", err)
        self.assertIn("no end marker", read(self.readme))  # left untouched

    def test_print_and_out_leave_the_readme_alone(self):
        out_file = os.path.join(self.folder, "build", "ladder.md")
        os.makedirs(os.path.dirname(out_file))
        image = os.path.join(self.folder, "build", "ladder.svg")
        status, out, _ = run(SAMPLE_CSV, "--readme", self.readme, "--print", "--out", out_file,
                             "--image", image)
        self.assertEqual(status, 0)
        self.assertIn("\n  4096  4.60  9.40 (2.04x)  10.1 (1.07x)", out)  # laid out for a terminal
        self.assertEqual(read(self.readme), README)
        written = read(out_file)
        self.assertIn("| matmul | 4096 | 4.60 | 9.40 (2.04x) |", written)
        self.assertIn("](ladder.svg)", written)  # relative to the file it is in

    def test_the_console_table_shows_the_same_cells(self):
        # One block per problem with its unit and only the columns that carry it; the goals with
        # their verdicts; the runs that are not results with what went wrong.
        rows = rows_with({("matmul", "1024", "ch02"): {"status": "FAIL", "rate": "", "cell": "FAIL",
                                                       "message": "FAIL: 3 elements"}})
        goals = results_table.read_goals(SAMPLE_GOALS)
        goals[0].update({"measured": "", "measured_text": "", "verdict": "not measured"})
        text = results_table.render_text(rows, goals)
        lines = text.splitlines()
        self.assertIn("matmul (TFLOP/s; in brackets the speedup over the previous chapter)", lines)
        header = lines[lines.index("conv1d (Gsample/s; in brackets the speedup over the previous "
                                   "chapter)") + 1].split()
        self.assertEqual(header, ["size", "ch", "1", "ch", "3", "ceiling", "best", "chapter"])
        small = line_of(text, "  1024  3.90")
        self.assertEqual(small.split()[2], "FAIL")
        self.assertIn("ch 4: 89% of cuBLAS", small)
        markdown = results_table.render_table(rows, goals)
        for cell in ("29.5 (3.60x)", "33.0", "66.9 TFLOP/s (FP32 peak)", "ch 4: 89% of cuBLAS"):
            self.assertIn(f"| {cell} |", markdown)  # the same cells as the README's
            self.assertIn(cell, small)
        self.assertIn("  not measured  matmul 4096: chapter 2 at least 1.5x chapter 1", text)
        self.assertRegex(text, r"\n  met +matmul 4096: chapter 4 at least 65% of cuBLAS +84\.0%")
        self.assertIn("Not results", text)
        self.assertIn("  matmul 1024, ch02: FAIL: 3 elements", lines)
        self.assertIn("  minplus 1024, ch03: FAIL: 4096 sampled elements", text)

    def test_not_a_ladder_csv(self):
        bad = os.path.join(self.folder, "bad.csv")
        write(bad, "a,b\n1,2\n")
        status, _, err = run(bad, "--readme", self.readme)
        self.assertEqual(status, 1)
        self.assertIn("not a ladder CSV", err)
        self.assertEqual(read(self.readme), README)


if __name__ == "__main__":
    unittest.main(verbosity=2)
