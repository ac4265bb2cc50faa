#!/usr/bin/env python3
"""Tests of the site's page writer and checker on a stand-in repository (no Doxygen needed).

docs/make_pages.py: a lesson's `![caption](figures/NAME.svg)` becomes an image of the site with
the SVG copied beside the pages; APPENDIX.md and HINTS.md become pages of their own, linked from the
chapter's page, in both editions; links to them, to the tools page and to a chapter's launch.cuh
lead to their pages; an image or a page that does not exist, or a page without its title, is
refused with the line.

docs/check_site.py: a built site passes when every chapter page shows a figure of its chapter and
links the tools page and its hints, and fails, naming the page, when a figure, the tools link, the
hints page or an image's file is missing.

    python3 tests/docs/test_site_pages.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MAKE_PAGES = ROOT / "docs" / "make_pages.py"
CHECK_SITE = ROOT / "docs" / "check_site.py"

SVG = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
       '<svg width="100pt" height="50pt" viewBox="0.00 0.00 100.00 50.00" '
       'xmlns="http://www.w3.org/2000/svg"><g id="graph0"></g></svg>\n')

LESSON = """# Chapter 1: the first idea

What this chapter adds.

![One warp reads one row](figures/one.svg)

## Exercises

The exercises are in the table; stuck? Read the [hints](HINTS.md) or the
[hint for 1.1](HINTS.md#exercise-11-index-the-thread). The sweeps are in the
[appendix](APPENDIX.md#sweeps), the tools on the [tools page](../../docs/pages/tools.md), the
launchers in [launch.cuh](launch.cuh) and the helpers in
[course/launch.cuh](../../common/include/course/launch.cuh).
"""

APPENDIX = """# Chapter 1: appendix

Back to the [lesson](README.md).

## Sweeps

![The sweep](figures/one.svg)
"""

HINTS = """# Chapter 1: hints

## Exercise 1.1: index the thread

### Level 1
Which thread computes which output?

### Level 2
See the [figure](figures/one.svg).

### Level 3
Close to the code.
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class MakePages(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="site-pages-"))
        self.repo = self.tmp / "repo"
        chapter = self.repo / "chapters" / "01_first_idea"
        write(self.repo / "README.md",
              "# The course\n\nStart with [chapter 1](chapters/01_first_idea).\n")
        write(chapter / "README.md", LESSON)
        write(chapter / "APPENDIX.md", APPENDIX)
        write(chapter / "HINTS.md", HINTS)
        write(chapter / "figures" / "one.dot", "digraph one { a -> b; }\n")
        write(chapter / "figures" / "one.svg", SVG)
        write(chapter / "launch.cuh", "/// @file\n/// @brief Chapter 1, host side.\n")
        write(chapter / "kernels.cuh", "/// @file\n/// @brief Chapter 1's kernels.\n")
        write(chapter / "main.cu", "int main() { return 0; }\n")
        write(self.repo / "solutions" / "01_first_idea" / "kernels.cuh",
              "/// @file\n/// @brief Chapter 1's kernels, solved.\n")
        write(self.repo / "common" / "include" / "course" / "launch.cuh",
              "/// @file\n/// @brief Launch helpers.\n")
        write(self.repo / "docs" / "pages" / "tools.md", "# Tools {#tools}\n\nThe tools.\n")
        write(self.repo / "docs" / "pages" / "instructors.md",
              "# Instructors {#instructors}\n\nFor instructors.\n")
        self.chapter = chapter

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def make(self, edition):
        out = self.tmp / f"out-{edition}"
        result = subprocess.run(
            [sys.executable, str(MAKE_PAGES), "--source", str(self.repo), "--out", str(out),
             "--edition", edition, "--chapters", "01_first_idea"],
            capture_output=True, text=True)
        return result, out

    def page(self, out, name):
        return (out / "pages" / name).read_text(encoding="utf-8")

    def test_figures_appendix_hints_and_links(self):
        for edition in ("full", "student"):
            result, out = self.make(edition)
            self.assertEqual(result.returncode, 0, result.stderr)
            lesson = self.page(out, "ch01.md")
            image = "chapters_01_first_idea_figures_one.svg"
            self.assertIn(f"![One warp reads one row]({image})", lesson)
            self.assertEqual((out / "images" / image).read_text(), SVG)
            self.assertIn("@subpage ch01_appendix", lesson)
            self.assertIn("@subpage ch01_hints", lesson)
            self.assertIn("[hints](@ref ch01_hints)", lesson)
            self.assertIn("[hint for 1.1](@ref ch01_hints-exercise-11-index-the-thread)", lesson)
            self.assertIn("[appendix](@ref ch01_appendix-sweeps)", lesson)
            self.assertIn("[tools page](@ref tools)", lesson)
            self.assertIn("[launch.cuh](@ref chapters/01_first_idea/launch.cuh)", lesson)
            self.assertIn("[course/launch.cuh](@ref course/launch.cuh)", lesson)
            hints = self.page(out, "ch01_hints.md")
            self.assertTrue(hints.startswith("# Chapter 1: hints {#ch01_hints}"), hints[:80])
            self.assertIn(f"[figure]({image})", hints)
            appendix = self.page(out, "ch01_appendix.md")
            self.assertTrue(appendix.startswith("# Chapter 1: appendix {#ch01_appendix}"))
            self.assertIn("[lesson](@ref ch01)", appendix)
            self.assertIn(f"![The sweep]({image})", appendix)
            self.assertIn("@ref ch01 ", appendix)  # the way back to the chapter
            self.assertIn("@ref chapters/01_first_idea/launch.cuh", self.page(out, "api.md"))
            self.assertIn("@ref course/launch.cuh", self.page(out, "api.md"))

    def test_a_missing_figure_is_refused_with_its_line(self):
        (self.chapter / "figures" / "one.svg").unlink()
        result, _ = self.make("student")
        self.assertEqual(result.returncode, 1)
        self.assertIn("chapters/01_first_idea/README.md:5", result.stderr)
        self.assertIn("figures/one.svg", result.stderr)

    def test_every_broken_link_is_reported(self):
        (self.chapter / "HINTS.md").unlink()
        (self.chapter / "APPENDIX.md").unlink()
        result, _ = self.make("full")
        self.assertEqual(result.returncode, 1)
        self.assertIn("README.md:9: link to 'HINTS.md'", result.stderr)
        self.assertIn("README.md:11: link to 'APPENDIX.md#sweeps'", result.stderr)

    def test_a_wrapped_image_or_link_is_joined_onto_one_line(self):
        lesson = LESSON.replace("![One warp reads one row](figures/one.svg)",
                                "![One warp reads\none row](figures/one.svg)\n\nThe [tools\npage]"
                                "(../../docs/pages/tools.md) and\n`a[i` are two lines.")
        lesson += "\nSee [the missing\npage](NOPE.md).\n"
        write(self.chapter / "README.md", lesson)
        result, out = self.make("student")
        self.assertEqual(result.returncode, 1)
        # The broken link is reported at the line it starts on, after the joined lines.
        self.assertIn("README.md:20: link to 'NOPE.md'", result.stderr)
        write(self.chapter / "README.md", lesson.replace("NOPE.md", "HINTS.md"))
        result, out = self.make("student")
        self.assertEqual(result.returncode, 0, result.stderr)
        page = self.page(out, "ch01.md")
        self.assertIn("\n![One warp reads one row](chapters_01_first_idea_figures_one.svg)\n", page)
        self.assertIn("\nThe [tools page](@ref tools) and\n`a[i` are two lines.\n", page)
        self.assertIn("See [the missing page](@ref ch01_hints).", page)

    def test_an_old_diagram_marker_is_refused(self):
        write(self.chapter / "README.md", LESSON + "\n<!-- diagram: ch01_one -->\n")
        result, _ = self.make("student")
        self.assertEqual(result.returncode, 1)
        self.assertIn("README.md:15: '<!-- diagram: ch01_one -->' shows nothing", result.stderr)

    def test_a_page_without_its_title_is_refused(self):
        write(self.chapter / "APPENDIX.md", APPENDIX.split("\n", 1)[1])
        result, _ = self.make("full")
        self.assertEqual(result.returncode, 1)
        self.assertIn("chapters/01_first_idea/APPENDIX.md:1: a page starts with '# Chapter 1: "
                      "title'", result.stderr)

    def test_a_full_stop_after_an_image_is_dropped(self):
        lesson = LESSON.replace("![One warp reads one row](figures/one.svg)",
                                "As drawn here: ![One warp reads one row](figures/one.svg).")
        write(self.chapter / "README.md", lesson)
        result, out = self.make("student")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("As drawn here: ![One warp reads one row]"
                      "(chapters_01_first_idea_figures_one.svg)\n", self.page(out, "ch01.md"))


class DoxygenMarkdown(unittest.TestCase):
    """What Doxygen 1.9 misreads is rewritten the way it reads it, and nothing else."""

    def test_rewrites(self):
        sys.path.insert(0, str(ROOT / "docs"))
        sys.dont_write_bytecode = True
        from sitegen import markdown  # pylint: disable=import-outside-toplevel
        cases = {
            "- **`mma.sync` is slower.** A loop.": "- <b>`mma.sync` is slower.</b> A loop.",
            "(`convolve` with `mode='constant'`)": "(`convolve` with `` mode='constant' ``)",
            "**plain bold** and **ends with `x`**": "**plain bold** and <b>ends with `x`</b>",
            "`float** p` and `int** q`": "`float** p` and `int** q`",
            "`it's` fine, ``a'`` too": "`it's` fine, ``a'`` too",
        }
        for given, expected in cases.items():
            self.assertEqual(markdown.doxygen_markdown(given), expected)


def html_page(body):
    return f"<html><head><title>page</title></head><body>{body}</body></html>\n"


class CheckSite(unittest.TestCase):
    """check_site.py on a hand-written stand-in of a built student edition with one chapter."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="site-check-"))
        self.html = self.tmp / "html"
        self.html.mkdir()
        for name in ("index", "tools", "instructors", "api", "files", "namespacecourse",
                     "namespacech01", "ch01_hints"):
            write(self.html / f"{name}.html", html_page(f'<a href="index.html">{name}</a>'))
        write(self.html / "results.html", html_page("<p>No plot is committed yet.</p>"))
        self.figure = "chapters_01_first_idea_figures_one.svg"
        write(self.html / self.figure, SVG)
        self.chapter_body = (
            '<a href="index.html">Course map</a> <a href="ch01_hints.html">hints</a> '
            '<a href="tools.html">tools</a> '
            f'<div class="image"><img class="course-diagram" src="{self.figure}" alt="x"/></div>')
        self.write_chapter(self.chapter_body)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write_chapter(self, body):
        write(self.html / "ch01.html", html_page(body))

    def check(self):
        return subprocess.run(
            [sys.executable, str(CHECK_SITE), str(self.html), "--edition", "student",
             "--chapters", "ch01"], capture_output=True, text=True)

    def assert_fails(self, expected):
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(expected, result.stderr)

    def test_a_complete_site_passes(self):
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_chapter_page_without_a_figure_fails(self):
        self.write_chapter(self.chapter_body.replace(self.figure, "results_ladder.svg"))
        write(self.html / "results_ladder.svg", SVG)
        self.assert_fails("ch01.html: shows no figure of its chapter")

    def test_a_figure_of_another_chapter_does_not_count(self):
        other = "chapters_02_second_idea_figures_one.svg"
        write(self.html / other, SVG)
        self.write_chapter(self.chapter_body.replace(self.figure, other))
        self.assert_fails("ch01.html: shows no figure of its chapter")

    def test_a_missing_image_fails(self):
        (self.html / self.figure).unlink()
        self.assert_fails(f"link '{self.figure}': {self.figure} does not exist")

    def test_no_tools_link_fails(self):
        self.write_chapter(self.chapter_body.replace('<a href="tools.html">tools</a>', ""))
        self.assert_fails("ch01.html: no link to the tools page")

    def test_missing_hints_fail(self):
        (self.html / "ch01_hints.html").unlink()
        self.assert_fails("ch01_hints.html")
        write(self.html / "ch01_hints.html", html_page("hints"))
        self.write_chapter(self.chapter_body.replace('<a href="ch01_hints.html">hints</a>', ""))
        self.assert_fails("ch01.html: no link to ch01_hints.html")

    def test_markdown_shown_as_text_fails_outside_code_only(self):
        self.write_chapter(self.chapter_body + "<p>![Figure](figures/one.svg)</p>")
        self.assert_fails("ch01.html: a Markdown link or image shown as text")
        self.write_chapter(self.chapter_body + "<p><code>![Figure](figures/one.svg)</code></p>"
                           '<div class="fragment"><div class="line">[a](b.md)</div></div>')
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_failed_bold_or_code_span_fails_on_markdown_pages_only(self):
        self.write_chapter(self.chapter_body + "<p>** it is slower.** and &lsquo;a'`</p>")
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("ch01.html: Markdown bold shown as asterisks", result.stderr)
        self.assertIn("ch01.html: a backtick shown as text", result.stderr)
        self.write_chapter(self.chapter_body + "<p><code>float** p</code></p>")
        write(self.html / "namespacecourse.html", html_page("int main(int argc, char **argv) `"))
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_an_appendix_must_be_linked(self):
        write(self.html / "ch01_appendix.html", html_page("appendix"))
        self.assert_fails("ch01.html: no link to ch01_appendix.html")


if __name__ == "__main__":
    unittest.main()
