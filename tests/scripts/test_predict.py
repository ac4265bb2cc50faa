#!/usr/bin/env python3
"""Tests of scripts/predict.sh (and scripts/predict.py) against a stand-in chapter 9 (tests/scripts/
fake_course.py) and a stand-in lesson: the question shown is the lesson's paragraph; nothing is
measured before a prediction is written down, and the first one is kept; the measurement comes
from the command lines the chapter describes, with the student's kernels or else the solution's,
beside the prediction; without a GPU the recorded measurement is shown with its GPU and date;
--record writes it, a line per run, the run's own --json object (or ncu's totals) with the
prediction, GPU, date and command line; a recorded file that is not such lines is one line and a
non-zero exit, as is any other bad input.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import fake_course
from fake_course import FakeCourse
from support import ROOT

import predict  # scripts/ is on the path through support

PREDICT_SH = os.path.join(ROOT, "scripts", "predict.sh")
METRIC = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
PREDICTIONS = [
    {"id": "9.1", "args": ["--problem", "matmul"], "runs": [["--problem", "matmul"]],
     "show": ["time", "rate"]},
    {"id": "9.2", "args": ["--problem", "matmul", "-m", "1024"],
     "runs": [["--problem", "matmul", "-m", "1024"]], "show": ["ncu"], "metrics": [METRIC],
     "kernel": "product_kernel"},
]
LESSON = textwrap.dedent("""\
    # Chapter 9

    > **Predict 9.1.** How fast is the product at 4096? Write the rate down,
    > then measure it.

    The answer is not here.

    **Predict 9.2.** How many bank conflicts at 1024?

    **Predict 9.3.** A question the chapter does not measure.
    """)
RECORDED = json.dumps({"prediction": "9.1", "device": "NVIDIA H100 80GB HBM3",
                       "date": "2026-11-25", "args": ["--problem", "matmul"],
                       "problem": "matmul", "variant": "", "rate": 45.123, "rate_text": "45.1",
                       "unit": "TFLOP/s"}) + "\n"


class ShownTest(unittest.TestCase):
    """A measurement is shown as the executable wrote it (`rate_text`, `speedup_text`)."""

    def test_the_rate_and_the_speedup_are_the_executables_text(self):
        record = {"problem": "matmul", "variant": "", "rate": 41.234, "rate_text": "41.2",
                  "unit": "TFLOP/s", "speedup": 1.6649, "speedup_text": "1.66x",
                  "previous_chapter": 6}
        self.assertEqual(predict.shown(record, ["rate", "speedup"]),
                         [("matmul rate", "41.2 TFLOP/s"),
                          ("matmul speedup", "1.66x over chapter 6")])
        self.assertEqual(predict.shown(dict(record, speedup_text=None), ["speedup"]), [])


class PredictTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.course = FakeCourse(self.folder.name, describe=fake_course.description(
            predictions=PREDICTIONS))
        self.root = os.path.join(self.folder.name, "root")
        os.makedirs(os.path.join(self.root, "chapters", "09_fake_chapter"))
        os.makedirs(os.path.join(self.root, "results"))
        with open(os.path.join(self.root, "chapters", "09_fake_chapter", "README.md"), "w",
                  encoding="utf-8") as handle:
            handle.write(LESSON)
        self.recorded = os.path.join(self.root, "results", "predictions.jsonl")
        with open(self.recorded, "w", encoding="utf-8") as handle:
            handle.write(RECORDED)

    def tearDown(self):
        self.folder.cleanup()

    def predict(self, *args, stdin="", **modes):
        return subprocess.run(["bash", PREDICT_SH, "--build-dir", self.course.build, "--root",
                               self.root] + list(args), input=stdin, capture_output=True,
                              text=True, timeout=120, check=False, env=self.course.env(**modes))

    def runs_logged(self):
        return [line for line in self.course.logged().splitlines() if "--describe" not in line]

    def test_the_question_then_the_prediction_then_the_measurement(self):
        done = self.predict("9.1", stdin="about 40 TFLOP/s\n", rate_student="41.5")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("Predict 9.1 (chapter 9):\n  **Predict 9.1.** How fast is the product at "
                      "4096? Write the rate down,\n  then measure it.\n", done.stdout)
        self.assertNotIn("The answer is not here", done.stdout)
        self.assertRegex(done.stdout, r"\n  about 40 TFLOP/s +\| --problem matmul:\n +\|   matmul "
                                      r"time: 0\.5 ms\n +\|   matmul rate: 41\.5 TFLOP/s\n")
        self.assertIn("| measured on FAKE GPU, today, with your kernels", done.stdout)
        with open(os.path.join(self.course.build, "predictions.json"), encoding="utf-8") as h:
            kept = json.load(h)
        self.assertEqual(kept["9.1"]["prediction"], "about 40 TFLOP/s")
        # The first prediction stays, whatever is given later.
        done = self.predict("9.1", "45 TFLOP/s")
        self.assertIn("your first prediction", done.stdout)
        self.assertRegex(done.stdout, r"\n  about 40 TFLOP/s +\|")

    def test_nothing_is_measured_before_a_prediction(self):
        done = self.predict("9.1", stdin="")
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertRegex(done.stderr, r"^error: no prediction for 9\.1: write yours down first")
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        self.assertEqual(self.runs_logged(), [])
        self.assertNotIn("TFLOP/s", done.stdout)

    def test_the_solution_measures_while_the_students_kernels_fail(self):
        done = self.predict("9.1", "40", matmul="some-wrong")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("with the solution's kernels", done.stdout)

    def test_ncu_metrics_of_the_described_kernel(self):
        done = self.predict("9.2", "none", ncu_student="4096")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn(f"{METRIC}: 4,096", done.stdout)
        self.assertIn("--kernel-name regex:product_kernel", self.course.logged())

    def test_a_recorded_count_names_its_gpu(self):
        done = self.predict("--record", "9.2", ncu_solution="4096")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual([(r["device"], r["args"], r["ncu"]) for r in self.recorded_lines()
                          if r["prediction"] == "9.2"],
                         [("FAKE GPU", ["--problem", "matmul", "-m", "1024"], {METRIC: 4096})])
        # What was recorded is shown as a fresh measurement is.
        done = self.predict("9.2", "none", matmul="no-device", ncu_student="locked")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn(f"|   {METRIC}: 4,096", done.stdout)

    def recorded_lines(self):
        with open(self.recorded, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def test_a_recorded_file_that_is_not_records(self):
        with open(self.recorded, "w", encoding="utf-8") as handle:
            handle.write("id,device,date,run,measure,value\n")
        done = self.predict("9.1", "40", matmul="no-device")
        self.assertEqual(done.returncode, 4, done.stdout + done.stderr)
        self.assertRegex(done.stderr, r"^error: .*results/predictions\.jsonl:1: not a recorded "
                         r"measurement \(a run's --json object, or ncu's totals\): missing a JSON "
                         r"object\n$")

    def test_without_a_gpu_the_recorded_measurement_with_its_gpu_and_date(self):
        done = self.predict("9.1", "40", matmul="no-device")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("recorded on NVIDIA H100 80GB HBM3, 2026-11-25 (no CUDA device here)",
                      done.stdout)
        self.assertIn("matmul rate: 45.1 TFLOP/s", done.stdout)
        done = self.predict("9.2", "none", matmul="no-device", ncu_student="locked")
        self.assertEqual(done.returncode, 4, done.stdout + done.stderr)  # ncu, not the GPU
        os.remove(self.recorded)
        done = self.predict("9.1", "40", matmul="no-device")
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn("Not measured (no CUDA device here), and no measurement of Predict 9.1 is "
                      "recorded", done.stdout)
        done = self.predict("9.2", "none", ncu_student="locked")
        self.assertEqual(done.returncode, 4)
        self.assertIn("Not measured (ncu may not read this GPU's performance counters "
                      "(ERR_NVGPUCTRPERM)), and no measurement of Predict 9.2 is recorded",
                      done.stdout)

    def test_record_writes_the_solutions_measurement(self):
        done = self.predict("--record", "9.1", rate_solution="44")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lines = self.recorded_lines()
        self.assertIn(json.loads(RECORDED), lines)  # another GPU's stays
        (mine,) = [line for line in lines if line["device"] == "FAKE GPU"]
        self.assertEqual((mine["prediction"], mine["device"], mine["args"], mine["rate"]),
                         ("9.1", "FAKE GPU", ["--problem", "matmul"], 44))
        self.assertRegex(mine["date"], r"^\d{4}-\d\d-\d\d$")
        self.assertEqual(mine["verdict"], "PASS")  # the run's own --json object
        self.assertTrue(any("ch09_fake_chapter_solution" in line for line in self.runs_logged()))

    def test_bad_input_is_one_line(self):
        for args, status, message in (
                (["9.9"], 2, "no Predict 9.9 in the lesson (the lessons have: 9.1, 9.2, 9.3)"),
                (["five"], 2, "five is not a Predict question"),
                (["9.3", "x"], 4, "chapter 9 describes no measurement for Predict 9.3"),
                (["8.1"], 2, "chapter 8 is not in the build")):
            with self.subTest(args=args):
                done = self.predict(*args)
                self.assertEqual(done.returncode, status, done.stdout + done.stderr)
                self.assertIn(message, done.stderr)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        done = subprocess.run(["bash", PREDICT_SH, "--build-dir",
                               os.path.join(self.folder.name, "nothing"), "9.1", "x"],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(done.returncode, 4)
        self.assertRegex(done.stderr, r"^error: .*course_chapters.json: No such file or directory:"
                                      r" configure the course first \(scripts/run\.sh builds it\)$")
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[1:], verbosity=2)
