#!/usr/bin/env python3
"""The checks of reliability.py against stand-ins for a chapter's executable, compute-sanitizer
and ncu, so that they are tested without a GPU: each passes only when the executable behaves and
the tool catches what it must, and skips where it cannot run.

The stand-in executable reads FAKE_* variables: FAKE_NO_DEVICE (exit 3), FAKE_BUG_FAILS (the bug
run's check FAILs), FAKE_CONTROL_FAILS (a run without --bug FAILs), FAKE_REFUSE (every run is
refused with exit 4), FAKE_TAPS (its --help lists these compiled tap counts, and it refuses any
other with exit 2), FAKE_NO_BUGS (--list-bugs prints nothing; "fails": it exits 1). The sanitizer
stand-in reports FAKE_SANITIZER_BUG_ERRORS errors on a --bug run and FAKE_SANITIZER_CONTROL_ERRORS
on the others; the ncu stand-in reports FAKE_NCU_BUG and FAKE_NCU_CONTROL as the metric, or the
counter-permission error with FAKE_NCU_DENIED.
"""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

RELIABILITY = Path(__file__).resolve().parent / "reliability.py"

EXECUTABLE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    args = sys.argv[1:]
    env = os.environ
    taps = [int(count) for count in env.get("FAKE_TAPS", "").split(",") if count]
    if args == ["--help"]:
        print("usage: chapter [flags]")
        print("  --mask K[xL]      conv2d mask, odd sides up to 63 (default 13x13)")
        print("  --taps M          conv1d mask length" + (", compiled in: " + ", ".join(
              map(str, taps)) + f" (default {taps[0]})" if taps else " (default 127)"))
        sys.exit(0)
    if args == ["--list-bugs"]:
        if env.get("FAKE_NO_BUGS") != "":
            print("stale\\tcheck\\ta stale value")
        sys.exit(1 if env.get("FAKE_NO_BUGS") == "fails" else 0)
    if taps and "--taps" in args and int(args[args.index("--taps") + 1]) not in taps:
        print("error: --taps: this chapter has compiled tap counts "
              + ", ".join(map(str, taps)) + " only, got '" + args[args.index("--taps") + 1]
              + "'", file=sys.stderr)
        sys.exit(2)
    bug = args[args.index("--bug") + 1] if "--bug" in args else None
    if bug is not None and bug != "stale":
        print(f"error: --bug: this chapter's planted bugs are stale, got \\"{bug}\\"",
              file=sys.stderr)
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
        print("error: matmul needs 9.0 GiB of device memory, but the device has only 1.0 GiB "
              "free", file=sys.stderr)
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


def check(folder, words, **variables):
    """reliability.py WORDS (the stand-in executable in place of EXE) with the FAKE_ variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.update({k: str(v) for k, v in variables.items()})
    words = words.split()
    command = [sys.executable, str(RELIABILITY), words[0], str(folder / "chapter")] + words[1:] + [
        f"--sanitizer={folder / 'compute-sanitizer'}", f"--ncu={folder / 'ncu'}"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def hunt(folder, tool, **variables):
    return check(folder, f"bughunt --bug stale --tool {tool}", **variables)


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
        expect(check(folder, "bughunt", FAKE_NO_BUGS=""), 1, "registers no planted bug",
               "an executable without planted bugs fails")
        expect(check(folder, "bughunt", FAKE_NO_BUGS="fails"), 1, "--list-bugs exited 1",
               "a failing --list-bugs fails")
        expect(check(folder, "tests --target=t --edition=solution"), 0,
               "add_test([==[t.bughunt.stale]==]", "tests: a planted bug gets a test")
        expect(check(folder, "tests --target=t --edition=solution", FAKE_NO_BUGS=""), 0,
               "add_test([==[t.bughunt]==]", "tests: no planted bug gets a failing test")
        # The other checks, each once passing and once failing.
        expect(check(folder, "no-device"), 0, "exit status 3 and one line", "no-device passes")
        expect(check(folder, "no-device", CUDA_VISIBLE_DEVICES="0"), 0, "exit status 3",
               "no-device hides the device")
        expect(check(folder, "cases --mode=edge --problem=matmul"), 0, "PASS (", "edge sizes pass")
        expect(check(folder, "cases --mode=edge --problem=matmul", FAKE_CONTROL_FAILS=1), 1,
               "expected PASS (exit status 0), got exit status 1", "a FAIL at an edge size fails")
        expect(check(folder, "cases --mode=refuse"), 1, "expected a refusal",
               "an oversize run that is not refused fails")
        expect(check(folder, "cases --mode=refuse", FAKE_REFUSE=1), 0, "refused as expected",
               "oversize runs refused with both sizes pass")
        expect(check(folder, "cases --mode=boundary", FAKE_REFUSE=1), 0,
               "SKIPPED: this machine cannot hold", "a case too large for the machine skips")
        expect(check(folder, "sanitize --tool=memcheck --problem=conv1d"), 0, "memcheck clean",
               "sanitize: a clean report passes")
        expect(check(folder, "sanitize --tool=racecheck --problem=matmul",
                     FAKE_SANITIZER_CONTROL_ERRORS=3), 1, "racecheck reported 3 errors",
               "sanitize: a report with errors fails")
        expect(check(folder, "sanitize --tool=memcheck --args=x --expect-finding=Invalid"), 1,
               "memcheck reported nothing", "sanitize: a broken kernel that goes unseen fails")
        expect(check(folder, "wrong-result", FAKE_CONTROL_FAILS=1), 1,
               "the report lacks 'rate     not reported", "wrong-result: a report without it fails")
        expect(check(folder, "bad-input"), 1, "were not refused as documented",
               "bad-input: an executable that accepts bad input fails")
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
