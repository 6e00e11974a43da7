#!/bin/sh
# gdr-plot: PNG and SVG images exist and are valid, and the gnuplot data
# beside them holds every size of the fixtures with the JSON's values.
set -eu
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot not installed"; exit 77; }
plot=$top_srcdir/scripts/gdr-plot
wbw=$fixtures/write_bw-client.json
lat=$fixtures/read_lat-client.json

is_png() { [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
is_svg() { head -c 4096 "$1" | grep -q '<svg[ >]' && tail -c 64 "$1" | grep -q '</svg>'; }

# row SIZE FILE: the data line of SIZE
row() { awk -v s="$1" '!/^#/ && $1 == s' "$2"; }
# close A B: equal to 9 significant digits
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); exit !(d <= m * 1e-9) }'; }

# check_figures DIR: every figure of figures.tsv is a valid PNG and SVG, draws
# at most 7 curves, and its data files exist; every series is in a figure.
check_figures() {
    d=$1 bad=0
    [ -s "$d/figures.tsv" ] || { fail "$d: no figures.tsv"; return; }
    while IFS="$(printf '\t')" read -r name kind test files; do
        is_png "$d/$name.png" && is_svg "$d/$name.svg" || { fail "$name: not a valid PNG and SVG"; bad=1; }
        case $name in "$kind-$test") ;; *) fail "$name: not named KIND-TEST"; bad=1 ;; esac
        n=0
        for f in $(echo "$files" | tr , ' '); do
            n=$((n + 1))
            [ -f "$d/$f" ] || { fail "$name: data $f missing"; bad=1; }
        done
        [ "$n" -ge 1 ] && [ "$n" -le 7 ] || { fail "$name: $n curves"; bad=1; }
    done < "$d/figures.tsv"
    # shellcheck disable=SC2013 # file names without spaces, one a line
    for f in $(awk -F'\t' '{ sub(/.*\//, "", $2); print $2 }' "$d/index.tsv"); do
        cut -f4 "$d/figures.tsv" | tr , '\n' | grep -qx "$f" || { fail "$f is in no figure"; bad=1; }
    done
    [ $bad -eq 0 ] && pass "$d: $(wc -l < "$d/figures.tsv") figures, valid PNG and SVG, <= 7 curves each"
}

expect_rc 0 "plots from the lab fixtures" sh "$plot" -o "$tmp/p" "$fixtures"
grep -q "speed-up plots skipped" "$tmp/err" && pass "speed-up skipped with a note" || fail "no skip note"
! find "$tmp/p" -name 'speedup*' | grep -q . && pass "no speed-up image or data without GDR on/off" || fail "speedup files exist"
check_figures "$tmp/p"
for f in bandwidth-write_bw bandwidth-send_bw latency-read_lat cpu-write_bw cpu-send_bw cpu-read_lat; do
    [ -f "$tmp/p/$f.png" ] && [ -f "$tmp/p/$f.svg" ] && pass "$f.png/.svg" || fail "no $f"
done
[ ! -e "$tmp/p/bandwidth.png" ] && [ ! -e "$tmp/p/bandwidth-read_lat.png" ] && pass "no mixed-test or wrong-kind figure" ||
    fail "a mixed-test or wrong-kind figure"

dat=$(awk -F'\t' '$1 == "series" && $3 == "write_bw" { print $2 }' "$tmp/p/index.tsv")
[ -f "$dat" ] && pass "write_bw data file $(basename "$dat")" || fail "no write_bw data"
grep -q "^plot \"$(basename "$dat")\" using 1:(\$2\*1e-06)" "$tmp/p/plots.gp" && grep -q 'bandwidth \[MB/s\]' "$tmp/p/plots.gp" &&
    pass "bandwidth plot draws it in MB/s" || fail "plots.gp does not draw the write_bw data in MB/s"
[ "$(grep -c "^plot \"$(basename "$dat")\"" "$tmp/p/plots.gp")" -eq 6 ] &&
    pass "write_bw data drawn in its 3 figures (PNG and SVG)" || fail "write_bw data not in bandwidth and both CPU panels"
grep -q "^set output \"bandwidth-write_bw.png\"" "$tmp/p/plots.gp" && pass "figure per test" || fail "no bandwidth-write_bw output"
i=0
for size in $("$GDR_JSON" get "$wbw" parameters.sizes | tr -d '[]' | tr , ' '); do
    r=$(row "$size" "$dat")
    want=$("$GDR_JSON" get "$wbw" "results[$i].bw_avg_bytes_per_s")
    got=$(echo "$r" | awk '{ print $2 }')
    [ -n "$r" ] && close "$want" "$got" && pass "write_bw size $size: $got B/s" ||
        fail "write_bw size $size: data '$r', JSON $want"
    i=$((i + 1))
