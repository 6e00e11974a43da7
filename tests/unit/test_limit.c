/* test_limit.c - the limit formula (common/util/limit.c) against cases
 * computed by hand, the arithmetic written out as docs/benchmarking.md
 * shows it: 1 MiB RDMA writes (256 packets at MTU 4096, 1024 at 1024, one
 * RETH) over InfiniBand HDR/NDR/XDR and 100/200/400 GbE RoCEv2, and PCIe
 * Gen4 x16, Gen5 x16, Gen5 x8 at a 256-byte max payload. */
#include "config.h"

#include "unit.h"

#include "limit.h"

#define MIB 1048576.0
#define REL 1e-12 /* relative tolerance: the same arithmetic in another order */

#define assert_rel(actual, expected) assert_near((actual), (expected), fabs(expected) * REL)

static struct gdr_port_path ib(unsigned speed_code, unsigned mtu)
{
    /* 4x (width code 2) */
    return (struct gdr_port_path){.data_bps = gdr_port_data_bps(false, 2, speed_code), .mtu = mtu};
}

static struct gdr_port_path roce(double gbps, unsigned mtu)
{
    return (struct gdr_port_path){.ethernet = true, .data_bps = gbps * 1e9, .mtu = mtu};
}

static void test_port_data_rates(void **state)
{
    (void)state;
    assert_rel(gdr_port_data_bps(false, 2, 64), 200e9);  /* 4x HDR */
    assert_rel(gdr_port_data_bps(false, 2, 128), 400e9); /* 4x NDR */
    assert_rel(gdr_port_data_bps(false, 2, 256), 800e9); /* 4x XDR */
    assert_rel(gdr_port_data_bps(false, 1, 128), 100e9); /* 1x NDR */
    /* 8b/10b and FDR's 64b/66b come off the InfiniBand signalling rate */
    assert_rel(gdr_port_data_bps(false, 2, 4), 4 * 8e9);
    assert_rel(gdr_port_data_bps(false, 2, 16), 4 * 14.0625e9 * 64 / 66);
    /* Ethernet: the MAC rate the driver mapped onto the codes */
    assert_rel(gdr_port_data_bps(true, 2, 32), 100e9);
    assert_rel(gdr_port_data_bps(true, 2, 64), 200e9);
    assert_rel(gdr_port_data_bps(true, 2, 128), 400e9);
    assert_rel(gdr_port_data_bps(true, 1, 4), 10e9);
    /* unknown codes are unknown, not a guess */
    assert_true(gdr_port_data_bps(false, 3, 64) == 0);
    assert_true(gdr_port_data_bps(false, 2, 3) == 0);
}

static void test_infiniband_4096(void **state)
{
    (void)state;
    /* per packet LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26; RETH 16 once */
    double wire = MIB + 256 * 26 + 16;
    struct gdr_port_path hdr = ib(64, 4096), ndr = ib(128, 4096), xdr = ib(256, 4096);
    assert_int_equal(gdr_port_wire_bytes(&hdr, GDR_WIRE_WRITE, 1 << 20), (uint64_t)wire);
    assert_rel(gdr_port_limit(&hdr, GDR_WIRE_WRITE, 1 << 20), 25e9 * MIB / wire);
    assert_rel(gdr_port_limit(&ndr, GDR_WIRE_WRITE, 1 << 20), 50e9 * MIB / wire);
    assert_rel(gdr_port_limit(&xdr, GDR_WIRE_WRITE, 1 << 20), 100e9 * MIB / wire);
    assert_near(gdr_port_limit(&hdr, GDR_WIRE_WRITE, 1 << 20), 24.8419e9, 0.0001e9);
    /* a GRH adds 40 bytes to every packet */
    hdr.grh = true;
    assert_rel(gdr_port_limit(&hdr, GDR_WIRE_WRITE, 1 << 20), 25e9 * MIB / (wire + 256 * 40));
}

static void test_roce(void **state)
{
    (void)state;
    /* preamble+SFD 8 + Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 +
     * FCS 4 + IFG 12 = 82 per packet; RETH 16 once */
    double wire4k = MIB + 256 * 82 + 16, wire1k = MIB + 1024 * 82 + 16;
    const double rates[] = {100, 200, 400};
    for (size_t i = 0; i < 3; i++) {
        struct gdr_port_path p4 = roce(rates[i], 4096), p1 = roce(rates[i], 1024);
        assert_rel(gdr_port_limit(&p4, GDR_WIRE_WRITE, 1 << 20), rates[i] / 8 * 1e9 * MIB / wire4k);
        assert_rel(gdr_port_limit(&p1, GDR_WIRE_WRITE, 1 << 20), rates[i] / 8 * 1e9 * MIB / wire1k);
    }
    struct gdr_port_path p = roce(400, 4096);
    assert_near(gdr_port_limit(&p, GDR_WIRE_WRITE, 1 << 20), 49.0179e9, 0.0001e9);
    p.mtu = 1024;
    assert_near(gdr_port_limit(&p, GDR_WIRE_WRITE, 1 << 20), 46.2923e9, 0.0001e9);
    /* IPv6 headers are 20 bytes longer */
    p.ipv6 = true;
    assert_rel(gdr_port_limit(&p, GDR_WIRE_WRITE, 1 << 20), 50e9 * MIB / (wire1k + 1024 * 20));
}

