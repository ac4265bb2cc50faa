#!/usr/bin/env python3
"""Tests of the site's page writer (docs/make_pages.py) and checker (docs/check_site.py) on a
stand-in repository and a stand-in built site (no Doxygen needed): figures, appendix, hints and
(full edition only) answer key pages and the rewritten links are where a reader expects them, and
each broken source or page is refused, naming its file (and line): Doxygen's syntax that GitHub
shows as text, a table that does not scroll, a tree that lists headings, an answer in the student
edition.
What Doxygen would misread in the course's own pages (bold that starts or ends with code, a code
span ending in a quote) is found on the built sites, by docs.site.* (docs/CMakeLists.txt).

    python3 tests/docs/test_site_pages.py
"""

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
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

# A stand-in answer key (the course's are solutions/NN_slug/ANSWERS.md).
ANSWER_TEXT = ("The warp reads the row once and broadcasts it, so the profiler counts one "
               "wavefront per request and no conflict at all")
MEASURE = ("ncu --launch-count 1 --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum "
           "./build/ch01_first_idea_solution --problem matmul -m 1024 -n 1024 -k 1024")
ANSWERS = f"""# Chapter 1: answer key

## Predict 1.1

Measure: {MEASURE}

{ANSWER_TEXT}. See the [lesson](../../chapters/01_first_idea/README.md#exercises).

## Bug hunt: barrier

The planted bug drops the barrier between the loads and the sums of every tile in the loop.
"""

CHAPTER = "chapters/01_first_idea"
REPOSITORY = {
    "README.md": "# The course\n\nStart with [chapter 1](chapters/01_first_idea).\n",
    f"{CHAPTER}/README.md": LESSON,
    f"{CHAPTER}/APPENDIX.md": APPENDIX,
    f"{CHAPTER}/HINTS.md": HINTS,
    f"{CHAPTER}/figures/one.dot": "digraph one { a -> b; }\n",
    f"{CHAPTER}/figures/one.svg": SVG,
    f"{CHAPTER}/launch.cuh": "/// @file\n/// @brief Chapter 1, host side.\n",
    f"{CHAPTER}/kernels.cuh": "/// @file\n/// @brief Chapter 1's kernels.\n",
    f"{CHAPTER}/main.cu": "int main() { return 0; }\n",
    "solutions/01_first_idea/kernels.cuh": "/// @file\n/// @brief Chapter 1's kernels, solved.\n",
    "common/include/course/launch.cuh": "/// @file\n/// @brief Launch helpers.\n",
    "docs/pages/tools.md": "# Tools\n\nThe tools.\n",
    "docs/pages/instructors.md": "# Instructors\n\nFor instructors: the [tools](tools.md).\n",
    "solutions/01_first_idea/ANSWERS.md": ANSWERS,
}
IMAGE = "chapters_01_first_idea_figures_one.svg"

# Sources make_pages.py refuses: (files of the chapter changed, None to delete; edition; what
# its errors must say).
REFUSED_SOURCES = [
    ({"figures/one.svg": None}, "student",
     ["chapters/01_first_idea/README.md:5", "figures/one.svg"]),
    ({"HINTS.md": None, "APPENDIX.md": None}, "full",
     ["README.md:9: link to 'HINTS.md'", "README.md:11: link to 'APPENDIX.md#sweeps'"]),
    ({"README.md": LESSON + "\n<!-- diagram: ch01_one -->\n"}, "student",
     ["README.md:15: '<!-- diagram: ch01_one -->' shows nothing"]),
    ({"APPENDIX.md": APPENDIX.split("\n", 1)[1]}, "full",
     ["chapters/01_first_idea/APPENDIX.md:1: a page starts with '# Chapter 1: title'"]),
    # Doxygen's own syntax, shown as text on GitHub.
    ({"README.md": LESSON.replace("# Chapter 1: the first idea", "# Chapter 1: the first idea "
                                  "{#ch01}")}, "student",
     ["chapters/01_first_idea/README.md:1: '{#ch01}' shows as text on GitHub",
      "[text](README.md#chapter-1-the-first-idea)"]),
    ({"README.md": LESSON + "\nThe @ref tools \"tools page\" and `@ref` in code.\n"}, "student",
     ["chapters/01_first_idea/README.md:15: '@ref' shows as text on GitHub"]),
]


