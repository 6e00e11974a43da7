#!/bin/sh
# Missing environment, soft-RoCE, command line and output format.
. "$(dirname "$0")/lib.sh"

# Bare machine: says so, exits 3.
run empty
expect_rc 3 "empty exit"
expect_line '^environment missing: no RDMA device \(nothing under .*/class/infiniband\); no GPU' "empty message"
run empty --json
expect_rc 3 "empty json exit"
expect_json '"environment_missing":"noRDMAdevice' "empty JSON"
expect_json '"rdma_devices":[],"gpus":[],"pairs":[]' "empty JSON arrays"

# Soft-RoCE lab: rxe0 is software, ports are reported, no GPU -> 3, no crash.
run rxe
expect_rc 3 "rxe exit"
expect_line '^WARN +device +rxe0: software RDMA device \(rxe/siw\) on veth0: no PCIe path' "rxe software"
expect_line '^WARN +port +rxe0/1: ACTIVE, Ethernet \(RoCE\) on veth0' "rxe port"
expect_line '^environment missing: no GPU ' "rxe no GPU"
expect_no_line '^environment missing: no RDMA' "rxe has an RDMA device"
run rxe --json
expect_json '"name":"rxe0","software":true,"pci":null' "rxe JSON"

# rxe with a GPU (no device link at all): path NONE, FAIL.
run rxe-gpu
expect_rc 1 "rxe-gpu exit"
expect_line '^FAIL +path +rxe0<->0000:01:00.0: NONE: rxe0 is a software RDMA device' "rxe-gpu path"
run rxe-gpu --json
expect_json '"path":"NONE","gdr_used":false' "rxe-gpu JSON"

# Filters.
run pix --gpu=0000:99:00.0
expect_rc 3 "unknown --gpu"
expect_line 'no GPU 0000:99:00.0' "unknown --gpu message"

# Command line.
out=$("$doctor" --help 2>&1); rc=$?
expect_rc 0 "--help"
expect_line '^Exit status: 0 no check failed' "--help documents exit codes"
out=$("$doctor" --version 2>&1); rc=$?
expect_rc 0 "--version"
expect_line '^gdr_doctor ' "--version text"
out=$("$doctor" --no-such-option 2>&1); rc=$?
expect_rc 2 "bad option"
# --run execs gdr-troubleshoot --server PEER (GDR_TROUBLESHOOT names it here)
# with --ibdev as --dev and --gpu; its exit status is the doctor's.
fake_ts=$(mktemp "${TMPDIR:-/tmp}/gdr-fake-ts.XXXXXX") || exit 99
printf '#!/bin/sh\necho "args: $*"\nexit 7\n' >"$fake_ts"
chmod +x "$fake_ts"
out=$(GDR_TROUBLESHOOT=$fake_ts "$doctor" --run=peer --ibdev=mlx5_0 --gpu=0000:3b:00.0 2>&1); rc=$?
expect_rc 7 "--run passes the exit status through"
expect_line '^args: --server peer --dev=mlx5_0 --gpu=0000:3b:00.0$' "--run arguments"
rm -f "$fake_ts"
out=$(GDR_TROUBLESHOOT=/nonexistent/gdr-troubleshoot "$doctor" --run=peer 2>&1); rc=$?
expect_rc 3 "--run without the script"
expect_line 'GDR_TROUBLESHOOT=/nonexistent/gdr-troubleshoot is not an executable file' "--run says why"
out=$("$doctor" --run=peer --json 2>&1); rc=$?
expect_rc 2 "--run with --json"

# --json prints exactly one document; validate it when python3 is around.
run pxb --json
first=$(printf '%s\n' "$out" | head -n 1)
last=$(printf '%s\n' "$out" | tail -n 1)
[ "$first" = "{" ] && [ "$last" = "}" ] || fail "JSON document framing"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["summary"]["fail"]==1 and d["exit_code"]==1' ||
		fail "JSON does not parse or has wrong summary"
fi
finish
