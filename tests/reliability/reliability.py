#!/usr/bin/env python3
"""The reliability checks of a chapter executable EXE, one command per kind of check.

  run EXE --edition=E --chapter=chNN -- ARGS   EXE ARGS exits with status 0 (3, no CUDA device: a
                     skip); a student's edition runs only when COURSE_CHECK names its chapter (chNN
                     or all), since it fails by design until the exercises are done
  bad-input EXE      every row of bad_input_table.txt that applies to EXE (its --describe tells), and
                     every option it describes given values it does not offer, is
                     refused: exit status 2, nothing on stdout, one "error: " line naming the flag
                     and the value (--expect-violations: EXE accepts anything, every row must fail)
  no-device EXE      with no visible CUDA device: one line on stderr and exit status 3
  cases EXE --mode edge|refuse|grid|boundary|large   sizes that must PASS or be refused
  sanitize EXE --tool memcheck|racecheck|synccheck|initcheck   the tool finds nothing
  wrong-result EXE   a wrong result reports FAIL and no figures, nor a speedup over one
  bughunt EXE --bug NAME --tool TOOL   a planted bug is caught by its tool
  criterion EXE --chapter=chNN --id=ID --build-dir=BUILD   the check ID of the student's chapter
                     (EXE --describe, "checks") on EXE's kernels, by scripts/progress.py's engine;
                     on request only, as `run` (student_checks.py)
  tests EXE          the CMake code adding EXE's tests, which CTest reads each time it runs, so that
                     planted bugs and checks (`EXE --describe`) and large_cases.txt need no
                     reconfiguring
  no-spills SOURCE --pattern=P --nvcc=NVCC   SOURCE compiled for sm_90: every function whose mangled
                     name matches P has a 0-byte stack frame and no spills (ptxas's resource report)
A check prints "SKIPPED: ..." (a CTest skip) where there is no CUDA device, no tool, or not enough
memory for a case, and "FAIL: ..." with exit status 1 when it fails. --dry-run (bad-input, cases,
sanitize) prints the command lines the check would run and runs none.
"""
import argparse
import functools
import json
import os
import re
import sys
import time
from pathlib import Path

from harness import (CRASH, HERE, PROBLEMS, QUICK, SANITIZER_TOOLS, TOO_SMALL, error_line, fail,
                     offered, read_offer, report_failures, run, shown, skip, skip_unless_asked,
                     skip_unless_offered, table)
from kernel_checks import bughunt, no_spills, sanitize, wrong_result
import student_checks

# The driver's memory refusal: "<what> needs 457763.7 MiB (... bytes) of device memory, but the
# device has only 80000.0 MiB free of 81559.0 MiB".
SIZE = r"[0-9][0-9.]* ?[KMGT]?i?B"
MEMORY_REFUSAL = f"needs {SIZE}.*{SIZE} free"


