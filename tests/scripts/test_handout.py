#!/usr/bin/env python3
"""Tests of scripts/handout.sh, the students' hand-out.

On a small repository made here, with answer keys planted inside and outside solutions/: the
hand-out holds the commit's files (not what is uncommitted) without solutions/, any ANSWERS.md or
the instructors' page, and its README without the instructors' passages; badly marked passages, a
destination in use and a missing one are refused with one line. Then on this repository's own
commit (HEAD): the same exclusions, a README whose links all lead to files of the hand-out, and a
build there: configured with tests/ (no solution executable, test or ladder), without tests/ and
with COURSE_BUILD_TESTS=OFF, and chapter 2's student executable built (it compiles the student's
own chapter 1 for the comparison) and asked for --help.

    python3 tests/scripts/test_handout.py [--cmake CMAKE] [--generator G] [--define NAME=VALUE]...
        [--work DIR]
    --define: a cache entry for configuring the hand-out, e.g. the build's CUDA compiler;
    --work: the scratch folder (emptied first; default a new temporary one): the same one each
    time lets a compiler cache serve the next run. Exit 0 when every case holds; KEEP_WORK=1
    keeps the scratch folder.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from support import ROOT, finish

HANDOUT = os.path.join(ROOT, "scripts", "handout.sh")
README = """# A course

Students read this.

<!-- instructors:begin -->
## For instructors

Run ./build/ch01_x_solution and read [the page](docs/pages/instructors.md).
<!-- instructors:end -->

## Layout

