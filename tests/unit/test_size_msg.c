/* test_size_msg.c - the per-size messages' codec (common/size_msg.c):
 * what one end saw (counter deltas, GPU state) and the steadiness survive
 * the trip, and a peer's bad fields are refused with their names. */
#include "config.h"

#include "unit.h"

#include <stdio.h>

#include "size_msg.h"

static struct gdr_size_result_msg in, out;

static void fill(void)
{
    memset(&in, 0, sizeof(in));
    in.m.iters = 1000;
    in.m.bytes = 4096000;
    in.m.elapsed_ns = 1000000;
    in.m.bw_avg = 4.096e9;
    in.m.bw_peak = 4.5e9;
    in.m.steady = (struct gdr_steady){.slices = 10, .min = 4e9, .max = 4.2e9, .cv = 0.01};
    in.bad_bytes = 0;
    in.prestage_s = 0.5;
    struct gdr_counter_deltas *d = &in.seen.nic;
    d->available = true;
    d->clean = false;
    d->n = 2;
    snprintf(d->d[0].name, GDR_COUNTER_NAME, "sent_pkts");
    d->d[0].delta = 4000;
    snprintf(d->d[1].name, GDR_COUNTER_NAME, "completer_retry_err");
    d->d[1].delta = 3;
    d->nlost = 1;
    snprintf(d->lost[0].name, GDR_COUNTER_NAME, "out_of_sequence");
    snprintf(d->lost[0].why, sizeof(d->lost[0].why), "vanished");
    in.seen.gpu_gts = 16;
    in.seen.gpu_width = 16;
    in.seen.gpu = (struct gdr_gpu_sample){.available = true,
                                          .pstate = 2,
                                          .sm_mhz = 1980,
                                          .pcie_gen = 4,
                                          .throttle_known = true,
                                          .throttle = 0x48,
                                          .replay_delta = 7,
                                          .temperature_c = 71,
                                          .ecc_uncorrected = 2};
}

static void test_round_trip(void **state)
{
    (void)state;
    fill();
    cJSON *msg = gdr_size_result_encode(&in);
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), 0);
    cJSON_Delete(msg);
    assert_int_equal(out.m.iters, 1000);
    assert_int_equal(out.m.steady.slices, 10);
    assert_near(out.m.steady.cv, 0.01, 1e-15);
    assert_near(out.prestage_s, 0.5, 0);
    assert_true(out.seen.nic.available && !out.seen.nic.clean);
    assert_int_equal(out.seen.nic.n, 2);
    assert_string_equal(out.seen.nic.d[1].name, "completer_retry_err");
    assert_int_equal(out.seen.nic.d[1].delta, 3);
    assert_int_equal(out.seen.nic.d[1].cls, GDR_COUNTER_RETRANSMIT); /* classed here */
    assert_string_equal(out.seen.nic.lost[0].why, "vanished");
    assert_int_equal(out.seen.gpu_width, 16);
    assert_int_equal(out.seen.gpu.pstate, 2);
    assert_int_equal(out.seen.gpu.throttle, 0x48);
    assert_int_equal(out.seen.gpu.replay_delta, 7);
    assert_int_equal(out.seen.gpu.temperature_c, 71);
    assert_int_equal(out.seen.gpu.ecc_uncorrected, 2);
}

/* The GPU's temperature and ECC count: a peer built before them sends
 * neither (unknown, -1), a hostile one is refused. */
static void test_gpu_health(void **state)
{
    (void)state;
    fill();
    cJSON *msg = gdr_size_result_encode(&in);
    cJSON *gpu = cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "seen"), "gpu");
    cJSON_DeleteItemFromObject(gpu, "temperature_c");
    cJSON_DeleteItemFromObject(gpu, "ecc_uncorrected");
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), 0);
    assert_int_equal(out.seen.gpu.temperature_c, -1);
    assert_int_equal(out.seen.gpu.ecc_uncorrected, -1);
    assert_int_equal(out.seen.gpu.replay_delta, 7);
    cJSON_AddNumberToObject(gpu, "temperature_c", -40);
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "a GPU figure out of range");
    gdr_error_clear();
    cJSON_ReplaceItemInObject(gpu, "temperature_c", cJSON_CreateString("hot"));
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "temperature_c");
    gdr_error_clear();
    cJSON_Delete(msg);
}

static void test_bad_fields(void **state)
{
    (void)state;
    fill();
    in.seen.gpu.pstate = 15;
    cJSON *msg = gdr_size_result_encode(&in);
    cJSON *gpu = cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "seen"), "gpu");
    cJSON_ReplaceItemInObject(gpu, "pstate", cJSON_CreateNumber(99));
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "a GPU figure out of range");
    cJSON_Delete(msg);
    gdr_error_clear();
    msg = gdr_size_result_encode(&in);
    cJSON *deltas =
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "seen"), "nic"), "deltas");
    cJSON_AddNumberToObject(deltas, "a_counter_name_that_is_far_too_long_for_any_sysfs_file", 1);
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "counter name too long");
    cJSON_Delete(msg);
    gdr_error_clear();
    msg = gdr_size_result_encode(&in);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(msg, "seen"), "nic");
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "SIZE_RESULT from test");
    cJSON_Delete(msg);
}

/* When an end took its counter snapshots: they survive the trip, a peer
 * built before them sends none (lifespan unknown, no wait counted), and
 * a time out of range is refused. */
static void test_snapshot_times(void **state)
{
    (void)state;
    fill();
    in.seen.nic.lifespan_s = 0.012;
    in.seen.nic.between_s = 0.03;
    in.seen.nic.after_loop_s = 0.022;
    in.seen.nic.waited_s = 0.02;
    cJSON *msg = gdr_size_result_encode(&in);
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), 0);
    assert_near(out.seen.nic.lifespan_s, 0.012, 1e-15);
    assert_near(out.seen.nic.after_loop_s, 0.022, 1e-15);
    cJSON *nic = cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "seen"), "nic");
    cJSON_ReplaceItemInObject(nic, "after_loop_s", cJSON_CreateNumber(-1));
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), -1);
    assert_error(GDR_EXIT_RUN, "a counter snapshot's time out of range");
    gdr_error_clear();
    const char *fields[] = {"lifespan_s", "between_s", "after_loop_s", "waited_s"};
    for (size_t i = 0; i < 4; i++)
        cJSON_DeleteItemFromObject(nic, fields[i]);
    assert_int_equal(gdr_size_result_decode(msg, &out, "SIZE_RESULT from test"), 0);
    assert_true(out.seen.nic.lifespan_s < 0 && out.seen.nic.after_loop_s == 0);
    cJSON_Delete(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_round_trip),
        gdr_unit_test(test_gpu_health),
        gdr_unit_test(test_bad_fields),
        gdr_unit_test(test_snapshot_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
