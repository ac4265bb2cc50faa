"""The student's kernels judged by their chapter's own instruments under CTest: one test per check
of the chapter's description (`--describe`, "checks"), named <target>.check.<id>, each running that
one criterion through scripts/progress.py's engine. They run when COURSE_CHECK names the chapter
(chNN or all) and report SKIPPED otherwise, as the student's other tests do; SKIPPED too when the
criterion cannot be measured here (no cuobjdump, compute-sanitizer or ncu, the counters locked, no
CUDA device for a criterion that needs one). spills and sass read the executable's code with
cuobjdump and need no GPU (labels cpu;chNN); the others run kernels (labels gpu;chNN)."""
import json
import os
import re
import sys

from harness import HERE, fail, run, skip, skip_unless_asked

CPU_TOOLS = ("spills", "sass")  # read the executable's code; the others run it on a GPU


def listed(target, exe, command, add):
    """Adds, through @p add(name, command, labels, timeout, **properties), one test per check
    that @p exe (the student's edition of chapter chNN, @p target chNN_slug) describes, each
    running @p command + ["--chapter=chNN", "--id=ID"]; one test that says why when @p exe is not
    built or describes no check."""
    found = re.match(r"(ch\d\d)_", target)
    label = found.group(1) if found else "student"
    command = command + [f"--chapter={label}"]
    checks = []
    if os.path.exists(exe):
        code, out, _ = run([exe, "--describe"], 60, hide_device=True)
        try:
            checks = [c for c in json.loads(out)["checks"]
                      if re.fullmatch(r"[A-Za-z0-9._-]+", c.get("id", ""))] if code == 0 else []
        except (ValueError, KeyError, TypeError, AttributeError):
            checks = []
    if not checks:
        name = "NOT_BUILT" if not os.path.exists(exe) else "description"
        add(f"{target}.check.{name}", command, ["cpu", label], 600)
        return
    for check in checks:
        tool = check.get("tool")
        # The counters, one process at a time; a rate, undisturbed by other tests.
        properties = {"RUN_SERIAL": "TRUE"} if tool in ("ncu", "rate") else {}
        add(f"{target}.check.{check['id']}", command + [f"--id={check['id']}"],
            ["cpu" if tool in CPU_TOOLS else "gpu", label],
            600 if tool in CPU_TOOLS else 3600 if properties else 1800, **properties)


def criterion(args):
    """One check of the student's chapter (--id) on EXE, judged as scripts/progress.sh judges it:
    PASS when it holds for every exercise it concerns; FAIL with the criterion's line and its hint;
    SKIPPED unless COURSE_CHECK names the chapter, or where it cannot be measured here."""
    exe, build, identifier = args.executable, args.build_dir, args.id
    skip_unless_asked(args.chapter)
    sys.path.insert(0, str(HERE.parent.parent / "scripts"))
    import course_description  # pylint: disable=import-outside-toplevel  (scripts/)
    import progress  # pylint: disable=import-outside-toplevel  (the engine of progress.sh)
    for variable, path in (("COMPUTE_SANITIZER", args.sanitizer), ("NCU", args.ncu),
                           ("CUOBJDUMP", args.cuobjdump)):
        # The tools CMake found (else progress.py looks for them), unless told otherwise.
        if path and os.path.exists(path) and variable not in os.environ:
            os.environ[variable] = path
    if not os.path.exists(exe):
        fail(f"{exe} is not built: cmake --build {build} --target {os.path.basename(exe)}")
    try:
        entries = [e for e in course_description.read_manifest(build)
                   if e.get("label") == args.chapter]
        if not entries:
            fail(f"{build}: no chapter {args.chapter} in its course_chapters.json")
        chapter = progress.Chapter(dict(entries[0], student=exe))
        chapter.read()
    except (course_description.DescriptionError, progress.ProgressError) as error:
        fail(str(error))
    checks = [c for c in chapter.description.get("checks", []) if isinstance(c, dict)]
    check = next((c for c in checks if identifier and c.get("id") == identifier), None)
    if check is None:
        fail(f"{os.path.basename(exe)} describes no check {identifier!r}" if identifier else
             f"{os.path.basename(exe)} describes no checks")
    problems = set(check.get("problems", []))
    chapter.exercises = [e for e in chapter.exercises if problems & set(e.problems)]
    on_gpu = check.get("tool") not in CPU_TOOLS
    try:
        gpu = progress.judge_chapter(chapter, build, {identifier}, gpu=on_gpu)
    except progress.ProgressError as error:
        fail(str(error))
    report(progress, identifier, chapter.exercises, on_gpu and not gpu)


def report(progress, identifier, exercises, no_device):
    """The verdict of criterion @p identifier over @p exercises (@p progress's Exercise objects,
    judged), as a CTest test reports it."""
    verdicts = list({id(v): v for e in exercises for v in e.verdicts
                     if v.name == identifier}.values())
    states = {v.state for v in verdicts}
    lines = [line for _, _, line in progress.verdict_lines(
        [v for v in verdicts if v.state == progress.FAILS])]
    if no_device or progress.NEEDS_GPU in states:
        skip(f"{identifier} needs a CUDA device, and none is visible here")
    if lines:
        fail(lines[-1], "\n".join(lines[:-1]))
    not_done = [e for e in exercises if e.status == progress.NOT_DONE]
    if not_done:
        value = next((v for e in not_done for v in e.verdicts
                      if v.name == "value" and v.state == progress.FAILS), None)
        fail(f"{identifier}: not judged: exercise{'s' * (len(not_done) > 1)} "
             f"{', '.join(e.id for e in not_done)} not done"
             + (f" ({value.detail})" if value else "")
             + f" -- {progress.exercise_hint(not_done[0])}")
    for verdict in verdicts:
        if verdict.state == progress.HOLDS:
            print(verdict.line())
    unmeasured = [v for v in verdicts if v.state == progress.NOT_MEASURED]
    if unmeasured:
        skip(unmeasured[0].line())
    if not verdicts:
        fail(f"{identifier} judged none of the chapter's exercises (its problems have none)")
    print(f"PASS: {identifier} holds for exercise{'s' * (len(exercises) > 1)} "
          f"{', '.join(e.id for e in exercises)}")
