"""The chapters of a build folder: <build>/course_chapters.tsv, which CMake writes with one line
per chapter it adds (cmake/CourseChapter.cmake): its label (chNN), its slug, the student executable,
the solution executable and the targets that build the student's edition (comma-separated),
tab-separated. Scripts that work on every chapter read it instead of
a list of their own, so a chapter added to CMakeLists.txt reaches them without a change.
Standard library only.
"""

import os
import re

MANIFEST = "course_chapters.tsv"


class ManifestError(Exception):
    """The list is missing or malformed; the message says what to do."""


class Chapter:
    """One chapter of the build."""

    def __init__(self, label, slug, student, solution, targets):
        self.label = label                        # "ch01"
        self.number = int(label[2:])              # 1
        self.slug = slug                          # "global_memory"
        self.title = slug.replace("_", " ")       # "global memory"
        self.student = student                    # the student executable
        self.solution = solution                  # the solution executable
        self.kernels = f"chapters/{label[2:]}_{slug}/kernels.cuh"  # the student's file
        self.targets = targets.split(",")         # what builds the student's edition


def read_chapters(path):
    """The chapters listed in @p path (a build folder or its course_chapters.tsv), in order."""
    if os.path.isdir(path):
        path = os.path.join(path, MANIFEST)
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
