# shellcheck shell=sh
# Checks shared by the tool tests (tests/results/, tests/history/): each
# failure is counted, not fatal, so one run reports every broken case.
# The sourcing script sets tmp (a scratch directory) first.
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# expect_rc WANT NAME CMD... : run CMD, keep its stdout/stderr in $tmp/out, $tmp/err.
expect_rc() {
    want=$1 name=$2; shift 2
    set +e
    # shellcheck disable=SC2154 # tmp: the sourcing script's scratch directory
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    set -e
    if [ "$rc" -eq "$want" ]; then pass "$name (exit $rc)"; else
        fail "$name: exit $rc, want $want"; sed 's/^/  | /' "$tmp/err" "$tmp/out" | head -20; fi
}

# The error output is exactly one line that contains TEXT.
one_line_error() {
    lines=$(wc -l < "$tmp/err")
    if [ "$lines" -eq 1 ] && grep -q -- "$1" "$tmp/err"; then pass "one-line error naming '$1'"
    else fail "want one error line naming '$1', got:"; sed 's/^/  | /' "$tmp/err"; fi
}

finish() {
    [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
    exit 0
}
