#!/usr/bin/env python3
"""Tests of scripts/update_supports_table.py against the built executables, on copies of the
README: --check fails when a row differs from what the executables print or the markers are gone,
and passes again once the table is regenerated; regenerating changes nothing outside the markers.
That every chapter has its row is the CTest test readme.supports_table (the committed README).

    python3 tests/scripts/test_update_supports_table.py --build-dir build
"""

import argparse
import os
import shutil
import sys
import tempfile
import unittest

from support import ROOT, call
import course_description  # scripts/ is on the path through support
import readme_block
import update_supports_table as supports

BUILD_DIR = None  # set from the command line
BEGIN, END = readme_block.markers("supports")


def run(*args):
    return call(supports.main, ["--build-dir", BUILD_DIR, *args])


class SupportsTableTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.readme = os.path.join(self.folder, "README.md")
        shutil.copyfile(os.path.join(ROOT, "README.md"), self.readme)
        self.chapters = course_description.read_manifest(BUILD_DIR)
        self.table = supports.build_table(self.chapters)

    def tearDown(self):
        shutil.rmtree(self.folder)

    def text(self):
        with open(self.readme, encoding="utf-8") as handle:
            return handle.read()

    def write(self, text):
        with open(self.readme, "w", encoding="utf-8") as handle:
            handle.write(text)

    def set_block(self, block):
        self.write(readme_block.replace_block(self.text(), "supports", block))

    def test_a_changed_row_fails_the_check_until_regenerated(self):
        lines = self.table.splitlines()
        lines[-1] = lines[-1].replace(" | ", " | conv1d, ", 1)  # a problem it does not have
        self.set_block("\n".join(lines))
        status, _, err = run("--readme", self.readme, "--check")
        self.assertEqual(status, 1)
        self.assertIn("differs from what the executables print", err)
        self.assertIn("conv1d, ", err)  # the diff shows the line
        before = self.text()
        self.assertEqual(run("--readme", self.readme)[0], 0)
        after = self.text()
        self.assertEqual(before.split(BEGIN)[0], after.split(BEGIN)[0])
        self.assertEqual(before.split(END)[1], after.split(END)[1])
        self.assertEqual(run("--readme", self.readme, "--check")[0], 0)

    def test_missing_markers_fail(self):
        self.write(self.text().replace(END, ""))
        status, _, err = run("--readme", self.readme, "--check")
        self.assertEqual(status, 1)
        self.assertIn(END, err)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    known, rest = parser.parse_known_args()
    BUILD_DIR = os.path.abspath(known.build_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
