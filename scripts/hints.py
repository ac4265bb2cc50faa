#!/usr/bin/env python3
"""Levelled hints of the exercises (chapters/NN_slug/HINTS.md).

    hints.py show N.M [LEVEL]   one level of exercise N.M's hints; without LEVEL the first one not
                                seen yet (scripts/hint.sh calls this)
    hints.py check              every exercise region of every chapter has its HINTS.md section
                                with Levels 1, 2 and 3, and every section its region

HINTS.md, exactly: a first line '# Chapter N: hints', then per exercise a section
'## Exercise N.M: <short title>' holding '### Level 1', '### Level 2' and '### Level 3' in this
order, each followed by its text.
What was seen is remembered in build/hints_seen.txt (the build folder is not part of the checkout).
--root and --seen (or COURSE_HINTS_ROOT and COURSE_HINTS_SEEN) point elsewhere, for the tests.
"""
import argparse
import os
import re
import sys
from pathlib import Path

REGION = re.compile(r"^\s*// EXERCISE (\d+\.\d+) begin\b", re.MULTILINE)
LEVELS = (1, 2, 3)


def exercise_order(exercise):
    """Sort key of an id "N.M": 4.10 after 4.9."""
    return tuple(int(part) for part in exercise.split("."))


class HintError(Exception):
    """A one-line message for the student or the maintainer."""


def chapter_folders(root):
    chapters = root / "chapters"
    if not chapters.is_dir():
        raise HintError(f"no chapters/ folder under {root}")
    return sorted(p for p in chapters.iterdir() if p.is_dir() and re.match(r"\d\d_", p.name))


