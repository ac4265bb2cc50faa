#!/usr/bin/env python3
"""Where a student stands: each exercise judged by its chapter's own instruments
(scripts/progress.sh builds the student editions, runs this and documents the exit status;
scripts/grade.py runs the same engine over students' checkouts).

The chapters are those of the build's course_chapters.json; what a chapter is judged by comes from
its student executable's description (`--describe`, documented in docs/pages/tools.md): its exercises
(each computes one or more problems) and its "checks", one per criterion, each with the command
line it runs at. A check of several problems (--problem a,b) is run once per problem, so that a
finding falls on that problem's exercises; a check of one problem is run once and holds or fails
for all of its problems. An exercise is done only when every criterion of its problems holds:

  value      the executable's own check (its --json output) at small awkward sizes
             (DEFAULT_VALUE_ARGS), and the value of every other run that reports one
  tests      the chapter's tests on the student's kernels (COURSE_CHECK=chNN ctest -L chNN; with
             no GPU, those labelled cpu too), but its chNN_slug.check.ID tests, which run the
             criteria below; a test that names an exercise (6.6) is that exercise's, else those
             of the problems it names
  memcheck, racecheck, synccheck   compute-sanitizer finds nothing and the run passes
  spills     no stack frame and no local memory in the student's kernels whose names match
             "kernel" (and compute the problem, by name): `cuobjdump -res-usage` of the student's
             executable, no GPU needed; without cuobjdump, the local memory the runs report
  sass       "instruction" in the student's kernel matching "kernel", from `cuobjdump -sass`: in
             each such kernel a run launched, or with no run (no GPU), in one of them. With
             "order": "prefetch" instead: in the kernel's loop every shared store stores what a
             global load of an earlier trip brought (a load issued a trip early)
  ncu        the profiler's "metric", summed over the run's kernels, is at most "max_ratio" times
             the solution's on the same command line (plus NCU_SLACK, the noise of two runs)
  rate       the student's rate against the solution's on the same GPU and command line, as the
             executable grades it (`--against`: one star per grade reached, "grades" of the
             description, e.g. 50, 80 and 95% of the solution; it holds from the second on): the
             solution and the student's kernels run alternately, twice each, each of the
             student's runs graded against the better of the solution's so far, and the better
             grade counts. With no solution built (a hand-out), against the solution's rate
             recorded in results/ladder.csv for this GPU model and these sizes, named as such;
             not measured when none is recorded.

A criterion holds, fails, is not measured (a tool is missing, the counters are locked: it says
why) or needs a GPU. An exercise is "done" (all hold), "failing" (one fails: each failed criterion
is one line with its hint), "not done" (the value check finds every element wrong: the state it is
shipped in; nothing else is run on it), "unconfirmed" (the rest hold, some could not be measured
here), or with no GPU "needs a GPU" once its CPU criteria (tests, spills, sass) hold. The tools are
found as $COMPUTE_SANITIZER, $CUOBJDUMP and $NCU (set empty: do without), on the PATH, or in
$CUDA_HOME/bin. Standard library only, with the course's scripts/course_description.py,
scripts/profile_kernels.py and tests/reliability/kernel_checks.py.
"""

import argparse
import csv
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

import course_description  # noqa: E402
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

    def __init__(self, name, state, detail="", hint="", grade=None, shown=False):
        self.name, self.state, self.detail, self.hint = name, state, detail, hint
        self.grade = grade  # the rate criterion's: the executable's grade (--json "grade")
        self.shown = shown or state in (FAILS, NOT_MEASURED)  # printed under the exercise

    def line(self, detail=None):
        hint = f" -- {self.hint}" if self.hint and self.state == FAILS else ""
        state = f"{self.state}: " if self.state in (NOT_MEASURED, NEEDS_GPU) else ""
        return f"{self.name}: {state}{self.detail if detail is None else detail}{hint}"


def verdict_lines(verdicts):
    """(name, state, line) per criterion among @p verdicts that is shown: those of several
    problems (the same check, state and hint) joined."""
    groups = {}
    for verdict in verdicts:
        if verdict.shown:
            key = (verdict.name, verdict.state, verdict.hint)
            groups.setdefault(key, (verdict, []))[1].append(verdict.detail)
    return [(key[0], key[1], verdict.line("; ".join(dict.fromkeys(details))))
            for key, (verdict, details) in groups.items()]


