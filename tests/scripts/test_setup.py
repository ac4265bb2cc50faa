#!/usr/bin/env python3
"""Tests of scripts/setup.sh's installing (course_install_for), with no network and no real apt:
PATH holds only stand-ins, so the test decides which tools are "installed" and how apt behaves.
Where apt cannot install what a job needs (offline: warnings from update, "Unable to locate
package" from install; or no apt-get at all), one line names the missing packages and the command
that installs them, and none of apt's own messages are shown. The main job (run) needs CMake, a
compiler and Ninja only and goes on without the rest; the test job still needs Catch2, Doxygen and
Graphviz, and goes on without rsvg-convert (librsvg2-bin) after one line; a working apt installs
what is missing and nothing is said about it.

    python3 tests/scripts/test_setup.py   (exit 0 when every case holds; KEEP_WORK=1 keeps the
                                           scratch folder)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from support import ROOT, write_executable

# python3 -c "...import MODULE" succeeds for the modules of $FAKE_PY_MODULES only.
PYTHON = """#!/bin/sh
[ "$1" = "-c" ] || exit 0
for module in $FAKE_PY_MODULES; do
  case "$2" in *"import $module") exit 0 ;; esac
done
exit 1
"""
# dpkg -s PACKAGE knows the packages of $FAKE_DPKG_INSTALLED.
DPKG = """#!/bin/sh
[ "$1" = "-s" ] || exit 2
for installed in $FAKE_DPKG_INSTALLED; do
  [ "$installed" = "$2" ] && exit 0
done
echo "dpkg-query: package '$2' is not installed" >&2
exit 1
"""
APT_GET = {  # as without a network; installing each package by adding its tool; must not run
    "offline": """#!/bin/sh
case "$1" in
  update)
    echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease" >&2
    echo "W: Some index files failed to download. They have been ignored." >&2
    exit 0 ;;
esac
for package in "$@"; do
  case "$package" in -*|install) ;; *) echo "E: Unable to locate package $package" >&2 ;; esac
done
exit 100
""",
    "working": """#!/bin/sh
[ "$1" = update ] && exit 0
for package in "$@"; do
  case "$package" in
    cmake) tool=cmake ;; g++) tool=c++ ;; ninja-build) tool=ninja ;; doxygen) tool=doxygen ;;
    graphviz) tool=dot ;; python3) tool=python3 ;; librsvg2-bin) tool=rsvg-convert ;;
    *) continue ;;
  esac
  printf '#!/bin/sh\\nexit 0\\n' >"BIN/$tool"
  chmod +x "BIN/$tool"
done
exit 0
""",
    "never": '#!/bin/sh\necho "apt-get was called" >&2\nexit 100\n'}

WORK = tempfile.mkdtemp()
INSTALL = "apt-get install" if os.geteuid() == 0 else "sudo apt-get install"
failures = []


def fail(why):
    print(f"FAIL: {why}")
    failures.append(why)


def make_bin(name, apt, *tools):
    """$WORK/NAME, holding the basic tools the set-up uses, stubs that succeed for the TOOLS
    ("installed"), stand-ins for sudo (runs the command), dpkg and python3 (when among the
    TOOLS), and an apt-get that is APT: offline, working, never, or none (no apt-get)."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder)
    for tool in "bash sh env mktemp cat grep rm id dirname printf tr sed head tail chmod".split():
        if shutil.which(tool):
            os.symlink(shutil.which(tool), os.path.join(folder, tool))
    stand_ins = dict({tool: "#!/bin/sh\nexit 0\n" for tool in tools}, dpkg=DPKG,
                     sudo='#!/bin/sh\nexec "$@"\n')
    stand_ins.update({"python3": PYTHON} if "python3" in tools else {})
    stand_ins.update({"apt-get": APT_GET[apt].replace("BIN", folder)} if apt in APT_GET else {})
    for tool, text in stand_ins.items():
        write_executable(os.path.join(folder, tool), text)
    return folder


