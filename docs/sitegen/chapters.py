"""The chapters as the site sees them, and the error that a broken source file raises."""

import re

from .markdown import HEADING, strip_markdown

CHAPTER_DIR = re.compile(r"^(\d\d)_([a-z0-9_]+)$")


class SiteError(Exception):
    """A problem in a source file that would make a broken page."""


def read_lines(root, rel):
    """The lines of the repository file @p rel."""
    try:
        return (root / rel).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise SiteError(f"{rel}: cannot be read ({error.strerror})") from error


class Chapter:
    """One chapter: its number, key (chNN), files and title (its lesson's first heading)."""

    def __init__(self, root, dirname):
        match = CHAPTER_DIR.match(dirname)
        if not match:
            raise SiteError(f"chapters/{dirname}: not a chapter directory name (NN_slug)")
        self.number = int(match.group(1))
        self.key = f"ch{match.group(1)}"
        self.dirname = dirname
        self.lesson = f"chapters/{dirname}/README.md"
        self.launch = f"chapters/{dirname}/launch.cuh"
        self.student_kernels = f"chapters/{dirname}/kernels.cuh"
        self.solution_kernels = f"solutions/{dirname}/kernels.cuh"
        self.driver = f"chapters/{dirname}/main.cu"
        # The answer key (the Predict questions' answers, the bug hunts' explanations): in the
        # full edition only, beside the solution.
        self.answers = f"solutions/{dirname}/ANSWERS.md"
        if not (root / self.lesson).exists():
            raise SiteError(f"{self.lesson}: the chapter has no lesson")
        headings = (HEADING.match(text) for text in read_lines(root, self.lesson))
        self.title = next((strip_markdown(h.group(2)) for h in headings
                           if h and len(h.group(1)) == 1), f"Chapter {self.number}")
        # The files beside the lesson that get pages of their own, in both editions (hints are
        # no solution): (repository path, page label).
        self.companions = [(f"chapters/{dirname}/{name}.md", f"{self.key}_{suffix}")
                           for name, suffix in (("APPENDIX", "appendix"), ("HINTS", "hints"))
                           if (root / f"chapters/{dirname}/{name}.md").exists()]

    def answer_key(self, root, edition):
        """The answer key's (repository path, page label) in @p edition, or None."""
        if edition == "full" and (root / self.answers).exists():
            return self.answers, f"{self.key}_answers"
        return None

    def kernels(self, edition):
        """The kernels this edition documents and diffs: the solution's or the student's."""
        return self.solution_kernels if edition == "full" else self.student_kernels

    def back_nav(self):
        """The navigation of a page that belongs to this chapter."""
        return nav_box([f'@ref {self.key} "&larr; Back to {self.title}"',
                        '@ref index "Course map"'])


def nav_box(items):
    """One line of navigation links (Doxygen commands inside a styled block)."""
    return '<div class="course-nav">' + " ".join(items) + "</div>"


HOME_NAV = nav_box(['@ref index "&larr; Course map"'])
