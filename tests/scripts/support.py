"""What the scripts' tests share: the repository's root (with scripts/ importable), stand-in
executables, and a script's main() called with what it prints captured."""

import contextlib
import io
import os
import stat
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def write_executable(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def call(main, args):
    """(exit status, stdout, stderr) of @p main(@p args)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def finish(failures):
    """The exit status of a test script that gathered the descriptions of its failed cases in
    @p failures, after a last line: how many failed, or "all passed"."""
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("all passed")
    return 0