def write_files(directory, files):
    """Writes (or, for None, deletes) the files named relative to @p directory."""
    for name, text in files.items():
        path = directory / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


class MakePages(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="site-pages-"))
        self.repo = self.tmp / "repo"
        write_files(self.repo, REPOSITORY)
        self.chapter = self.repo / CHAPTER

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
            self.assertIn(f"![One warp reads one row]({IMAGE})", lesson)
            self.assertEqual((out / "images" / IMAGE).read_text(), SVG)
            for expected in (
                    "@subpage ch01_appendix", "@subpage ch01_hints", "[hints](@ref ch01_hints)",
                    "[hint for 1.1](@ref ch01_hints-exercise-11-index-the-thread)",
                    "[appendix](@ref ch01_appendix-sweeps)", "[tools page](@ref tools)",
                    "[launch.cuh](@ref chapters/01_first_idea/launch.cuh)",
                    "[course/launch.cuh](@ref course/launch.cuh)"):
                self.assertIn(expected, lesson)
            hints = self.page(out, "ch01_hints.md")
            self.assertTrue(hints.startswith("# Chapter 1: hints {#ch01_hints}"), hints[:80])
            self.assertIn(f"[figure]({IMAGE})", hints)
            appendix = self.page(out, "ch01_appendix.md")
            self.assertTrue(appendix.startswith("# Chapter 1: appendix {#ch01_appendix}"))
            self.assertIn("[lesson](@ref ch01)", appendix)
            self.assertIn(f"![The sweep]({IMAGE})", appendix)
            self.assertIn("@ref ch01 ", appendix)  # the way back to the chapter
            self.assertIn("@ref chapters/01_first_idea/launch.cuh", self.page(out, "api.md"))
            self.assertIn("@ref course/launch.cuh", self.page(out, "api.md"))

    def test_the_answer_key_is_in_the_full_edition_only(self):
        lesson = LESSON + "\nThe [answers](../../solutions/01_first_idea/ANSWERS.md).\n"
        write_files(self.chapter, {"README.md": lesson})
        result, full = self.make("full")
        self.assertEqual(result.returncode, 0, result.stderr)
        answers = self.page(full, "ch01_answers.md")
        self.assertTrue(answers.startswith("# Chapter 1: answer key {#ch01_answers}"),
                        answers[:80])
        self.assertIn(ANSWER_TEXT, answers)
        self.assertIn("[lesson](@ref ch01-exercises)", answers)
        self.assertIn("@ref ch01 ", answers)  # the way back to the chapter
        self.assertIn("@subpage ch01_answers", self.page(full, "ch01.md"))
        self.assertIn("[answers](@ref ch01_answers)", self.page(full, "ch01.md"))
        result, student = self.make("student")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse((student / "pages" / "ch01_answers.md").exists())
        for page in sorted((student / "pages").glob("*.md")):
            text = page.read_text(encoding="utf-8")
            self.assertNotIn("ch01_answers", text, page.name)
            self.assertNotIn(ANSWER_TEXT[:40], text, page.name)
        # The link of the lesson keeps its text only.
        self.assertIn("\nThe answers.\n", self.page(student, "ch01.md"))

    def test_broken_sources_are_refused_with_their_lines(self):
        for changes, edition, expected in REFUSED_SOURCES:
            with self.subTest(changes=list(changes)):
                write_files(self.repo, REPOSITORY)  # undoes the previous case's changes
                write_files(self.chapter, changes)
                result, _ = self.make(edition)
                self.assertEqual(result.returncode, 1)
                for text in expected:
                    self.assertIn(text, result.stderr)

    def test_a_wrapped_image_or_link_is_joined_onto_one_line(self):
        lesson = LESSON.replace("![One warp reads one row](figures/one.svg)",
                                "![One warp reads\none row](figures/one.svg)\n\nThe [tools\npage]"
                                "(../../docs/pages/tools.md) and\n`a[i` are two lines.")
        lesson += "\nSee [the missing\npage](NOPE.md).\n"
        write_files(self.chapter, {"README.md": lesson})
        result, out = self.make("student")
        self.assertEqual(result.returncode, 1)
        # The broken link is reported at the line it starts on, after the joined lines.
        self.assertIn("README.md:20: link to 'NOPE.md'", result.stderr)
        write_files(self.chapter, {"README.md": lesson.replace("NOPE.md", "HINTS.md")})
        result, out = self.make("student")
        self.assertEqual(result.returncode, 0, result.stderr)
        page = self.page(out, "ch01.md")
        self.assertIn(f"\n![One warp reads one row]({IMAGE})\n", page)
        self.assertIn("\nThe [tools page](@ref tools) and\n`a[i` are two lines.\n", page)
        self.assertIn("See [the missing page](@ref ch01_hints).", page)


