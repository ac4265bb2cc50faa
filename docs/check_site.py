#!/usr/bin/env python3
"""Checks a built edition of the course site: the pages a reader needs are there (main, tools,
instructors, results and API pages; one page per listed chapter with its navigation, a figure and
links to its hints, appendix, "what changed" and, in the full edition only, "exercises solved"
and answer key pages), no page shows Doxygen or Markdown syntax that failed to render, every
internal link, image, script and JavaScript index entry resolves inside the site (#fragments to
anchors), and nothing is loaded from the network. For a site that reads on any screen: every table
of a page sits in its scrolling block, course.css collapses the navigation tree below 1000 px,
and the tree lists each page once (not its headings). With --source (the repository), the answer
keys (solutions/NN_slug/ANSWERS.md): the full edition shows each one whole, and no page of the
student edition shows any of their text that the student's own files do not hold.

  check_site.py HTML_DIR --edition full|student --chapters ch01,ch02 [--source ROOT]
                [--skip-if-missing]

Fails with status 1, one line per problem. With --skip-if-missing a site that was not built is
"SKIPPED: docs not built" (for CTest). How the pages look in a browser: docs/site_layout.py.
"""

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.dont_write_bytecode = True  # nothing written into the source tree
# pylint: disable=wrong-import-position
from navtree import Tree, TreeError  # noqa: E402
from verdict import report  # noqa: E402

LINK_ATTRIBUTES = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src",
                   "object": "data", "embed": "src", "area": "href", "frame": "src"}
SVG_LINK = re.compile(r"""(?:xlink:href|href)\s*=\s*["']([^"']+)["']""")
JS_TARGET = re.compile(r"""["']([A-Za-z0-9_./\-]+\.html(?:#[A-Za-z0-9_\-:.]*)?)["']""")
LEFTOVERS = [
    (re.compile(r"(?<![\w])[@\\](?:ref|subpage|dotfile|htmlinclude|image)\b"),
     "an unrendered Doxygen command"),
    (re.compile(r"^\s*(?:```|~~~)", re.MULTILINE), "an unrendered code fence"),
    (re.compile(r"</?(?:tt|code|b|em)>"), "HTML tags shown as text"),
]
# Checked in the text outside code (a page may show this syntax in a code span) of the pages
# written in Markdown (MARKDOWN_PAGE): lessons, appendices, hints, the README, docs/pages.
MARKDOWN_PAGE = re.compile(r"^(?:ch\d\d(?:_hints|_appendix|_answers)?|index|tools|instructors|"
                           r"results|api)\.html$")
PROSE_LEFTOVERS = [
    (re.compile(r"!?\[[^\[\]]*\]\([^()\s]+\.(?:md|svg|png)(?:#[^()\s]*)?\)"),
     "a Markdown link or image shown as text"),
    (re.compile(r"\*\*"), "Markdown bold shown as asterisks"),
    (re.compile(r"`"), "a backtick shown as text (a code span that failed)"),
    (re.compile(r"\{#[A-Za-z][\w\-]*\}"), "a heading's label shown as text"),
]


# The elements whose text is no visible text (hidden) or no prose (code).
NOT_PROSE = {"script": "hidden", "style": "hidden", "code": "code", "tt": "code", "pre": "code"}


