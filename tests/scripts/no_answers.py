#!/usr/bin/env python3
"""Nothing a student has open gives an exercise's answer away.

An exercise's answer is the code between `// EXERCISE N.M begin` and `// EXERCISE N.M end` in
solutions/NN_slug/kernels.cuh. From each such region this takes the statements a student must write
(comments dropped, spaces ignored): every line, and every expression on the right of an `=` or
after `return`, that has at least MIN_CHARS characters, is more than vocabulary (a pragma, a call
of at most two plain names such as `__syncthreads()`, an element picked by plain names) and
appears nowhere in the student's own chapters/NN_slug/kernels.cuh (so code the student is given is never an answer). None of them may
appear in what the student reads while working: the chapter's README.md and APPENDIX.md, levels 1
and 2 of its HINTS.md (level 3 may be nearly the code), its bug_hunt.cuh, and every file under
tests/. Each leak is reported as FILE:LINE, the exercise and the answer it shows.

    no_answers.py [--root DIR]    exit 0: no leak; 1: leaks (listed); 2: bad command line

Standard library only.
"""

import argparse
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts"))
import hints  # noqa: E402  (scripts/hints.py: the one reader of HINTS.md)

MIN_CHARS = 12  # without spaces: shorter pieces (`i + 1`, `row < m`) are not an answer alone
# Vocabulary a lesson must be free to name, not an answer: a pragma; a call whose arguments are at
# most two plain names (`__syncthreads()`, `accumulator_position(lane, e)`; a third is a choice
# the answer makes) or an element picked by plain names (`acc[i][j][e]`), which hold no formula;
# a counting loop's header (`for (int p = 0; p < k; ++p) {`).
VOCABULARY = re.compile(r"^(#pragma.*|[A-Za-z_][\w:]*(\((\w+(,\w+)?)?\)|(\[\w+\])+)"
                        r"|for\(int(\w+)=0;\6<[\w.]+;\+\+\6\)\{?)$")
REGION = re.compile(r"//\s*EXERCISE\s+(\d+\.\d+)\s+begin(.*?)//\s*EXERCISE\s+\1\s+end", re.S)
READ_SUFFIXES = (".md", ".cu", ".cuh", ".cpp", ".hpp", ".h", ".py", ".txt", ".cmake", ".csv",
                 ".json", ".sh")


def squeeze(text):
    """@p text with every space removed, so that formatting never hides a copy."""
    return re.sub(r"\s+", "", text)


def code_of(line):
    """The code of one line: its `//` comment dropped."""
    return line.split("//", 1)[0].strip()


def pieces(line):
    """The parts of a line of code a copy would show: the statement, the assignment without its
    declaration, and the expression on the right of an assignment or after `return` (without the
    final `;`)."""
    statement = line.rstrip(";").strip()
    found = [statement]
    if statement.startswith("for"):
        return [squeeze(statement)]
    assignment = re.search(r"([\w.\[\]]*)\s*(?<![=!<>+\-*/%&|^])=(?!=)(.+)$", statement)
    if assignment:
        found.append(assignment.group(1) + "=" + assignment.group(2).strip())  # no declaration
        found.append(assignment.group(2).strip())
    returned = re.match(r"return\s+(.+)$", statement)
    if returned:  # what is returned is the answer, not the keyword
        found = [returned.group(1).strip()]
    return [squeeze(piece) for piece in found]


def answers(solution_text, student_text):
    """{exercise id: [answer pieces]} of one chapter."""
    given = squeeze(student_text)
    found = {}
    for match in REGION.finditer(solution_text):
        chosen = []
        for line in match.group(2).splitlines():
            code = code_of(line)
            if not code:
                continue
            for piece in pieces(code):
                if (len(piece) >= MIN_CHARS and not VOCABULARY.match(piece) and piece not in given
                        and piece not in chosen):
                    chosen.append(piece)
        found.setdefault(match.group(1), []).extend(chosen)
    return found


def hint_text_below_level_3(path):
    """HINTS.md's levels 1 and 2 (as scripts/hints.py reads the file), one section after another."""
    sections, _ = hints.parse_hints(Path(path))
    return "\n".join(text for _, levels in sections.values()
                     for level, text in sorted(levels.items()) if level < 3)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def student_reading(root, slug):
    """(path relative to @p root, text) of every file a student of chapter @p slug has open."""
    chapter = os.path.join(root, "chapters", slug)
    for name in ("README.md", "APPENDIX.md", "bug_hunt.cuh"):
        path = os.path.join(chapter, name)
        if os.path.isfile(path):
            yield os.path.relpath(path, root), read(path)
    hints_file = os.path.join(chapter, "HINTS.md")
    if os.path.isfile(hints_file):
        yield os.path.relpath(hints_file, root), hint_text_below_level_3(hints_file)
    for folder, _, files in os.walk(os.path.join(root, "tests")):
        for name in sorted(files):
            if name.endswith(READ_SUFFIXES):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, root), read(path)


def leaks(root):
    """[(file, line, exercise, answer)] over every chapter of @p root."""
    found = []
    solutions = os.path.join(root, "solutions")
    slugs = sorted(name for name in os.listdir(solutions)
                   if os.path.isfile(os.path.join(solutions, name, "kernels.cuh")))
    for slug in slugs:
        student_file = os.path.join(root, "chapters", slug, "kernels.cuh")
        if not os.path.isfile(student_file):
            continue
        exercise_answers = answers(read(os.path.join(solutions, slug, "kernels.cuh")),
                                   read(student_file))
        if not any(exercise_answers.values()):
            continue
        for relative, text in student_reading(root, slug):
            whole = squeeze(text)
            # Where a copy is reported: its line in the file (the text may be a part of it).
            squeezed_lines = [squeeze(line) for line in
                              read(os.path.join(root, relative)).splitlines()]
            for exercise, pieces_of_answer in exercise_answers.items():
                for piece in pieces_of_answer:
                    if piece not in whole:
                        continue
                    line = next((number for number, squeezed in enumerate(squeezed_lines, 1)
                                 if piece in squeezed), 0)
                    if not any(seen[:3] == (relative, line, exercise) for seen in found):
                        found.append((relative, line, exercise, piece))
    return found


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), help="the repository (default: this one)")
    args = parser.parse_args(argv)
    if not os.path.isdir(os.path.join(args.root, "solutions")):
        print(f"error: {args.root} has no solutions/ folder", file=sys.stderr)
        return 2
    found = leaks(args.root)
    for relative, line, exercise, piece in found:
        where = f"{relative}:{line}" if line else f"{relative} (across lines)"
        print(f"{where}: shows the answer of exercise {exercise}: {piece}")
    if found:
        print(f"{len(found)} answer(s) shown where a student reads them")
        return 1
    print("no exercise's answer is shown in a lesson, a hint below level 3, a bug hunt or tests/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
