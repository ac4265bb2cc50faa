"""What every reliability check needs: the tables and constants they share, running a command
with a time limit, the verdicts (skip, fail), and what an executable's --help offers."""
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
