# Shared by the tests in tests/history/: gdr-history, the synthetic history
# writer, a scratch directory and the checks of tests/results/lib.sh.
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
GH=$top_builddir/tools/gdr-history
case $GH in /*) ;; *) GH=$(pwd)/$GH ;; esac
[ -x "$GH" ] || { echo "SKIP: gdr-history not built (configure found no sqlite3)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-history-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
template=$top_srcdir/results/examples/lab

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# gen DIR ARGS...: synthetic nights into DIR (tests/history/gen-history.py).
gen() { d=$1; shift; python3 "$here/gen-history.py" --template "$template" --out "$d" "$@"; }

# expect_rc WANT NAME CMD...: run CMD, keep its stdout/stderr in $tmp/out, $tmp/err.
expect_rc() {
    want=$1 name=$2; shift 2
    set +e
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

# py SCRIPT ARGS...: a python3 check; its stdout is kept in $tmp/py.
py() { s=$1; shift; python3 -c "$s" "$@" > "$tmp/py"; }

finish() {
    [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
    exit 0
}
