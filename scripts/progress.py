#!/usr/bin/env python3
"""Where a student stands: each exercise judged by its chapter's own instruments (scripts/progress.sh
builds the student editions, runs this and documents the exit status; scripts/grade.py runs the
same engine over students' checkouts).

What a chapter is judged by comes from its student executable's description (`--describe`, one
JSON object): its exercises (each computes one or more problems) and its "checks", one per
criterion. An exercise is done only when every criterion of its problems holds:

  value      the executable's own check, from its machine-readable output (`--csv`): at small
             awkward sizes (the args of a described "value" check, else DEFAULT_VALUE_ARGS), and
             at the sizes of every run below that reports a result
  tests      the chapter's tests on the student's kernels (COURSE_CHECK=chNN ctest -L chNN; with
             no GPU, those labelled cpu too)
  memcheck, racecheck, synccheck, initcheck   (tool: the sanitizer's name) compute-sanitizer
             finds nothing at the check's args
  spills     (tool "spills") no stack frame and no local memory in the student's kernels, from
             `cuobjdump -res-usage` of the student's executable (no GPU needed); without cuobjdump,
             the local memory the run reports of the main kernel
  sass       (tool "sass") with "instruction": the instruction the chapter teaches is in the
             student's kernel; with "order": "prefetch": in the kernel's main loop every shared
             store stores data that a global load of an earlier trip brought (a load issued one
             trip early). Read from `cuobjdump -sass`. The kernel is the one a run at the check's
             args reports; with no GPU, the check's "kernel" (a regular expression on the readable
             name, e.g. "^ch05::product_kernel<"), else every kernel of the problem (by name)
  ncu        (tool "ncu", "metric", "max_ratio") the profiler's metric summed over the run's
             kernels is at most max_ratio times the solution's on the same args (plus
             NCU_SLACK, the noise of two identical runs)
  rate       (tool "rate", "grades") the student's rate against the solution's on the same GPU
             and args, as a grade: one star per grade reached (default 50, 80, 95% of the
             solution). It holds from the second grade on (two stars). With no solution built (a
             hand-out) it is the solution's rate recorded in results/ladder.csv for this GPU model
             and these sizes, named as such, or not measured when none is recorded.

Each criterion holds, fails, is not measured (the tool is missing, the counters are locked; it
says why) or needs a GPU. An exercise is: "done" (all hold), "failing" (one fails: each failed
criterion is one line with the hint to read), "not done" (the value check finds every element
wrong: the state it is shipped in), "unconfirmed" (the rest hold, some could not be measured
here), or with no GPU "needs a GPU" after its CPU criteria (tests, spills, sass). Standard library
only (and the course's own scripts/profile_kernels.py and tests/reliability/kernel_checks.py).
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "reliability"))

import course_chapters  # noqa: E402
from kernel_checks import SANITIZER_ERRORS, read_report, unusable  # noqa: E402
from profile_kernels import NcuCsvError, ProfileError, check_ncu_errors, parse_ncu  # noqa: E402

EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE, EXIT_NO_DEVICE, EXIT_ERROR = 0, 1, 2, 3, 4

PROBLEMS = ("matmul", "minplus", "conv2d", "conv1d")
# Small sizes that are multiples of nothing, so that every bounds check is exercised.
DEFAULT_VALUE_ARGS = ["-m", "67", "-n", "45", "-k", "33", "--height", "37", "--width", "29",
                      "--taps", "7"]
# One checked and one timed run, and not the previous chapter's kernels; added where the check's
# args do not say otherwise.
QUICK = {"--warmup": "0", "--reps": "1"}
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
DEFAULT_GRADES = (0.5, 0.8, 0.95)
GRADE_NEEDED = 2  # stars for the rate criterion to hold
DEFAULT_MAX_RATIO = 1.5
NCU_SLACK = 1024  # counts two identical runs of one kernel may differ by
RUN_TIMEOUT = 600
TOOL_TIMEOUT = 1800
LADDER = os.path.join(ROOT, "results", "ladder.csv")

HOLDS, FAILS, NOT_MEASURED, NEEDS_GPU = "holds", "fails", "not measured", "needs a GPU"
DONE, NOT_DONE, FAILING, UNCONFIRMED = "done", "not done", "failing", "unconfirmed"
GPU_NEEDED, NOT_CHECKED = "needs a GPU", "not checked"
NOT_COMPILING = "not checked: the chapter does not compile"


class ProgressError(Exception):
    """The build folder or an executable cannot be used; the message says what to do."""


class NoDevice(Exception):
    """An executable found no CUDA device; the message is its own."""


class Verdict:
    """One criterion on one problem: its name (the check's id), state and one line of detail."""

    def __init__(self, name, state, detail="", hint="", share=None, stars=None, shown=False):
        self.name, self.state, self.detail, self.hint = name, state, detail, hint
        self.share, self.stars = share, stars  # the rate criterion's
        self.shown = shown or state in (FAILS, NOT_MEASURED)  # printed under the exercise

    def line(self):
        hint = f" (read: {self.hint})" if self.hint and self.state == FAILS else ""
        state = f"{self.state}: " if self.state in (NOT_MEASURED, NEEDS_GPU) else ""
        return f"{self.name}: {state}{self.detail}{hint}"


class Exercise:
    def __init__(self, identifier, task, problems):
        self.id, self.task, self.problems = identifier, task, problems
        self.status, self.verdicts = NOT_CHECKED, []

    def grade(self):
        """The rate verdict with the lowest share among the exercise's problems (None: none)."""
        rates = [v for v in self.verdicts if v.share is not None]
        return min(rates, key=lambda v: v.share) if rates else None


# ---- running things -------------------------------------------------------------------------

def run(command, timeout, env=None):
    """(exit status, stdout, stderr); a missing program is a ProgressError, a timeout status
    'timeout'."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace",
                              timeout=timeout, env=env, check=False)
    except FileNotFoundError as error:
        raise ProgressError(f"{command[0]} not found: build the student editions first "
                            "(scripts/progress.sh does)") from error
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return done.returncode, done.stdout, done.stderr


def first_line(text, pattern=""):
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and re.search(pattern, line)]
    return lines[0] if lines else ""


def find_tool(name):
    """A CUDA tool: the environment variable of its name ($NCU, $COMPUTE_SANITIZER, $CUOBJDUMP;
    set to nothing: do without it), else on the PATH, else in the toolkit's bin folder
    ($CUDA_HOME or /usr/local/cuda); None when none is found."""
    variable = re.sub(r"\W", "_", name).upper()
    if variable in os.environ:
        return os.environ[variable] or None
    found = shutil.which(name)
    if found:
        return found
    path = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", name)
    return path if os.access(path, os.X_OK) else None


def with_defaults(args, defaults):
    """@p args with each flag of @p defaults (flag: value, or None for a switch) added unless
    present."""
    args = list(args)
    for flag, value in defaults.items():
        if flag not in args:
            args += [flag] if value is None else [flag, value]
    return args


def problem_args(problem, args):
    return list(args) if "--problem" in args else ["--problem", problem] + list(args)


def read_csv_rows(text):
    """The rows of an executable's --csv output (a header line, then one line per run)."""
    lines = [line for line in text.splitlines() if "," in line and not line.startswith(("==", '"'))]
    start = next((i for i, line in enumerate(lines) if line.startswith("device,")), None)
    return [] if start is None else list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


class Run:
    """One run of a chapter executable with --csv: its exit status, rows and error line."""

    def __init__(self, executable, problem, args, timeout=RUN_TIMEOUT):
        args = with_defaults(problem_args(problem, args), {"--csv": None, "--no-compare": None})
        self.command = [executable] + args
        self.shown = f"{os.path.basename(executable)} {' '.join(args)}"
        self.status, out, err = run(self.command, timeout)
        if self.status == EXIT_NO_DEVICE:
            raise NoDevice(first_line(err) or "no CUDA device")
        self.rows = read_csv_rows(out)
        self.error = first_line(err, "^error:") or first_line(err)

    def passed(self):
        return self.status == 0 and bool(self.rows) and all(r.get("status") == "PASS"
                                                            for r in self.rows)

    def kernels(self):
        return [r["kernel"] for r in self.rows if r.get("kernel")]

    def rate(self):
        rates = [float(r["rate"]) for r in self.rows if r.get("rate")]
        return max(rates) if rates and self.passed() else None

    def failure(self):
        """One line on why the run did not pass."""
        if self.status == "timeout":
            return f"{self.shown} did not finish in time (a loop that never ends?)"
        failed = [r for r in self.rows if r.get("status") == "FAIL"]
        if failed:
            row = failed[0]
            return (f"{self.shown}: FAIL, {row.get('mismatches')} of {row.get('compared')} "
                    f"elements wrong, {row.get('nans')} NaN")
        return f"{self.shown}: exit {self.status}" + (f": {self.error}" if self.error else "")

    def all_wrong(self):
        return any(r.get("status") == "FAIL" and r.get("compared") not in ("", "0")
                   and r.get("mismatches") == r.get("compared") for r in self.rows)


# ---- the chapter and its description ---------------------------------------------------------

def describe(chapter, required=True):
    """The chapter's description (`EXE --describe`), or None when not @p required and it cannot
    be had."""
    try:
        status, out, err = run([chapter.student, "--describe"], 60)
        if status != 0:
            raise ProgressError(f"{chapter.student} --describe failed (exit {status}): "
                                f"{first_line(err) or first_line(out)}")
        try:
            description = json.loads(out)
        except ValueError as error:
            raise ProgressError(f"{chapter.student} --describe printed no JSON ({error}): "
                                "rebuild the course") from error
    except ProgressError:
        if required:
            raise
        return None
    if not isinstance(description, dict) or not isinstance(description.get("exercises"), list):
        raise ProgressError(f"{chapter.student} --describe: no list of exercises")
    return description


def read_exercises(description):
    """The exercises of a description, in order, each with its problems."""
    exercises = {}
    for entry in description.get("exercises", []):
        problems = entry.get("problems") or [entry.get("problem")]
        exercise = exercises.setdefault(entry["id"], Exercise(entry["id"], entry.get("task", ""),
                                                              []))
        exercise.problems += [p for p in problems if p and p not in exercise.problems]
    return list(exercises.values())


def exercise_hint(exercise):
    return f"scripts/hint.sh {exercise.id}"


# ---- the executables' code: cuobjdump ---------------------------------------------------------

class Binary:
    """What cuobjdump reads from an executable: each kernel's resources and its SASS, by readable
    name ("ch05::product_kernel<course::PlusTimes>", as the executables report it)."""

    def __init__(self, executable):
        self.executable, self.error = executable, ""
        self.resources, self.sass = {}, {}
        cuobjdump = find_tool("cuobjdump")
        if not cuobjdump:
            self.error = "cuobjdump not found (it comes with the CUDA toolkit)"
            return
        status, out, err = run([cuobjdump, "-res-usage", executable], 300)
        if status != 0:
            self.error = f"cuobjdump -res-usage failed: {first_line(err) or status}"
            return
        for name, line in re.findall(r"Function ([^\s:]+):\s*\n\s*(REG:[^\n]*)", out):
            self.resources[name] = dict(re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line))
        status, out, err = run([cuobjdump, "-sass", executable], 300)
        if status != 0:
            self.error = f"cuobjdump -sass failed: {first_line(err) or status}"
            return
        parts = re.split(r"\n\s*Function : (\S+)\s*\n", out)
        for name, body in zip(parts[1::2], parts[2::2]):
            code = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", body)
            self.sass.setdefault(name, []).append([(int(a, 16), text.strip()) for a, text in code])
        self.names = readable_names(set(self.resources) | set(self.sass))

    def kernels(self, chapter_number):
        """{readable name: mangled} of the student's kernels: the chapter's namespace, not its
        bug hunt's."""
        prefix = f"ch{chapter_number:02d}::"
        return {readable: mangled for mangled, readable in self.names.items()
                if readable.startswith(prefix) and "::bug::" not in readable}


