#!/bin/sh
# gdr-json troubleshoot: gdr-troubleshoot's report and verdict from step
# documents written here (doctor JSON by hand, the sweep's manifest through
# gdr-json manifest, run documents from the fixtures). One case per verdict
# the analysis distinguishes: in effect (same and mixed registration), staged,
# the GDR-on run failed (its error quoted on one line), GDR off failed,
# host-host failed, nothing ran, slower than staging, simulated, missing
# environment (exit 3), the doctor's FAILs/WARNs/paths/software devices;
# a missing directory or damaged manifest is one line and exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
wbw=$fixtures/write_bw-client.json

# run_doc CREG SREG [FILE]: the fixture with both ends in GPU memory,
# registered CREG (client) and SREG (server).
run_doc() {
    awk -v c="$1" -v s="$2" '
        /"placement":\t"host"/ { sub(/"host"/, "\"cuda\"") }
        /"registration":\t"host"/ { sub(/"host"/, "\"" (n++ ? s : c) "\"") }
        { print }' "${3:-$wbw}"
}

# doctor DIR NODE [PAIRS [DEVICES [CHECKS [ENV_MISSING]]]]: DIR/doctor/NODE.*
doctor() {
    d=$1/doctor/$2
    pairs=${3:-'[{"rdma_device": "mlx5_0", "gpu": "0000:3b:00.0", "path": "PIX", "gdr_used": true}]'}
    devs=${4:-'[{"name": "mlx5_0", "software": false}]'}
    printf '{"tool": "gdr_doctor", "nccl_net_gdr_level": {"level": "PXB", "source": "default"},
 "environment_missing": %s, "summary": {"pass": 5, "warn": 0, "fail": 0, "unknown": 0},
 "rdma_devices": %s, "pairs": %s, "checks": %s}\n' "${6:-null}" "$devs" "$pairs" "${5:-[]}" >"$d.json"
    echo 0 >"$d.rc"
    echo "host-$2" >"$d.host"
}

# one_run SWEEP INDEX PLACEMENT GDR STATE: one run's document and manifest
# entry; STATE ok, staged (ok, registered staged), dmabuf/peermem, slow
# (half the bandwidth) or failed:REASON.
one_run() {
    name=write_bw.$3.$(echo "$4" | tr -d /)
    doc=$1/$name.client.json
    case $5 in
        failed:*)
            "$GDR_JSON" manifest add-run "$1/manifest.json" --index "$2" --status failed \
                --tool write_bw --placement "$3" --gdr "$4" --reason "${5#failed:}"
            return ;;
    esac
    if [ "$3" = H-H ]; then cp "$wbw" "$doc"
    elif [ "$4" = off ] || [ "$5" = staged ]; then run_doc staged staged >"$doc"
    elif [ "$5" = dmabuf/peermem ]; then run_doc dmabuf peermem >"$doc"
    elif [ "$5" = slow ]; then run_doc peermem peermem "$tmp/slow.json" >"$doc"
    else run_doc peermem peermem >"$doc"; fi
    "$GDR_JSON" manifest add-run "$1/manifest.json" --index "$2" --status ok \
        --tool write_bw --placement "$3" --gdr "$4"
}

# sweep DIR HH ON OFF: the sweep's manifest, documents and exit status.
sweep() {
    mkdir -p "$1/sweep"
    "$GDR_JSON" manifest init "$1/sweep/manifest.json" --run-id t --mode ssh -- gdr-sweep
    one_run "$1/sweep" 1 H-H n/a "$2"
    one_run "$1/sweep" 2 D-D on "$3"
    one_run "$1/sweep" 3 D-D off "$4"
    "$GDR_JSON" manifest finish "$1/sweep/manifest.json" \
        -- write_bw H-H n/a write_bw D-D on write_bw D-D off
    echo 0 >"$1/sweep.rc"
}

