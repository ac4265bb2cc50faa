#!/usr/bin/env python3
"""Tests of scripts/progress.sh and scripts/progress.py.

- Without a CUDA device (CUDA_VISIBLE_DEVICES set to the empty string, so this holds on any
  machine), against the real build folder: it says so, exits 3, and lists every exercise region of
  every chapter's kernels.cuh, read here from the sources (the script itself asks the executables).
- With stand-ins for a chapter's executables and for the tools (tests/scripts/fake_course.py):
  every criterion is shown to catch the mistake it is there for (a planted one: an out-of-bounds
  read for memcheck, a race for racecheck, a stack frame, 32-bit shared loads, copies without
  cp.async, a loop that loads what it stores in the same trip, bank conflicts, a slow kernel),
  and to hold on the stand-in's good work; what cannot be measured says why; a hand-out is graded
  against the recorded rate of its GPU model; without a GPU the CPU criteria are still reported.
The real planted mistakes, built from patched copies of the solutions and judged on a GPU, are
in tests/planted.

    python3 tests/scripts/test_progress.py --build-dir build
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.sax.saxutils

import fake_course
from fake_course import FakeCourse
from support import ROOT

import course_description
import progress

PROGRESS_SH = os.path.join(ROOT, "scripts", "progress.sh")
PROGRESS_PY = os.path.join(ROOT, "scripts", "progress.py")
BUILD_DIR = None  # set from the command line

# Catch2's report of a failed test, in the JUnit file that ctest's stand-in writes.
CATCH2_FAILURE = textwrap.dedent("""\
    -------------------------------------------------------------------------------
    ch09 conv2d matches the reference, mask larger than the image
    -------------------------------------------------------------------------------
    tests/gpu/ch09.cu:60
    ...............................................................................

    tests/gpu/ch09.cu:67: FAILED:
      CHECK( result.passed )
    with expansion:
      false
    with messages:
      h 3 w 2, seed 42
      FAIL: 6 elements compared, 6 mismatching, 0 NaN

    ===============================================================================""")


def junit(name, report=CATCH2_FAILURE):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite tests="2" failures="1">'
            f'<testcase name="test_ch09:ch09 products match" status="run"/>'
            f'<testcase name="{name}" status="fail"><failure message="Failed"/>'
            f'<system-out>{xml.sax.saxutils.escape(report)}</system-out></testcase>'
            f'</testsuite>')


def exercise_regions():
    """{chapter number: [exercise ids]} from the markers of the student kernels."""
    regions = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]_*", "kernels.cuh"))):
        number = int(os.path.basename(os.path.dirname(path))[:2])
        with open(path, encoding="utf-8") as handle:
            ids = re.findall(r"// EXERCISE (\d+\.\d+) begin", handle.read())
        regions[number] = list(dict.fromkeys(ids))
    return regions


class NoDeviceTest(unittest.TestCase):
    def test_says_so_and_lists_every_exercise(self):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        done = subprocess.run(["bash", PROGRESS_SH, "--no-build", "--build-dir", BUILD_DIR,
                               "--check", "none"],
                              capture_output=True, text=True, env=env, timeout=300, check=False)
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn("No CUDA device", done.stdout)
        built = [c["number"] for c in course_description.read_manifest(BUILD_DIR)]
        self.assertTrue(built)
        regions = exercise_regions()
        for number in built:
            with self.subTest(chapter=number):
                self.assertIn(f"chapter {number}: ", done.stdout)
                self.assertTrue(regions.get(number), f"no exercise regions in chapter {number}")
                for identifier in regions[number]:
                    self.assertRegex(done.stdout,
                                     rf"(?m)^  {re.escape(identifier)}  .*  needs a GPU$")
        self.assertNotRegex(done.stdout, r"\b(done|failing)$")  # nothing was judged on a GPU


class Fixture(unittest.TestCase):
    """A stand-in chapter 9 whose every criterion holds unless a test plants a mistake."""

    solution = True

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.course = FakeCourse(self.folder.name, solution=self.solution)

    def tearDown(self):
        self.folder.cleanup()

    def progress(self, *args, **modes):
        """progress.sh --no-build on chapter 9, the stand-ins doing what @p modes say."""
        command = ["bash", PROGRESS_SH, "--no-build", "--build-dir", self.course.build] + \
            list(args) + ["ch09"]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False,
                              env=self.course.env(**modes))

    def assert_status(self, output, identifier, status):
        """The line of exercise @p identifier ends with @p status (and the grade, if any)."""
        self.assertRegex(output, rf"(?m)^  {re.escape(identifier)}  .*  {status}(  [-*]+ .*)?$")

    def assert_caught(self, done, identifier, line):
        """Exercise @p identifier is failing, with the criterion line @p line (and its hint)."""
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assert_status(done.stdout, identifier, "failing")
        self.assertIn(line, done.stdout)


class CriteriaTest(Fixture):
    def test_good_work_is_done_on_every_criterion(self):
        done = self.progress()
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assert_status(done.stdout, "9.1", "done")
        self.assert_status(done.stdout, "9.2", "done")
        self.assertRegex(done.stdout, r"(?m)^  9\.1  .*  done  \*\*\* 100% of the solution$")
        self.assertIn("2 of 2 exercises done, 0 failing, 0 not done.", done.stdout)
        logged = self.course.logged()
        for tool in ("--tool memcheck", "--tool racecheck", "ncu --csv",
                     "ctest --test-dir", "COURSE_CHECK=ch09"):
            self.assertIn(tool, logged)
        # The sanitizers run the student's executable at the check's args, one problem at a time.
        self.assertRegex(logged, r"--tool memcheck .*ch09_fake_chapter --problem conv2d -m 67 "
                                 r"-n 45 -k 33")

    def test_values_all_wrong_is_not_done_and_some_wrong_is_failing(self):
        done = self.progress(matmul="all-wrong", minplus="all-wrong", conv2d="some-wrong")
        self.assert_status(done.stdout, "9.1", "not done")
        self.assert_caught(done, "9.2", "value: ch09_fake_chapter --problem conv2d -m 67 -n 45 "
                           "-k 33 --height 37 --width 29 --taps 7 --warmup 0 --reps 1 --json "
                           "--no-compare: FAIL, 7 of 100 elements wrong, 0 NaN -- "
                           "scripts/hint.sh 9.2")
        # Nothing else is judged on work that is not there yet.
        self.assertNotIn("--tool racecheck", self.course.logged())

    def test_memcheck_catches_an_out_of_bounds_read(self):
        done = self.progress(sanitizer_memcheck="errors")
        self.assert_caught(done, "9.1", "memcheck: memcheck found errors at --problem matmul -m "
                           "67 -n 45 -k 33 --warmup 0 --reps 1 --no-compare: Invalid __global__ "
                           "read of size 4 bytes; memcheck found errors at --problem minplus")
        self.assertIn("read of size 4 bytes -- exercise 9.1 / scripts/hint.sh 9.1\n",
                      done.stdout)
        self.assert_status(done.stdout, "9.2", "failing")

    def test_racecheck_catches_a_missing_barrier(self):
        done = self.progress(sanitizer_racecheck="errors")
        self.assert_caught(done, "9.1", "racecheck: racecheck found errors at --problem matmul")
        self.assertIn("Error: Race reported between Write access", done.stdout)
        self.assert_status(done.stdout, "9.2", "done")  # racecheck is not a conv2d criterion

    def test_no_spills_catches_a_stack_frame_in_the_students_kernel(self):
        self.course.write("FAKE_RES_USAGE", fake_course.res_usage(stack=24))
        done = self.progress()
        self.assert_caught(done, "9.1", "no-spills: ch09::product_kernel<course::PlusTimes> has "
                           "a 24-byte stack frame and 0 bytes of local memory; "
                           "ch09::product_kernel<course::MinPlus> has a 24-byte stack frame and 0 "
                           "bytes of local memory -- scripts/hint.sh 9.1\n")
        # The bug hunt's kernel spills, but it is not the student's; the conv2d kernel is clean.
        self.assertNotIn("ch09::bug", done.stdout)
        self.assert_status(done.stdout, "9.2", "done")

    def test_no_spills_without_cuobjdump_reads_the_runs_local_memory(self):
        done = self.progress(local="16", **{"cuobjdump": ""})
        self.assert_caught(done, "9.1", "no-spills: ch09::product_kernel<course::PlusTimes>: 16 "
                           "bytes of local memory per thread")

    def test_sass_catches_32_bit_shared_loads(self):
        self.course.write("FAKE_SASS", fake_course.sass(shared_load="LDS"))
        done = self.progress()
        self.assert_caught(done, "9.1", "sass-LDS.128: no LDS.128 in "
                           "ch09::product_kernel<course::PlusTimes>; no LDS.128 in "
                           "ch09::product_kernel<course::MinPlus> -- the lesson's 128-bit loads "
                           "/ scripts/hint.sh 9.1\n")

    def test_sass_and_rate_catch_copies_through_registers(self):
        self.course.write("FAKE_SASS", fake_course.sass(copy="LDG.E.128"))
        done = self.progress(rate_student="5.1")
        # The kernel judged is the one the run launched.
        self.assert_caught(done, "9.1", "sass-LDGSTS: no LDGSTS in "
                           "ch09::product_kernel<course::PlusTimes>")
        self.assertIn("rate: * 51% of the solution's rate on this GPU (5.1 against 10 TFLOP/s at "
                      "--problem matmul -m 4096 -n 4096 -k 4096); 2 stars (80%) needed",
                      done.stdout)
        self.assertRegex(done.stdout, r"(?m)^  9\.1  .*  failing  \* 51% of the solution$")

    def test_sass_order_catches_a_prefetch_that_prefetches_nothing(self):
        self.course.write("FAKE_SASS", fake_course.sass(loop=fake_course.SAME_TRIP_LOOP))
        done = self.progress()
        self.assert_caught(done, "9.1", "prefetch: in ch09::product_kernel<course::PlusTimes>'s "
                           "loop, STS.128 [R9], R40 at 0x07b0 stores what a global load of the "
                           "same trip brought: nothing is loaded a trip early")

    def test_ncu_catches_bank_conflicts_above_the_solutions(self):
        done = self.progress(ncu_student="470000000", ncu_solution="1000")
        self.assert_caught(done, "9.1", "bank-conflicts: "
                           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 470,000,000, "
                           "the solution's 1,000 at --problem matmul -m 1024")
        done = self.progress(ncu_student="1400", ncu_solution="1000")
        self.assert_status(done.stdout, "9.1", "done")

    def test_locked_counters_are_not_measured_rather_than_passed(self):
        done = self.progress(ncu_student="locked")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assert_status(done.stdout, "9.1", "unconfirmed")
        self.assertIn("bank-conflicts: not measured: ncu may not read this GPU's performance "
                      "counters (ERR_NVGPUCTRPERM)", done.stdout)
        done = self.progress(**{"ncu": "", "compute_sanitizer": ""})
        self.assertIn("bank-conflicts: not measured: ncu (Nsight Compute) not found",
                      done.stdout)
        self.assertIn("memcheck: not measured: compute-sanitizer not found", done.stdout)
        self.assert_status(done.stdout, "9.2", "unconfirmed")

    def test_grades_from_the_rate(self):
        for rate, stars, status in (("9.6", "***", "done"), ("8.1", "**", "done"),
                                    ("7.9", "*", "failing"), ("4.9", "-", "failing")):
            with self.subTest(rate=rate):
                done = self.progress(rate_student=rate)
                self.assertRegex(done.stdout, rf"(?m)^  9\.2  .*  {status}  "
                                              rf"{re.escape(stars)} {round(float(rate) * 10)}% "
                                              "of the solution$")

    def test_a_failing_test_names_its_exercise(self):
        self.course.write("FAKE_JUNIT", junit("test_ch09:ch09 conv2d matches the reference, "
                                              "mask larger than the image"))
        done = self.progress()
        self.assert_caught(done, "9.2", "tests: ch09 conv2d matches the reference, mask larger "
                           "than the image: h 3 w 2, seed 42; FAIL: 6 elements compared, 6 "
                           "mismatching, 0 NaN -- scripts/hint.sh 9.2")
        self.assert_status(done.stdout, "9.1", "done")

    def test_only_the_named_criteria(self):
        self.course.write("FAKE_RES_USAGE", fake_course.res_usage(stack=24))
        done = self.progress("--check", "memcheck", sanitizer_racecheck="errors")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("--tool racecheck", self.course.logged())
        self.assertNotIn("ctest", self.course.logged())


class HandOutTest(Fixture):
    """No solution executable: the rate against the solution's recorded one for the GPU model."""

    solution = False
    LADDER = ("device,date,problem,sizes,chapter,implementation,status,rate\n"
              "NVIDIA H100 80GB HBM3,2026-11-25,matmul,4096,9,ch09,PASS,12.5\n"
              "NVIDIA H100 80GB HBM3,2026-11-25,minplus,4096,9,ch09,PASS,10\n"
              "NVIDIA H100 80GB HBM3,2026-11-25,conv2d,\"37x29, 13x13 mask\",9,ch09,PASS,10\n")

    def test_rate_against_the_recorded_rate_of_the_gpu_model(self):
        ladder = os.path.join(self.folder.name, "ladder.csv")
        with open(ladder, "w", encoding="utf-8") as handle:
            handle.write(self.LADDER)
        done = self.progress("--ladder", ladder, device="NVIDIA H100 80GB HBM3")
        self.assertIn("rate: ** 80% of the solution's recorded rate on NVIDIA H100 80GB HBM3 "
                      "(results/ladder.csv, 2026-11-25) (10 against 12.5 TFLOP/s",
                      done.stdout.replace("\n", " "))
        self.assert_status(done.stdout, "9.1", "unconfirmed")
        self.assert_status(done.stdout, "9.2", "done")
        self.assertEqual(done.stdout.count("bank-conflicts: not measured: no solution in this "
                                           "build to compare with"), 1, done.stdout)
        done = self.progress("--ladder", ladder)
        self.assertIn("rate: not measured: no recorded rate for FAKE GPU at m=4096 n=4096 "
                      "k=4096 (results/ladder.csv)", done.stdout)
        self.assert_status(done.stdout, "9.2", "unconfirmed")

    def test_a_run_of_the_best_variant_is_against_the_best_variant_recorded(self):
        ladder = os.path.join(self.folder.name, "ladder.csv")
        with open(ladder, "w", encoding="utf-8") as handle:
            handle.write(self.LADDER + "NVIDIA H100 80GB HBM3,2026-11-25,matmul,4096,9,"
                         "ch09 fused,PASS,20\n")
        self.course.write("FAKE_DESCRIBE",
                          json.dumps(dict(fake_course.description(), best_variant="fused")))
        gpu = "NVIDIA H100 80GB HBM3"
        at_best = self.progress("--ladder", ladder, device=gpu, choices='{"variant": "fused"}')
        self.assertIn("(10 against 20 TFLOP/s", at_best.stdout.replace("\n", " "))
        at_default = self.progress("--ladder", ladder, device=gpu, choices='{"variant": "plain"}')
        self.assertIn("(10 against 12.5 TFLOP/s", at_default.stdout.replace("\n", " "))


