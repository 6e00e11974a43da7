#!/bin/sh
# gdr-json manifest: a sweep's manifest.json created and updated by C.
# Hostile text (quotes, backslashes, control characters, newlines, invalid
# UTF-8) round-trips escaped; a missing, malformed or foreign manifest and
# bad arguments are one line and exit 2; add-run replaces a run, --resumed
# keeps an earlier ok entry; finish orders by plan, fails the runs that never
# ran when given a reason, drops runs outside the plan, and counts.
set -eu
. "$(dirname "$0")/lib.sh"
m=$tmp/manifest.json
get() { "$GDR_JSON" get "$m" "$1"; }
same() { # NAME WANT GOT
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: want '$2', got '$3'"; fi
}
add() { # INDEX TOOL PLACEMENT GDR STATUS [options]
    i=$1 t=$2 p=$3 g=$4 s=$5; shift 5
    "$GDR_JSON" manifest add-run "$m" --index "$i" --tool "$t" --placement "$p" --gdr "$g" \
        --status "$s" "$@"
}

hostile=$(printf 'bad "quote" \\back\\slash\ttab\001ctl\nsecond line')
arg=$(printf 'x"y\\z\n')
expect_rc 0 "init" "$GDR_JSON" manifest init "$m" --run-id "R 1" --git-version v1-dirty \
    --mode local -- gdr-sweep --local "--tool-args=a=$arg" ""
same "manifest_version" gdrbench.sweep/1 "$(get manifest_version)"
same "run_id with a blank" "R 1" "$(get run_id)"
same "argument with quote, backslash and newline" "--tool-args=a=$arg" "$(get 'command_line[2]')"
same "an empty argument stays a string" '""' "$(get command_line | sed 's/.*,//; s/]$//')"
same "not resumed" false "$(get resumed)"
expect_rc 0 "hosts" "$GDR_JSON" manifest hosts "$m" node-a "node b" 198.18.0.1
same "hosts.client" "node b" "$(get hosts.client)"

: >"$tmp/write_bw.H-H.na.client.json"
expect_rc 0 "add a failed run with a hostile error" add 1 write_bw H-H n/a failed \
    --client-exit 1 --server-exit "" --reason "exit codes: client 1: $hostile" \
    --client-error "$hostile" --duration 7 --simulated false --port 18515
same "hostile error round-trips" "$hostile" "$(get 'runs[0].first_error.client')"
same "empty exit code is null" null "$(get 'runs[0].exit_codes.server')"
same "unset server error is null" null "$(get 'runs[0].first_error.server')"
same "existing client document named" write_bw.H-H.na.client.json "$(get 'runs[0].files.client')"
same "absent server document is null" null "$(get 'runs[0].files.server')"
same "log named" logs/write_bw.H-H.na.server.err "$(get 'runs[0].files.server_log')"
grep -q '\\u0001' "$m" && pass "control character escaped as \\u0001" || fail "no \\u0001 in $m"
command -v python3 >/dev/null 2>&1 && {
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$m" &&
        pass "python's strict parser reads it" || fail "python cannot parse $m"; }

# Invalid UTF-8 becomes U+FFFD; valid multibyte text is kept.
bad=$(printf 'caf\303\251 \377\300\200 \355\240\200 end\342\202')
expect_rc 0 "add a run with invalid UTF-8" add 2 read_lat H-D on failed --server-error "$bad"
same "invalid UTF-8 replaced" "$(printf 'caf\303\251 \357\277\275\357\277\275\357\277\275 \357\277\275\357\277\275\357\277\275 end\357\277\275\357\277\275')" \
    "$(get 'runs[1].first_error.server')"

# Replacing a run; --resumed keeps an earlier ok entry, else records a new one.
expect_rc 0 "rerun replaces" add 1 write_bw H-H n/a ok --client-exit 0 --server-exit 0 --duration 3
same "one entry per name" 2 "$(get runs | grep -o '"name":' | wc -l | tr -d ' ')"
same "replaced in place" ok/3/null "$(get 'runs[0].status')/$(get 'runs[0].duration_s')/$(get 'runs[0].reason')"
expect_rc 0 "resumed over an ok entry" add 1 write_bw H-H n/a ok --resumed
same "details kept, marked resumed" 3/true "$(get 'runs[0].duration_s')/$(get 'runs[0].resumed')"
expect_rc 0 "resumed over a failed entry" add 2 read_lat H-D on ok --resumed
same "failed entry replaced" ok/true/null \
    "$(get 'runs[1].status')/$(get 'runs[1].resumed')/$(get 'runs[1].first_error.server')"

# finish: plan order, missing runs, runs outside the plan dropped, counts.
add 9 send_bw D-D off ok >/dev/null
expect_rc 0 "finish with a reason for runs that never ran" "$GDR_JSON" manifest finish "$m" \
    --missing "not run: the lab exited 124 (timeout)" -- write_bw H-H n/a send_bw H-D on read_lat H-D on