def readable_names(mangled):
    """{mangled: readable} without return type and parameters, through c++filt (cu++filt)."""
    names = sorted(mangled)
    tool = find_tool("cu++filt") or shutil.which("c++filt")
    demangled = names
    if tool and names:
        done = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True,
                              text=True, check=False)
        if done.returncode == 0 and len(done.stdout.splitlines()) == len(names):
            demangled = done.stdout.splitlines()
    return {m: strip_signature(d) for m, d in zip(names, demangled)}


def strip_signature(name):
    """"void ch01::k<1>(float const*, int)" -> "ch01::k<1>" (as the executables name kernels)."""
    name = name[5:] if name.startswith("void ") else name
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                return name[:i]
    return name


def problems_of_kernel(name):
    """The problems a kernel computes, by its name (its semiring or its own name)."""
    found = [p for p, word in (("matmul", "PlusTimes"), ("minplus", "MinPlus"),
                               ("conv2d", "conv2d"), ("conv1d", "conv1d")) if word in name]
    return found or list(PROBLEMS)


def opcode(instruction):
    return re.sub(r"^@!?U?P\w+\s+", "", instruction).split()[0] if instruction.strip() else ""


def has_instruction(code, instruction):
    return any(opcode(text) == instruction or opcode(text).startswith(instruction + ".")
               for _, text in code)