done
[ "$(grep -vc '^#' "$dat")" -eq "$i" ] && pass "exactly $i points" || fail "point count"
# x tics: byte labels at the sizes (at most 8)
tics=$(grep -m1 '^set xtics (' "$tmp/p/plots.gp")
echo "$tics" | grep -q '"2 B" 2, "16 B" 16, "128 B" 128, "1 KiB" 1024, "8 KiB" 8192, "64 KiB" 65536)' &&
    pass "x tics in bytes: $tics" || fail "x tics: $tics"

ldat=$(awk -F'\t' '$1 == "series" && $3 == "read_lat" { print $2 }' "$tmp/p/index.tsv")
r=$(row 8192 "$ldat")
close "$(echo "$r" | awk '{ print $3 }')" "$("$GDR_JSON" get "$lat" 'results[4].latency_s.median')" &&
close "$(echo "$r" | awk '{ print $5 }')" "$("$GDR_JSON" get "$lat" 'results[4].latency_s.p99')" &&
    pass "latency median and p99 at 8192 match" || fail "latency row 8192: $r"
grep -q "using 1:(\$3\*[0-9e+]*):(\$3\*[0-9e+]*):(\$5\*[0-9e+]*) with yerrorlines" "$tmp/p/plots.gp" &&
    grep -q 'latency \[\(µs\|ms\)\]' "$tmp/p/plots.gp" && pass "latency: median with a bar to p99, in µs or ms" ||
    fail "latency plot"
grep -q "hosts node1 .*RDMA rxe0 .*2026-11-29 .*gdrbench 0.1.0" "$tmp/p/plots.gp" &&
    pass "caption names hosts, devices, date, version" || fail "caption"
grep -q "soft-RoCE (rxe) device, here under emulation: read ratios" "$tmp/p/plots.gp" && pass "caption: soft-RoCE" || fail "no soft-RoCE caption"
! grep -q "simulated" "$tmp/p/plots.gp" && pass "no simulated caption for host rows" || fail "simulated caption on host rows"
[ "$(grep -c '^series' "$tmp/p/index.tsv")" -eq 6 ] && pass "client and server documents of a run make one series" ||
    fail "want 6 series"
for f in bandwidth-read_bw latency-write_lat latency-send_lat; do
    grep -q "^$f	" "$tmp/p/figures.tsv" && pass "figure $f" || fail "no figure $f"
done

# GDR on and off (CUDA buffers; off is half the bandwidth): speed-up 2.
mkdir -p "$tmp/gdr"
sed 's/"placement":\t"host"/"placement":\t"cuda"/; s/"registration":\t"host"/"registration":\t"dmabuf"/' \
    "$wbw" > "$tmp/gdr/on.json"
scale "$wbw" bw_avg_bytes_per_s 0.5 all | sed 's/"placement":\t"host"/"placement":\t"cuda"/;
    s/"registration":\t"host"/"registration":\t"staged"/' > "$tmp/gdr/off.json"
expect_rc 0 "plots with GDR on and off" sh "$plot" -o "$tmp/g" "$tmp/gdr" "$fixtures"
check_figures "$tmp/g"
is_png "$tmp/g/speedup-write_bw.png" && is_svg "$tmp/g/speedup-write_bw.svg" && pass "speed-up images" || fail "speed-up images"
sp=$(awk -F'\t' '$1 == "speedup" { print $2 }' "$tmp/g/index.tsv")
[ "$(awk '!/^#/ && ($2 < 1.999999 || $2 > 2.000001)' "$sp")" = "" ] && [ "$(grep -vc '^#' "$sp")" -eq 6 ] &&
    pass "speed-up is 2 at all 6 sizes" || fail "speed-up data: $(cat "$sp")"
grep -q "dt 2 .*GDR off (staged/staged)" "$tmp/g/plots.gp" && grep -q "dt 1 .*GDR on (dmabuf/dmabuf)" "$tmp/g/plots.gp" &&
    pass "GDR off dashed, on solid" || fail "line styles"
[ "$(awk -F'\t' '$1 == "bandwidth-write_bw" { print $4 }' "$tmp/g/figures.tsv" | tr , '\n' | wc -l)" -eq 3 ] &&
    pass "bandwidth-write_bw: host-host, GDR on, GDR off" || fail "bandwidth-write_bw curves"
! grep -q "simulated" "$tmp/g/plots.gp" && pass "real GPU names: no simulated caption" || fail "simulated caption without cudasim"

! grep -q "limit-write_bw" "$tmp/g/figures.tsv" && pass "no limit known: no % of limit figure" ||
    fail "a limit figure without limits"

