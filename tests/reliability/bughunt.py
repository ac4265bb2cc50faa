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
                  EXE --bug NAME than for EXE on the same arguments
The control: the same tool finds EXE itself (no --bug) clean on the same arguments, and for ncu
the comparison is the control. Each runs on the problems the bug offers, at two sizes: multiples
of every tile, and awkward ones; the bug must be caught at one of them, the control clean at both.
Prints "SKIPPED: ..." and exits 0 where there is no CUDA device, no tool or no counter access.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
SIZES = [
    ["-m", "256", "-k", "256", "-n", "256", "--height", "256", "--width", "256", "--taps", "64"],
    ["-m", "200", "-k", "72", "-n", "136", "--height", "130", "--width", "100", "--taps", "37"],
]
QUICK = ["--warmup", "0", "--reps", "1", "--no-compare"]
SANITIZER_ERRORS = 99
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
TIMEOUT = 900


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
    """METRIC summed over every kernel the run launched."""
    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "ncu.csv")
        command = [ncu, "--metrics", metric, "--csv", "--print-units", "base", "--log-file", log,
                   exe] + arguments
        code, out, err = run(command)
        text = open(log).read() if os.path.exists(log) else ""
    everything = text + out + err
    if "ERR_NVGPUCTRPERM" in everything or "permission to access" in everything.lower():
        skip("no access to the GPU's performance counters (ncu ERR_NVGPUCTRPERM)")
    total, rows = 0.0, 0
    lines = [line for line in text.splitlines() if line.startswith('"')]
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        if row.get("Metric Name") == metric:
            value = row.get("Metric Value", "").replace(",", "")
            try:
                total += float(value)
            except ValueError:
                fail(f"ncu gave {metric} as '{value}': {' '.join(command)}", everything)
            rows += 1
    if rows == 0:
        fail(f"ncu reported no {metric} (exit status {code}): {' '.join(command)}", everything)
    return total, rows


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

    problems = offered_problems(exe, bug)
    base = ["--problem", ",".join(problems)] + QUICK
    code, out, err = run([exe, "--bug", bug] + base + SIZES[0])
    if code == 3:
        skip("no CUDA device")
    print(f"planted bug {bug} ({', '.join(problems)}), caught by {tool}")

    caught_at = []
    for sizes in SIZES:
        arguments = base + sizes
        shown = " ".join(arguments)
        if tool == "check":
            code, out, err = run([exe, "--bug", bug] + arguments)
            if code == 1 and "FAIL" in out:
                caught_at.append(shown)
            print(f"  bug:     exit {code}{' with FAIL' if 'FAIL' in out else ''}: {shown}")
            code, out, err = run([exe] + arguments)
            print(f"  control: exit {code}: {shown}")
            if code != 0:
                fail(f"the control run without --bug exited {code}: {exe} {shown}", out + err)
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
        elif tool.startswith("ncu:") and len(tool) > 4:
            ncu = args.ncu if args.ncu and os.path.exists(args.ncu) else shutil.which("ncu")
            if not ncu:
                skip("ncu (Nsight Compute) was not found")
            metric = tool[4:]
            with_bug, kernels = ncu_metric(ncu, metric, exe, ["--bug", bug] + arguments)
            without, control_kernels = ncu_metric(ncu, metric, exe, arguments)
            print(f"  {metric}: bug {with_bug:g} ({kernels} launches), "
                  f"control {without:g} ({control_kernels} launches): {shown}")
            if with_bug > without:
                caught_at.append(shown)
        else:
            fail(f"unknown tool '{tool}' (check, memcheck, racecheck, synccheck, initcheck, "
                 "ncu:<metric>)")
    if not caught_at:
        fail(f"{tool} did not catch planted bug {bug} at any size")
    print(f"PASS: {tool} caught planted bug {bug} at: {caught_at[0]}")


if __name__ == "__main__":
    main()
