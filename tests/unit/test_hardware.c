/* test_hardware.c - the arithmetic behind real-hardware facts: link rates
 * from the port's width and speed codes (XDR included), the page-aligned
 * span a dma-buf export of an unaligned buffer must cover, and what is done
 * before GPU memory the NIC wrote is read. */
#include "config.h"

#include "unit.h"

#include "mem.h"
#include "verbs.h"

static void test_link_rates(void **state)
{
    (void)state;
    /* width codes: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x */
    assert_near(gdr_port_speed_bps(2, 1), 10e9, 0);     /* 4x SDR */
    assert_near(gdr_port_speed_bps(2, 2), 20e9, 0);     /* 4x DDR */
    assert_near(gdr_port_speed_bps(2, 4), 40e9, 0);     /* 4x QDR */
    assert_near(gdr_port_speed_bps(2, 8), 40e9, 0);     /* 4x FDR10 */
    assert_near(gdr_port_speed_bps(2, 16), 56e9, 0);    /* 4x FDR */
    assert_near(gdr_port_speed_bps(2, 32), 100e9, 0);   /* 4x EDR */
    assert_near(gdr_port_speed_bps(2, 64), 200e9, 0);   /* 4x HDR */
    assert_near(gdr_port_speed_bps(2, 128), 400e9, 0);  /* 4x NDR: ConnectX-7 */
    assert_near(gdr_port_speed_bps(2, 256), 800e9, 0);  /* 4x XDR: ConnectX-8 */
    assert_near(gdr_port_speed_bps(16, 256), 400e9, 0); /* 2x XDR */
    assert_near(gdr_port_speed_bps(1, 32), 25e9, 0);    /* 1x EDR (25G Ethernet) */
    assert_near(gdr_port_speed_bps(4, 128), 800e9, 0);  /* 8x NDR */
    assert_near(gdr_port_speed_bps(8, 4), 120e9, 0);    /* 12x QDR */
    /* unknown codes read 0, never a made-up rate */
    assert_near(gdr_port_speed_bps(0, 32), 0, 0);
    assert_near(gdr_port_speed_bps(3, 32), 0, 0);
    assert_near(gdr_port_speed_bps(2, 0), 0, 0);
    assert_near(gdr_port_speed_bps(2, 512), 0, 0);
    assert_near(gdr_port_speed_bps(2, 3), 0, 0);
}

/* RDMA reads in flight: the requester's initiator depth against the
 * responder's resources (ConnectX: 16 each, rxe 128), lowered to -o and
 * to the 8-bit attribute, never 0 (a QP attribute of 0 reads nothing). */
static void test_reads_in_flight(void **state)
{
    (void)state;
    assert_int_equal(gdr_reads_in_flight(16, 16, 0), 16);      /* ConnectX both ends */
    assert_int_equal(gdr_reads_in_flight(128, 16, 0), 16);     /* rxe reads from ConnectX */
    assert_int_equal(gdr_reads_in_flight(16, 128, 0), 16);     /* and the other way */
    assert_int_equal(gdr_reads_in_flight(128, 128, 0), 128);   /* rxe both ends */
    assert_int_equal(gdr_reads_in_flight(128, 128, 4), 4);     /* -o 4 */
    assert_int_equal(gdr_reads_in_flight(16, 16, 64), 16);     /* -o above: lowered */
    assert_int_equal(gdr_reads_in_flight(1000, 1000, 0), 128); /* 255, a power of two */
    assert_int_equal(gdr_reads_in_flight(128, 128, 3), 2);     /* -o 3: rounded down */
    assert_int_equal(gdr_reads_in_flight(12, 16, 0), 8);       /* a device's odd limit */
    assert_int_equal(gdr_reads_in_flight(0, 16, 0), 1);
    assert_int_equal(gdr_reads_in_flight(16, 0, 8), 1);
}

/* The power of two at or below n: what mlx5 keeps of max_rd_atomic on
 * every kernel, whichever way it rounds. */
