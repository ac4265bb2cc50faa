#!/usr/bin/env bash
# The students' hand-out: a copy of the course without the answers, which builds, runs and tests
# from its own README.
#
# Usage: scripts/handout.sh [--ref REV] DEST
#   DEST        the folder to write; it must not exist yet, or be empty
#   --ref REV   the commit to hand out (default HEAD): its tracked files, so edits that are not
#               committed stay out
#
# The copy is the commit's files (git archive) without:
#   solutions/                   the completed kernels
#   every ANSWERS.md             the answer keys
#   docs/pages/instructors.md    the instructors' page
# and its README.md without the passages between <!-- instructors:begin --> and
# <!-- instructors:end --> (the instructors' section, the commands that need solutions/). Without
# solutions/ its build has the student editions only, each chapter comparing itself with the
# student's own previous chapter, and leaves out what runs the solutions (CMakeLists.txt,
# COURSE_SOLUTIONS). DEST is a plain folder: `git init` it to give it a history of its own.
#
# Exit status: 0 written, 1 it could not be written, 2 bad command line.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=HEAD
dest=""
die() { printf 'error: %s\n' "$*" >&2; exit "${status:-1}"; }
usage() { status=2 die "$*"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --ref)
      [ -n "${2:-}" ] || usage "--ref needs a commit"
      ref=$2
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*) usage "unknown option '$1' (--help lists them)" ;;
    *)
      [ -z "$dest" ] || usage "one destination folder, got '$dest' and '$1'"
      dest=$1
      shift
      ;;
  esac
done
[ -n "$dest" ] || usage "give the folder to write the hand-out to (scripts/handout.sh DEST)"
command -v git >/dev/null 2>&1 || die "git is needed to read the commit to hand out"
git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  die "$root is not a git checkout: the hand-out is made from one of its commits"
commit=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}") ||
  usage "--ref: '$ref' is not a commit of $root"
if [ -e "$dest" ] && { [ ! -d "$dest" ] || [ -n "$(ls -A "$dest")" ]; }; then
  die "$dest exists and is not an empty folder: give a new one"
fi
mkdir -p "$dest" || die "cannot create $dest"
# From here on a failure leaves DEST as empty as it was found, never half a hand-out.
die() {
  printf 'error: %s\n' "$*" >&2
  find "$dest" -mindepth 1 -delete
  exit 1
}

# What the students do not get, as git pathspecs of what the archive leaves out.
left_out=(':(exclude)solutions' ':(exclude,glob)**/ANSWERS.md'
          ':(exclude)docs/pages/instructors.md')
git -C "$root" archive --format=tar "$commit" -- . "${left_out[@]}" | tar -x -C "$dest" ||
  die "git archive of $ref into $dest failed"

# The README without its instructors' passages; a begin without its end (or the reverse) stops
# here rather than handing out half a README.
readme="$dest/README.md"
if [ -f "$readme" ]; then
  awk -v file="README.md" '
    /^<!-- instructors:begin -->[ \t]*$/ {
      if (inside) { printf "error: %s:%d: instructors:begin inside another\n", file, NR > "/dev/stderr"; bad = 1 }
      inside = 1; next
    }
    /^<!-- instructors:end -->[ \t]*$/ {
      if (!inside) { printf "error: %s:%d: instructors:end without a begin\n", file, NR > "/dev/stderr"; bad = 1 }
      inside = 0; skip_blank = 1; next
    }
    inside { next }
    skip_blank && /^[ \t]*$/ { skip_blank = 0; if (last_blank) next }
    { skip_blank = 0; last_blank = ($0 ~ /^[ \t]*$/); print }
    END {
      if (inside) { printf "error: %s: instructors:begin without an end\n", file > "/dev/stderr"; bad = 1 }
      exit bad
    }' "$readme" >"$readme.new" || die "the README's instructors' passages are not well marked"
  mv "$readme.new" "$readme"
fi

# What must not be there, checked on what was written.
leaked=$(cd "$dest" && { [ ! -e solutions ] || echo solutions/; find . -name ANSWERS.md; } | head -n 3)
[ -z "$leaked" ] || die "the hand-out still holds answers: $leaked"
printf '==> hand-out of %s (%s) written to %s: no solutions/, no answer keys\n' \
  "$ref" "${commit:0:12}" "$dest"
printf '    build it there: cmake --preset default && cmake --build build\n'
