#!/bin/sh
# bench-publish.sh [NIGHTS [SERIES]] - the cost of gdr-history publish (the
# static dashboard) on a large history: NIGHTS (default 1000) nights x
# SERIES (default 500) series, made by gen-history-db.py. Times a first
# publish (every page written), a second one (nothing changed: no page
# written), and one after a new night (every series of the testbed has a
# new point), and prints each against the 30 s budget of issue 27 and the
# dashboard's size. Not part of make check; docs/benchmarking.md has the
# numbers. Run from the build directory: sh tests/history/bench-publish.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
gh=${GDR_HISTORY:-./tools/gdr-history}
nights=${1:-1000}
series=${2:-500}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-publish-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
now() { date +%s.%N; }
python3 "$here/gen-history-db.py" --db "$tmp/h.sqlite" --gdr-history "$gh" \
    --template "$top_srcdir/results/examples/lab" --gen "$here/gen-history.py" \
    --nights "$nights" --series "$series"
run() {
    t0=$(now)
    "$gh" --db "$tmp/h.sqlite" publish -o "$tmp/dash" >"$tmp/out.txt"
    t=$(echo "$(now) - $t0" | bc)
    printf '%-34s %6.1f s  (%.2f of the 30 s budget)  %s\n' "$1" "$t" \
        "$(echo "$t / 30" | bc -l)" "$(sed 's/.*index.html: //' "$tmp/out.txt")"
}
run "first publish (every page):"
run "again, nothing changed:"
# One more night: a point for every series.
python3 - "$tmp/h.sqlite" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("BEGIN")
cur = con.execute("INSERT INTO runs (testbed, run_id, date, version, mode, planned, ok, failed, "
                  "source, ingested) SELECT testbed, 'night-new', '2099-01-01T02:30:00Z', version,"
                  " mode, planned, ok, failed, source, ingested FROM runs ORDER BY date DESC LIMIT 1")
rid = cur.lastrowid
con.execute("INSERT INTO points (series, run, value, spread, simulated, soft_roce, document) "
            "SELECT series, ?, value, spread, simulated, soft_roce, document FROM points "
            "WHERE run = (SELECT id FROM runs WHERE run_id != 'night-new' ORDER BY date DESC "
            "LIMIT 1)", (rid,))
con.commit()
PY
run "after a new night (every series):"
echo "dashboard: $(du -sh "$tmp/dash" | cut -f1) in $(find "$tmp/dash" -name '*.html' | wc -l) pages"