Students read this too.
"""
FILES = {
    "README.md": README,
    "chapters/01_x/kernels.cuh": "// your kernels\n",
    "chapters/01_x/ANSWERS.md": "# A stray answer key\n",
    "solutions/01_x/kernels.cuh": "// the answers\n",
    "solutions/01_x/ANSWERS.md": "# The answer key\n",
    "docs/pages/instructors.md": "# For instructors\n",
    "docs/pages/tools.md": "# Tools\n",
}
GIT_IDENTITY = ["-c", "user.name=Course", "-c", "user.email=course@example.com"]

failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def run(command, cwd=None, timeout=600):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)
    return done.returncode, done.stdout + done.stderr


def files_under(folder):
    return {os.path.relpath(os.path.join(path, name), folder)
            for path, _, names in os.walk(folder) for name in names}


def make_repository(folder):
    for path, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(folder, path)), exist_ok=True)
        with open(os.path.join(folder, path), "w", encoding="utf-8") as handle:
            handle.write(text)
    os.makedirs(os.path.join(folder, "scripts"))
    shutil.copy(HANDOUT, os.path.join(folder, "scripts", "handout.sh"))
    run(["git", "init", "-q", folder])
    run(["git", "-C", folder, "add", "."])
    code, out = run(["git", *GIT_IDENTITY, "-C", folder, "commit", "-q", "-m", "course"])
    if code != 0:
        raise RuntimeError(f"git commit failed: {out}")
    # Not committed: must stay out of the hand-out.
    with open(os.path.join(folder, "chapters/01_x/untracked.txt"), "w", encoding="utf-8") as f:
        f.write("not committed\n")
    with open(os.path.join(folder, "README.md"), "a", encoding="utf-8") as f:
        f.write("An edit not committed.\n")


def write_handout(script, dest):
    """Runs @p script (a handout.sh) into @p dest; whether it succeeded, with no answers left."""
    code, out = run([script, dest])
    check(code == 0, f"a hand-out is written to {os.path.basename(dest)} (exit {code}): "
                     f"{out.strip()}")
    if code != 0:
        return False
    check(answers_left(dest) == [], f"no answers in the hand-out: {answers_left(dest)}")
    return True


def answers_left(folder):
    """What of the answers reached @p folder."""
    found = [path for path in files_under(folder)
             if path.startswith("solutions" + os.sep) or os.path.basename(path) == "ANSWERS.md"
             or path == os.path.join("docs", "pages", "instructors.md")]
    return sorted(found)


def small_repository(work):
    repo = os.path.join(work, "repo")
    make_repository(repo)
    script = os.path.join(repo, "scripts", "handout.sh")
    dest = os.path.join(work, "small-handout")
    if not write_handout(script, dest):
        return
    kept = files_under(dest)
    check({"chapters/01_x/kernels.cuh", "docs/pages/tools.md", "README.md"} <= kept,
          f"the students' files are there: {sorted(kept)}")
    check("chapters/01_x/untracked.txt" not in kept, "an untracked file stays out")
    with open(os.path.join(dest, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    check("instructors" not in readme and "_solution" not in readme,
          f"the README's instructors' passage is gone:\n{readme}")
    check("Students read this.\n\n## Layout\n\nStudents read this too.\n" in readme,
          f"the rest of the README is kept, one blank line between:\n{readme}")
    check("not committed" not in readme, "the README as committed")

    code, out = run([script, dest])
    check(code == 1 and out.startswith("error: ") and out.count("\n") == 1,
          f"a destination in use is refused in one line (exit {code}): {out.strip()}")
    code, out = run([script])
    check(code == 2 and out.count("\n") == 1, f"no destination: exit 2 and one line ({code})")

    with open(os.path.join(repo, "README.md"), "w", encoding="utf-8") as handle:
        handle.write(README.replace("<!-- instructors:end -->\n", ""))
    run(["git", *GIT_IDENTITY, "-C", repo, "commit", "-q", "-am", "unbalanced"])
    dest = os.path.join(work, "unbalanced-handout")
    code, out = run([script, dest])
    check(code == 1 and "instructors:begin without an end" in out,
          f"a README with a passage that does not end is refused (exit {code}): {out.strip()}")
    check(os.path.isdir(dest) and not os.listdir(dest),
          f"and nothing is left in the destination: {sorted(files_under(dest))}")


def readme_links(readme):
    """The relative links and images of @p readme (Markdown text), without their anchors."""
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    return [t.split("#")[0] for t in targets if t.split("#")[0] and ":" not in t]


def configure(args, source, build, *options):
    command = [args.cmake, "-S", source, "-B", build, "-G", args.generator,
               "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CUDA_ARCHITECTURES=90",
               "-DCOURSE_BUILD_DOCS=OFF", *[f"-D{entry}" for entry in args.define], *options]
    return run(command)


def this_repository(args, work):
    code, _ = run(["git", "-C", ROOT, "rev-parse", "--verify", "HEAD"])
    if code != 0 or not os.path.isdir(os.path.join(ROOT, "solutions")):
        print("SKIPPED: this is not the instructors' git checkout (no commit or no solutions/)")
        return
    dest = os.path.join(work, "handout")
    if not write_handout(HANDOUT, dest):
        return
    with open(os.path.join(dest, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    for unwanted in ("_solution", "instructors:", "ctest --preset solutions", "-L solutions"):
        check(unwanted not in readme, f"the hand-out's README does not mention {unwanted!r}")
    dead = [link for link in readme_links(readme) if not os.path.exists(os.path.join(dest, link))]
    check(readme_links(readme) and not dead, f"every link of its README leads somewhere: {dead}")

    build = os.path.join(work, "build-tests")
    code, out = configure(args, dest, build)
    check(code == 0, "it configures with its tests" + ("" if code == 0 else f":\n{out}"))
    check("The performance ladder is left out" in out, "saying in one line that the ladder is out")
    if code == 0:
        ctest = os.path.join(os.path.dirname(args.cmake), "ctest") if os.sep in args.cmake \
            else "ctest"
        _, listed = run([ctest, "--test-dir", build, "-N"])
        check("ch02_static_shared_tile.run" in listed and "_solution" not in listed,
              "its tests are the students' only")
        for target in ("ch02_static_shared_tile_solution", "ladder"):
            code, _ = run([args.cmake, "--build", build, "--target", target])
            check(code != 0, f"it has no target {target}")
    code, out = configure(args, dest, os.path.join(work, "build-no-tests"),
                          "-DCOURSE_BUILD_TESTS=OFF")
    check(code == 0, "it configures with COURSE_BUILD_TESTS=OFF" + ("" if code == 0 else out))

    shutil.rmtree(os.path.join(dest, "tests"))
    build = os.path.join(work, "build-without-tests")
    code, out = configure(args, dest, build)
    check(code == 0 and "No tests/ folder" in out, "it configures without tests/ at all" +
          ("" if code == 0 else f":\n{out}"))
    if code != 0:
        return
    code, out = run([args.cmake, "--build", build, "--target", "ch02_static_shared_tile"])
    check(code == 0, "chapter 2's student executable builds" + ("" if code == 0 else f":\n{out}"))
    with open(os.path.join(build, "build.ninja" if args.generator == "Ninja" else "Makefile"),
              encoding="utf-8", errors="replace") as handle:
        check("COURSE_PREVIOUS_FROM_SOLUTIONS" not in handle.read(),
              "comparing with the student's own previous chapter")
    if code == 0:
        code, out = run([os.path.join(build, "ch02_static_shared_tile"), "--help"])
        check(code == 0 and "usage:" in out, f"and runs (--help, exit {code})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--generator", default="Ninja")
    parser.add_argument("--define", action="append", default=[])
    parser.add_argument("--work", default="")
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("SKIPPED: no git here")
        return 0
    work = args.work or tempfile.mkdtemp(prefix="handout-test-")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        small_repository(work)
        this_repository(args, work)
    finally:
        if os.environ.get("KEEP_WORK"):
            print(f"scratch kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
