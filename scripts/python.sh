# Sourced by the scripts that run Python: find_python MODULE prints the first Python 3 that can
# import MODULE (any Python 3 when MODULE is empty) and returns 1 when there is none. $PYTHON comes
# first, then Debian's /usr/bin/python3 (the one python3-matplotlib installs into), then python3
# and python on the PATH; COURSE_PYTHONS (space-separated) replaces that list.
find_python() {
  local candidate
  for candidate in ${COURSE_PYTHONS-"${PYTHON:-}" /usr/bin/python3 python3 python}; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    "$candidate" -c "import sys; assert sys.version_info >= (3, 6); ${1:+import $1}" \
      >/dev/null 2>&1 || continue
    printf '%s\n' "$candidate"
    return 0
  done
  return 1
}
