"""Stand-ins for a chapter's executables and for the tools that judge them (ctest,
compute-sanitizer, cuobjdump, ncu), shared by the tests of scripts/progress.py, grade.py and
predict.py. Each stand-in does what its environment variables say, so that a test can plant one
mistake at a time and see the right criterion catch it:

  FAKE_DESCRIBE           the file `--describe` prints
  FAKE_<PROBLEM>          pass, all-wrong, some-wrong (the student's edition), no-device:
                          the executable's check (its runs print --json's objects)
  FAKE_RATE_STUDENT, FAKE_RATE_SOLUTION   the rate each edition reports (default 10), graded
                          with --against as the executables grade it
  FAKE_DEVICE             the device the run reports (default FAKE GPU)
  FAKE_CHOICES            the launch choices the run reports, as JSON (default {})
  FAKE_LOCAL              local bytes the run reports for its kernel (default 0)
  FAKE_SANITIZER_<TOOL>   clean or errors
  FAKE_RES_USAGE, FAKE_SASS   the files cuobjdump -res-usage and -sass print
  FAKE_NCU_STUDENT, FAKE_NCU_SOLUTION   the metric ncu reports (or "locked": ERR_NVGPUCTRPERM)
  FAKE_JUNIT              the results ctest writes (none: every test passes)
  FAKE_LOG                where every stand-in appends its command line
A build folder's modes.json ({"FAKE_...": value}) overrides the environment for its executables.
"""

import json
import os
import textwrap

from support import write_executable

MANGLED = {  # the chapter-9 kernels the stand-ins know, by readable name
    "plus": "_ZN4ch0914product_kernelIN6course9PlusTimesEEEvPKfS4_Pfiiiii",
    "min": "_ZN4ch0914product_kernelIN6course7MinPlusEEEvPKfS4_Pfiiiii",
    "conv2d": "_ZN4ch0913conv2d_kernelILi0ELi0EEEvPKfiiS2_iiPf",
    "bug": "_ZN4ch093bug14product_kernelIN6course9PlusTimesEEEvPKfS5_Pfiiiii",
}
NAMES = {  # {mangled: (readable, problems)}, as the executables' --kernel-names give them
    MANGLED["plus"]: ("ch09::product_kernel<course::PlusTimes>", ["matmul"]),
    MANGLED["min"]: ("ch09::product_kernel<course::MinPlus>", ["minplus"]),
    MANGLED["conv2d"]: ("ch09::conv2d_kernel<0, 0>", ["conv2d"]),
    MANGLED["bug"]: ("ch09::bug::product_kernel<course::PlusTimes>", ["matmul"]),
}
TOOLS = ("cuobjdump", "ncu", "compute_sanitizer")

