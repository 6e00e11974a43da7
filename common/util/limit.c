/* limit.c - the most payload a path can carry (see limit.h). */
#include "config.h"

#include "limit.h"

#include <math.h>

static unsigned lanes_of(unsigned width_code)
{
    switch (width_code) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
    }
}

double gdr_port_data_bps(bool ethernet, unsigned width_code, unsigned speed_code)
{
    double lane; /* Gb/s per lane after encoding (IB) or nominal (Ethernet) */
    switch (speed_code) {
    case 1: lane = ethernet ? 2.5 : 2.0; break;  /* SDR: 2.5 Gbaud, 8b/10b */
    case 2: lane = ethernet ? 5.0 : 4.0; break;  /* DDR */
    case 4: lane = ethernet ? 10.0 : 8.0; break; /* QDR */
    case 8: lane = 10.0; break;                  /* FDR10: 10.3125 Gbaud, 64b/66b */
    case 16: lane = ethernet ? 14.0 : 14.0625 * 64.0 / 66.0; break; /* FDR */
    case 32: lane = 25.0; break;                                    /* EDR */
    case 64: lane = 50.0; break;                                    /* HDR */
    case 128: lane = 100.0; break;                                  /* NDR */
    case 256: lane = 200.0; break;                                  /* XDR */
    default: return 0;
    }
    return lanes_of(width_code) * lane * 1e9;
}

/* InfiniBand: LRH 8, BTH 12, ICRC 4, VCRC 2 (+ GRH 40). RoCEv2: preamble
 * and SFD 8, Ethernet header 14, IPv4 20 (IPv6 40), UDP 8, BTH 12, ICRC
 * 4, FCS 4, inter-frame gap 12. */
static unsigned packet_overhead(const struct gdr_port_path *p)
{
    if (p->ethernet)
        return 8 + 14 + (p->ipv6 ? 40 : 20) + 8 + 12 + 4 + 4 + 12;
    return 8 + 12 + 4 + 2 + (p->grh ? 40 : 0);
}

/* One packet with `payload` bytes of the message. */
static uint64_t packet_bytes(const struct gdr_port_path *p, enum gdr_wire_op op, uint64_t payload,
                             bool first, bool last)
{
    uint64_t ext = 0;
    if (op == GDR_WIRE_WRITE && first)
        ext = 16; /* RETH */
    if (op == GDR_WIRE_READ && (first || last))
        ext = 4; /* AETH */
    /* The BTH's pad count rounds the payload up to 4 bytes. RoCEv2's
     * headers alone fill Ethernet's 64-byte minimum frame: no padding. */
    return packet_overhead(p) + ext + ((payload + 3) & ~3ull);
}

uint64_t gdr_port_wire_bytes(const struct gdr_port_path *p, enum gdr_wire_op op, uint64_t size)
{
    if (!p->mtu || p->data_bps <= 0 || !size)
        return 0;
    uint64_t packets = (size + p->mtu - 1) / p->mtu;
    uint64_t last = size - (packets - 1) * p->mtu;
    if (packets == 1)
        return packet_bytes(p, op, size, true, true);
    /* The middle packets are all alike. */
    return packet_bytes(p, op, p->mtu, true, false) +
           (packets - 2) * packet_bytes(p, op, p->mtu, false, false) +
           packet_bytes(p, op, last, false, true);
}

double gdr_port_limit(const struct gdr_port_path *p, enum gdr_wire_op op, uint64_t size)
{
    uint64_t wire = gdr_port_wire_bytes(p, op, size);
    return wire ? p->data_bps / 8.0 * (double)size / (double)wire : 0;
}

double gdr_pcie_raw_bytes_per_s(double gts, unsigned width)
{
    double code;
    if (fabs(gts - 2.5) < 0.01 || fabs(gts - 5.0) < 0.01)
        code = 8.0 / 10.0;
    else if (fabs(gts - 8.0) < 0.01 || fabs(gts - 16.0) < 0.01 || fabs(gts - 32.0) < 0.01)
        code = 128.0 / 130.0;
    else if (fabs(gts - 64.0) < 0.01)
        code = 236.0 / 256.0; /* flit mode: TLP bytes per flit */
    else
        return 0;
    if (!width || width > 32)
        return 0;
    return gts * 1e9 * width * code / 8.0;
}

uint64_t gdr_pcie_wire_bytes(double gts, unsigned mps, enum gdr_tlp kind, uint64_t size)
{
    if (!mps || !size || gdr_pcie_raw_bytes_per_s(gts, 1) <= 0)
        return 0;
    unsigned header = kind == GDR_TLP_WRITE ? 16 : 12;
    unsigned framing = gts > 32.5 ? 0 : 8;
    uint64_t tlps = (size + mps - 1) / mps;
    return size + tlps * (header + framing);
}

double gdr_pcie_limit(double gts, unsigned width, unsigned mps, enum gdr_tlp kind, uint64_t size)
{
    double raw = gdr_pcie_raw_bytes_per_s(gts, width);
    uint64_t wire = gdr_pcie_wire_bytes(gts, mps, kind, size);
    return raw > 0 && wire ? raw * (double)size / (double)wire : 0;
}
