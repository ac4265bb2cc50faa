#!/usr/bin/env python3
"""What the profiler says: scripts/profile.sh runs this (its header documents the options, the
files and the exit status). Each problem runs once under Nsight Compute (`--problem P --warmup 0
--reps 1 --no-compare --no-check --json`, then the user's arguments) with the metrics of METRICS;
the chapter's main kernel is the one that took longest (a pre-pass that pads or transposes takes
far less), and its last launch is reported. ncu flushes the caches before each counter pass and
leaves the clocks as the GPU sets them (`--clock-control none`), so the time is close to what the
executables report. A profile is recorded as the runs' own `--json` objects, each with ncu's
metrics of its main kernel under "ncu", as ncu named and printed them (docs/pages/tools.md): the
table and the rooflines are drawn from those, the arithmetic and the peaks being the executables'.
Standard library only (the rooflines need matplotlib, and are skipped with a note without it).
"""

import argparse
import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import course_description  # noqa: E402
import profile_table  # noqa: E402
from profile_table import as_float  # noqa: E402
import readme_block  # noqa: E402

# Exit statuses (scripts/profile.sh documents them).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_DEVICE, EXIT_CUDA = 0, 1, 2, 3, 4
EXIT_NO_NCU, EXIT_NO_PERMISSION, EXIT_NOT_BUILT = 5, 6, 7

# The metric set, kept fixed so that every chapter is read the same way; docs/pages/tools.md
# explains each. The last ones are the roofs of the GPU the run was made on, at its clocks.
METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum", "dram__bytes_write.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
    *(metric for metrics in profile_table.SHARED.values() for metric in metrics),
    "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__registers_per_thread",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "sm__cycles_elapsed.avg.per_second",
    "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second",
    "lts__t_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second",
]
# Why warps waited: the average number of warps stalled for each reason per issued instruction.
STALL_REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss",
                 "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle",
                 "misc", "no_instruction", "not_selected", "short_scoreboard", "sleeping",
                 "tex_throttle", "wait"]
STALL_METRIC = profile_table.STALL_PREFIX + "{}" + profile_table.STALL_SUFFIX
ALL_METRICS = METRICS + [STALL_METRIC.format(r) for r in STALL_REASONS]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = "profile.jsonl"  # the profile, in the results folder


class ProfileError(Exception):
    """Stops the profile with one line and an exit status."""
    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class NcuCsvError(Exception):
    """ncu's output holds no table of launches; the message says why."""


# Columns of ncu's table that hold text even where it reads as a number.
TEXT_COLUMNS = ("Kernel Name", "Device", "Host Name", "Process Name",
                "device__attribute_display_name")


def _number(text):
    """@p text as a float (ncu may group digits: "1,048,576"), or None when it is not one."""
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return None if math.isnan(value) else value


def parse_ncu(text):
    """The launches in what `ncu --csv --page raw --print-units base` printed (a line of column
    names, a line of units, a line per launch; the lines around the table, `==PROF==` notes and
    the program's own output, are skipped), oldest first: each a dict from column name to value,
    a float where it reads as a number, the text otherwise."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    if not lines:
        raise NcuCsvError("no CSV table in ncu's output (was the program profiled at all? "
                          "ncu prints one only when a kernel ran)")
    header, *rows = csv.reader(io.StringIO("\n".join(lines)))
    if "Kernel Name" not in header:
        raise NcuCsvError("ncu's table has no 'Kernel Name' column: not a --page raw table")
    launches = []
    for row in rows[1:]:
        if len(row) != len(header):
            raise NcuCsvError(f"a line of ncu's table has {len(row)} fields, the header "
                              f"{len(header)}")
        launches.append({name: value if name in TEXT_COLUMNS or _number(value) is None
                         else _number(value) for name, value in zip(header, row)})
    if not launches:
        raise NcuCsvError("ncu's table lists no kernel launch")
    return launches


def find_ncu():
    """ncu: $NCU, on the PATH, or in the CUDA toolkit's bin folder."""
    for candidate in (os.environ.get("NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise ProfileError("Nsight Compute (ncu) not found: it comes with the CUDA toolkit; put its "
                       "bin folder on the PATH or set NCU=/path/to/ncu", EXIT_NO_NCU)


def available_metrics(ncu):
    """The metric base names this ncu can read on this GPU (None when it cannot tell)."""
    result = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True)
    check_ncu_errors(result.stdout + result.stderr)
    if result.returncode != 0:
        return None
    return {row[0].strip() for row in csv.reader(io.StringIO(result.stdout)) if row}


def base_name(metric):
    """`dram__bytes_read.sum` -> `dram__bytes_read` (query-metrics lists base names)."""
    return re.sub(r"\.(peak_sustained|per_second|pct_of_peak_sustained_active|ratio|sum|avg|max"
                  r"|min)", "", metric)