def registers_written(text):
    """(first register, count) that an instruction writes, or None (stores, branches...)."""
    fields = re.sub(r"^@!?U?P\w+\s+", "", text).split(None, 1)
    if len(fields) < 2 or re.match(r"(ST|RED|ATOM|BAR|BRA|EXIT|RET|CALL)", fields[0]):
        return None
    match = re.match(r"R(\d+)\b", fields[1])
    if not match:
        return None
    width = 4 if ".128" in fields[0] else 2 if ".64" in fields[0] else 1
    return int(match.group(1)), width


def same_trip_loads(code):
    """(loops with shared stores, shared stores in a loop whose data a global load of the same
    trip brought): a loop is the code from a backward branch's target to the branch."""
    loops, fed = 0, []
    for address, text in code:
        branch = re.search(r"\bBRA\s+(?:`\()?\.?\w*\s*0x([0-9a-f]+)", text)
        if not branch or opcode(text) != "BRA" or int(branch.group(1), 16) >= address:
            continue
        body = [(a, t) for a, t in code if int(branch.group(1), 16) <= a <= address]
        writer, stores = {}, 0  # register -> the opcode that last wrote it in this trip
        for a, t in body:
            op = opcode(t)
            if op.startswith("STS"):
                stores += 1
                source = re.search(r"R(\d+)\s*$", t)
                if source and any(writer.get(r, "").startswith("LDG")
                                  for r in range(int(source.group(1)),
                                                 int(source.group(1)) +
                                                 (4 if ".128" in op else 2 if ".64" in op else 1))):
                    fed.append(f"{t} at {a:#06x}")
            written = registers_written(t)
            if written:
                for r in range(written[0], written[0] + written[1]):
                    writer[r] = op
        loops += stores > 0
    return loops, fed