same "plan order" write_bw.H-H.na/send_bw.H-D.on/read_lat.H-D.on \
    "$(get 'runs[0].name')/$(get 'runs[1].name')/$(get 'runs[2].name')"
same "indexes follow the plan" 1/2/3 "$(get 'runs[0].index')/$(get 'runs[1].index')/$(get 'runs[2].index')"
same "never-ran run failed with the reason" "failed/not run: the lab exited 124 (timeout)" \
    "$(get 'runs[1].status')/$(get 'runs[1].reason')"
same "run outside the plan dropped" 3 "$(get runs | grep -o '"name":' | wc -l | tr -d ' ')"
same "planned/ok/failed" 3/2/1 "$(get planned)/$(get ok)/$(get failed)"
get end_date | grep -q '^20[0-9-]*T[0-9:]*Z$' && pass "end_date" || fail "end_date '$(get end_date)'"
expect_rc 0 "finish without a reason leaves missing runs out" "$GDR_JSON" manifest finish "$m" \
    -- write_bw H-H n/a read_lat H-H n/a
same "only recorded runs" 2/1/1/0 "$(get planned)/$(get runs | grep -o '"name":' | wc -l | tr -d ' ')/$(get ok)/$(get failed)"
left=$(find "$tmp" -name 'manifest.json.tmp*')
[ -z "$left" ] && pass "no temporary file left" || fail "temporary file left: $left"

# --resume keeps the runs and hosts, a fresh init drops them.
expect_rc 0 "init --resume" "$GDR_JSON" manifest init "$m" --run-id R2 --mode local --resume -- gdr-sweep
same "resume keeps runs and hosts" "true/write_bw.H-H.na/node-a" \
    "$(get resumed)/$(get 'runs[0].name')/$(get hosts.server)"
expect_rc 0 "fresh init" "$GDR_JSON" manifest init "$m" --run-id R3 --mode ssh
same "fresh init: no runs, no hosts, empty command line" "[]/[]/no hosts" \
    "$(get runs)/$(get command_line)/$(get hosts 2>/dev/null || echo no hosts)"

# Bad input: one line, exit 2.
expect_rc 2 "add-run without a manifest" "$GDR_JSON" manifest add-run "$tmp/none.json" --index 1 \
    --tool write_bw --placement H-H --gdr n/a --status ok
one_line_error "none.json: no manifest"
printf '{"manifest_version": "gdrbench.sweep/1", "runs": [' >"$tmp/trunc.json"
expect_rc 2 "truncated manifest" "$GDR_JSON" manifest finish "$tmp/trunc.json" -- a b on
one_line_error "trunc.json: not valid JSON"
cp "$fixtures/write_bw-client.json" "$tmp/result.json"
expect_rc 2 "a result document is not a manifest" "$GDR_JSON" manifest hosts "$tmp/result.json" a b c
one_line_error "result.json: not a sweep manifest"
cmp -s "$fixtures/write_bw-client.json" "$tmp/result.json" && pass "foreign file untouched" ||
    fail "foreign file changed"
printf '{"manifest_version": "gdrbench.sweep/1", "runs": {}}' >"$tmp/runs.json"
expect_rc 2 "runs not an array" "$GDR_JSON" manifest finish "$tmp/runs.json" -- a b on
one_line_error "runs.json: field 'runs' is not an array"
expect_rc 2 "--resume over a malformed manifest" "$GDR_JSON" manifest init "$tmp/trunc.json" --resume
one_line_error "trunc.json: not valid JSON"
expect_rc 2 "non-numeric exit code" add 1 write_bw H-H n/a failed --client-exit 1x
one_line_error "--client-exit wants a number, not '1x'"
expect_rc 2 "negative port" add 1 write_bw H-H n/a failed --port -5
one_line_error "--port wants a number, not '-5'"
expect_rc 2 "bad status" add 1 write_bw H-H n/a maybe
one_line_error "status must be ok or failed, not 'maybe'"
expect_rc 2 "bad GDR mode" add 1 write_bw H-H auto ok
one_line_error "GDR must be on, off or n/a, not 'auto'"
expect_rc 2 "a tool with a slash" add 1 ../x H-H n/a ok
one_line_error "tool and placement are letters, digits, '_' and '-', not '../x'"
expect_rc 2 "--simulated wants a boolean" add 1 write_bw H-H n/a ok --simulated yes
one_line_error "--simulated wants true or false, not 'yes'"
expect_rc 2 "missing --index" "$GDR_JSON" manifest add-run "$m" --tool write_bw --placement H-H --gdr n/a --status ok
one_line_error "needs --index, --status, --tool, --placement and --gdr"
expect_rc 2 "plan not in triples" "$GDR_JSON" manifest finish "$m" -- write_bw H-H
one_line_error "TOOL PLACEMENT GDR triples"
expect_rc 2 "unknown subcommand" "$GDR_JSON" manifest frob "$m"
one_line_error "unknown subcommand 'frob'"
same "the manifest survived the bad calls" R3/0 "$(get run_id)/$(get ok)"
finish
