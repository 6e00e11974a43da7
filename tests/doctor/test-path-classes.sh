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
# Each GPU's rail NIC (common/topo/pairing, as gdr-cluster-core rails):
# on its own switch, shared by two GPUs; a down port never, a storage NIC
# never; GPUs whose NIC is down fall back to the nearest active one.
run dgx-shared --json
expect_json '"bdf":"0000:13:00.0","numa_node":0,"device_id":"0x20b0","rail_device":"mlx5_0"' "dgx-shared GPU 1 shares mlx5_0"
expect_json '"bdf":"0000:a3:00.0","numa_node":1,"device_id":"0x20b0","rail_device":"mlx5_5"' "dgx-shared GPU 7 shares mlx5_5"
run dgx-down --json
expect_json '"bdf":"0000:23:00.0","numa_node":0,"device_id":"0x20b0","rail_device":"mlx5_0"' "dgx-down GPU 3 avoids the down mlx5_3"
run dgx-down
expect_line "^PASS +path +mlx5_1<->0000:12:00.0: NODE; GDR not used for this pair at PXB, but NCCL picks nearer mlx5_0 \(PIX\)" "dgx-down storage NIC: nearer rail named"
finish