# ---- the criteria -----------------------------------------------------------------------------

class Judge:
    """Judges one chapter's exercises with its instruments; @p gpu False: the CPU criteria only."""

    def __init__(self, chapter, description, only=None, ladder=LADDER):
        self.chapter, self.description = chapter, description
        self.only, self.ladder = only, ladder
        self.solution = chapter.solution if os.path.exists(chapter.solution or "") else None
        self.gpu = True
        self.values, self.main_kernels = {}, {}  # problem -> Run, problem -> [kernel names]
        self._binary = None

    def binary(self):
        if self._binary is None:
            self._binary = Binary(self.chapter.student)
        return self._binary

    def wanted(self, identifier):
        return self.only is None or identifier in self.only

    def checks(self):
        return [c for c in self.description.get("checks", []) if isinstance(c, dict)
                and c.get("tool") not in ("value", "check") and self.wanted(c.get("id"))]

    def value_check(self):
        found = [c for c in self.description.get("checks", []) if isinstance(c, dict)
                 and c.get("tool") in ("value", "check")]
        return found[0] if found else {"id": "value", "args": DEFAULT_VALUE_ARGS}

    # -- value

    def value(self, problem):
        """The value criterion at small sizes (NoDevice without a GPU)."""
        check = self.value_check()
        run_ = Run(self.chapter.student, problem, with_defaults(check.get("args", []), QUICK))
        self.values[problem] = run_
        self.main_kernels.setdefault(problem, []).extend(run_.kernels())
        if run_.passed():
            return Verdict("value", HOLDS, f"PASS at {run_.shown}")
        return Verdict("value", FAILS, run_.failure(), check.get("hint", ""))

    # -- sanitizers

    def sanitizer(self, check, problem):
        tool, name = check["tool"], check.get("id", check["tool"])
        sanitizer = find_tool("compute-sanitizer")
        if not sanitizer:
            return Verdict(name, NOT_MEASURED, "compute-sanitizer not found (it comes with the "
                           "CUDA toolkit)")
        args = with_defaults(problem_args(problem, check.get("args", [])),
                             dict(QUICK, **{"--no-compare": None}))
        command = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERRORS),
                   "--print-limit", "10", self.chapter.student] + args
        code, out, err = run(command, TOOL_TIMEOUT)
        report, shown = out + "\n" + err, " ".join(args)
        if code == "timeout":
            return Verdict(name, FAILS, f"did not finish under {tool} at {shown}",
                           check.get("hint", ""))
        why = unusable(tool, code, report)
        if why and re.search(r"no CUDA device", report):
            return Verdict(name, NEEDS_GPU, "")
        if why:
            return Verdict(name, NOT_MEASURED, why)
        findings = read_report(report) or 0
        if findings or code == SANITIZER_ERRORS:
            finding = first_line(report, r"^=+ +(Invalid|Race|Barrier|Error|Uninitialized|"
                                         r"Warning|Divergent|Misaligned|Out-of-range)")
            finding = re.sub(r"^=+\s*", "", finding)
            return Verdict(name, FAILS, f"{tool} found errors at {shown}"
                           + (f": {finding}" if finding else ""), check.get("hint", ""))
        if code != 0:
            return Verdict(name, FAILS, f"exit {code} under {tool} at {shown}: "
                           f"{first_line(err, '^error:') or first_line(err)}",
                           check.get("hint", ""))
        return Verdict(name, HOLDS, f"{tool} clean at {shown}")

    # -- code: spills and instructions

    def kernels_of(self, check, problem):
        """{readable: mangled} of the student's kernels the check reads for @p problem, and how
        they were chosen; None when a run is needed to know."""
        kernels = self.binary().kernels(self.chapter.number)
        if check.get("kernel"):
            chosen = {r: m for r, m in kernels.items() if re.search(check["kernel"], r)}
            return chosen, f"matching {check['kernel']!r}"
        launched = self.main_kernels.get(problem)
        if launched:
            return {r: m for r, m in kernels.items() if r in launched}, "the run's kernel"
        if check.get("tool") == "spills":
            return ({r: m for r, m in kernels.items() if problem in problems_of_kernel(r)},
                    f"your {problem} kernels")
        return None, ""

    def spills(self, check, problem):
        name = check.get("id", "no-spills")
        binary = self.binary()
        if binary.error:
            run_ = self.values.get(problem)
            if run_ and run_.rows:
                local = [f"{r['kernel']}: {r['local_bytes']} bytes of local memory per thread"
                         for r in run_.rows if r.get("local_bytes") not in ("", "0", None)]
                return (Verdict(name, FAILS, "; ".join(local), check.get("hint", "")) if local
                        else Verdict(name, HOLDS, "no local memory in the run's kernel"))
            return Verdict(name, NOT_MEASURED, binary.error)
        kernels, how = self.kernels_of(check, problem)
        if not kernels:
            return Verdict(name, NOT_MEASURED, f"no kernel of yours found ({how})")
        bad = []
        for readable, mangled in sorted(kernels.items()):
            found = binary.resources.get(mangled, {})
            stack, local = int(found.get("STACK", 0)), int(found.get("LOCAL", 0))
            if stack or local:
                bad.append(f"{readable} has a {stack}-byte stack frame and {local} bytes of local "
                           "memory")
        if bad:
            return Verdict(name, FAILS, "; ".join(bad) + " (registers spilled, or an array the "
                           "compiler cannot keep in registers)", check.get("hint", ""))
        return Verdict(name, HOLDS, f"no stack frame or local memory in {len(kernels)} kernels")

    def sass(self, check, problem):
        name = check.get("id", "sass")
        binary = self.binary()
        if binary.error:
            return Verdict(name, NOT_MEASURED, binary.error)
        kernels, how = self.kernels_of(check, problem)
        if kernels is None:
            return Verdict(name, NEEDS_GPU, "which kernel runs is known from a run")
        if not kernels:
            return Verdict(name, NOT_MEASURED, f"no kernel of yours found ({how})")
        order, instruction = check.get("order"), check.get("instruction", "")
        missing = []
        for readable, mangled in sorted(kernels.items()):
            codes = binary.sass.get(mangled, [])
            if order == "prefetch":
                results = [same_trip_loads(code) for code in codes]
                if not any(loops for loops, _ in results):
                    missing.append(f"{readable} has no loop that stores to shared memory")
                for _, fed in results:
                    if fed:
                        missing.append(f"in {readable}'s loop, {fed[0]} stores what a global "
                                       "load of the same trip brought: nothing is loaded a trip "
                                       "early")
                        break
            elif not any(has_instruction(code, instruction) for code in codes):
                missing.append(f"no {instruction} in {readable}")
        if missing:
            return Verdict(name, FAILS, "; ".join(missing), check.get("hint", ""))
        what = "loads a trip early" if order == "prefetch" else f"{instruction} present"
        return Verdict(name, HOLDS, f"{what} ({', '.join(sorted(kernels))})")

    # -- profiler

    def ncu(self, check, problem):
        name, metric = check.get("id", "ncu"), check.get("metric", "")
        ncu = find_tool("ncu")
        if not ncu:
            return Verdict(name, NOT_MEASURED, "ncu (Nsight Compute) not found")
        if not self.solution:
            return Verdict(name, NOT_MEASURED, "no solution in this build to compare with")
        totals = []
        args = with_defaults(problem_args(problem, check.get("args", [])),
                             dict(QUICK, **{"--no-compare": None, "--no-check": None}))
        for executable in (self.chapter.student, self.solution):
            command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control",
                       "none", "--metrics", metric, executable] + args
            code, out, err = run(command, TOOL_TIMEOUT)
            try:
                check_ncu_errors(out + err)
                launches = parse_ncu(out)
            except ProfileError as error:
                return Verdict(name, NOT_MEASURED, str(error).split(":")[0])
            except NcuCsvError as error:
                return Verdict(name, NOT_MEASURED, f"ncu (exit {code}): {error}")
            values = [launch.get(metric) for launch in launches]
            if not any(isinstance(v, float) for v in values):
                return Verdict(name, NOT_MEASURED, f"ncu reported no {metric}")
            totals.append(sum(v for v in values if isinstance(v, float)))
        ratio = float(check.get("max_ratio", DEFAULT_MAX_RATIO))
        yours, solution = totals
        detail = f"{metric} {yours:,.0f}, the solution's {solution:,.0f} at {' '.join(args)}"
        if yours > ratio * solution + NCU_SLACK:
            return Verdict(name, FAILS, detail, check.get("hint", ""))
        return Verdict(name, HOLDS, detail)

    # -- rate

    def rate(self, check, problem):
        name = check.get("id", "rate")
        grades = sorted(float(g) for g in check.get("grades", DEFAULT_GRADES))
        args = check.get("args", [])
        runs = [Run(self.chapter.student, problem, args)]
        if not runs[0].passed():
            return Verdict(name, FAILS, "no rate: " + runs[0].failure(), check.get("hint", ""))
        self.main_kernels.setdefault(problem, []).extend(runs[0].kernels())
        if self.solution:
            # Alternately, twice each: the better of two runs (each a median), so that a passing
            # clock or another process is less likely to decide.
            solution = [Run(self.solution, problem, args)]
            runs.append(Run(self.chapter.student, problem, args))
            solution.append(Run(self.solution, problem, args))
            reference = max((r.rate() or 0) for r in solution)
            if not reference:
                return Verdict(name, NOT_MEASURED, "the solution's run failed: "
                               + solution[0].failure())
            against = "of the solution's rate on this GPU"
        else:
            reference, against = recorded_rate(self.ladder, self.chapter, problem, runs[0],
                                               args)
            if not reference:
                return Verdict(name, NOT_MEASURED, against)
        yours = max((r.rate() or 0) for r in runs)
        share = yours / reference
        stars = sum(share >= g for g in grades)
        unit = runs[0].rows[0].get("rate_unit", "")
        detail = (f"{'*' * stars or '-'} {share:.0%} {against} ({yours:.4g} against "
                  f"{reference:.4g} {unit} at {' '.join(args)}); {GRADE_NEEDED} stars "
                  f"({grades[GRADE_NEEDED - 1]:.0%}) needed")
        state = HOLDS if stars >= GRADE_NEEDED else FAILS
        return Verdict(name, state, detail, check.get("hint", ""), share, stars,
                       shown=not self.solution)

    def criterion(self, check, problem):
        tool = check.get("tool")
        if tool in SANITIZER_TOOLS:
            return self.sanitizer(check, problem)
        if tool == "spills":
            return self.spills(check, problem)
        if tool == "sass":
            return self.sass(check, problem)
        if tool == "ncu":
            return self.ncu(check, problem)
        if tool == "rate":
            return self.rate(check, problem)
        return Verdict(check.get("id", tool), NOT_MEASURED, f"unknown tool {tool!r}")


