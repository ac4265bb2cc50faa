#!/usr/bin/env python3
"""Where a student stands (scripts/progress.sh builds the student editions, runs this and
documents the exit status). The chapters are those of the build folder's course_chapters.tsv; the
exercises those each student executable lists (`--exercises`). Each chapter's real checks run on
the student's kernels: its executable once per problem at small awkward sizes (PASS, or FAIL with
the number of wrong elements), then its tests (COURSE_CHECK=chNN ctest -L chNN). An exercise is
done when every check of the problems it computes passes; not done when the executable finds every
checked element of its problem wrong (the state in which it is shipped); failing otherwise, with
the first check that failed. Exercises that compute the same problem share its checks and status.
Without a CUDA device it says so and lists the exercises. Standard library only.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import course_chapters

EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE, EXIT_NO_DEVICE, EXIT_ERROR = 0, 1, 2, 3, 4

# Small sizes that are multiples of nothing, so that every bounds check is exercised; the mask is
# each chapter's default (13 x 13), which every chapter takes.
EXECUTABLE_ARGS = ["-m", "67", "-n", "45", "-k", "33", "--height", "37", "--width", "29",
                   "--taps", "7", "--warmup", "0", "--reps", "1", "--no-compare"]
CHECK_LINE = re.compile(r"^\s+check\s+((PASS|FAIL): (\d+)(?: sampled)? elements compared, "
                        r"(\d+) mismatching, (\d+) NaN.*)$", re.MULTILINE)
PROBLEMS = ("matmul", "minplus", "conv2d", "conv1d")
EXECUTABLE_TIMEOUT = 300

DONE, NOT_DONE, FAILING, NOT_CHECKED = "done", "not done", "failing", "not checked"
NOT_COMPILING = "not checked: the chapter does not compile"


class ProgressError(Exception):
    """The build folder or an executable cannot be used; the message says what to do."""


class TimedOut(ProgressError):
    """A command did not finish in its time."""


class NoDevice(Exception):
    """An executable found no CUDA device; the message is its own."""


class Exercise:
    def __init__(self, identifier, task):
        self.id, self.task = identifier, task
        self.problems, self.status, self.detail = [], NOT_CHECKED, ""


def run(command, timeout, env=None):
    """(exit status, stdout, stderr); a missing executable or a timeout is a ProgressError."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
    except FileNotFoundError as error:
        raise ProgressError(f"{command[0]} not found: build the student editions first "
                            "(scripts/progress.sh does)") from error
    except subprocess.TimeoutExpired as error:
        raise TimedOut(f"{' '.join(command)} did not finish in {timeout} s") from error
    return done.returncode, done.stdout, done.stderr


def first_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0].strip() if lines else ""


def read_exercises(chapter, required=True):
    """Fills chapter.exercises from the executable's --exercises. With @p required False (a chapter
    that does not compile now, whose executable may be missing or older), leaves it empty when the
    executable cannot say."""
    chapter.exercises = []
    try:
        status, out, err = run([chapter.student, "--exercises"], 60)
        if status != 0:
            raise ProgressError(f"{chapter.student} --exercises failed (exit {status}): "
                                f"{first_line(err) or first_line(out)}")
    except ProgressError:
        if required:
            raise
        return
    by_id = {}  # in table order
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) != 3:
            raise ProgressError(f"{chapter.student} --exercises: not an exercise line: {line!r}")
        identifier, problem, task = fields
        exercise = by_id.setdefault(identifier, Exercise(identifier, task))
        if problem not in exercise.problems:
            exercise.problems.append(problem)
    chapter.exercises = list(by_id.values())


