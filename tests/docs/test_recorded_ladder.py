#!/usr/bin/env python3
"""Tests of tests/docs/recorded_ladder.py, the check that the figures the lessons quote from the
recorded ladder are those of results/ladder.csv: on a stand-in repository, quotes that match pass
and each planted fault fails naming its file and line (a wrong figure, a figure of the recorded
ladder written without its source, a quote naming no row or one the CSV lacks, a quote broken over
two lines); on a copy of the course's own lessons and CSV, one figure changed fails.

    python3 tests/docs/test_recorded_ladder.py
"""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CHECK = Path(__file__).resolve().parent / "recorded_ladder.py"

CSV = """\
device,date,problem,sizes,chapter,implementation,status,median_ms,rate,rate_unit,peak_percent,cublas_percent,speedup
GPU,2026-11-25,matmul,4096,4,ch04,PASS,3.03526,45.2807,TFLOP/s,67.6759,89.0904,4.82605
GPU,2026-11-25,matmul,4096,5,ch05,PASS,2.8988,47.4124,TFLOP/s,70.8619,93.2844,1.04708
GPU,2026-11-25,matmul,4096,,cuBLAS,PASS,2.70413,50.8256,TFLOP/s,75.9632,,
GPU,2026-11-25,minplus,4096,5,ch05,PASS,21.0,12.6987,Tstep/s,75.917,,1.02
GPU,2026-11-25,conv2d,"8192x8192, 13x13 mask",4,ch04,PASS,2.7,99.2758,Gpixel/s,12.0,,3.89
"""
L = "../../results/ladder.csv"
LESSON = f"""# Chapter 5: warp tiles

In the recorded ladder (2026-11-25) the chapter runs matmul at
[47.4 TFLOP/s]({L} "ch05, matmul 4096"), [93.3% of cuBLAS]({L} "chapter 5, matmul 4096")
([2.90 ms]({L} "ch05, matmul 4096"), [1.05x]({L} "ch05, matmul 4096") chapter 4's rate), and
min-plus at [75.9%]({L} "ch05, minplus 4096") of its peak. Another run gave 92.1%, and the goal
is 100% of cuBLAS.

A number of another run (95.0%) stands alone, and an example in code is no quote:
`[1.0x](../../results/ladder.csv "ch05, matmul 4096")`.

| kernel | 4096 | command |
| --- | --- | --- |
| chapter 5, the recorded ladder | [47.4]({L} "ch05, matmul 4096") | `./build/ladder --chapters 4,5` |
| cuBLAS in the recorded ladder (2026-11-25) | [50.8]({L} "cuBLAS, matmul 4096") | the same run |
| step 1 | 44.1 | `./build/ch05 --variant warptile` |

| goal | the recorded ladder | verdict |
| --- | --- | --- |
| chapter 4's conv2d at 8192 | [99.3]({L} "ch04, conv2d 8192x8192, 13x13 mask") (step 4) | **met** |
"""
LESSON_PATH = "chapters/05_warp_tiles/README.md"
# Planted faults: (the lesson's text replaced, what the check's errors must say).
FAULTS = [
    (("[93.3% of cuBLAS]", "[92.3% of cuBLAS]"),
     [f"{LESSON_PATH}:4: '92.3% of cuBLAS' (chapter 5, matmul 4096): the recorded ladder has "
      "93.2844 (share of cuBLAS, cublas_percent), 93.3 as written"]),
    (("[47.4 TFLOP/s]", "[47.5 TFLOP/s]"), [f"{LESSON_PATH}:4: '47.5 TFLOP/s'", "47.4124"]),
    (("[2.90 ms]", "[2.91 ms]"), [f"{LESSON_PATH}:5: '2.91 ms'", "median_ms"]),
    (("[1.05x]", "[1.04x]"), [f"{LESSON_PATH}:5: '1.04x'", "speedup"]),
    (("[75.9%]", "[75.4%]"), [f"{LESSON_PATH}:6: '75.4%'", "peak_percent"]),
    (("[99.3]", "[99.2]"), [f"{LESSON_PATH}:20: '99.2'"]),
    (("| [50.8]", "| 50.8"), [f"{LESSON_PATH}:15: a table row on the recorded ladder shows '50.8'"]),
    (("| [99.3]", "| 99.3"), [f"{LESSON_PATH}:20: a table row on the recorded ladder shows '99.3'"]),
    (("Another run gave 92.1%, and", "Another run gave 92.1% in the recorded ladder, and"),
     [f"{LESSON_PATH}:6: a sentence on the recorded ladder quotes '92.1%', '100%'"]),
    (('"ch05, matmul 4096"), [93.3%', '"matmul 4096"), [93.3%'),
     [f"{LESSON_PATH}:4: [47.4 TFLOP/s](../../results/ladder.csv) names no row"]),
    (('"chapter 5, matmul 4096")\n', '"chapter 6, matmul 4096")\n'),
     [f"{LESSON_PATH}:4: '93.3% of cuBLAS' (chapter 6, matmul 4096): the recorded ladder has no "
      "such row"]),
    (('[47.4 TFLOP/s]({L} "ch05'.format(L=L), '[47.4 TFLOP/s]({L}\n"ch05'.format(L=L)),
     [f"{LESSON_PATH}:4: a link to results/ladder.csv that does not close on its line"]),
]


