#!/usr/bin/env bash
# Shared set-up for scripts/run.sh and scripts/test.sh (sourced, not run): installs what is
# missing on Debian 12 or Ubuntu 24.04 with apt, finds nvcc, and configures and builds the course.
# Usage inside those scripts: course_setup; course_configure_and_build <preset>

course_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

course_say() { printf '==> %s\n' "$*"; }

# Installs the Debian/Ubuntu packages that are missing: a compiler, CMake, Ninja, Catch2 (v2 on
# Debian 12, v3 on Ubuntu 24.04), Doxygen, Graphviz and matplotlib for the ladder's plot.
course_install_missing() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v c++ >/dev/null || missing+=(g++)
  command -v ninja >/dev/null || missing+=(ninja-build)
  command -v doxygen >/dev/null || missing+=(doxygen)
  command -v dot >/dev/null || missing+=(graphviz)
  command -v python3 >/dev/null || missing+=(python3)
  dpkg -s catch2 >/dev/null 2>&1 || missing+=(catch2)
  dpkg -s python3-matplotlib >/dev/null 2>&1 || missing+=(python3-matplotlib)
  if [ ${#missing[@]} -eq 0 ]; then
    course_say "all build tools present"
    return 0
  fi
  course_say "installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Puts nvcc on PATH if the CUDA toolkit is installed in its usual place.
course_find_nvcc() {
  if ! command -v nvcc >/dev/null; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
      if [ -x "$dir/nvcc" ]; then
        export PATH="$dir:$PATH"
        break
      fi
    done
  fi
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

course_setup() {
  set -euo pipefail
  cd "$course_root"
  course_install_missing
  course_find_nvcc
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
