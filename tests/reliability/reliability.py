#!/usr/bin/env python3
"""The reliability checks of a chapter executable EXE, one command per kind of check.

  run EXE --edition=E --chapter=chNN -- ARGS   EXE ARGS exits with status 0 (3, no CUDA device: a
                     skip); a student's edition runs only when COURSE_CHECK names its chapter (chNN
                     or all), since it fails by design until the exercises are done
  bad-input EXE      every row of bad_input_table.txt that applies to EXE (its --help tells) is
                     refused: exit status 2, nothing on stdout, one "error: " line naming the flag
                     and the value (--expect-violations: EXE accepts anything, every row must fail)
  no-device EXE      with no visible CUDA device: one line on stderr and exit status 3
  cases EXE --mode edge|refuse|grid|boundary|large   sizes that must PASS or be refused
  sanitize EXE --tool memcheck|racecheck|synccheck|initcheck   the tool finds nothing
  wrong-result EXE   a wrong result reports FAIL and no figures
  bughunt EXE --bug NAME --tool TOOL   a planted bug is caught by its tool
  tests EXE          the CMake code adding EXE's tests, which CTest reads each time it runs, so that
                     planted bugs (`EXE --list-bugs`) and large_cases.txt need no reconfiguring
  no-spills SOURCE --pattern=P --nvcc=NVCC   SOURCE compiled for sm_90: every function whose mangled
                     name matches P has a 0-byte stack frame and no spills (ptxas's resource report)
A check prints "SKIPPED: ..." (a CTest skip) where there is no CUDA device, no tool, or not enough
memory for a case, and "FAIL: ..." with exit status 1 when it fails. --dry-run prints the command
lines a check would run and runs none.
"""
import argparse
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
# compute-sanitizer's exit status when it found errors: not one of the executables' own (0 to 4).
SANITIZER_ERRORS = 99
# One checked and one timed run, and none of the previous chapter's kernels (checked with their
# own chapter; at the largest sizes they would take minutes and prove nothing here).
QUICK = ["--warmup", "0", "--reps", "1", "--no-compare"]
# What an executable says when this machine cannot hold a case (the driver's refusal, a failed
# host or device allocation, a launcher's workspace that does not fit).
TOO_SMALL = r"of device memory|out of host memory|allocating .* failed|cudaErrorMemoryAllocation"
# What an executable says when a kernel faulted: never a clean refusal.
CRASH = r"execution of|illegal|misaligned|unspecified launch failure|LaunchFailure|Assert"
# The driver's memory refusal: "<what> needs 457763.7 MiB (... bytes) of device memory, but the
# device has only 80000.0 MiB free of 81559.0 MiB".
SIZE = r"[0-9][0-9.]* ?[KMGT]?i?B"
MEMORY_REFUSAL = f"needs {SIZE}.*{SIZE} free"
# The bug hunt's sizes: multiples of every tile, and awkward ones; then larger, where the tool
# costs little (check, ncu): a defect that shows only now and then (a race the check sees) has
# more chances.
SIZES = ["-m 256 -k 256 -n 256 --height 256 --width 256 --taps 64".split(),
         "-m 200 -k 72 -n 136 --height 130 --width 100 --taps 37".split()]
LARGE = "-m 1024 -k 1024 -n 1024 --height 1024 --width 1024 --taps 127".split()
TIMEOUT = 900  # seconds, for one run of the bug hunt
# How many times the chapter's own figure the bug's must exceed (see ncu:METRIC in bughunt).
NCU_MARGIN = 1.5


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(0)


def fail(why, details=""):
    if details:
        print(details.rstrip())
    print(f"FAIL: {why}")
    sys.exit(1)