class WithoutGpuTest(Fixture):
    def test_cpu_criteria_are_reported_and_the_rest_needs_a_gpu(self):
        self.course.write("FAKE_SASS", fake_course.sass(shared_load="LDS"))
        self.course.write("FAKE_JUNIT", junit("test_ch09_cpu:ch09 9.2 mask offsets are a "
                                              "bijection"))
        done = self.progress(matmul="no-device", minplus="no-device", conv2d="no-device")
        out = done.stdout
        self.assertEqual(done.returncode, 3, out + done.stderr)
        self.assertIn("No CUDA device here", out)
        # The kernels' names say which compute the product: their SASS is read without a run.
        self.assertIn("sass-LDS.128: no LDS.128 in ch09::product_kernel<course::PlusTimes>; no "
                      "LDS.128 in ch09::product_kernel<course::MinPlus>", out)
        self.assert_status(out, "9.1", "failing")
        self.assertIn("tests: ch09 9.2 mask offsets are a bijection", out)
        self.assert_status(out, "9.2", "failing")
        self.assertIn("needs a GPU: bank-conflicts, memcheck, racecheck, rate, value", out)
        self.assertIn("holds on the CPU: no-spills, prefetch, sass-LDGSTS, tests", out)
        self.assertIn("needs a GPU: memcheck, rate, value", out)
        self.assertIn("-L ^ch09$ -L ^cpu$", self.course.logged())
        self.assertNotIn("--tool", self.course.logged())


