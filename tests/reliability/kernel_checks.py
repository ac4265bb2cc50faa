"""The checks of reliability.py that run kernels under a tool or read their code: compute-sanitizer
(sanitize), a wrong result's report (wrong-result), the planted bugs (bughunt) and ptxas's
resource report (no-spills)."""
import json
import os
import re
import shutil
import sys
import time

from harness import (CRASH, HERE, PROBLEMS, QUICK, SANITIZER_TOOLS, TOO_SMALL, describe,
                     error_line, fail, offered, read_offer, report_failures, run, shown, skip,
                     skip_unless_offered)

sys.path.insert(0, str(HERE.parent.parent / "scripts"))
import profile_kernels  # noqa: E402  (scripts/: the one reader of ncu's table)

# compute-sanitizer's exit status when it found errors: not one of the executables' own (0 to 4).
SANITIZER_ERRORS = 99
# The bug hunt's sizes: multiples of every tile, and awkward ones; then larger, where the tool
# costs little (check, ncu): a defect that shows only now and then (a race the check sees) has
# more chances.
SIZES = ["-m 256 -k 256 -n 256 --height 256 --width 256 --taps 64".split(),
         "-m 200 -k 72 -n 136 --height 130 --width 100 --taps 37".split()]
LARGE = "-m 1024 -k 1024 -n 1024 --height 1024 --width 1024 --taps 127".split()
TIMEOUT = 900  # seconds, for one run of the bug hunt
# How many times the chapter's own figure the bug's must exceed (see ncu:METRIC in bughunt()).
NCU_MARGIN = 1.5


def find_tool(path, name):
    """The tool found at configure time, or else the one on the PATH (None: neither)."""
    return path if path and os.path.exists(path) else shutil.which(name)


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
    why = unusable(tool, code, report) if isinstance(code, int) else f"it did not finish: {code}"
    if why:
        return why
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
    found = read_offer(exe) if problem and args.args is None else None
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
        runs += [f"{image} --mask {side} {variant}" for variant in found.variations["conv2d"]]
        # A choice of kernels by name (not by a width) may compile its own kernels for small
        # square masks (chapter 3's variant).
        runs += [f"{image} --mask {mask} {flag} {value}" for option in found.options
                 if "conv2d" in option["problems"] and not option["values"][0].isdigit()
                 for flag, value in ((option["flag"], v) for v in option["values"][1:])
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
        runs += [f"{p} -n 100 --taps {taps} {variant}" for variant in found.variations["conv1d"]]
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
    rate, no share of the peak and no speedup, which would describe a wrong answer. And a right
    kernel after that wrong one as the student's previous chapter (wrong-previous): PASS, and no
    speedup over the wrong answer."""
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
    _, json_out, json_err = run([args.executable] + arguments + ["--json"], 120)
    lines = [line for line in json_out.splitlines() if line.strip()]
    try:
        result = json.loads(lines[0]) if len(lines) == 1 else None
    except ValueError:
        result = None
    if result is None:
        problems.append(f"--json printed {len(lines)} lines, expected one JSON object")
    else:
        if result.get("verdict") != "FAIL":
            problems.append(f"--json verdict '{result.get('verdict')}', expected FAIL")
        problems += [f"--json {field} is {result.get(field)!r}, expected null"
                     for field in ("rate", "peak_percent", "speedup") if result.get(field) is not None]
    previous_arguments = ["wrong-previous"] + arguments[1:]
    previous_code, previous_out, previous_err = run([args.executable] + previous_arguments, 120)
    wanted = "speedup  not reported (chapter 1, your kernels, fails its check on these inputs)"
    problems += [f"over a failing previous chapter: {problem}" for problem in (
        [f"exit status {previous_code}, expected 0 (a passed check)"] * (previous_code != 0) +
        [f"the report lacks '{wanted}'"] * (wanted not in previous_out) +
        ["the report shows a speedup"] * ("x over chapter" in previous_out))]
    if problems:
        fail("a wrong result's report:\n  " + "\n  ".join(problems),
             f"report:\n{out}{err}\njson:\n{json_out}{json_err}\n"
             f"over a failing previous chapter:\n{previous_out}{previous_err}")
    print(f"a wrong result reports FAIL and no figures:\n{out}\n"
          f"and a right one no speedup over it:\n{previous_out}")


def finished(command):
    code, out, err = run(command, TIMEOUT)
    if str(code).startswith("it ran past"):
        fail(f"did not finish in {TIMEOUT} s: {shown(command)}")
    return code, out, err


def sanitizer_report(sanitizer, tool, exe, arguments):
    command = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERRORS),
               "--print-limit", "20", exe] + arguments
    code, out, err = finished(command)
    why = unusable(tool, code, out + err)
    if why:
        fail(f"{why}: {shown(command)}", out + err)
    return code, out + err


def ncu_metric(ncu, metric, exe, arguments):
    """METRIC summed over every kernel the run launched, and how many launched, from ncu's raw
    page as scripts/profile_kernels.py reads it (the one reader of ncu's table)."""
    command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--metrics", metric, exe] + arguments
    code, out, err = finished(command)
    if "ERR_NVGPUCTRPERM" in out + err:
        skip("no access to the GPU's performance counters (ncu ERR_NVGPUCTRPERM)")
    try:
        launches = profile_kernels.parse_ncu(out)
    except profile_kernels.NcuCsvError as error:
        fail(f"ncu reported no {metric} (exit status {code}, {error}): {shown(command)}",
             out + err)
    values = [launch.get(metric) for launch in launches]
    if not all(isinstance(value, float) for value in values):
        fail(f"ncu gave {metric} as {values}: {shown(command)}", out + err)
    return sum(values), len(values)


def bughunt(args):
    """One planted bug under the tool that must catch it (without --bug: EXE describes none, and
    that fails). TOOL is what EXE's description names for the bug:
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
        describe(exe)  # fails where there is no description
        # A GPU test like the others: skipped where the executable finds no device.
        tiny = "-m 1 -k 1 -n 1 --height 1 --width 1 --taps 1".split()
        if run([exe, "--no-check"] + QUICK + tiny, 60)[0] == 3:
            skip("no CUDA device")
        fail(f"{os.path.basename(exe)} registers no planted bug (its description lists none): "
             "every chapter plants at least one, in course::Chapter::bugs")
    if tool not in ["check"] + SANITIZER_TOOLS and not re.fullmatch("ncu:.+", tool or ""):
        fail(f"unknown tool '{tool}' (check, memcheck, racecheck, synccheck, initcheck, "
             "ncu:<metric>)")
    problems = [problem for problem in PROBLEMS if offered(exe, problem, bug)]
    if not problems:
        fail(f"planted bug {bug} offers no problem")
    base = ["--problem", ",".join(problems)] + QUICK
    print(f"planted bug {bug} ({', '.join(problems)}), caught by {tool}")

    sizes_tried, large, counts = SIZES, LARGE, sorted(read_offer(exe).tap_counts)
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
