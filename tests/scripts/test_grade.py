#!/usr/bin/env python3
"""Tests of scripts/grade.sh (and scripts/grade.py) on two students' build folders whose chapter 9
is the stand-in of tests/scripts/fake_course.py: one student's work holds every criterion, the
other's has wrong values in one problem, nothing yet in another and a slow product. The grades
come from progress.py's engine, against the solution executables of a third build (the
instructor's), as a table per student and as CSV; bad input is one line and a non-zero exit.
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

from fake_course import FakeCourse
from support import ROOT

GRADE_SH = os.path.join(ROOT, "scripts", "grade.sh")


class GradeTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        root = self.folder.name
        self.builds = os.path.join(root, "builds")
        self.checkouts = [os.path.join(root, "checkouts", name) for name in ("alice", "bob")]
        for checkout in self.checkouts:
            os.makedirs(checkout)
        # The students' builds have no solution of their own: the instructor's is compared with.
        self.alice = FakeCourse(self.builds, solution=False, name="alice")
        self.bob = FakeCourse(self.builds, solution=False, name="bob")
        self.bob.modes(matmul="some-wrong", conv2d="all-wrong", rate_student="6")
        self.instructor = FakeCourse(self.builds, name="instructor")

    def tearDown(self):
        self.folder.cleanup()

    def grade(self, *args):
        return subprocess.run(["bash", GRADE_SH] + list(args), capture_output=True, text=True,
                              timeout=300, check=False, env=self.instructor.env())

    def test_a_table_and_a_csv_per_exercise(self):
        grades = os.path.join(self.folder.name, "grades.csv")
        done = self.grade("--no-build", "--build-root", self.builds, "--solutions",
                          self.instructor.build, "--csv", grades, *self.checkouts)
        out = done.stdout
        self.assertEqual(done.returncode, 0, out + done.stderr)
        self.assertIn("alice: 2 of 2 exercises done, 0 failing, 0 not done", out)
        self.assertRegex(out, r"(?m)^  9\.1 +done +\*\*\* 100%$")
        self.assertIn("bob: 0 of 2 exercises done, 1 failing, 1 not done", out)
        self.assertRegex(out, r"(?m)^  9\.1 +failing +\* +60%  value: ch09_fake_chapter --problem "
                              r"matmul .*: FAIL, 7 of 100 elements wrong")
        self.assertRegex(out, r"(?m)^  9\.2 +not done +- +value: .*FAIL, 100 of 100")
        with open(grades, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual([(r["student"], r["exercise"], r["status"], r["stars"], r["share"])
                          for r in rows],
                         [("alice", "9.1", "done", "***", "1.00"),
                          ("alice", "9.2", "done", "***", "1.00"),
                          ("bob", "9.1", "failing", "*", "0.60"),
                          ("bob", "9.2", "not done", "", "")])
        self.assertEqual(rows[0]["reason"], "")
        self.assertRegex(rows[2]["reason"], r"^value: .*FAIL, 7 of 100 elements wrong, 0 NaN -- "
                                            r"scripts/hint.sh 9.1$")

    def test_a_checkout_that_cannot_be_built_is_not_checked(self):
        # A cmake that configures nothing: the checkout lists no chapters (another version of the
        # course, say). Each student gets a row saying why; no traceback, and the others go on.
        tools = os.path.join(self.folder.name, "tools")
        os.makedirs(tools)
        with open(os.path.join(tools, "cmake"), "w", encoding="utf-8") as handle:
            handle.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(tools, "cmake"), 0o755)
        env = self.instructor.env()
        env["PATH"] = tools + os.pathsep + env["PATH"]
        grades = os.path.join(self.folder.name, "grades.csv")
        done = subprocess.run(["bash", GRADE_SH, "--build-root", os.path.join(self.folder.name,
                               "new"), "--solutions", self.instructor.build, "--csv", grades,
                               *self.checkouts], capture_output=True, text=True, timeout=300,
                              check=False, env=env)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        with open(grades, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual([(r["student"], r["status"]) for r in rows],
                         [("alice", "not checked"), ("bob", "not checked")])
        self.assertRegex(rows[0]["reason"], r"alice lists no chapters once configured .*"
                                            r"course_chapters\.json")

    def test_bad_input(self):
        done = self.grade("--no-build", os.path.join(self.folder.name, "nobody"))
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertRegex(done.stderr, r"^error: .*nobody is not a folder")
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        done = self.grade()
        self.assertEqual(done.returncode, 2)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[1:], verbosity=2)
