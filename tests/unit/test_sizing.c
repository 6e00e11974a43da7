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
    assert_int_equal(gdr_slot_count(1000, 8, 1), 8);   /* 1 B: all wanted fit */
    assert_int_equal(gdr_slot_count(1000, 8, 125), 8); /* exactly 8 fit */
    assert_int_equal(gdr_slot_count(1000, 8, 126), 7); /* one byte more: 7 */
    assert_int_equal(gdr_slot_count(100, 8, 1000), 1); /* none fits: still 1 */
    assert_int_equal(gdr_slot_count(100, 0, 10), 1);
    assert_int_equal(gdr_slot_count(100, 8, 0), 8); /* no division by zero */
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
    assert_int_equal(gdr_share_of(5, 0, 0), 0); /* no QP: nothing, no division */
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
    assert_int_equal(gdr_units_per_msg(100, 0), 1); /* no slot size: one unit */

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
    x = gdr_unit_at(100, slot, 0, 5); /* 0 buffer slots: as 1 */
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
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 1), 256); /* two pipelines */
    assert_int_equal(gdr_warmup_iters(&cfg, &lat, 1), 100);
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 1u << 20), 16); /* 16 MiB of traffic */
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 16u << 20), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &write, GDR_SIZE_MAX), 0); /* none at 1 GiB... */
    assert_int_equal(gdr_warmup_iters(&cfg, &send, GDR_SIZE_MAX), 0);
    cfg.time_per_size = 1; /* ...unless calibrating */
    assert_int_equal(gdr_warmup_iters(&cfg, &write, GDR_SIZE_MAX), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &send, GDR_SIZE_MAX), 1); /* timed from go */
    cfg = config();
    cfg.warmup_auto = false;
    cfg.warmup = 1;
    assert_int_equal(gdr_warmup_iters(&cfg, &write, 64), 1);
    assert_int_equal(gdr_warmup_iters(&cfg, &send, 64), 1);
    struct gdr_roles two = send; /* a phase of at least two messages: the floor */
    two.min_iters = 2;
    assert_int_equal(gdr_warmup_iters(&cfg, &two, 64), 2);
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
    assert_int_equal(gdr_calibrated_iters(1, 2000000000, 1.0, 2), 2);        /* slower: the floor */
    assert_int_equal(gdr_calibrated_iters(1, 1, 86400.0, 1), GDR_MAX_ITERS); /* the cap */
    assert_int_equal(gdr_calibrated_iters(0, 0, 1.0, 1), GDR_MAX_ITERS);     /* no probe */
    assert_int_equal(gdr_calibrated_iters(10, 0, 1.0, 1), GDR_MAX_ITERS);    /* probe took 0 ns */
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
    /* A staged peer's groups ahead: tx_depth + a slot's spare, plus one. */
    assert_int_equal(gdr_recv_depth(&send, 1, 8), 10);
    assert_int_equal(gdr_recv_depth(&write, 128, 8), 137);
    assert_int_equal(gdr_recv_depth(&write, 1, GDR_STAGE_SLOTS_MAX), GDR_STAGE_SLOTS_MAX + 2);
    assert_int_equal(gdr_recv_depth(&send, GDR_MAX_DEPTH, 1), 4 * GDR_MAX_DEPTH);
}

static void test_send_depth(void **state)
{
    (void)state;
    /* Items per QP, plus a credit per slot each way (bidirectional). */
    assert_int_equal(gdr_send_depth(128, 8), 144);
    assert_int_equal(gdr_send_depth(1, 8), 17);
    assert_int_equal(gdr_send_depth(GDR_MAX_DEPTH, GDR_STAGE_SLOTS_MAX),
                     GDR_MAX_DEPTH + 2 * GDR_STAGE_SLOTS_MAX);
}

/* The ring holds the direct path's window: several messages a slot when
 * they fit, a slot per unit when cut; between the floor and the cap. */