def run(command, timeout, hide_device=False, capture=True):
    """(exit status, or why the command ended, as text; stdout; stderr). With hide_device the CUDA
    runtime sees no device, even on a machine that has one; without capture what the command
    prints goes where this script's output goes (stdout and stderr are then None)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="") if hide_device else None
    sys.stdout.flush()
    try:
        done = subprocess.run(command, env=env, capture_output=capture, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"it ran past {timeout} s", "", ""
    except OSError as error:
        return str(error), "", ""
    code = done.returncode
    return code if code >= 0 else signal.Signals(-code).name, done.stdout, done.stderr


def shown(arguments):
    return " ".join(argument or "''" for argument in arguments)


def error_line(stderr):
    """The one line of stderr that starts with "error: ", or "" when there is none or several."""
    lines = [line for line in stderr.split("\n") if line.startswith("error: ")]
    return lines[0].strip() if len(lines) == 1 else ""


def find_tool(path, name):
    """The tool found at configure time, or else the one on the PATH (None: neither)."""
    return path if path and os.path.exists(path) else shutil.which(name)


def table(name, columns):
    """The rows of a table in this folder: columns separated by '|'; blank lines, # comments out."""
    rows = []
    for line in (HERE / name).read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            rows.append([column.strip() for column in line.split("|")])
            if len(rows[-1]) != columns:
                fail(f"{name}: a row needs {columns} columns separated by '|': {line}")
    return rows


def offered(exe, problem, bug=None):
    """Whether EXE (or its planted bug) has a PROBLEM kernel, asked with the device hidden: the
    driver checks the problem list before it looks for a device."""
    command = [exe] + (["--bug", bug] if bug else []) + ["--problem", problem]
    code, out, err = run(command, 60, hide_device=True)
    if code == 2 and f"has no {problem} kernel" in err:
        return False
    if code != 3:
        fail(f"'{shown(command)}' with no visible device should exit 3 (no device) or 2 (no such "
             f"kernel); it exited {code}", out + err)
    return True


def skip_unless_offered(exe, problem):
    if not offered(exe, problem):
        skip(f"this chapter has no {problem} kernel")


