#!/usr/bin/env python3
"""Writes the Markdown pages that Doxygen turns into the course's HTML site, at build time, from
the repository's own files:
  index.md             the README as the main page (links to chapters become links to their pages)
  chNN.md              each chapter's lesson, with previous / next navigation; its figures
                       (`![caption](figures/NAME.svg)`, committed SVGs) are copied into the site
  chNN_appendix.md     the chapter's APPENDIX.md, where there is one
  chNN_hints.md        the chapter's HINTS.md, in both editions (hints are not solutions)
  chNN_changes.md      what changed since the previous chapter: kernels, launchers and driver
  chNN_solution.md     (full edition only) the exercises solved: the student's kernels against
                       the solution's
  results.md           the ladder's results table, the profile and the committed plots, written
                       from results/*.csv by the writers of the README's
  api.md               a guide to the API reference
  <name>.md            every page in docs/pages/ (tools, instructors)
Links between repository files lead to their pages (docs/sitegen/links.py). The full edition
documents and diffs solutions/, the student edition chapters/ (no solution code at all).
linemap.json says which source line each generated line came from, so that run_doxygen.py can
report Doxygen's warnings against the files people edit. Only the Python standard library is used.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
# pylint: disable=wrong-import-position
from sitegen.chapters import Chapter, SiteError  # noqa: E402
from sitegen.links import Site  # noqa: E402
from sitegen.pages import api_page, chapter_pages, docs_pages, main_page  # noqa: E402
from sitegen.results import results_page  # noqa: E402


def generate(root, out_dir, edition, chapter_dirs):
    chapters = sorted((Chapter(root, name) for name in chapter_dirs), key=lambda c: c.number)
    for generated in ("pages", "include", "images"):
        shutil.rmtree(out_dir / generated, ignore_errors=True)
        (out_dir / generated).mkdir(parents=True)
    site = Site(root, edition, chapters, out_dir)
    pages = [page for index in range(len(chapters)) for page in chapter_pages(site, index)]
    extra_pages = docs_pages(site)
    order = {"tools": 0, "instructors": 1}
    names = sorted((p.name[:-3] for p in extra_pages), key=lambda n: (order.get(n, 2), n))
    pages += extra_pages + [results_page(site), api_page(site)]
    pages.insert(0, main_page(site, names + ["results", "api"]))

    linemap = {}
    for page in pages:
        page.write(out_dir / "pages", linemap)
    (out_dir / "linemap.json").write_text(json.dumps(linemap), encoding="utf-8")
    if site.errors:
        raise SiteError("\n".join(site.errors))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, type=Path, help="the repository's root")
    parser.add_argument("--out", required=True, type=Path, help="directory to (re)create")
    parser.add_argument("--edition", choices=("full", "student"), required=True)
    parser.add_argument("--chapters", default="",
                        help="comma-separated chapter directories (NN_slug) to put on the site")
    args = parser.parse_args()
    try:
        generate(args.source.resolve(), args.out, args.edition,
                 [c for c in args.chapters.split(",") if c])
    except SiteError as error:
        for line in str(error).split("\n"):
            print(f"error: {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
