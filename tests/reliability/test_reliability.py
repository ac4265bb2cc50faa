#!/usr/bin/env python3
"""The checks of reliability.py against stand-ins for a chapter's executable, compute-sanitizer
and ncu, so that they are tested without a GPU: each passes only when the executable behaves and
the tool catches what it must, and skips where it cannot run. The stand-ins behave as the FAKE_*
variables of each case say (read below), e.g. FAKE_NO_BUGS: --describe lists no planted bug, and
with "fails" it exits 1.
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
    import json, os, sys
    PROBLEMS = ["matmul", "minplus", "conv2d", "conv1d"]
    args = sys.argv[1:]
    env = os.environ
    taps = [int(count) for count in env.get("FAKE_TAPS", "").split(",") if count]
    if args == ["--describe"]:
        if env.get("FAKE_NO_BUGS") == "fails":
            sys.exit(1)
        products = ["matmul", "minplus"]
        # Launch choices no chapter has (the harness takes any chapter's from its description).
        options = [{"flag": "--lanes", "values": ["32", "16"], "problems": products},
                   {"flag": "--variant", "values": ["simple", "fused"], "problems": products}]
        print(json.dumps({
            "schema": 1,
            "problems": [{"name": p, "offered": True} for p in PROBLEMS],
            "options": options if env.get("FAKE_LAUNCH_CHOICES") else [],
            "sizes": {"mask_sides": None, "max_mask_side": 63, "taps": taps or None,
                      "max_taps": None},
            "bugs": [] if env.get("FAKE_NO_BUGS") == "" else [
                {"name": "stale", "tool": "check", "problems": ["matmul"]}]}))
        sys.exit(0)
    def refuse(message, status):
        print("error: " + message, file=sys.stderr)
        sys.exit(status)
    if taps and "--taps" in args and int(args[args.index("--taps") + 1]) not in taps:
        refuse("--taps: this chapter has compiled tap counts " + ", ".join(map(str, taps))
               + " only, got '" + args[args.index("--taps") + 1] + "'", 2)
    bug = args[args.index("--bug") + 1] if "--bug" in args else None
    if bug is not None and bug != "stale":
        refuse(f"--bug: this chapter's planted bugs are stale, got \\"{bug}\\"", 2)
    problems = args[args.index("--problem") + 1].split(",") if "--problem" in args else []
    if bug and any(p != "matmul" for p in problems):
        refuse(f"--problem: planted bug \\"stale\\" has no {problems[-1]} kernel", 2)
    if env.get("CUDA_VISIBLE_DEVICES") == "" or env.get("FAKE_NO_DEVICE"):
        refuse("no CUDA device available", int(env.get("FAKE_NO_DEVICE_STATUS", 3)))
    if env.get("FAKE_REFUSE"):
        refuse("matmul needs 9.0 GiB of device memory, but the device has only 1.0 GiB free", 4)
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

METRIC = "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
failures = []


def write(path, text):
    # The interpreter named in full: the last case runs with a PATH that holds nothing else.
    path.write_text(text.replace("#!/usr/bin/env python3", f"#!{sys.executable}", 1))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def expect(what, folder, words, code, text, **variables):
    """reliability.py WORDS (the stand-in executable in place of EXE; "hunt TOOL": the bug hunt of
    its bug under TOOL) with the FAKE_ variables must exit with CODE and print TEXT."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.update({k: str(v) for k, v in variables.items()})
    words = words.replace("hunt ", "bughunt --bug stale --tool ").split()
    command = [sys.executable, str(RELIABILITY), words[0], str(folder / "chapter")] + words[1:] + [
        f"--sanitizer={folder / 'compute-sanitizer'}", f"--ncu={folder / 'ncu'}"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    ok = done.returncode == code and text in done.stdout + done.stderr
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        print(textwrap.indent(done.stdout + done.stderr, "      "))
        failures.append(what)


def main():
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write(folder / "chapter", EXECUTABLE)
        write(folder / "compute-sanitizer", SANITIZER)
        write(folder / "ncu", NCU)
        expect("check: the bug's FAIL passes", folder, "hunt check", 0, "PASS: check caught",
               FAKE_BUG_FAILS=1)
        expect("check: a bug that passes fails", folder, "hunt check", 1, "did not catch")
        expect("check: a chapter with compiled tap counts gets those", folder, "hunt check", 0,
               "PASS: check caught planted bug stale at: --problem matmul --warmup 0 --reps 1 "
               "--no-compare -m 256 -k 256 -n 256 --height 256 --width 256 --taps 7",
               FAKE_BUG_FAILS=1, FAKE_TAPS="7,1,3")
        expect("check: a failing control fails", folder, "hunt check", 1,
               "control run without --bug exited 1", FAKE_BUG_FAILS=1, FAKE_CONTROL_FAILS=1)
        expect("memcheck: errors on the bug pass", folder, "hunt memcheck", 0,
               "PASS: memcheck caught", FAKE_SANITIZER_BUG_ERRORS=2)
        expect("racecheck: no errors on the bug fails", folder, "hunt racecheck", 1,
               "did not catch")
        expect("initcheck: errors without --bug fail", folder, "hunt initcheck", 1,
               "does not find the executable clean", FAKE_SANITIZER_BUG_ERRORS=1,
               FAKE_SANITIZER_CONTROL_ERRORS=1)
        expect("ncu: a larger metric for the bug passes", folder, f"hunt {METRIC}", 0,
               f"PASS: {METRIC} caught", FAKE_NCU_BUG="31,744", FAKE_NCU_CONTROL=0)
        expect("ncu: a metric larger by the counters' noise fails", folder, f"hunt {METRIC}", 1,
               "did not catch", FAKE_NCU_BUG=77183, FAKE_NCU_CONTROL=76718)
        expect("ncu: no counter access skips", folder, f"hunt {METRIC}", 0, "SKIPPED: no access",
               FAKE_NCU_DENIED=1)
        expect("no device skips", folder, "hunt check", 0, "SKIPPED: no CUDA device",
               FAKE_NO_DEVICE=1)
        expect("sizes all refused fail", folder, "hunt check", 1, "refused every size",
               FAKE_REFUSE=1)
        expect("an unknown tool fails", folder, "hunt nsys", 1, "unknown tool")
        expect("an executable without planted bugs fails", folder, "bughunt", 1,
               "registers no planted bug", FAKE_NO_BUGS="")
        expect("a failing --describe fails", folder, "bughunt", 1, "--describe' exited 1",
               FAKE_NO_BUGS="fails")
        expect("tests: a planted bug gets a test", folder, "tests --target=t --edition=solution",
               0, "add_test([==[t.bughunt.stale]==]")
        expect("tests: no planted bug gets a failing test", folder,
               "tests --target=t --edition=solution", 0, "add_test([==[t.bughunt]==]",
               FAKE_NO_BUGS="")
        # The other checks, each once failing, and once passing where the stand-in can behave
        # (bad-input passes on the chapters' executables, wrong-result on a GPU).
        expect("no-device passes", folder, "no-device", 0, "exit status 3 and one line")
        expect("no-device hides the device", folder, "no-device", 0, "exit status 3",
               CUDA_VISIBLE_DEVICES="0")
        expect("no-device: another exit status fails", folder, "no-device", 1,
               "exit status 1, expected 3 (no CUDA device)", FAKE_NO_DEVICE_STATUS=1)
        expect("edge sizes pass", folder, "cases --mode=edge --problem=matmul", 0, "PASS (")
        expect("a FAIL at an edge size fails", folder, "cases --mode=edge --problem=matmul", 1,
               "expected PASS (exit status 0), got exit status 1", FAKE_CONTROL_FAILS=1)
        expect("an oversize run that is not refused fails", folder, "cases --mode=refuse", 1,
               "expected a refusal")
        expect("oversize runs refused with both sizes pass", folder, "cases --mode=refuse", 0,
               "refused as expected", FAKE_REFUSE=1)
        expect("a case too large for the machine skips", folder, "cases --mode=boundary", 0,
               "SKIPPED: this machine cannot hold", FAKE_REFUSE=1)
        # --dry-run lists the command lines: every launch choice, the compiled tap counts.
        expect("sanitize: every launch choice in every kernel variant", folder,
               "sanitize --tool=memcheck --problem=matmul --dry-run", 0,
               "--problem matmul -m 33 -n 65 -k 17 --lanes 16 --variant fused",
               FAKE_LAUNCH_CHOICES=1)
        expect("edge sizes: the middle of the compiled tap counts", folder,
               "cases --mode=edge --problem=conv1d --dry-run", 0,
               "pass: --problem conv1d -n 2 --taps 3", FAKE_TAPS="7,1,3")
        expect("sanitize: a clean report passes", folder,
               "sanitize --tool=memcheck --problem=conv1d", 0, "memcheck clean")
        expect("sanitize: a report with errors fails", folder,
               "sanitize --tool=racecheck --problem=matmul", 1, "racecheck reported 3 errors",
               FAKE_SANITIZER_CONTROL_ERRORS=3)
        expect("sanitize: a broken kernel that goes unseen fails", folder,
               "sanitize --tool=memcheck --args=x --expect-finding=Invalid", 1,
               "memcheck reported nothing")
        expect("wrong-result: a report without it fails", folder, "wrong-result", 1,
               "the report lacks 'rate     not reported", FAKE_CONTROL_FAILS=1)
        expect("wrong-result: a speedup over a failing previous chapter fails", folder,
               "wrong-result", 1, "over a failing previous chapter: the report lacks 'speedup  "
               "not reported (chapter 1, your kernels")
        expect("bad-input: an executable that accepts bad input fails", folder, "bad-input", 1,
               "were not refused as documented")
        os.remove(folder / "compute-sanitizer")
        env_path = os.environ.get("PATH", "")
        os.environ["PATH"] = str(folder)  # no compute-sanitizer on the PATH either
        expect("no compute-sanitizer skips", folder, "hunt memcheck", 0,
               "SKIPPED: compute-sanitizer was not found")
        os.environ["PATH"] = env_path
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