def bad_input(args):
    exe, found = args.executable, read_offer(args.executable)
    sides, taps = found.mask_sides, sorted(found.tap_counts)

    def first_missing(candidates, present):
        return next((str(value) for value in candidates if value not in present), "")

    # The placeholders, filled in from the description ("": a row that uses it does not apply).
    values = {
        "MASK_UNOFFERED": first_missing(range(1, found.mask_max + 1, 2), sides) if sides else "",
        "MASK_NONSQUARE": f"{sides[0]}x{sides[1]}" if len(sides) > 1 else "",
        "MASK_OVER": str(found.mask_max + 2),
        "TAPS_OVER": str((taps[-1] if taps else found.max_taps) + 1),
        "TAPS_UNOFFERED": first_missing(range(1, taps[-1] + 1), taps) if taps else "",
        "TAPS_LARGEST": str(taps[-1]) if taps else "",
        "N_PAST_INT_MAX": str(2147483649 - taps[-1]) if taps else ""}  # n + taps - 1 = 2^31
    features = {"all": True, "mask-compiled": sides, "taps-compiled": taps,
                "max-taps": found.max_taps > 0}
    # Each of the chapter's options: values it does not offer (a width it lacks, words in the
    # wrong case), an empty value, no value; an option with a free value: the last two only.
    option_rows = []
    for option in found.options:
        offered_values = option["values"]
        unoffered = [first_missing([24, 48, 12, 64, 8, 4, 2, 1], [
            int(v) for v in offered_values if v.isdigit()])] if all(
            v.isdigit() for v in offered_values) else [offered_values[-1].capitalize()]
        wrong = ["0", "-32", "wide", "99999999999999999999"] + unoffered
        option_rows.append(("all", f"{option['flag']}: " + " ".join(
            [v for v in wrong if v and v not in offered_values] + ["<empty>", "<none>"]), ""))
    option_rows += [("all", f"{option['flag']}: <empty> <none>", "")
                    for option in found.free_options]

    def fill(text):
        for name, value in values.items():
            if f"@{name}@" in text and not value:
                return None
            text = text.replace(f"@{name}@", value)
        return text

    rows, violations, table_rows = 0, [], []
    for when, arguments, must_show in table("bad_input_table.txt", 3) + option_rows:
        flag, colon, bad_values = arguments.partition(": ")  # "FLAG: V1 V2 ...": one row each
        table_rows += [(when, arguments, must_show)] if must_show or not colon else [
            (when, flag, flag) if value == "<none>" else
            (when, f"{flag} {value}", f'{flag} "{"" if value == "<empty>" else value}"')
            for value in bad_values.split()]
    for when, arguments, must_show in table_rows:
        feature = when[3:] if when.startswith("no-") else when
        if feature not in features or when == "no-all":
            fail(f"bad-input table: unknown condition '{when}'")
        if bool(features[feature]) == (feature != when) or fill(arguments) is None:
            continue
        arguments = ["" if word == "<empty>" else word for word in fill(arguments).split()]
        rows += 1
        if args.dry_run:
            print(shown(arguments))
            continue
        code, out, err = run([exe] + arguments, 20, hide_device=True)
        out, err, line = out.strip(), err.strip(), error_line(err)
        problems = [why for wrong, why in [
            (code != 2, f"exit status {code}, expected 2 (bad command line)"
             if isinstance(code, int) else f"it did not exit normally: {code}"),
            (out, "it printed on stdout (a refused command line prints nothing there)"),
            (not line, "stderr does not have exactly one line starting with 'error: '"),
            (line and not err.startswith("error: "),
             "the error line is not the first line of stderr")
        ] if wrong]
        if line and err.startswith("error: "):
            problems += [f"the error line does not show {text}"
                         for text in (fill(must_show) or "").split() if text not in line]
        if problems:
            violations.append(f"  {shown(arguments)}\n    " + "\n    ".join(problems) +
                              f"\n    stdout: {out}\n    stderr: {err}")
    if rows == 0:
        fail(f"no row of {HERE / 'bad_input_table.txt'} applies to {exe}")
    if args.dry_run:
        return
    if args.expect_violations:
        if len(violations) != rows:
            fail(f"the harness missed {rows - len(violations)} of {rows} rows that {exe} handles "
                 "wrongly")
        print(f"the harness reported all {rows} rows that {exe} handles wrongly")
    elif violations:
        fail(f"{len(violations)} of {rows} bad command lines above were not refused as documented "
             "(exit 2, nothing on stdout, one 'error: ' line naming the flag and the value) by "
             f"{exe}", "\n".join(violations))
    else:
        print(f"{rows} bad command lines refused with exit status 2 and one error line each")


def no_device(args):
    arguments = "--problem matmul -m 8 -n 8 -k 8 --warmup 0 --reps 1".split()
    code, out, err = run([args.executable] + arguments, 60, hide_device=True)
    out, err = out.strip(), err.strip()
    problems = [why for wrong, why in [
        (code != 3, f"exit status {code}, expected 3 (no CUDA device)"),
        (out, "it printed on stdout"), ("\n" in err, "stderr has more than one line"),
        (not re.match("error: .*CUDA device", err),
         "stderr does not start with 'error: ' and name the missing CUDA device")] if wrong]
    if problems:
        fail(f"'{args.executable} {shown(arguments)}' with no visible CUDA device:\n  " +
             "\n  ".join(problems), f"stdout: {out}\nstderr: {err}")
    print(f"no visible CUDA device: exit status 3 and one line: {err}")


