"""Every chapter executable of a build describes itself (`--describe`, with no GPU visible) as
docs/pages/tools.md documents, and every command line its description asks a tool to run (the
checks of the student's kernels, the runs of the Predict questions) is one its command line takes.

    python3 tests/scripts/test_describe.py --build-dir build
"""

import argparse
import os
import subprocess
import sys
import unittest

import support  # noqa: F401  (puts scripts/ on the path)
import course_description

BUILD_DIR = "build"


def executables():
    for chapter in course_description.read_manifest(BUILD_DIR):
        for edition in ("student", "solution"):
            if os.path.exists(chapter[edition]):
                yield chapter, edition, chapter[edition]


class EveryExecutable(unittest.TestCase):
    def test_descriptions_are_valid(self):
        seen = 0
        for chapter, edition, exe in executables():
            with self.subTest(executable=os.path.basename(exe)):
                description = course_description.describe(exe)
                self.assertEqual(course_description.validate(description), [])
                self.assertEqual(description["chapter"], chapter["number"])
                self.assertEqual(description["slug"], chapter["folder"])
                self.assertEqual(description["edition"], edition)
                seen += 1
        self.assertGreater(seen, 0, f"no chapter executable in {BUILD_DIR}: build them first")

    def test_a_sass_check_needs_an_instruction_or_an_order(self):
        # One of the sass checks described, with neither, both, or an order no tool knows: each
        # is reported; with an instruction or a known order alone, nothing is.
        found = [(d, i) for d in map(course_description.describe, (e for _, _, e in executables()))
                 for i, c in enumerate(d["checks"]) if c["tool"] == "sass"]
        self.assertTrue(found, f"no sass check in the descriptions in {BUILD_DIR}")
        description, where = found[0]
        check = {k: v for k, v in description["checks"][where].items()
                 if k not in ("instruction", "order")}
        for fields, wrong in (({}, True), ({"instruction": "LDS.128", "order": "prefetch"}, True),
                              ({"order": "later"}, True), ({"instruction": "LDS.128"}, False),
                              ({"order": "prefetch"}, False)):
            with self.subTest(fields=fields):
                description["checks"][where] = dict(check, **fields)
                found = [w for w in course_description.validate(description)
                         if w.startswith(f"check {check['id']}:")]
                self.assertEqual(bool(found), wrong, found)

    def test_command_lines_are_accepted(self):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        for _, _, exe in executables():
            description = course_description.describe(exe)
            for what, args in course_description.command_lines(description):
                with self.subTest(executable=os.path.basename(exe), what=what):
                    # --describe after the arguments: parsed and refused as in a run, no GPU used.
                    done = subprocess.run([exe] + args + ["--describe"], capture_output=True,
                                          text=True, env=env, timeout=60, check=False)
                    self.assertEqual(done.returncode, 0, f"{' '.join(args)}: {done.stderr}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default=BUILD_DIR)
    args, rest = parser.parse_known_args()
    BUILD_DIR = args.build_dir
    unittest.main(argv=[sys.argv[0]] + rest)