# Rows with a limit: a dashed limit line on the bandwidth figure and the
# % of limit figure; the limit is 1.6 x the bandwidth, so 62.5 %.
mkdir -p "$tmp/lim"
"${PYTHON:-python3}" - "$fixtures/write_bw-client.json" "$tmp/lim/w.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["limit"] = {"bytes_per_s": r["bw_avg_bytes_per_s"] * 1.6, "bound_by": "port"}
    r["pct_of_limit"] = 62.5
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "plots of rows with a limit" sh "$plot" -o "$tmp/l" "$tmp/lim"
check_figures "$tmp/l"
grep -q "limit-write_bw" "$tmp/l/figures.tsv" && is_png "$tmp/l/limit-write_bw.png" &&
    pass "% of limit figure" || fail "no % of limit figure"
# shellcheck disable=SC2016 # a gnuplot column, not a shell variable
grep -q 'using 1:(\$7\*.*) with lines .* dt 2 notitle' "$tmp/l/plots.gp" && grep -q "using 1:8 with linespoints" "$tmp/l/plots.gp" &&
    pass "limit line and % of limit curve" || fail "limit curves missing in plots.gp"
[ "$(awk '!/^#/ && $8 != 62.5' "$tmp/l"/series-*.dat)" = "" ] && pass "pct_of_limit in the series data" ||
    fail "series data: $(cat "$tmp/l"/series-*.dat)"

# Simulated GPU rows: named by the test double, or marked by a sweep manifest.
mkdir -p "$tmp/sim" "$tmp/man"
sed 's/"placement":\t"cuda",/"placement":\t"cuda",\n\t\t\t"cuda_name":\t"cudasim GPU 0",/' "$tmp/gdr/on.json" > "$tmp/sim/on.json"
grep -q cudasim "$tmp/sim/on.json" && pass "fixture with cuda_name" || fail "sed did not add cuda_name"
expect_rc 0 "plots of cudasim rows" sh "$plot" -o "$tmp/s" "$tmp/sim" "$fixtures"
grep -q "GPU rows ran on the CUDA driver test double (simulated)" "$tmp/s/plots.gp" &&
    grep -q "GPU cudasim GPU 0" "$tmp/s/plots.gp" && pass "caption: cudasim rows are simulated" || fail "no simulated caption (cuda_name)"
[ "$(awk -F'\t' '$1 == "series" && $5 == "cuda-cuda" { print $15 }' "$tmp/s/index.tsv")" = simulated ] &&
    [ "$(awk -F'\t' '$1 == "series" && $3 == "read_lat" { print $15 }' "$tmp/s/index.tsv")" = real ] &&
    pass "index: simulated column" || fail "index column 15"
cp "$tmp/gdr/on.json" "$tmp/man/w.D-D.on.client.json"
cp "$wbw" "$tmp/man/w.H-H.na.client.json"
printf '{"manifest_version": "gdrbench.sweep/1", "runs": [\n%s,\n%s]}\n' \
    '{"name": "w.D-D.on", "simulated": true, "files": {"client": "w.D-D.on.client.json", "server": "w.D-D.on.server.json"}}' \
    '{"name": "w.H-H.na", "simulated": false, "files": {"client": "w.H-H.na.client.json", "server": "w.H-H.na.server.json"}}' \
    > "$tmp/man/manifest.json"
expect_rc 0 "plots of a sweep directory with its manifest" sh "$plot" -o "$tmp/m" "$tmp/man"
grep -q "GPU rows ran on the CUDA driver test double (simulated)" "$tmp/m/plots.gp" &&
    pass "caption: the manifest's simulated flag" || fail "no simulated caption (manifest)"
[ "$(awk -F'\t' '$1 == "series" { print $5 ":" $15 }' "$tmp/m/index.tsv" | sort | tr '\n' ' ')" = "cuda-cuda:simulated host-host:real " ] &&
    pass "manifest: simulated per run, manifest.json not read as a result" || fail "manifest index: $(cat "$tmp/m/index.tsv")"

# A bidirectional run (-b) is a test of its own: its rows are sums.
mkdir -p "$tmp/bi"
sed 's/"validate":/"bidirectional":\ttrue,\n\t\t"validate":/' "$wbw" > "$tmp/bi/w.json"
grep -q '"bidirectional":' "$tmp/bi/w.json" && pass "fixture with bidirectional" || fail "sed did not add bidirectional"
expect_rc 0 "plots of a bidirectional run beside a one-way one" sh "$plot" -o "$tmp/bp" "$tmp/bi" "$wbw"
[ -f "$tmp/bp/bandwidth-write_bw-bidir.png" ] && [ -f "$tmp/bp/bandwidth-write_bw.png" ] &&
    pass "bandwidth-write_bw-bidir beside bandwidth-write_bw" || fail "no separate -b figure: $(ls "$tmp/bp")"

printf '{"schema_version":' > "$tmp/bad.json"
expect_rc 2 "malformed input" sh "$plot" -o "$tmp/b" "$tmp/bad.json"
one_line_error "bad.json: not valid JSON"
expect_rc 0 "--help" sh "$plot" --help
finish