def check_with_executable(chapter, problem):
    """Runs the chapter's executable on @p problem: (whether it found every checked element wrong,
    [failed checks]). Raises NoDevice when there is no CUDA device."""
    command = f"{os.path.basename(chapter.student)} --problem {problem}"
    try:
        status, out, err = run([chapter.student, "--problem", problem] + EXECUTABLE_ARGS,
                               EXECUTABLE_TIMEOUT)
    except TimedOut:
        return False, [f"{command} did not finish in {EXECUTABLE_TIMEOUT} s at small sizes (a "
                       "loop that never ends?)"]
    if status == EXIT_NO_DEVICE:
        raise NoDevice(first_line(err) or "no CUDA device")
    match = CHECK_LINE.search(out)
    if status == 0 and match and match.group(2) == "PASS":
        return False, []
    if match and match.group(2) == "FAIL":
        compared, mismatching = int(match.group(3)), int(match.group(4))
        return (compared > 0 and mismatching == compared,
                [f"{command} at small sizes: {match.group(1)}"])
    error = next((line for line in err.splitlines() if line.startswith("error:")), "")
    return False, [f"{command}: exit {status}{': ' + error if error else ''}"]


def problems_of_test(name, offered):
    """The problems a test checks, from its name ("... conv2d matches ...", "... products ...");
    every problem of the chapter when the name names none."""
    words = set(re.findall(r"[a-z0-9]+", name.lower()))
    named = [p for p in offered if p in words]
    if words & {"product", "products"}:
        named += [p for p in ("matmul", "minplus") if p in offered and p not in named]
    return named or list(offered)


def failure_text(name, output):
    """The test's name and the messages of its first failed assertion (Catch2's report), on one
    line: the sizes and seed the test was at, and the check's verdict."""
    expression, messages, collecting = "", [], False
    lines = output.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if "FAILED:" in line), len(lines))
    for line in lines[start:]:
        if "FAILED:" in line or line.startswith(("====", "----")):
            break
        if re.search(r"with messages?:|exception with message", line):
            collecting = True
        elif line.startswith("  ") and line.strip():
            if collecting:
                messages.append(line.strip())
            elif not expression:
                expression = line.strip()
        elif collecting and messages:
            break
    test = name.split(":", 1)[-1].strip()
    detail = messages or ([expression] if expression else ["failed"])
    return f"{test}: {'; '.join(detail)}"


def check_with_tests(chapter, build_dir, offered):
    """Runs the chapter's tests on the student's kernels; returns {problem: [failed checks]}."""
    failures = {p: [] for p in offered}
    with tempfile.TemporaryDirectory() as folder:
        junit = os.path.join(folder, "tests.xml")
        env = dict(os.environ, COURSE_CHECK=chapter.label)
        # The executable's own test (chNN_slug.run) is left out: check_with_executable ran it.
        status, out, err = run(["ctest", "--test-dir", build_dir, "-L", f"^{chapter.label}$",
                                "-E", r"\.run$", "--timeout", "600", "--output-junit", junit],
                               1800, env)
        if not os.path.exists(junit):
            raise ProgressError(f"ctest -L {chapter.label} wrote no results (exit {status}): "
                                f"{first_line(err) or first_line(out)}")
        try:
            cases = ElementTree.parse(junit).getroot().iter("testcase")
        except ElementTree.ParseError as error:
            raise ProgressError(f"ctest -L {chapter.label}: unreadable results: {error}") from error
        for case in cases:
            if case.get("status") != "fail" and case.find("failure") is None:
                continue
            name = case.get("name", "")
            output = case.findtext("system-out") or ""
            for problem in problems_of_test(name, offered):
                failures[problem].append(failure_text(name, output))
    return failures


def check_chapter(chapter, build_dir):
    """Runs the chapter's checks and judges its exercises (NoDevice without a CUDA device)."""
    offered = sorted(dict.fromkeys(p for e in chapter.exercises for p in e.problems),
                     key=lambda p: PROBLEMS.index(p) if p in PROBLEMS else len(PROBLEMS))
    checks = {p: check_with_executable(chapter, p) for p in offered}
    for problem, failed in check_with_tests(chapter, build_dir, offered).items():
        checks[problem][1].extend(failed)
    for exercise in chapter.exercises:
        found = [checks[p] for p in exercise.problems]
        failures = [failure for _, failed in found for failure in failed]
        if any(all_wrong for all_wrong, _ in found):
            exercise.status = NOT_DONE
        elif failures:
            exercise.status, exercise.detail = FAILING, failures[0]
        else:
            exercise.status = DONE


