#!/usr/bin/env python3
"""The levelled hints (scripts/hints.py, scripts/hint.sh): the check fails on broken stand-in
chapters and passes on a good one; hint.sh prints levels in turn, remembers them, says when all
are seen, and refuses an unknown exercise or level with one line. The course itself is checked by
the CTest test hints.complete (scripts/hints.py check).
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from support import finish

ROOT = Path(__file__).resolve().parents[2]
HINTS_PY = ROOT / "scripts" / "hints.py"
HINT_SH = ROOT / "scripts" / "hint.sh"

GOOD_HINTS = """# Chapter 9: hints

## Exercise 9.1: the index

### Level 1
Which thread am I?

### Level 2
Blocks before mine, times their size, plus my place in mine.

### Level 3
Close to the code for 9.1.

## Exercise 9.2: the host program

### Level 1
What must exist on the device before the launch?

### Level 2
Allocate, copy in, launch, copy back.

### Level 3
Close to the code for 9.2.
"""
KERNELS = "x\n// EXERCISE 9.1 begin\n// compute the index\n// EXERCISE 9.1 end\n"
PROGRAM = "int main() {\n  // EXERCISE 9.2 begin\n  // EXERCISE 9.2 end\n}\n"

failures = []


def expect(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def make_course(folder, hints=GOOD_HINTS, program=PROGRAM):
    chapter = folder / "chapters" / "09_test"
    chapter.mkdir(parents=True)
    (chapter / "kernels.cuh").write_text(KERNELS)
    (chapter / "first_program.cu").write_text(program)
    if hints is not None:
        (chapter / "HINTS.md").write_text(hints)
    return folder


def run(command, root):
    env = dict(os.environ, COURSE_HINTS_ROOT=str(root),
               COURSE_HINTS_SEEN=str(root / "build" / "hints_seen.txt"))
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def check(root):
    return run([sys.executable, str(HINTS_PY), "check"], root)


def hint(root, *arguments):
    return run(["bash", str(HINT_SH), *arguments], root)


def test_check():
    broken = {
        "a region without a section": GOOD_HINTS.split("## Exercise 9.2")[0],
        "a section without Level 3": GOOD_HINTS.replace(
            "### Level 3\nClose to the code for 9.2.\n", ""),
        "a Level 4": GOOD_HINTS + "\n### Level 4\nToo many.\n",
        "a level twice": GOOD_HINTS.replace("### Level 2\nAllocate", "### Level 1\nAllocate"),
        "an empty level": GOOD_HINTS.replace("Which thread am I?", ""),
        "a section without a region": GOOD_HINTS + "\n## Exercise 9.3: gone\n\n### Level 1\na\n"
                                                   "\n### Level 2\nb\n\n### Level 3\nc\n",
        "a wrong first line": GOOD_HINTS.replace("# Chapter 9: hints", "# Hints"),
        "a heading without a title": GOOD_HINTS.replace("## Exercise 9.1: the index",
                                                        "## Exercise 9.1"),
        "no HINTS.md": None,
    }
    with tempfile.TemporaryDirectory() as folder:
        code, out, _ = check(make_course(Path(folder)))
        expect(code == 0, f"the check passes on a good chapter (exit {code}): {out.strip()}")
    for what, text in broken.items():
        with tempfile.TemporaryDirectory() as folder:
            code, out, _ = check(make_course(Path(folder), hints=text))
            expect(code == 1 and "FAIL" in out, f"the check fails on {what} (exit {code})")
    # A region in another file of the chapter (the first program) needs its section too.
    with tempfile.TemporaryDirectory() as folder:
        root = make_course(Path(folder), program=PROGRAM.replace("9.2", "9.3"))
        code, out, _ = check(root)
        expect(code == 1 and "9.3" in out and "first_program.cu" in out,
               "the check names a region of first_program.cu that has no section")


# hint.sh's answers in turn on the good chapter: (arguments, what the output holds, what it shows).
HINT_STEPS = [
    (("9.1",), ["(hint 1 of 3)", "Which thread am I?"], "hint.sh 9.1 prints level 1 next"),
    (("9.1",), ["(hint 2 of 3)", "Blocks before mine"], "hint.sh 9.1 prints level 2 next"),
    (("9.1",), ["(hint 3 of 3)", "Close to the code for 9.1"], "hint.sh 9.1 prints level 3 next"),
    (("9.1",), ["seen all three hints of exercise 9.1"],
     "hint.sh 9.1 says when all three are seen"),
    (("9.1", "2"), ["(hint 2 of 3)"], "hint.sh 9.1 2 prints level 2 again"),
    (("9.2", "3"), ["Close to the code for 9.2"], "hint.sh 9.2 3 prints level 3"),
    (("9.2",), ["(hint 1 of 3)"], "then hint.sh 9.2 gives level 1"),
    (("9.2",), ["(hint 2 of 3)"], "and then level 2 (3 was seen)"),
]
# Refused with one line on stderr: (arguments, what it says).
HINT_REFUSALS = [
    (("9.7",), "no exercise 9.7"),
    (("8.1",), "no chapter 8"),
    (("9.1", "4"), "LEVEL is 1, 2 or 3"),
    (("nine",), "expected an exercise number N.M"),
    ((), "usage"),
]


def test_hint_sh():
    with tempfile.TemporaryDirectory() as folder:
        root = make_course(Path(folder))
        for arguments, texts, what in HINT_STEPS:
            code, out, err = hint(root, *arguments)
            expect(code == 0 and all(text in out for text in texts) and not err, what)
        expect((root / "build" / "hints_seen.txt").exists(), "what was seen is kept under build/")
        for arguments, message in HINT_REFUSALS:
            code, out, err = hint(root, *arguments)
            lines = err.strip().splitlines()
            expect(code != 0 and not out and len(lines) == 1 and lines[0].startswith("error: ")
                   and message in err,
                   f"hint.sh {' '.join(arguments)} is refused with one line: {err.strip()}")
    with tempfile.TemporaryDirectory() as folder:
        root = make_course(Path(folder), hints=None)
        code, out, err = hint(root, "9.1")
        expect(code != 0 and "HINTS.md does not exist" in err,
               "hint.sh names a chapter's missing HINTS.md")


def main():
    test_check()
    test_hint_sh()
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
