#!/usr/bin/env python3
"""The bug-hunt harness (bughunt.py) against stand-ins for a chapter's executable,
compute-sanitizer and ncu, so that it is tested without a GPU: it passes only when the tool
catches the bug and the chapter's own kernels are clean, and skips where it cannot run.

The stand-in executable reads FAKE_* variables: FAKE_NO_DEVICE (exit 3), FAKE_BUG_FAILS (the bug
run's check FAILs), FAKE_CONTROL_FAILS (the chapter's own run FAILs), FAKE_REFUSE (every run is
refused with exit 4), FAKE_TAPS (its --help lists these compiled tap counts, and it refuses any
other with exit 2). The sanitizer stand-in reports FAKE_SANITIZER_BUG_ERRORS errors on a --bug
run and FAKE_SANITIZER_CONTROL_ERRORS on the others; the ncu stand-in reports FAKE_NCU_BUG and
FAKE_NCU_CONTROL as the metric, or the counter-permission error with FAKE_NCU_DENIED.
"""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HUNT = Path(__file__).resolve().parent / "bughunt.py"

EXECUTABLE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    args = sys.argv[1:]
    env = os.environ
    taps = [int(count) for count in env.get("FAKE_TAPS", "").split(",") if count]
    if args == ["--help"] and taps:
        print("usage: chapter [flags]")
        print("  --taps M          conv1d mask length, compiled in: "
              + ", ".join(map(str, taps)) + f" (default {taps[0]})")
        sys.exit(0)
    if taps and "--taps" in args and int(args[args.index("--taps") + 1]) not in taps:
        print("error: --taps: this chapter has compiled tap counts "
              + ", ".join(map(str, taps)) + " only, got '" + args[args.index("--taps") + 1]
              + "'", file=sys.stderr)
        sys.exit(2)
    bug = args[args.index("--bug") + 1] if "--bug" in args else None
    if bug is not None and bug != "stale":
        print(f"error: --bug: this chapter's planted bugs are stale, got \\"{bug}\\"", file=sys.stderr)
        sys.exit(2)
    problems = args[args.index("--problem") + 1].split(",") if "--problem" in args else []
    if bug and any(p != "matmul" for p in problems):
        print(f"error: --problem: planted bug \\"stale\\" has no {problems[-1]} kernel",
              file=sys.stderr)
        sys.exit(2)
    if env.get("CUDA_VISIBLE_DEVICES") == "" or env.get("FAKE_NO_DEVICE"):
        print("error: no CUDA device available", file=sys.stderr)
        sys.exit(3)
    if env.get("FAKE_REFUSE"):
        print("error: matmul at these sizes needs more device memory", file=sys.stderr)
        sys.exit(4)
    fails = env.get("FAKE_BUG_FAILS") if bug else env.get("FAKE_CONTROL_FAILS")
    print("matmul  m=256 n=256 k=256")
    print("  check    " + ("FAIL: 3 mismatching" if fails else "PASS"))
    sys.exit(1 if fails else 0)
''')

SANITIZER = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, subprocess, sys
    args = sys.argv[1:]
    exit_code = int(args[args.index("--error-exitcode") + 1])
    command = args[args.index("--print-limit") + 2:]
    done = subprocess.run(command)
    key = "FAKE_SANITIZER_BUG_ERRORS" if "--bug" in command else "FAKE_SANITIZER_CONTROL_ERRORS"
    errors = int(os.environ.get(key, "0"))
    print(f"========= ERROR SUMMARY: {errors} errors")
    sys.exit(exit_code if errors else done.returncode)
''')

NCU = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, subprocess, sys
    args = sys.argv[1:]
    if os.environ.get("FAKE_NCU_DENIED"):
        print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
              "GPU Performance Counters on the target device 0.")
        sys.exit(1)
    metric = args[args.index("--metrics") + 1]
    command = args[args.index("--metrics") + 2:]
    print("==PROF== Connected to process 1")
    subprocess.run(command)
    value = os.environ.get("FAKE_NCU_BUG" if "--bug" in command else "FAKE_NCU_CONTROL", "0")
    print(f'"ID","Kernel Name","{metric}"')
    print('"","",""')
    print(f'"0","void k()","{value}"')
    print(f'"1","void k()","1,000"')