# A stand-in of the navigation tree Doxygen writes: the headings of the pages are entries, one
# page's children are in a script of their own, the reference's members too.
NAVTREE_DATA = """var NAVTREE =
[
  [ "The course", "index.html", [
    [ "Quick start", "index.html#readme-quick-start", null ],
    [ "Results", "index.html#readme-results", [
      [ "Profile", "index.html#readme-profile", null ]
    ] ],
    [ "Chapter 1", "ch01.html", "ch01" ],
    [ "Tools", "tools.html", [
      [ "Build", "tools.html#tools-build", null ]
    ] ],
    [ "Namespaces", "namespaces.html", [
      [ "course", "namespacecourse.html", [
        [ "run", "namespacecourse.html#a1", null ]
      ] ]
    ] ]
  ] ]
];

var NAVTREEINDEX =
[
"ch01.html"
];

var SYNCONMSG = 'click to disable panel synchronisation';
"""
NAVTREE_CH01 = """var ch01 =
[
    [ "Exercises", "ch01.html#ch01-exercises", null ],
    [ "Chapter 1: hints", "ch01_hints.html", [
      [ "Level 1", "ch01_hints.html#ch01_hints-level-1", null ]
    ] ]
];
"""
NAVTREE_INDEX = {"ch01.html": [2], "ch01.html#ch01-exercises": [2, 0], "ch01_hints.html": [2, 1],
                 "ch01_hints.html#ch01_hints-level-1": [2, 1, 0], "index.html": [],
                 "index.html#readme-profile": [1, 0], "index.html#readme-quick-start": [0],
                 "namespacecourse.html": [4, 0], "namespacecourse.html#a1": [4, 0, 0],
                 "namespacecourse.html#a2": [4, 0, 1], "tools.html#tools-build": [3, 0]}


class NavTree(unittest.TestCase):
    """run_doxygen.py's rewriting of the tree: one entry per page, the index following."""

    def test_one_entry_per_page(self):
        sys.path.insert(0, str(ROOT / "docs"))
        sys.dont_write_bytecode = True
        import navtree  # pylint: disable=import-outside-toplevel
        with tempfile.TemporaryDirectory(prefix="site-tree-") as tmp:
            html = Path(tmp)
            write_files(html, {"navtreedata.js": NAVTREE_DATA, "ch01.js": NAVTREE_CH01,
                               "navtreeindex0.js": "var NAVTREEINDEX0 =\n" +
                               json.dumps(NAVTREE_INDEX) + ";\n"})
            pages = {"index.html", "ch01.html", "ch01_hints.html", "tools.html"}
            self.assertEqual(navtree.one_entry_per_page(html, pages), 6)
            tree = navtree.Tree(html)
            self.assertEqual([(path, entry[1]) for path, entry in tree.entries()],
                             [((0,), "ch01.html"), ((0, 0), "ch01_hints.html"),
                              ((1,), "tools.html"), ((2,), "namespaces.html"),
                              ((2, 0), "namespacecourse.html"),
                              ((2, 0, 0), "namespacecourse.html#a1")])
            self.assertIn("var SYNCONMSG", (html / "navtreedata.js").read_text())
            _, index, _ = navtree.read_var(html / "navtreeindex0.js", "NAVTREEINDEX0")
            self.assertEqual(index, {
                "ch01.html": [0], "ch01.html#ch01-exercises": [0], "ch01_hints.html": [0, 0],
                "ch01_hints.html#ch01_hints-level-1": [0, 0], "index.html": [],
                "index.html#readme-profile": [], "index.html#readme-quick-start": [],
                "namespacecourse.html": [2, 0], "namespacecourse.html#a1": [2, 0, 0],
                "namespacecourse.html#a2": [2, 0, 1], "tools.html#tools-build": [1]})
            # Once is enough: a second run finds nothing to drop.
            self.assertEqual(navtree.one_entry_per_page(html, pages), 0)
            write_files(html, {"ch01.js": "var ch01 = [ broken"})
            with self.assertRaisesRegex(navtree.TreeError, "ch01.js: var ch01 is not JSON"):
                navtree.Tree(html)


