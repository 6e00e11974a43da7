/* test_counters.c - an RDMA port's counters (common/topo/counters.c) on
 * a sysfs tree written here: deltas and their classes, clean or not, and
 * counters that vanish mid-run, wrap around, are reset or saturated; the
 * hw_counters lifespan, and (under tests/slowsysfs's cache of hw_counters,
 * tests/slowsysfs/kernel-cache.test) a row shorter than it. */
#include "config.h"

#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"

static char root[64];

static void put(const char *dir, const char *name, unsigned long long v)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/%s", root, dir);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);
    snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%llu\n", v);
    fclose(f);
}

static void drop(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/%s/%s", root, dir, name);
    assert_int_equal(unlink(path), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "/tmp/gdr-counters.XXXXXX");
    assert_non_null(mkdtemp(root));
    return unit_clear_error(state);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd);
}

static struct gdr_counter_snap before, after;
static struct gdr_counter_deltas d;

static uint64_t delta_of(const char *name)
{
    for (size_t i = 0; i < d.n; i++)
        if (strcmp(d.d[i].name, name) == 0)
            return d.d[i].delta;
    return 0;
}

/* Why a counter is among the lost ones ("" when it is not). */
static const char *lost_why(const char *name)
{
    for (size_t i = 0; i < d.nlost && i < GDR_COUNTERS_LOST_MAX; i++)
        if (strcmp(d.lost[i].name, name) == 0)
            return d.lost[i].why;
    return "";
}

static void snap_delta(void (*change)(void))
{
    assert_int_equal(gdr_counters_read(root, "mlx5_0", 1, &before), 0);
    change();
    assert_int_equal(gdr_counters_read(root, "mlx5_0", 1, &after), 0);
    gdr_counters_delta(&before, &after, &d);
}

static void base_tree(void)
{
    put("counters", "port_xmit_data", 1000);
    put("counters", "port_rcv_errors", 0);
    put("counters", "link_downed", 2);
    put("counters", "port_xmit_wait", 5);
    put("hw_counters", "out_of_sequence", 0);
    put("hw_counters", "np_cnp_sent", 0);
    put("hw_counters", "link_downed", 0); /* rxe has its own */
}

static void traffic_and_congestion(void)
{
    put("counters", "port_xmit_data", 5000);
    put("counters", "port_xmit_wait", 9);
    put("hw_counters", "np_cnp_sent", 3);
}

static void test_clean_run(void **state)
{
    (void)state;
    base_tree();
    snap_delta(traffic_and_congestion);
    assert_true(before.ok && d.available);
    assert_int_equal(before.n, 7);
    assert_true(d.clean); /* traffic and congestion do not make it unclean */
    assert_int_equal(d.n, 3);
    assert_int_equal(delta_of("port_xmit_data"), 4000);
    assert_int_equal(delta_of("np_cnp_sent"), 3);
    assert_int_equal(delta_of("port_xmit_wait"), 4);
    assert_int_equal(d.nlost, 0);
}

static void retransmits(void)
{
    put("hw_counters", "out_of_sequence", 7);
    put("hw_counters", "link_downed", 1);
}

static void test_retransmissions_and_errors(void **state)
{
    (void)state;
    base_tree();
    snap_delta(retransmits);
    assert_false(d.clean);
    assert_int_equal(delta_of("out_of_sequence"), 7);
    /* the same name in both directories: the provider's is prefixed */
    assert_int_equal(delta_of("hw_counters/link_downed"), 1);
    assert_int_equal(delta_of("link_downed"), 0);
    assert_int_equal(gdr_counter_class_of("out_of_sequence"), GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("completer_retry_err"), GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("duplicate_request"), GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("local_ack_timeout_err"), GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("port_rcv_errors"), GDR_COUNTER_ERROR);
    assert_int_equal(gdr_counter_class_of("rp_cnp_handled"), GDR_COUNTER_CONGESTION);
    assert_int_equal(gdr_counter_class_of("np_ecn_marked_roce_packets"), GDR_COUNTER_CONGESTION);
    assert_int_equal(gdr_counter_class_of("rcvd_pkts"), GDR_COUNTER_TRAFFIC);
    assert_int_equal(gdr_counter_class_of("ack_deferred"), GDR_COUNTER_TRAFFIC);
    assert_int_equal(gdr_counter_class_of("send_err"), GDR_COUNTER_ERROR);
    /* mlx5: a QP gave up retransmitting */
    assert_int_equal(gdr_counter_class_of("req_transport_retries_exceeded"),
                     GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("req_rnr_retries_exceeded"), GDR_COUNTER_RETRANSMIT);
    assert_int_equal(gdr_counter_class_of("roce_adp_retrans"), GDR_COUNTER_RETRANSMIT);
}

