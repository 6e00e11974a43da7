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

expect_rc 0 "plots from the lab fixtures" sh "$plot" -o "$tmp/p" "$fixtures"
grep -q "speed-up plot skipped" "$tmp/err" && pass "speed-up skipped with a note" || fail "no skip note"
[ ! -e "$tmp/p/speedup.png" ] && pass "no speed-up image without GDR on/off" || fail "speedup.png exists"
for f in bandwidth latency cpu; do
    is_png "$tmp/p/$f.png" && pass "$f.png is a PNG" || fail "$f.png is not a PNG"
    is_svg "$tmp/p/$f.svg" && pass "$f.svg is an SVG" || fail "$f.svg is not an SVG"
done

dat=$(awk -F'\t' '$1 == "series" && $3 == "write_bw" { print $2 }' "$tmp/p/index.tsv")
[ -f "$dat" ] && pass "write_bw data file $(basename "$dat")" || fail "no write_bw data"
grep -q "'$(basename "$dat")' using 1:(\$2\*1e-6)" "$tmp/p/plots.gp" && pass "bandwidth plot draws it in MB/s" ||
    fail "plots.gp does not draw the write_bw data"
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

ldat=$(awk -F'\t' '$1 == "series" && $3 == "read_lat" { print $2 }' "$tmp/p/index.tsv")
r=$(row 8192 "$ldat")
close "$(echo "$r" | awk '{ print $3 }')" "$("$GDR_JSON" get "$lat" 'results[4].latency_s.median')" &&
close "$(echo "$r" | awk '{ print $5 }')" "$("$GDR_JSON" get "$lat" 'results[4].latency_s.p99')" &&
    pass "latency median and p99 at 8192 match" || fail "latency row 8192: $r"
grep -q "hosts node1<->node1 .*devices rxe0<->rxe0 .*date 2026-11-29 .*gdrbench 0.1.0" "$tmp/p/plots.gp" &&
    pass "caption names hosts, devices, date, version" || fail "caption"
[ "$(grep -c '^series' "$tmp/p/index.tsv")" -eq 3 ] && pass "client and server documents of a run make one series" ||
    fail "want 3 series"

# GDR on and off (CUDA buffers; off is half the bandwidth): speed-up 2.
mkdir -p "$tmp/gdr"
sed 's/"placement":\t"host"/"placement":\t"cuda"/; s/"registration":\t"host"/"registration":\t"dmabuf"/' \
    "$wbw" > "$tmp/gdr/on.json"
scale "$wbw" bw_avg_bytes_per_s 0.5 all | sed 's/"placement":\t"host"/"placement":\t"cuda"/;
    s/"registration":\t"host"/"registration":\t"staged"/' > "$tmp/gdr/off.json"
expect_rc 0 "plots with GDR on and off" sh "$plot" -o "$tmp/g" "$tmp/gdr" "$fixtures"
is_png "$tmp/g/speedup.png" && is_svg "$tmp/g/speedup.svg" && pass "speed-up images" || fail "speed-up images"
sp=$(awk -F'\t' '$1 == "speedup" { print $2 }' "$tmp/g/index.tsv")
[ "$(awk '!/^#/ && ($2 < 1.999999 || $2 > 2.000001)' "$sp")" = "" ] && [ "$(grep -vc '^#' "$sp")" -eq 6 ] &&
    pass "speed-up is 2 at all 6 sizes" || fail "speed-up data: $(cat "$sp")"
grep -q "dt 2 .*GDR off (staged/staged)" "$tmp/g/plots.gp" && grep -q "dt 1 .*GDR on (dmabuf/dmabuf)" "$tmp/g/plots.gp" &&
    pass "GDR off dashed, on solid" || fail "line styles"

printf '{"schema_version":' > "$tmp/bad.json"
expect_rc 2 "malformed input" sh "$plot" -o "$tmp/b" "$tmp/bad.json"
one_line_error "bad.json: not valid JSON"
expect_rc 0 "--help" sh "$plot" --help
finish