def sizes_key(problem, text):
    """The numbers of a sizes field ("m=4096 n=4096 k=4096", "4096", "2^24, 127 taps"), a square
    product's one number made three."""
    text = re.sub(r"(\d+)\^(\d+)", lambda m: str(int(m.group(1)) ** int(m.group(2))), text)
    numbers = tuple(int(n) for n in re.findall(r"\d+", text))
    if problem in ("matmul", "minplus") and len(numbers) == 1:
        numbers *= 3
    return numbers


def recorded_rate(ladder, chapter, problem, run_, args):
    """(the solution's rate recorded in results/ladder.csv on this GPU model at these sizes,
    what it is against) or (None, why there is none)."""
    row = run_.rows[0]
    device, sizes = row.get("device", ""), sizes_key(problem, row.get("sizes", ""))
    variant = args[args.index("--variant") + 1] if "--variant" in args[:-1] else ""
    names = {f"ch{chapter.number:02d}"} | ({f"ch{chapter.number:02d} {variant}"} if variant
                                            else set())
    try:
        with open(ladder, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        rows = []
    found = [r for r in rows if r.get("device") == device and r.get("problem") == problem
             and r.get("implementation") in names and r.get("status") == "PASS" and r.get("rate")
             and sizes_key(problem, r.get("sizes", "")) == sizes]
    if not found:
        return None, f"no recorded rate for {device} at {row.get('sizes')} (results/ladder.csv)"
    best = found[-1]
    return float(best["rate"]), (f"of the solution's recorded rate on {device} "
                                 f"(results/ladder.csv, {best.get('date')})")


# ---- the chapter's tests ------------------------------------------------------------------

def failure_text(name, output):
    """The test's name and the messages of its first failed assertion (Catch2's report), on one
    line."""
    expression, messages, collecting = "", [], False
    lines = output.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if "FAILED:" in line), len(lines))
    for line in lines[start:]:
        if "FAILED:" in line or line.startswith(("====", "----")):
            break
        if re.search(r"with messages?:|exception with message", line):
            collecting = True
        elif line.startswith("  ") and line.strip():
            if collecting:
                messages.append(line.strip())
            elif not expression:
                expression = line.strip()
        elif collecting and messages:
            break
    test = name.split(":", 1)[-1].strip()
    detail = messages or ([expression] if expression else ["failed"])
    return f"{test}: {'; '.join(detail)}"