EXECUTABLE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import json, os, sys
    args = sys.argv[1:]
    NAMES = {NAMES}
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join([sys.argv[0]] + args) + "\\n")
    # A build folder's own modes (modes.json beside the executable) come before the environment's.
    modes_file = os.path.join(os.path.dirname(sys.argv[0]), "modes.json")
    if os.path.exists(modes_file):
        os.environ.update(json.load(open(modes_file)))
    if args == ["--describe"]:
        print(open(os.environ["FAKE_DESCRIBE"]).read())
        sys.exit(0)
    if args == ["--kernel-names"]:  # the names it knows, as the executables name them
        for symbol in sys.stdin.read().split():
            name, problems = NAMES.get(symbol, (symbol, ["matmul", "minplus", "conv2d", "conv1d"]))
            print(json.dumps({"symbol": symbol, "name": name, "problems": problems}))
        sys.exit(0)
    problem = args[args.index("--problem") + 1] if "--problem" in args else "matmul"
    edition = "solution" if sys.argv[0].endswith("_solution") else "student"
    modes = {name: os.environ.get("FAKE_" + name.upper(), "pass") for name in problem.split(",")}
    if "no-device" in modes.values():
        print("error: no CUDA device available (no CUDA-capable device is detected); this "
              "executable needs an NVIDIA GPU", file=sys.stderr)
        sys.exit(3)
    if edition == "solution":  # the solution's results are right
        modes = dict.fromkeys(modes, "pass")
    rate_text = os.environ.get("FAKE_RATE_" + edition.upper(), "10")  # as the report shows it
    rate = float(rate_text)
    kernels = {"matmul": "ch09::product_kernel<course::PlusTimes>",
               "minplus": "ch09::product_kernel<course::MinPlus>",
               "conv2d": "ch09::conv2d_kernel<0, 0>", "conv1d": "ch09::conv1d_kernel"}
    sizes = {"matmul": "m=4096 n=4096 k=4096", "minplus": "m=4096 n=4096 k=4096",
             "conv2d": "image 37x29 mask 13x13", "conv1d": "n=100 taps=7"}
    against = float(args[args.index("--against") + 1]) if "--against" in args else None
    failed = False
    for name, mode in modes.items():
        wrong = {"pass": 0, "all-wrong": 100, "some-wrong": 7}[mode]
        failed = failed or wrong > 0
        grade = None
        if against and not wrong:  # --against, as the executables grade a rate
            share = rate / against
            stars = sum(share >= g for g in (0.5, 0.8, 0.95))
            grade = {"against": against, "against_text": f"{against:g}", "share": share,
                     "share_text": f"{share:.0%}", "stars": stars, "stars_text": "*" * stars or "-",
                     "stars_to_pass": 2, "needed": 0.8, "needed_text": "80%", "passes": stars >= 2}
        print(json.dumps({
            "device": os.environ.get("FAKE_DEVICE", "FAKE GPU"), "chapter": 9,
            "edition": edition, "problem": name, "variant": "", "sizes": sizes[name],
            "choices": json.loads(os.environ.get("FAKE_CHOICES", "{}")),
            "median_ms": 0.5, "rate": None if wrong else rate,
            "rate_text": None if wrong else rate_text, "unit": "TFLOP/s", "grade": grade,
            "kernels": [{"name": "course::pad_transposed", "local_bytes": 0},
                        {"name": kernels[name],
                         "local_bytes": int(os.environ.get("FAKE_LOCAL", "0"))}],
            "verdict": "FAIL" if wrong else "PASS",
            "check": {"compared": 100, "mismatches": wrong, "nans": 0}}))
    sys.exit(1 if failed else 0)
''').replace("{NAMES}", repr(NAMES))

SANITIZER = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write("compute-sanitizer " + " ".join(args) + "\\n")
    tool = args[args.index("--tool") + 1]
    if os.environ.get("FAKE_SANITIZER_" + tool.upper(), "clean") == "clean":
        print("========= COMPUTE-SANITIZER")
        print("========= ERROR SUMMARY: 0 errors")
        sys.exit(0)
    print("========= COMPUTE-SANITIZER")
    if tool == "racecheck":
        print("========= Error: Race reported between Write access at ch09::product_kernel+0x90")
        print("========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)")
    else:
        print("========= Invalid __global__ read of size 4 bytes")
        print("=========     at ch09::product_kernel+0x2d0")
        print("========= ERROR SUMMARY: 1 error")
    sys.exit(99)
''')

CUOBJDUMP = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    what = {"-res-usage": "FAKE_RES_USAGE", "-sass": "FAKE_SASS"}[sys.argv[1]]
    print(open(os.environ[what]).read())
''')

NCU = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write("ncu " + " ".join(args) + "\\n")
    metric = args[args.index("--metrics") + 1]
    executable = next(a for a in args if os.path.basename(a).startswith("ch09"))
    edition = "SOLUTION" if executable.endswith("_solution") else "STUDENT"
    value = os.environ.get("FAKE_NCU_" + edition, "0")
    if value == "locked":
        print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
              "GPU Performance Counters on the target device 0.")
        sys.exit(1)
    print("==PROF== Connected to process")
    print('"ID","Kernel Name","' + metric + '"')
    print('"","",""')
    print('"0","ch09::product_kernel<course::PlusTimes>","' + value + '"')
''')

CTEST = textwrap.dedent('''\
    #!/bin/sh
    echo "ctest $* COURSE_CHECK=$COURSE_CHECK" >>"$FAKE_LOG"
    while [ "$1" != --output-junit ]; do shift; done
    if [ -n "$FAKE_JUNIT" ]; then cp "$FAKE_JUNIT" "$2"; exit 8; fi
    echo '<testsuite tests="1"><testcase name="test_ch09:ch09 products" status="run"/>' >"$2"
    echo '</testsuite>' >>"$2"
''')