static void test_small_and_odd_messages(void **state)
{
    (void)state;
    struct gdr_port_path p = roce(100, 4096);
    /* 2 bytes: padded to 4; a write carries its RETH */
    assert_int_equal(gdr_port_wire_bytes(&p, GDR_WIRE_WRITE, 2), 82 + 16 + 4);
    assert_int_equal(gdr_port_wire_bytes(&p, GDR_WIRE_SEND, 2), 82 + 4);
    /* a read response of one packet has one AETH; of several, two */
    assert_int_equal(gdr_port_wire_bytes(&p, GDR_WIRE_READ, 4096), 82 + 4 + 4096);
    assert_int_equal(gdr_port_wire_bytes(&p, GDR_WIRE_READ, 8192), 2 * (82 + 4 + 4096));
    /* 4097 bytes: a full packet and one of 1 byte padded to 4 */
    assert_int_equal(gdr_port_wire_bytes(&p, GDR_WIRE_SEND, 4097), 82 + 4096 + 82 + 4);
    assert_rel(gdr_port_limit(&p, GDR_WIRE_SEND, 2), 12.5e9 * 2 / 86);
    /* unknown rate or MTU: unknown */
    p.data_bps = 0;
    assert_true(gdr_port_limit(&p, GDR_WIRE_SEND, 4096) == 0);
    p.data_bps = 100e9;
    p.mtu = 0;
    assert_true(gdr_port_limit(&p, GDR_WIRE_SEND, 4096) == 0);
}

static void test_pcie(void **state)
{
    (void)state;
    /* Gen4 x16: 16 GT/s x 16 lanes x 128/130 / 8 = 31.508 GB/s; 256-byte
     * writes carry 16 header + 8 framing/LCRC bytes each: 4096 TLPs */
    double g4 = 16e9 * 16 * 128 / 130 / 8, g5 = 2 * g4;
    double wr = MIB + 4096 * 24, cpl = MIB + 4096 * 20;
    assert_rel(gdr_pcie_raw_bytes_per_s(16, 16), g4);
    assert_rel(gdr_pcie_limit(16, 16, 256, GDR_TLP_WRITE, 1 << 20), g4 * MIB / wr);
    assert_near(gdr_pcie_limit(16, 16, 256, GDR_TLP_WRITE, 1 << 20), 28.807e9, 0.001e9);
    assert_rel(gdr_pcie_limit(32, 16, 256, GDR_TLP_WRITE, 1 << 20), g5 * MIB / wr);
    assert_near(gdr_pcie_limit(32, 16, 256, GDR_TLP_WRITE, 1 << 20), 57.614e9, 0.001e9);
    assert_rel(gdr_pcie_limit(32, 8, 256, GDR_TLP_WRITE, 1 << 20), g4 * MIB / wr);
    /* completions have a 3-dword header */
    assert_rel(gdr_pcie_limit(32, 16, 256, GDR_TLP_COMPLETION, 1 << 20), g5 * MIB / cpl);
    /* a larger max payload wastes less */
    assert_rel(gdr_pcie_limit(32, 16, 512, GDR_TLP_WRITE, 1 << 20), g5 * MIB / (MIB + 2048 * 24));
    /* Gen1/2: 8b/10b; Gen6: flits, 236 TLP bytes in 256, no framing */
    assert_rel(gdr_pcie_raw_bytes_per_s(2.5, 1), 2.5e9 * 0.8 / 8);
    assert_rel(gdr_pcie_limit(64, 16, 256, GDR_TLP_WRITE, 1 << 20),
               64e9 * 16 * 236 / 256 / 8 * MIB / (MIB + 4096 * 16));
    /* unknown: a rate PCIe does not have, no width, no max payload */
    assert_true(gdr_pcie_limit(12, 16, 256, GDR_TLP_WRITE, 4096) == 0);
    assert_true(gdr_pcie_limit(16, 0, 256, GDR_TLP_WRITE, 4096) == 0);
    assert_true(gdr_pcie_limit(16, 16, 0, GDR_TLP_WRITE, 4096) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_port_data_rates),
        gdr_unit_test(test_infiniband_4096),
        gdr_unit_test(test_roce),
        gdr_unit_test(test_small_and_odd_messages),
        gdr_unit_test(test_pcie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
