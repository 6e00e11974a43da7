#!/bin/sh
# bench-history.sh [NIGHTS] - the cost of a year of nightly history: NIGHTS
# (default 365) synthetic nights of the full matrix (3 tools x 7 placement
# and GDR pairs x 23 sizes = 483 series a night, tests/history/gen-history.py
# --matrix) ingested one night per gdr-history process, as ci/nightly does;
# then the newest night's check, a trend, check-db, the database size. Not part of
# make check (minutes); docs/nightly.md has the numbers.
# Run from the build directory: sh tests/history/bench-history.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
gh=${GDR_HISTORY:-./tools/gdr-history}
nights=${1:-365}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-history-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
now() { date +%s.%N; }
ingest=0 first=1
while [ $first -le "$nights" ]; do
    last=$((first + 29)); [ $last -le "$nights" ] || last=$nights
    # The noise of every night is drawn in order, so chunks make one history.
    python3 "$here/gen-history.py" --template "$top_srcdir/results/examples/lab" --matrix \
        --out "$tmp/nights" --first "$first" --nights "$last" --step $((nights * 3 / 4)):10 --seed 7
    for d in "$tmp"/nights/night-*; do
        t0=$(now)
        "$gh" --db "$tmp/h.sqlite" ingest "$d" >/dev/null
        ingest=$(echo "$ingest + $(now) - $t0" | bc)
    done
    rm -rf "$tmp/nights"
    first=$((last + 1))
done
t0=$(now)
"$gh" --db "$tmp/h.sqlite" check > "$tmp/check.txt" || true
check=$(echo "$(now) - $t0" | bc)
t0=$(now)
"$gh" --db "$tmp/h.sqlite" trend -o "$tmp/trend" >/dev/null
trend=$(echo "$(now) - $t0" | bc)
t0=$(now)
"$gh" --db "$tmp/h.sqlite" check-db >/dev/null
checkdb=$(echo "$(now) - $t0" | bc)
points=$("$gh" --db "$tmp/h.sqlite" export --csv | tail -n +2 | wc -l)
size=$(stat -c %s "$tmp/h.sqlite")
echo "nights $nights, points $points, database $((size / 1024)) KiB ($((size / points)) B/point)"
printf 'ingest: %.1f s in all, %.0f ms a night\n' "$ingest" "$(echo "$ingest * 1000 / $nights" | bc -l)"
printf 'check of the newest night: %.2f s; trend (%s figures): %.1f s\n' "$check" \
    "$(wc -l < "$tmp/trend/trend-figures.tsv")" "$trend"
printf 'check-db (PRAGMA integrity_check): %.2f s\n' "$checkdb"
tail -1 "$tmp/check.txt"
