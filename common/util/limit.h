/* limit.h - the most payload a path can carry per second: the formula,
 * written once (docs/benchmarking.md shows the arithmetic).
 *
 * A message of `size` bytes costs more than `size` on every link it
 * crosses: the RDMA port adds per-packet headers (InfiniBand: LRH, GRH
 * if used, BTH, RETH/AETH, ICRC, VCRC; RoCEv2: preamble, Ethernet, IP,
 * UDP, BTH, RETH/AETH, ICRC, FCS, inter-frame gap), a PCIe link adds
 * per-TLP framing, header and LCRC after its line code. Each limit is
 * the link's data rate times size / (bytes the message takes on it).
 * What is not modelled (DLLPs, link-level flow control, work-queue and
 * completion DMA, VLAN tags) only costs bandwidth, so a limit errs high,
 * as a ceiling may. 0 means unknown: a rate is never guessed. */
#ifndef GDR_LIMIT_H
#define GDR_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

/* Which packets carry the data. */
enum gdr_wire_op {
    GDR_WIRE_WRITE, /* RDMA write: RETH on the first packet */
    GDR_WIRE_SEND,  /* send: BTH only */
    GDR_WIRE_READ,  /* read response: AETH on the first and the last */
};

/* The port's data rate in bits/s after the link's encoding, from the
 * verbs width code (1, 2, 4, 8, 16 = 1x, 4x, 8x, 12x, 2x) and speed code
 * (active_speed, or active_speed_ex: 1 SDR ... 128 NDR, 256 XDR).
 * InfiniBand: SDR/DDR/QDR lanes lose 8b/10b, FDR 64b/66b; FDR10 and EDR
 * onwards are quoted after encoding (and FEC). Ethernet: the codes stand
 * for the MAC rate the driver reported (mlx5 maps 100 GbE to 4x EDR, 200
 * GbE to 4x HDR, 400 GbE to 4x NDR), already after encoding. 0 unknown. */
double gdr_port_data_bps(bool ethernet, unsigned width_code, unsigned speed_code);

struct gdr_port_path {
    bool ethernet;   /* RoCEv2 framing, else InfiniBand */
    bool grh;        /* InfiniBand: a GRH on every packet */
    bool ipv6;       /* RoCEv2 over IPv6, else IPv4 */
    double data_bps; /* gdr_port_data_bps */
    unsigned mtu;    /* path MTU: payload bytes per packet */
};

/* Bytes one message takes on the wire; 0 when the path is not known. */
uint64_t gdr_port_wire_bytes(const struct gdr_port_path *p, enum gdr_wire_op op, uint64_t size);
/* Payload bytes/s at best through the port; 0 unknown. */
double gdr_port_limit(const struct gdr_port_path *p, enum gdr_wire_op op, uint64_t size);

/* PCIe: a link of `gts` GT/s (2.5, 5, 8, 16, 32, 64) and `width` lanes,
 * moving data in TLPs of at most `mps` bytes. Writes (the NIC placing
 * received data, or writing a GPU's BAR) are MWr TLPs with 64-bit
 * addresses (4-dword header); reads come back as completions (3-dword
 * header). Gen1/2 lose 8b/10b, Gen3-5 128b/130b; per TLP they add 8
 * bytes (STP or STP token with sequence number, LCRC, END on Gen1/2).
 * Gen6 runs in flit mode: 236 of every 256 bytes carry TLPs, which have
 * no framing or LCRC of their own. */
enum gdr_tlp { GDR_TLP_WRITE, GDR_TLP_COMPLETION };
double gdr_pcie_raw_bytes_per_s(double gts, unsigned width); /* after the line code */
uint64_t gdr_pcie_wire_bytes(double gts, unsigned mps, enum gdr_tlp kind, uint64_t size);
/* Payload bytes/s at best; 0 unknown (any input 0 or not a PCIe rate). */
double gdr_pcie_limit(double gts, unsigned width, unsigned mps, enum gdr_tlp kind, uint64_t size);

#endif
