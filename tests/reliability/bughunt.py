#!/usr/bin/env python3
"""One planted bug under the tool that must catch it (CTest label bughunt).

    bughunt.py --executable EXE --bug NAME --tool TOOL [--sanitizer PATH] [--ncu PATH]
    bughunt.py --executable EXE --none     (the executable registers no bug: that fails)

TOOL is what `EXE --list-bugs` names (cmake/CourseReliability.cmake discovers the bugs when the
tests run):
  check           EXE --bug NAME exits 1 with FAIL in its report
  memcheck, racecheck, synccheck, initcheck
                  compute-sanitizer --tool X --error-exitcode reports errors on EXE --bug NAME
  ncu:METRIC      the profiler's METRIC, summed over the run's kernels, is larger for
                  EXE --bug NAME than for EXE on the same arguments: more than NCU_MARGIN times
                  as large, since the counters of two identical runs differ a little (bank
                  conflicts of one kernel at 1024 x 1024 x 1024 on an H100: 77183 and 76718)
The control: the same tool finds EXE itself (no --bug) clean on the same arguments, and for ncu
the comparison is the control. Each runs on the problems the bug offers, at sizes that are multiples
of every tile, awkward ones, and (check, ncu) larger ones; the bug must be caught at one of them,
the control clean at all. Where the chapter compiles its conv1d tap counts (its --help lists them),
the sizes use the largest and the middle of them instead.
Prints "SKIPPED: ..." and exits 0 where there is no CUDA device, no tool or no counter access.
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
SIZES = [
    ["-m", "256", "-k", "256", "-n", "256", "--height", "256", "--width", "256", "--taps", "64"],
    ["-m", "200", "-k", "72", "-n", "136", "--height", "130", "--width", "100", "--taps", "37"],
]
# Larger, where the tool costs little (check, ncu): a defect that shows only now and then (a race
# the check sees) has more chances.
LARGE = ["-m", "1024", "-k", "1024", "-n", "1024", "--height", "1024", "--width", "1024",
         "--taps", "127"]
QUICK = ["--warmup", "0", "--reps", "1", "--no-compare"]
SANITIZER_ERRORS = 99
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
TIMEOUT = 900
# How many times the chapter's own figure the bug's must exceed (see ncu:METRIC above).
NCU_MARGIN = 1.5


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(0)


def fail(why, details=""):
    if details:
        print(details.rstrip()[-6000:])
    print(f"FAIL: {why}")
    sys.exit(1)


def run(command, hide_device=False):
    env = dict(os.environ)
    if hide_device:
        env["CUDA_VISIBLE_DEVICES"] = ""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(f"did not finish in {TIMEOUT} s: {' '.join(command)}")
    return done.returncode, done.stdout, done.stderr


def offered_problems(exe, bug):
    """The problems the bug runs, asked with the device hidden: the driver refuses a problem the
    bug lacks (exit 2) before it looks for a device (exit 3)."""
    offered = []
    for problem in PROBLEMS:
        code, out, err = run([exe, "--bug", bug, "--problem", problem], hide_device=True)
        if code == 3:
            offered.append(problem)
        elif not (code == 2 and f"has no {problem} kernel" in err):
            fail(f"'{exe} --bug {bug} --problem {problem}' with no visible device exited {code}; "
                 "expected 3 (no device) or 2 (no such kernel)", out + err)
    if not offered:
        fail(f"planted bug {bug} offers no problem")
    return offered


def compiled_taps(exe):
    """The conv1d tap counts the chapter compiles, from its --help ("--taps M  conv1d mask
    length, compiled in: 127, 1, 3 (default 127)"); empty where it takes any count."""
    code, out, _ = run([exe, "--help"], hide_device=True)
    found = re.search(r"--taps M +conv1d mask length, compiled in: ([0-9, ]+)", out)
    if code != 0 or not found:
        return []
    return [int(count) for count in re.findall(r"[0-9]+", found.group(1))]


def with_taps(sizes, taps):
    """The sizes with the value of --taps replaced by taps."""
    sizes = list(sizes)
    sizes[sizes.index("--taps") + 1] = str(taps)
    return sizes


def sanitizer_report(tool, exe, arguments):
    command = [tool["path"], "--tool", tool["name"], "--error-exitcode", str(SANITIZER_ERRORS),
               "--print-limit", "20", exe] + arguments
    code, out, err = run(command)
    text = out + err
    if "Internal Sanitizer Error" in text or "terminated before first instrumented" in text:
        fail(f"compute-sanitizer could not check the run: {' '.join(command)}", text)
    if "SUMMARY:" not in text:
        fail(f"the {tool['name']} summary is missing (exit status {code}): {' '.join(command)}",
             text)
    return code, text


def ncu_metric(ncu, metric, exe, arguments):
    """METRIC summed over every kernel the run launched, from ncu's raw page: a header of column
    names (one per metric), a line of units, then one line per launch. Lines that do not start
    with a quote (ncu's notes, the program's report) are not part of it."""
    command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--metrics", metric, exe] + arguments
    code, out, err = run(command)
    everything = out + err
    if "ERR_NVGPUCTRPERM" in everything:
        skip("no access to the GPU's performance counters (ncu ERR_NVGPUCTRPERM)")
    lines = [line for line in out.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3 or metric not in rows[0]:
        fail(f"ncu reported no {metric} (exit status {code}): {' '.join(command)}", everything)
    column = rows[0].index(metric)
    total = 0.0
    for row in rows[2:]:
        value = row[column].replace(",", "") if column < len(row) else ""
        try:
            total += float(value)
        except ValueError:
            fail(f"ncu gave {metric} as '{value}': {' '.join(command)}", everything)
    return total, len(rows) - 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executable", required=True)
    parser.add_argument("--bug")
    parser.add_argument("--tool")
    parser.add_argument("--none", action="store_true")
    parser.add_argument("--sanitizer", default="")
    parser.add_argument("--ncu", default="")
    args = parser.parse_args()
    exe = args.executable
    if args.none:
        # A GPU test like the others: skipped where the executable finds no device.
        tiny = ["-m", "1", "-k", "1", "-n", "1", "--height", "1", "--width", "1", "--taps", "1"]
        if run([exe, "--no-check"] + QUICK + tiny)[0] == 3:
            skip("no CUDA device")
        fail(f"{os.path.basename(exe)} registers no planted bug (--list-bugs prints nothing): "
             "every chapter plants at least one, in course::Chapter::bugs")
    if not args.bug or not args.tool:
        parser.error("--bug and --tool are required")
    bug, tool = args.bug, args.tool

    if tool not in ("check",) + SANITIZER_TOOLS and not (tool.startswith("ncu:") and tool[4:]):
        fail(f"unknown tool '{tool}' (check, memcheck, racecheck, synccheck, initcheck, "
             "ncu:<metric>)")
    problems = offered_problems(exe, bug)
    base = ["--problem", ",".join(problems)] + QUICK
    print(f"planted bug {bug} ({', '.join(problems)}), caught by {tool}")

    sizes_tried, large = SIZES, LARGE
    counts = sorted(compiled_taps(exe))
    if counts:
        sizes_tried = [with_taps(SIZES[0], counts[-1]),
                       with_taps(SIZES[1], counts[len(counts) // 2])]
        large = with_taps(LARGE, counts[-1])
    caught_at, tried = [], []
    for sizes in sizes_tried + ([] if tool in SANITIZER_TOOLS else [large]):
        arguments = base + sizes
        shown = " ".join(arguments)
        # The chapter's own kernels first, with no tool: sizes it refuses (exit 4, one error
        # line) are not a test of the bug; any other failure is.
        code, out, err = run([exe] + arguments)
        if code == 3:
            skip("no CUDA device")
        print(f"  without --bug, no tool: exit {code}: {shown}")
        if code == 4 and err.startswith("error: ") and len(err.strip().splitlines()) == 1:
            print(f"  refused, so left out: {err.strip()}")
            continue
        if code != 0:
            fail(f"the control run without --bug exited {code}: {exe} {shown}", out + err)
        tried.append(shown)
        if tool == "check":
            code, out, err = run([exe, "--bug", bug] + arguments)
            if code == 1 and "FAIL" in out:
                caught_at.append(shown)
            print(f"  bug:     exit {code}{' with FAIL' if 'FAIL' in out else ''}: {shown}")
        elif tool in SANITIZER_TOOLS:
            path = args.sanitizer if args.sanitizer and os.path.exists(args.sanitizer) else \
                shutil.which("compute-sanitizer")
            if not path:
                skip("compute-sanitizer was not found (it comes with the CUDA toolkit)")
            sanitizer = {"path": path, "name": tool}
            code, text = sanitizer_report(sanitizer, exe, ["--bug", bug] + arguments)
            if code == SANITIZER_ERRORS:
                caught_at.append(shown)
            print(f"  bug:     {tool} exit {code}: {shown}")
            code, text = sanitizer_report(sanitizer, exe, arguments)
            print(f"  control: {tool} exit {code}: {shown}")
            if code != 0:
                fail(f"{tool} does not find the executable clean without --bug (exit {code}): "
                     f"{shown}", text)
        else:
            ncu = args.ncu if args.ncu and os.path.exists(args.ncu) else shutil.which("ncu")
            if not ncu:
                skip("ncu (Nsight Compute) was not found")
            metric = tool[4:]
            with_bug, kernels = ncu_metric(ncu, metric, exe, ["--bug", bug] + arguments)
            without, control_kernels = ncu_metric(ncu, metric, exe, arguments)
            print(f"  {metric}: bug {with_bug:g} ({kernels} launches), "
                  f"control {without:g} ({control_kernels} launches): {shown}")
            if with_bug > NCU_MARGIN * without:
                caught_at.append(shown)
    if not tried:
        fail("the executable refused every size tried")
    if not caught_at:
        fail(f"{tool} did not catch planted bug {bug} at any size")
    print(f"PASS: {tool} caught planted bug {bug} at: {caught_at[0]}")


if __name__ == "__main__":
    main()
