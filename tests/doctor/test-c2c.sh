#!/bin/sh
# Grace C2C (GH200-like, GB200-like), the per-device dma-buf verdict (an
# mlx4 beside the ConnectX) and relaxed ordering on GPU-paired NICs.
. "$(dirname "$0")/lib.sh"

# GH200: the GPU reaches the CPU over C2C, the NIC hangs off the CPU: P2C,
# GDR with NCCL 2.27+ (NCCL_NET_GDR_C2C on by default).
run gh200
expect_rc 0 "gh200 exit"
expect_line '^PASS +path +mlx5_0<->0009:01:00.0: P2C \(GPU on the CPU.s C2C link, NIC on its PCIe\); NCCL 2.27\+ uses GDR over C2C \(NCCL_NET_GDR_C2C=1, its default\)' "gh200 P2C"
expect_line '^PASS +registration +system: dma-buf: kernel 6.8.0-1013-nvidia-64k, NVIDIA open kernel module 560.35.03' "gh200 dma-buf"
expect_line '^PASS +relaxed +mlx5_0: PCIe relaxed ordering enabled' "gh200 relaxed"
expect_no_line '^(FAIL|WARN)' "gh200 clean"
run gh200 --json
expect_json '"bdf":"0009:01:00.0","numa_node":0,"device_id":"0x20b0","rail_device":"mlx5_0","c2c":true' "gh200 JSON gpu c2c"
expect_json '"rdma_device":"mlx5_0","gpu":"0009:01:00.0","path":"P2C","gdr_used":true,"dmabuf_mapping":"default"' "gh200 JSON pair"
# NCCL before 2.27, or GDR over C2C turned off: no GDR, and how to get it.
NCCL_NET_GDR_C2C=0 run gh200
expect_line '^WARN +path +mlx5_0<->0009:01:00.0: P2C .*NCCL does not use GDR with NCCL_NET_GDR_C2C=0' "gh200 C2C off"
expect_line 'fix: unset NCCL_NET_GDR_C2C' "gh200 C2C off fix"
NCCL_NET_GDR_LEVEL=PXB run gh200
expect_line '^WARN +path +mlx5_0<->0009:01:00.0: P2C .*beyond NCCL_NET_GDR_LEVEL=PXB \(NCCL_NET_GDR_LEVEL\)' "gh200 level PXB"
NCCL_NET_GDR_LEVEL=P2C run gh200
expect_line '^PASS +path +mlx5_0<->0009:01:00.0: P2C .*uses GDR over C2C \(NCCL_NET_GDR_LEVEL\)' "gh200 level P2C"
NCCL_NET_GDR_C2C=2 run gh200
expect_rc 2 "bad NCCL_NET_GDR_C2C"
expect_line "invalid NCCL_NET_GDR_C2C='2'" "bad NCCL_NET_GDR_C2C message"

# GB200: under the ConnectX-8-style switch the pair is PIX and NCCL maps
# the GPU's dma-bufs over PCIe (and flushes through the NIC); the other
# GPUs reach their socket's NIC over C2C (P2C); mlx5_1 has relaxed
# ordering off.
run gb200
expect_rc 0 "gb200 exit"
expect_line '^PASS +path +mlx5_0<->0000:03:00.0: PIX; NCCL uses GDR .*C2C GPU: NCCL maps its dma-bufs over PCIe \(CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE\) and flushes through the NIC' "gb200 PIX pcie mapping"
expect_line '^PASS +path +mlx5_0<->0008:01:00.0: P2C' "gb200 socket 0 P2C"
expect_line '^PASS +path +mlx5_1<->0018:01:00.0: P2C' "gb200 socket 1 P2C"
expect_line '^PASS +path +mlx5_1<->0000:03:00.0: SYS; GDR not used for this pair .*picks nearer mlx5_0 \(PIX\)' "gb200 cross-socket"
expect_line '^WARN +relaxed +mlx5_1: PCIe relaxed ordering disabled in Device Control' "gb200 relaxed off"
expect_line 'fix: enable it: setpci -s 0010:01:00.0 CAP_EXP\+8.w=0010:0010' "gb200 relaxed fix"
expect_line '^PASS +relaxed +mlx5_0: PCIe relaxed ordering enabled' "gb200 relaxed on"
run gb200 --json
expect_json '"rdma_device":"mlx5_0","gpu":"0000:03:00.0","path":"PIX","gdr_used":true,"dmabuf_mapping":"pcie"' "gb200 JSON pcie mapping"
expect_json '"rdma_device":"mlx5_1","enabled":false' "gb200 JSON relaxed"

# No C2C on an x86 host: the PCIe classes stand (dmabuf fixture: PIX).
run dmabuf --json
expect_json '"c2c":null' "x86 GPU without driver info: c2c unknown"
expect_json '"path":"PIX","gdr_used":true,"dmabuf_mapping":"default"' "x86 PIX default mapping"

# Two devices: mlx4_0 (no dma-buf) sorts first but is not paired with the
# GPU; the ConnectX is. The host passes on dma-buf.
run twodev
expect_rc 0 "twodev exit"
expect_line '^PASS +registration +system: dma-buf: ' "twodev dma-buf via the ConnectX"
expect_no_line '^FAIL' "twodev has no FAIL"
run twodev --json
expect_json '{"rdma_device":"mlx4_0","dmabuf":false,"paired_gpus":""}' "twodev JSON mlx4"
expect_json '{"rdma_device":"mlx5_0","dmabuf":null,"paired_gpus":"0000:03:00.0"}' "twodev JSON mlx5"
# With only the mlx4 in view, the GPU is paired with it: no dma-buf.
run twodev --ibdev=mlx4_0
expect_rc 1 "twodev mlx4 only exit"
expect_line '^FAIL +registration +mlx4_0: mlx4_0 takes no dma-buf registrations \(its kernel driver has none\); GPU 0000:03:00.0' "twodev mlx4 verdict"
expect_line '^FAIL +registration +system: .*no GPU-paired RDMA device takes dma-buf' "twodev mlx4 system"
finish
