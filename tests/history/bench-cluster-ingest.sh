#!/bin/sh
# bench-cluster-ingest.sh [LINKS...] - the cost of taking a cluster soak into
# the history (docs/nightly.md "A cluster run"): for each LINKS (default 512,
# a 64-node random:4 soak of 4 rounds both ways, and 10x and 100x that), a
# synthetic gdr-cluster directory of that many links, each met twice (two
# soak documents, results/examples/soak-lab's client renamed per link), is
# ingested by one gdr-history process; its time, its time per document and
# its peak memory are printed, so growth with size is visible. Not part of
# make check (minutes at 100x). Run from the build directory:
# sh tests/history/bench-cluster-ingest.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
gh=${GDR_HISTORY:-./tools/gdr-history}
[ -x "$gh" ] || { echo "bench-cluster-ingest: $gh not built" >&2; exit 3; }
[ $# -gt 0 ] || set -- 512 5120 51200
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/gdr-cluster-ingest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
for links in "$@"; do
    d=$tmp/soak-$links
    python3 - "$top_srcdir/results/examples/soak-lab/write_bw.client.json" "$d" "$links" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
out, links = sys.argv[2], int(sys.argv[3])
os.makedirs(out)
json.dump({"plan_version": "gdrbench.plan/1", "soak": {"duration_s": 28800}}, open(out + "/plan.json", "w"))
med = doc["soak"]["value"]["median"]
for i in range(links):
    c, s = "n%d" % i, "n%d" % ((i + 1) % links)
    doc["ends"]["client"]["host"], doc["ends"]["server"]["host"] = c, s
    for r in (1, 2):
        doc["soak"]["value"]["median"] = med * (1 + 0.01 * r)
        with open("%s/write_bw.H-H.na.r0.s%d.%s_%s.client.json" % (out, r, c, s), "w") as f:
            json.dump(doc, f)
PY
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$gh" --db "$tmp/h-$links.sqlite" ingest "$d" >"$tmp/out"
    read -r secs kib <"$tmp/time"
    docs=$((links * 2))
    printf 'links %6d (%6d documents): ingest %6.1f s, %.2f ms a document, peak RSS %d MiB\n' \
        "$links" "$docs" "$secs" "$(echo "$secs * 1000 / $docs" | bc -l)" $((kib / 1024))
    tail -1 "$tmp/out"
    rm -rf "$d"
done