class CompileTest(Fixture):
    def test_a_chapter_that_does_not_compile_leaves_the_others_checked(self):
        missing = os.path.join(self.folder.name, "ch10_missing")
        self.course.chapters.append({"label": "ch10", "number": 10, "folder": "10_broken_chapter",
                                     "student": missing, "solution": missing + "_solution",
                                     "student_targets": ["ch10_missing"]})
        self.course.write_manifest()
        done = subprocess.run([sys.executable, PROGRESS_PY, "--build-dir", self.course.build,
                               "--not-built", "ch10"], capture_output=True, text=True,
                              env=self.course.env(), timeout=120, check=False)
        out = done.stdout
        self.assertEqual(done.returncode, 1, out + done.stderr)
        self.assertIn("chapter 10: broken chapter (chapters/10_broken_chapter/kernels.cuh): does "
                      "not compile", out)
        self.assertIn("its exercises cannot be listed until it compiles", out)
        self.assert_status(out, "9.2", "done")
        self.assertIn("chapter 10 does not compile", out)

    def test_bad_input_is_one_line(self):
        for args, status in ((["ch99"], 2), (["chapter"], 2)):
            done = subprocess.run([sys.executable, PROGRESS_PY, "--build-dir", self.course.build]
                                  + args, capture_output=True, text=True,
                                  env=self.course.env(), timeout=60, check=False)
            self.assertEqual(done.returncode, status, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.course.write("FAKE_DESCRIBE", "not json")
        done = subprocess.run([sys.executable, PROGRESS_PY, "--build-dir", self.course.build],
                              capture_output=True, text=True, env=self.course.env(), timeout=60,
                              check=False)
        self.assertEqual(done.returncode, 4, done.stderr)
        self.assertRegex(done.stderr, r"^error: .*--describe printed no JSON")


class SassTest(unittest.TestCase):
    """The loop analysis on its own, on cuobjdump's lines, where no whole run above reaches: a
    register that a shared load overwrites after the global load; and the ladder's sizes read as
    a run's."""

    def code(self, loop):
        return [(address, text) for text, address in loop]

    def test_a_register_written_again_is_not_the_loads(self):
        loop = list(fake_course.SAME_TRIP_LOOP)
        loop.insert(2, ("LDS.128 R40, [R12]", 0x770))  # R40..R43 now come from shared memory
        _, fed = progress.same_trip_loads(self.code(loop))
        self.assertEqual(fed, ["STS.128 [R10], R44 at 0x07c0"])

    def test_sizes_of_the_ladder_and_of_a_run_agree(self):
        self.assertEqual(progress.sizes_key("matmul", "4096"),
                         progress.sizes_key("matmul", "m=4096 n=4096 k=4096"))
        self.assertEqual(progress.sizes_key("conv1d", "2^24, 127 taps"),
                         progress.sizes_key("conv1d", "n=16777216 taps=127"))
        self.assertNotEqual(progress.sizes_key("matmul", "4096"),
                            progress.sizes_key("matmul", "m=4096 n=4096 k=2048"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    known, rest = parser.parse_known_args()
    BUILD_DIR = os.path.abspath(known.build_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