# case NAME HH ON OFF: a two-node directory with healthy doctors
case_dir() {
    c=$tmp/$1
    mkdir -p "$c/doctor"
    doctor "$c" server
    doctor "$c" client
    sweep "$c" "$2" "$3" "$4"
}
TS() { expect_rc "$1" "$2" "$GDR_JSON" troubleshoot --server node-s --client node-c --sizes 2:64K "$tmp/$3"; }
has() { # NAME CASE TEXT: the verdict contains TEXT
    if grep -qF -- "$3" "$tmp/$2/verdict.txt"; then pass "$1"
    else fail "$1: verdict lacks '$3'"; sed 's/^/  | /' "$tmp/$2/verdict.txt"; fi
}
lacks() {
    if grep -qF -- "$3" "$tmp/$2/verdict.txt"; then fail "$1: verdict has '$3'"; else pass "$1"; fi
}

# In effect, peermem on both ends.
case_dir a ok ok ok
TS 0 "in effect: exit 0" a
has "in effect: registration" a "GDR is in effect: D-D registered with peermem on both ends; "
has "in effect: speed-up and CPU at the largest size" a "at 64 KiB it delivers 1.00x the bandwidth of the staged path and 1.00x its CPU"
has "in effect: host-host against the link" a "% of the 10 Gb/s link)"
has "in effect: the doctor's path" a "on the server the NIC-GPU path mlx5_0<->0000:3b:00.0 is PIX: NCCL uses GDR there at NCCL_NET_GDR_LEVEL=PXB"
lacks "in effect: not simulated" a "Simulated"
[ "$(wc -l <"$tmp/a/verdict.txt")" = 1 ] && pass "verdict is one line" || fail "verdict is not one line"
cmp -s "$tmp/out" "$tmp/a/verdict.txt" && pass "stdout is the verdict" || fail "stdout differs from verdict.txt"
for s in 1 2 3 4; do grep -q "^## Step $s: " "$tmp/a/report.md" || fail "report.md lacks step $s"; done
grep -q '^| 64 KiB | .* | 1.00x | ' "$tmp/a/report.md" && pass "step 4 table" || fail "no step 4 row"
# One bandwidth unit in the whole report, the largest value's (gdr_unit_bw).
units=$(grep -o '[0-9.]* [GM]B/s' "$tmp/a/report.md" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
[ "$units" = "MB/s " ] && pass "one bandwidth unit: $units" || fail "bandwidth units: '$units'"
grep -q '^Where: server node-s, client node-c\.$' "$tmp/a/report.md" && pass "report names the nodes" || fail "no Where line"
grep -q '^### client (host-client): gdr_doctor exit 0$' "$tmp/a/report.md" && pass "doctor heading" || fail "no doctor heading"

case_dir b ok dmabuf/peermem ok
TS 0 "mixed registration: exit 0" b
has "mixed registration named per end" b "D-D registered with dmabuf on the client and peermem on the server"

case_dir c ok staged ok
TS 1 "staged: exit 1" c
has "staged: says why" c "GDR is not in effect: the D-D run with GDR on registered staged on the client and staged on the server, not dmabuf/peermem"

# The GDR-on run failed: its reason quoted, on one line, however hostile.
reason=$(printf 'exit codes: client 3, server 3: "dma-buf" \\ refused\nthe server did not exit')
case_dir d ok "failed:$reason" ok
TS 1 "GDR on failed: exit 1" d
has "GDR on failed: reason quoted on one line" d 'the D-D run with GDR on failed: exit codes: client 3, server 3: "dma-buf" \ refused the server did not exit; host-host'
[ "$(wc -l <"$tmp/d/verdict.txt")" = 1 ] && pass "two-line reason: verdict still one line" || fail "verdict split"
grep -q 'The staged run (GDR off) worked' "$tmp/d/report.md" && pass "staged worked" || fail "no staged-worked note"

case_dir e ok ok "failed:off broke"
TS 0 "GDR off failed: still in effect" e
has "GDR off failed: named" e "the GDR-off comparison run failed (off broke)"

case_dir f "failed:no route" ok ok
TS 0 "host-host failed: exit follows registration" f
has "host-host failed: first problem" f "even the host-host run failed (no route): the fabric or RDMA setup, not GDR, is the first problem"

# Nothing ran: no manifest, gdr-sweep timed out.
mkdir -p "$tmp/g/doctor"
doctor "$tmp/g" server
doctor "$tmp/g" client
echo 124 >"$tmp/g/sweep.rc"
TS 1 "nothing ran: exit 1" g
has "nothing ran: says where to look" g "the D-D run with GDR on failed: no result (gdr-sweep exit 124; see $tmp/g/sweep/logs)"

scale "$wbw" bw_avg_bytes_per_s 0.5 all >"$tmp/slow.json"
case_dir h ok slow ok
TS 0 "slower than staging: exit 0" h
has "slower than staging" h "0.50x the bandwidth of the staged path and 1.00x its CPU: slower than staging"

# The lab: one node, simulated, and a missing environment does not make it 3.
mkdir -p "$tmp/i/doctor"
doctor "$tmp/i" local '[]' '[{"name": "rxe0", "software": true}]' '[]' '"no GPU"'
sweep "$tmp/i" ok staged ok
expect_rc 1 "lab, staged: exit 1, not 3" "$GDR_JSON" troubleshoot --local --sizes 4K:64K:16 "$tmp/i"
has "lab: simulated" i "Simulated GPU (the CUDA driver test double in the soft-RoCE lab)"
has "lab: software device" i "rxe0 is a software RDMA device (no PCIe path, no GDR)"
grep -q '^### lab node (host-local)' "$tmp/i/report.md" && pass "lab node heading" || fail "no lab node heading"
grep -q '^- no NIC-GPU pair to classify (no GPU)$' "$tmp/i/report.md" && pass "no pair, why" || fail "no pair line"

# Real nodes, not in effect, a doctor found no GPU: exit 3.
case_dir j ok staged ok
doctor "$tmp/j" client '[]' '[{"name": "mlx5_0", "software": false}]' '[]' '"no GPU (no NVIDIA PCI function)"'
TS 3 "missing environment: exit 3" j
has "missing environment named" j "Missing environment: client: no GPU (no NVIDIA PCI function)."

# The doctor: FAIL and WARN checks, a node without JSON, many pairs, LOC,
# two software devices.
case_dir k ok ok ok
doctor "$tmp/k" server \
    '[{"rdma_device":"a","gpu":"g1","path":"PXB","gdr_used":false},{"rdma_device":"b","gpu":"g2","path":"NONE","gdr_used":false},{"rdma_device":"c","gpu":"g3","path":"SYS","gdr_used":false},{"rdma_device":"d","gpu":"g4","path":"PIX","gdr_used":true},{"rdma_device":"e","gpu":"g5","path":"PIX","gdr_used":true},{"rdma_device":"f","gpu":"g6","path":"PIX","gdr_used":true}]' \
    '[]' '[{"check":"registration","subject":"system","status":"FAIL","message":"no peermem","fix":"modprobe nvidia_peermem"},{"check":"iommu","subject":"system","status":"WARN","message":"translated","fix":null},{"check":"device","subject":"a","status":"PASS","message":"fine","fix":null}]'
rm "$tmp/k/doctor/client.json"
echo "gdr_doctor: cannot read /sys: boom" >"$tmp/k/doctor/client.err"
TS 0 "doctor findings: exit follows registration" k
has "doctor FAIL and the node without JSON" k "the doctor FAILs server: registration system: no peermem; client: gdr_doctor did not run (gdr_doctor: cannot read /sys: boom)"
has "path needing a level" k "the NIC-GPU path a<->g1 is PXB: NCCL uses GDR there only at NCCL_NET_GDR_LEVEL>=PXB (now PXB)"
has "software path" k "path b<->g2 is NONE: b is a software RDMA device: no PCIe path, no GDR"
has "more pairs than four" k "(and 2 more pairs, see report.md)"
has "doctor WARN" k "the doctor WARNs on server: iommu system (report.md has the fixes)"
grep -q '^- FAIL registration system: no peermem (fix: modprobe nvidia_peermem)$' "$tmp/k/report.md" &&
    pass "fix in the report" || fail "no fix line"
grep -q '^- pair f<->g6: path PIX' "$tmp/k/report.md" && pass "all pairs in the report" || fail "sixth pair missing"

case_dir l ok ok ok
doctor "$tmp/l" server '[]' '[{"name": "rxe0", "software": true}, {"name": "siw0", "software": true}]'
TS 0 "two software devices: exit 0" l
has "plural software devices" l "rxe0, siw0 are software RDMA devices (no PCIe path, no GDR)"

# With write latency (issue 24): gdr_write_lat D-D on and off in the same
# sweep; the staged run's medians 3x the direct ones. Without those runs
# (every case above) step 4 has no latency part.
lat=$fixtures/write_lat-client.json
case_dir n ok ok ok
run_doc peermem peermem "$lat" >"$tmp/n/sweep/write_lat.D-D.on.client.json"
# Every latency figure of every row 3x, so the document stays valid.
scale "$lat" min 3 all | scale /dev/stdin median 3 all | scale /dev/stdin mean 3 all |
    scale /dev/stdin stdev 3 all | scale /dev/stdin p99 3 all | scale /dev/stdin p999 3 all |
    scale /dev/stdin max 3 all | run_doc staged staged /dev/stdin >"$tmp/n/sweep/write_lat.D-D.off.client.json"
"$GDR_JSON" manifest add-run "$tmp/n/sweep/manifest.json" --index 4 --status ok --tool write_lat \
    --placement D-D --gdr on
"$GDR_JSON" manifest add-run "$tmp/n/sweep/manifest.json" --index 5 --status ok --tool write_lat \
    --placement D-D --gdr off
TS 0 "with write latency: exit 0" n
# One latency unit in the report, the largest value's: 64 KiB off, 5.8 ms.
has "write latency in the verdict" n "64 KiB it delivers 1.00x the bandwidth of the staged path and 1.00x its CPU; its write latency at 2 B is 0.024 ms, the staged path's 3.00x that; host-host"
grep -q '^| 2 B | 0.024 ms | 0.072 ms | 3.00x |$' "$tmp/n/report.md" && pass "step 4 latency table, in ms" ||
    fail "no latency row: $(grep -A3 'Write latency' "$tmp/n/report.md")"
grep -q 'Write latency' "$tmp/a/report.md" && fail "latency part without write_lat runs" ||
    pass "no latency part without write_lat runs"
case_dir o ok ok ok
run_doc peermem peermem "$lat" >"$tmp/o/sweep/write_lat.D-D.on.client.json"
"$GDR_JSON" manifest add-run "$tmp/o/sweep/manifest.json" --index 4 --status ok --tool write_lat \
    --placement D-D --gdr on
"$GDR_JSON" manifest add-run "$tmp/o/sweep/manifest.json" --index 5 --status failed --tool write_lat \
    --placement D-D --gdr off --reason "staged ping-pong broke"
TS 0 "write latency off failed: verdict unchanged" o
lacks "failed latency run not in the verdict" o "write latency"
grep -q 'the GDR off run failed: staged ping-pong broke' "$tmp/o/report.md" && pass "failed latency run named" ||
    fail "failed latency run not named"

# Bad input: one line, exit 2.
expect_rc 2 "missing directory" "$GDR_JSON" troubleshoot --local "$tmp/nope"
one_line_error "nope: No such file or directory"
case_dir m ok ok ok
printf '{"manifest_version": ' >"$tmp/m/sweep/manifest.json"
TS 2 "damaged manifest: exit 2" m
one_line_error "manifest.json: not valid JSON"
[ ! -f "$tmp/m/verdict.txt" ] && pass "no verdict from a damaged manifest" || fail "verdict written"
expect_rc 2 "neither --local nor --server" "$GDR_JSON" troubleshoot "$tmp/a"
one_line_error "say --local or --server HOST"
finish
