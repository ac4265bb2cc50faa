"""The last words of the site's checks (check_site.py, site_layout.py, and the test of the figures
quoted from the recorded ladder): one line per problem, then FAILED or OK with a summary."""

import sys


def report(tool, problems, summary):
    """Prints @p problems and the verdict of @p tool; returns the exit status (1 or 0)."""
    for problem in problems:
        print(f"{tool}: {problem}", file=sys.stderr)
    if problems:
        print(f"{tool}: FAILED, {len(problems)} problem(s) ({summary})", file=sys.stderr)
        return 1
    print(f"{tool}: OK ({summary})")
    return 0
