#!/usr/bin/env python3
"""The student's <target>.check.<id> tests (student_checks.py) against the stand-ins of
tests/scripts/fake_course.py (a chapter 9, cuobjdump, compute-sanitizer, ncu), so that they are
tested without a GPU: the listing adds one test per check with its labels and no other kernel
check; a criterion is SKIPPED unless COURSE_CHECK names the chapter, and where its tool or a GPU is
missing; a criterion that fails is FAIL with its line and hint, one that holds PASS. Which mistake
each criterion catches is tested once, through the same engine, in tests/scripts/test_progress.py.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
import fake_course  # noqa: E402  (tests/scripts/)

RELIABILITY = HERE / "reliability.py"


class StudentChecks(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.course = fake_course.FakeCourse(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def reliability(self, args, course_check="ch09", only_stand_ins=False, **modes):
        env = self.course.env(**modes)
        if only_stand_ins:  # no real CUDA tool of this machine can be found
            env["PATH"] = os.pathsep.join([self.course.bin, os.path.dirname(sys.executable)])
            env["CUDA_HOME"] = self.folder.name
        env.pop("COURSE_CHECK", None)
        if course_check is not None:
            env["COURSE_CHECK"] = course_check
        return subprocess.run([sys.executable, str(RELIABILITY)] + args, capture_output=True,
                              text=True, env=env, timeout=120, check=False)

    def criterion(self, identifier, course_check="ch09", extra=(), only_stand_ins=False,
                  **modes):
        return self.reliability(["criterion", self.course.student, "--chapter=ch09",
                                 f"--id={identifier}", f"--build-dir={self.course.build}"]
                                + list(extra), course_check, only_stand_ins, **modes)

    def assert_result(self, done, status, last_line):
        lines = done.stdout.strip().splitlines()
        self.assertEqual(done.returncode, status, done.stdout + done.stderr)
        self.assertTrue(lines, done.stderr)
        self.assertRegex(lines[-1], last_line)
        self.assertNotIn("Traceback", done.stderr)

    # -- the listing

    def listing(self, exe):
        done = self.reliability(["tests", exe, "--target=ch09_fake_chapter", "--edition=student",
                                 f"--build-dir={self.course.build}"])
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        tests = dict(re.findall(r"set_tests_properties\(\[==\[(.*?)\]==\] PROPERTIES (.*)\)",
                                done.stdout))
        commands = dict(re.findall(r"add_test\(\[==\[(.*?)\]==\] (.*)\)", done.stdout))
        return tests, commands

    def test_listing_adds_one_test_per_check(self):
        tests, commands = self.listing(self.course.student)
        names = {f"ch09_fake_chapter.check.{c['id']}" for c in fake_course.CHECKS}
        others = {"ch09_fake_chapter.bad_input", "ch09_fake_chapter.no_device"}
        self.assertEqual(set(tests) - others, names)
        for check in fake_course.CHECKS:
            name = f"ch09_fake_chapter.check.{check['id']}"
            kind = "cpu" if check["tool"] in ("spills", "sass") else "gpu"
            self.assertIn(f"LABELS [==[{kind};ch09]==]", tests[name])
            self.assertIn("SKIP_REGULAR_EXPRESSION [==[SKIPPED:]==]", tests[name])
            self.assertEqual("RUN_SERIAL" in tests[name], check["tool"] in ("ncu", "rate"), name)
            self.assertIn(f"[==[--id={check['id']}]==]", commands[name])
            self.assertIn("[==[--chapter=ch09]==]", commands[name])
        # The student's kernels get no test of the solutions' kinds (sanitize, edges, bug hunt).
        self.assertIn("LABELS [==[cpu;reliability]==]", tests["ch09_fake_chapter.bad_input"])

    def test_listing_of_an_executable_not_built(self):
        tests, _ = self.listing(self.course.student + "_missing")
        self.assertEqual([t for t in tests if ".check." in t],
                         ["ch09_fake_chapter.check.NOT_BUILT"])
        done = self.reliability(["criterion", self.course.student + "_missing",
                                 "--chapter=ch09", f"--build-dir={self.course.build}"])
        self.assert_result(done, 1, r"^FAIL: .*ch09_fake_chapter_missing is not built: cmake "
                                    r"--build .* --target ch09_fake_chapter_missing")
        done = self.reliability(["criterion", self.course.student + "_missing",
                                 "--chapter=ch09", f"--build-dir={self.course.build}"],
                                course_check=None)
        self.assert_result(done, 0, "^SKIPPED: ")

    # -- on request only

    def test_skipped_unless_course_check_names_the_chapter(self):
        for course_check in (None, "", "ch01", "ch01,ch10"):
            done = self.criterion("memcheck", course_check, sanitizer_memcheck="errors")
            self.assert_result(done, 0, r"^SKIPPED: your own ch09 kernels are checked on request: "
                                        r"COURSE_CHECK=ch09 ctest")
        self.assertFalse(os.path.exists(self.course.log), "something ran")
        for course_check in ("ch09", "all", "ch01,ch09"):
            done = self.criterion("memcheck", course_check, sanitizer_memcheck="errors")
            self.assert_result(done, 1, "^FAIL: memcheck: ")

    # -- a verdict as a test reports it

    def test_sanitizer(self):
        self.assert_result(self.criterion("memcheck"), 0,
                           r"^PASS: memcheck holds for exercises 9.1, 9.2$")
        done = self.criterion("memcheck", sanitizer_memcheck="errors")
        self.assert_result(done, 1, r"^FAIL: memcheck: memcheck found errors at --problem matmul.*"
                                    r"Invalid __global__ read.* -- exercise 9.1 / scripts/hint.sh "
                                    r"9.1$")

    def test_the_code_criteria_need_no_gpu(self):
        done = self.criterion("prefetch", matmul="no-device", minplus="no-device")
        self.assert_result(done, 0, "^PASS: prefetch holds")
        self.assertNotIn("--problem", self.course.logged())  # no run of the executable

    def test_rate(self):
        self.assert_result(self.criterion("rate", rate_student=9, rate_solution=10), 0,
                           "^PASS: rate holds")
        done = self.criterion("rate", rate_student=3, rate_solution=10)
        self.assert_result(done, 1, r"^FAIL: rate: - 30% of the solution's rate on this GPU .* "
                                    r"-- scripts/hint.sh 9.1$")

    def test_not_done_exercises_fail_unjudged(self):
        done = self.criterion("memcheck", matmul="all-wrong", minplus="all-wrong")
        self.assert_result(done, 1, r"^FAIL: memcheck: not judged: exercise 9.1 not done "
                                    r"\(.*FAIL, 100 of 100 elements wrong.*\) -- scripts/hint.sh "
                                    r"9.1$")

    # -- not measurable here: skipped, with the reason

    def test_skipped_without_the_tool(self):
        for identifier, tool, why in (("no-spills", "cuobjdump", "cuobjdump not found"),
                                      ("memcheck", "compute_sanitizer",
                                       "compute-sanitizer not found"),
                                      ("bank-conflicts", "ncu", "ncu .* not found")):
            with self.subTest(identifier=identifier):
                done = self.criterion(identifier, **{tool: ""})
                self.assert_result(done, 0, f"^SKIPPED: {identifier}: not measured: {why}")

    def test_the_tools_cmake_found(self):
        # cuobjdump where only CMake found it: used; a path CMake did not find: looked for.
        elsewhere = os.path.join(self.folder.name, "toolkit")
        os.makedirs(elsewhere)
        os.rename(os.path.join(self.course.bin, "cuobjdump"),
                  os.path.join(elsewhere, "cuobjdump"))
        done = self.criterion("prefetch", extra=[f"--cuobjdump={elsewhere}/cuobjdump"])
        self.assert_result(done, 0, "^PASS: prefetch holds")
        done = self.criterion("prefetch", extra=["--cuobjdump=COURSE_CUOBJDUMP-NOTFOUND"],
                              only_stand_ins=True)
        self.assert_result(done, 0, "^SKIPPED: prefetch: not measured: cuobjdump not found")

    def test_skipped_without_a_gpu(self):
        for identifier in ("memcheck", "rate", "bank-conflicts"):
            with self.subTest(identifier=identifier):
                done = self.criterion(identifier, matmul="no-device", minplus="no-device",
                                      conv2d="no-device")
                self.assert_result(done, 0, f"^SKIPPED: {identifier} needs a CUDA device")

    def test_a_check_the_chapter_does_not_describe(self):
        done = self.criterion("sass-HMMA")
        self.assert_result(done, 1, "^FAIL: ch09_fake_chapter describes no check 'sass-HMMA'$")

    def test_a_manifest_without_the_chapter(self):
        self.course.chapters[0]["label"] = "ch08"
        self.course.write_manifest()
        done = self.criterion("memcheck")
        self.assert_result(done, 1, "^FAIL: .*: no chapter ch09 in its course_chapters.json$")


if __name__ == "__main__":
    unittest.main()