def read_help(exe):
    """What `EXE --help` offers: tile and block widths and kernel variants (the default first),
    --mapping, --signal-csv, compiled square mask sides (else odd sides up to mask_max), compiled
    conv1d tap counts (else any up to max_taps; 0: no limit of the chapter's own); and the launch
    choices other than the defaults (product, conv): each tile or block width may be a kernel of
    its own, in every kernel variant."""
    code, out, err = run([exe, "--help"], 30, hide_device=True)
    if code != 0 or "usage:" not in out:
        fail(f"'{exe} --help' did not print the usage (exit {code})", out + err)

    def numbers(pattern):
        found = re.search(pattern, out)
        return [int(value) for value in re.findall("[0-9]+", found.group(1))] if found else []

    variants = re.search("--variant V +kernel variant: ([a-z0-9, ]+)", out)
    found = SimpleNamespace(
        tiles=numbers("--tile T +product tile width: ([0-9, ]+)"),
        blocks=numbers("--block B +[a-z0-9 ]*block width: ([0-9, ]+)"),
        variants=re.findall("[a-z0-9]+", variants.group(1)) if variants else [],
        mapping="--mapping " in out, signal_csv="--signal-csv " in out,
        mask_sides=numbers("conv2d mask, odd sides, square: ([0-9, ]+)"),
        tap_counts=numbers("--taps M +conv1d mask length, compiled in: ([0-9, ]+)"),
        max_taps=(numbers("--taps M .*at most ([0-9]+)") or [0])[0], product=[], conv=[])
    largest = found.mask_sides or numbers("conv2d mask, odd sides up to ([0-9]+)")
    if not largest:
        fail(f"'{exe} --help' does not describe --mask", out)
    found.mask_max = max(largest)
    taps = sorted(found.tap_counts)  # the smallest, the middle and the largest of them
    found.taps = (taps[0], taps[len(taps) // 2], taps[-1]) if taps else ()
    found.max_taps = 0 if taps else found.max_taps
    for variant in [""] + [f"--variant {name}" for name in found.variants[1:]]:
        found.product += [variant] * bool(variant)
        found.conv += [variant] * bool(variant)
        found.product += [f"{variant} --tile {tile}".strip() for tile in found.tiles[1:]]
        found.conv += [f"{variant} --block {block}".strip() for block in found.blocks[1:]]
    found.product += ["--mapping transposed"] if found.mapping else []
    return found


def report_failures(failures, verdict):
    """Each failed run (its command line, why it failed, what it printed), then the verdict."""
    if failures:
        fail(verdict, "".join(f"\n---- {line}\n---- {why}\n{printed}\n"
                              for line, why, printed in failures))


def bad_input(args):
    exe, found = args.executable, read_help(args.executable)
    sides, taps = found.mask_sides, sorted(found.tap_counts)

    def first_missing(candidates, present):
        return next((str(value) for value in candidates if value not in present), "")

    # The placeholders, filled in from --help ("": a row that uses it does not apply).
    widths = [24, 48, 12, 64, 8, 4, 2, 1]
    values = {
        "TILE_UNOFFERED": first_missing(widths, found.tiles),
        "BLOCK_UNOFFERED": first_missing(widths, found.blocks),
        "MASK_UNOFFERED": first_missing(range(1, found.mask_max + 1, 2), sides) if sides else "",
        "MASK_NONSQUARE": f"{sides[0]}x{sides[1]}" if len(sides) > 1 else "",
        "MASK_OVER": str(found.mask_max + 2),
        "TAPS_OVER": str((taps[-1] if taps else found.max_taps) + 1),
        "TAPS_UNOFFERED": first_missing(range(1, taps[-1] + 1), taps) if taps else "",
        "TAPS_LARGEST": str(taps[-1]) if taps else "",
        "N_PAST_INT_MAX": str(2147483649 - taps[-1]) if taps else ""}  # n + taps - 1 = 2^31
    features = {"all": True, "tile": found.tiles, "block": found.blocks, "mapping": found.mapping,
                "variant": found.variants, "signal-csv": found.signal_csv, "mask-compiled": sides,
                "taps-compiled": taps, "max-taps": found.max_taps > 0}

    def fill(text):
        for name, value in values.items():
            if f"@{name}@" in text and not value:
                return None
            text = text.replace(f"@{name}@", value)
        return text

    rows, violations, table_rows = 0, [], []
    for when, arguments, must_show in table("bad_input_table.txt", 3):
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
    wanted = os.environ.get("COURSE_CHECK", "").split(",")
    if args.edition == "student" and args.chapter not in wanted and "all" not in wanted:
        skip(f"your own {args.chapter} kernels are checked on request: "
             f"COURSE_CHECK={args.chapter} ctest --test-dir <build> -L {args.chapter}")
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
    found = read_help(exe) if mode in ("edge", "grid", "boundary") else None
    if mode == "edge" and problem in ("matmul", "minplus"):
        todo = [f"{p} -m {m} -n {n} -k {k} {variant}" for variant in [""] + found.product
                for m in one_two for n in one_two for k in one_two]
    elif mode == "edge" and problem == "conv2d":
        # Masks 1, 3 and 13: those a chapter with compiled sides has, or its smallest and largest.
        masks = [side for side in (1, 3, 13) if not found.mask_sides or side in found.mask_sides]
        masks = masks or list(dict.fromkeys([min(found.mask_sides), max(found.mask_sides)]))
        todo = [f"{p} --height {h} --width {w} --mask {mask} {variant}"
                for variant in [""] + found.conv for mask in masks
                for h in one_two for w in one_two]
    elif mode == "edge":
        # Taps 1 and 2: those a chapter with compiled counts has, and its smallest, middle and
        # largest, whose halo is longer than the signal.
        taps = list(dict.fromkeys([m for m in one_two if m in found.tap_counts or not found.taps]
                                  + list(found.taps)))
        todo = [f"{p} -n {n} --taps {m} {variant}"
                for variant in [""] + found.conv for n in one_two for m in taps]
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
                 for variant in ([""] + found.conv if offered(exe, "conv2d") else [])
                 for sizes in ("--height 4194241 --width 1", "--height 1 --width 4194241")]
    elif mode == "boundary":  # C has 46341^2 = 2147488281 elements (8.6 GB), A and B are tiny
        todo = [f"--problem matmul -m 46341 -n 46341 -k 1 {variant}"
                for variant in [""] + ["--mapping transposed"] * found.mapping]
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


def read_report(text):
    """The errors and hazards a compute-sanitizer report counts, summed (a warning counts too),
    from "ERROR SUMMARY: N errors" or racecheck's "RACECHECK SUMMARY: N hazards displayed (E
    errors, W warnings)"; None without a summary."""
    counts = re.findall("ERROR SUMMARY: ([0-9]+) errors?", text)
    for line in re.findall(r"RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, "
                           r"[0-9]+ warnings?\)", text):
        counts += re.findall("[0-9]+", line)
    return sum(map(int, counts)) if counts else None


def unusable(tool, code, report):
    """Why a compute-sanitizer report says nothing about the run ("": it does)."""
    if re.search("Internal Sanitizer Error|terminated before first instrumented API call", report):
        return f"compute-sanitizer could not check the run (exit status {code})"
    if read_report(report) is None:
        return f"the {tool} summary is missing from the report (exit status {code})"
    return ""


def judge_report(args, arguments, code, err, report, findings):
    """Why a run under the tool failed; "" when it passed, None when it is a large case that the
    chapter refuses cleanly (nothing to check)."""
    tool, finding, one_case = args.tool, args.expect_finding, args.args is not None
    if not isinstance(code, int):
        return f"it did not finish: {code}"
    if unusable(tool, code, report):
        return unusable(tool, code, report)
    if finding and (findings == 0 or code == 0):
        return f"{tool} reported nothing (exit status {code}), yet the kernel is broken"
    if finding:
        return "" if re.search(finding, report) else \
            f"{tool} reported errors, but none matches '{finding}'"
    if findings > 0 or code == SANITIZER_ERRORS:
        return f"{tool} reported {findings} errors or hazards"
    if one_case and code == 4 and re.search(TOO_SMALL, err):
        skip(f"this machine cannot hold '{shown(arguments)}'")
    if one_case and code == 4 and re.search("(^|\n)error: ", err) and not re.search(CRASH, err):
        return None
    return f"the executable exited with status {code} under {tool}" if code != 0 else ""


def sanitize(args):
    """One problem of the executable under one compute-sanitizer tool, at small awkward sizes, in
    every launch variant it offers (tile and block widths, thread mappings, compiled mask sizes and
    tap counts, kernel variants); fails if the tool reports anything. --args: that command line
    instead (a large case: a clean refusal passes too); --expect-finding (the harness's own test,
    a broken kernel): passes only if the tool reports errors and the report matches it."""
    exe, tool, problem, p = args.executable, args.tool, args.problem, f"--problem {args.problem}"
    if tool not in SANITIZER_TOOLS:
        fail(f"TOOL must be memcheck, racecheck, synccheck or initcheck, got '{tool}'")
    sanitizer = find_tool(args.sanitizer, "compute-sanitizer")
    if not sanitizer and not args.dry_run:
        skip("compute-sanitizer was not found (it comes with the CUDA toolkit; reconfigure with "
             "-DCOURSE_COMPUTE_SANITIZER=<path> to use it)")
    if problem:
        skip_unless_offered(exe, problem)
    found = read_help(exe) if problem and args.args is None else None
    if args.args is not None:
        runs = [f"{p} {args.args}" if problem else args.args]
    elif problem in ("matmul", "minplus"):
        runs = [f"{p} -m 33 -n 65 -k 17 {variant}" for variant in [""] + found.product]
    elif problem == "conv2d":
        image, side = f"{p} --height 37 --width 29", (found.mask_sides or [13])[0]
        # Every compiled mask side is a kernel of its own; else square, and non-square both ways
        # round (a chapter may compile one of them), and the largest mask, whose tile needs more
        # than the default 48 KB of shared memory in a chapter that stages mask and tile together.
        runs = [f"{image} --mask {mask}" for mask in found.mask_sides or ["13", "5x3", "3x5"]]
        if not found.mask_sides and found.mask_max >= 63:
            runs.append(f"{p} --height 70 --width 70 --mask 63")
        runs += [f"{image} --mask {side} {variant}" for variant in found.conv]
        # A kernel variant may compile its own kernels for small square masks (chapter 3).
        runs += [f"{image} --mask {mask} --variant {variant}" for variant in found.variants[1:]
                 for mask in (1, 3, 5, 7, 9, 11) if mask <= found.mask_max]
    elif problem == "conv1d" and found.taps:
        # Every compiled tap count is a kernel of its own; the largest also with a signal shorter
        # than its halo and with one whose second block reads the first one's inputs as its halo
        # (blocks of up to 256 outputs), the middle one with n one past 256.
        _, middle, taps = found.taps
        runs = [f"{p} -n 100 --taps {count}" for count in found.tap_counts]
        runs += [f"{p} -n 37 --taps {taps}", f"{p} -n 300 --taps {taps}",
                 f"{p} -n 257 --taps {middle}"]
    elif problem == "conv1d":
        taps, more_taps = (min(count, found.max_taps or count) for count in (37, 100))
        runs = [f"{p} -n 100 --taps {taps}", f"{p} -n 37 --taps {more_taps}"]
        runs += [f"{p} -n 300 --taps {found.max_taps}"] * (found.max_taps > more_taps)
    else:
        fail("sanitize needs --problem or --args")
    if problem == "conv1d" and args.args is None:
        runs += [f"{p} -n 100 --taps {taps} {variant}" for variant in found.conv]
    if args.dry_run:
        return print("\n".join(runs))

    quick, failures = QUICK if problem else [], []
    for line in runs:
        arguments = line.split() + quick
        start = time.monotonic()
        # A large case takes minutes under the tool, not seconds.
        code, out, err = run([sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERRORS),
                              "--print-limit", "100", exe] + arguments,
                             1500 if problem and args.args is not None else 600)
        seconds, report = int(time.monotonic() - start), f"{out}\n{err}"
        findings = read_report(report) or 0
        why = judge_report(args, arguments, code, err, report, findings)
        if why:
            # A failure that comes from having no CUDA device is a skip: the executable, run on
            # its own, says so with exit status 3.
            if run([exe] + runs[0].split() + quick, 120)[0] == 3:
                skip("no CUDA device")
            failures.append((shown(arguments), why, report))
        elif args.expect_finding:
            print(f"{tool} caught it ({findings} counted, exit status {code}, {seconds} s): "
                  f"{shown(arguments)}")
        else:
            print(f"refused, {tool} clean ({seconds} s): {shown(arguments)}\n  {error_line(err)}"
                  if why is None else f"{tool} clean ({seconds} s): {shown(arguments)}")
    report_failures(failures, f"{tool} of {exe}: see the reports above")