class Exercise:
    def __init__(self, identifier, task, problems):
        self.id, self.task, self.problems = identifier, task, problems
        self.status, self.verdicts = NOT_CHECKED, []

    def grade(self):
        """The rate criterion's grade (--json "grade") with the lowest share among the exercise's
        problems (None: none)."""
        grades = [v.grade for v in self.verdicts if v.grade is not None]
        return min(grades, key=lambda g: g.get("share") or 0) if grades else None


# ---- running things -------------------------------------------------------------------------

def run(command, timeout, env=None, stdin=None):
    """(exit status, stdout, stderr) of @p command, given @p stdin (text) as its input; a missing
    program is a ProgressError, a timeout status 'timeout'."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace",
                              timeout=timeout, env=env, check=False, input=stdin)
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


def args_for(check_args, problem):
    """A check's command line for one @p problem: a run of several problems (--problem a,b) is
    made one run per problem, so that a finding is the exercises' of that problem; a run of one
    problem stays as it is, its verdict shared by every problem of the check."""
    args = list(check_args)
    if "--problem" not in args[:-1]:
        return ["--problem", problem] + args
    where = args.index("--problem") + 1
    if problem in args[where].split(","):
        args[where] = problem
    return args


class Run:
    """One run of a chapter executable with --json: its exit status, results (one object per
    problem) and error line. NoDevice when the executable finds no CUDA device."""

    def __init__(self, executable, args, timeout=RUN_TIMEOUT):
        args = with_defaults(args, {"--json": None, "--no-compare": None})
        self.command = [executable] + args
        self.shown = f"{os.path.basename(executable)} {' '.join(args)}"
        self.status, out, err = run(self.command, timeout)
        if self.status == EXIT_NO_DEVICE:
            raise NoDevice(first_line(err) or "no CUDA device")
        self.results = []
        for line in out.splitlines():
            try:
                result = json.loads(line) if line.startswith("{") else None
            except ValueError:
                result = None
            if isinstance(result, dict):
                self.results.append(result)
        self.error = first_line(err, "^error:") or first_line(err)

    def passed(self):
        return self.status == 0 and bool(self.results) and all(
            r.get("verdict") in ("PASS", "UNCHECKED") for r in self.results)

    def kernels(self):
        """The kernels the run launched: (name, local bytes per thread)."""
        return [(k.get("name", ""), k.get("local_bytes") or 0) for r in self.results
                for k in r.get("kernels") or []]

    def rate(self):
        rates = [r["rate"] for r in self.results if isinstance(r.get("rate"), (int, float))]
        return max(rates) if rates and self.passed() else None

    def first(self, field):
        return self.results[0].get(field, "") if self.results else ""

    def failure(self):
        """One line on why the run did not pass."""
        if self.status == "timeout":
            return f"{self.shown} did not finish in time (a loop that never ends?)"
        failed = [r for r in self.results if r.get("verdict") == "FAIL"]
        if failed:
            check = failed[0].get("check") or {}
            return (f"{self.shown}: FAIL, {check.get('mismatches')} of {check.get('compared')} "
                    f"elements wrong, {check.get('nans')} NaN")
        return f"{self.shown}: exit {self.status}" + (f": {self.error}" if self.error else "")

    def all_wrong(self):
        checks = [r.get("check") or {} for r in self.results if r.get("verdict") == "FAIL"]
        return any(c.get("compared") and c.get("mismatches") == c.get("compared")
                   for c in checks)


# ---- the chapter and its description ---------------------------------------------------------

class Chapter:
    """One chapter of a build: its manifest entry (label, number, folder, student, solution,
    student_targets) and, once read, its description and exercises."""

    def __init__(self, entry):
        self.label, self.number = entry["label"], entry["number"]
        self.folder, self.student = entry["folder"], entry["student"]
        self.solution, self.targets = entry.get("solution", ""), entry.get("student_targets", [])
        self.title = self.folder.split("_", 1)[-1].replace("_", " ")
        self.kernels = f"chapters/{self.folder}/kernels.cuh"
        self.description, self.exercises, self.not_built = None, [], False

    def read(self, required=True):
        """Reads the description and exercises (left empty when not @p required and the
        executable cannot say: a chapter that does not compile now)."""
        try:
            self.description = course_description.describe(self.student)
        except course_description.DescriptionError as error:
            if required:
                raise ProgressError(str(error)) from error
            return
        if not isinstance(self.description, dict) or not isinstance(
                self.description.get("exercises"), list):
            raise ProgressError(f"{self.student} --describe: no list of exercises")
        self.title = self.description.get("title", self.title)
        self.exercises = read_exercises(self.description)


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
        self.names, self.problems = kernel_names(executable, set(self.resources) | set(self.sass))

    def kernels(self, chapter_number):
        """{readable name: mangled} of the student's kernels: the chapter's namespace, not its
        bug hunt's."""
        prefix = f"ch{chapter_number:02d}::"
        return {readable: mangled for mangled, readable in self.names.items()
                if readable.startswith(prefix) and "::bug::" not in readable}


