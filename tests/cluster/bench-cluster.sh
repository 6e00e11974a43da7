#!/bin/sh
# bench-cluster.sh [NODES...] - the cost of gdr-cluster-core's analysis as
# the cluster grows: for each node count (default 16 51 160: the 16-node
# example of docs/cluster.md, 10x and 100x its runs with full pairing, one
# direction, one test), a plan, status lines for every run (one node dead
# from the middle round on, one unreachable), then manifest, matrix,
# suspects --manifest (dead nodes) and report (every node's rails/NODE.json
# the DGX fixture's probe: its software and 24 PCIe links), each timed; prints seconds
# and microseconds per run, and each size's time over the first's. There are
# no result documents: every cell is failed, which is the analysis's worst
# case for the dead-node walk and cheap for the statistics. Not part of make
# check; docs/benchmarking.md has the numbers.
# Run from the build directory: sh tests/cluster/bench-cluster.sh
set -eu
core=${GDR_CLUSTER_CORE:-./tools/gdr-cluster-core}
[ -x "$core" ] || { echo "bench-cluster: $core not built (run from the build directory)" >&2; exit 3; }
[ $# -gt 0 ] || set -- 16 51 160
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-cluster-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fix=${top_srcdir:-$(dirname "$0")/../..}/tests/fixtures/dgx
"$core" rails --sysfs-root "$fix/sys" --procfs-root "$fix/proc" --node NODE >"$tmp/probe.json" 2>/dev/null
now() { date +%s.%N; }
lap() { echo "$(now) - $1" | bc; }
printf '%6s %8s %9s %9s %9s %9s %9s  %s\n' nodes runs plan_s manifest_s matrix_s suspects_s report_s 'us/run (all steps)'
base=""
for n in "$@"; do
    d=$tmp/n$n
    mkdir -p "$d"
    seq 1 "$n" | sed 's/^/n/' >"$d/nodes"
    t0=$(now)
    "$core" plan --hostfile "$d/nodes" -o "$d/plan.json" --one-direction --placements H-H \
        --leave-out "n$n" >/dev/null
    tp=$(lap "$t0")
    "$core" plan-runs "$d/plan.json" all >"$d/runs"
    runs=$(grep -c . "$d/runs")
    mid=$(( $(cut -f1 "$d/runs" | sort -n | tail -1) / 2 ))
    # n2 dies in the middle round; every other run is ok.
    awk -F '\t' -v mid="$mid" '{
        dead = ($9 == "n2" || $12 == "n2") && $1 >= mid
        printf "%s\t%s\t%s\t%s\t1\tfalse\t%s\t%s\t%s\n", $3, dead ? "failed" : "ok", dead ? 255 : 0, 0,
            dead ? "ssh: connect to host n2 port 22: Connection refused" : "", dead ? "unreachable" : "-", dead ? "client" : "-" }' \
        "$d/runs" >"$d/status.tsv"
    printf 'n%s\trails probe: no answer within 30 s\n' "$n" >"$d/unreachable"
    mkdir -p "$d/rails"
    for i in $(seq 1 $((n - 1))); do sed "s/\"NODE\"/\"n$i\"/" "$tmp/probe.json" >"$d/rails/n$i.json"; done
    t0=$(now)
    "$core" manifest --plan "$d/plan.json" --status "$d/status.tsv" --unreachable "$d/unreachable" \
        -o "$d/manifest.json" >/dev/null
    tm=$(lap "$t0")
    t0=$(now)
    "$core" matrix --plan "$d/plan.json" --dir "$d" >/dev/null
    tx=$(lap "$t0")
    t0=$(now)
    "$core" suspects --plan "$d/plan.json" --dir "$d" --manifest "$d/manifest.json" -o "$d/suspects.json" >"$d/sus"
    ts=$(lap "$t0")
    t0=$(now)
    "$core" report --plan "$d/plan.json" --dir "$d" --manifest "$d/manifest.json" \
        --suspects "$d/suspects.json" -o "$d/report.md"
    tr=$(lap "$t0")
    if ! grep -q '^| n2 | failed |' "$d/report.md" || ! grep -q "^| n$n | unreachable |" "$d/report.md" ||
        ! grep -q '^| n1 | .* | NIC Gen5 x16 (8); GPU x16, up to Gen5 (8) |$' "$d/report.md"; then
        echo "bench-cluster: $n nodes: the dead nodes are not in report.md" >&2
        exit 1
    fi
    all=$(echo "$tp + $tm + $tx + $ts + $tr" | bc)
    per=$(echo "$all * 1000000 / $runs" | bc)
    [ -n "$base" ] || base=$all
    printf '%6s %8s %9.3f %9.3f %9.3f %9.3f %9.3f  %s (x%.1f the first size'"'"'s time)\n' "$n" "$runs" \
        "$tp" "$tm" "$tx" "$ts" "$tr" "$per" "$(echo "$all / $base" | bc -l)"
done
