#!/usr/bin/env python3
"""Grades students' checkouts (scripts/grade.sh calls this; its header is the usage): each
checkout is configured and built in a build folder of its own, chapter by chapter, and judged by
scripts/progress.py's engine with this repository's copy of it (not the checkout's), against the
solution executables of this repository's build (--solutions), so that nothing in a checkout
decides its own grade. Prints one table per student and writes one CSV line per exercise:
student, chapter, exercise, status (done, failing, not done, unconfirmed, needs a GPU, or not
checked when the chapter does not compile), stars, share (of the solution's rate) and reason (the
first failed or unmeasured criterion). Standard library only.
"""

import argparse
import contextlib
import csv
import io
import os
import re
import subprocess
import sys

import progress

CSV_COLUMNS = ["student", "chapter", "exercise", "status", "stars", "share", "reason"]
EXIT_OK, EXIT_USAGE, EXIT_ERROR = 0, 2, 4
BUILD_TIMEOUT = 3600


class GradeError(Exception):
    """Stops with one line and an exit status."""

    def __init__(self, message, status=EXIT_ERROR):
        super().__init__(message)
        self.status = status


def student_names(checkouts):
    """A name per checkout: its folder's name, numbered where two are alike."""
    names, seen = [], {}
    for checkout in checkouts:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(os.path.abspath(checkout)))
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return names


def build(checkout, build_dir, log):
    """Configures @p checkout in @p build_dir and builds each chapter's student targets; returns
    the labels of the chapters that do not compile."""
    command = ["cmake", "-S", checkout, "-B", build_dir, "-G", "Ninja",
               "-DCMAKE_BUILD_TYPE=Release", "-DCOURSE_BUILD_TESTS=ON"]
    done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False,
                          timeout=BUILD_TIMEOUT)
    if done.returncode != 0:
        raise GradeError(f"configuring {checkout} failed (see {log.name})")
    try:
        entries = progress.course_description.read_manifest(build_dir)
    except progress.course_description.DescriptionError as error:
        raise GradeError(f"{checkout} lists no chapters once configured ({error}): is it a "
                         "checkout of this version of the course?") from error
    not_built = []
    for entry in entries:
        chapter = progress.Chapter(entry)
        done = subprocess.run(["cmake", "--build", build_dir, "--target"] + chapter.targets,
                              stdout=log, stderr=subprocess.STDOUT, check=False,
                              timeout=BUILD_TIMEOUT)
        if done.returncode != 0:
            not_built.append(chapter.label)
    return not_built


def reason(exercise):
    """The first failed criterion, else the first not measured, else nothing."""
    lines = progress.verdict_lines(exercise.verdicts)
    for wanted in (progress.FAILS, progress.NOT_MEASURED):
        found = [line for _, state, line in lines if state == wanted]
        if found:
            return found[0]
    return exercise.status if exercise.status.startswith("not checked") else ""


def grade(name, build_dir, solutions, ladder, not_built):
    """The CSV rows of one student's exercises, judged in @p build_dir."""
    chapters = progress.load_chapters(build_dir, not_built=not_built, solutions=solutions)
    with contextlib.redirect_stdout(io.StringIO()):
        progress.judge_all(chapters, build_dir, ladder=ladder)
    rows = []
    for chapter in chapters:
        for exercise in chapter.exercises:
            rate = exercise.grade()
            rows.append({"student": name, "chapter": chapter.number, "exercise": exercise.id,
                         "status": exercise.status,
                         "stars": "*" * rate["stars"] if rate else "",
                         "share": f"{rate['share']:.2f}" if rate else "",
                         "share_text": rate["share_text"] if rate else "",
                         "reason": reason(exercise)})
        if chapter.not_built:
            rows.append({"student": name, "chapter": chapter.number, "exercise": "",
                         "status": progress.NOT_COMPILING, "stars": "", "share": "",
                         "reason": "the chapter does not compile"})
    return rows


def print_table(name, rows):
    counts = {s: sum(r["status"] == s for r in rows if r["exercise"])
              for s in (progress.DONE, progress.FAILING, progress.NOT_DONE)}
    total = sum(1 for r in rows if r["exercise"])
    print(f"{name}: {counts[progress.DONE]} of {total} exercises done, "
          f"{counts[progress.FAILING]} failing, {counts[progress.NOT_DONE]} not done")
    widths = {c: max([len(c)] + [len(str(r[c])) for r in rows])
              for c in ("exercise", "status", "stars")}
    for row in rows:
        share = row.get("share_text", "")
        print(f"  {row['exercise'] or '-':<{widths['exercise']}}  "
              f"{row['status']:<{widths['status']}}  {row['stars'] or '-':<3} {share:>4}  "
              f"{row['reason']}".rstrip())
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Grade students' checkouts of the course.")
    parser.add_argument("checkouts", nargs="+", metavar="CHECKOUT")
    parser.add_argument("--build-root", default=os.path.join(progress.ROOT, "build", "grading"),
                        help="where each checkout's build folder goes (ROOT/NAME)")
    parser.add_argument("--no-build", action="store_true",
                        help="judge the build folders as they are")
    parser.add_argument("--solutions", default=os.path.join(progress.ROOT, "build"),
                        help="the build whose solution executables to compare with")
    parser.add_argument("--ladder", default=progress.LADDER)
    parser.add_argument("--csv", metavar="FILE", help="also write the grades to FILE")
    args = parser.parse_args(argv)
    try:
        for checkout in args.checkouts:
            if not os.path.isdir(checkout):
                raise GradeError(f"{checkout} is not a folder (a student's checkout)", EXIT_USAGE)
        solutions = args.solutions if os.path.exists(
            os.path.join(args.solutions, progress.course_description.MANIFEST)) else None
        if not solutions:
            print(f"No solutions built in {args.solutions}: rates are compared with the ones "
                  f"recorded in {os.path.relpath(args.ladder, progress.ROOT)}.\n")
        everyone = []
        for checkout, name in zip(args.checkouts, student_names(args.checkouts)):
            build_dir = os.path.join(os.path.abspath(args.build_root), name)
            not_built = []
            if not args.no_build:
                os.makedirs(build_dir, exist_ok=True)
                print(f"==> building {name} in {build_dir}", file=sys.stderr)
            try:
                if not args.no_build:
                    with open(os.path.join(build_dir, "grade.log"), "w",
                              encoding="utf-8") as log:
                        not_built = build(os.path.abspath(checkout), build_dir, log)
                rows = grade(name, build_dir, solutions, args.ladder, not_built)
            except (GradeError, progress.ProgressError) as error:
                # One checkout that cannot be judged does not stop the others.
                rows = [{"student": name, "chapter": "", "exercise": "", "status": "not checked",
                         "stars": "", "share": "", "reason": str(error)}]
            print_table(name, rows)
            everyone += rows
        if args.csv:
            with open(args.csv, "w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(everyone)
            print(f"grades written to {args.csv}")
        return EXIT_OK
    except GradeError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.status
    except (OSError, subprocess.SubprocessError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
