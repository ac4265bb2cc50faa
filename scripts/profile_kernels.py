#!/usr/bin/env python3
"""What the profiler says: scripts/profile.sh runs this (its header documents the options, the
files and the exit status). Each problem runs once under Nsight Compute (`--problem P --warmup 0
--reps 1 --no-compare --no-check --json`, then the user's arguments) with the metrics of METRICS;
the chapter's main kernel is the one that took longest (a pre-pass that pads or transposes takes
far less), and its last launch is reported. ncu flushes the caches before each counter pass and
leaves the clocks as the GPU sets them (`--clock-control none`), so the time is close to what the
executables report. Standard library only (the rooflines need matplotlib, and are skipped with a
note without it).
"""

import argparse
import csv
import io
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

# The metric set: (ncu metric, column of profile.csv). Kept fixed so that every chapter is read
# the same way; docs/pages/tools.md explains each.
METRICS = [
    ("gpu__time_duration.sum", "time_ns"),
    ("dram__bytes_read.sum", "dram_read_bytes"),
    ("dram__bytes_write.sum", "dram_write_bytes"),
    ("lts__t_sectors_srcunit_tex_op_read.sum", "l2_read_sectors"),
    ("lts__t_sectors_srcunit_tex_op_write.sum", "l2_write_sectors"),
    ("smsp__inst_executed_op_shared_ld.sum", "shared_load_requests"),
    ("smsp__inst_executed_op_shared_st.sum", "shared_store_requests"),
    ("smsp__inst_executed_op_ldsm.sum", "ldmatrix_requests"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared_load_wavefronts"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared_store_wavefronts"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "ldmatrix_wavefronts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared_load_conflicts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared_store_conflicts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum", "ldmatrix_conflicts"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct"),
    ("launch__registers_per_thread", "registers"),
    ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "fma_pipe_pct"),
    ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pipe_pct"),
    ("sm__inst_issued.avg.pct_of_peak_sustained_active", "issue_pct"),
    # The roofs of the GPU the run was made on, at the clocks it ran at.
    ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "ffma_per_cycle"),
    ("sm__cycles_elapsed.avg.per_second", "sm_hz"),
    ("dram__bytes.sum.peak_sustained", "dram_bytes_per_cycle"),
    ("dram__cycles_elapsed.avg.per_second", "dram_hz"),
    ("lts__t_bytes.sum.peak_sustained", "l2_bytes_per_cycle"),
    ("lts__cycles_elapsed.avg.per_second", "l2_hz"),
    ("device__attribute_display_name", "device"),
    ("device__attribute_multiprocessor_count", "sms"),
    ("device__attribute_compute_capability_major", "cc_major"),
    ("device__attribute_compute_capability_minor", "cc_minor"),
]
# Why warps waited: the average number of warps stalled for each reason per issued instruction.
STALL_REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss",
                 "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle",
                 "misc", "no_instruction", "not_selected", "short_scoreboard", "sleeping",
                 "tex_throttle", "wait"]
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
ALL_METRICS = [metric for metric, _ in METRICS] + [STALL_METRIC.format(r) for r in STALL_REASONS]

# Dense TF32 tensor-core FLOP per SM per clock, by compute capability (from NVIDIA's data sheets:
# A100 156 TFLOP/s, RTX 3090 35.6, L4 60, H100 SXM 495, each at its boost clock). 0: unknown.
# The same rule as the executables' (DeviceInfo::tf32_peak_flops in common/): a Hopper's tensor
# cores are rated at 1830 MHz, so its peak is 494.7 TFLOP/s whatever clock the SMs ran at.
TF32_FLOP_PER_SM_CYCLE = {(8, 0): 1024, (8, 6): 256, (8, 9): 512, (9, 0): 2048}
TENSOR_RATED_HZ = {9: 1.83e9}

PROBLEMS = ("matmul", "minplus", "conv2d", "conv1d")
# The columns of profile.csv, in order.
COLUMNS = (["chapter", "edition", "problem", "sizes", "status", "kernel", "work", "work_unit",
            "rate", "intensity_dram", "intensity_l2", "peak_compute", "peak_dram", "peak_l2",
            "stall_1", "stall_1_ratio", "stall_2", "stall_2_ratio"]
           + [column for _, column in METRICS])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def work_of(problem, sizes):
    """(operations, unit) for @p problem at @p sizes, as the course reports them: FLOP for
    matmul and the convolutions (a multiply-add is two), min-plus operations (an add and a min
    per step) for minplus."""
    numbers = {key: int(value) for key, value in re.findall(r"([a-z]+)=(\d+)", sizes)}
    if problem in ("matmul", "minplus"):
        work = 2 * numbers["m"] * numbers["n"] * numbers["k"]
        return work, ("FLOP" if problem == "matmul" else "min-plus op")
    if problem == "conv2d":
        image = re.search(r"image (\d+)x(\d+) mask (\d+)x(\d+)", sizes)
        if not image:
            raise ValueError(f"no conv2d sizes in {sizes!r}")
        h, w, mk, ml = (int(group) for group in image.groups())
        return 2 * h * w * mk * ml, "FLOP"
    if problem == "conv1d":
        return 2 * numbers["n"] * numbers["taps"], "FLOP"
    raise ValueError(f"unknown problem {problem!r}")


