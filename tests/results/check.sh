#!/bin/sh
# gdr-json check: accepts real lab documents, rejects broken ones with one
# line naming the file and the field, exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
wbw=$fixtures/write_bw-client.json
lat=$fixtures/read_lat-client.json

expect_rc 0 "real lab documents pass" "$GDR_JSON" check "$fixtures"/*.json
[ "$(grep -c ': ok ' "$tmp/out")" -eq 8 ] && pass "eight documents ok (six tools)" || fail "not eight ok lines"

# min above median at size 16
scale "$lat" min 2 16 > "$tmp/min.json"
expect_rc 2 "min > median rejected" "$GDR_JSON" check "$tmp/min.json"
one_line_error "min.json: results\[1\].latency_s: min"

# median above p99
scale "$lat" median 10 1024 > "$tmp/med.json"
expect_rc 2 "median > p99 rejected" "$GDR_JSON" check "$tmp/med.json"
one_line_error "median .* > p99"

sed 's/"results":/"resultz":/' "$wbw" > "$tmp/nores.json"
expect_rc 2 "missing results rejected" "$GDR_JSON" check "$tmp/nores.json"
one_line_error "nores.json: field 'results' is missing"

sed '0,/"iterations":\t200/s//"iterations":\t"many"/' "$wbw" > "$tmp/type.json"
expect_rc 2 "wrong type rejected" "$GDR_JSON" check "$tmp/type.json"
one_line_error "results\[0\]: field 'iterations' is not an integer"

sed 's/"role":\t"client"/"role":\t7/' "$wbw" > "$tmp/role.json"
expect_rc 2 "role of the wrong type rejected" "$GDR_JSON" check "$tmp/role.json"
one_line_error "field 'role' is not a string"

scale "$wbw" bw_avg_bytes_per_s -1 128 > "$tmp/neg.json"
expect_rc 2 "negative bandwidth rejected" "$GDR_JSON" check "$tmp/neg.json"
one_line_error "field 'bw_avg_bytes_per_s' is negative"

head -c 1500 "$wbw" > "$tmp/trunc.json"
expect_rc 2 "truncated file rejected" "$GDR_JSON" check "$tmp/trunc.json"
one_line_error "trunc.json: not valid JSON"

: > "$tmp/empty.json"
expect_rc 2 "empty file rejected" "$GDR_JSON" check "$tmp/empty.json"
one_line_error "empty.json"

sed 's/gdrbench.result\/1/gdrbench.result\/2/' "$wbw" > "$tmp/v2.json"
expect_rc 2 "other schema_version rejected" "$GDR_JSON" check "$tmp/v2.json"
one_line_error "schema gdrbench.result/2 is newer than this gdr-json reads"

sed 's/"status":\t"complete"/"status":\t"failed"/' "$wbw" > "$tmp/failed.json"
expect_rc 2 "failed run without error rejected" "$GDR_JSON" check "$tmp/failed.json"
one_line_error "without an 'error' field"

sed 's/"status":\t"complete"/"status":\t"failed",\n"error": "peer 198.18.0.2 closed the connection at size 8192"/' \
    "$wbw" > "$tmp/failed-ok.json"
expect_rc 0 "failed run with error accepted" "$GDR_JSON" check "$tmp/failed-ok.json"

# error_class (issue 23): beside error only, with a known kind.
sed 's/"status":\t"complete"/"status":\t"failed",\n"error": "RDMA write of 8192 bytes failed",\n"error_class": {"kind": "completion", "side": "client", "size": 8192, "iteration": 5, "wc_status": "IBV_WC_RETRY_EXC_ERR"}/' \
    "$wbw" > "$tmp/class.json"
expect_rc 0 "failed run with error_class accepted" "$GDR_JSON" check "$tmp/class.json"
sed 's/"status":\t"complete"/"status":\t"complete",\n"error_class": {"kind": "peer"}/' "$wbw" > "$tmp/class-ok.json"
expect_rc 2 "error_class in a complete run rejected" "$GDR_JSON" check "$tmp/class-ok.json"
one_line_error "field 'error_class' without an 'error' field"
sed 's/"completion"/"meltdown"/' "$tmp/class.json" > "$tmp/class-bad.json"
expect_rc 2 "unknown error_class kind rejected" "$GDR_JSON" check "$tmp/class-bad.json"
one_line_error "field 'error_class' has no known 'kind'"

sed 's/"placement":\t"host"/"placement":\t"fpga"/' "$wbw" > "$tmp/place.json"
expect_rc 2 "unknown placement rejected" "$GDR_JSON" check "$tmp/place.json"
one_line_error "ends.client: field 'placement' has unknown value 'fpga'"

# Growth: unknown extra fields are allowed; absent placement means host.
sed 's/"status":\t"complete"/"status":\t"complete", "simulated": true/; /"placement":/d; /"registration":/d' \
    "$wbw" > "$tmp/grow.json"
expect_rc 0 "extra fields and absent placement accepted" "$GDR_JSON" check "$tmp/grow.json"
grep -q "host-host" "$tmp/out" && pass "absent placement reads as host-host" || fail "pair not host-host"

# One bad file among good ones: every bad file reported, exit 2.
expect_rc 2 "mixed good and bad" "$GDR_JSON" check -q "$wbw" "$tmp/trunc.json" "$tmp/min.json"
[ "$(wc -l < "$tmp/err")" -eq 2 ] && pass "one line per bad file" || fail "want 2 error lines"

expect_rc 2 "missing file" "$GDR_JSON" check "$tmp/nope.json"
one_line_error "nope.json: No such file"

expect_rc 0 "get a value" "$GDR_JSON" get "$lat" 'results[1].latency_s.median'
[ "$(cat "$tmp/out")" = "3.4489999999999997e-05" ] && pass "get prints the number" || fail "get printed $(cat "$tmp/out")"
expect_rc 2 "get a missing path" "$GDR_JSON" get "$lat" 'results[9].size'
one_line_error "no element 9"
expect_rc 0 "get several paths" "$GDR_JSON" get "$lat" test 'results[9].size' 'results[1].latency_s.median'
[ "$(tr '\n' '|' <"$tmp/out")" = "read_lat||3.4489999999999997e-05|" ] &&
    pass "a line a path, empty where absent" || fail "get of several printed $(cat "$tmp/out")"
expect_rc 2 "get several: a malformed path is an error" "$GDR_JSON" get "$lat" test 'results[x]'
one_line_error "bad index in path 'results\[x\]'"
finish