def res_usage(stack=0):
    """cuobjdump -res-usage of a chapter-9 executable: the product kernels with @p stack bytes of
    stack frame, and the bug hunt's kernel, which may spill (it is not the student's)."""
    lines = ["Resource usage:", " Common:", "  GLOBAL:0"]
    for key in ("plus", "min", "conv2d", "bug"):
        frame = stack if key in ("plus", "min") else 64 if key == "bug" else 0
        lines += [f" Function {MANGLED[key]}:",
                  f"  REG:128 STACK:{frame} SHARED:0 LOCAL:0 CONSTANT[0]:564 TEXTURE:0 "
                  "SURFACE:0 SAMPLER:0"]
    return "\n".join(lines) + "\n"


# The main loop of a product kernel, as cuobjdump -sass prints it: the stores of the batch that
# the previous trip loaded, then the next trip's loads, a barrier, the 128-bit shared loads and the
# FMAs, a barrier, and the branch back.
PREFETCH_LOOP = [("LDG.E.128.CONSTANT R28, desc[UR8][R6.64]", 0x210),
                 ("STS.128 [R6], R28", 0x850), ("STS.128 [R7], R24", 0x870),
                 ("BAR.SYNC.DEFER_BLOCKING 0x0", 0x880),
                 ("@!P0 LDG.E.128.CONSTANT R28, desc[UR8][R48.64]", 0x8f0),
                 ("LDS.128 R32, [R13]", 0x900),
                 ("@!P0 LDG.E.128.CONSTANT R24, desc[UR8][R48.64]", 0x970),
                 ("FFMA R64, R32, R36, R64", 0x980),
                 ("BAR.SYNC.DEFER_BLOCKING 0x0", 0x1a50), ("@!P0 BRA 0x850", 0x1a60),
                 ("EXIT", 0x1a70)]


def sass(loop=None, shared_load="LDS.128", copy="LDGSTS.E.BYPASS.LTC128B.128"):
    """cuobjdump -sass of a chapter-9 executable: every kernel with @p loop (instruction,
    address), its shared loads made @p shared_load, plus one @p copy."""
    loop = loop or PREFETCH_LOOP
    body = [(text.replace("LDS.128", shared_load), address) for text, address in loop]
    body.insert(1, (f"{copy} [R3], desc[UR4][R4.64]", 0x220))
    out = ["\tcode for sm_90"]
    for key in ("plus", "min", "conv2d", "bug"):
        out += [f"\t\tFunction : {MANGLED[key]}",
                '\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"']
        out += [f"        /*{address:04x}*/                   {text} ;"
                "                                  /* 0x000fe20003800000 */"
                for text, address in sorted(body, key=lambda entry: entry[1])]
    return "\n".join(out) + "\n"


# The loop of a "prefetch" that prefetches nothing: each trip loads its batch and stores it at once.
SAME_TRIP_LOOP = [("LDG.E.128.CONSTANT R40, desc[UR8][R86.64]", 0x750),
                  ("LDG.E.128.CONSTANT R44, desc[UR8][R84.64]", 0x760),
                  ("STS.128 [R9], R40", 0x7b0), ("STS.128 [R10], R44", 0x7c0),
                  ("BAR.SYNC.DEFER_BLOCKING 0x0", 0x7d0), ("LDS.128 R24, [R11]", 0x7e0),
                  ("FFMA R64, R24, R28, R64", 0x800),
                  ("BAR.SYNC.DEFER_BLOCKING 0x0", 0x18e0), ("@!P0 BRA 0x750", 0x18f0),
                  ("EXIT", 0x1900)]

