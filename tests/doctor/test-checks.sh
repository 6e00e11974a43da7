#!/bin/sh
# Per-check verdicts (registration, BAR1, IOMMU, ACS, ports) and exit codes.
. "$(dirname "$0")/lib.sh"

# Healthy PIX box: nothing fails.
run pix
expect_rc 0 "pix exit"
expect_line '^PASS +registration +system: nvidia_peermem loaded' "pix registration"
expect_line '^PASS +bar1 +0000:03:00.0: BAR1 32 GiB \(resource 1\)' "pix bar1"
expect_line '^PASS +acs +mlx5_0<->0000:03:00.0: no ACS redirect on the 3 bridge' "pix acs"
expect_line '^PASS +port +mlx5_0/1: ACTIVE, InfiniBand, 200 Gb/sec' "pix port"
expect_line '^PASS +iommu +system: no IOMMU active' "pix iommu"
expect_no_line '^FAIL' "pix has no FAIL"
run pix --json
expect_json '"method":"peermem"' "pix JSON method"
expect_json '"bar1_bytes":34359738368,"bar1_resource_index":1' "pix JSON bar1"
expect_json '"rate_bytes_per_s":25000000000' "pix JSON rate in bytes/s"
expect_json '"exit_code":0' "pix JSON exit code"

# Small BAR1.
run smallbar
expect_rc 1 "smallbar exit"
expect_line '^FAIL +bar1 +0000:03:00.0: BAR1 256 MiB .*small BAR' "smallbar verdict"
expect_line 'fix: enable Above 4G Decoding and Resizable BAR' "smallbar fix"

# No peermem but dma-buf possible.
run dmabuf
expect_rc 0 "dmabuf exit"
expect_line '^PASS +registration +system: dma-buf: kernel 6.5.0-35-generic, NVIDIA open kernel module 550.54.14' "dmabuf verdict"
run dmabuf --json
expect_json '"peermem":false,"kernel_dmabuf":true,"nvidia_open_module":true,"verbs_dmabuf":null,"dmabuf":true,"method":"dmabuf"' "dmabuf JSON"

# Neither peermem nor dma-buf.
run noreg
expect_rc 1 "noreg exit"
expect_line '^FAIL +registration +system: .*kernel 5.4.0-150-generic < 5.12.*proprietary.*470.223.02 < 515' "noreg reasons"
expect_line 'fix: modprobe nvidia_peermem' "noreg fix"
run noreg --json
expect_json '"method":"none"' "noreg JSON method"

# ACS redirect below the root complex fails; RoCE with MTU 1500 warns.
run pxb
expect_rc 1 "pxb exit"
expect_line '^FAIL +acs +mlx5_0<->0000:05:00.0: .*at 0000:02:00.0 \(ctrl 0x001d\)' "pxb acs"
expect_line '^WARN +port +mlx5_0/1: ACTIVE, Ethernet \(RoCE\) on enp6s0f0np0, .*MTU 1500' "pxb mtu"

# Config space cut at 64 bytes (non-root): ACS UNKNOWN; IOMMU translating: WARN.
run phb
expect_rc 0 "phb exit"
expect_line '^UNKNOWN +acs .*unreadable for 0000:00:02.0 0000:00:01.0' "phb acs unknown"
expect_line 'fix: run gdr_doctor as root' "phb acs fix"
expect_line '^WARN +iommu +system: IOMMU translates DMA for 0000:01:00.0=DMA-FQ' "phb iommu"

# IOMMU in passthrough.
run sys
expect_line '^PASS +iommu +system: IOMMU on in passthrough mode' "sys iommu"
# PCIe links below their maximum: a NIC or a bridge FAILs, an idle GPU WARNs.
run nic-x8
expect_rc 1 "nic-x8 exit"
expect_line '^FAIL +link +mlx5_0: nic link trained at 16 GT/s x8 \(Gen4 x8\), below the 16 GT/s x16' "nic-x8 NIC"
expect_line '^WARN +link +0000:03:00.0: GPU link at 2.5 GT/s x16 \(Gen1 x16\), capable of 16 GT/s x16' "nic-x8 idle GPU"
expect_no_line '^FAIL +link +0000:0[12]' "nic-x8 bridges healthy"
run nic-x8 --json
# the link's one JSON shape (common/topo/pcie_json.c), the rails' and the
# benchmarks' too: the device's maxima and what the link should train at
expect_json '"bdf":"0000:04:00.0","role":"nic","current_gts":16,"current_width":8,"max_gts":16,"max_width":16,"expect_gts":16,"expect_width":16,"max_payload":256,"max_read_request":512,"relaxed_ordering":true,"ats":false,"acs_ctrl":null,"judged":true,"below_max":true' "nic-x8 JSON NIC"
run bridge-gen3
expect_rc 1 "bridge-gen3 exit"
expect_line '^FAIL +link +0000:01:00.0: bridge link trained at 8 GT/s x16 \(Gen3 x16\), below the 16 GT/s x16' "bridge-gen3 bridge"
expect_no_line '^(FAIL|WARN) +link +(mlx5_0|0000:03:00.0)' "bridge-gen3 ends healthy"
# The root port above the slow link is its upper end: not judged again.
expect_no_line '^FAIL +link +0000:00:01.0' "bridge-gen3 root port"
run dgx
expect_line '^PASS +link +system: 25 PCIe links at their maximum' "dgx links"
expect_no_line '^(FAIL|WARN|UNKNOWN) +link' "dgx links all healthy"
# No link figures in sysfs: unknown, not healthy.
run pix
expect_line '^UNKNOWN +link +system: link speed or width unreadable for 3 device\(s\)' "pix links unknown"
finish
