#!/usr/bin/env bash
# Tests of scripts/setup.sh's installing (course_install_for), with no network and no real apt:
# PATH holds only stand-ins, so the test decides which tools are "installed" and how apt behaves.
#   - apt that cannot reach its sources (as offline: warnings from update, "Unable to locate
#     package" from install) must give one line that names the missing packages and the command
#     that installs them, and none of apt's own messages;
#   - the main job (run) needs CMake, a compiler and Ninja only: without Doxygen, Graphviz and
#     matplotlib it goes on, with one line about the plot;
#   - the test job (test) still needs Doxygen and Graphviz and Catch2, with the same clear line;
#   - without apt-get at all, the line says so;
#   - with a working apt, what was missing is installed and nothing is said about it.
# Usage: tests/scripts/test_setup.sh   (exit 0 when every case holds)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
failures=0

fail() {
  printf 'FAIL: %s\n' "$*"
  failures=$((failures + 1))
}

# make_bin <name> <apt> <tool...>: sets bin to $work/<name>, holding the basic tools the set-up
# uses, stubs that succeed for the tools named ("installed"), stand-ins for sudo (runs the
# command), dpkg (knows the packages of $FAKE_DPKG_INSTALLED) and python3 (imports only the modules
# of $FAKE_PY_MODULES), and an apt-get that is <apt>: "offline" (as without a network: warnings
# from update, "Unable to locate package" from install), "working" (installs each package by
# adding the tool it provides), "never" (says it was called, and fails) or "none" (no apt-get).
make_bin() {
  bin="$work/$1"
  local apt=$2 tool real
  shift 2
  mkdir -p "$bin"
  for tool in bash sh env mktemp cat grep rm id dirname printf tr sed head tail chmod; do
    real=$(command -v "$tool") || continue
    case "$real" in /*) ln -sf "$real" "$bin/$tool" ;; esac
  done
  for tool in "$@"; do
    printf '#!/bin/sh\nexit 0\n' >"$bin/$tool"
    chmod +x "$bin/$tool"
  done
  if [ -e "$bin/python3" ]; then
    cat >"$bin/python3" <<'EOF'
#!/bin/sh
[ "$1" = "-c" ] || exit 0
for module in $FAKE_PY_MODULES; do
  case "$2" in *"import $module") exit 0 ;; esac
done
exit 1
EOF
  fi
  printf '#!/bin/sh\nexec "$@"\n' >"$bin/sudo"
  cat >"$bin/dpkg" <<'EOF'
#!/bin/sh
[ "$1" = "-s" ] || exit 2
for installed in $FAKE_DPKG_INSTALLED; do
  [ "$installed" = "$2" ] && exit 0
done
echo "dpkg-query: package '$2' is not installed" >&2
exit 1
EOF
  case $apt in
    offline) cat >"$bin/apt-get" <<'EOF' ;;
#!/bin/sh
case "$1" in
  update)
    echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'" >&2
    echo "W: Some index files failed to download. They have been ignored, or old ones used instead." >&2
    exit 0 ;;
esac
for package in "$@"; do
  case "$package" in -*|install) ;; *) echo "E: Unable to locate package $package" >&2 ;; esac
done
exit 100
EOF
    working) cat >"$bin/apt-get" <<EOF ;;
#!/bin/sh
[ "\$1" = update ] && exit 0
for package in "\$@"; do
  case "\$package" in
    cmake) tool=cmake ;; g++) tool=c++ ;; ninja-build) tool=ninja ;; doxygen) tool=doxygen ;;
    graphviz) tool=dot ;; python3) tool=python3 ;; *) continue ;;
  esac
  printf '#!/bin/sh\nexit 0\n' >"$bin/\$tool"
  chmod +x "$bin/\$tool"
done
exit 0
EOF
    never) printf '#!/bin/sh\necho "apt-get was called" >&2\nexit 100\n' >"$bin/apt-get" ;;
  esac
  chmod +x "$bin/sudo" "$bin/dpkg"
  [ ! -e "$bin/apt-get" ] || chmod +x "$bin/apt-get"
}

# run_case <name> <job>: runs course_install_for <job> with PATH=$bin; sets status, out, err.
run_case() {
  local name=$1 job=$2
  # Only the stand-ins answer: Python from PATH, Catch2's CMake files under $work/prefix.
  env -i PATH="$bin" HOME="$work" TMPDIR="$work" FAKE_DPKG_INSTALLED="${FAKE_DPKG_INSTALLED:-}" \
    FAKE_PY_MODULES="${FAKE_PY_MODULES:-}" COURSE_PYTHONS=python3 \
    COURSE_CMAKE_PREFIXES="$work/prefix" \
    "$bin/bash" -c 'source "$1/scripts/setup.sh"; course_install_for "$2"' _ "$root" "$job" \
    >"$work/$name.out" 2>"$work/$name.err"
  status=$?
  out=$(cat "$work/$name.out")
  err=$(cat "$work/$name.err")
}

# expect <description> <ok|fails> <pattern>, after run_case: the exit status, exactly one line on
# stderr, matching the extended regular expression <pattern>, and none of apt's own messages.
expect() {
  local what=$1 outcome=$2 pattern=$3 lines
  if [ "$outcome" = ok ]; then
    [ "$status" -eq 0 ] || fail "$what: exit status $status: $err"
  else
    [ "$status" -ne 0 ] || fail "$what: exit status 0"
  fi
  lines=$(printf '%s' "$err" | grep -c '') || true
  [ "$lines" -eq 1 ] || fail "$what: expected one line on stderr, got $lines: $err"
  if printf '%s\n%s\n' "$out" "$err" | grep -qE '^(E|W): '; then
    fail "$what: apt's own messages were printed: $out $err"
  fi
  printf '%s' "$err" | grep -qE "$pattern" || fail "$what: stderr does not say '$pattern': $err"
}

install="sudo apt-get install"
[ "$(id -u)" -ne 0 ] || install="apt-get install"

# 1. The main job, offline, without CMake and Ninja: one error line naming both and the command.
make_bin bin1 offline c++ python3
FAKE_DPKG_INSTALLED="catch2 python3-matplotlib" run_case run_offline_missing run
expect "run, offline, cmake and ninja missing" fails \
  "^error: missing cmake ninja-build, and apt cannot reach its package sources: install with \`$install cmake ninja-build\`"
printf '%s' "$err" | grep -qE 'doxygen|graphviz' &&
  fail "run, offline: the main job asked for the documentation tools: $err"

# 2. The main job, offline, with what it needs but no Doxygen, Graphviz or matplotlib (neither
#    from apt nor importable by Python): goes on, with one line saying the plot is skipped and
#    how to get it.
make_bin bin2 offline c++ cmake ninja python3
FAKE_DPKG_INSTALLED="catch2" run_case run_offline_optional run
expect "run, offline, only matplotlib missing" ok \
  "^note: python3-matplotlib is not installed.*plot is skipped.*$install python3-matplotlib"

# 3. The test job, offline, without Doxygen and Graphviz: they are still needed.
FAKE_DPKG_INSTALLED="catch2 python3-matplotlib" run_case test_offline_docs test
expect "test, offline, no Doxygen" fails \
  "^error: missing doxygen graphviz, .*$install doxygen graphviz"

# 4. The test job without Catch2: needed too, named the same way.
FAKE_DPKG_INSTALLED="python3-matplotlib" run_case test_offline_catch2 test
expect "test, offline, no Catch2" fails "^error: missing catch2 doxygen graphviz, .*$install catch2 doxygen graphviz"

# 5. No apt-get at all.
make_bin bin5 none c++ python3
FAKE_DPKG_INSTALLED="catch2" run_case run_no_apt run
expect "no apt-get" fails "^error: missing cmake ninja-build, and there is no apt-get here"

# 6. A working apt installs what is missing, quietly.
make_bin bin6 working c++ python3
FAKE_DPKG_INSTALLED="catch2 python3-matplotlib" run_case run_online run
[ "$status" -eq 0 ] || fail "working apt: exit status $status: $err"
[ -x "$bin/cmake" ] && [ -x "$bin/ninja" ] || fail "working apt: cmake and ninja were not installed"
[ -z "$err" ] || fail "working apt: something was printed on stderr: $err"

# 7. Everything present: nothing to install, apt never called.
make_bin bin7 never c++ cmake ninja python3 doxygen dot
FAKE_DPKG_INSTALLED="catch2 python3-matplotlib" run_case all_present test
[ "$status" -eq 0 ] && [ -z "$err" ] || fail "everything present: status $status, stderr: $err"

# 8. matplotlib installed with pip and Catch2 built from source: dpkg knows neither, but both are
#    there, so nothing is installed and nothing is said (a machine set up without apt).
mkdir -p "$work/prefix/lib/cmake/Catch2"
: >"$work/prefix/lib/cmake/Catch2/Catch2Config.cmake"
FAKE_PY_MODULES=matplotlib run_case pip_and_source test
[ "$status" -eq 0 ] && [ -z "$err" ] ||
  fail "matplotlib from pip, Catch2 from source: status $status, stderr: $err"

if [ "$failures" -gt 0 ]; then
  printf '%d case(s) failed\n' "$failures"
  exit 1
fi
echo "setup: all cases hold"
