/* test_soak_findings.c - the soak's findings on synthetic interval
 * streams: a planted dip, a slow trend, a rising counter, throttling and
 * GPU ECC errors that rose are each found where they were planted, and a
 * clean stream with normal noise gives none. */
#include "config.h"

#include "unit.h"

#include <stdlib.h>

#include "soak_findings.h"

enum { N = 60 }; /* a 10-minute soak at 10 s intervals */
#define BW 10e9  /* bytes/s */
#define INTERVAL 10.0

/* Normal noise (Box-Muller) of relative size cv, seeded. */
static double noisy(double v, double cv)
{
    double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
    return v * (1 + cv * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

static void stream(struct gdr_soak_point *p, size_t n, double v, double cv, unsigned seed)
{
    srand(seed);
    memset(p, 0, n * sizeof(*p));
    for (size_t i = 0; i < n; i++) {
        p[i].start_s = (double)i * INTERVAL;
        p[i].t_s = (double)(i + 1) * INTERVAL;
        p[i].value = noisy(v, cv);
        p[i].counters[GDR_SOAK_CONGESTION] = 100; /* marked under load: no finding */
    }
}

static long findings(struct gdr_soak_point *p, size_t n, bool latency, struct gdr_soak_finding *out)
{
    struct gdr_soak_series s = {.latency = latency, .dip_pct = 90, .n = n, .p = p};
    return gdr_soak_findings(&s, out, 16);
}

static void test_clean_noisy_stream(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    /* 2 % noise, the lab's; many seeds so that no lucky one passes */
    for (unsigned seed = 1; seed <= 200; seed++) {
        stream(p, N, BW, 0.02, seed);
        long n = findings(p, N, false, f);
        if (n) {
            char text[256];
            gdr_soak_finding_text(&f[0], false, text, sizeof(text));
            fail_msg("seed %u: %ld findings: %s", seed, n, text);
        }
        stream(p, N, 5e-6, 0.02, seed);
        n = findings(p, N, true, f);
        if (n) {
            char text[256];
            gdr_soak_finding_text(&f[0], true, text, sizeof(text));
            fail_msg("seed %u latency: %ld findings: %s", seed, n, text);
        }
    }
    /* short soaks, where a slope is the least sure */
    for (unsigned seed = 1; seed <= 200; seed++) {
        stream(p, 8, BW, 0.02, seed);
        assert_int_equal(findings(p, 8, false, f), 0);
    }
}

static void test_planted_dip(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    stream(p, N, BW, 0.01, 7);
    p[20].value = 0.6 * BW;
    p[21].value = 0.7 * BW;
    long n = findings(p, N, false, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_DIP);
    assert_int_equal(f[0].first, 20);
    assert_int_equal(f[0].last, 21);
    assert_near(f[0].start_s, 200, 1e-9);
    assert_near(f[0].end_s, 220, 1e-9);
    assert_near(f[0].value, 0.6 * BW, 1);
    assert_near(f[0].pct, 60, 1.5);
    char text[256];
    gdr_soak_finding_text(&f[0], false, text, sizeof(text));
    assert_non_null(strstr(text, "intervals 20-21 (200-220 s)"));

    /* an outage of 30 s before interval 20 (cut short, run again after
     * it): the dip starts where interval 20 did, not where 19 ended */
    for (size_t i = 20; i < N; i++) {
        p[i].start_s += 30;
        p[i].t_s += 30;
    }
    assert_int_equal(findings(p, N, false, f), 1);
    assert_near(f[0].start_s, 230, 1e-9);
    assert_near(f[0].end_s, 250, 1e-9);

    /* slow on both sides of that outage (interval 19 as the link went
     * down, 20-21 after it): two dips, neither spanning the outage's
     * 30 s (a soak in the lab joined them: "intervals 2-4 (9-45 s)") */
    p[19].value = 0.8 * BW;
    assert_int_equal(findings(p, N, false, f), 2);
    assert_int_equal(f[0].first, 19);
    assert_int_equal(f[0].last, 19);
    assert_near(f[0].end_s, 200, 1e-9);
    assert_int_equal(f[1].first, 20);
    assert_int_equal(f[1].last, 21);
    assert_near(f[1].start_s, 230, 1e-9);
    assert_near(f[1].value, 0.6 * BW, 1);

    /* latency: a rise is the dip */
    stream(p, N, 5e-6, 0.01, 7);
    p[40].value = 8e-6;
    n = findings(p, N, true, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_DIP);
    assert_int_equal(f[0].first, 40);
    assert_int_equal(f[0].last, 40);

    /* --dip-pct moves the line: 80 % does not see an 85 % interval */
    stream(p, N, BW, 0.01, 7);
    p[10].value = 0.85 * BW;
    struct gdr_soak_series s = {.dip_pct = 80, .n = N, .p = p};
    assert_int_equal(gdr_soak_findings(&s, f, 16), 0);
    s.dip_pct = 90;
    assert_int_equal(gdr_soak_findings(&s, f, 16), 1);
}

static void test_slow_trend(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    /* bandwidth losing 8 % over the soak, smoothly, under 2 % noise: no
     * interval is a dip, the slope is the finding */
    stream(p, N, BW, 0.02, 11);
    for (size_t i = 0; i < N; i++)
        p[i].value *= 1.04 - 0.08 * (double)i / (N - 1);
    long n = findings(p, N, false, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_TREND);
    assert_true(f[0].pct < -5 && f[0].pct > -12);
    /* the same rise is good news for bandwidth ... */
    stream(p, N, BW, 0.02, 11);
    for (size_t i = 0; i < N; i++)
        p[i].value *= 0.96 + 0.08 * (double)i / (N - 1);
    assert_int_equal(findings(p, N, false, f), 0);
    /* ... and a trend for latency */
    for (size_t i = 0; i < N; i++)
        p[i].value *= 5e-6 / BW;
    n = findings(p, N, true, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_TREND);
    /* one bad stretch at the end is a dip, not a trend: the slope is robust */
    stream(p, N, BW, 0.01, 13);
    for (size_t i = N - 6; i < N; i++)
        p[i].value = 0.5 * BW;
    n = findings(p, N, false, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_DIP);
    assert_int_equal(f[0].first, N - 6);
}

static void test_rising_counter(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    stream(p, N, BW, 0.01, 17);
    p[5].counters[GDR_SOAK_RETRANSMISSIONS] = 3;
    p[30].counters[GDR_SOAK_RETRANSMISSIONS] = 40;
    p[31].counters[GDR_SOAK_SYMBOL_ERRORS] = 1;
    long n = findings(p, N, false, f);
    assert_int_equal(n, 2);
    assert_int_equal(f[0].kind, GDR_FINDING_COUNTER);
    assert_int_equal(f[0].counter, GDR_SOAK_RETRANSMISSIONS);
    assert_int_equal(f[0].total, 43);
    assert_int_equal(f[0].nintervals, 2);
    assert_int_equal(f[0].intervals[0], 5);
    assert_int_equal(f[0].intervals[1], 30);
    assert_near(f[0].start_s, 50, 1e-9);
    assert_near(f[0].end_s, 310, 1e-9);
    assert_int_equal(f[1].counter, GDR_SOAK_SYMBOL_ERRORS);
    assert_int_equal(f[1].total, 1);
    char text[256];
    gdr_soak_finding_text(&f[0], false, text, sizeof(text));
    assert_non_null(
        strstr(text, "retransmissions rose by 43 in 2 intervals (50-310 s): intervals 5, 30"));
}

static void test_throttling(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    stream(p, N, BW, 0.01, 19);
    for (size_t i = 40; i < 44; i++)
        p[i].throttled = true;
    long n = findings(p, N, false, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_THROTTLE);
    assert_int_equal(f[0].first, 40);
    assert_int_equal(f[0].last, 43);
    assert_int_equal(f[0].nintervals, 4);

    /* an outage before interval 42: two throttled stretches */
    for (size_t i = 42; i < N; i++) {
        p[i].start_s += 30;
        p[i].t_s += 30;
    }
    n = findings(p, N, false, f);
    assert_int_equal(n, 2);
    assert_int_equal(f[0].last, 41);
    assert_int_equal(f[1].first, 42);
    assert_int_equal(f[1].last, 43);
}

/* GPU uncorrected ECC errors that rose: one finding with their sum and
 * intervals, beside nothing else. */
static void test_ecc_rising(void **state)
{
    (void)state;
    struct gdr_soak_point p[N];
    struct gdr_soak_finding f[16];
    stream(p, N, BW, 0.01, 23);
    p[12].ecc = 1;
    p[50].ecc = 2;
    long n = findings(p, N, false, f);
    assert_int_equal(n, 1);
    assert_int_equal(f[0].kind, GDR_FINDING_ECC);
    assert_int_equal(f[0].total, 3);
    assert_int_equal(f[0].nintervals, 2);
    assert_int_equal(f[0].first, 12);
    assert_int_equal(f[0].last, 50);
    assert_string_equal(gdr_soak_finding_kind_name(f[0].kind), "ecc");
    char text[256];
    gdr_soak_finding_text(&f[0], false, text, sizeof(text));
    assert_non_null(strstr(text,
                           "ecc: the GPU ends' uncorrected ECC errors rose by 3 in 2 intervals "
                           "(120-510 s): intervals 12, 50"));
}

static void test_long_soak_is_blocked(void **state)
{
    (void)state;
    /* 3 days at 10 s: the slope is fitted to GDR_SOAK_SLOPE_POINTS block
     * medians, and still sees a 10 % fall */
    enum { LONG = 25920 };
    struct gdr_soak_point *p = malloc(LONG * sizeof(*p));
    assert_non_null(p);
    stream(p, LONG, BW, 0.02, 23);
    struct gdr_soak_series s = {.dip_pct = 90, .n = LONG, .p = p};
    assert_true(fabs(gdr_soak_slope(&s)) < BW * 0.01 / (LONG * INTERVAL));
    for (size_t i = 0; i < LONG; i++)
        p[i].value *= 1.05 - 0.10 * (double)i / (LONG - 1);
    struct gdr_soak_finding f[16];
    long n = gdr_soak_findings(&s, f, 16);
    assert_true(n >= 1);
    assert_int_equal(f[n - 1].kind, GDR_FINDING_TREND);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_noisy_stream), cmocka_unit_test(test_planted_dip),
        cmocka_unit_test(test_slow_trend),         cmocka_unit_test(test_rising_counter),
        cmocka_unit_test(test_throttling),         cmocka_unit_test(test_long_soak_is_blocked),
        cmocka_unit_test(test_ecc_rising),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