def check_ncu_errors(text):
    """Stops with the right status when ncu says it may not read the counters or sees no GPU."""
    if "ERR_NVGPUCTRPERM" in text:
        raise ProfileError("ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): "
                           "run as root (sudo), or let every user profile: see "
                           "https://developer.nvidia.com/ERR_NVGPUCTRPERM", EXIT_NO_PERMISSION)
    if re.search(r"no CUDA device available|No supported GPU|no CUDA-capable device", text):
        raise ProfileError("no CUDA device: profiling needs an NVIDIA GPU", EXIT_NO_DEVICE)


def offered_problems(executable):
    """The problems the chapter's executable offers, from its description."""
    try:
        return [p["name"] for p in course_description.describe(executable)["problems"]
                if p["offered"]]
    except course_description.DescriptionError as error:
        raise ProfileError(f"{error}: rebuild the course", EXIT_FAILED) from error


def profile_problem(ncu, metrics, executable, problem, extra, log):
    """Profiles one problem; returns its record: the run's `--json` object, with ncu's metrics of
    its main kernel's last launch (and the kernel's name) under "ncu"."""
    # ncu names each kernel by its symbol, which the run's `kernels` carry beside a readable name.
    command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--print-kernel-base", "mangled", "--metrics", ",".join(metrics), executable, "--problem", problem, "--warmup", "0",
               "--reps", "1", "--no-compare", "--no-check", "--json"] + extra
    log.write("$ " + " ".join(command) + "\n")
    result = subprocess.run(command, capture_output=True, text=True)
    log.write(result.stdout + result.stderr)
    check_ncu_errors(result.stdout + result.stderr)
    if result.returncode == EXIT_USAGE:
        message = (result.stderr.strip().splitlines() or ["bad command line"])[-1]
        raise ProfileError(f"{os.path.basename(executable)}: {message}", EXIT_USAGE)
    runs = []
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            try:
                runs.append(json.loads(line))
            except ValueError:
                pass
    if not runs or "problem" not in runs[-1]:
        raise ProfileError(f"{os.path.basename(executable)} --problem {problem} printed no "
                           f"result (exit {result.returncode}); see the log", EXIT_CUDA)
    launches = parse_ncu(result.stdout)
    main = max(launches, key=lambda launch: as_float(launch.get("gpu__time_duration.sum")))
    last = [launch for launch in launches if launch.get("Kernel Name") == main.get("Kernel Name")]
    kept = ["Kernel Name"] + metrics
    record = dict(runs[-1])
    record["ncu"] = {name: last[-1][name] for name in kept if last[-1].get(name, "") != ""}
    return record