class RecordedLadder(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="recorded-ladder-"))
        (self.root / "results").mkdir()
        (self.root / "results" / "ladder.csv").write_text(CSV, encoding="utf-8")
        (self.root / LESSON_PATH).parent.mkdir(parents=True)
        (self.root / "README.md").write_text("# The course\n", encoding="utf-8")

    def tearDown(self):
        shutil.rmtree(self.root)

    def check(self, lesson):
        (self.root / LESSON_PATH).write_text(lesson, encoding="utf-8")
        return subprocess.run([sys.executable, str(CHECK), "--root", str(self.root)],
                              capture_output=True, text=True)

    def test_true_figures_pass(self):
        result = self.check(LESSON)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("recorded_ladder: OK (8 figure(s) of results/ladder.csv quoted in 2 "
                      "file(s))", result.stdout)

    def test_planted_faults_fail_naming_file_and_line(self):
        for (old, new), expected in FAULTS:
            with self.subTest(fault=new):
                self.assertIn(old, LESSON)
                result = self.check(LESSON.replace(old, new, 1))
                self.assertEqual(result.returncode, 1, result.stdout)
                for text in expected:
                    self.assertIn(text, result.stderr)
                self.assertNotIn("Traceback", result.stderr)

    def test_a_missing_or_foreign_csv_is_one_line(self):
        for text, expected in ((None, "results/ladder.csv: missing"),
                               ("a,b\n1,2\n", "not a ladder CSV")):
            with self.subTest(expected=expected):
                path = self.root / "results" / "ladder.csv"
                if text is None:
                    path.unlink()
                else:
                    path.write_text(text, encoding="utf-8")
                result = self.check(LESSON)
                self.assertEqual(result.returncode, 1)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertIn(expected, result.stderr)

    def test_the_course_with_one_figure_changed(self):
        """The course's own lessons and CSV, copied, with one quoted figure made wrong."""
        quoted = []
        for rel in ("results/ladder.csv", *(p.relative_to(ROOT).as_posix()
                                            for p in ROOT.glob("chapters/*/*.md"))):
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, target)
            if rel.endswith(".md") and "results/ladder.csv \"" in target.read_text("utf-8"):
                quoted.append(target)
        self.assertTrue(quoted, "no lesson quotes the recorded ladder")
        result = subprocess.run([sys.executable, str(CHECK), "--root", str(self.root)],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        lesson = quoted[0]
        text = lesson.read_text(encoding="utf-8")
        start = text.index('](../../results/ladder.csv "')
        opening = text.rindex("[", 0, start)
        figure = text[opening + 1:start]
        digit = next(i for i, c in enumerate(figure) if c.isdigit())
        wrong = figure[:digit] + str((int(figure[digit]) + 1) % 10) + figure[digit + 1:]
        lesson.write_text(text[:opening + 1] + wrong + text[start:], encoding="utf-8")
        result = subprocess.run([sys.executable, str(CHECK), "--root", str(self.root)],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn(f"'{wrong}'", result.stderr)
        self.assertIn(lesson.relative_to(self.root).as_posix(), result.stderr)


if __name__ == "__main__":
    unittest.main()
