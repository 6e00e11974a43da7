/* test_stats.c - latency summaries against hand-computed values, their
 * invariants on random data, bandwidth and the peak-window tracker. */
#include "config.h"

#include "unit.h"

#include <stdlib.h>

#include "stats.h"

/* Results are in seconds, computed from nanoseconds: compare to 1e-6 ns. */
#define NS 1e-9
#define TOL 1e-15

static void test_four_samples(void **state)
{
    (void)state;
    uint64_t s[] = {1, 2, 3, 4};
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, 4, &st), 0);
    assert_int_equal(st.count, 4);
    assert_near(st.min, 1 * NS, TOL);
    assert_near(st.max, 4 * NS, TOL);
    assert_near(st.median, 2.5 * NS, TOL); /* mean of the middle pair */
    assert_near(st.mean, 2.5 * NS, TOL);
    /* squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, over n - 1 = 3 */
    assert_near(st.stdev, sqrt(5.0 / 3.0) * NS, TOL);
    /* p99: position 0.99 * 3 = 2.97 -> 3 + 0.97 * (4 - 3) */
    assert_near(st.p99, 3.97 * NS, TOL);
    assert_near(st.p999, 3.997 * NS, TOL);
}

static void test_ramp_percentiles(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint64_t s[N];
    for (size_t i = 0; i < N; i++)
        s[i] = N - i; /* 1000 .. 1 (descending: the function must sort) */
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, N, &st), 0);
    /* position 0.99 * 999 = 989.01: sorted[989] = 990, sorted[990] = 991 */
    assert_near(st.p99, 990.01 * NS, 1e-6 * NS);
    /* position 0.999 * 999 = 998.001: sorted[998] = 999, sorted[999] = 1000 */
    assert_near(st.p999, 999.001 * NS, 1e-6 * NS);
    /* position 0.5 * 999 = 499.5: between 500 and 501 */
    assert_near(st.median, 500.5 * NS, TOL);
    assert_near(st.mean, 500.5 * NS, TOL);
    /* sample variance of 1..n is n(n+1)/12 */
    assert_near(st.stdev, sqrt(1000.0 * 1001.0 / 12.0) * NS, 1e-6 * NS);
    assert_near(st.min, 1 * NS, TOL);
    assert_near(st.max, 1000 * NS, TOL);
}

static void test_single_sample(void **state)
{
    (void)state;
    uint64_t s[] = {1234};
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, 1, &st), 0);
    assert_int_equal(st.count, 1);
    assert_near(st.stdev, 0, 0);
    assert_near(st.min, 1234 * NS, TOL);
    assert_near(st.max, 1234 * NS, TOL);
    assert_near(st.median, 1234 * NS, TOL);
    assert_near(st.p99, 1234 * NS, TOL);
    assert_near(st.p999, 1234 * NS, TOL);
    assert_near(st.mean, 1234 * NS, TOL);
}

static void test_unsorted_input_is_sorted(void **state)
{
    (void)state;
    uint64_t s[] = {50, 10, 40, 20, 30};
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, 5, &st), 0);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(s[i], 10 * (i + 1));
    assert_near(st.median, 30 * NS, TOL);
    assert_near(st.min, 10 * NS, TOL);
    assert_near(st.max, 50 * NS, TOL);
}

static void test_empty(void **state)
{
    (void)state;
    uint64_t s[1] = {7};
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, 0, &st), -1);
    assert_near(gdr_quantile_sorted(s, 0, 0.5), 0, 0);
}

/* Samples near 1 s with a spread of a few ns: a naive sum of squares in
 * double would lose the spread entirely (1e18 has a spacing of 128). */
static void test_stdev_large_offset(void **state)
{
    (void)state;
    const uint64_t base = 1000000000ull;
    uint64_t s[] = {base + 1, base + 2, base + 3, base + 4};
    struct gdr_lat_stats st;
    assert_int_equal(gdr_lat_stats_compute(s, 4, &st), 0);
    assert_near(st.stdev, sqrt(5.0 / 3.0) * NS, 1e-6 * NS);
    assert_near(st.mean, (double)base * NS + 2.5 * NS, 1e-6 * NS);
}