def write_records(records, path):
    """@p records as JSON lines, one per profiled run."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in records)


def read_records(path):
    """The records of a profile (scripts/profile.sh writes them: results/profile.jsonl)."""
    records = course_description.read_runs(
        path, ("chapter", "edition", "problem", "device", "flops", "operation", "operations",
               "operations_per_fma_slot", "ncu"),
        "a profile record (a run's --json object with ncu's metrics)")
    if any(not isinstance(record["ncu"], dict) for record in records):
        raise ValueError(f"{path}: a record's ncu is not an object of metrics")
    if not records:
        raise ValueError(f"{path}: no records")
    return records


def parse_arguments(argv):
    """The options of scripts/profile.sh, whose header documents them (it answers --help)."""
    parser = argparse.ArgumentParser(prog="scripts/profile.sh", add_help=False)
    parser.add_argument("chapter", nargs="?")
    parser.add_argument("args", nargs=argparse.REMAINDER)  # for the chapter's executable
    for flag in ("--solution", "--all", "--update-readme", "--no-plot", "--check"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    for option in ("--results", "--from"):
        parser.add_argument(option)
    args = parser.parse_args(argv)
    args.source = getattr(args, "from")
    if "--solution" in args.args:  # also after the chapter: the executables have no such flag
        args.args.remove("--solution")
        args.solution = True
    if not args.all and not args.chapter and not args.source:
        parser.error("name a chapter (e.g. scripts/profile.sh 4), or pass --all")
    if args.check and not args.source:
        parser.error("--check goes with --from")
    if args.all and (args.chapter or args.args):
        parser.error("--all takes no chapter and no executable arguments")
    return args


def select_chapters(args):
    try:
        chapters = course_description.read_manifest(args.build_dir)
    except course_description.DescriptionError as error:
        raise ProfileError(f"{error} (cmake --preset default && cmake --build build)",
                           EXIT_NOT_BUILT) from error
    if args.all:
        return chapters
    match = re.fullmatch(r"(?:ch)?0*(\d+)", args.chapter or "")
    if not match:
        raise ProfileError(f"{args.chapter!r} is not a chapter: give its number, e.g. 4",
                           EXIT_USAGE)
    wanted = [c for c in chapters if c["number"] == int(match.group(1))]
    if not wanted:
        raise ProfileError(f"no chapter {match.group(1)} in {args.build_dir} (chapters: "
                           f"{', '.join(str(c['number']) for c in chapters)})", EXIT_USAGE)
    return wanted


def run(args):
    results = args.results or (os.path.join(ROOT, "results") if args.update_readme else
                               os.path.join(args.build_dir, "results"))
    # The log names this machine's paths: it stays in the build folder, never in results/; so does
    # the table as a file of its own with --update-readme (the README holds the recorded one).
    local = os.path.join(args.build_dir, "results")
    recorded = os.path.join(results, RECORD)
    os.makedirs(results, exist_ok=True)
    if args.source:
        records = read_records(args.source)
        if args.update_readme and not (os.path.exists(recorded)
                                       and os.path.samefile(args.source, recorded)):
            shutil.copyfile(args.source, recorded)  # the README's table is checked against it
    else:
        os.makedirs(local, exist_ok=True)
        write_records(profile(args, local), recorded)
        records = read_records(recorded)
    if args.check:
        # The rooflines recorded beside the profile, as --update-readme leaves them.
        folder = args.results or os.path.dirname(os.path.abspath(args.source))
        images = [os.path.join(folder, f"roofline_{problem}.svg")
                  for problem in dict.fromkeys(record["problem"] for record in records)]
        block = profile_table.render(records, [i for i in images if os.path.exists(i)],
                                     args.readme)
        if readme_block.update_file(args.readme, "profile", block, check_only=True):
            return EXIT_OK
        print(f"error: {args.readme}'s profile table differs from {args.source}: run "
              f"scripts/profile.sh --from {args.source} --update-readme", file=sys.stderr)
        return EXIT_FAILED
    images = [] if args.no_plot else draw(records, results)
    table_path = os.path.join(local if args.update_readme else results, "profile.md")
    os.makedirs(os.path.dirname(table_path), exist_ok=True)
    text = profile_table.render(records, images, table_path)
    with open(table_path, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(text)
    if args.update_readme:
        block = profile_table.render(records, images, args.readme)
        readme_block.update_file(args.readme, "profile", block)
        print(f"recorded: {results} and the README's profile table")
    failed = any(record.get("verdict") not in ("PASS", "UNCHECKED") for record in records)
    return EXIT_FAILED if failed else EXIT_OK


def profile(args, log_folder):
    ncu = find_ncu()
    known = available_metrics(ncu)
    metrics = [m for m in ALL_METRICS if known is None or base_name(m) in known
               or m.startswith(("device__", "launch__"))]
    missing = [m for m in ALL_METRICS if m not in metrics]
    if missing:
        print(f"note: this ncu cannot read {', '.join(missing)} here: left empty",
              file=sys.stderr)
    solution = args.solution or args.all
    extra, chosen = list(args.args), None
    if "--problem" in extra:
        at = extra.index("--problem")
        chosen = [p for p in "".join(extra[at + 1:at + 2]).split(",") if p]
        del extra[at:at + 2]
    records = []
    with open(os.path.join(log_folder, "profile.log"), "w", encoding="utf-8") as log:
        for chapter in select_chapters(args):
            executable = chapter["solution" if solution else "student"]
            if not executable:  # a build without solutions/ (a student's hand-out)
                raise ProfileError("this build has no solutions to profile (there is no "
                                   "solutions/): profile your own kernels, without --solution "
                                   "or --all", EXIT_NOT_BUILT)
            if not os.path.isfile(executable):
                raise ProfileError(f"{executable} is not built: cmake --build {args.build_dir}",
                                   EXIT_NOT_BUILT)
            # Without size flags the executables run the ladder's benchmark sizes (their defaults).
            for problem in chosen or offered_problems(executable):
                print(f"==> profiling chapter {chapter['number']} {problem}", file=sys.stderr)
                records.append(profile_problem(ncu, metrics, executable, problem, extra, log))
    return records


def draw(records, results):
    """A roofline per problem of @p records: results/roofline_PROBLEM.png and .svg."""
    try:
        import roofline  # matplotlib: imported only where rooflines are drawn
        return [path for problem in dict.fromkeys(record["problem"] for record in records)
                for path in roofline.roofline(records, problem,
                                              os.path.join(results, f"roofline_{problem}"))]
    except ImportError as error:
        print(f"note: rooflines skipped: {error} (install python3-matplotlib, then run "
              f"scripts/profile.sh --from {os.path.join(results, RECORD)})", file=sys.stderr)
        return []


def main(argv=None):
    args = parse_arguments(argv)
    try:
        return run(args)
    except (ProfileError, OSError, ValueError, NcuCsvError, readme_block.BlockError) as error:
        print(f"error: {error}", file=sys.stderr)
        return getattr(error, "status", EXIT_FAILED)


if __name__ == "__main__":
    sys.exit(main())