SMALL = ["-m", "67", "-n", "45", "-k", "33"]
CHECKS = [
    {"id": "memcheck", "tool": "memcheck", "problems": ["matmul", "minplus", "conv2d"],
     "args": ["--problem", "matmul,minplus,conv2d"] + SMALL,
     "hint": "exercise 9.1 / scripts/hint.sh 9.1"},
    {"id": "racecheck", "tool": "racecheck", "problems": ["matmul", "minplus"],
     "args": ["--problem", "matmul,minplus"] + SMALL, "hint": "scripts/hint.sh 9.1"},
    {"id": "no-spills", "tool": "spills", "problems": ["matmul", "minplus", "conv2d"],
     "args": ["--problem", "matmul,minplus,conv2d"] + SMALL, "kernel": "^ch09::",
     "hint": "scripts/hint.sh 9.1"},
    {"id": "sass-LDS.128", "tool": "sass", "instruction": "LDS.128",
     "problems": ["matmul", "minplus"], "kernel": "^ch09::product_kernel<", "args": [],
     "hint": "the lesson's 128-bit loads / scripts/hint.sh 9.1"},
    {"id": "sass-LDGSTS", "tool": "sass", "instruction": "LDGSTS",
     "problems": ["matmul", "minplus"], "kernel": "ch09::product_kernel", "args": [],
     "hint": "scripts/hint.sh 9.1"},
    {"id": "prefetch", "tool": "sass", "order": "prefetch", "problems": ["matmul", "minplus"],
     "kernel": "^ch09::product_kernel<", "args": [], "hint": "scripts/hint.sh 9.1"},
    {"id": "bank-conflicts", "tool": "ncu",
     "metric": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "max_ratio": 1.5,
     "problems": ["matmul", "minplus"],
     "args": ["--problem", "matmul", "-m", "1024", "-n", "1024", "-k", "1024"],
     "hint": "scripts/hint.sh 9.1"},
    {"id": "rate", "tool": "rate", "problems": ["matmul", "minplus", "conv2d"],
     "args": ["--problem", "matmul,minplus,conv2d", "-m", "4096", "-n", "4096", "-k", "4096"],
     "grades": [0.5, 0.8, 0.95], "hint": "scripts/hint.sh 9.1"},
]


def description(checks=None, predictions=None):
    return {
        "schema": 1, "chapter": 9, "slug": "09_fake_chapter", "label": "ch09",
        "title": "a fake chapter", "edition": "student",
        "kernels_file": "chapters/09_fake_chapter/kernels.cuh",
        "exercises": [
            {"id": "9.1", "problem": "matmul", "problems": ["matmul", "minplus"],
             "task": "the product"},
            {"id": "9.2", "problem": "conv2d", "problems": ["conv2d"], "task": "the mask"}],
        "checks": CHECKS if checks is None else checks,
        "predictions": predictions or [],
    }


class FakeCourse:
    """A build folder in @p folder whose chapter 9 is the stand-in, with the stand-in tools in
    folder/bin; env() is the environment that runs them, with the modes of @p modes."""

    def __init__(self, folder, solution=True, name="build", describe=None):
        self.folder, self.bin = folder, os.path.join(folder, "bin")
        os.makedirs(self.bin, exist_ok=True)
        self.build = os.path.join(folder, name)
        os.makedirs(self.build, exist_ok=True)
        self.student = os.path.join(self.build, "ch09_fake_chapter")
        write_executable(self.student, EXECUTABLE)
        if solution:
            write_executable(self.student + "_solution", EXECUTABLE)
        for tool, text in (("compute-sanitizer", SANITIZER), ("cuobjdump", CUOBJDUMP),
                           ("ncu", NCU), ("ctest", CTEST)):
            write_executable(os.path.join(self.bin, tool), text)
        self.chapters = [{"label": "ch09", "number": 9, "folder": "09_fake_chapter",
                          "student": self.student, "solution": self.student + "_solution",
                          "student_targets": ["test_ch09", "ch09_fake_chapter"]}]
        self.write_manifest()
        self.log = os.path.join(folder, "log.txt")
        self.files = {}
        self.write("FAKE_DESCRIBE", json.dumps(describe or description()))
        self.write("FAKE_RES_USAGE", res_usage())
        self.write("FAKE_SASS", sass())

    def write_manifest(self):
        with open(os.path.join(self.build, "course_chapters.json"), "w", encoding="utf-8") as out:
            json.dump({"schema": 1, "chapters": self.chapters}, out)

    def modes(self, **modes):
        """Modes for this build folder's executables only (modes.json)."""
        with open(os.path.join(self.build, "modes.json"), "w", encoding="utf-8") as out:
            json.dump({f"FAKE_{k.upper()}": str(v) for k, v in modes.items()}, out)

    def write(self, variable, text):
        path = os.path.join(self.folder, variable.lower() + ".txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        self.files[variable] = path

    def env(self, **modes):
        """The environment of a run: FAKE_<KEY> for each mode, or the tool variable for a key of
        TOOLS ("": progress.py does without that tool)."""
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                   FAKE_LOG=self.log, CUDA_HOME=self.folder)
        env.update(self.files)
        for key, value in modes.items():  # a tool's name: where progress.py finds it
            env[key.upper() if key in TOOLS else f"FAKE_{key.upper()}"] = str(value)
        return env

    def logged(self):
        with open(self.log, encoding="utf-8") as handle:
            return handle.read()