def run_tests(chapter, build_dir, gpu):
    """The chapter's tests on the student's kernels: (number run, [(test name, failure)]); with
    no GPU those labelled cpu only."""
    with tempfile.TemporaryDirectory() as folder:
        junit = os.path.join(folder, "tests.xml")
        env = dict(os.environ, COURSE_CHECK=chapter.label)
        labels = ["-L", f"^{chapter.label}$"] + ([] if gpu else ["-L", "^cpu$"])
        # The executable's own test (chNN_slug.run) is left out: the value criterion ran it.
        try:
            status, out, err = run(["ctest", "--test-dir", build_dir] + labels +
                                   ["-E", r"\.run$", "--timeout", "600", "--output-junit", junit],
                                   TOOL_TIMEOUT, env)
        except ProgressError:
            raise ProgressError("ctest not found: install CMake") from None
        if not os.path.exists(junit):
            if re.search("No tests were found", out + err):
                return 0, []
            raise ProgressError(f"ctest -L {chapter.label} wrote no results (exit {status}): "
                                f"{first_line(err) or first_line(out)}")
        try:
            cases = list(ElementTree.parse(junit).getroot().iter("testcase"))
        except ElementTree.ParseError as error:
            raise ProgressError(f"ctest -L {chapter.label}: unreadable results: {error}") from error
    failed = [(case.get("name", ""), failure_text(case.get("name", ""),
                                                  case.findtext("system-out") or ""))
              for case in cases if case.get("status") == "fail" or case.find("failure") is not None]
    ran = [case for case in cases if case.get("status") != "notrun"]
    return len(ran), failed