def html_page(body):
    return f"<html><head><title>page</title></head><body>{body}</body></html>\n"


# A stand-in of a built student edition with one chapter, whose page shows CHAPTER_BODY.
SITE = {f"{name}.html": html_page(f'<a href="index.html">{name}</a>')
        for name in ("index", "tools", "instructors", "api", "files", "namespacecourse",
                     "namespacech01", "ch01_hints")}
SITE.update({"results.html": html_page("<p>No plot is committed yet.</p>"), IMAGE: SVG})
SITE["course.css"] = (ROOT / "docs" / "course.css").read_text(encoding="utf-8")
# The navigation tree: one entry per page (each a JSON value inside `var NAME = ...;`).
TREE = """var NAVTREE =
[
  [ "The course", "index.html", [
    [ "Chapter 1: the first idea", "ch01.html", [
      [ "Chapter 1: hints", "ch01_hints.html", null ]
    ] ],
    [ "Tools", "tools.html", null ]%s
  ] ]
];

var NAVTREEINDEX =
[
"ch01.html"
];
"""
SITE["navtreedata.js"] = TREE % ""
SITE["navtreeindex0.js"] = ('var NAVTREEINDEX0 =\n{\n"ch01.html":[0],\n"ch01_hints.html":[0,0],\n'
                            '"index.html":[],\n"tools.html":[1]\n};\n')
TABLE = '<table class="markdownTable"><tr><td>1</td></tr></table>'

TOOLS_LINK, HINTS_LINK = '<a href="tools.html">tools</a>', '<a href="ch01_hints.html">hints</a>'
CHAPTER_BODY = (f'<a href="index.html">Course map</a> {HINTS_LINK} {TOOLS_LINK} '
                f'<div class="image"><img class="course-diagram" src="{IMAGE}" alt="x"/></div>')
OTHER_FIGURE = "chapters_02_second_idea_figures_one.svg"
# Sites check_site.py fails: (the chapter page's body, files changed (None: deleted), what its
# errors must say).
FAILING_SITES = [
    (CHAPTER_BODY.replace(IMAGE, "results_ladder.svg"), {"results_ladder.svg": SVG},
     ["ch01.html: shows no figure of its chapter"]),
    (CHAPTER_BODY.replace(IMAGE, OTHER_FIGURE), {OTHER_FIGURE: SVG},  # another chapter's
     ["ch01.html: shows no figure of its chapter"]),
    (CHAPTER_BODY, {IMAGE: None}, [f"link '{IMAGE}': {IMAGE} does not exist"]),
    (CHAPTER_BODY.replace(TOOLS_LINK, ""), {}, ["ch01.html: no link to the tools page"]),
    (CHAPTER_BODY, {"ch01_hints.html": None}, ["ch01_hints.html"]),
    (CHAPTER_BODY.replace(HINTS_LINK, ""), {"ch01_hints.html": html_page("hints")},
     ["ch01.html: no link to ch01_hints.html"]),
    (CHAPTER_BODY + "<p>![Figure](figures/one.svg)</p>", {},
     ["ch01.html: a Markdown link or image shown as text"]),
    (CHAPTER_BODY + "<p>** it is slower.** and &lsquo;a'`</p>", {},
     ["ch01.html: Markdown bold shown as asterisks", "ch01.html: a backtick shown as text"]),
    (CHAPTER_BODY + TABLE, {}, ["ch01.html:1: a table outside a course-table-scroll block"]),
    (CHAPTER_BODY + "<h2>Exercises {#ch01-exercises}</h2>", {},
     ["ch01.html: a heading's label shown as text"]),
    (CHAPTER_BODY, {"course.css": SITE["course.css"].replace("max-width: 999px",
                                                             "max-width: 600px")},
     ["course.css: no @media (max-width: ...px) rule, about 1000 px, that hides #side-nav"]),
    (CHAPTER_BODY, {"course.css": SITE["course.css"].replace(".course-table-scroll", ".x")},
     ["course.css: no 'div.course-table-scroll { overflow-x: auto }'"]),
    (CHAPTER_BODY, {"navtreedata.js": TREE % ',\n    [ "Exercises", "ch01.html#ch01-ex", null ]'},
     ["the tree lists a heading of ch01.html ('Exercises', #ch01-ex) as an entry"]),
    (CHAPTER_BODY, {"navtreedata.js": TREE % ',\n    [ "Tools again", "tools.html", null ]'},
     ["the tree lists tools.html 2 times"]),
    (CHAPTER_BODY, {"ch01_appendix.html": html_page("appendix")},
     ["ch01.html: no link to ch01_appendix.html"]),
]
# The answer keys (check_site.py --source): (edition, the chapter page's body, files changed,
# what the errors must say; none: it passes). A passage the student's files hold too (the
# question the key repeats) is no answer.
FULL_BODY = (CHAPTER_BODY + '<a href="ch01_solution.html">solved</a>'
             '<a href="ch01_answers.html">answer key</a>')
