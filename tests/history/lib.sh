# shellcheck shell=sh
# Shared by the tests in tests/history/: gdr-history, the synthetic history
# writer, a scratch directory and the checks of tests/checks.sh.
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
GH=$top_builddir/tools/gdr-history
case $GH in /*) ;; *) GH=$(pwd)/$GH ;; esac
[ -x "$GH" ] || { echo "SKIP: gdr-history not built (configure found no sqlite3)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-history-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$here/../checks.sh"
template=$top_srcdir/results/examples/lab

# gen DIR ARGS...: synthetic nights into DIR (tests/history/gen-history.py).
gen() { d=$1; shift; python3 "$here/gen-history.py" --template "$template" --out "$d" "$@"; }

# py SCRIPT ARGS...: a python3 check; its stdout is kept in $tmp/py.
py() { s=$1; shift; python3 -c "$s" "$@" > "$tmp/py"; }