class PageParser(HTMLParser):
    """Collects a page's anchors, links and visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.links = []  # (tag, url, line)
        self.text = []
        self.prose = []  # the text outside code spans and code fragments
        self.images = []
        self.bare_tables = []  # lines of the tables not inside a course-table-scroll block
        self.last_start = None  # the tag and class of the last element opened
        # How deep inside each kind of NOT_PROSE element, and in <div>s of a <div class="fragment">
        self.depth = {"hidden": 0, "code": 0, "fragment": 0}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "table" and {"markdownTable", "doxtable"} & set(classes) and \
                self.last_start != ("div", "course-table-scroll"):
            self.bare_tables.append(self.getpos()[0])
        self.last_start = (tag, " ".join(classes))
        self.anchors.update(attributes[key] for key in ("id", "name") if attributes.get(key))
        wanted = LINK_ATTRIBUTES.get(tag)
        if wanted and attributes.get(wanted):
            self.links.append((tag, attributes[wanted], self.getpos()[0]))
            if tag in ("img", "iframe", "object", "embed"):
                self.images.append(attributes[wanted])
        if tag in NOT_PROSE:
            self.depth[NOT_PROSE[tag]] += 1
        in_fragment = self.depth["fragment"] or "fragment" in (attributes.get("class") or "")
        if tag == "div" and in_fragment:
            self.depth["fragment"] += 1

    def handle_endtag(self, tag):
        kind = "fragment" if tag == "div" else NOT_PROSE.get(tag)
        if kind and self.depth[kind]:
            self.depth[kind] -= 1

    def handle_data(self, data):
        if not self.depth["hidden"]:
            self.text.append(data)
            if not self.depth["code"] and not self.depth["fragment"]:
                self.prose.append(data)


class Site:
    def __init__(self, root):
        self.root = root.resolve()
        self.pages = {}
        self.problems = []
        self.checked_links = 0

    def page(self, path):
        """The parsed HTML page at @p path (cached)."""
        path = path.resolve()
        if path not in self.pages:
            parser = PageParser()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            self.pages[path] = parser
        return self.pages[path]

    def problem(self, where, text):
        self.problems.append(f"{where}: {text}")

    def rel(self, path):
        return path.resolve().relative_to(self.root).as_posix()

    def check_target(self, where, origin, url):
        """Checks that @p url, found in the file @p origin, resolves inside the site."""
        parts = urlsplit(url)
        if parts.scheme or url.startswith("//"):
            if parts.scheme not in ("http", "https", "mailto", "data", "javascript"):
                self.problem(where, f"link '{url}' uses an unexpected scheme")
            return
        self.checked_links += 1
        target = (origin.parent / unquote(parts.path)).resolve() if parts.path else origin.resolve()
        if target.is_dir():
            target = target / "index.html"
        if self.root not in target.parents:
            self.problem(where, f"link '{url}' leaves the site")
        elif not target.is_file():
            self.problem(where, f"link '{url}': {self.rel(target)} does not exist")
        elif parts.fragment and target.suffix == ".html" and \
                unquote(parts.fragment) not in self.page(target).anchors:
            self.problem(where, f"link '{url}': no anchor '{parts.fragment}' in {self.rel(target)}")

    def check_links(self):
        for path in sorted(self.root.rglob("*.html")):
            parsed = self.page(path)
            for tag, url, line in parsed.links:
                if tag != "a" and (urlsplit(url).scheme in ("http", "https")
                                   or url.startswith("//")):
                    self.problem(f"{self.rel(path)}:{line}", f"<{tag}> loads '{url}' from the "
                                 "network: the site must work offline")
                    continue
                self.check_target(f"{self.rel(path)}:{line}", path, url)
            for line in parsed.bare_tables:
                self.problem(f"{self.rel(path)}:{line}", "a table outside a course-table-scroll "
                             "block (run_doxygen.py wraps them): a wide one pushes the page "
                             "sideways")
            checks = [(p, w, "".join(parsed.text)) for p, w in LEFTOVERS]
            if MARKDOWN_PAGE.match(path.name):
                checks += [(p, w, "".join(parsed.prose)) for p, w in PROSE_LEFTOVERS]
            for pattern, what, where in checks:
                found = pattern.search(where)
                if found:
                    snippet = where[max(0, found.start() - 30):found.end() + 30].replace("\n", " ")
                    self.problem(self.rel(path), f"{what}: ...{snippet.strip()}...")
        for path in sorted(self.root.rglob("*.svg")):
            for url in SVG_LINK.findall(path.read_text(encoding="utf-8", errors="replace")):
                if not url.startswith("#"):
                    self.check_target(self.rel(path), path, url)
        # The tree view and the search index name pages from JavaScript.
        # navtreeindex*.js only maps pages to tree positions (Doxygen lists some member anchors
        # there that only the namespace page carries), so only its pages must exist.
        # The same holds for the NAVTREEINDEX list at the end of navtreedata.js.
        for path in [self.root / "navtreedata.js", *sorted(self.root.glob("navtreeindex*.js"))]:
            text = path.read_text(encoding="utf-8") if path.is_file() else ""
            tree, _, index = text.partition("var NAVTREEINDEX")
            if path.name.startswith("navtreeindex"):
                tree, index = "", text
            for url in JS_TARGET.findall(tree):
                self.check_target(self.rel(path), path, url)
            for url in JS_TARGET.findall(index):
                self.check_target(self.rel(path), path, url.split("#")[0])
        for path in sorted((self.root / "search").glob("*.js")):
            for url in JS_TARGET.findall(path.read_text(encoding="utf-8")):
                self.check_target(self.rel(path), path, url)


def is_figure(key, name):
    """Whether the image file @p name of the site is a figure of chapter @p key: the site's copy
    of chapters/NN_slug/figures/NAME.svg is chapters_NN_slug_figures_NAME.svg (copy_image in
    docs/sitegen/links.py)."""
    return re.fullmatch(rf"chapters_{key[2:]}_[a-z0-9_]+?_figures_[^/]+\.svg", name) is not None


def check_pages(site, edition, chapters):
    root = site.root
    required = ["index", "tools", "results", "api", "files", "namespacecourse"]
    required += ["instructors"] * (edition == "full")  # a student's hand-out leaves it out
    required += [f"namespace{key}" for key in chapters]
    for name in required:
        if not (root / f"{name}.html").is_file():
            site.problem(f"{name}.html", "missing")

    present = sorted(p.stem for p in root.glob("ch[0-9][0-9].html"))
    expected = sorted(chapters)
    if present != expected:
        site.problem("chapters", f"expected pages for {', '.join(expected) or 'no chapter'}, "
                                 f"found {', '.join(present) or 'none'}")
    for index, key in enumerate(expected):
        path = root / f"{key}.html"
        if not path.is_file():
            continue
        parsed = site.page(path)
        hrefs = {urlsplit(url).path for tag, url, _ in parsed.links if tag == "a"}
        for neighbour in expected[max(0, index - 1):index] + expected[index + 1:index + 2]:
            if f"{neighbour}.html" not in hrefs:
                site.problem(path.name, f"no link to the neighbouring chapter {neighbour}.html")
        if "index.html" not in hrefs:
            site.problem(path.name, "no link back to the course map (index.html)")
        if not any(is_figure(key, urlsplit(url).path) for url in parsed.images):
            site.problem(path.name, f"shows no figure of its chapter (a lesson shows "
                                    f"![caption](figures/NAME.svg), chapters/{key[2:]}_*/figures/)")
        if "tools.html" not in hrefs:
            site.problem(path.name, "no link to the tools page (tools.html): a lesson links "
                                    "../../docs/pages/tools.md")
        if not (root / f"{key}_hints.html").is_file():
            site.problem(f"{key}_hints.html", "missing (the chapter's HINTS.md)")
        elif f"{key}_hints.html" not in hrefs:
            site.problem(path.name, f"no link to {key}_hints.html")
        if (root / f"{key}_appendix.html").is_file() and f"{key}_appendix.html" not in hrefs:
            site.problem(path.name, f"no link to {key}_appendix.html")
        for extra, wanted in ((f"{key}_changes", index > 0),
                              (f"{key}_solution", edition == "full")):
            exists = (root / f"{extra}.html").is_file()
            if wanted and not exists:
                site.problem(f"{extra}.html", "missing")
            if wanted and f"{extra}.html" not in hrefs:
                site.problem(path.name, f"no link to {extra}.html")
            if not wanted and exists:
                site.problem(f"{extra}.html", f"must not be in the {edition} edition")
        changes = root / f"{key}_changes.html"
        if index > 0 and changes.is_file() and \
                'class="course-diff"' not in changes.read_text(encoding="utf-8"):
            site.problem(changes.name, "shows no diff")

    # The student edition documents the student's files and must not show any solution file.
    if edition == "student":
        for path in sorted(root.glob("*.html")):
            title = re.search(r"<title>([^<]*)</title>", path.read_text(encoding="utf-8"))
            if title and "solutions/" in title.group(1) or path.name.endswith("_solution.html"):
                site.problem(path.name, "a solution page in the student edition")

    results = root / "results.html"
    if results.is_file():
        parsed = site.page(results)
        text = " ".join("".join(parsed.text).split())
        if not any("ladder" in url for url in parsed.images) and \
                "No plot is committed yet" not in text:
            site.problem(results.name, "neither shows the plot nor says that none is committed")


# The rules of course.css a narrow window needs: the tree collapses below about 1000 px, and a
# table's block scrolls sideways.
COLLAPSE = re.compile(r"@media[^{]*\(\s*max-width:\s*(\d+)px\s*\)[^{]*\{(?:[^{}]*\{[^{}]*\})*?"
                      r"[^{}]*#side-nav\b[^{}]*\{[^{}]*display:\s*none")
TABLE_SCROLL = re.compile(r"div\.course-table-scroll\s*\{[^}]*overflow-x:\s*auto")


def check_layout(site):
    """The rules of course.css for narrow windows, and one entry per page in the tree."""
    css_path = site.root / "course.css"
    css = css_path.read_text(encoding="utf-8") if css_path.is_file() else ""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    collapse = COLLAPSE.search(css)
    if not collapse or not 900 <= int(collapse.group(1)) <= 1100:
        site.problem("course.css", "no @media (max-width: ...px) rule, about 1000 px, that hides "
                                   "#side-nav: the navigation tree does not collapse on a narrow "
                                   "window")
    if not TABLE_SCROLL.search(css):
        site.problem("course.css", "no 'div.course-table-scroll { overflow-x: auto }': wide "
                                   "tables do not scroll inside themselves")
    if not (site.root / "navtreedata.js").is_file():
        return
    try:
        tree = Tree(site.root)
    except TreeError as error:
        site.problem("navtreedata.js", str(error))
        return
    seen = {}
    for path, entry in tree.entries():
        page, _, anchor = (entry[1] or "").partition("#")
        if not MARKDOWN_PAGE.match(page):
            continue
        if anchor:
            site.problem("navtreedata.js", f"the tree lists a heading of {page} ('{entry[0]}', "
                                           f"#{anchor}) as an entry: one entry per page")
        seen[page] = seen.get(page, 0) + 1
    for page, count in sorted(seen.items()):
        if count > 1:
            site.problem("navtreedata.js", f"the tree lists {page} {count} times")


WORD = re.compile(r"[a-z0-9]+")
RUN = 12  # words in a row that make a passage of an answer key recognisable
# The files a student has, whose text the student edition may show: a passage of an answer key
# that is also in one of them (a question the key repeats, a line of code) is not an answer.
STUDENT_FILES = ("README.md", "chapters/**/*", "common/**/*", "docs/pages/*.md", "results/*.csv",
                 "scripts/*")


def words(text):
    return WORD.findall(text.lower())


def runs(tokens):
    return {" ".join(tokens[i:i + RUN]) for i in range(len(tokens) - RUN + 1)}


def answer_keys(source, chapters):
    """Each listed chapter's answer key: {key: (repository path, [(heading, passages)])}, the
    passages being the runs of RUN words of each section that no file of the student's holds
    (its `Measure:` lines, the commands that measure an answer, are no passage of it)."""
    keys = {}
    for path in sorted(source.glob("solutions/[0-9][0-9]_*/ANSWERS.md")):
        key = f"ch{path.parent.name[:2]}"
        if key not in chapters:
            continue
        sections, heading, lines = [], None, []
        for line in path.read_text(encoding="utf-8").splitlines() + ["## end"]:
            found = re.match(r"^(#{1,3})\s+(.*?)\s*#*\s*$", line)
            if found and len(found.group(1)) == 1:
                continue  # the page's title
            if found:
                if heading or any(x.strip() for x in lines):
                    sections.append([heading, runs(words("\n".join(lines)))])
                heading, lines = found.group(2), []
            elif not line.startswith("Measure:"):  # a command that measures, not an answer
                lines.append(line)
        keys[key] = (path.relative_to(source).as_posix(), sections)
    if not keys:
        return keys
    for pattern in STUDENT_FILES:
        for path in source.glob(pattern):
            if not path.is_file() or path.stat().st_size > 2_000_000:
                continue
            try:
                tokens = words(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
            public = runs(tokens)
            for _, sections in keys.values():
                for section in sections:
                    section[1] -= public
    return keys


def check_answers(site, edition, chapters, source):
    """The full edition shows each chapter's answer key whole; the student edition none of it."""
    keys = answer_keys(source, chapters)
    if edition == "student":
        for path in sorted(site.root.glob("*answers*")):
            site.problem(path.name, "an answer key's page in the student edition")
        if not keys:
            return
        passages = {}
        for key, (rel, sections) in keys.items():
            for heading, found in sections:
                passages.update(dict.fromkeys(found, f"{rel} ({heading or 'its start'})"))
        for path in sorted(site.root.rglob("*.html")):
            tokens = words(" ".join("".join(site.page(path).text).split()))
            for i in range(len(tokens) - RUN + 1):
                run = " ".join(tokens[i:i + RUN])
                if run in passages:
                    site.problem(site.rel(path), f"shows the answer key {passages[run]}: "
                                                 f"'...{run}...'")
                    break
        return
    for key, (rel, sections) in keys.items():
        page = site.root / f"{key}_answers.html"
        if not page.is_file():
            site.problem(page.name, f"missing: the answer key {rel} is not on the site")
            continue
        shown = " ".join(words("".join(site.page(page).text)))
        for heading, found in sections:
            if (heading and " ".join(words(heading)) not in shown) or \
                    (found and not any(run in shown for run in found)):
                site.problem(page.name, f"does not show the section "
                                        f"'{heading or 'before the first heading'}' of {rel}")
        lesson = site.root / f"{key}.html"
        if lesson.is_file() and page.name not in {
                urlsplit(url).path for tag, url, _ in site.page(lesson).links if tag == "a"}:
            site.problem(lesson.name, f"no link to {page.name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("html", type=Path, help="the edition's HTML directory")
    parser.add_argument("--edition", choices=("full", "student"), required=True)
    parser.add_argument("--chapters", default="", help="comma-separated chapter keys: ch01,ch02")
    parser.add_argument("--source", type=Path,
                        help="the repository's root: check the answer keys of solutions/")
    parser.add_argument("--skip-if-missing", action="store_true")
    args = parser.parse_args()
    if args.source and not (args.source / "solutions").is_dir():
        parser.error(f"--source: {args.source} holds no solutions/ directory")

    if not (args.html / "index.html").is_file():
        if args.skip_if_missing:
            print(f"SKIPPED: docs not built ({args.edition} edition: no index.html in "
                  f"{args.html}; build the 'docs' target)")
            return 0
        print(f"{args.html}/index.html: missing: the site was not built", file=sys.stderr)
        return 1
    if (args.html / "DOXYGEN_FAILED.txt").is_file():
        print(f"{args.html}: the last build of the {args.edition} edition failed (Doxygen "
              "warnings): build the docs target to see them", file=sys.stderr)
        return 1
    chapters = [c for c in args.chapters.split(",") if c]
    for key in chapters:
        if not re.fullmatch(r"ch\d\d", key):
            parser.error(f"--chapters: '{key}' is not a chapter key like ch01")
    site = Site(args.html)
    check_pages(site, args.edition, chapters)
    site.check_links()
    check_layout(site)
    if args.source:
        check_answers(site, args.edition, chapters, args.source.resolve())
    return report("check_site", site.problems,
                  f"{args.edition} edition: {len(site.pages)} pages, {site.checked_links} links, "
                  f"{len(chapters)} chapter(s)")


if __name__ == "__main__":
    sys.exit(main())