def run_executable(args):
    if args.edition == "student":
        skip_unless_asked(args.chapter)
    code = run([args.executable] + args.arguments, None, capture=False)[0]
    if code == 3:
        skip("no CUDA device")
    if code != 0:
        fail(f"{args.executable} exited with status {code}")


def cases(args):
    """The executable (a solution) on command lines that must all end one way: pass (exit status 0
    and PASS), refuse (exit status 4 before allocation, both sizes named) or pass-or-refuse (never
    a crash, a CUDA fault, a hang or a FAIL). --mode edge: sizes 1 and 2 in every dimension of
    --problem, in every launch variant; refuse: sizes no GPU holds; grid: outputs 4194241 long (past
    65535 blocks in y for blocks of up to 64 rows) and their transposes; boundary: a product output
    past 2^31 elements; large: one row of large_cases.txt. PASS that the machine cannot hold
    (boundary, large) is SKIPPED."""
    exe, problem, mode, one_two = args.executable, args.problem, args.mode, (1, 2)
    p = f"--problem {problem}"
    expect = {"refuse": "refuse", "grid": "pass-or-refuse", "large": args.expect}.get(mode, "pass")
    if mode in ("edge", "large"):
        skip_unless_offered(exe, problem)
    found = read_offer(exe) if mode in ("edge", "grid", "boundary") else None
    if mode == "edge" and problem in ("matmul", "minplus"):
        todo = [f"{p} -m {m} -n {n} -k {k} {variant}" for variant in [""] + found.product
                for m in one_two for n in one_two for k in one_two]
    elif mode == "edge" and problem == "conv2d":
        # Masks 1, 3 and 13: those a chapter with compiled sides has, or its smallest and largest.
        masks = [side for side in (1, 3, 13) if not found.mask_sides or side in found.mask_sides]
        masks = masks or list(dict.fromkeys([min(found.mask_sides), max(found.mask_sides)]))
        todo = [f"{p} --height {h} --width {w} --mask {mask} {variant}"
                for variant in [""] + found.variations["conv2d"] for mask in masks
                for h in one_two for w in one_two]
    elif mode == "edge":
        # Taps 1 and 2: those a chapter with compiled counts has, and its smallest, middle and
        # largest, whose halo is longer than the signal.
        taps = list(dict.fromkeys([m for m in one_two if m in found.tap_counts or not found.taps]
                                  + list(found.taps)))
        todo = [f"{p} -n {n} --taps {m} {variant}"
                for variant in [""] + found.variations["conv1d"] for n in one_two for m in taps]
    elif mode == "refuse":  # 200000^3: each matrix is 160 GB; a 200000 x 200000 image too.
        todo = [f"--problem {name} {sizes}" for name in ("matmul", "minplus") if offered(exe, name)
                for sizes in ("-m 200000 -n 200000 -k 200000", "-m 2147483647 -n 1 -k 2147483647")]
        if offered(exe, "conv2d"):
            todo += ["--problem conv2d --height 200000 --width 200000",
                     "--problem conv2d --height 2147483647 --width 2147483647 --mask 1"]
    elif mode == "grid":
        todo = [f"--problem matmul {sizes} -k 1 {variant}" for variant in [""] + found.product
                for sizes in ("-m 4194241 -n 1", "-m 1 -n 4194241")]
        mask = 3 if 3 in found.mask_sides or not found.mask_sides else found.mask_sides[0]
        todo += [f"--problem conv2d {sizes} --mask {mask} {variant}"
                 for variant in ([""] + found.variations["conv2d"] if offered(exe, "conv2d") else [])
                 for sizes in ("--height 4194241 --width 1", "--height 1 --width 4194241")]
    elif mode == "boundary":  # C has 46341^2 = 2147488281 elements (8.6 GB), A and B are tiny
        todo = [f"--problem matmul -m 46341 -n 46341 -k 1 {variant}"
                for variant in [""] + found.product]
    else:
        todo = [f"{p} {args.args}"]
    if args.dry_run:
        return print("\n".join(f"{expect}: {line}" for line in todo))

    failures = []
    for line in todo:
        arguments = line.split() + QUICK
        start = time.monotonic()
        code, out, err = run([exe] + arguments,
                             {"grid": 300, "boundary": 600, "large": 1500}.get(mode, 120))
        seconds, error = int(time.monotonic() - start), error_line(err)
        if code == 3:
            skip("no CUDA device")
        if code == 4 and mode in ("boundary", "large") and expect != "refuse" and \
                re.search(TOO_SMALL, err):
            skip(f"this machine cannot hold '{shown(arguments)}': {err.strip()}")
        passed = code == 0 and "PASS" in out and "FAIL" not in out
        # A refusal: exit status 4, one error line that is not a kernel fault, and no result.
        refused = code == 4 and error and not re.search("PASS|FAIL", out) and \
            not re.search(CRASH, error)
        what = "(exit status 4, one error line, no result)"
        why = [why for wrong, why in [
            (not isinstance(code, int), f"it did not finish: {code}"),
            (expect == "pass" and not passed,
             f"expected PASS (exit status 0), got exit status {code}"),
            (expect == "refuse" and not refused,
             f"expected a refusal {what}, got exit status {code}"),
            (expect == "refuse" and not re.search(MEMORY_REFUSAL, error),
             "the refusal does not give both the size needed and the memory free"),
            (expect == "refuse" and seconds > 30,
             f"the refusal took {seconds} s: it should come before anything is allocated"),
            (expect == "pass-or-refuse" and not passed and not refused,
             f"expected PASS or a refusal {what}, got exit status {code}")] if wrong]
        if why:
            failures.append((shown(arguments), why[0], out + err))
        else:
            print(f"refused as expected ({seconds} s): {shown(arguments)}\n  {error}" if refused
                  else f"PASS ({seconds} s): {shown(arguments)}")
    report_failures(failures, f"{exe}: some of the {len(todo)} runs above went wrong")


