# shellcheck shell=sh
# Shared by the tests in tests/results/: paths, a scratch directory and
# helpers that edit fixture documents (cJSON's layout: one field a line).
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-.}
# shellcheck disable=SC2034 # for the tests that source this file
fixtures=$here/fixtures
GDR_JSON=${GDR_JSON:-$top_builddir/tools/gdr-json}
case $GDR_JSON in /*) ;; *) GDR_JSON=$(pwd)/$GDR_JSON ;; esac
export GDR_JSON
[ -x "$GDR_JSON" ] || { echo "SKIP: $GDR_JSON not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-results-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$here/../checks.sh"

# scale FILE FIELD FACTOR SIZE... : multiply FIELD in the rows of SIZE
# ("all" for every row), print the document on stdout.
scale() {
    file=$1 key=$2 factor=$3; shift 3
    awk -v key="\"$key\":" -v f="$factor" -v sizes=" $* " '
        $1 == "\"size\":" { size = $2; sub(/,$/, "", size) }
        $1 == key && (sizes == " all " || index(sizes, " " size " ")) {
            v = $2; comma = sub(/,$/, "", v)
            sub(/[^\t]*$/, sprintf("%.17g%s", v * f, comma ? "," : ""))
        }
        { print }' "$file"
}
