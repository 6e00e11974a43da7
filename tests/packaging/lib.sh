# shellcheck shell=sh
# tests/packaging/lib.sh: shared by the packaging tests. Exit codes follow
# automake: 0 pass, 1 fail, 77 skip, 99 hard error.
set -eu
: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# need_tool CMD PACKAGE: CMD must be installed: a failure in CI (where
# ci/install-deps installs PACKAGE), else a skip.
need_tool() {
    command -v "$1" >/dev/null && return 0
    [ "${CI:-}" = true ] && fail "$1 not installed (ci/install-deps installs $2)"
    skip "$1 not installed (apt-get install $2)"
}

# The installed programs: one man page (man/NAME.h2m) each; gdr-gpu-check
# only when the build has CUDA (it is built only then).
gdr_programs() {
    for h in "$top_srcdir"/man/*.h2m; do
        n=$(basename "$h" .h2m)
        [ "$n" = gdr-gpu-check ] && ! grep -q '^#define HAVE_CUDA 1' "$top_builddir/config.h" && continue
        echo "$n"
    done
}

# gdr_prog NAME: the program in the build tree (scripts: the source tree's).
gdr_prog() {
    for c in "$top_builddir/bench/$1" "$top_builddir/doctor/$1" "$top_builddir/tools/$1" \
             "$top_srcdir/scripts/$1"; do
        [ -x "$c" ] && { echo "$c"; return 0; }
    done
    fail "program $1 not found in the build tree"
}

# help_long_options PROG: the long options its --help lists at the start of a
# line or after "-x, " (the form every program's option table uses).
help_long_options() {
    "$1" --help 2>&1 | grep -oE '(^[[:space:]]*|, )--[A-Za-z][A-Za-z0-9_-]*' |
        sed -E 's/^[^-]*//' | sort -u
}