def tests(args):
    """CMake code adding the reliability tests of EXE as --target, --edition student, solution or
    planted (the bug-hunt harness's made-up chapter: its bugs only)."""
    target, exe, me = args.target, args.executable, [sys.executable, str(Path(__file__).resolve())]
    tools, gpu = [f"--sanitizer={args.sanitizer or ''}", f"--ncu={args.ncu or ''}"], ["gpu"]
    large = table("large_cases.txt", 5)  # checked first, so that a bad row is all that is printed
    for row in large:
        if row[0] not in ("on", "max") or not re.fullmatch("[a-z0-9_]+", row[1]) or \
                row[2] not in PROBLEMS or row[4] not in ("pass", "refuse", "pass-or-refuse",
                                                         "memcheck"):
            fail("large_cases.txt: a row needs a tier (on, max), a name, a problem and an "
                 f"expectation (pass, refuse, pass-or-refuse, memcheck): {' | '.join(row)}")

    def add(name, command, labels, timeout, student=False, **properties):
        """A test; one of the student's kernels (@p student) has exactly @p labels and is
        skipped unless asked for, the others add their kinds' labels."""
        def quote(text):
            return f"[==[{text}]==]"
        gpu_test = "gpu" in labels
        if not student:
            labels = labels + ["solutions"] * gpu_test + ["reliability"]
        properties.update(LABELS=";".join(labels), TIMEOUT=timeout)
        if gpu_test or student:
            properties["SKIP_REGULAR_EXPRESSION"] = "SKIPPED:"
        print(f"add_test({quote(name)} {' '.join(map(quote, command))})\n"
              f"set_tests_properties({quote(name)} PROPERTIES " +
              " ".join(f"{key} {quote(value)}" for key, value in properties.items()) + ")")

    for check in ["bad-input", "no-device"] * (args.edition != "planted"):
        add(f"{target}.{check.replace('-', '_')}", me + [check, exe], ["cpu"], 300)
    if args.edition == "student":
        # The student's kernels judged by the chapter's own checks, one test each, on request;
        # the solutions' kernel checks below would fail a student's unfinished kernels.
        return student_checks.listed(target, exe, me + ["criterion", exe] + tools + [
            f"--cuobjdump={args.cuobjdump or ''}", f"--build-dir={args.build_dir}"],
            functools.partial(add, student=True))
    # Every planted bug under the tool that must catch it; an executable that describes none, or
    # no description at all, gets one test <target>.bughunt that fails.
    code, out, _ = run([exe, "--describe"], 60, hide_device=True) if os.path.exists(exe) \
        else (0, "", "")
    try:
        bugs = [(b["name"], b["tool"]) for b in json.loads(out)["bugs"]] if code == 0 else []
    except (ValueError, KeyError, TypeError):
        bugs = []
    if not os.path.exists(exe):
        add(f"{target}.bughunt.NOT_BUILT", [f"{target}.bughunt.NOT_BUILT"], ["bughunt"] + gpu, 3600)
    elif not bugs:
        add(f"{target}.bughunt", me + ["bughunt", exe] + tools, ["bughunt"] + gpu, 3600)
    for bug in bugs:
        # The profiler reads the GPU's counters, which one process at a time may hold; the
        # harness's "uncaught-..." bugs are the correct kernel, which the tool must not catch:
        # their tests pass on that verdict alone, not on any other failure.
        properties = {"RUN_SERIAL": "TRUE"} if bug[1].startswith("ncu:") else {}
        if args.edition == "planted" and bug[0].startswith("uncaught-"):
            properties["PASS_REGULAR_EXPRESSION"] = f"FAIL: {bug[1]} did not catch planted bug"
        add(f"{target}.bughunt.{bug[0]}", me + ["bughunt", exe, "--bug", bug[0], "--tool", bug[1]]
            + tools, ["bughunt"] + gpu, 3600, **properties)
    if args.edition == "planted":
        return
    for tool in SANITIZER_TOOLS:
        for problem in PROBLEMS:
            add(f"{target}.sanitize.{tool}.{problem}", me + ["sanitize", exe, f"--tool={tool}",
                f"--problem={problem}", tools[0]], ["sanitize"] + gpu, 1800)
    for problem in PROBLEMS:
        add(f"{target}.edge_sizes.{problem}", me + ["cases", exe, "--mode=edge",
            f"--problem={problem}"], gpu, 900)
    # index_boundary needs 8.6 GB of GPU memory: one at a time, so that several chapters' tests
    # do not crowd each other out of a smaller GPU.
    for mode, name in [("refuse", "refuse_oversize"), ("grid", "grid_limits"),
                       ("boundary", "index_boundary")]:
        add(f"{target}.{name}", me + ["cases", exe, f"--mode={mode}"], gpu, 1200,
            **{"RESOURCE_LOCK": "course_gpu_memory"} if mode == "boundary" else {})
    for tier, case, problem, arguments, expect in large:
        if args.large == "MAX" or (args.large == "ON" and tier == "on"):
            check = ["sanitize", exe, "--tool=memcheck", tools[0]] if expect == "memcheck" else \
                ["cases", exe, "--mode=large", f"--expect={expect}"]
            # Up to 36 GiB of GPU memory and as much on the host: alone.
            add(f"{target}.large.{case}", me + check + [f"--problem={problem}",
                f"--args={arguments}"], ["large"] + gpu, 3600, RUN_SERIAL="TRUE")


