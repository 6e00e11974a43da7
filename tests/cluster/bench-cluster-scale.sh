#!/bin/sh
# bench-cluster-scale.sh [CASE...] - gdr-cluster-core at thousands of nodes:
# for each case NODES:PAIRING:DOCS, 8 rails per node (rails files like the
# probe's: GPU i with mlx5_i), write_bw H-H both directions, sizes 1M:8M:8
# (1M and 8M), it times and measures the peak memory (GNU time, max RSS) of
#   plan, plan-runs all, manifest (every run ok), matrix --save-cells,
#   suspects --cells --status, report --cells, and matrix --heat --cells,
#   then aggregate --cells and gdr-report's page (which reads the cells
#   file, .cluster/cells, and streams the manifest)
# (as gdr-cluster runs them)
# and prints the plan file's size. DOCS: all (a client document for every
# run, generated from plan-runs with awk), rail0 (rail 0's only: the
# matrix and what follows read 1/8 of the documents, their time is scaled
# to every rail below; the manifest has every run), agents (no documents:
# the lines agents write, agents/NODE.cells, which matrix --agents reads
# as gdr-cluster does in agent mode), or none (plan only). The documents hold one planted slow node
# (every link of the 8th node at 0.5), one slow link (the first pair of
# round 2, rail 2, both directions, 0.5) and one slow rail (rail 5 of the
# 20th node, 0.5), +-3 % of noise otherwise, and the script checks that
# suspects.json names all three.
# Not part of make check (it writes up to ~2 GB of documents under
# TMPDIR); docs/cluster.md has the numbers. From the build directory:
#   sh tests/cluster/bench-cluster-scale.sh 64:full:all 1024:full:rail0 4096:random:15:all
set -eu
core=${GDR_CLUSTER_CORE:-./tools/gdr-cluster-core}
report=${GDR_REPORT:-./tools/gdr-report}
[ -x "$core" ] || { echo "bench-cluster-scale: $core not built (run from the build directory)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench-cluster-scale: GNU time (/usr/bin/time) needed" >&2; exit 3; }
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- 64:full:all 1024:full:rail0 4096:random:15:all
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-cluster-scale.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT INT TERM
# step NAME CMD...: run, print "NAME wall_seconds cpu_seconds peak_MB" (the
# CPU time too: on a loaded host the wall time is the neighbours' as well)
step() {
    name=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        { echo "bench-cluster-scale: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
    read -r sec usr sys kb <"$tmp/time"
    printf '  %-10s %8.2f s wall %8.2f s cpu %8.0f MB\n' "$name" "$sec" "$(echo "$usr + $sys" | bc)" "$((kb / 1024))"
    eval "t_$(echo "$name" | tr - _)=$sec"
}
for c in "$@"; do
    n=${c%%:*} rest=${c#*:}
    docs=${rest##*:} pairing=${rest%:*}
    d=$tmp/n$n
    rm -rf "$d" && mkdir -p "$d/rails" "$d/.cluster"
    seq 1 "$n" | sed 's/^/n/' >"$d/nodes"
    # 8 rails a node, as `gdr-cluster-core rails` writes them
    awk -v dir="$d/rails" '{
        f = dir "/" $1 ".json"
        printf "{\"node\": \"%s\", \"rails\": [", $1 > f
        for (r = 0; r < 8; r++)
            printf "%s{\"rail\": %d, \"gpu\": %d, \"gpu_bdf\": \"0000:%02x:00.0\", \"device\": \"mlx5_%d\", \"path\": \"PIX\"}",
                r ? ", " : "", r, r, 16 + r, r > f
        printf "], \"unused_devices\": [], \"down_devices\": [], \"warnings\": []}\n" > f
        close(f) }' "$d/nodes"
    echo "$n nodes, $pairing pairing, 8 rails, documents: $docs"
    seed=""
    case $pairing in random:*) seed="--seed=7" ;; esac
    # shellcheck disable=SC2086 # $seed: empty or one word
    step plan "$core" plan --hostfile "$d/nodes" -o "$d/plan.json" --pairing "$pairing" $seed \
        --rails all --rails-dir "$d/rails" --placements H-H --sizes 1M:8M:8 --time-per-size 2
    printf '  %-10s %8s    %s\n' plan.json "$(du -k "$d/plan.json" | cut -f1) KB" "$(cat "$tmp/plan.out")"
    step plan-runs "$core" plan-runs "$d/plan.json" all
    mv "$tmp/plan-runs.out" "$d/runs"
    [ "$docs" != none ] || continue
    # client documents: rail 0 only (rail0) or every rail (all); or the
    # agents' lines (agents)
    mkdir -p "$d/agents"
    awk -F '\t' -v tpl="$here/doc-template.json" -v dir="$d" -v only="$docs" '
        BEGIN { while ((getline l < tpl) > 0) t = t l "\n"
                sub(/"sizes": \[[^]]*\]/, "\"sizes\": [1048576, 8388608]", t)
                i = index(t, "\"results\": [")
                head = substr(t, 1, i + 11); row = substr(t, i + 12)
                sub(/\n *\]\n}\n$/, "", row) }
        function noise(s,   h, k) { h = 0; for (k = 1; k <= length(s); k++) h = (h * 31 + index("0123456789abcdefghijklmnopqrstuvwxyz_.-ABCDEFGHIJKLMNOPQRSTUVWXYZ", substr(s, k, 1))) % 1000003
                                   return 0.97 + 0.06 * (h % 1000) / 1000 }
        $1 == 2 && $7 == 2 && !lk { lk = $9 " " $12; lk2 = $12 " " $9 }
        # a status line per run, in plan order (as gdr-cluster writes them)
        { printf "%s\tok\t0\t0\t1\tfalse\t\t-\t-\n", $3 > (dir "/status.tsv") }
        only == "rail0" && $7 != 0 { next }
        { f = 1
          if ($9 == "n8" || $12 == "n8") f = 0.5
          if ($7 == 2 && ($9 " " $12 == lk || $9 " " $12 == lk2)) f = 0.5
          if ($7 == 5 && ($9 == "n20" || $12 == "n20")) f = 0.5
          if (only == "agents") {
              printf "%s\t0\t1.25e+10\t0\t1048576:%.9g:0:-1,8388608:%.9g:0:-1\n", $3,
                  f * noise($3 ".0") * 0.95 * 100e9 / 8, f * noise($3 ".1") * 0.95 * 100e9 / 8 > (dir "/agents/n1.cells")
              next
          }
          d = head
          for (s = 0; s < 2; s++) {
              r = row; sz = 1048576 * 8 ^ s
              sub(/"size": 1048576/, "\"size\": " sz, r)
              gsub(/@BW@/, sprintf("%.1f", f * noise($3 "." s) * 0.95 * 100e9 / 8), r)
              d = d (s ? ",\n" : "") r
          }
          d = d "\n ]\n}\n"
          gsub(/@CHOST@/, $9, d); gsub(/@SHOST@/, $12, d); gsub(/@CDEV@/, $10, d); gsub(/@SDEV@/, $13, d)
          gsub(/@[CS]PLACE@/, "host", d); gsub(/@[CS]REG@/, "host", d)
          file = dir "/" $3 ".client.json"; printf "%s", d > file; close(file) }' "$d/runs"
    printf '  %-10s %8s    %s documents, %s agent lines, %s MB\n' documents "" \
        "$(find "$d" -maxdepth 1 -name '*.client.json' | wc -l)" "$(cat "$d"/agents/*.cells 2>/dev/null | wc -l)" \
        "$(du -sm "$d" | cut -f1)"
    : >"$d/unreachable"
    step manifest "$core" manifest --plan "$d/plan.json" --status "$d/status.tsv" \
        --unreachable "$d/unreachable" -o "$d/manifest.json"
    set --
    [ "$docs" = agents ] && set -- --agents "$d/agents" --status "$d/status.tsv"
    step matrix "$core" matrix --plan "$d/plan.json" --dir "$d" --save-cells "$d/.cluster/cells" "$@"
    step suspects "$core" suspects --plan "$d/plan.json" --dir "$d" --cells "$d/.cluster/cells" \
        --status "$d/status.tsv" --unreachable "$d/unreachable" -o "$d/suspects.json"
    step report "$core" report --plan "$d/plan.json" --dir "$d" --cells "$d/.cluster/cells" \
        --manifest "$d/manifest.json" --suspects "$d/suspects.json" -o "$d/report.md"
    mkdir -p "$d/figures"
    step heat "$core" matrix --plan "$d/plan.json" --dir "$d" --cells "$d/.cluster/cells" --heat "$d/figures"
    step aggregate "$core" aggregate --plan "$d/plan.json" --dir "$d" --cells "$d/.cluster/cells" \
        -o "$d/aggregate.json"
    if [ -x "$report" ]; then
        step page "$report" -o "$d/report.html" "$d"
        printf '  %-10s %8s    %s KB\n' report.html "" "$(du -k "$d/report.html" | cut -f1)"
    fi
    # shellcheck disable=SC2154 # t_* set by step through eval
    all=$(echo "$t_manifest + $t_matrix + $t_suspects + $t_report + $t_heat" | bc)
    if [ "$docs" = rail0 ]; then
        # the manifest covers every run already; the rest read rail 0's
        printf '  analysis   %8.2f s (matrix and after: rail 0; every rail: %.0f s)\n' "$all" \
            "$(echo "$t_manifest + 8 * ($all - $t_manifest)" | bc)"
    else
        printf '  analysis   %8.2f s\n' "$all"
    fi
    # the planted findings
    found=""
    "${GDR_JSON:-./tools/gdr-json}" get "$d/suspects.json" suspects >"$tmp/s.json" 2>/dev/null || true
    for want in 'node n8' "rail n20" "link"; do
        case $want in
            link) grep -q '"kind":[[:space:]]*"link"' "$tmp/s.json" && found="$found link" ;;
            *) k=${want% *} nd=${want#* }
               tr -d ' \t\n' <"$tmp/s.json" | grep -q "\"kind\":\"$k\",\"finding\":\"slow\",\"nodes\":\\[\"$nd\"" &&
                   found="$found $want" ;;
        esac
    done
    printf '  found:    %s (of %s suspects)\n' "$found" "$("${GDR_JSON:-./tools/gdr-json}" get "$d/suspects.json" summary.suspects)"
    [ -n "${KEEP:-}" ] || rm -rf "$d"
done