def derive(problem, sizes, launch):
    """The row of profile.csv for @p launch (a dict from parse_ncu) of @p problem at @p sizes."""
    row = {column: launch.get(metric, "") for metric, column in METRICS}
    work, unit = work_of(problem, sizes)
    seconds = float(row["time_ns"]) * 1e-9 if row["time_ns"] != "" else 0.0
    dram = profile_table.total(row, "dram_read_bytes", "dram_write_bytes")
    l2 = 32.0 * profile_table.total(row, "l2_read_sectors", "l2_write_sectors")
    row.update({
        "problem": problem, "sizes": sizes, "kernel": short_name(launch.get("Kernel Name", "")),
        "work": work, "work_unit": unit,
        "rate": work / seconds if seconds > 0 else "",
        "intensity_dram": work / dram if dram > 0 else "",
        "intensity_l2": work / l2 if l2 > 0 else "",
    })
    # The roofs in operations/s and bytes/s: the FP32 FMA rate (two FLOP per FMA; min-plus: one
    # add and one min per step, each at the FMA rate, so one operation per FMA slot), the DRAM and
    # the L2 bandwidth. The roofline draws matmul's TF32 rate (tf32_peak) beside them.
    for roof, per_cycle, hz, per_slot in (
            ("peak_compute", "ffma_per_cycle", "sm_hz", 1 if problem == "minplus" else 2),
            ("peak_dram", "dram_bytes_per_cycle", "dram_hz", 1),
            ("peak_l2", "l2_bytes_per_cycle", "l2_hz", 1)):
        row[roof] = as_float(row[per_cycle]) * as_float(row[hz]) * per_slot or ""
    stalls = sorted(((launch[STALL_METRIC.format(reason)], reason) for reason in STALL_REASONS
                     if isinstance(launch.get(STALL_METRIC.format(reason)), float)),
                    reverse=True) + [("", "")] * 2
    for place in (1, 2):
        row[f"stall_{place}_ratio"], row[f"stall_{place}"] = stalls[place - 1]
    return row


def tf32_peak(row):
    """The dense TF32 tensor-core rate of the GPU of @p row in FLOP/s; 0 when unknown."""
    try:
        key = (int(row["cc_major"]), int(row["cc_minor"]))
        clock = min(float(row["sm_hz"]), TENSOR_RATED_HZ.get(key[0], float("inf")))
        return TF32_FLOP_PER_SM_CYCLE.get(key, 0) * float(row["sms"]) * clock
    except (KeyError, TypeError, ValueError):
        return 0.0


def short_name(kernel):
    """The kernel's name without its parameter list: `ch04::product_kernel<course::PlusTimes>`."""
    depth, cut = 0, len(kernel)
    for index, char in enumerate(kernel):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "(" and depth == 0:
            cut = index
            break
    name = kernel[:cut].strip()
    return name[len("void "):] if name.startswith("void ") else name


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


def profile_problem(ncu, metrics, chapter, edition, executable, problem, extra, log):
    """Profiles one problem; returns its row of profile.csv."""
    command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--metrics", ",".join(metrics), executable, "--problem", problem, "--warmup", "0",
               "--reps", "1", "--no-compare", "--no-check", "--json"] + extra
    log.write("$ " + " ".join(command) + "\n")
    result = subprocess.run(command, capture_output=True, text=True)
    log.write(result.stdout + result.stderr)
    check_ncu_errors(result.stdout + result.stderr)
    if result.returncode == EXIT_USAGE:
        message = (result.stderr.strip().splitlines() or ["bad command line"])[-1]
        raise ProfileError(f"{os.path.basename(executable)}: {message}", EXIT_USAGE)
    course_lines = [line for line in result.stdout.splitlines()
                    if not line.startswith('"') and "," in line and not line.startswith("==")]
    course_rows = list(csv.DictReader(io.StringIO("\n".join(course_lines))))
    if not course_rows or "sizes" not in course_rows[-1]:
        raise ProfileError(f"{os.path.basename(executable)} --problem {problem} printed no "
                           f"result (exit {result.returncode}); see the log", EXIT_CUDA)
    launches = parse_ncu(result.stdout)
    main = max(launches, key=lambda launch: as_float(launch.get("gpu__time_duration.sum")))
    last = [launch for launch in launches if launch.get("Kernel Name") == main.get("Kernel Name")]
    row = derive(problem, course_rows[-1]["sizes"], last[-1])
    row.update({"chapter": chapter, "edition": edition, "status": course_rows[-1]["status"]})
    return row


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({c: f"{row[c]:.6g}" if isinstance(row.get(c), float) else row.get(c, "")
                          for c in COLUMNS} for row in rows)


