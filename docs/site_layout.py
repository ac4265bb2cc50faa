#!/usr/bin/env python3
"""Looks at a built edition of the course site in a real browser (headless Chromium): takes
screenshots of pages at given window widths, or checks the layout of every page written in
Markdown at those widths.

  site_layout.py shots HTML_DIR --out DIR [--widths 1400,800] [--height 900] [--pages index,ch05]
  site_layout.py check HTML_DIR [--widths 1400,800] [--height 900] [--pages ...] [--skip-if-missing]

shots writes DIR/PAGE_WIDTH.png (the top of the page: the window's height; a larger --height
shows more). check fails (status 1, one line per problem) when, at some width, the text of a page
scrolls sideways (an element wider than the window that does not scroll inside itself: a table
not wrapped in its scrolling block, an image wider than the text), when the navigation tree is
still shown below 1000 px or missing from 1000 px on, or when the text is left less than 85% of a
narrow window. The browser is $CHROMIUM, else the first of chromium, chromium-browser,
google-chrome on the PATH (Debian/Ubuntu: apt-get install chromium). With --skip-if-missing, a
site that was not built or a machine without Chromium is "SKIPPED: ..." (for CTest).
Only the Python standard library is used.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
# pylint: disable=wrong-import-position
from verdict import report  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NARROW = 1000  # below this width the navigation tree collapses (course.css)
# The pages written in Markdown (check_site.py's MARKDOWN_PAGE), and the diff pages.
PAGE = re.compile(r"^(?:ch\d\d(?:_[a-z]+)?|index|tools|instructors|results|api|answers)\.html$")
DEFAULT_SHOTS = ("index", "ch05", "results")

# Runs in a page that holds the site's page in an <iframe> of the width asked for; opening each
# page in turn, it measures what the checks need and writes the results as JSON into
# <pre id="course-probe"> for --dump-dom.
PROBE = r"""
var pages = %(pages)s, results = {}, next = 0;
var frame = document.getElementById("course-frame");
function scrolls(element, win) {
  for (var e = element.parentElement; e; e = e.parentElement) {
    var overflow = win.getComputedStyle(e).overflowX;
    if (e.id === "doc-content") return false;
    if (overflow === "auto" || overflow === "scroll" || overflow === "hidden") return true;
  }
  return false;
}
function describe(element) {
  var text = element.tagName.toLowerCase();
  if (element.className && typeof element.className === "string")
    text += "." + element.className.trim().split(/\s+/).join(".");
  return text;
}
function measure(doc, win) {
  var content = doc.getElementById("doc-content") || doc.body;
  var side = doc.getElementById("side-nav");
  var text = doc.querySelector("div.contents") || content;
  var right = content.getBoundingClientRect().left + content.clientWidth;
  var wide = [];
  var elements = text.getElementsByTagName("*");
  for (var i = 0; i < elements.length && wide.length < 3; ++i) {
    var box = elements[i].getBoundingClientRect();
    if (box.width > 0 && box.right > right + 1 && !scrolls(elements[i], win)) {
      wide.push(describe(elements[i]) + " (" + Math.round(box.right - right) + " px)");
      i += elements[i].getElementsByTagName("*").length;  // not its descendants too
    }
  }
  return {
    width: win.innerWidth,
    overflow: content.scrollWidth - content.clientWidth,
    page_overflow: doc.documentElement.scrollWidth - win.innerWidth,
    tree: !!side && win.getComputedStyle(side).display !== "none" &&
          side.getBoundingClientRect().width > 0,
    text_width: Math.round(text.getBoundingClientRect().width),
    wide: wide
  };
}
function open() {
  if (next >= pages.length) {
    document.getElementById("course-probe").textContent = JSON.stringify(results);
    return;
  }
  var name = pages[next++];
  frame.onload = function () {
    setTimeout(function () {
      try { results[name] = measure(frame.contentDocument, frame.contentWindow); }
      catch (error) { results[name] = {error: String(error)}; }
      open();
    }, 400);
  };
  frame.src = %(base)s + name;
}
open();
"""
DRIVER = """<!DOCTYPE html>
<html><head><meta charset="utf-8"/><style>body { margin: 0; }</style></head><body>
<iframe id="course-frame" style="border: 0; display: block; width: %(width)dpx; height: %(height)dpx">
</iframe>
<pre id="course-probe" style="display: none"></pre>
<script src="probe.js"></script>
</body></html>
"""
RESULT = re.compile(r'<pre id="course-probe"[^>]*>(.*?)</pre>', re.DOTALL)


class LayoutError(Exception):
    """A browser that did not answer, or a page that is not there."""


class Missing(LayoutError):
    """No site or no browser: what --skip-if-missing skips."""


def find_browser():
    given = os.environ.get("CHROMIUM")
    if given:
        found = shutil.which(given)
        if not found:
            raise Missing(f"CHROMIUM={given}: no such program")
        return found
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise Missing("no Chromium found (Debian/Ubuntu: apt-get install chromium; or set CHROMIUM "
                  "to the browser's path)")


def browser_command(browser, width, height):
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--disable-extensions", "--no-first-run", f"--window-size={width},{height}"]


def run_browser(command, timeout):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise LayoutError(f"{Path(command[0]).name} did not finish within {timeout} s") from None
    except OSError as error:
        raise LayoutError(f"{command[0]}: {error.strerror}") from None


def shots(browser, html_dir, out_dir, pages, widths, height):
    """Screenshots of @p pages at each width: the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages:
        for width in widths:
            target = out_dir / f"{page}_{width}.png"
            target.unlink(missing_ok=True)
            run_browser(browser_command(browser, width, height) + [
                "--virtual-time-budget=4000", f"--screenshot={target}",
                (html_dir / f"{page}.html").resolve().as_uri()], 120)
            if not target.is_file():
                raise LayoutError(f"no screenshot of {page}.html at {width} px was written")
            written.append(target)
    return written


