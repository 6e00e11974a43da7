/* test_sizing.c - the arithmetic of a run at its edges: 1 B, slot
 * boundaries, the largest sizes and counts, and values that would
 * overflow or divide by zero. */
#include "config.h"

#include "unit.h"

#include "sizing.h"

static struct gdr_roles roles_of(enum gdr_verb verb, enum gdr_metric metric)
{
    struct gdr_role_input in = {.verb = verb, .metric = metric};
    struct gdr_roles r;
    const char *why;
    assert_int_equal(gdr_roles_for(&in, &r, &why), 0);
    return r;
}

static void test_slots(void **state)
{
    (void)state;
    struct gdr_roles bw = roles_of(GDR_VERB_WRITE, GDR_METRIC_BW);
    struct gdr_roles lat = roles_of(GDR_VERB_READ, GDR_METRIC_LAT);
    assert_int_equal(gdr_slots_wanted(&bw, 128, 4), 512);
    assert_int_equal(gdr_slots_wanted(&lat, 128, 4), 1);
    assert_int_equal(gdr_slot_count(1000, 8, 1), 8);        /* 1 B: all wanted fit */
    assert_int_equal(gdr_slot_count(1000, 8, 125), 8);      /* exactly 8 fit */
    assert_int_equal(gdr_slot_count(1000, 8, 126), 7);      /* one byte more: 7 */
    assert_int_equal(gdr_slot_count(100, 8, 1000), 1);      /* none fits: still 1 */
    assert_int_equal(gdr_slot_count(100, 0, 10), 1);
    assert_int_equal(gdr_slot_count(100, 8, 0), 8);         /* no division by zero */
    assert_int_equal(gdr_slot_count(UINT64_MAX, UINT64_MAX, 1), UINT64_MAX);
}

static void test_buffer_bytes(void **state)
{
    (void)state;
    struct gdr_roles bw = roles_of(GDR_VERB_WRITE, GDR_METRIC_BW);
    struct gdr_roles lat = roles_of(GDR_VERB_READ, GDR_METRIC_LAT);
    assert_int_equal(gdr_buffer_bytes(&bw, 1, 128, 1), 128);
    assert_int_equal(gdr_buffer_bytes(&bw, 65536, 128, 1), 128 * 65536);
    /* 64 MiB caps the slots: 1 MiB messages x 8192 x 64 QPs get 64. */
    assert_int_equal(gdr_buffer_bytes(&bw, 1u << 20, 8192, 64), GDR_BUFFER_TARGET);
    assert_int_equal(gdr_buffer_bytes(&bw, (64u << 20) + 1, 128, 1), (64u << 20) + 1);
    assert_int_equal(gdr_buffer_bytes(&bw, GDR_SIZE_MAX, 8192, 64), GDR_SIZE_MAX);
    assert_int_equal(gdr_buffer_bytes(&lat, GDR_SIZE_MAX, 1, 1), GDR_SIZE_MAX);
    assert_int_equal(gdr_buffer_bytes(&lat, 2, 1, 1), 2);
}

static void test_share_of(void **state)
{
    (void)state;
    uint64_t sum = 0;
    for (unsigned q = 0; q < 3; q++)
        sum += gdr_share_of(10, 3, q);
    assert_int_equal(sum, 10);
    assert_int_equal(gdr_share_of(10, 3, 0), 4);
    assert_int_equal(gdr_share_of(10, 3, 2), 3);
    assert_int_equal(gdr_share_of(1, 64, 0), 1);
    assert_int_equal(gdr_share_of(1, 64, 1), 0);
    assert_int_equal(gdr_share_of(GDR_MAX_ITERS, 1, 0), GDR_MAX_ITERS);
    assert_int_equal(gdr_share_of(UINT64_MAX, 64, 63), UINT64_MAX / 64);
    assert_int_equal(gdr_share_of(5, 0, 0), 0);     /* no QP: nothing, no division */
}

static void test_units(void **state)
{
    (void)state;
    uint64_t slot = 1u << 20;
    assert_int_equal(gdr_units_per_msg(1, slot), 1);
    assert_int_equal(gdr_units_per_msg(slot - 1, slot), 1);
    assert_int_equal(gdr_units_per_msg(slot, slot), 1);
    assert_int_equal(gdr_units_per_msg(slot + 1, slot), 2);
    assert_int_equal(gdr_units_per_msg(GDR_SIZE_MAX, 4096), GDR_SIZE_MAX / 4096);
    assert_int_equal(gdr_units_per_msg(0, slot), 0);
    assert_int_equal(gdr_units_per_msg(100, 0), 1);         /* no slot size: one unit */

    /* One byte past a slot: a full unit, then a 1-byte tail. */
    struct gdr_unit x = gdr_unit_at(slot + 1, slot, 4, 0);
    assert_int_equal(x.off, 0);
    assert_int_equal(x.len, slot);
    x = gdr_unit_at(slot + 1, slot, 4, 1);
    assert_int_equal(x.off, slot);
    assert_int_equal(x.len, 1);
    /* Unit 2 starts message 1, in buffer slot 1. */
    x = gdr_unit_at(slot + 1, slot, 4, 2);
    assert_int_equal(x.off, slot + 1);
    assert_int_equal(x.len, slot);
    /* Message 4 wraps to buffer slot 0. */
    x = gdr_unit_at(slot + 1, slot, 4, 8);
    assert_int_equal(x.off, 0);
    /* 1 B messages: one unit each, slot by slot. */
    x = gdr_unit_at(1, slot, 128, 130);
    assert_int_equal(x.off, 2);
    assert_int_equal(x.len, 1);
    /* The largest message: its last unit ends at the end of the buffer. */
    x = gdr_unit_at(GDR_SIZE_MAX, 256u << 20, 1, 3);
    assert_int_equal(x.off + x.len, GDR_SIZE_MAX);
    /* The largest run's unit count cannot overflow. */
    assert_true(GDR_MAX_ITERS * gdr_units_per_msg(GDR_SIZE_MAX, 4096) / GDR_MAX_ITERS ==
                gdr_units_per_msg(GDR_SIZE_MAX, 4096));
    x = gdr_unit_at(100, slot, 0, 5);                       /* 0 buffer slots: as 1 */
    assert_int_equal(x.off, 0);
}

