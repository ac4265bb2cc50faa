"""The chapters of a build folder: <build>/course_chapters.tsv, which CMake writes with one line
per chapter it adds (cmake/CourseChapter.cmake), tab-separated: its label (chNN), its slug, the
student executable, the solution executable and the targets that build the student's edition
(comma-separated). Scripts that work on every chapter read it instead of a list of their own, so a
chapter added to CMakeLists.txt reaches them without a change. Standard library only.
"""

import os
import re


class ManifestError(Exception):
    """The list is missing or malformed; the message says what to do."""


class Chapter:
    """One chapter of the build, e.g. label "ch01", number 1, slug "global_memory", title
    "global memory", kernels (the student's file) "chapters/01_global_memory/kernels.cuh"."""

    def __init__(self, label, slug, student, solution, targets):
        self.label = label
        self.number = int(label[2:])
        self.slug = slug
        self.title = slug.replace("_", " ")
        self.student = student  # the executables
        self.solution = solution
        self.kernels = f"chapters/{label[2:]}_{slug}/kernels.cuh"
        self.targets = targets.split(",")


def read_chapters(path):
    """The chapters listed in @p path (a build folder or its course_chapters.tsv), in order."""
    if os.path.isdir(path):
        path = os.path.join(path, "course_chapters.tsv")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = [line.rstrip("\n") for line in handle if line.strip()]
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror}: configure and build the course first") \
            from error
    chapters = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if len(fields) != 5 or not re.fullmatch(r"ch\d\d", fields[0]):
            raise ManifestError(f"{path}:{number}: not a chapter line ({line!r}): configure the "
                                "build folder again")
        chapters.append(Chapter(*fields))
    if not chapters:
        raise ManifestError(f"{path}: no chapters")
    return sorted(chapters, key=lambda c: c.number)