def wrong_result(args):
    """The shared driver on a kernel that is wrong everywhere (reliability_broken_kernels
    wrong-result, a matmul that writes zeros at once): the report and the CSV say FAIL and show no
    rate, no share of the peak and no speedup, which would describe a wrong answer."""
    arguments = "wrong-result --problem matmul -m 256 -n 256 -k 256 --warmup 1 --reps 3".split()
    code, out, err = run([args.executable] + arguments, 120)
    if code == 3:
        skip("no CUDA device")
    problems = [] if code == 1 else [f"exit status {code}, expected 1 (a failed check)"]
    problems += [f"the report lacks '{wanted}'" for wanted in (
        "rate     not reported (the result failed its check)",
        "speedup  not reported (the result failed its check)",
        "check    FAIL") if wanted not in out]
    if "m=256 n=256 k=256" not in out:
        problems.append("the report lacks the result's block 'm=256 n=256 k=256'")
    # The header names the GPU's peak in TFLOP/s: look only at the result's block, which follows.
    block = out[max(out.find("m=256 n=256 k=256"), 0):]
    problems += [f"the result's block shows '{unwanted}'"
                 for unwanted in ("TFLOP/s", "% of the", "x over chapter") if unwanted in block]
    _, csv_out, csv_err = run([args.executable] + arguments + ["--csv"], 120)
    lines = [line for line in csv_out.splitlines() if line.strip()]
    if len(lines) != 2:
        problems.append(f"--csv printed {len(lines)} lines, expected a header and one line")
    else:
        row = next(csv.DictReader(lines))
        if row.get("status") != "FAIL":
            problems.append(f"CSV status '{row.get('status')}', expected FAIL")
        problems += [f"CSV {column} is '{row.get(column)}', expected an empty field"
                     for column in ("rate", "peak_percent", "speedup") if row.get(column) != ""]
    if problems:
        fail("a wrong result's report:\n  " + "\n  ".join(problems),
             f"report:\n{out}{err}\ncsv:\n{csv_out}{csv_err}")
    print(f"a wrong result reports FAIL and no figures:\n{out}")


