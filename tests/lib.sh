# shellcheck shell=sh
# tests/lib.sh - shared by the shell tests: where things are, how to fail
# or skip, and how to run a command in the soft-RoCE lab.
# Usage: . "$(dirname "$0")/../lib.sh"

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
# shellcheck disable=SC2034 # for the tests that source this file
bench=$top_builddir/bench
PYTHON=${PYTHON:-/usr/bin/python3}
test_name=$(basename "$0")

fail() { echo "FAIL: $test_name: $*" >&2; exit 1; }
skip() { echo "SKIP: $test_name: $*" >&2; exit 77; }
note() { echo "# $*"; }

# Run "$@" in the lab; the lab's own failures (3 = missing prerequisite,
# 124 = timeout, 125 = boot failure) fail the test in CI and skip it
# elsewhere only when a prerequisite is missing.
lab() {
    "${GDR_RXE_LAB:-$top_srcdir/ci/rxe-lab}" "$@"
    rc=$?
    if [ $rc -eq 3 ]; then
        [ "${CI:-}" = true ] && fail "the lab is missing a prerequisite (see above)"
        skip "the lab is missing a prerequisite (see above)"
    fi
    return $rc
}

# A scratch directory, removed on exit, shareable with the lab. Under /var/tmp
# because the lab gives the guest a fresh /tmp. GDR_TEST_KEEP=1 keeps it
# (named on stderr) to read what a failed test left.
scratch() {
    scratch_dir=$(mktemp -d /var/tmp/gdr-test.XXXXXX) || fail "mktemp"
    if [ -n "${GDR_TEST_KEEP:-}" ]; then
        echo "scratch kept: $scratch_dir" >&2
    else
        trap 'rm -rf "$scratch_dir"' EXIT
    fi
}

# Check a result document: schema, every size present, consistent numbers.
check_result() {
    "$PYTHON" "$top_srcdir/tests/integration/check_result.py" \
        --schema "$top_srcdir/results/schema/result.schema.json" "$@" ||
        fail "result check failed: $*"
}

# lap_report FILE [N]: a note of the N (default 6) slowest runs that the
# lab's scripts timed into FILE (tests/lab-times.sh), and their total.
lap_report() {
    [ -s "$1" ] || return 0
    note "slowest runs (s): $(sort -rn "$1" | head -"${2:-6}" |
        awk '{printf "%s%s %.1f", (NR > 1 ? ", " : ""), $2, $1 / 100}'); all $(wc -l <"$1") runs: $(awk '{s += $1} END {printf "%.0f", s / 100}' "$1") s"
}
