#!/usr/bin/env bash
# Shared set-up for scripts/run.sh, scripts/test.sh and scripts/progress.sh (sourced, not run):
# installs what the job is missing on Debian 12 or Ubuntu 24.04 with apt, finds nvcc, and
# configures and builds the course.
# Usage inside those scripts: course_setup <run|test|progress>; course_configure_and_build <preset>
# Each job installs only what it uses (course_packages). When apt cannot install something (no
# network, no sudo, no apt), one line says which package is missing and the command that installs
# it; apt's own messages go to a log file.

course_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$course_root/scripts/python.sh"
course_sudo=sudo
[ "$(id -u)" -ne 0 ] || course_sudo=""

course_say() { printf '==> %s\n' "$*"; }

# The Debian/Ubuntu packages job $1 needs, then, after the bar, those it goes on without: the
# documentation is part of the tests; the plot's test is skipped without matplotlib, and the
# figures' render check without rsvg-convert.
course_packages() {
  case "$1" in
    run) echo "cmake g++ ninja-build | catch2 python3 python3-matplotlib" ;;
    test) echo "cmake g++ ninja-build catch2 doxygen graphviz python3 |" \
      "python3-matplotlib librsvg2-bin" ;;
    progress) echo "cmake g++ ninja-build catch2 python3 |" ;;
    *) return 1 ;;
  esac
}

# What a job does without an optional package, for the line that says it is missing.
course_without() {
  case "$1" in
    catch2) echo "the tests are not built (scripts/test.sh needs them)" ;;
    python3) echo "the ladder's results table is not written" ;;
    python3-matplotlib) echo "the ladder's plot is skipped" ;;
    librsvg2-bin) echo "the check that each figure renders whole is skipped" ;;
  esac
}

# Whether the package (or the tool it provides) is installed. Catch2 and matplotlib count where
# dpkg does not know them too: built from source (a Catch2Config.cmake under CMAKE_PREFIX_PATH or
# the usual prefixes, which COURSE_CMAKE_PREFIXES replaces) or installed with pip (a Python the
# scripts use imports it).
course_have_package() {
  case "$1" in
    g++) command -v c++ ;;
    ninja-build) command -v ninja ;;
    graphviz) command -v dot ;;
    librsvg2-bin) command -v rsvg-convert ;;
    catch2) course_dpkg_knows catch2 || course_have_catch2_config ;;
    python3-matplotlib) course_dpkg_knows python3-matplotlib || find_python matplotlib ;;
    *) command -v "$1" ;;  # cmake, doxygen, python3
  esac >/dev/null 2>&1
}

course_dpkg_knows() { command -v dpkg && dpkg -s "$1"; }

course_have_catch2_config() {
  local prefix config extra=${CMAKE_PREFIX_PATH:-}
  for prefix in ${extra//:/ } ${COURSE_CMAKE_PREFIXES-/usr/local /usr /opt}; do
    for config in "$prefix"/{lib,lib64,lib/*,share,*/lib}/cmake/Catch2/Catch2Config.cmake; do
      [ -f "$config" ] && return 0
    done
  done
  return 1
}

# The command that installs packages $@, as the user should type it.
course_install_command() { printf '%sapt-get install %s' "${course_sudo:+sudo }" "$*"; }

# Installs packages $@ with apt, quietly: apt's messages go to a log file. On failure sets
# course_apt_reason (why, in a few words) and course_apt_log, and returns 1.
course_apt_install() {
  course_apt_reason=""
  course_apt_log=""
  if ! command -v apt-get >/dev/null 2>&1; then
    course_apt_reason="there is no apt-get here"
  elif [ -n "$course_sudo" ] && ! command -v sudo >/dev/null 2>&1; then
    course_apt_reason="installing needs root, and there is no sudo"
  fi
  [ -z "$course_apt_reason" ] || return 1
  course_apt_log=$(mktemp "${TMPDIR:-/tmp}/course-apt.XXXXXX")
  export DEBIAN_FRONTEND=noninteractive
  if $course_sudo apt-get update -qq >"$course_apt_log" 2>&1 &&
    $course_sudo apt-get install -y -qq --no-install-recommends "$@" >>"$course_apt_log" 2>&1; then
    rm -f "$course_apt_log"
    course_apt_log=""
    return 0
  fi
  course_apt_reason="apt-get failed"
  if grep -qiE "Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|Network is unreachable|Unable to locate package|has no installation candidate" "$course_apt_log"; then
    course_apt_reason="apt cannot reach its package sources"
  fi
  return 1
}

# Installs what job $1 (run, test or progress) is missing. Returns 1, after one line on stderr
# naming the packages and the command that installs them, when something the job needs cannot be
# installed; a missing optional package only gets a line saying what is skipped without it.
course_install_for() {
  local packages package missing_required=() missing_optional=()
  packages=$(course_packages "$1") || {
    echo "error: unknown job '$1' (run, test or progress)" >&2
    return 2
  }
  for package in ${packages%|*}; do
    course_have_package "$package" || missing_required+=("$package")
  done
  for package in ${packages#*|}; do
    course_have_package "$package" || missing_optional+=("$package")
  done
  local missing=("${missing_required[@]}" "${missing_optional[@]}")
  if [ ${#missing[@]} -eq 0 ]; then
    course_say "all the tools this needs are present"
    return 0
  fi
  course_say "installing: ${missing[*]}"
  course_apt_install "${missing[@]}" && return 0
  local reason=$course_apt_reason where=""
  [ -z "$course_apt_log" ] || where=" (apt's messages: $course_apt_log)"
  # One package that cannot be had must not keep the others out: try the needed ones alone.
  if [ ${#missing_required[@]} -gt 0 ] && { [ ${#missing_optional[@]} -eq 0 ] ||
    ! course_apt_install "${missing_required[@]}"; }; then
    printf 'error: missing %s, and %s: install with `%s`, then run this again%s\n' \
      "${missing_required[*]}" "$reason" "$(course_install_command "${missing_required[@]}")" \
      "$where" >&2
    return 1
  fi
  for package in "${missing_optional[@]}"; do
    printf 'note: %s is not installed (%s), so %s; to have it: %s\n' "$package" "$reason" \
      "$(course_without "$package")" "$(course_install_command "$package")" >&2
  done
  return 0
}

# Puts nvcc on PATH if the CUDA toolkit is installed in its usual place.
course_find_nvcc() {
  local dir
  for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if ! command -v nvcc >/dev/null && [ -x "$dir/nvcc" ]; then
      export PATH="$dir:$PATH"
    fi
  done
  if ! command -v nvcc >/dev/null; then
    echo "error: nvcc not found: install the CUDA toolkit (12.4 or newer) first" >&2
    return 1
  fi
  course_say "$(nvcc --version | tail -n 1)"
}

# Whether an NVIDIA GPU is visible to this machine.
course_have_gpu() {
  command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

# Installs what job $1 needs (see the top of this file) and finds nvcc; exits on failure.
course_setup() {
  set -euo pipefail
  cd "$course_root"
  course_install_for "$1" || exit 1
  course_find_nvcc || exit 1
}

# Configures (with any extra cmake arguments) and builds with the named preset (CMakePresets.json).
course_configure_and_build() {
  local preset=$1
  shift
  course_say "configuring (preset $preset)"
  cmake --preset "$preset" "$@"
  course_say "building"
  cmake --build --preset "$preset" --parallel "$(nproc)"
}
