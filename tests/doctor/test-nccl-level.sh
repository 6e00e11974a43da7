#!/bin/sh
# NCCL_NET_GDR_LEVEL decides whether GDR is used for a pair.
. "$(dirname "$0")/lib.sh"

# PIX pair with level PHB: used.
NCCL_NET_GDR_LEVEL=PHB run pix --json
expect_json '"level":"PHB","source":"NCCL_NET_GDR_LEVEL"' "pix PHB level echoed"
expect_json '"path":"PIX","gdr_used":true' "pix at PHB"

# SYS pair with the default: not used; with SYS (or legacy 4/5): used.
run sys --json
expect_json '"level":"PXB","source":"default"' "default level"
expect_json '"path":"SYS","gdr_used":false' "sys at default"
for lvl in SYS sys 4 5; do
	NCCL_NET_GDR_LEVEL=$lvl run sys --json
	expect_json '"path":"SYS","gdr_used":true' "sys at $lvl"
done
NCCL_NET_GDR_LEVEL=PHB run sys --json
expect_json '"path":"SYS","gdr_used":false' "sys at PHB"

# NODE is inside NCCL's PHB (same NUMA node); PHB pair with legacy 3.
NCCL_NET_GDR_LEVEL=PHB run node --json
expect_json '"path":"NODE","gdr_used":true' "node at PHB"
NCCL_NET_GDR_LEVEL=3 run phb
expect_line '^PASS +path .*PHB; NCCL uses GDR at NCCL_NET_GDR_LEVEL=PHB' "phb at 3"
NCCL_NET_GDR_LEVEL=PIX run pxb --json
expect_json '"path":"PXB","gdr_used":false' "pxb at PIX"

# LOC disables GDR everywhere.
NCCL_NET_GDR_LEVEL=LOC run pix
expect_line '^WARN +path .*GDR disabled by NCCL_NET_GDR_LEVEL=LOC' "pix at LOC"

# The pre-2.4 name is honoured when the new one is unset.
NCCL_IB_GDR_LEVEL=SYS run sys --json
expect_json '"level":"SYS","source":"NCCL_IB_GDR_LEVEL"' "NCCL_IB_GDR_LEVEL"

# Invalid values: exit 2 with a line naming the variable and the value.
for bad in NODE bogus -1 ""; do
	NCCL_NET_GDR_LEVEL=$bad run pix
	expect_rc 2 "invalid level '$bad'"
	expect_line "^gdr_doctor: invalid NCCL_NET_GDR_LEVEL='$bad': expected LOC, PIX, PXB, P2C, PHB, SYS" "message for '$bad'"
done
finish
