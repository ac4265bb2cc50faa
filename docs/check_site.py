#!/usr/bin/env python3
"""Checks a built edition of the course site: the pages a reader needs are there (main, tools,
instructors, results and API pages; one page per listed chapter with its navigation, a figure and
links to its hints, appendix, "what changed" and, in the full edition only, "exercises solved"
pages), no page shows Doxygen or Markdown syntax that failed to render, every internal link,
image, script and JavaScript index entry resolves inside the site (#fragments to anchors), and
nothing is loaded from the network.

  check_site.py HTML_DIR --edition full|student --chapters ch01,ch02 [--skip-if-missing]

Fails with status 1, one line per problem. With --skip-if-missing a site that was not built is
"SKIPPED: docs not built" (for CTest).
"""

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

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
MARKDOWN_PAGE = re.compile(r"^(?:ch\d\d(?:_hints|_appendix)?|index|tools|instructors|results|api)"
                           r"\.html$")
PROSE_LEFTOVERS = [
    (re.compile(r"!?\[[^\[\]]*\]\([^()\s]+\.(?:md|svg|png)(?:#[^()\s]*)?\)"),
     "a Markdown link or image shown as text"),
    (re.compile(r"\*\*"), "Markdown bold shown as asterisks"),
    (re.compile(r"`"), "a backtick shown as text (a code span that failed)"),
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
        # How deep inside each kind of NOT_PROSE element, and in <div>s of a <div class="fragment">
        self.depth = {"hidden": 0, "code": 0, "fragment": 0}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("html", type=Path, help="the edition's HTML directory")
    parser.add_argument("--edition", choices=("full", "student"), required=True)
    parser.add_argument("--chapters", default="", help="comma-separated chapter keys: ch01,ch02")
    parser.add_argument("--skip-if-missing", action="store_true")
    args = parser.parse_args()

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
    for problem in site.problems:
        print(f"check_site: {problem}", file=sys.stderr)
    summary = (f"{args.edition} edition: {len(site.pages)} pages, {site.checked_links} links, "
               f"{len(chapters)} chapter(s)")
    if site.problems:
        print(f"check_site: FAILED, {len(site.problems)} problem(s) ({summary})", file=sys.stderr)
        return 1
    print(f"check_site: OK ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
