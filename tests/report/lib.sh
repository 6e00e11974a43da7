# shellcheck shell=sh
# shellcheck disable=SC2034 # GH, GCC, lab, cluster: for the sourcing tests
# Shared by the tests in tests/report/: gdr-report, gdr-cluster-core, a
# scratch directory, the lab example and the checks of tests/checks.sh.
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
case $top_builddir in /*) ;; *) top_builddir=$(pwd)/$top_builddir ;; esac
GR=$top_builddir/tools/gdr-report
GCC=$top_builddir/tools/gdr-cluster-core
GH=$top_builddir/tools/gdr-history
[ -x "$GR" ] || { echo "SKIP: tools/gdr-report not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-report-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck source=tests/checks.sh
. "$here/../checks.sh"
lab=$top_srcdir/results/examples/lab
cluster=$top_srcdir/results/examples/cluster-lab
export top_srcdir

# inputs KIND DIR: a result directory made for a test (tests/report/inputs.py).
inputs() { python3 "$here/inputs.py" "$1" "$2"; }
