"""The results page: the ladder's table and plot, and what the profiler says, as the README shows
them (its generated blocks, which scripts/update_results_table.py and scripts/profile_kernels.py
write from the committed CSV files, and which the README's tests keep up to date)."""

from .chapters import HOME_NAV, SiteError
from .pages import Page


def readme_block(site, name):
    """The lines of the README between `<!-- NAME:begin -->` and `<!-- NAME:end -->`; [] when the
    README has no such block."""
    lines = (site.root / "README.md").read_text(encoding="utf-8").split("\n")
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in lines:
        return []
    if end not in lines[lines.index(begin):]:
        raise SiteError(f"README.md: {begin} without {end}")
    return lines[lines.index(begin) + 1:lines.index(end, lines.index(begin))]


def results_page(site):
    page = Page("results.md")
    page.add(
        "# Results {#results}", "", HOME_NAV, "",
        "The performance ladder (`scripts/ladder.sh`) runs every chapter's solution and cuBLAS "
        "side by side on one GPU; `scripts/ladder.sh --update-readme` records a run in "
        "`results/ladder.csv` with its plot and the README's results table. This page shows "
        "that table, with the GPU and the date it was measured on, and the plot committed with "
        "it.", "",
        "## Table {#results-table}", "")
    ladder = readme_block(site, "ladder")
    if ladder:
        page.add(*(text for text, _ in site.transform("README.md", ladder)))
    else:
        page.add("No results are recorded yet: the table appears when the ladder has run on a GPU "
                 "and its results are committed.", "", "No plot is committed yet.")
    csvs = [p for p in ("results/ladder.csv", "results/ladder_goals.csv")
            if (site.root / p).exists()]
    if csvs:
        page.add("", "The measurements behind them, one line per run: " +
                 ", ".join(f"`{p}`" for p in csvs) + " in the repository.")
    page.add("", "## What the profiler says {#results-profile}", "")
    profile = readme_block(site, "profile")
    if not profile:
        page.add("No profile is recorded yet: `scripts/profile.sh --all --update-readme` records "
                 "one on a GPU.")
        return page
    page.add("`scripts/profile.sh` runs each chapter's kernels under Nsight Compute with one "
             "fixed set of metrics (the tools page says what each means); "
             "`scripts/profile.sh --all --update-readme` records every chapter's solution in "
             "`results/profile.jsonl` with a roofline per problem.", "",
             *(text for text, _ in site.transform("README.md", profile)))
    return page