static void test_ring_slots(void **state)
{
    (void)state;
    uint64_t mib = 1u << 20;
    assert_int_equal(gdr_ring_slots(4096, mib, 128), GDR_RING_MIN_SLOTS);      /* 1 slot would do */
    assert_int_equal(gdr_ring_slots(65536, mib, 128), 8);                      /* 16 a slot */
    assert_int_equal(gdr_ring_slots(65536, mib, 512), 32);                     /* -q 4 */
    assert_int_equal(gdr_ring_slots(mib / 2, mib, 128), 64);                   /* 2 a slot */
    assert_int_equal(gdr_ring_slots(mib, mib, 128), GDR_RING_CAP_BYTES / mib); /* capped */
    assert_int_equal(gdr_ring_slots(4 * mib, mib, 1), 8); /* latency: 4 units */
    assert_int_equal(gdr_ring_slots(32 * mib, mib, 1), 32);
    assert_int_equal(gdr_ring_slots(1, 4096, 8192 * 64), 128); /* 4096 a slot */
    assert_int_equal(gdr_ring_slots(GDR_SIZE_MAX, 4096, 8192 * 64), GDR_STAGE_SLOTS_MAX);
    /* A slot larger than the cap: two of them, not none. */
    assert_int_equal(gdr_ring_slots(mib, 256 * mib, 128), 2);
    assert_int_equal(gdr_ring_slots(mib, 0, 128), GDR_RING_MIN_SLOTS); /* no division */
}

static void test_stage_plan(void **state)
{
    (void)state;
    uint64_t mib = 1u << 20;
    struct gdr_stage_plan p;
    /* 4 KiB, 128 in flight over 8 slots: 16 messages a slot, window 128. */
    gdr_stage_plan(&p, 4096, mib, 8, 128);
    assert_int_equal(p.per_group, 16);
    assert_int_equal(p.items_per_msg, 1);
    assert_int_equal(p.window, 128);
    assert_false(gdr_stage_window_limited(&p));
    /* 100 in flight over 8 slots: 13 a slot, the window still 100. */
    gdr_stage_plan(&p, 4096, mib, 8, 100);
    assert_int_equal(p.per_group, 13);
    assert_int_equal(p.window, 100);
    /* Fewer fit than the spread wants: the ring limits the window. */
    gdr_stage_plan(&p, mib / 2, mib, 8, 128);
    assert_int_equal(p.per_group, 2);
    assert_int_equal(p.window, 16);
    assert_true(gdr_stage_window_limited(&p));
    /* Exactly a slot: one a slot. */
    gdr_stage_plan(&p, mib, mib, 64, 128);
    assert_int_equal(p.per_group, 1);
    assert_int_equal(p.window, 64);
    /* One byte more: cut into two units, a slot each. */
    gdr_stage_plan(&p, mib + 1, mib, 64, 128);
    assert_int_equal(p.items_per_msg, 2);
    assert_int_equal(p.per_group, 1);
    assert_int_equal(p.item_bytes, mib);
    assert_int_equal(p.direct_window, 256);
    assert_int_equal(p.window, 64);
    /* Latency: one in flight, a whole message. */
    gdr_stage_plan(&p, 8, mib, 8, 1);
    assert_int_equal(p.per_group, 1);
    assert_int_equal(p.window, 1);
    /* No slots, no size: no division by zero. */
    gdr_stage_plan(&p, 0, mib, 0, 0);
    assert_int_equal(p.slots, 1);
    assert_int_equal(p.per_group, 1);
}