def print_chapter(chapter, with_status):
    print(f"chapter {chapter.number}: {chapter.title} ({chapter.kernels})"
          + (": does not compile (the compiler's first errors are above)"
             if chapter.not_built else ""))
    if not chapter.exercises:
        print("  its exercises cannot be listed until it compiles" if chapter.not_built
              else "  no exercises")
    rows = [[e.id, ", ".join(e.problems), e.task] for e in chapter.exercises]
    widths = [max((len(row[column]) for row in rows), default=0) for column in range(3)]
    for exercise, row in zip(chapter.exercises, rows):
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths)]
        line = "  " + "  ".join(cells)
        if with_status:
            line += f"  {exercise.status}"
        print(line.rstrip())
        if with_status and exercise.detail:
            print(f"  {'':<{widths[0]}}  first failing check: {exercise.detail}")
    print()


def wanted_chapters(chapters, texts):
    """The chapters named by @p texts (ch01 or 1); a ValueError names one that is not there."""
    wanted = set()
    for text in texts:
        match = re.fullmatch(r"(?:ch)?0?(\d{1,2})", text)
        if not match:
            raise ValueError(f"{text!r} is not a chapter (ch01 or 1)")
        wanted.add(int(match.group(1)))
    unknown = wanted - {c.number for c in chapters}
    if unknown:
        raise ValueError(f"no chapter {', '.join(map(str, sorted(unknown)))} in this build "
                         f"(it has {', '.join(str(c.number) for c in chapters)})")
    return [c for c in chapters if c.number in wanted]


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check every exercise of every chapter on your kernels and print where you "
                    "stand.")
    parser.add_argument("--build-dir", default="build", help="the configured and built folder")
    parser.add_argument("--not-built", action="append", default=[], metavar="chNN",
                        help="a chapter whose kernels do not compile: not checked")
    parser.add_argument("chapters", nargs="*", metavar="chNN",
                        help="only these chapters (ch01 or 1); all by default")
    args = parser.parse_args(argv)
    try:
        chapters = course_chapters.read_chapters(args.build_dir)
        if args.chapters:
            try:
                chapters = wanted_chapters(chapters, args.chapters)
            except ValueError as error:
                print(f"error: {error}", file=sys.stderr)
                return EXIT_USAGE
        for chapter in chapters:
            chapter.not_built = chapter.label in args.not_built
            read_exercises(chapter, required=not chapter.not_built)
            if chapter.not_built:
                for exercise in chapter.exercises:
                    exercise.status = NOT_COMPILING
        try:
            for chapter in chapters:
                if not chapter.not_built:
                    check_chapter(chapter, args.build_dir)
            checked = True
            print("Your exercises, checked on this GPU by each chapter's executable and tests:")
        except NoDevice as no_device:
            checked = False
            print("No CUDA device here: checking your kernels needs an NVIDIA GPU "
                  f"(the executable says: {no_device}). Your exercises:")
        print()
        for chapter in chapters:
            print_chapter(chapter, with_status=checked)
        if not checked:
            return EXIT_NO_DEVICE
        exercises = [e for c in chapters for e in c.exercises]
        counts = {s: sum(e.status == s for e in exercises) for s in (DONE, FAILING, NOT_DONE)}
        summary = (f"{counts[DONE]} of {len(exercises)} exercises done, {counts[FAILING]} "
                   f"failing, {counts[NOT_DONE]} not done")
        broken = [str(c.number) for c in chapters if c.not_built]
        if broken:
            summary += f"; chapter {', '.join(broken)} does not compile"
        print(summary + ".")
        if counts[DONE] < len(exercises) or broken:
            print(f"A chapter's checks in full: COURSE_CHECK=chNN ctest --test-dir "
                  f"{args.build_dir} -L chNN --output-on-failure")
            return EXIT_NOT_DONE
        return EXIT_DONE
    except (ProgressError, course_chapters.ManifestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