def kernel_names(executable, mangled):
    """({mangled: readable}, {mangled: [problems it computes]}), as the executable names its
    kernels (`--kernel-names`); a name it does not answer for stays mangled, of every problem."""
    names = sorted(mangled)
    readable, problems = {m: m for m in names}, {m: list(PROBLEMS) for m in names}
    if names:
        status, out, _ = run([executable, "--kernel-names"], 60, stdin="\n".join(names) + "\n")
        for line in out.splitlines() if status == 0 else []:
            try:
                named = json.loads(line)
                readable[named["symbol"]], problems[named["symbol"]] = named["name"], named["problems"]
            except (ValueError, KeyError, TypeError):
                continue
    return readable, problems


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
    """Judges one chapter's exercises with its instruments. Runs are shared: a check whose
    command line names one problem is run once, its verdict holding for each of its problems."""

    def __init__(self, chapter, only=None, ladder=LADDER):
        self.chapter, self.description = chapter, chapter.description
        self.only, self.ladder = only, ladder
        self.solution = chapter.solution if os.path.exists(chapter.solution or "") else None
        self.values = {}  # problem -> the value criterion's Run
        self.launched = {}  # problem -> names of the kernels its runs launched
        self.verdicts = {}  # (check id, command line) -> Verdict
        self._binary = None

    def binary(self):
        if self._binary is None:
            self._binary = Binary(self.chapter.student)
        return self._binary

    def wanted(self, identifier):
        return self.only is None or identifier in self.only

    def checks(self):
        return [c for c in self.description.get("checks", []) if isinstance(c, dict)
                and self.wanted(c.get("id"))]

    def note(self, problem, run_):
        self.launched.setdefault(problem, []).extend(name for name, _ in run_.kernels())

    # -- value

    def value(self, problem):
        """The value criterion at small awkward sizes (NoDevice without a GPU)."""
        run_ = Run(self.chapter.student, with_defaults(["--problem", problem] + DEFAULT_VALUE_ARGS,
                                                       QUICK))
        self.values[problem] = run_
        self.note(problem, run_)
        if run_.passed():
            return Verdict("value", HOLDS, f"PASS at {run_.shown}")
        return Verdict("value", FAILS, run_.failure())

    # -- sanitizers

    def sanitizer(self, check, args):
        tool, name, hint = check["tool"], check.get("id", check["tool"]), check.get("hint", "")
        sanitizer = find_tool("compute-sanitizer")
        if not sanitizer:
            return Verdict(name, NOT_MEASURED, "compute-sanitizer not found (it comes with the "
                           "CUDA toolkit)")
        args = with_defaults(args, dict(QUICK, **{"--no-compare": None}))
        command = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERRORS),
                   "--print-limit", "10", self.chapter.student] + args
        code, out, err = run(command, TOOL_TIMEOUT)
        report, shown = out + "\n" + err, " ".join(args)
        if code == "timeout":
            return Verdict(name, FAILS, f"did not finish under {tool} at {shown}", hint)
        if code == EXIT_NO_DEVICE and re.search("no CUDA device", report):
            raise NoDevice(first_line(err, "^error:"))
        why = unusable(tool, code, report)
        if why:
            return Verdict(name, NOT_MEASURED, why)
        if read_report(report) or code == SANITIZER_ERRORS:
            finding = first_line(report, r"^=+ +(Invalid|Race|Barrier|Error|Uninitialized|"
                                         r"Warning|Divergent|Misaligned|Out-of-range)")
            finding = re.sub(r"^=+\s*", "", finding)
            return Verdict(name, FAILS, f"{tool} found errors at {shown}"
                           + (f": {finding}" if finding else ""), hint)
        if code != 0:
            return Verdict(name, FAILS, f"exit {code} under {tool} at {shown}: "
                           f"{first_line(err, '^error:') or first_line(err)}", hint)
        return Verdict(name, HOLDS, f"{tool} clean at {shown}")

    # -- code: spills and instructions

    def kernels_of(self, check, problem):
        """{readable: mangled} of the student's kernels whose names match the check's "kernel"
        (every one of the chapter's, without it) and that compute @p problem (by name)."""
        pattern = check.get("kernel") or ""
        return {r: m for r, m in self.binary().kernels(self.chapter.number).items()
                if re.search(pattern, r) and problem in self.binary().problems.get(m, PROBLEMS)}

    def spills(self, check, problem):
        name, hint = check.get("id", "no-spills"), check.get("hint", "")
        binary = self.binary()
        if binary.error:
            # Without cuobjdump: the local memory of the kernels the runs launched.
            launched = [(n, b) for p, runs in self.values.items() if p == problem
                        for n, b in runs.kernels() if re.search(check.get("kernel") or "", n)]
            if not launched:
                return Verdict(name, NOT_MEASURED, binary.error)
            local = sorted({f"{n}: {b} bytes of local memory per thread" for n, b in launched
                            if b})
            return (Verdict(name, FAILS, "; ".join(local), hint) if local else
                    Verdict(name, HOLDS, "no local memory in the kernels the run launched"))
        kernels = self.kernels_of(check, problem)
        if not kernels:
            return Verdict(name, NOT_MEASURED, f"none of your {problem} kernels found")
        bad = []
        for readable, mangled in sorted(kernels.items()):
            found = binary.resources.get(mangled, {})
            stack, local = int(found.get("STACK", 0)), int(found.get("LOCAL", 0))
            if stack or local:
                bad.append(f"{readable} has a {stack}-byte stack frame and {local} bytes of local "
                           "memory")
        if bad:
            return Verdict(name, FAILS, "; ".join(bad), hint)
        return Verdict(name, HOLDS, f"no stack frame or local memory in {len(kernels)} kernels")

    def sass(self, check, problem):
        """The instruction (or the prefetch order) in the student's kernel: in each kernel of
        the check's that a run launched, or with no run known, in one of them."""
        name, hint = check.get("id", "sass"), check.get("hint", "")
        binary = self.binary()
        if binary.error:
            return Verdict(name, NOT_MEASURED, binary.error)
        kernels = self.kernels_of(check, problem)
        launched = {r: m for r, m in kernels.items() if r in self.launched.get(problem, [])}
        if not kernels:
            return Verdict(name, NOT_MEASURED, f"none of your {problem} kernels found")
        order, instruction = check.get("order"), check.get("instruction", "")
        missing = {}
        for readable, mangled in sorted((launched or kernels).items()):
            codes = binary.sass.get(mangled, [])
            if order == "prefetch":
                results = [same_trip_loads(code) for code in codes]
                fed = next((f for _, f in results if f), [])
                if not any(loops for loops, _ in results):
                    missing[readable] = f"{readable} has no loop that stores to shared memory"
                elif fed:
                    missing[readable] = (f"in {readable}'s loop, {fed[0]} stores what a global "
                                         "load of the same trip brought: nothing is loaded a "
                                         "trip early")
            elif not any(has_instruction(code, instruction) for code in codes):
                missing[readable] = f"no {instruction} in {readable}"
        what = "loads a trip early" if order == "prefetch" else f"{instruction} present"
        if launched and missing:
            return Verdict(name, FAILS, "; ".join(missing.values()), hint)
        if not launched and len(missing) == len(kernels):
            return Verdict(name, FAILS, "; ".join(missing.values()), hint)
        held = sorted(set(launched or kernels) - set(missing))
        return Verdict(name, HOLDS, f"{what} ({', '.join(held)})")

    # -- profiler

    @staticmethod
    def ncu_total(executable, args, metric, options=()):
        """(the metric summed over the run's kernels, "") or (None, why it was not measured);
        @p options go to ncu (e.g. --kernel-name). NoDevice without a GPU."""
        ncu = find_tool("ncu")
        if not ncu:
            return None, "ncu (Nsight Compute) not found"
        command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control",
                   "none", "--metrics", metric] + list(options) + [executable] + args
        code, out, err = run(command, TOOL_TIMEOUT)
        if code == "timeout":
            return None, f"ncu did not finish in {TOOL_TIMEOUT} s"
        try:
            check_ncu_errors(out + err)
            launches = parse_ncu(out)
        except ProfileError as error:
            if "no CUDA device" in str(error):
                raise NoDevice(str(error)) from error
            return None, str(error).split(":")[0]
        except NcuCsvError as error:
            return None, f"ncu (exit {code}): {error}"
        values = [launch.get(metric) for launch in launches]
        if not any(isinstance(v, float) for v in values):
            return None, f"ncu reported no {metric}"
        return sum(v for v in values if isinstance(v, float)), ""

    def ncu(self, check, args):
        name, metric = check.get("id", "ncu"), check.get("metric", "")
        if not self.solution:
            return Verdict(name, NOT_MEASURED, "no solution in this build to compare with")
        args = with_defaults(args, dict(QUICK, **{"--no-compare": None, "--no-check": None}))
        totals = []
        for executable in (self.chapter.student, self.solution):
            total, why = self.ncu_total(executable, args, metric)
            if total is None:
                return Verdict(name, NOT_MEASURED, why)
            totals.append(total)
        ratio = float(check.get("max_ratio", DEFAULT_MAX_RATIO))
        yours, solution = totals
        detail = f"{metric} {yours:,.0f}, the solution's {solution:,.0f} at {' '.join(args)}"
        if yours > ratio * solution + NCU_SLACK:
            return Verdict(name, FAILS, detail, check.get("hint", ""))
        return Verdict(name, HOLDS, detail)

    # -- rate

    def rate(self, check, args):
        name, hint = check.get("id", "rate"), check.get("hint", "")
        graded = []  # the student's runs, each graded by the executable against a reference rate
        if self.solution:
            # Alternately, twice each, each of the student's runs graded against the better of
            # the solution's so far; the better grade counts, so that a passing clock change or
            # another process is less likely to decide.
            reference = 0
            for _ in range(2):
                solution = Run(self.solution, args)
                reference = max(reference, solution.rate() or 0)
                if not reference:
                    return Verdict(name, NOT_MEASURED, "the solution's run failed: "
                                   + solution.failure())
                graded.append(Run(self.chapter.student, args + ["--against", repr(reference)]))
                if not graded[-1].passed():
                    return Verdict(name, FAILS, "no rate: " + graded[-1].failure(), hint)
            against = "of the solution's rate on this GPU"
        else:
            first = Run(self.chapter.student, args)
            if not first.passed():
                return Verdict(name, FAILS, "no rate: " + first.failure(), hint)
            reference, against = recorded_rate(self.ladder, self.chapter, first)
            if not reference:
                return Verdict(name, NOT_MEASURED, against)
            graded.append(Run(self.chapter.student, args + ["--against", repr(reference)]))
            if not graded[-1].passed():
                return Verdict(name, FAILS, "no rate: " + graded[-1].failure(), hint)
        results = [r for run_ in graded for r in run_.results if isinstance(r.get("grade"), dict)]
        if not results:
            return Verdict(name, NOT_MEASURED, f"{graded[-1].shown} reported no grade")
        best = max(results, key=lambda r: r["grade"].get("share") or 0)
        grade = best["grade"]
        detail = (f"{grade.get('stars_text')} {grade.get('share_text')} {against} "
                  f"({best.get('rate_text')} against {grade.get('against_text')} "
                  f"{best.get('unit')} at {' '.join(args)}); {grade.get('stars_to_pass')} stars "
                  f"({grade.get('needed_text')}) needed")
        state = HOLDS if grade.get("passes") else FAILS
        return Verdict(name, state, detail, hint, grade, shown=not self.solution)

    def criterion(self, check, problem):
        """The check's verdict for @p problem (a run on a GPU may raise NoDevice)."""
        tool = check.get("tool")
        args = args_for(check.get("args", []), problem)
        key = (check.get("id"), tuple(args) if tool not in ("sass", "spills") else problem)
        if key not in self.verdicts:
            if tool in SANITIZER_TOOLS:
                verdict = self.sanitizer(check, args)
            elif tool == "spills":
                verdict = self.spills(check, problem)
            elif tool == "sass":
                verdict = self.sass(check, problem)
            elif tool == "ncu":
                verdict = self.ncu(check, args)
            elif tool == "rate":
                verdict = self.rate(check, args)
            else:
                verdict = Verdict(check.get("id", tool), NOT_MEASURED, f"unknown tool {tool!r}")
            self.verdicts[key] = verdict
        return self.verdicts[key]


