#!/usr/bin/env python3
"""Tests of scripts/progress.sh and scripts/progress.py.

- Without a CUDA device (CUDA_VISIBLE_DEVICES set to the empty string, so this holds on any
  machine), against the real build folder: it says so, exits 3, and lists every exercise region of
  every chapter's kernels.cuh, read here from the sources (the script itself asks the executables).
- With stand-ins for a chapter's executable and for ctest: how the checks' outcomes become done,
  not done and failing, and which check is named as the first that failed.

    python3 tests/scripts/test_progress.py --build-dir build
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.sax.saxutils

from support import ROOT, write_executable

PROGRESS_SH = os.path.join(ROOT, "scripts", "progress.sh")
PROGRESS_PY = os.path.join(ROOT, "scripts", "progress.py")
BUILD_DIR = None  # set from the command line

# A chapter executable's stand-in: lists three exercises and reports each problem as the
# environment variable FAKE_<PROBLEM> says: "pass", "all-wrong" or "some-wrong".
FAKE_EXECUTABLE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    args = sys.argv[1:]
    if args == ["--exercises"]:
        print("9.1\\tmatmul\\tthe product")
        print("9.1\\tminplus\\tthe product")
        print("9.2\\tconv2d\\tthe mask")
        print("9.3\\tconv1d\\tthe taps")
        sys.exit(0)
    problem = args[args.index("--problem") + 1]
    mode = os.environ.get("FAKE_" + problem.upper(), "pass")
    print(problem + "  sizes")
    print("  time     0.010 ms median")
    if mode == "pass":
        print("  check    PASS: 100 elements compared, 0 mismatching, 0 NaN; worst at [0]: got 1")
        sys.exit(0)
    wrong = 100 if mode == "all-wrong" else 7
    print(f"  check    FAIL: 100 elements compared, {wrong} mismatching, 0 NaN; worst at [3]: "
          "got 2, reference 1")
    sys.exit(1)
''')

# Catch2's report of the failed conv1d test, in the JUnit file that ctest's stand-in writes.
CATCH2_FAILURE = textwrap.dedent("""\
    -------------------------------------------------------------------------------
    ch09 conv1d matches the reference, more taps than samples included
    -------------------------------------------------------------------------------
    tests/gpu/ch09.cu:60
    ...............................................................................

    tests/gpu/ch09.cu:67: FAILED:
      CHECK( result.passed )
    with expansion:
      false
    with messages:
      n 1 m 7, seed 42
      FAIL: 7 elements compared, 6 mismatching, 0 NaN

    ===============================================================================""")
JUNIT = f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite tests="2" failures="1">
<testcase name="test_ch09:ch09 products match the reference" status="run">
<system-out>All tests passed</system-out></testcase>
<testcase name="test_ch09:ch09 conv1d matches the reference, more taps than samples included"
          status="fail"><failure message="Failed"/>
<system-out>{xml.sax.saxutils.escape(CATCH2_FAILURE)}</system-out></testcase></testsuite>"""
# ctest's stand-in: logs its command line and COURSE_CHECK, and writes JUNIT as its results.
FAKE_CTEST = f"""#!/bin/sh
echo "$* COURSE_CHECK=$COURSE_CHECK" >>"$FAKE_CTEST_LOG"
while [ "$1" != --output-junit ]; do shift; done
cat >"$2" <<'END'
{JUNIT}
END
exit 8
"""


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
        done = subprocess.run(["bash", PROGRESS_SH, "--no-build", "--build-dir", BUILD_DIR],
                              capture_output=True, text=True, env=env, timeout=300, check=False)
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn("No CUDA device", done.stdout)
        with open(os.path.join(BUILD_DIR, "course_chapters.tsv"), encoding="utf-8") as handle:
            built = [int(line.split("\t")[0][2:]) for line in handle if line.strip()]
        self.assertTrue(built)
        regions = exercise_regions()
        for number in built:
            with self.subTest(chapter=number):
                self.assertIn(f"chapter {number}: ", done.stdout)
                self.assertTrue(regions.get(number), f"no exercise regions in chapter {number}")
                for identifier in regions[number]:
                    self.assertRegex(done.stdout, rf"(?m)^  {re.escape(identifier)}  ")
        self.assertNotRegex(done.stdout, r"\b(done|failing)\b")  # nothing was checked


class StatusTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        folder = self.folder.name
        self.bin = os.path.join(folder, "bin")
        os.mkdir(self.bin)
        executable = os.path.join(folder, "ch09_fake")
        write_executable(executable, FAKE_EXECUTABLE)
        write_executable(os.path.join(self.bin, "ctest"), FAKE_CTEST)
        self.build = os.path.join(folder, "build")
        os.mkdir(self.build)
        with open(os.path.join(self.build, "course_chapters.tsv"), "w", encoding="utf-8") as out:
            out.write(f"ch09\tfake_chapter\t{executable}\t{executable}_solution\tch09_fake\n")
            missing = os.path.join(folder, "ch10_missing")
            out.write(f"ch10\tbroken_chapter\t{missing}\t{missing}_solution\tch10_missing\n")
        self.ctest_log = os.path.join(folder, "ctest.log")

    def tearDown(self):
        self.folder.cleanup()

    def progress(self, *args, **modes):
        """progress.sh --no-build on chapter 9 (or progress.py with @p args, e.g. --not-built)."""
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                   FAKE_CTEST_LOG=self.ctest_log)
        env.update({f"FAKE_{problem.upper()}": mode for problem, mode in modes.items()})
        command = ([sys.executable, PROGRESS_PY, "--build-dir", self.build] + list(args) if args
                   else ["bash", PROGRESS_SH, "--no-build", "--build-dir", self.build, "ch09"])
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120,
                              check=False)

    def assert_status(self, output, identifier, status):
        """The line of exercise @p identifier ends with @p status (its last column)."""
        self.assertRegex(output, rf"(?m)^  {re.escape(identifier)}  .*  {status}$")

    def test_statuses_and_first_failing_check(self):
        done = self.progress(matmul="all-wrong", minplus="all-wrong", conv2d="pass",
                             conv1d="pass")
        out = done.stdout
        self.assertEqual(done.returncode, 1, out + done.stderr)
        self.assertRegex(out, r"(?m)^  9\.1  matmul, minplus  .*  not done$")
        self.assert_status(out, "9.2", "done")
        self.assert_status(out, "9.3", "failing")
        self.assertIn("first failing check: ch09 conv1d matches the reference, more taps than "
                      "samples included: n 1 m 7, seed 42; FAIL: 7 elements compared", out)
        self.assertIn("1 of 3 exercises done, 1 failing, 1 not done.", out)
        with open(self.ctest_log, encoding="utf-8") as handle:
            call = handle.read()
        self.assertIn("-L ^ch09$", call)
        self.assertIn("COURSE_CHECK=ch09", call)

    def test_a_chapter_that_does_not_compile_leaves_the_others_checked(self):
        done = self.progress("--not-built", "ch10")
        out = done.stdout
        self.assertEqual(done.returncode, 1, out + done.stderr)
        self.assertIn("chapter 10: broken chapter (chapters/10_broken_chapter/kernels.cuh): does "
                      "not compile", out)
        self.assertIn("its exercises cannot be listed until it compiles", out)
        self.assert_status(out, "9.2", "done")
        self.assertIn("chapter 10 does not compile", out)

    def test_some_wrong_elements_is_failing_with_the_executables_check(self):
        done = self.progress(conv2d="some-wrong")
        self.assert_status(done.stdout, "9.2", "failing")
        self.assertIn("--problem conv2d at small sizes: FAIL: 100 elements compared, 7 "
                      "mismatching", done.stdout)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    known, rest = parser.parse_known_args()
    BUILD_DIR = os.path.abspath(known.build_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