''')

failures = []


def write(path, text):
    # The interpreter named in full: the last case runs with a PATH that holds nothing else.
    path.write_text(text.replace("#!/usr/bin/env python3", f"#!{sys.executable}", 1))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def hunt(folder, tool, **variables):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.update({k: str(v) for k, v in variables.items()})
    command = [sys.executable, str(HUNT), "--executable", str(folder / "chapter"), "--bug",
               "stale", "--tool", tool, "--sanitizer", str(folder / "compute-sanitizer"),
               "--ncu", str(folder / "ncu")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def expect(result, code, text, what):
    ok = result[0] == code and text in result[1]
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        print(textwrap.indent(result[1], "      "))
        failures.append(what)


def main():
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write(folder / "chapter", EXECUTABLE)
        write(folder / "compute-sanitizer", SANITIZER)
        write(folder / "ncu", NCU)
        metric = "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"

        expect(hunt(folder, "check", FAKE_BUG_FAILS=1), 0, "PASS: check caught",
               "check: the bug's FAIL passes")
        expect(hunt(folder, "check"), 1, "did not catch", "check: a bug that passes fails")
        expect(hunt(folder, "check", FAKE_BUG_FAILS=1, FAKE_TAPS="7,1,3"), 0,
               "PASS: check caught planted bug stale at: --problem matmul --warmup 0 --reps 1 "
               "--no-compare -m 256 -k 256 -n 256 --height 256 --width 256 --taps 7",
               "check: a chapter with compiled tap counts gets those")
        expect(hunt(folder, "check", FAKE_BUG_FAILS=1, FAKE_CONTROL_FAILS=1), 1,
               "control run without --bug exited 1", "check: a failing control fails")
        expect(hunt(folder, "memcheck", FAKE_SANITIZER_BUG_ERRORS=2), 0, "PASS: memcheck caught",
               "memcheck: errors on the bug pass")
        expect(hunt(folder, "racecheck"), 1, "did not catch",
               "racecheck: no errors on the bug fails")
        expect(hunt(folder, "initcheck", FAKE_SANITIZER_BUG_ERRORS=1,
                    FAKE_SANITIZER_CONTROL_ERRORS=1), 1, "does not find the executable clean",
               "initcheck: errors without --bug fail")
        expect(hunt(folder, metric, FAKE_NCU_BUG="31,744", FAKE_NCU_CONTROL=0), 0,
               "PASS: " + metric + " caught", "ncu: a larger metric for the bug passes")
        expect(hunt(folder, metric, FAKE_NCU_BUG=5, FAKE_NCU_CONTROL=5), 1, "did not catch",
               "ncu: an equal metric fails")
        expect(hunt(folder, metric, FAKE_NCU_BUG=77183, FAKE_NCU_CONTROL=76718), 1,
               "did not catch", "ncu: a metric larger by the counters' noise fails")
        expect(hunt(folder, metric, FAKE_NCU_DENIED=1), 0, "SKIPPED: no access",
               "ncu: no counter access skips")
        expect(hunt(folder, "check", FAKE_NO_DEVICE=1), 0, "SKIPPED: no CUDA device",
               "no device skips")
        expect(hunt(folder, "check", FAKE_REFUSE=1), 1, "refused every size",
               "sizes all refused fail")
        expect(hunt(folder, "nsys"), 1, "unknown tool", "an unknown tool fails")
        none = [sys.executable, str(HUNT), "--executable", str(folder / "chapter"), "--none"]
        env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
        done = subprocess.run(none, env=env, capture_output=True, text=True, timeout=60)
        expect((done.returncode, done.stdout), 1, "registers no planted bug",
               "an executable without planted bugs fails")
        os.remove(folder / "compute-sanitizer")
        env_path = os.environ.get("PATH", "")
        os.environ["PATH"] = str(folder)  # no compute-sanitizer on the PATH either
        expect(hunt(folder, "memcheck"), 0, "SKIPPED: compute-sanitizer was not found",
               "no compute-sanitizer skips")
        os.environ["PATH"] = env_path
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