def exercises_of_test(name, exercises):
    """The exercises a test checks: those it names ("6.6"), else those of the problems it names
    ("conv2d", "products"), else every one."""
    named = [e for e in exercises if re.search(rf"(?<![\d.]){re.escape(e.id)}(?![\d])", name)]
    if named:
        return named
    words = set(re.findall(r"[a-z0-9]+", name.lower()))
    problems = {p for p in PROBLEMS if p in words}
    if words & {"product", "products"}:
        problems |= {"matmul", "minplus"}
    return [e for e in exercises if problems & set(e.problems)] or list(exercises)


# ---- judging a chapter --------------------------------------------------------------------------

def judge_chapter(chapter, build_dir, only=None, gpu=True, ladder=LADDER):
    """Judges every exercise of @p chapter (chapter.exercises) with the criteria named in @p only
    (all: None); returns whether a GPU was there."""
    judge = Judge(chapter, chapter.description, only, ladder)
    exercises = chapter.exercises
    problems = [p for p in PROBLEMS if any(p in e.problems for e in exercises)]
    by_problem = {p: [] for p in problems}
    if gpu:
        try:
            for problem in problems:
                by_problem[problem].append(judge.value(problem))
        except NoDevice:
            gpu, by_problem = False, {p: [] for p in problems}
    judge.gpu = gpu
    for check in judge.checks():
        for problem in problems:
            if problem not in check.get("problems", problems):
                continue
            value = judge.values.get(problem)
            if check.get("tool") in SANITIZER_TOOLS + ("ncu", "rate") and not gpu:
                verdict = Verdict(check.get("id", check.get("tool")), NEEDS_GPU)
            elif value is not None and value.all_wrong():
                continue  # not done: nothing to judge yet
            else:
                try:
                    verdict = judge.criterion(check, problem)
                except NoDevice:
                    verdict = Verdict(check.get("id", check.get("tool")), NEEDS_GPU)
            by_problem[problem].append(verdict)
    tests = None
    if judge.wanted("tests"):
        tests = run_tests(chapter, build_dir, gpu)
    for exercise in exercises:
        verdicts = [v for p in exercise.problems for v in by_problem.get(p, [])]
        if tests is not None:
            mine = [text for name, text in tests[1] if exercise in exercises_of_test(name,
                                                                                     exercises)]
            verdicts += [Verdict("tests", FAILS, text, exercise_hint(exercise)) for text in mine]
            if tests[0] and not mine:
                verdicts.append(Verdict("tests", HOLDS, f"{tests[0]} tests"))
        for verdict in verdicts:
            verdict.hint = verdict.hint or exercise_hint(exercise)
        exercise.verdicts = verdicts
        states = {v.state for v in verdicts}
        if any(judge.values.get(p) and judge.values[p].all_wrong() for p in exercise.problems):
            exercise.status = NOT_DONE
        elif FAILS in states:
            exercise.status = FAILING
        elif not gpu:
            exercise.status = GPU_NEEDED
        elif NOT_MEASURED in states or NEEDS_GPU in states:
            exercise.status = UNCONFIRMED
        else:
            exercise.status = DONE
    return gpu


# ---- the report -------------------------------------------------------------------------------

def print_chapter(chapter, checked, gpu):
    print(f"chapter {chapter.number}: {chapter.title} ({chapter.kernels})"
          + (": does not compile (the compiler's first errors are above)"
             if chapter.not_built else ""))
    if not chapter.exercises:
        print("  its exercises cannot be listed until it compiles" if chapter.not_built
              else "  no exercises")
    rows = [[e.id, ", ".join(e.problems), e.task] for e in chapter.exercises]
    widths = [max((len(row[column]) for row in rows), default=0) for column in range(3)]
    for exercise, row in zip(chapter.exercises, rows):
        line = "  " + "  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths))
        if checked:
            line += f"  {exercise.status}"
            grade = exercise.grade()
            if grade is not None:
                line += f"  {'*' * grade.stars or '-'} {grade.share:.0%} of the solution"
        print(line.rstrip())
        indent = "  " + " " * widths[0] + "  "
        if not checked:
            continue
        for line in dict.fromkeys(v.line() for v in exercise.verdicts if v.shown):
            print(indent + line)
        if not gpu:
            held = sorted({v.name for v in exercise.verdicts if v.state == HOLDS})
            later = sorted({v.name for v in exercise.verdicts if v.state == NEEDS_GPU} |
                           {"value"})
            if held:
                print(f"{indent}holds on the CPU: {', '.join(held)}")
            print(f"{indent}needs a GPU: {', '.join(later)}")
    print()