def finished(command):
    code, out, err = run(command, TIMEOUT)
    if str(code).startswith("it ran past"):
        fail(f"did not finish in {TIMEOUT} s: {shown(command)}")
    return code, out, err


def sanitizer_report(sanitizer, tool, exe, arguments):
    command = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERRORS),
               "--print-limit", "20", exe] + arguments
    code, out, err = finished(command)
    if unusable(tool, code, out + err):
        fail(f"{unusable(tool, code, out + err)}: {shown(command)}", out + err)
    return code, out + err


def ncu_metric(ncu, metric, exe, arguments):
    """METRIC summed over every kernel the run launched, from ncu's raw page: a header of column
    names (one per metric), a line of units, then one line per launch. Lines that do not start
    with a quote (ncu's notes, the program's report) are not part of it."""
    command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--metrics", metric, exe] + arguments
    code, out, err = finished(command)
    if "ERR_NVGPUCTRPERM" in out + err:
        skip("no access to the GPU's performance counters (ncu ERR_NVGPUCTRPERM)")
    lines = [line for line in out.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3 or metric not in rows[0]:
        fail(f"ncu reported no {metric} (exit status {code}): {shown(command)}", out + err)
    column, total = rows[0].index(metric), 0.0
    for row in rows[2:]:
        value = row[column].replace(",", "") if column < len(row) else ""
        try:
            total += float(value)
        except ValueError:
            fail(f"ncu gave {metric} as '{value}': {shown(command)}", out + err)
    return total, len(rows) - 2


def bughunt(args):
    """One planted bug under the tool that must catch it (without --bug: EXE lists none, or its
    --list-bugs fails, and that fails). TOOL is what `EXE --list-bugs` names:
      check           EXE --bug NAME exits 1 with FAIL in its report
      memcheck, racecheck, synccheck, initcheck
                      compute-sanitizer --tool X --error-exitcode reports errors on EXE --bug NAME
      ncu:METRIC      the profiler's METRIC, summed over the run's kernels, is larger for EXE --bug
                      NAME than for EXE on the same arguments: more than NCU_MARGIN times as
                      large, since the counters of two identical runs differ a little (bank
                      conflicts of one kernel at 1024 x 1024 x 1024 on an H100: 77183 and 76718)
    The control: the same tool finds EXE itself (no --bug) clean on the same arguments; for ncu the
    comparison is the control. Each runs on the problems the bug offers, at sizes that are
    multiples of every tile, awkward ones, and (check, ncu) larger ones; the bug must be caught at
    one of them, the control clean at all. Where the chapter compiles its conv1d tap counts, the
    sizes use the largest and the middle of them. SKIPPED where there is no CUDA device, no tool
    or no counter access."""
    exe, bug, tool = args.executable, args.bug, args.tool
    if not bug:
        code, _, err = run([exe, "--list-bugs"], 60)
        if code != 0:
            fail(f"--list-bugs exited {code}: {err}")
        # A GPU test like the others: skipped where the executable finds no device.
        tiny = "-m 1 -k 1 -n 1 --height 1 --width 1 --taps 1".split()
        if run([exe, "--no-check"] + QUICK + tiny, 60)[0] == 3:
            skip("no CUDA device")
        fail(f"{os.path.basename(exe)} registers no planted bug (--list-bugs prints nothing): "
             "every chapter plants at least one, in course::Chapter::bugs")
    if tool not in ["check"] + SANITIZER_TOOLS and not (tool or "").startswith("ncu:") or \
            tool == "ncu:":
        fail(f"unknown tool '{tool}' (check, memcheck, racecheck, synccheck, initcheck, "
             "ncu:<metric>)")
    problems = [problem for problem in PROBLEMS if offered(exe, problem, bug)]
    if not problems:
        fail(f"planted bug {bug} offers no problem")
    base = ["--problem", ",".join(problems)] + QUICK
    print(f"planted bug {bug} ({', '.join(problems)}), caught by {tool}")

    sizes_tried, large, counts = SIZES, LARGE, sorted(read_help(exe).tap_counts)
    if counts:  # the last word of each is the tap count
        sizes_tried = [SIZES[0][:-1] + [str(counts[-1])],
                       SIZES[1][:-1] + [str(counts[len(counts) // 2])]]
        large = LARGE[:-1] + [str(counts[-1])]
    caught_at, tried = [], []
    for sizes in sizes_tried + ([] if tool in SANITIZER_TOOLS else [large]):
        arguments = base + sizes
        # The chapter's own kernels first, with no tool: sizes it refuses (exit 4, one error
        # line) are not a test of the bug; any other failure is.
        code, out, err = finished([exe] + arguments)
        if code == 3:
            skip("no CUDA device")
        print(f"  without --bug, no tool: exit {code}: {shown(arguments)}")
        if code == 4 and err.startswith("error: ") and len(err.strip().splitlines()) == 1:
            print(f"  refused, so left out: {err.strip()}")
            continue
        if code != 0:
            fail(f"the control run without --bug exited {code}: {exe} {shown(arguments)}",
                 out + err)
        tried.append(shown(arguments))
        if tool == "check":
            code, out, err = finished([exe, "--bug", bug] + arguments)
            if code == 1 and "FAIL" in out:
                caught_at.append(shown(arguments))
            print(f"  bug:     exit {code}{' with FAIL' if 'FAIL' in out else ''}: "
                  f"{shown(arguments)}")
        elif tool in SANITIZER_TOOLS:
            sanitizer = find_tool(args.sanitizer, "compute-sanitizer")
            if not sanitizer:
                skip("compute-sanitizer was not found (it comes with the CUDA toolkit)")
            code, text = sanitizer_report(sanitizer, tool, exe, ["--bug", bug] + arguments)
            if code == SANITIZER_ERRORS:
                caught_at.append(shown(arguments))
            print(f"  bug:     {tool} exit {code}: {shown(arguments)}")
            code, text = sanitizer_report(sanitizer, tool, exe, arguments)
            print(f"  control: {tool} exit {code}: {shown(arguments)}")
            if code != 0:
                fail(f"{tool} does not find the executable clean without --bug (exit {code}): "
                     f"{shown(arguments)}", text)
        else:
            ncu = find_tool(args.ncu, "ncu")
            if not ncu:
                skip("ncu (Nsight Compute) was not found")
            metric = tool[4:]
            with_bug, kernels = ncu_metric(ncu, metric, exe, ["--bug", bug] + arguments)
            without, control_kernels = ncu_metric(ncu, metric, exe, arguments)
            print(f"  {metric}: bug {with_bug:g} ({kernels} launches), "
                  f"control {without:g} ({control_kernels} launches): {shown(arguments)}")
            if with_bug > NCU_MARGIN * without:
                caught_at.append(shown(arguments))
    if not tried:
        fail("the executable refused every size tried")
    if not caught_at:
        fail(f"{tool} did not catch planted bug {bug} at any size")
    print(f"PASS: {tool} caught planted bug {bug} at: {caught_at[0]}")


def no_spills(args):
    root = HERE.parent.parent  # the chapters' probes include "chapters/..." and <course/...>
    code, out, err = run([args.nvcc or "nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-c",
                          args.executable, "-o", os.devnull, "--resource-usage", f"-I{root}",
                          f"-I{root / 'common' / 'include'}"], None)
    if code != 0:
        fail(f"nvcc failed ({code}):\n{err.rstrip()}")
    # ptxas prints, per function:
    #   ptxas info    : Function properties for <mangled name>
    #       <S> bytes stack frame, <T> bytes spill stores, <L> bytes spill loads
    report, bad = out + err, []
    checked = [entry for entry in re.findall("Function properties for ([^\n]*)\n([^\n]*)",
                                             report) if re.search(args.pattern, entry[0])]
    for name, line in checked:
        found = re.search("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) "
                          "bytes spill loads", line)
        if not found or any(int(value) for value in found.groups()):
            bad.append(f"  {name}: {line.strip()}")
    if not checked:
        fail(f"no function matching '{args.pattern}' in the resource report:\n{report.rstrip()}")
    if bad:
        fail("kernels with a stack frame or spills:\n" + "\n".join(bad))
    print(f"{len(checked)} functions matching '{args.pattern}': no stack frame, no spills")


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

    def add(name, command, labels, timeout, **properties):
        def quote(text):
            return f"[==[{text}]==]"
        gpu_test = "gpu" in labels
        properties.update(LABELS=";".join(labels + ["solutions"] * gpu_test + ["reliability"]),
                          TIMEOUT=timeout)
        if gpu_test:
            properties["SKIP_REGULAR_EXPRESSION"] = "SKIPPED:"
        print(f"add_test({quote(name)} {' '.join(map(quote, command))})\n"
              f"set_tests_properties({quote(name)} PROPERTIES " +
              " ".join(f"{key} {quote(value)}" for key, value in properties.items()) + ")")

    for check in ["bad-input", "no-device"] * (args.edition != "planted"):
        add(f"{target}.{check.replace('-', '_')}", me + [check, exe], ["cpu"], 300)
    if args.edition == "student":
        return  # the rest checks kernels: a student's unfinished kernels would fail them
    # Every planted bug under the tool that must catch it; an executable that lists none, or
    # whose --list-bugs fails, gets one test <target>.bughunt that fails.
    code, out, _ = run([exe, "--list-bugs"], 60) if os.path.exists(exe) else (0, "", "")
    bugs = [line.split("\t") for line in out.splitlines() if line.strip()]
    if not os.path.exists(exe):
        add(f"{target}.bughunt.NOT_BUILT", [f"{target}.bughunt.NOT_BUILT"], ["bughunt"] + gpu, 3600)
    elif code != 0 or not bugs:
        add(f"{target}.bughunt", me + ["bughunt", exe] + tools, ["bughunt"] + gpu, 3600)
    for bug in bugs:
        if len(bug) < 3:
            print(f"message(WARNING [==[{target} --list-bugs: not NAME<TAB>TOOL<TAB>summary: "
                  f"{chr(9).join(bug)}]==])")
            continue
        # The profiler reads the GPU's counters, which one process at a time may hold; the
        # harness's "uncaught-..." bugs are the correct kernel, which the tool must not catch.
        properties = {"RUN_SERIAL": "TRUE"} if bug[1].startswith("ncu:") else {}
        if args.edition == "planted" and bug[0].startswith("uncaught-"):
            properties["WILL_FAIL"] = "TRUE"
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
              "run": run_executable, "no-spills": no_spills}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=checks)
    parser.add_argument("executable")
    for option in ("--tool", "--bug", "--target", "--args", "--expect-finding", "--sanitizer",
                   "--ncu", "--chapter", "--pattern", "--nvcc"):
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
