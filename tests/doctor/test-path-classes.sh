#!/bin/sh
# gdr_doctor classifies each captured topology like nvidia-smi topo -m.
. "$(dirname "$0")/lib.sh"

for case in pix:mlx5_0:0000:03:00.0:PIX pxb:mlx5_0:0000:05:00.0:PXB \
	    phb:mlx5_0:0000:01:00.0:PHB node:mlx5_0:0000:01:00.0:NODE \
	    sys:mlx5_0:0000:01:00.0:SYS smallbar:mlx5_0:0000:03:00.0:PIX; do
	fx=${case%%:*}
	rest=${case#*:}
	dev=${rest%%:*}
	cls=${rest##*:}
	gpu=${rest#*:}
	gpu=${gpu%:*}
	run "$fx" --json
	expect_json "\"rdma_device\":\"$dev\",\"gpu\":\"$gpu\",\"path\":\"$cls\"" "$fx JSON path"
	run "$fx"
	expect_line "^(PASS|WARN) +path +$dev<->$gpu: $cls;" "$fx text path"
done

# Default level PXB: switch paths use GDR, paths through the CPU do not.
run pix --json
expect_json '"path":"PIX","gdr_used":true' "pix gdr_used"
run pxb --json
expect_json '"path":"PXB","gdr_used":true' "pxb gdr_used"
for fx in phb node sys; do
	run "$fx" --json
	expect_json '"gdr_used":false' "$fx gdr_used"
	run "$fx"
	expect_line "^WARN +path .*NCCL does not use GDR beyond NCCL_NET_GDR_LEVEL=PXB \(default\)" "$fx verdict"
	expect_line "^ +fix: " "$fx fix line"
done
finish