def main():
    checks = {"bad-input": bad_input, "no-device": no_device, "cases": cases, "sanitize": sanitize,
              "wrong-result": wrong_result, "bughunt": bughunt, "tests": tests,
              "run": run_executable, "no-spills": no_spills,
              "criterion": student_checks.criterion}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=checks)
    parser.add_argument("executable")
    for option in ("--tool", "--bug", "--target", "--args", "--expect-finding", "--sanitizer",
                   "--ncu", "--cuobjdump", "--chapter", "--pattern", "--nvcc", "--id",
                   "--build-dir"):
        parser.add_argument(option)
    parser.add_argument("--mode", choices=["edge", "refuse", "grid", "boundary", "large"])
    parser.add_argument("--problem", choices=PROBLEMS)
    parser.add_argument("--expect", choices=["pass", "refuse", "pass-or-refuse"], default="pass")
    parser.add_argument("--edition", choices=["student", "solution", "planted"])
    parser.add_argument("--large", default="OFF", help="COURSE_LARGE_TESTS: OFF, ON or MAX")
    parser.add_argument("--expect-violations", action="store_true")
    parser.add_argument("--dry-run", action="store_true")
    argv = sys.argv[1:]  # run's ARGS: all that follows "--"
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.arguments = argv[cut + 1:]
    checks[args.check](args)


if __name__ == "__main__":
    main()
