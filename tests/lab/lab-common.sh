# shellcheck shell=sh
# Shared by the tests/lab/*.test scripts (sourced). Sets LAB (the ci/rxe-lab
# path), provides skip/fail/lab_run helpers and a private scratch dir $W.
top=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LAB=$top/ci/rxe-lab
name=$(basename "$0" .test)

fail() { echo "FAIL: $name: $*" >&2; exit 1; }
# In CI (CI=true) a lab that cannot run is a failure, elsewhere a skip.
skip() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $name: lab cannot run in CI: $*" >&2; exit 1; fi
    echo "SKIP: $name: $*" >&2; exit 77
}

[ -x "$LAB" ] || fail "$LAB not found"
[ "$(id -u)" = 0 ] || skip "the soft-RoCE lab needs root"

W=$(mktemp -d "${TMPDIR:-/tmp}/gdr-labtest.XXXXXX") || fail "mktemp"
trap 'rm -rf "$W"' EXIT

# lab_run ARGS...: runs ci/rxe-lab, stdout+stderr to $W/out (and to our
# stderr for the log), exit status in $rc; rc 3 (missing prerequisite) skips.
lab_run() {
    "$LAB" "$@" >"$W/out" 2>&1
    rc=$?
    cat "$W/out" >&2
    [ "$rc" = 3 ] && skip "missing prerequisite: $(grep -m1 'missing' "$W/out")"
    return 0
}