static void test_quantile_ends(void **state)
{
    (void)state;
    const uint64_t s[] = {10, 20, 30};
    assert_near(gdr_quantile_sorted(s, 3, 0), 10 * NS, TOL);
    assert_near(gdr_quantile_sorted(s, 3, -1), 10 * NS, TOL);
    assert_near(gdr_quantile_sorted(s, 3, 1), 30 * NS, TOL);
    assert_near(gdr_quantile_sorted(s, 3, 2), 30 * NS, TOL);
    assert_near(gdr_quantile_sorted(s, 3, 0.25), 15 * NS, TOL);
    assert_near(gdr_quantile_sorted(s, 3, 0.75), 25 * NS, TOL);
}

static void test_invariants_random(void **state)
{
    (void)state;
    enum { N = 10007 };
    uint64_t *s = malloc(N * sizeof(*s));
    assert_non_null(s);
    srand(20240607);
    for (int round = 0; round < 20; round++) {
        size_t n = 1 + (size_t)rand() % N;
        uint64_t lo = UINT64_MAX, hi = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            s[i] = 1000 + (uint64_t)(rand() % 5000);
            if (rand() % 100 == 0)
                s[i] *= 100; /* a tail */
            lo = s[i] < lo ? s[i] : lo;
            hi = s[i] > hi ? s[i] : hi;
            sum += (double)s[i];
        }
        struct gdr_lat_stats st;
        assert_int_equal(gdr_lat_stats_compute(s, n, &st), 0);
        assert_int_equal(st.count, n);
        assert_near(st.min, lo * NS, TOL);
        assert_near(st.max, hi * NS, TOL);
        assert_near(st.mean, sum / (double)n * NS, 1e-9 * st.mean);
        assert_true(st.min <= st.median);
        assert_true(st.median <= st.p99);
        assert_true(st.p99 <= st.p999);
        assert_true(st.p999 <= st.max);
        assert_true(st.min <= st.mean && st.mean <= st.max);
        assert_true(st.stdev >= 0);
        for (size_t i = 1; i < n; i++)
            assert_true(s[i - 1] <= s[i]);
    }
    free(s);
}

