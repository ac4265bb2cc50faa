#!/usr/bin/env bash
# Screenshots of the course site as a reader sees it, in headless Chromium, for both editions:
# the main page, a lesson and the results page at 1400 px (a laptop) and 800 px (a narrow window,
# where the navigation tree collapses), and a check of every page's layout at those widths.
#
#   scripts/screenshot_site.sh [--build-dir DIR] [--out DIR] [--height PX] [PAGE ...]
#
# PAGE: a page's name (index, ch05, results, tools, ch05_hints, ...; default index ch05 results).
# The sites are DIR/docs/html (the full edition, for instructors) and DIR/docs/student/html (student edition),
# built by `cmake --build DIR --target docs docs_student`; DIR is build/ unless --build-dir says.
# The screenshots go to OUT/<edition>/PAGE_WIDTH.png (OUT: DIR/screenshots); --height sets the
# window's height (900; more shows more of each page). Then docs/site_layout.py checks every page
# written in Markdown at both widths (the text never scrolls sideways, the tree collapses below
# 1000 px) and the exit status is 1 when it finds a problem. Needs Chromium (Debian/Ubuntu:
# apt-get install chromium; CHROMIUM=path names another).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/screenshot_site.sh [--build-dir DIR] [--out DIR] [--height PX] [PAGE ...]"
build="$root/build"
out=""
height=900
pages=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    --build-dir | --out | --height)
      [[ $# -ge 2 && -n $2 ]] || { echo "error: $1 needs a value; $usage" >&2; exit 2; }
      case $1 in
        --build-dir) build=$2 ;;
        --out) out=$2 ;;
        --height) height=$2 ;;
      esac
      shift 2
      ;;
    -*)
      echo "error: unknown option '$1'; $usage" >&2
      exit 2
      ;;
    *)
      [[ $1 =~ ^[a-z0-9_]+$ ]] || { echo "error: '$1' is not a page name (index, ch05, ...)" >&2; exit 2; }
      pages+=("$1")
      shift
      ;;
  esac
done
[[ $height =~ ^[0-9]+$ ]] || { echo "error: --height takes a number of pixels, not '$height'" >&2; exit 2; }
out=${out:-$build/screenshots}
source "$root/scripts/python.sh"
python=$(find_python "") || { echo "error: scripts/screenshot_site.sh needs python3" >&2; exit 2; }
list=$(IFS=,; echo "${pages[*]:-}")

status=0
found=0
for edition in full student; do
  html="$build/docs/html"
  [[ $edition == student ]] && html="$build/docs/student/html"
  if [[ ! -f $html/index.html ]]; then
    echo "screenshot_site: the $edition edition is not built ($html/index.html; cmake --build $build --target docs docs_student)" >&2
    continue
  fi
  found=1
  echo "== $edition edition: $html"
  "$python" "$root/docs/site_layout.py" shots "$html" --out "$out/$edition" --height "$height" \
    ${list:+--pages "$list"} || { status=1; continue; }
  "$python" "$root/docs/site_layout.py" check "$html" || status=1
done
if [[ $found == 0 ]]; then
  echo "error: no edition of the site is built in $build" >&2
  exit 1
fi
exit $status