def measure(browser, html_dir, pages, width, height):
    """The measurements of @p pages at @p width: {page: {...}}."""
    with tempfile.TemporaryDirectory(prefix="course-layout-") as tmp:
        driver = Path(tmp)
        (driver / "probe.js").write_text(PROBE % {
            "pages": json.dumps(pages), "base": json.dumps(html_dir.resolve().as_uri() + "/")},
            encoding="utf-8")
        (driver / "driver.html").write_text(DRIVER % {"width": width, "height": height},
                                            encoding="utf-8")
        result = run_browser(browser_command(browser, width + 40, height + 40) + [
            "--allow-file-access-from-files", f"--virtual-time-budget={3000 * len(pages)}",
            "--dump-dom", (driver / "driver.html").as_uri()], 60 + 10 * len(pages))
    found = RESULT.search(result.stdout)
    if not found or not found.group(1).strip():
        raise LayoutError(f"the browser measured no page at {width} px (status "
                          f"{result.returncode})")
    return json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">").replace("&quot;", '"'))


def problems_at(width, results):
    problems = []
    for page, seen in sorted(results.items()):
        where = f"{page} at {width} px"
        if "error" in seen:
            problems.append(f"{where}: could not be measured ({seen['error']})")
            continue
        if seen["overflow"] > 1 or seen["page_overflow"] > 1:
            culprits = ", ".join(seen["wide"]) or "an element of the page"
            problems.append(f"{where}: the text scrolls sideways by "
                            f"{max(seen['overflow'], seen['page_overflow'])} px: {culprits} is "
                            "wider than the window and does not scroll on its own")
        if width < NARROW and seen["tree"]:
            problems.append(f"{where}: the navigation tree is still shown (it collapses below "
                            f"{NARROW} px: the @media rule of course.css)")
        if width >= NARROW and not seen["tree"]:
            problems.append(f"{where}: no navigation tree")
        if width < NARROW and seen["text_width"] < 0.85 * width:
            problems.append(f"{where}: the text is {seen['text_width']} px wide, less than 85% "
                            "of the window")
    return problems


def site_pages(html_dir, wanted):
    if wanted:
        missing = [p for p in wanted if not (html_dir / f"{p}.html").is_file()]
        if missing:
            raise LayoutError(f"no such page in {html_dir}: " +
                              ", ".join(f"{p}.html" for p in missing))
        return [f"{p}.html" for p in wanted]
    return sorted(p.name for p in html_dir.glob("*.html") if PAGE.match(p.name))


def number_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of "
                                         "widths in px") from None
    if not values or any(v < 200 or v > 5000 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': widths between 200 and 5000 px")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("shots", "check"))
    parser.add_argument("html", type=Path, help="the edition's HTML directory")
    parser.add_argument("--out", type=Path, help="shots: the directory of the screenshots")
    parser.add_argument("--widths", type=number_list, default=[1400, 800])
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--pages", default="",
                        help="comma-separated page names (index,ch05); shots: index,ch05,results, "
                             "check: every page written in Markdown")
    parser.add_argument("--skip-if-missing", action="store_true")
    args = parser.parse_args()
    if not 200 <= args.height <= 20000:
        parser.error("--height: between 200 and 20000 px")
    if args.command == "shots" and not args.out:
        parser.error("shots needs --out DIR")

    try:
        if not (args.html / "index.html").is_file():
            raise Missing(f"{args.html}/index.html: missing: the site was not built")
        browser = find_browser()
        wanted = [p for p in args.pages.split(",") if p]
        if args.command == "shots":
            for path in shots(browser, args.html, args.out, wanted or list(DEFAULT_SHOTS),
                              args.widths, args.height):
                print(path)
            return 0
        pages = site_pages(args.html, wanted)
        problems = []
        for width in args.widths:
            problems += problems_at(width, measure(browser, args.html, pages, width,
                                                   args.height))
    except LayoutError as error:
        if args.skip_if_missing and isinstance(error, Missing):
            print(f"SKIPPED: {error}")
            return 0
        print(f"site_layout: {error}", file=sys.stderr)
        return 1
    return report("site_layout", problems,
                  f"{len(pages)} pages at {', '.join(f'{w} px' for w in args.widths)}")


if __name__ == "__main__":
    sys.exit(main())