def sizes_key(problem, text):
    """The numbers of a sizes field ("m=4096 n=4096 k=4096", "4096", "2^24, 127 taps"), a square
    product's one number made three."""
    text = re.sub(r"(\d+)\^(\d+)", lambda m: str(int(m.group(1)) ** int(m.group(2))), text)
    numbers = tuple(int(n) for n in re.findall(r"\d+", text))
    if problem in ("matmul", "minplus") and len(numbers) == 1:
        numbers *= 3
    return numbers


def recorded_rate(ladder, chapter, run_):
    """(the solution's rate recorded in results/ladder.csv on this GPU model at these sizes,
    what it is against) or (None, why there is none). The ladder records a chapter at its defaults
    ("ch03") and at the best variant its description names ("ch03 dispatch"); the run's launch
    choices say which of the two it ran."""
    device, sizes, problem = run_.first("device"), run_.first("sizes"), run_.first("problem")
    best = (chapter.description or {}).get("best_variant") or ""
    at_best = best and (run_.first("choices") or {}).get("variant") == best
    names = {f"{chapter.label} {best}" if at_best else chapter.label}
    try:
        with open(ladder, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        rows = []
    found = [r for r in rows if r.get("device") == device and r.get("problem") == problem
             and r.get("implementation") in names and r.get("status") == "PASS" and r.get("rate")
             and sizes_key(problem, r.get("sizes", "")) == sizes_key(problem, sizes)]
    if not found:
        return None, f"no recorded rate for {device} at {sizes} (results/ladder.csv)"
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
        # The executable's own test (chNN_slug.run) is left out: the value criterion ran it;
        # and so are the tests of each criterion (chNN_slug.check.ID): they are this engine.
        try:
            status, out, err = run(["ctest", "--test-dir", build_dir] + labels +
                                   ["-E", r"\.run$|\.check\.", "--timeout", "600",
                                    "--output-junit", junit],
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
    judge = Judge(chapter, only, ladder)
    exercises = chapter.exercises
    problems = [p for p in PROBLEMS if any(p in e.problems for e in exercises)]
    by_problem = {p: [] for p in problems}
    if gpu:
        try:
            for problem in problems:
                by_problem[problem].append(judge.value(problem))
        except NoDevice:
            gpu, by_problem = False, {p: [] for p in problems}
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
    printed = {}  # a criterion's line -> the exercise under which it was printed
    for exercise, row in zip(chapter.exercises, rows):
        line = "  " + "  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths))
        if checked:
            line += f"  {exercise.status}"
            grade = exercise.grade()
            if grade is not None:
                line += f"  {grade.get('stars_text')} {grade.get('share_text')} of the solution"
        print(line.rstrip())
        indent = "  " + " " * widths[0] + "  "
        if not checked:
            continue
        for name, _, text in verdict_lines(exercise.verdicts):
            print(indent + (f"{name}: as for {printed[text]}" if text in printed else text))
            printed.setdefault(text, exercise.id)
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
    try:
        chapters = [Chapter(entry) for entry in course_description.read_manifest(build_dir)]
        others = ({e["label"]: e for e in course_description.read_manifest(solutions)}
                  if solutions else {})
    except course_description.DescriptionError as error:
        raise ProgressError(str(error)) from error
    if texts:
        chapters = wanted_chapters(chapters, texts)
    for chapter in chapters:
        if chapter.label in others:
            chapter.solution = others[chapter.label].get("solution", "")
        chapter.not_built = chapter.label in not_built
        chapter.read(required=not chapter.not_built)
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


def list_targets(build_dir, texts):
    """Prints "chNN TARGET..." for each chapter of the build (progress.sh builds them)."""
    try:
        chapters = [Chapter(entry) for entry in course_description.read_manifest(build_dir)]
        if texts:
            chapters = wanted_chapters(chapters, texts)
    except course_description.DescriptionError as error:
        raise ProgressError(str(error)) from error
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    for chapter in chapters:
        print(" ".join([chapter.label] + list(chapter.targets)))
    return EXIT_DONE


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
    parser.add_argument("--targets", action="store_true",
                        help="only list each chapter's label and the targets that build it")
    parser.add_argument("chapters", nargs="*", metavar="chNN",
                        help="only these chapters (ch01 or 1); all by default")
    args = parser.parse_args(argv)
    try:
        if args.targets:
            return list_targets(args.build_dir, args.chapters)
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
    except ProgressError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
