"""The results page: the ladder's table and plot, and what the profiler says, each written by the
scripts that write the README's (scripts/results_table.py, scripts/profile_kernels.py) from the
committed CSV files."""

import importlib
import sys

from .chapters import HOME_NAV, SiteError
from .pages import Page


def load_script(root, name):
    """The module scripts/NAME.py of the repository at @p root (loaded without writing bytecode
    into the source tree: make_pages.py turns that off)."""
    scripts = str(root / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


def results_page(site):
    page = Page("results.md")
    page.add(
        "# Results {#results}", "", HOME_NAV, "",
        "The performance ladder (`scripts/ladder.sh`) runs every chapter's solution and cuBLAS "
        "side by side on one GPU; `scripts/ladder.sh --update-readme` records a run in "
        "`results/ladder.csv` with its plot and the README's results table. This page shows "
        "the table written from that CSV by the same writer as the README's, with the GPU "
        "and the date it was measured on, and the plot committed with it.", "",
        "## Table {#results-table}", "")
    rel, goals_rel = "results/ladder.csv", "results/ladder_goals.csv"
    csvs = [p for p in (rel, goals_rel) if (site.root / p).exists()]
    if rel in csvs:
        writer = load_script(site.root, "results_table")
        try:
            rows = writer.read_rows(site.root / rel)
            goals = writer.read_goals(site.root / goals_rel) if goals_rel in csvs else None
        except writer.TableError as error:
            raise SiteError(str(error)) from error
        page.add(*(text for text, _ in site.transform(rel, writer.render_table(rows, goals)
                                                      .split("\n"))))
    else:
        page.add("No results are recorded yet: the table appears when the ladder has run on a GPU "
                 "and its results are committed.")
    page.add("", "## Plot {#results-plot}", "")
    plot = next((p for p in ("results/ladder.svg", "results/ladder.png")
                 if (site.root / p).exists()), None)
    if plot:
        page.add(f"@image html {site.copy_image(plot)} \"The ladder's results ({plot})\"")
    else:
        page.add("No plot is committed yet: `results/ladder.svg` (or `.png`) appears when the "
                 "ladder has run and its results are committed.")
    if csvs:
        page.add("", "The measurements behind them, one line per run: " +
                 ", ".join(f"`{p}`" for p in csvs) + " in the repository.")
    page.add("", "## What the profiler says {#results-profile}", "")
    profile_section(site, page)
    return page


def profile_section(site, page):
    """The recorded profile (results/profile.csv, scripts/profile.sh --all --update-readme): the
    table the README shows, written by the same writer, and the rooflines committed with it."""
    rel = "results/profile.csv"
    if not (site.root / rel).exists():
        page.add("No profile is recorded yet: `scripts/profile.sh --all --update-readme` records "
                 "one on a GPU.")
        return
    writer = load_script(site.root, "profile_kernels")
    try:
        rows = writer.read_csv(str(site.root / rel))
    except ValueError as error:
        raise SiteError(str(error)) from error
    block = writer.profile_table.render(rows, [], str(site.root / "README.md"))
    page.add("`scripts/profile.sh` runs each chapter's kernels under Nsight Compute with one "
             "fixed set of metrics (the tools page says what each means); "
             "`scripts/profile.sh --all --update-readme` records every chapter's solution in "
             f"`{rel}` with a roofline per problem.", "",
             *(text for text, _ in site.transform(rel, block.strip("\n").split("\n"))))
    for problem in dict.fromkeys(row["problem"] for row in rows):
        image = f"results/roofline_{problem}.svg"
        if (site.root / image).exists():
            page.add("", f"@image html {site.copy_image(image)} \"Roofline, {problem} ({image})\"")