def wanted_chapters(chapters, texts):
    """The chapters named by @p texts (ch01 or 1); a ValueError names one that is not there."""
    wanted = set()
    for text in texts:
        match = re.fullmatch(r"(?:ch)?0?(\d{1,2})", text)
        if not match:
            raise ValueError(f"{text!r} is not a chapter (ch01 or 1)")
        wanted.add(int(match.group(1)))
    unknown = wanted - {c.number for c in chapters}
    if unknown:
        raise ValueError(f"no chapter {', '.join(map(str, sorted(unknown)))} in this build "
                         f"(it has {', '.join(str(c.number) for c in chapters)})")
    return [c for c in chapters if c.number in wanted]


def load_chapters(build_dir, texts=(), not_built=(), solutions=None):
    """The build's chapters (those named by @p texts), each with its description and exercises;
    @p solutions: another build folder whose solution executables to compare with."""
    chapters = course_chapters.read_chapters(build_dir)
    if texts:
        chapters = wanted_chapters(chapters, texts)
    others = {c.label: c for c in course_chapters.read_chapters(solutions)} if solutions else {}
    for chapter in chapters:
        if chapter.label in others:
            chapter.solution = others[chapter.label].solution
        chapter.not_built = chapter.label in not_built
        chapter.description = describe(chapter, required=not chapter.not_built)
        chapter.exercises = read_exercises(chapter.description) if chapter.description else []
        for exercise in chapter.exercises:
            if chapter.not_built:
                exercise.status = NOT_COMPILING
    return chapters


def judge_all(chapters, build_dir, only=None, ladder=LADDER):
    """Judges every chapter that compiles; returns whether a GPU was there."""
    gpu = True
    for chapter in chapters:
        if not chapter.not_built:
            gpu = judge_chapter(chapter, build_dir, only, gpu, ladder)
    return gpu


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Judge every exercise of every chapter on your kernels by the chapter's own "
                    "instruments and print where you stand.")
    parser.add_argument("--build-dir", default="build", help="the configured and built folder")
    parser.add_argument("--not-built", action="append", default=[], metavar="chNN",
                        help="a chapter whose kernels do not compile: not checked")
    parser.add_argument("--check", action="append", metavar="ID",
                        help="only this criterion (a check's id, or tests; value always runs)")
    parser.add_argument("--solutions", metavar="BUILD",
                        help="compare with the solution executables of this build folder")
    parser.add_argument("--ladder", default=LADDER, metavar="CSV",
                        help="the solutions' recorded rates, for a build without solutions "
                             "(default results/ladder.csv)")
    parser.add_argument("chapters", nargs="*", metavar="chNN",
                        help="only these chapters (ch01 or 1); all by default")
    args = parser.parse_args(argv)
    try:
        try:
            chapters = load_chapters(args.build_dir, args.chapters, args.not_built, args.solutions)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_USAGE
        gpu = judge_all(chapters, args.build_dir, set(args.check) if args.check else None,
                        args.ladder)
        if gpu:
            print("Your exercises, judged on this GPU by each chapter's instruments:")
        else:
            print("No CUDA device here: the value, the sanitizers, the counters and the rate need "
                  "an NVIDIA GPU. What could be checked on the CPU:")
        print()
        for chapter in chapters:
            print_chapter(chapter, True, gpu)
        exercises = [e for c in chapters for e in c.exercises]
        counts = {s: sum(e.status == s for e in exercises)
                  for s in (DONE, FAILING, NOT_DONE, UNCONFIRMED, GPU_NEEDED)}
        if not gpu:
            print(f"{counts[FAILING]} of {len(exercises)} exercises fail a check that runs on the "
                  f"CPU; the others need a GPU to be judged.")
            return EXIT_NO_DEVICE
        summary = (f"{counts[DONE]} of {len(exercises)} exercises done, {counts[FAILING]} "
                   f"failing, {counts[NOT_DONE]} not done")
        if counts[UNCONFIRMED]:
            summary += f", {counts[UNCONFIRMED]} unconfirmed (a criterion not measured here)"
        broken = [str(c.number) for c in chapters if c.not_built]
        if broken:
            summary += f"; chapter {', '.join(broken)} does not compile"
        print(summary + ".")
        if counts[DONE] < len(exercises) or broken:
            print(f"A chapter's tests in full: COURSE_CHECK=chNN ctest --test-dir "
                  f"{args.build_dir} -L chNN --output-on-failure")
            return EXIT_NOT_DONE
        return EXIT_DONE
    except (ProgressError, course_chapters.ManifestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
