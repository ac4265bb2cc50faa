#!/usr/bin/env python3
"""Tests of docs/site_layout.py, which looks at the site in headless Chromium: on a stand-in page
laid out as Doxygen's (a tree beside the text, widths set on the elements themselves) with the
course's own course.css, the check passes, and it fails when a wide table is not wrapped in its
scrolling block or when the stylesheet lacks the rule that collapses the tree below 1000 px.
Its command line refuses bad input in one line. Without Chromium the browser's part is skipped
(the test prints SKIPPED).

    python3 tests/docs/test_site_layout.py
"""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
LAYOUT = ROOT / "docs" / "site_layout.py"
sys.path.insert(0, str(ROOT / "docs"))
sys.dont_write_bytecode = True
import site_layout  # noqa: E402  pylint: disable=wrong-import-position

CSS = (ROOT / "docs" / "course.css").read_text(encoding="utf-8")
TABLE = ('<table class="markdownTable"><tr>' +
         "".join(f"<td>column_{i}_that_does_not_wrap</td>" for i in range(12)) + "</tr></table>")
PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"/><link href="course.css" rel="stylesheet"/>
<style>
body { margin: 0; }
#side-nav { position: absolute; left: 0; top: 0; height: 600px; background: #eee; }
#doc-content { overflow: auto; height: 600px; }
</style></head><body>
<div id="side-nav" style="width: 340px"><div id="nav-tree">Chapter 1</div></div>
<div id="doc-content" style="margin-left: 346px"><div class="contents"><div class="textblock">
<p>A lesson's text, and its table:</p>
%s
</div></div></div></body></html>
"""
WRAPPED = f'<div class="course-table-scroll">{TABLE}</div>'


def without_collapse(css):
    """course.css without its @media rule for narrow windows."""
    start = css.index("@media (max-width: 999px)")
    end = css.index("\n}\n", start) + 3
    return css[:start] + css[end:]


class Layout(unittest.TestCase):
    def run_check(self, body, css, *options):
        with tempfile.TemporaryDirectory(prefix="site-layout-") as tmp:
            html = Path(tmp)
            (html / "index.html").write_text(PAGE % body, encoding="utf-8")
            (html / "course.css").write_text(css, encoding="utf-8")
            return subprocess.run([sys.executable, str(LAYOUT), "check", str(html),
                                   "--pages", "index", *options],
                                  capture_output=True, text=True, timeout=300)

    def test_bad_input_is_refused_in_one_line(self):
        # --height comes from the command line of scripts/screenshot_site.sh.
        result = self.run_check(WRAPPED, CSS, "--height", "10")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--height: between 200 and 20000 px", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_a_site_not_built(self):
        with tempfile.TemporaryDirectory(prefix="site-layout-") as tmp:
            for options, status, stream, expected in (
                    ([], 1, "stderr", "index.html: missing: the site was not built"),
                    (["--skip-if-missing"], 0, "stdout", "SKIPPED: ")):
                result = subprocess.run([sys.executable, str(LAYOUT), "check", tmp, *options],
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, status, result.stderr)
                self.assertIn(expected, getattr(result, stream))

    @unittest.skipUnless(any(shutil.which(b) for b in site_layout.BROWSERS), "no Chromium")
    def test_the_layout_in_a_browser(self):
        result = self.run_check(WRAPPED, CSS)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("site_layout: OK (1 pages at 1400 px, 800 px)", result.stdout)

        result = self.run_check(TABLE, CSS)  # the table not wrapped
        self.assertEqual(result.returncode, 1, result.stdout)
        for width in (1400, 800):
            self.assertIn(f"index.html at {width} px: the text scrolls sideways by", result.stderr)
        self.assertIn("table.markdownTable", result.stderr)

        result = self.run_check(WRAPPED, without_collapse(CSS), "--widths", "800")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("index.html at 800 px: the navigation tree is still shown", result.stderr)
        self.assertIn("index.html at 800 px: the text is", result.stderr)


if __name__ == "__main__":
    if not any(shutil.which(b) for b in site_layout.BROWSERS):
        print("SKIPPED: no Chromium (apt-get install chromium): the browser's part of the test "
              "does not run")
    unittest.main()