static void test_pow2_floor(void **state)
{
    (void)state;
    assert_int_equal(gdr_pow2_floor(0), 1);
    assert_int_equal(gdr_pow2_floor(1), 1);
    assert_int_equal(gdr_pow2_floor(2), 2);
    assert_int_equal(gdr_pow2_floor(3), 2);
    assert_int_equal(gdr_pow2_floor(4), 4);
    assert_int_equal(gdr_pow2_floor(127), 64);
    assert_int_equal(gdr_pow2_floor(128), 128);
    assert_int_equal(gdr_pow2_floor(255), 128);
    assert_int_equal(gdr_pow2_floor(0xffffffffu), 0x80000000u);
}

static void test_dmabuf_span(void **state)
{
    (void)state;
    const uint64_t page = 64 << 10;
    /* aligned start and length: the buffer itself */
    struct gdr_dmabuf_span d = gdr_dmabuf_span_of(0x7d0000000000ull, 2 * page, page);
    assert_int_equal(d.base, 0x7d0000000000ull);
    assert_int_equal(d.offset, 0);
    assert_int_equal(d.length, 2 * page);
    /* unaligned start: down to the page, the offset says where it begins */
    d = gdr_dmabuf_span_of(0x7d0000010100ull, 4096, page);
    assert_int_equal(d.base, 0x7d0000010000ull);
    assert_int_equal(d.offset, 0x100);
    assert_int_equal(d.length, page);
    /* a buffer that crosses a page boundary needs both pages */
    d = gdr_dmabuf_span_of(0x7d000001ff00ull, 0x200, page);
    assert_int_equal(d.base, 0x7d0000010000ull);
    assert_int_equal(d.offset, 0xff00);
    assert_int_equal(d.length, 2 * page);
    /* ends exactly on a page boundary: no extra page */
    d = gdr_dmabuf_span_of(0x7d0000010100ull, page - 0x100, page);
    assert_int_equal(d.length, page);
    /* the export always covers [addr, addr + len) */
    for (uint64_t addr = 0x10000; addr < 0x30000; addr += 0x1234)
        for (uint64_t len = 1; len < 3 * page; len += 0x2345) {
            d = gdr_dmabuf_span_of(addr, len, page);
            assert_int_equal(d.base % page, 0);
            assert_int_equal(d.length % page, 0);
            assert_int_equal(d.base + d.offset, addr);
            assert_true(d.offset + len <= d.length);
            assert_true(d.length - (d.offset + len) < page);
        }
}

/* What is done before --validate reads GPU memory the NIC wrote. */
static void test_writes_flush_choice(void **state)
{
    (void)state;
    struct gdr_flush_facts f = {0};
    /* x86, the device orders writes for its owner (Hopper): nothing */
    f.owner_ordered = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "not-needed");
    /* unordered: the CUDA flush, where the driver has it */
    f.owner_ordered = false;
    f.can_flush = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "flush");
    f.can_flush = false;
    assert_string_equal(gdr_writes_flush_choice(&f), "unsupported");
    /* Data Direct: the read through the NIC whatever else is true, as NCCL
     * forces the flush for a Data Direct NIC; no C2C link needed */
    f.data_direct = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "nic-read");
    f.owner_ordered = f.can_flush = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "nic-read");
    f.c2c = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "nic-read");
    /* C2C without Data Direct: the read only where the NIC's writes come
     * over PCIe (PCIe mapping, a shared switch) */
    f.data_direct = false;
    assert_string_equal(gdr_writes_flush_choice(&f), "not-needed");
    f.pcie_mapping = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "nic-read");
    f.pcie_mapping = false;
    f.nic_near = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "nic-read");
    /* a shared switch or the PCIe mapping without C2C: one path, no read */
    f.c2c = false;
    f.pcie_mapping = true;
    assert_string_equal(gdr_writes_flush_choice(&f), "not-needed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_link_rates),          gdr_unit_test(test_dmabuf_span),
        gdr_unit_test(test_reads_in_flight),     gdr_unit_test(test_pow2_floor),
        gdr_unit_test(test_writes_flush_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
