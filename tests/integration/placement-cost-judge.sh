#!/bin/sh
# The default placement against --no-bind: the one judgment of
# placement-cost-inner.sh's runs (OUT/cost.PATH.MODE.REP.json). Plain sh and
# awk, as it also runs inside the lab, where a Python start costs 7 s.
#
# Per path and size, over the repeats of default / --no-bind:
# - where the default placed the path differently (the CPUs allowed, the
#   loop's CPU or the memory node recorded at either end differ from
#   --no-bind's), the median must be at least 0.9: the placement must pay
#   for itself. The bug this guards against (a loop pinned where the
#   provider's kernel work needed the CPU) read 0.28 in every repeat.
# - where it placed it the same (the lab's default device has no NUMA
#   locality and two CPUs: no room for a pinned loop), the two modes run
#   the same way and their ratio is the lab's noise: identical placements
#   read medians of 0.78 over 10 repeats under CI's load and 0.85-0.95 over
#   8 on an idle host (docs/lab.md), so a 0.9 bound failed the suite on
#   noise. Only a gross slowdown fails there: a median under 0.5 (the
#   pinned loop's 0.28 among them).
# Either way a spread that covers 1.0 (two or more repeats at 1.0 or
# above) passes: single repeats read 0.3-2.5 under load.
#
#   placement-cost-judge.sh GDR_JSON OUT           report; exit 1 naming each
#                                                  failing case (stderr)
#   placement-cost-judge.sh --retest GDR_JSON OUT  the paths a first batch
#                                                  fails, one a line: the inner
#                                                  script runs them once more,
#                                                  and the report judges all
#                                                  repeats together
retest=no
[ "$1" = --retest ] && { retest=yes; shift; }
gj=$1 out=$2
a=affinity
for f in "$out"/cost.*.json; do
    [ -f "$f" ] || continue
    # shellcheck disable=SC2046 # the name's dot-separated words: cost PATH MODE REP json
    set -- $(basename "$f" | tr . ' ')
    # one line: SIZE BW SIZE BW, then CPUS LOOP MEM of each end
    "$gj" get "$f" 'results[0].size' 'results[0].bw_avg_bytes_per_s' \
        'results[1].size' 'results[1].bw_avg_bytes_per_s' \
        "ends.client.$a.cpus_allowed" "ends.client.$a.loop_cpu" "ends.client.$a.mem_node" \
        "ends.server.$a.cpus_allowed" "ends.server.$a.loop_cpu" "ends.server.$a.mem_node" \
        2>/dev/null | sed 's/^$/?/' | paste -sd' ' - | sed "s/^/$2 $3 $4 /"
done | awk -v retest=$retest '
NF == 13 {
    place[$1 " " $2 " " $3] = $8 "/" $9 "/" $10 " " $11 "/" $12 "/" $13
    for (i = 4; i <= 6; i += 2)
        if ($i != "?" && $(i + 1) > 0) { bw[$1 " " $i " " $2 " " $3] = $(i + 1); if ($3 > last) last = $3 }
}
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
    split("direct staged", paths, " "); split("1024 4096", sizes, " ")
    bad = 0
    for (p = 1; p <= 2; p++) {
        failing = 0
        # placed alike when every repeat recorded the same placement in both modes
        alike = 1; pairs = 0
        for (r = 1; r <= last; r++) {
            d = place[paths[p] " default " r]; nb = place[paths[p] " nobind " r]
            if (d == "" || nb == "") continue
            pairs++
            if (d != nb || d ~ /\?/) { alike = 0; differs = d " against " nb }
        }
        bound = alike && pairs ? 0.5 : 0.9
        how = alike && pairs ? "placed as --no-bind" : "placed differently (" differs ")"
        for (s = 1; s <= 2; s++) {
            key = paths[p] " " sizes[s]; n = 0; above = 0; list = ""
            for (r = 1; r <= last; r++) {
                d = bw[key " default " r]; nb = bw[key " nobind " r]
                if (d == "" || nb == "") continue
                ratio[++n] = d / nb; above += d / nb >= 1.0
                list = list (n > 1 ? ", " : "") sprintf("%.2f", d / nb)
            }
            why = ""
            if (n < 3) why = n " complete repeats"
            else {
                m = median(ratio, n)
                if (retest == "no")
                    printf "# placement cost: %s B, %s: default / --no-bind median %.2f over %d repeats (%s)\n", key, how, m, n, list
                if (m < bound && above < 2)
                    why = sprintf("%s: default / --no-bind %.2f < %.1f, %d of %d repeats at 1.0 or above", how, m, bound, above, n)
            }
            if (why != "") { failing = 1; if (retest == "no") { print key " B: " why > "/dev/stderr"; bad = 1 } }
        }
        if (retest == "yes" && failing) print paths[p]
    }
    exit bad
}'