static void test_stage_credit_batch(void **state)
{
    (void)state;
    uint64_t mib = 1u << 20;
    struct gdr_stage_plan p;
    /* 4 KiB, 128 in flight, 64 slots of 2 messages: 64 groups, credit 16. */
    gdr_stage_plan(&p, 4096, mib, 64, 128);
    assert_int_equal(gdr_stage_credit_batch(&p), 16);
    /* The window, not the ring, bounds the groups: 128 / 16 = 8 groups. */
    gdr_stage_plan(&p, 4096, mib, 8, 128);
    assert_int_equal(gdr_stage_credit_batch(&p), 2);
    /* -t 1 (or latency): one group in flight, every group credited. */
    gdr_stage_plan(&p, 4096, mib, 8, 1);
    assert_int_equal(gdr_stage_credit_batch(&p), 1);
    /* Cut messages: a group per slot, the ring bounds it: 64 / 4. */
    gdr_stage_plan(&p, mib + 1, mib, 64, 128);
    assert_int_equal(gdr_stage_credit_batch(&p), 16);
    /* Three groups in flight: never more than the source can send. */
    gdr_stage_plan(&p, mib, mib, 3, 128);
    assert_int_equal(gdr_stage_credit_batch(&p), 1);
}

static void test_stage_items(void **state)
{
    (void)state;
    uint64_t mib = 1u << 20;
    struct gdr_stage_plan p;
    /* 4 KiB messages, 16 a slot, 8 slots; the buffer rotates through 128. */
    gdr_stage_plan(&p, 4096, mib, 8, 128);
    struct gdr_stage_item x = gdr_stage_item(&p, 128, 17);
    assert_int_equal(x.off, 17 * 4096);
    assert_int_equal(x.len, 4096);
    assert_int_equal(x.group, 1);
    assert_int_equal(x.slot, 1);
    assert_int_equal(x.ring_off, 4096);
    x = gdr_stage_item(&p, 128, 128 + 16 * 8 + 3); /* group 16: slot 0 again */
    assert_int_equal(x.group, 16);
    assert_int_equal(x.slot, 0);
    assert_int_equal(x.ring_off, 3 * 4096);
    assert_int_equal(x.off, 3 * 4096); /* buffer slot 256 % 128 + 3 */
    /* A run of 20 messages: 2 groups, the second of 4. */
    assert_int_equal(gdr_stage_items(&p, 20), 20);
    assert_int_equal(gdr_stage_groups(&p, 20), 2);
    assert_int_equal(gdr_stage_group_start(&p, 20, 1), 16);
    assert_int_equal(gdr_stage_group_start(&p, 20, 2), 20);
    assert_int_equal(gdr_stage_group_start(&p, 20, 99), 20);
    assert_int_equal(gdr_stage_bytes_before(&p, 20), 20 * 4096);
    assert_int_equal(gdr_stage_msgs_before(&p, 20), 20);
    /* 1.5 slots a message: units of a slot then half; messages count from
     * their first unit. */
    gdr_stage_plan(&p, mib + mib / 2, mib, 8, 128);
    x = gdr_stage_item(&p, 4, 3); /* message 1, its tail */
    assert_int_equal(x.off, mib + mib / 2 + mib);
    assert_int_equal(x.len, mib / 2);
    assert_int_equal(x.slot, 3);
    assert_int_equal(x.ring_off, 0);
    assert_int_equal(gdr_stage_items(&p, 5), 10);
    assert_int_equal(gdr_stage_groups(&p, 5), 10);
    assert_int_equal(gdr_stage_bytes_before(&p, 3), mib + mib / 2 + mib);
    assert_int_equal(gdr_stage_msgs_before(&p, 3), 2);
    assert_int_equal(gdr_stage_msgs_before(&p, 4), 2);
    /* The largest run cannot overflow its byte count. */
    gdr_stage_plan(&p, GDR_SIZE_MAX, 4096, 2, 1);
    assert_int_equal(gdr_stage_bytes_before(&p, gdr_stage_items(&p, GDR_MAX_ITERS)),
                     GDR_MAX_ITERS * GDR_SIZE_MAX);
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
        gdr_unit_test(test_ring_slots),
        gdr_unit_test(test_stage_plan),
        gdr_unit_test(test_stage_credit_batch),
        gdr_unit_test(test_stage_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
