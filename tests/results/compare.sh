#!/bin/sh
# gdr-compare: clean on identical runs, names exactly the regressed sizes,
# tolerates noise, and refuses mismatched or malformed input with exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
cmp=$top_srcdir/scripts/gdr-compare
wbw=$fixtures/write_bw-client.json
lat=$fixtures/read_lat-client.json
mkdir -p "$tmp/base" "$tmp/run"
cp "$wbw" "$lat" "$fixtures/send_bw-client.json" "$fixtures/send_bw-server.json" "$tmp/base/"

# Sizes that a test's table marks REGRESSION ("8 KiB": two fields), comma-separated.
regressed() { awk -v t="$1" '$1 == t && $NF == "REGRESSION" { printf "%s%s %s", s, $5, $6; s = ", " }' "$tmp/out"; }

expect_rc 0 "identical runs are clean" sh "$cmp" "$tmp/base" "$tmp/base"
grep -q "clean: 0 regressions" "$tmp/out" && pass "summary says clean" || fail "no clean summary"

cp "$tmp/base"/*.json "$tmp/run/"
scale "$wbw" bw_avg_bytes_per_s 0.8 8192 65536 > "$tmp/run/write_bw-client.json"
expect_rc 1 "20% bandwidth drop is a regression" sh "$cmp" "$tmp/base" "$tmp/run"
[ "$(regressed write_bw)" = "8 KiB, 64 KiB" ] && pass "names exactly 8 KiB, 64 KiB" ||
    fail "regressed sizes '$(regressed write_bw)', want '8 KiB, 64 KiB'"
grep -q "regression: write_bw host-host host/host sizes 8 KiB, 64 KiB" "$tmp/out" &&
    pass "summary names the sizes" || fail "summary lacks the sizes"
[ -z "$(regressed send_bw)$(regressed read_lat)" ] && pass "other tests untouched" || fail "other tests flagged"

scale "$wbw" bw_avg_bytes_per_s 0.8 128 > "$tmp/run/write_bw-client.json"
expect_rc 1 "a lone 20% drop (over twice the tolerance) is a regression" sh "$cmp" "$tmp/base" "$tmp/run"
[ "$(regressed write_bw)" = "128 B" ] && pass "names exactly 128 B" || fail "regressed '$(regressed write_bw)'"

scale "$wbw" bw_avg_bytes_per_s 0.97 all > "$tmp/run/write_bw-client.json"
expect_rc 0 "3% drop everywhere is within tolerance" sh "$cmp" "$tmp/base" "$tmp/run"

scale "$wbw" bw_avg_bytes_per_s 0.93 1024 > "$tmp/run/write_bw-client.json"
expect_rc 0 "a lone 7% drop is noise" sh "$cmp" "$tmp/base" "$tmp/run"
awk '$1 == "write_bw" && $5 " " $6 == "1 KiB" && $NF == "noise"' "$tmp/out" | grep -q . &&
    pass "1024 reported as noise" || fail "1024 not reported as noise"

scale "$wbw" bw_avg_bytes_per_s 0.93 1024 8192 > "$tmp/run/write_bw-client.json"
expect_rc 1 "7% drop at two neighbouring sizes is a regression" sh "$cmp" "$tmp/base" "$tmp/run"
[ "$(regressed write_bw)" = "1 KiB, 8 KiB" ] && pass "names 1 KiB, 8 KiB" || fail "regressed '$(regressed write_bw)'"

expect_rc 0 "--bw-tol 10 accepts the same 7% drop" sh "$cmp" --bw-tol 10 "$tmp/base" "$tmp/run"
cp "$wbw" "$tmp/run/"

scale "$lat" median 1.3 1024 > "$tmp/run/read_lat-client.json"
expect_rc 1 "30% latency increase is a regression" sh "$cmp" --markdown "$tmp/report.md" "$tmp/base" "$tmp/run"
[ "$(regressed read_lat)" = "1 KiB" ] && pass "names latency size 1 KiB" || fail "regressed '$(regressed read_lat)'"
grep -q '| read_lat | host-host | n/a | host/host | 1 KiB | median_ms | .* | \*\*REGRESSION\*\* |' "$tmp/report.md" &&
    pass "markdown table written" || fail "markdown table lacks the row"
# One unit a quantity, from the largest value (the 2 ms median of 64 KiB).
[ "$(grep -o '| median_[^ ]* |\|| bw_avg_[^ ]* |' "$tmp/report.md" | sort -u | tr -d '\n')" = '| bw_avg_MB/s || median_ms |' ] &&
    pass "one unit a quantity: MB/s, ms" || fail "units: $(grep -o '| median_[^ ]* |\|| bw_avg_[^ ]* |' "$tmp/report.md" | sort -u)"
cp "$lat" "$tmp/half.json"
for k in min median mean stdev p99 p999 max; do
    scale "$tmp/half.json" $k 0.5 all > "$tmp/half2.json" && mv "$tmp/half2.json" "$tmp/half.json"
done
cp "$tmp/half.json" "$tmp/run/read_lat-client.json"
expect_rc 0 "lower latency is not a regression" sh "$cmp" "$tmp/base" "$tmp/run"
cp "$lat" "$tmp/run/"

# Repeats: two runs of one series count as their per-size median.
scale "$wbw" bw_avg_bytes_per_s 0.5 all > "$tmp/run/write_bw-client.2.json"
scale "$wbw" bw_avg_bytes_per_s 0.99 all > "$tmp/run/write_bw-client.3.json"
expect_rc 0 "one bad repeat out of three is outvoted by the median" sh "$cmp" "$tmp/base" "$tmp/run"
rm "$tmp/run/write_bw-client.2.json" "$tmp/run/write_bw-client.3.json"

# Context: context FILE BW_FACTOR PCT CLEAN [SIZES]: bandwidth scaled, the
# limit set so that pct_of_limit is PCT (null: unknown), clean set at SIZES
# (all when none).
context() {
    "${PYTHON:-python3}" - "$@" <<'PY'
import json, sys
path, f, pct, clean = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
sizes = [int(x) for x in sys.argv[5:]]
doc = json.load(open(path))
for r in doc["results"]:
    r["bw_avg_bytes_per_s"] *= f
    r["bw_peak_bytes_per_s"] *= f
    known = pct != "null"
    r["pct_of_limit"] = float(pct) if known else None
    r["limit"] = {"bytes_per_s": r["bw_avg_bytes_per_s"] * 100 / float(pct) if known else None,
                  "bound_by": "port" if known else None}
    if not sizes or r["size"] in sizes:
        r["clean"] = clean == "true"
print(json.dumps(doc, indent=1))
PY
}
context "$wbw" 1 80 true > "$tmp/ctx-base.json"
context "$wbw" 0.8 80 false 8192 > "$tmp/run/write_bw-client.json"
context "$wbw" 1 80 true > "$tmp/ctx-run.json"
expect_rc 1 "a 20% drop everywhere, one size not clean" sh "$cmp" "$tmp/ctx-base.json" \
    "$tmp/run/write_bw-client.json"
awk '$1 == "write_bw" && $5 " " $6 == "8 KiB" && $NF == "suspect"' "$tmp/out" | grep -q . &&
    pass "a row whose NIC counted errors is suspect, not judged" || fail "8192 not suspect"
grep -q "suspect: write_bw host-host host/host sizes 8 KiB (a NIC counted errors" "$tmp/out" &&
    pass "summary names the suspect size" || fail "summary lacks the suspect size"
context "$wbw" 0.8 80 false > "$tmp/run/write_bw-client.json"
expect_rc 0 "every size suspect: nothing judged as a regression" sh "$cmp" \
    "$tmp/ctx-base.json" "$tmp/run/write_bw-client.json"
context "$wbw" 1 80 false 1024 > "$tmp/run/write_bw-client.json"
expect_rc 0 "a baseline row not clean makes the size suspect too" sh "$cmp" \
    "$tmp/run/write_bw-client.json" "$tmp/ctx-run.json"
grep -q "suspect: write_bw host-host host/host sizes 1 KiB " "$tmp/out" && pass "baseline suspect" ||
    fail "baseline's unclean row not flagged"
# By % of limit: another testbed twice as fast reaching the same share is
# no change; the same testbed at 60 % of the limit instead of 80 % is.
context "$wbw" 2 80 true > "$tmp/run/write_bw-client.json"
expect_rc 0 "--by-limit: twice the bandwidth at the same % of limit" sh "$cmp" --by-limit \
    "$tmp/ctx-base.json" "$tmp/run/write_bw-client.json"
grep -q "pct_of_limit" "$tmp/out" && pass "--by-limit compares pct_of_limit" || fail "no pct_of_limit column"
context "$wbw" 1 60 true > "$tmp/run/write_bw-client.json"
expect_rc 1 "--by-limit: 60 % of limit against 80 %" sh "$cmp" --by-limit \
    "$tmp/ctx-base.json" "$tmp/run/write_bw-client.json"
context "$wbw" 1 null true > "$tmp/run/write_bw-client.json"
expect_rc 0 "--by-limit: an unknown limit is not judged" sh "$cmp" --by-limit \
    "$tmp/ctx-base.json" "$tmp/run/write_bw-client.json"
grep -q "no limit: write_bw host-host host/host sizes" "$tmp/out" && pass "unknown limits named" ||
    fail "unknown limits not named"
cp "$wbw" "$tmp/run/"

printf '{"schema_version": "gdrbench.result/1", "test": ' > "$tmp/run/broken.json"
expect_rc 2 "malformed JSON is bad input" sh "$cmp" "$tmp/base" "$tmp/run"
one_line_error "broken.json: not valid JSON"
rm "$tmp/run/broken.json"

sed 's/gdrbench.result\/1/gdrbench.result\/2/' "$wbw" > "$tmp/run/write_bw-client.json"
expect_rc 2 "a newer schema_version is bad input" sh "$cmp" "$tmp/base" "$tmp/run"
one_line_error "schema gdrbench.result/2 is newer than this gdr-json reads"
sed 's/gdrbench.result\/1/other.result\/1/' "$wbw" > "$tmp/run/write_bw-client.json"
expect_rc 2 "a foreign schema_version is bad input" sh "$cmp" "$tmp/base" "$tmp/run"
one_line_error "schema_version 'other.result/1' is not gdrbench.result/1"
cp "$wbw" "$tmp/run/"

rm "$tmp/base/send_bw-client.json" "$tmp/base/send_bw-server.json"
expect_rc 2 "a run missing from the baseline is bad input" sh "$cmp" "$tmp/base" "$tmp/run"
one_line_error "send_bw host-host host/host .* has no baseline"
expect_rc 2 "a run missing from the run is bad input" sh "$cmp" "$tmp/run" "$tmp/base"
one_line_error "send_bw host-host host/host is in the baseline .* but not in the run"
expect_rc 0 "--subset: a series the run lacks is listed, the rest compared" sh "$cmp" --subset "$tmp/run" "$tmp/base"
grep -q "^gdr-compare: not in the run, not compared: send_bw host-host host/host (.*send_bw-client.json)" "$tmp/out" &&
    pass "--subset names the baseline's series the run lacks" || fail "--subset did not list send_bw"
grep -q "clean: 0 regressions" "$tmp/out" && pass "--subset compares the rest" || fail "--subset: no clean summary"
expect_rc 2 "--subset: a run series without a baseline is still bad input" sh "$cmp" --subset "$tmp/base" "$tmp/run"
one_line_error "send_bw host-host host/host .* has no baseline"

sed 's/"status":\t"complete"/"status":\t"failed", "error": "peer gone"/' "$wbw" > "$tmp/failed.json"
expect_rc 1 "a failed run fails the comparison" sh "$cmp" "$wbw" "$tmp/failed.json"
one_line_error "the run is failed: peer gone"

expect_rc 2 "bad tolerance" sh "$cmp" --bw-tol abc "$wbw" "$wbw"
one_line_error "--bw-tol 'abc' is not a percentage from 0 to below 100"
expect_rc 0 "--lat-tol with a percent sign" sh "$cmp" --lat-tol 500% "$wbw" "$wbw"
expect_rc 0 "--help" sh "$cmp" --help
finish
