"""What every reliability check needs: the tables and constants they share, running a command
with a time limit, the verdicts (skip, fail), and what an executable offers (its --describe)."""
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace


HERE = Path(__file__).resolve().parent
PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
# One checked and one timed run, and none of the previous chapter's kernels (checked with their
# own chapter; at the largest sizes they would take minutes and prove nothing here).
QUICK = ["--warmup", "0", "--reps", "1", "--no-compare"]
# What an executable says when this machine cannot hold a case (the driver's refusal, a failed
# host or device allocation, a launcher's workspace that does not fit).
TOO_SMALL = r"of device memory|out of host memory|allocating .* failed|cudaErrorMemoryAllocation"
# What an executable says when a kernel faulted: never a clean refusal.
CRASH = r"execution of|illegal|misaligned|unspecified launch failure|LaunchFailure|Assert"


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(0)


def skip_unless_asked(chapter):
    """A student's chapter is checked on request only (COURSE_CHECK=chNN or all): it fails by
    design until its exercises are done."""
    wanted = os.environ.get("COURSE_CHECK", "").split(",")
    if chapter not in wanted and "all" not in wanted:
        skip(f"your own {chapter} kernels are checked on request: "
             f"COURSE_CHECK={chapter} ctest --test-dir <build> -L {chapter}")


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


def table(name, columns):
    """The rows of a table in this folder: columns separated by '|'; blank lines, # comments out."""
    rows = []
    for line in (HERE / name).read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            rows.append([column.strip() for column in line.split("|")])
            if len(rows[-1]) != columns:
                fail(f"{name}: a row needs {columns} columns separated by '|': {line}")
    return rows


def describe(exe):
    """EXE's description (`EXE --describe`, asked with no visible device; docs/pages/tools.md)."""
    code, out, err = run([exe, "--describe"], 60, hide_device=True)
    try:
        return json.loads(out) if code == 0 else fail(f"'{exe} --describe' exited {code}", err)
    except ValueError:
        return fail(f"'{exe} --describe' printed no JSON object", out + err)


def offered(exe, problem, bug=None):
    """Whether EXE (or its planted bug BUG) has a PROBLEM kernel."""
    description = describe(exe)
    if bug is not None:
        return any(b["name"] == bug and problem in b["problems"] for b in description["bugs"])
    return any(p["name"] == problem and p["offered"] for p in description["problems"])


def skip_unless_offered(exe, problem):
    if not offered(exe, problem):
        skip(f"this chapter has no {problem} kernel")


def read_offer(exe):
    """What EXE offers, from its description: its launch options (flag, values with the default
    first, problems), the compiled square mask sides (else odd sides up to mask_max), the compiled
    conv1d tap counts (else any up to max_taps; 0: no limit of the chapter's own); and, for each
    problem, the launch choices other than the defaults (`variations[problem]`): every other value
    of each option that changes it, and every combination of those of different options."""
    description = describe(exe)
    sizes = description["sizes"]
    found = SimpleNamespace(options=[o for o in description["options"] if o["values"]],
                            free_options=[o for o in description["options"] if not o["values"]],
                            mask_sides=sizes["mask_sides"] or [], tap_counts=sizes["taps"] or [],
                            max_taps=sizes["max_taps"] or 0)
    found.mask_max = max(found.mask_sides or [sizes["max_mask_side"]])
    taps = sorted(found.tap_counts)  # the smallest, the middle and the largest of them
    found.taps = (taps[0], taps[len(taps) // 2], taps[-1]) if taps else ()
    found.variations = {}
    for problem in PROBLEMS:
        combinations = [""]
        for option in (o for o in found.options if problem in o["problems"]):
            combinations = [f"{done} {flag}".strip() for flag in
                            [""] + [f"{option['flag']} {value}" for value in option["values"][1:]]
                            for done in combinations]
        found.variations[problem] = combinations[1:]
    found.product = found.variations["matmul"]
    return found


def report_failures(failures, verdict):
    """Each failed run (its command line, why it failed, what it printed), then the verdict."""
    if failures:
        fail(verdict, "".join(f"\n---- {line}\n---- {why}\n{printed}\n"
                              for line, why, printed in failures))