static void vanish(void)
{
    drop("hw_counters", "out_of_sequence");
    drop("counters", "port_xmit_data");
}

static void test_vanished_mid_run(void **state)
{
    (void)state;
    base_tree();
    snap_delta(vanish);
    /* a retransmission counter gone: it could have moved unseen */
    assert_false(d.clean);
    assert_int_equal(d.nlost, 2);
    assert_string_equal(d.lost[0].why, "vanished");
}

static void vanish_traffic(void)
{
    drop("counters", "port_xmit_data");
}

static void test_vanished_traffic_counter(void **state)
{
    (void)state;
    base_tree();
    snap_delta(vanish_traffic);
    assert_true(d.clean);
    assert_int_equal(d.nlost, 1);
    assert_string_equal(d.lost[0].name, "port_xmit_data");
}

static void wrap(void)
{
    put("counters", "port_xmit_data", 100);
    put("counters", "port_rcv_errors", 0);
}

static void test_wrap_and_reset(void **state)
{
    (void)state;
    base_tree();
    put("counters", "port_xmit_data", 0xfffffff0ull); /* a 32-bit counter near its top */
    put("counters", "port_rcv_errors", 1ull << 40);   /* a 64-bit one, then reset */
    snap_delta(wrap);
    assert_int_equal(delta_of("port_xmit_data"), 0x10 + 100);
    assert_int_equal(d.nlost, 1);
    assert_string_equal(d.lost[0].name, "port_rcv_errors");
    assert_string_equal(d.lost[0].why, "reset");
    assert_false(d.clean);
}

static void nothing(void) {}

static void test_saturated_error_counter(void **state)
{
    (void)state;
    base_tree();
    put("counters", "port_rcv_errors", 0xffff); /* the PMA's 16-bit counter at its top */
    snap_delta(nothing);
    assert_false(d.clean);
    assert_string_equal(d.lost[0].why, "saturated");
}

/* The PMA's narrow error counters stop at their top too: link_downed at
 * 255 (8 bits), local_link_integrity_errors at 15 (4 bits); rxe's own
 * link_downed (hw_counters/) is no PMA counter. */
static void test_saturated_narrow_counters(void **state)
{
    (void)state;
    base_tree();
    put("counters", "link_downed", 255);
    put("counters", "local_link_integrity_errors", 15);
    put("hw_counters", "link_downed", 255);
    snap_delta(nothing);
    assert_false(d.clean);
    assert_int_equal(d.nlost, 2);
    assert_string_equal(lost_why("link_downed"), "saturated");
    assert_string_equal(lost_why("local_link_integrity_errors"), "saturated");
}

static void pma_reset(void)
{
    put("counters", "symbol_error", 3);
}

/* A PMA error counter that went down was reset (perfquery -R), not a
 * 32-bit wrap of four billion errors. */
static void test_pma_counter_reset(void **state)
{
    (void)state;
    base_tree();
    put("counters", "symbol_error", 40);
    snap_delta(pma_reset);
    assert_int_equal(delta_of("symbol_error"), 0);
    assert_int_equal(d.nlost, 1);
    assert_string_equal(d.lost[0].name, "symbol_error");
    assert_string_equal(d.lost[0].why, "reset");
    assert_false(d.clean);
}

static void test_no_counters(void **state)
{
    (void)state;
    assert_int_equal(gdr_counters_read(root, "mlx5_9", 1, &before), 0);
    assert_false(before.ok);
    base_tree();
    assert_int_equal(gdr_counters_read(root, "mlx5_0", 1, &after), 0);
    gdr_counters_delta(&before, &after, &d);
    assert_false(d.available);
    assert_false(d.clean);
}