def regions(folder):
    """Exercise ids with a region in any source file of @p folder: {id: first file}."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in {".cu", ".cuh", ".h", ".hpp", ".cpp", ".c"}:
            for match in REGION.finditer(path.read_text(errors="replace")):
                found.setdefault(match.group(1), path.relative_to(folder.parent.parent))
    return found


def parse_hints(path):
    """(sections, problems): sections maps an exercise id to (title, {level: text}); problems
    lists what breaks the format, each as 'file:line: what'."""
    sections, problems = {}, []
    lines = path.read_text().splitlines()
    expected_title = f"# Chapter {int(path.parent.name[:2])}: hints"
    if not lines or lines[0].strip() != expected_title:
        problems.append(f"{path}:1: the first line must be '{expected_title}'")
    current, level = None, None
    for index, line in enumerate(lines, start=1):
        where = f"{path}:{index}"
        if line.startswith("## "):
            heading = re.fullmatch(r"Exercise (\d+\.\d+): (\S.*)", line[3:].strip())
            if not heading:
                problems.append(f"{where}: expected '## Exercise N.M: <short title>'")
                current, level = None, None
                continue
            current, level = heading.group(1), None
            if current in sections:
                problems.append(f"{where}: exercise {current} has a second section")
            sections[current] = (heading.group(2), {})
        elif line.startswith("### "):
            heading = re.fullmatch(r"Level (\d+)", line[4:].strip())
            if current is None:
                problems.append(f"{where}: a level outside an '## Exercise N.M' section")
                continue
            if not heading or int(heading.group(1)) not in LEVELS:
                problems.append(f"{where}: expected '### Level 1', '### Level 2' or '### Level 3'")
                level = None
                continue
            level = int(heading.group(1))
            levels = sections[current][1]
            if level in levels:
                problems.append(f"{where}: exercise {current} has a second Level {level}")
            elif level != len(levels) + 1:
                problems.append(f"{where}: exercise {current}: Level {level} out of order")
            levels[level] = []
        elif current is not None and level is not None:
            sections[current][1][level].append(line)
    for exercise, (title, levels) in sections.items():
        problems += [f"{path}: exercise {exercise} has no Level {n}" for n in LEVELS
                     if n not in levels]
        texts = {n: "\n".join(body).strip() for n, body in levels.items()}
        problems += [f"{path}: exercise {exercise}: Level {n} is empty" for n, text in texts.items()
                     if not text]
        sections[exercise] = (title, texts)
    return sections, problems


def check(root):
    """Every problem with the hints of every chapter, one line each."""
    problems = []
    for folder in chapter_folders(root):
        ids = regions(folder)
        hints = folder / "HINTS.md"
        where = hints.relative_to(root)
        if not hints.exists():
            problems.append(f"{where}: missing (every chapter has one; regions: "
                            f"{', '.join(sorted(ids, key=exercise_order)) or 'none'})")
            continue
        sections, format_problems = parse_hints(hints)
        problems += [p.replace(str(root) + os.sep, "") for p in format_problems]
        problems += [f"{where}: no '## Exercise {exercise}' section for the region in {source}"
                     for exercise, source in sorted(ids.items(), key=lambda i: exercise_order(i[0]))
                     if exercise not in sections]
        problems += [f"{where}: exercise {exercise} has no region in {folder.relative_to(root)}"
                     for exercise in sorted(sections, key=exercise_order) if exercise not in ids]
    return problems


def read_seen(seen_file):
    """The (exercise, level) pairs of @p seen_file, one 'N.M LEVEL' a line."""
    lines = seen_file.read_text().splitlines() if seen_file.exists() else []
    return {(parts[0], int(parts[1])) for parts in map(str.split, lines)
            if len(parts) == 2 and parts[1].isdigit()}


def show(root, seen_file, exercise, level_text):
    if not re.fullmatch(r"\d+\.\d+", exercise):
        raise HintError(f"expected an exercise number N.M such as 2.1, got \"{exercise}\"")
    if level_text not in (None, "1", "2", "3"):
        raise HintError(f"LEVEL is 1, 2 or 3, got \"{level_text}\"")
    chapter = int(exercise.split(".")[0])
    folders = [f for f in chapter_folders(root) if f.name.startswith(f"{chapter:02d}_")]
    if not folders:
        raise HintError(f"no exercise {exercise}: there is no chapter {chapter}")
    hints = folders[0] / "HINTS.md"
    if not hints.exists():
        raise HintError(f"no exercise {exercise}: {hints.relative_to(root)} does not exist")
    sections, _ = parse_hints(hints)
    if exercise not in sections:
        known = ", ".join(sorted(sections, key=exercise_order)) or "none"
        raise HintError(f"no exercise {exercise} in {hints.relative_to(root)} (it has {known})")
    title, levels = sections[exercise]
    seen = read_seen(seen_file)
    unseen = [n for n in LEVELS if (exercise, n) not in seen]
    if level_text is None and not unseen:
        print(f"You have seen all three hints of exercise {exercise} ({title}); "
              f"scripts/hint.sh {exercise} LEVEL prints one of them again.")
        return
    level = int(level_text) if level_text else unseen[0]
    if not levels.get(level):
        raise HintError(f"exercise {exercise} has no Level {level} in {hints.relative_to(root)}")
    seen.add((exercise, level))
    seen_file.parent.mkdir(parents=True, exist_ok=True)
    seen_file.write_text("".join(f"{e} {n}\n" for e, n in sorted(seen)))
    print(f"Exercise {exercise}: {title} (hint {level} of 3)\n\n{levels[level]}\n")
    unseen = [n for n in LEVELS if (exercise, n) not in seen]
    if unseen:
        print(f"Next: scripts/hint.sh {exercise} (level {unseen[0]})")
    else:
        print(f"That was the last hint of exercise {exercise} you had not seen.")


def main(argv):
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description="Levelled hints of the exercises.")
    parser.add_argument("--root", type=Path,
                        default=Path(os.environ.get("COURSE_HINTS_ROOT") or here))
    parser.add_argument("--seen", type=Path, default=None)
    commands = parser.add_subparsers(dest="command", required=True)
    show_parser = commands.add_parser("show")
    show_parser.add_argument("exercise")
    show_parser.add_argument("level", nargs="?")
    commands.add_parser("check")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    seen_file = args.seen or Path(os.environ.get("COURSE_HINTS_SEEN") or
                                  root / "build" / "hints_seen.txt")
    try:
        if args.command == "show":
            show(root, seen_file, args.exercise, args.level)
            return 0
        problems = check(root)
    except HintError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"FAIL: {len(problems)} problems with the hints")
        return 1
    print("every exercise region has its hints, Levels 1 to 3")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