FULL_PAGES = {"ch01_solution.html": html_page("solved")}
ANSWER_PAGE = html_page(f"<h1>Predict 1.1</h1><p>{ANSWER_TEXT}.</p><h1>Bug hunt: barrier</h1>"
                        "<p>The planted bug drops the barrier between the loads and the sums of "
                        "every tile in the loop.</p>")
ANSWER_SITES = [
    ("student", CHAPTER_BODY + "<p>What changed since the first idea: which thread computes "
                               "which output? The hints.</p>", {}, []),
    # The command that measures an answer is the lesson's as well: no passage of the key.
    ("student", CHAPTER_BODY + f"<pre>{MEASURE}</pre>", {}, []),
    ("student", CHAPTER_BODY + f"<p>Note: {ANSWER_TEXT.lower()}</p>", {},
     ["ch01.html: shows the answer key solutions/01_first_idea/ANSWERS.md (Predict 1.1): "
      "'...the warp reads the row once"]),
    ("student", CHAPTER_BODY, {"ch01_answers.html": ANSWER_PAGE},
     ["ch01_answers.html: an answer key's page in the student edition",
      "ch01_answers.html: shows the answer key"]),
    ("full", FULL_BODY, {**FULL_PAGES, "ch01_answers.html": ANSWER_PAGE}, []),
    ("full", FULL_BODY, FULL_PAGES,
     ["ch01_answers.html: missing: the answer key solutions/01_first_idea/ANSWERS.md"]),
    ("full", FULL_BODY, {**FULL_PAGES, "ch01_answers.html": ANSWER_PAGE.replace("Bug hunt", "")},
     ["ch01_answers.html: does not show the section 'Bug hunt: barrier'"]),
    ("full", FULL_BODY.replace('<a href="ch01_answers.html">answer key</a>', ""),
     {**FULL_PAGES, "ch01_answers.html": ANSWER_PAGE}, ["ch01.html: no link to ch01_answers.html"]),
]


class CheckSite(unittest.TestCase):
    def check(self, chapter_body, changes, edition="student", source=False):
        """check_site.py's run on the stand-in site with the chapter page and the changes (and
        with @p source, the stand-in repository as its --source)."""
        with tempfile.TemporaryDirectory(prefix="site-check-") as tmp:
            html = Path(tmp) / "html"
            write_files(html, {**SITE, "ch01.html": html_page(chapter_body)})
            write_files(html, changes)
            options = []
            if source:
                write_files(Path(tmp) / "repo", REPOSITORY)
                options = ["--source", str(Path(tmp) / "repo")]
            return subprocess.run(
                [sys.executable, str(CHECK_SITE), str(html), "--edition", edition,
                 "--chapters", "ch01", *options], capture_output=True, text=True)

    def test_answer_keys(self):
        for edition, body, changes, expected in ANSWER_SITES:
            with self.subTest(edition=edition, expected=expected[:1]):
                result = self.check(body, changes, edition, source=True)
                self.assertEqual(result.returncode, 1 if expected else 0,
                                 result.stdout + result.stderr)
                for text in expected:
                    self.assertIn(text, result.stderr)

    def test_the_complete_site_passes(self):
        result = self.check(CHAPTER_BODY, {})
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_broken_sites_fail_naming_the_page(self):
        for body, changes, expected in FAILING_SITES:
            with self.subTest(expected=expected[0]):
                result = self.check(body, changes)
                self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
                for text in expected:
                    self.assertIn(text, result.stderr)


if __name__ == "__main__":
    unittest.main()