static void test_lifespan_is_not_a_counter(void **state)
{
    (void)state;
    assert_int_equal(gdr_counters_lifespan_ms(root, "mlx5_0", 1), -1); /* no hw_counters */
    put("counters", "port_xmit_data", 1);
    put("hw_counters", "out_of_sequence", 0);
    assert_int_equal(gdr_counters_lifespan_ms(root, "mlx5_0", 1), 10); /* kernel's default */
    put("hw_counters", "lifespan", 12);
    assert_int_equal(gdr_counters_lifespan_ms(root, "mlx5_0", 1), 12);
    assert_int_equal(gdr_counters_read(root, "mlx5_0", 1, &before), 0);
    assert_int_equal(before.n, 2);
    for (size_t i = 0; i < before.n; i++)
        assert_null(strstr(before.c[i].name, "lifespan"));
}

static void test_settle_time(void **state)
{
    (void)state;
    const uint64_t ms = 1000000;
    assert_int_equal(gdr_counters_settle_ns(-1), 0);       /* nothing cached */
    assert_int_equal(gdr_counters_settle_ns(10), 20 * ms); /* HZ=100: a tick is 10 ms */
    assert_int_equal(gdr_counters_settle_ns(12), 22 * ms); /* HZ=250, 3 ticks */
    assert_int_equal(gdr_counters_settle_ns(4), 8 * ms);   /* a tick is at most the lifespan */
    assert_int_equal(gdr_counters_settle_ns(0), 10 * ms);  /* still one tick */
    assert_int_equal(gdr_counters_settle_ns(100), 110 * ms);
}

/* The kernel's cache is emulated only under the double. */
static bool kernel_cache(void)
{
    const char *on = getenv("GDR_SLOW_COUNTERS_CACHE");
    return on && strcmp(on, "1") == 0;
}

/* Retransmissions during a loop: written at once (put() starts a shell,
 * longer than a short row). */
static void loop_retransmits(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence",
             root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "7\n");
    fclose(f);
}

/* The double is strict: within the lifespan a read returns the values of
 * the last refresh, so back-to-back snapshots (the old way) see nothing. */
static void test_cache_hides_a_short_row(void **state)
{
    (void)state;
    if (!kernel_cache())
        skip();
    base_tree();
    put("hw_counters", "lifespan", 1000); /* long: a slow machine cannot outlast it */
    snap_delta(loop_retransmits);
    assert_true(d.available);
    assert_true(d.clean);
    assert_int_equal(delta_of("out_of_sequence"), 0);
}

/* A row shorter than the lifespan with retransmissions in it: the watch
 * waits for a refresh and sees them. */
static void test_short_row_is_not_clean(void **state)
{
    (void)state;
    if (!kernel_cache())
        skip();
    base_tree();
    put("hw_counters", "lifespan", 12); /* rxe's, at HZ=250 */
    struct gdr_counter_watch w;
    gdr_counters_watch_init(&w, root, "mlx5_0", 1);
    assert_int_equal(w.lifespan_ms, 12);
    gdr_counters_watch_begin(&w);
    loop_retransmits();
    gdr_counters_watch_end(&w, 0, &d);
    assert_true(d.available);
    assert_false(d.clean);
    assert_int_equal(delta_of("out_of_sequence"), 7);
    assert_true(d.lifespan_s > 0.0119 && d.lifespan_s < 0.0121);
    assert_true(d.between_s > 0.0219 && d.after_loop_s > 0.0219);
    assert_true(d.waited_s < 0.0221);
}

/* Traffic that ended longer ago than the settle time, after a "before"
 * read as old: no wait, and the retransmissions are seen. */
static void test_no_wait_once_settled(void **state)
{
    (void)state;
    base_tree();
    put("hw_counters", "lifespan", 12);
    struct gdr_counter_watch w;
    gdr_counters_watch_init(&w, root, "mlx5_0", 1);
    gdr_counters_watch_begin(&w);
    loop_retransmits();
    usleep(30000);
    gdr_counters_watch_end(&w, 25000000, &d); /* the traffic ended 25 ms ago */
    assert_true(d.waited_s == 0);
    assert_true(d.between_s >= 0.030 && d.after_loop_s >= 0.025);
    assert_false(d.clean);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clean_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retransmissions_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vanished_mid_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vanished_traffic_counter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrap_and_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_saturated_error_counter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_saturated_narrow_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pma_counter_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lifespan_is_not_a_counter, setup, teardown),
        cmocka_unit_test(test_settle_time),
        cmocka_unit_test_setup_teardown(test_cache_hides_a_short_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_row_is_not_clean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_wait_once_settled, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