static void test_median_inplace(void **state)
{
    (void)state;
    double odd[] = {5, -1, 3, 1e9, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
    assert_near(gdr_median_inplace(odd, 5), 3, 0);
    for (int i = 1; i < 5; i++)
        assert_true(odd[i - 1] <= odd[i]);
    assert_near(gdr_median_inplace(even, 4), 2.5, 0);
    assert_near(gdr_median_inplace(one, 1), 7, 0);
    assert_true(isnan(gdr_median_inplace(one, 0)));
}

static void test_bandwidth(void **state)
{
    (void)state;
    assert_near(gdr_bandwidth(1000000000ull, 1000000000ull), 1e9, 0);
    assert_near(gdr_bandwidth(1000, 500), 2e9, 0);
    assert_near(gdr_bandwidth(65536ull * 5000, 0), 0, 0);
    /* 64 KiB x 5000 in 25 ms */
    assert_near(gdr_bandwidth(65536ull * 5000, 25000000), 65536.0 * 5000 / 0.025, 1e-3);
}

/* 160 messages of 1000 B: 16 segments of 10. Every segment takes 10 us
 * (1 GB/s) except the sixth, which takes 5 us (2 GB/s). The peak spans two
 * adjacent segments: the sixth with a neighbour, 20 messages in 15 us. */
static void test_peak_tracker(void **state)
{
    (void)state;
    struct gdr_peak_tracker t;
    const uint64_t start_ns = 5000000;
    gdr_peak_start(&t, 1000, 160, 0, start_ns);
    assert_near(t.peak, 0, 0);
    uint64_t now = start_ns;
    for (uint64_t count = 1; count <= 160; count++) {
        uint64_t window = (count - 1) / 10;
        now += window == 5 ? 500 : 1000;
        gdr_peak_update(&t, count, now);
        if (count < 20)
            assert_near(t.peak, 0, 0); /* fewer than two segments yet */
        if (count >= 20 && count < 60)
            assert_near(t.peak, 1e9, 1);
    }
    assert_near(t.peak, 20000 / 15e-6, 1);
    double average = gdr_bandwidth(160 * 1000, now - start_ns);
    assert_near(average, 160000.0 / 155e-6, 1);
    assert_true(t.peak >= average);
}

/* Completions reported in batches that jump across window marks; a
 * repeated timestamp (no time elapsed) is ignored, not a division by 0. */
static void test_peak_tracker_batches(void **state)
{
    (void)state;
    struct gdr_peak_tracker t;
    gdr_peak_start(&t, 4096, 1600, 100, 0); /* 100 completions before the timed run */
    gdr_peak_update(&t, 150, 1000);         /* below the first mark (200) */
    assert_near(t.peak, 0, 0);
    gdr_peak_update(&t, 250, 100000); /* one segment: no peak yet */
    assert_near(t.peak, 0, 0);
    gdr_peak_update(&t, 400, 100000); /* same instant: ignored */
    assert_near(t.peak, 0, 0);
    gdr_peak_update(&t, 400, 150000); /* two segments: 300 msgs in 150 us */
    assert_near(t.peak, 300 * 4096 / 150e-6, 1);
    gdr_peak_update(&t, 1700, 10150000); /* slow tail: the peak stays */
    assert_near(t.peak, 300 * 4096 / 150e-6, 1);
    assert_false(isinf(t.peak) || isnan(t.peak));
}

/* Steadiness: 10 slices of equal completion counts. */
static void test_steadiness(void **state)
{
    (void)state;
    struct gdr_peak_tracker t;
    struct gdr_steady st;
    /* 1000 messages of 1000 bytes, one per microsecond: every slice 1 GB/s */
    gdr_peak_start(&t, 1000, 1000, 0, 0);
    for (uint64_t i = 1; i <= 1000; i++)
        gdr_peak_update(&t, i, i * 1000);
    gdr_peak_steadiness(&t, &st);
    assert_int_equal(st.slices, 10);
    assert_near(st.min, 1e9, 1);
    assert_near(st.max, 1e9, 1);
    assert_near(st.cv, 0, 1e-12);
    /* the fifth slice (messages 401..500) at half the rate */
    gdr_peak_start(&t, 1000, 1000, 0, 0);
    uint64_t now = 0;
    for (uint64_t i = 1; i <= 1000; i++) {
        now += i > 400 && i <= 500 ? 2000 : 1000;
        gdr_peak_update(&t, i, now);
    }
    gdr_peak_steadiness(&t, &st);
    assert_int_equal(st.slices, 10);
    assert_near(st.min, 0.5e9, 1);
    assert_near(st.max, 1e9, 1);
    /* nine at 1, one at 0.5: mean 0.95, sample stdev sqrt(0.225/9) */
    assert_near(st.cv, sqrt(0.225 / 9) / 0.95, 1e-9);
    /* too short for ten slices: none */
    gdr_peak_start(&t, 1000, 5, 0, 0);
    for (uint64_t i = 1; i <= 5; i++)
        gdr_peak_update(&t, i, i * 1000);
    gdr_peak_steadiness(&t, &st);
    assert_int_equal(st.slices, 0);
    /* completions in bursts: two marks passed at once make one slice */
    gdr_peak_start(&t, 1000, 1000, 0, 0);
    for (uint64_t i = 200; i <= 1000; i += 200)
        gdr_peak_update(&t, i, i * 1000);
    gdr_peak_steadiness(&t, &st);
    assert_int_equal(st.slices, 5);
    assert_near(st.cv, 0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_steadiness),
        gdr_unit_test(test_four_samples),
        gdr_unit_test(test_ramp_percentiles),
        gdr_unit_test(test_single_sample),
        gdr_unit_test(test_unsorted_input_is_sorted),
        gdr_unit_test(test_empty),
        gdr_unit_test(test_stdev_large_offset),
        gdr_unit_test(test_quantile_ends),
        gdr_unit_test(test_invariants_random),
        gdr_unit_test(test_median_inplace),
        gdr_unit_test(test_bandwidth),
        gdr_unit_test(test_peak_tracker),
        gdr_unit_test(test_peak_tracker_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