static struct gdr_config config(void)
{
    struct gdr_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.warmup_auto = true;
    cfg.tx_depth = 128;
    cfg.num_qps = 1;
    return cfg;
}

static void test_warmup_iters(void **state)
{
    (void)state;
    struct gdr_roles write = roles_of(GDR_VERB_WRITE, GDR_METRIC_BW);
    struct gdr_roles send = roles_of(GDR_VERB_SEND, GDR_METRIC_BW);
    struct gdr_roles lat = roles_of(GDR_VERB_READ, GDR_METRIC_LAT);
    struct gdr_config cfg = config();
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 1), 256);          /* two pipelines */
    assert_int_equal(gdr_warmup_iters(&cfg, &lat, 1), 100);
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 1u << 20), 16);    /* 16 MiB of traffic */
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 16u << 20), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &write, GDR_SIZE_MAX), 0);  /* none at 1 GiB... */
    assert_int_equal(gdr_warmup_iters(&cfg, &send, GDR_SIZE_MAX), 0);
    cfg.time_per_size = 1;                                              /* ...unless calibrating */
    assert_int_equal(gdr_warmup_iters(&cfg, &write, GDR_SIZE_MAX), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &send, GDR_SIZE_MAX), 2);   /* two arrivals */
    cfg = config();
    cfg.warmup_auto = false;
    cfg.warmup = 1;
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 64), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &send, 64), 2);
    cfg.warmup = 0;
    assert_int_equal(gdr_warmup_iters(&cfg, &send, 64), 0);
    cfg.warmup = GDR_MAX_ITERS;
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 64), GDR_MAX_ITERS);
}

static void test_calibrated_iters(void **state)
{
    (void)state;
    /* 1000 iterations in 1 ms: 1 s takes a million. */
    assert_int_equal(gdr_calibrated_iters(1000, 1000000, 1.0, 1), 1000000);
    assert_int_equal(gdr_calibrated_iters(1, 2000000000, 1.0, 2), 2);    /* slower: the floor */
    assert_int_equal(gdr_calibrated_iters(1, 1, 86400.0, 1), GDR_MAX_ITERS);   /* the cap */
    assert_int_equal(gdr_calibrated_iters(0, 0, 1.0, 1), GDR_MAX_ITERS);  /* no probe */
    assert_int_equal(gdr_calibrated_iters(10, 0, 1.0, 1), GDR_MAX_ITERS); /* probe took 0 ns */
    assert_int_equal(gdr_calibrated_iters(UINT64_MAX, UINT64_MAX, 1e-9, 1), 1);
}

static void test_expected_seconds(void **state)
{
    (void)state;
    assert_near(gdr_expected_seconds(100, 1000000, 1000, 64, 0), 0.01, 1e-12);
    assert_near(gdr_expected_seconds(0, 0, 1000, 1000, 1e6), 1.0, 1e-12);
    assert_near(gdr_expected_seconds(0, 0, 1000, 1000, 0), 0, 0);
    assert_near(gdr_expected_seconds(1, UINT64_MAX, GDR_MAX_ITERS, 1, 0), GDR_MAX_SECONDS / 2, 0);
}

static void test_recv_depth(void **state)
{
    (void)state;
    struct gdr_roles send = roles_of(GDR_VERB_SEND, GDR_METRIC_BW);
    struct gdr_roles write = roles_of(GDR_VERB_WRITE, GDR_METRIC_BW);
    assert_int_equal(gdr_recv_depth(&send, 128, 8), 512);
    assert_int_equal(gdr_recv_depth(&send, 1, 8), 9);       /* a staged peer's slots */
    assert_int_equal(gdr_recv_depth(&write, 128, 8), 9);
    assert_int_equal(gdr_recv_depth(&write, 128, GDR_STAGE_SLOTS_MAX), GDR_STAGE_SLOTS_MAX + 1);
    assert_int_equal(gdr_recv_depth(&send, GDR_MAX_DEPTH, 1), 4 * GDR_MAX_DEPTH);
}

static void test_send_depth(void **state)
{
    (void)state;
    assert_int_equal(gdr_send_depth(128, 8), 128);
    assert_int_equal(gdr_send_depth(1, 8), 16);         /* latency: staging's own */
    assert_int_equal(gdr_send_depth(16, 8), 16);
    assert_int_equal(gdr_send_depth(GDR_MAX_DEPTH, GDR_STAGE_SLOTS_MAX), GDR_MAX_DEPTH);
    assert_int_equal(gdr_send_depth(1, GDR_STAGE_SLOTS_MAX), 2 * GDR_STAGE_SLOTS_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_slots),
        gdr_unit_test(test_buffer_bytes),
        gdr_unit_test(test_share_of),
        gdr_unit_test(test_units),
        gdr_unit_test(test_warmup_iters),
        gdr_unit_test(test_calibrated_iters),
        gdr_unit_test(test_expected_seconds),
        gdr_unit_test(test_recv_depth),
        gdr_unit_test(test_send_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
