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
  tests EXE          the CMake code adding EXE's tests, which CTest reads when it runs
                     (cmake/CourseReliability.cmake)
  no-spills SOURCE --pattern=P --nvcc=NVCC   SOURCE compiled for sm_90: every function whose mangled
                     name matches P has a 0-byte stack frame and no spills (ptxas's resource report)
The checks that run kernels are in kernel_checks.py.
A check prints "SKIPPED: ..." (a CTest skip) where there is no CUDA device, no tool, or not enough
memory for a case, and "FAIL: ..." with exit status 1 when it fails. --dry-run prints the command
lines a check would run and runs none.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]


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
    for variant in [""] + found.variants[1:]:
        prefix = f"--variant {variant} " if variant else ""
        found.product += [prefix.strip()] if variant else []
        found.conv += [prefix.strip()] if variant else []
        found.product += [f"{prefix}--tile {tile}" for tile in found.tiles[1:]]
        found.conv += [f"{prefix}--block {block}" for block in found.blocks[1:]]
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
    planted (the bug-hunt harness's made-up chapter: its bugs only). CTest reads it each time it
    runs, so planted bugs (`EXE --list-bugs`) and large_cases.txt need no reconfiguring."""
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
    # kernel_checks uses this file's functions: it gets this module, not a second copy of it.
    sys.modules.setdefault("reliability", sys.modules[__name__])
    import kernel_checks
    checks = {"bad-input": bad_input, "no-device": no_device, "cases": kernel_checks.cases,
              "sanitize": kernel_checks.sanitize, "wrong-result": kernel_checks.wrong_result,
              "bughunt": kernel_checks.bughunt, "tests": tests, "run": run_executable,
              "no-spills": no_spills}
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