def run_case(folder, job, dpkg="", modules=""):
    """(exit status, stdout, stderr) of course_install_for JOB with PATH=FOLDER: only the stand-ins
    answer (Python from PATH, Catch2's CMake files under $WORK/prefix)."""
    env = dict(PATH=folder, HOME=WORK, TMPDIR=WORK, FAKE_DPKG_INSTALLED=dpkg,
               FAKE_PY_MODULES=modules, COURSE_PYTHONS="python3",
               COURSE_CMAKE_PREFIXES=os.path.join(WORK, "prefix"))
    done = subprocess.run([os.path.join(folder, "bash"), "-c",
                           'source "$1/scripts/setup.sh"; course_install_for "$2"', "_", ROOT,
                           job], env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout.rstrip("\n"), done.stderr.rstrip("\n")


# (what, apt-get, the tools installed, the job, the packages dpkg knows, whether the job goes on,
# what the one line on stderr says, or None where nothing may be said)
CASES = [
    ("run, offline, cmake and ninja missing", "offline", "c++ python3", "run",
     "catch2 python3-matplotlib", False, "^error: missing cmake ninja-build, and apt cannot reach "
     f"its package sources: install with `{INSTALL} cmake ninja-build`"),
    ("run, offline, only matplotlib missing (neither from apt nor importable by Python)",
     "offline", "c++ cmake ninja python3", "run", "catch2", True,
     f"^note: python3-matplotlib is not installed.*plot is skipped.*{INSTALL} python3-matplotlib"),
    ("test, offline, no Doxygen", "offline", "c++ cmake ninja python3", "test",
     "catch2 python3-matplotlib", False,
     f"^error: missing doxygen graphviz, .*{INSTALL} doxygen graphviz"),
    ("test, offline, no Catch2", "offline", "c++ cmake ninja python3", "test",
     "python3-matplotlib", False,
     f"^error: missing catch2 doxygen graphviz, .*{INSTALL} catch2 doxygen graphviz"),
    ("no apt-get", "none", "c++ python3", "run", "catch2", False,
     "^error: missing cmake ninja-build, and there is no apt-get here"),
    ("working apt", "working", "c++ python3", "run", "catch2 python3-matplotlib", True, None),
    ("test, offline, only rsvg-convert missing", "offline",
     "c++ cmake ninja python3 doxygen dot", "test", "catch2 python3-matplotlib", True,
     f"^note: librsvg2-bin is not installed.*renders whole is skipped.*{INSTALL} librsvg2-bin"),
    ("test, working apt, rsvg-convert missing", "working", "c++ cmake ninja python3 doxygen dot",
     "test", "catch2 python3-matplotlib", True, None),
    ("everything present", "never", "c++ cmake ninja python3 doxygen dot rsvg-convert", "test",
     "catch2 python3-matplotlib", True, None),
]


def main():
    for number, (what, apt, tools, job, dpkg, ok, pattern) in enumerate(CASES):
        folder = make_bin(f"case{number}", apt, *tools.split())
        status, out, err = run_case(folder, job, dpkg=dpkg)
        if ok != (status == 0):
            fail(f"{what}: exit status {status}: {err}")
        if pattern is None and err:
            fail(f"{what}: something was printed on stderr: {err}")
        if pattern and len(err.splitlines()) != 1:
            fail(f"{what}: expected one line on stderr, got {len(err.splitlines())}: {err}")
        if pattern and not re.search(pattern, err, re.M):
            fail(f"{what}: stderr does not say '{pattern}': {err}")
        if re.search("^(E|W): ", f"{out}\n{err}", re.M):
            fail(f"{what}: apt's own messages were printed: {out} {err}")
        if job == "run" and re.search("doxygen|graphviz", err):
            fail(f"{what}: the main job asked for the documentation tools: {err}")
        if ok and not all(os.access(os.path.join(folder, tool), os.X_OK)
                          for tool in ("cmake", "ninja")):
            fail(f"{what}: cmake and ninja were not installed")
        if job == "test" and apt == "working" and not os.access(
                os.path.join(folder, "rsvg-convert"), os.X_OK):
            fail(f"{what}: rsvg-convert was not installed")

    # matplotlib installed with pip and Catch2 built from source: dpkg knows neither, but both
    # are there, so nothing is installed and nothing is said (a machine set up without apt).
    catch2 = os.path.join(WORK, "prefix", "lib", "cmake", "Catch2")
    os.makedirs(catch2)
    open(os.path.join(catch2, "Catch2Config.cmake"), "w").close()
    folder = make_bin("source", "never", "c++", "cmake", "ninja", "python3", "doxygen", "dot",
                      "rsvg-convert")
    status, _, err = run_case(folder, "test", modules="matplotlib")
    if status != 0 or err:
        fail(f"matplotlib from pip, Catch2 from source: status {status}, stderr: {err}")

    if failures:
        print(f"{len(failures)} case(s) failed")
        return 1
    print("setup: all cases hold")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        if not os.environ.get("KEEP_WORK"):
            shutil.rmtree(WORK)