def read_csv(path):
    """The rows of a profile.csv, numbers as floats."""
    with open(path, encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    missing = [column for column in COLUMNS if column not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{path}: not a profile CSV: missing columns {', '.join(missing[:5])}"
                         + (", ..." if len(missing) > 5 else ""))
    if not rows:
        raise ValueError(f"{path}: no rows")
    for row in rows:
        for key, value in row.items():
            try:
                row[key] = float(value) if key not in ("chapter", "device") and value else value
            except ValueError:
                pass
    return rows


def parse_arguments(argv):
    """The options of scripts/profile.sh, whose header documents them (it answers --help)."""
    parser = argparse.ArgumentParser(prog="scripts/profile.sh", add_help=False)
    parser.add_argument("chapter", nargs="?")
    parser.add_argument("args", nargs=argparse.REMAINDER)  # for the chapter's executable
    for flag in ("--solution", "--all", "--update-readme", "--no-plot", "--check"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    for option in ("--results", "--from-csv"):
        parser.add_argument(option)
    args = parser.parse_args(argv)
    if "--solution" in args.args:  # also after the chapter: the executables have no such flag
        args.args.remove("--solution")
        args.solution = True
    if not args.all and not args.chapter and not args.from_csv:
        parser.error("name a chapter (e.g. scripts/profile.sh 4), or pass --all")
    if args.check and not args.from_csv:
        parser.error("--check goes with --from-csv")
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
    recorded = os.path.join(results, "profile.csv")
    os.makedirs(results, exist_ok=True)
    if args.from_csv:
        rows = read_csv(args.from_csv)
        if args.update_readme and not (os.path.exists(recorded)
                                       and os.path.samefile(args.from_csv, recorded)):
            shutil.copyfile(args.from_csv, recorded)  # the README's table is checked against it
    else:
        os.makedirs(local, exist_ok=True)
        write_csv(profile(args, local), recorded)
        rows = read_csv(recorded)
    if args.check:
        # The rooflines recorded beside the CSV, as --update-readme leaves them.
        folder = args.results or os.path.dirname(os.path.abspath(args.from_csv))
        images = [os.path.join(folder, f"roofline_{problem}.svg")
                  for problem in dict.fromkeys(row["problem"] for row in rows)]
        block = profile_table.render(rows, [i for i in images if os.path.exists(i)], args.readme)
        if readme_block.update_file(args.readme, "profile", block, check_only=True):
            return EXIT_OK
        print(f"error: {args.readme}'s profile table differs from {args.from_csv}: run "
              f"scripts/profile.sh --from-csv {args.from_csv} --update-readme", file=sys.stderr)
        return EXIT_FAILED
    images = [] if args.no_plot else draw(rows, results)
    table_path = os.path.join(local if args.update_readme else results, "profile.md")
    os.makedirs(os.path.dirname(table_path), exist_ok=True)
    text = profile_table.render(rows, images, table_path)
    with open(table_path, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(text)
    if args.update_readme:
        block = profile_table.render(rows, images, args.readme)
        readme_block.update_file(args.readme, "profile", block)
        print(f"recorded: {results} and the README's profile table")
    failed = any(row.get("status") not in ("PASS", "UNCHECKED") for row in rows)
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
    rows = []
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
                rows.append(profile_problem(ncu, metrics, chapter["number"],
                                            "solution" if solution else "student", executable,
                                            problem, extra, log))
    return rows


def draw(rows, results):
    """A roofline per problem of @p rows: results/roofline_PROBLEM.png and .svg."""
    try:
        import roofline  # matplotlib: imported only where rooflines are drawn
        tf32 = tf32_peak(rows[0])
        return [path for problem in dict.fromkeys(row["problem"] for row in rows)
                for path in roofline.roofline(rows, problem,
                                              os.path.join(results, f"roofline_{problem}"), tf32)]
    except ImportError as error:
        print(f"note: rooflines skipped: {error} (install python3-matplotlib, then run "
              f"scripts/profile.sh --from-csv {os.path.join(results, 'profile.csv')})",
              file=sys.stderr)
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
