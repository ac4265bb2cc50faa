#!/usr/bin/env python3
"""Runs Doxygen for one edition of the course site and reports its warnings against the files
people edit: a warning about a line of a generated page (make_pages.py) names the line of the
lesson, README or docs/pages file it came from (linemap.json), with paths relative to the
repository. Any warning, or a non-zero status from Doxygen, fails the run. The HTML directory is
emptied first, so that the pages of a chapter that no longer exists do not linger; afterwards the
SVG images (figures, plots) are shown at their drawing's size, scaling down with the window.
Only the Python standard library is used.
"""

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
# pylint: disable=wrong-import-position
from navtree import TreeError, one_entry_per_page  # noqa: E402

MESSAGE = re.compile(r"^(?P<file>[^:\n]+?):(?P<line>\d+): (?P<text>.*)$")
# Markdown images in SVG (the chapters' figures, the ladder's plot) become objects of their
# natural size; as images they scale down too. An image is given the width its drawing has at
# 1 pt per unit of its viewBox (Graphviz's figures set dpi=192, which makes their natural size
# 2.67 times that) and, for its alt text, the caption Doxygen writes after it.
SVG_OBJECT = re.compile(
    r'<object type="image/svg\+xml" data="([A-Za-z0-9_.\-]+\.svg)" '
    r'style="pointer-events: none;"></object>(\s*<div class="caption">\s*(.*?)</div>)?',
    re.DOTALL)
SVG_VIEWBOX = re.compile(r'<svg\b[^>]*?\sviewBox="\s*[-0-9.]+[ ,]+[-0-9.]+[ ,]+([0-9.]+)[ ,]+'
                         r'[0-9.]+\s*"', re.DOTALL)
TAG = re.compile(r"<[^>]+>")
# An image inside a sentence: Doxygen gives it an empty alt text and the caption as its title.
INLINE_IMAGE = re.compile(r'<img src="([^"]+)" alt="" (style="[^"]*" class="inline") '
                          r'title="([^"]*)"/>')


def svg_image(html_dir, match):
    """The <img> (and caption) for one SVG object of a page."""
    name, caption = match.group(1), match.group(3)
    alt = " ".join(TAG.sub("", caption).split()) if caption else name
    try:
        viewbox = SVG_VIEWBOX.search((html_dir / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        viewbox = None
    width = f' width="{round(float(viewbox.group(1)) * 4 / 3)}"' if viewbox else ""
    return (f'<img class="course-diagram" src="{name}"{width} '
            f'alt="{html.escape(alt, quote=True)}"/>{match.group(2) or ""}')


# The tables of the pages: Markdown tables and HTML tables written in a page.
TABLE = re.compile(r'(?<!<div class="course-table-scroll">)'
                   r'<table class="(?:markdownTable|doxtable)">.*?</table>', re.DOTALL)
TABLE_WRAPPER = '<div class="course-table-scroll">'


def scrolling_tables(html_dir):
    """Wraps every table of the pages in a block of class course-table-scroll (course.css: it
    scrolls sideways when the table is wider than the text)."""
    for page in html_dir.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = TABLE.sub(lambda m: f"{TABLE_WRAPPER}{m.group(0)}</div>", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def scalable_images(html_dir):
    """Shows the SVG images as images of their drawing's size, scaling down with the page."""
    for page in html_dir.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = SVG_OBJECT.sub(lambda m: svg_image(html_dir, m), text)
        new = INLINE_IMAGE.sub(
            lambda m: f'<img src="{m.group(1)}" alt="{m.group(3)}" {m.group(2)} '
                      f'title="{m.group(3)}"/>', new)
        if new != text:
            page.write_text(new, encoding="utf-8")


def translate(line, pages_dir, linemap, source):
    """@p line with a generated page's position replaced by its source's, paths made relative."""
    match = MESSAGE.match(line)
    if not match:
        return line.replace(str(source) + "/", "")
    path, number, text = Path(match.group("file")), int(match.group("line")), match.group("text")
    if path.parent == pages_dir and path.name in linemap:
        origins = linemap[path.name]
        if 1 <= number <= len(origins) and origins[number - 1]:
            rel, source_line = origins[number - 1]
            return f"{rel}:{source_line}: {text}"
        return f"{path.name} (a generated page of the docs; line {number}): {text}"
    try:
        shown = path.resolve().relative_to(source).as_posix()
    except ValueError:
        shown = str(path)
    return f"{shown}:{number}: {text}".replace(str(source) + "/", "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--doxygen", required=True, help="the doxygen executable")
    parser.add_argument("--doxyfile", required=True, type=Path)
    parser.add_argument("--work", required=True, type=Path,
                        help="make_pages.py's output: pages/ and linemap.json")
    parser.add_argument("--html", required=True, type=Path, help="Doxygen's HTML output directory")
    parser.add_argument("--source", required=True, type=Path, help="the repository's root")
    args = parser.parse_args()

    source = args.source.resolve()
    pages_dir = (args.work / "pages").resolve()
    linemap = json.loads((args.work / "linemap.json").read_text(encoding="utf-8"))
    shutil.rmtree(args.html, ignore_errors=True)

    result = subprocess.run([args.doxygen, str(args.doxyfile)], cwd=args.work,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Each line once: Doxygen repeats some warnings once per output it writes.
    shown = dict.fromkeys(translate(line, pages_dir, linemap, source)
                          for line in result.stdout.splitlines() if line.strip())
    for line in shown:
        print(line, file=sys.stderr)
    warnings = sum(1 for line in shown if re.search(r"\b(warning|error):", line))
    if result.returncode != 0 or warnings:
        print(f"docs: Doxygen reported {warnings} warning(s) (status {result.returncode}); "
              "warnings are errors in this course", file=sys.stderr)
        # Doxygen writes its pages even when it fails; this file tells check_site.py (and the
        # CTest test that runs it) that they are not to be trusted.
        args.html.mkdir(parents=True, exist_ok=True)
        (args.html / "DOXYGEN_FAILED.txt").write_text(
            f"Doxygen reported {warnings} warning(s); see the output of the docs target.\n",
            encoding="utf-8")
        return 1
    # Doxygen copies the images it shows; one that a page only links to is copied here.
    for image in sorted((args.work / "images").glob("*")):
        if image.is_file() and not (args.html / image.name).exists():
            shutil.copyfile(image, args.html / image.name)
    scalable_images(args.html)
    scrolling_tables(args.html)
    pages = {f"{page.stem}.html" for page in (args.work / "pages").glob("*.md")}
    try:
        one_entry_per_page(args.html, pages)
    except TreeError as error:
        print(f"docs: the navigation tree: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
