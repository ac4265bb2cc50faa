#!/usr/bin/env python3
"""Tests of scripts/ladder.sh and scripts/plot_ladder.py fed the committed sample CSV.

  plot STEM      the plot, drawn by the Python that scripts/ladder.sh would choose (find_python of
                 scripts/python.sh; a skip when no Python has matplotlib): a PNG and an SVG
  from-csv WORK  scripts/ladder.sh on a copy of the repository's README, results/ and scripts, in
                 the scratch folder WORK, through --from-csv:
                 - by default it writes the CSV files and the table under the copy's build folder,
                   prints the table laid out for the terminal with the goals, and changes no file
                   outside the build folder (the README and results/ stay as they are);
                 - with --update-readme it copies the CSV files into results/ and regenerates the
                   README's table between its markers, nothing else; a second run changes nothing;
                 - a ladder option with --from-csv is refused, and so is a path option without
                   its value.
Prints "SKIPPED: ..." (a CTest skip) or "FAIL: ..." with exit status 1.
"""
import hashlib
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT, SAMPLE = HERE.parent.parent, HERE / "sample_ladder.csv"
sys.path.insert(0, str(HERE.parent / "reliability"))
from harness import fail, run, shown, skip  # noqa: E402


def plot(stem):
    found = run(["bash", "-c", '. "$1/python.sh" && find_python matplotlib', "find",
                 str(ROOT / "scripts")], 60)[1].strip()
    if not found:
        skip("no python with matplotlib (install python3-matplotlib)")
    print(f"plotting with {found}")
    png, svg = Path(f"{stem}.png"), Path(f"{stem}.svg")
    for path in (png, svg):
        path.unlink(missing_ok=True)
    code = run([found, str(ROOT / "scripts" / "plot_ladder.py"), str(SAMPLE), stem], None,
               capture=False)[0]
    if code != 0:
        fail(f"plot_ladder.py exited with status {code}")
    for path in (png, svg):
        if not path.exists():
            fail(f"{path} was not written")
        if path.stat().st_size == 0:
            fail(f"{path} is empty")
    if png.read_bytes()[:4] != b"\x89PNG":
        fail(f"{png} is not a PNG file (starts with {png.read_bytes()[:4].hex()})")
    if "<svg" not in svg.read_text(errors="replace")[:4096]:
        fail(f"{svg} is not an SVG file")
    print(f"plot written: {png}, {svg}")


def from_csv(work):
    tree = Path(work) / "tree"
    shutil.rmtree(work, ignore_errors=True)
    (tree / "scripts").mkdir(parents=True)
    for script in ("ladder.sh", "python.sh", "update_results_table.py", "results_table.py",
                   "readme_block.py", "plot_ladder.py"):
        shutil.copy(ROOT / "scripts" / script, tree / "scripts")
    shutil.copy(ROOT / "README.md", tree)
    shutil.copytree(ROOT / "results", tree / "results")

    def snapshot():
        """The files outside the build folder and their contents' sha256."""
        return {str(path.relative_to(tree)): hashlib.sha256(path.read_bytes()).hexdigest()
                for path in sorted(tree.rglob("*")) if path.is_file() and not
                str(path.relative_to(tree)).startswith("build/") and "__pycache__" not in str(path)}

    def ladder_sh(*arguments):
        code, out, err = run(["bash", str(tree / "scripts" / "ladder.sh")] + list(arguments), 300)
        print(f"ladder.sh {shown(arguments)}:\n{out}{err}")
        if "no Python 3 found" in err:
            skip("no Python 3 to write the table with")
        if code != 0:
            fail(f"ladder.sh {shown(arguments)} exited with status {code}")
        return out

    # 1. The default: everything under build/results/, printed, nothing else touched; the build
    #    folder holds the ladder executable, build/ladder, as it does after a build.
    (tree / "build").mkdir()
    (tree / "build" / "ladder").write_text("#!/bin/sh\nexit 3\n")
    before, readme_before = snapshot(), (tree / "README.md").read_text()
    printed = ladder_sh("--from-csv", str(SAMPLE), "--no-plot")
    for line in ("Measured on Example GPU on 2025-01-15", "\n  4096  4\\.60  9\\.40 \\(2\\.04x\\)",
                 "\n  met +matmul 4096: chapter 2 at least 1\\.5x chapter 1 +2\\.04x"):
        if not re.search(line, printed):
            fail(f'the table was not printed: no line matches "{line}"')
    for name in ("ladder.csv", "ladder_goals.csv", "ladder.md"):
        if not (tree / "build" / "results" / name).exists():
            fail(f"build/results/{name} was not written")
    table = (tree / "build" / "results" / "ladder.md").read_text()
    if "| matmul | 4096 |" not in table:
        fail(f"build/results/ladder.md holds no table:\n{table}")
    changed = sorted({path for path, _ in set(before.items()) ^ set(snapshot().items())})
    if changed:
        fail(f"the default run changed files outside the build folder: {', '.join(changed)}")

    # 2. --update-readme: results/ and the README's table, nothing else.
    readme, said = [], []
    for _ in range(2):
        said.append(ladder_sh("--from-csv", str(SAMPLE), "--update-readme", "--no-plot"))
        readme.append((tree / "README.md").read_text())
    if not re.search(r"Measured on \*\*Example GPU\*\* on 2025-01-15", readme[0]):
        fail("--update-readme did not put the table into the README")
    for marker in ("<!-- ladder:begin -->", "<!-- ladder:end -->"):
        if marker not in readme_before or marker not in readme[0]:
            fail(f"the README lacks the marker {marker}")
    block = re.compile("<!-- ladder:begin -->.*<!-- ladder:end -->", re.S)
    if block.sub("", readme_before) != block.sub("", readme[0]):
        fail("--update-readme changed the README outside the markers")
    if SAMPLE.read_bytes() != (tree / "results" / "ladder.csv").read_bytes():
        fail("--update-readme did not record the CSV in results/ladder.csv")
    if readme[0] != readme[1] or "already up to date" not in said[1]:
        fail("a second --update-readme on the same CSV changed the README")
    for path, digest in snapshot().items():
        if not re.match(r"README\.md|results/", path) and before.get(path) != digest:
            fail(f"--update-readme changed {path}")

    # 3. A ladder option with --from-csv, which runs nothing, is refused with one line.
    code, _, err = run(["bash", str(tree / "scripts" / "ladder.sh"), "--from-csv", str(SAMPLE),
                        "--quick"], 300)
    if code != 1 or err != "error: --from-csv runs nothing, so --quick cannot go with it\n":
        fail(f"--from-csv with --quick: status {code}, said: {err}")
    # 4. A path option without its value is refused with one line and status 2 (not a loop).
    for flag, what in (("--build-dir", "a folder"), ("--results", "a folder"),
                       ("--readme", "a file"), ("--from-csv", "a file")):
        code, _, err = run(["bash", str(tree / "scripts" / "ladder.sh"), flag], 30)
        if code != 2 or err != f"error: {flag} needs {what}\n":
            fail(f"{flag} without a value: status {code}, said: {err}")
    print("the default run left the tree as it was; --update-readme wrote results/ and the README; "
          "--from-csv refused a ladder option; a path option without its value was refused")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("plot", "from-csv"):
        sys.exit(f"usage: {sys.argv[0]} plot STEM | from-csv WORK_DIR")
    (plot if sys.argv[1] == "plot" else from_csv)(sys.argv[2])
