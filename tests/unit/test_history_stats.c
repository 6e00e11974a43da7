/* test_history_stats.c - the statistics of gdr-history on planted series:
 * steps dated within a night, an outlier that is not a step, a drift found
 * before it reaches 10%, quiet on stationary noise, and not-clean nights
 * shown but never judged nor used in a baseline. */
#include "config.h"

#include "unit.h"

#include "history_stats.h"

#include <stdlib.h>
#include <string.h>

/* Deterministic normal noise (xorshift + Box-Muller): the same every run. */
static uint64_t rng_state;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* n nights around 100 with relative noise sd. */
static void noisy(double *v, size_t n, double sd, uint64_t seed)
{
    rng_state = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = 100 * (1 + sd * gauss());
}

static void test_median(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
    assert_near(hist_median(odd, 3), 3, 0);
    assert_near(hist_median(even, 4), 2.5, 0);
    assert_near(odd[0], 5, 0); /* the input is left alone */
    assert_true(isnan(hist_median(odd, 0)));
}

static void test_noise_ignores_a_step(void **state)
{
    (void)state;
    double v[200];
    noisy(v, 200, 0.02, 1);
    double before = hist_noise(v, 200);
    assert_near(before, 2.0, 0.4); /* the planted sd, 2 at level 100 */
    for (size_t i = 100; i < 200; i++)
        v[i] *= 0.7;
    assert_near(hist_noise(v, 200), before, 0.4);
}

static void test_step_dated(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        double v[60];
        noisy(v, 60, 0.02, seed);
        for (size_t i = 40; i < 60; i++)
            v[i] *= 0.9;
        struct hist_step s[4];
        size_t n = hist_steps(v, 60, &o, s, 4);
        assert_int_equal(n, 1);
        assert_in_range(s[0].at, 39, 41);
        assert_near(s[0].rel, 0.10, 0.03); /* worse by 10% */
        /* Ten nights on, the step still decides the newest night. */
        struct hist_step s50[4];
        size_t n50 = hist_steps(v, 50, &o, s50, 4);
        assert_int_equal(n50, 1);
        struct hist_point p[60];
        hist_judge_series(v, 50, &o, s50, n50, p);
        assert_int_equal(p[49].verdict, HV_REGRESSION);
        /* After `window` nights the new level is the baseline. */
        hist_judge_series(v, 60, &o, s, n, p);
        assert_int_equal(p[59].verdict, HV_OK);
    }
}

static void test_latency_step_direction(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    o.higher_better = false;
    double v[60];
    noisy(v, 60, 0.02, 7);
    for (size_t i = 50; i < 60; i++)
        v[i] *= 0.8; /* lower latency: better */
    struct hist_step s[4];
    size_t n = hist_steps(v, 60, &o, s, 4);
    assert_int_equal(n, 1);
    assert_true(s[0].rel < 0);
    struct hist_point p[60];
    hist_judge_series(v, 60, &o, s, n, p);
    assert_int_equal(p[59].verdict, HV_IMPROVEMENT);
}

static void test_outlier_is_not_a_step(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        double v[60];
        noisy(v, 60, 0.02, seed);
        v[30] *= 0.6;
        struct hist_step s[4];
        assert_int_equal(hist_steps(v, 60, &o, s, 4), 0);
        struct hist_point p[60];
        hist_judge_series(v, 60, &o, s, 0, p);
        assert_true(p[30].outlier);
        assert_int_equal(p[30].verdict, HV_REGRESSION);
        assert_int_not_equal(p[59].verdict, HV_REGRESSION);
        /* The outlier stays out of the next night's baseline. */
        assert_near(p[31].center, 100, 3);
    }
}

/* 1% a night from night 20 (noise 1%): the newest night is a regression
 * before the drift reaches 10%. */
static void test_drift_found_early(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        double v[60];
        noisy(v, 60, 0.01, seed);
        size_t found = 0;
        for (size_t n = 21; n <= 60 && !found; n++) {
            v[n - 1] *= 1 - 0.01 * (double)(n - 20);
            struct hist_step s[8];
            size_t ns = hist_steps(v, n, &o, s, 8);
            struct hist_point p[60];
            hist_judge_series(v, n, &o, s, ns, p);
            if (p[n - 1].verdict == HV_REGRESSION)
                found = n - 20;
        }
        assert_in_range(found, 1, 9);
    }
}

/* 1% noise, 50 series judged night by night: no regression at all. */
static void test_stationary_is_quiet(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    size_t alarms = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        double v[60];
        noisy(v, 60, 0.01, 100 + seed);
        for (size_t n = 4; n <= 60; n++) {
            struct hist_step s[8];
            size_t ns = hist_steps(v, n, &o, s, 8);
            struct hist_point p[60];
            hist_judge_series(v, n, &o, s, ns, p);
            alarms += p[n - 1].verdict == HV_REGRESSION;
        }
    }
    assert_int_equal(alarms, 0);
}

static void test_flat_series(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    double v[20];
    for (size_t i = 0; i < 20; i++)
        v[i] = 50;
    struct hist_step s[2];
    assert_int_equal(hist_steps(v, 20, &o, s, 2), 0);
    struct hist_point p[20];
    hist_judge_series(v, 20, &o, s, 0, p);
    assert_int_equal(p[0].verdict, HV_NEW);
    assert_int_equal(p[19].verdict, HV_OK);
    assert_near(p[19].sigma, 0.05, 1e-12); /* the 0.1% floor */
}

/* Six not-clean nights 20% worse (a NIC retransmitting): suspect, never a
 * regression, no step, and the baseline after them is the good nights'.
 * Unmasked, the same values are regressions. */
static void test_suspect_nights_left_out(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    enum { N = 60 };
    double v[N], good[N];
    bool suspect[N] = {false};
    size_t ng = 0;
    noisy(v, N, 0.01, 7);
    for (size_t i = 30; i < 36; i++) {
        v[i] *= 0.8;
        suspect[i] = true;
    }
    for (size_t i = 0; i < N; i++)
        if (!suspect[i])
            good[ng++] = v[i];
    struct hist_step s[4];
    size_t ns = hist_steps(good, ng, &o, s, 4);
    assert_int_equal(ns, 0);
    struct hist_point p[N];
    hist_judge_series_masked(v, N, &o, s, ns, suspect, p);
    for (size_t i = 30; i < 36; i++) {
        assert_int_equal(p[i].verdict, HV_SUSPECT);
        assert_false(p[i].outlier);
        assert_near(p[i].rel, 0.2, 0.05); /* shown against the good baseline */
    }
    assert_near(p[36].center, 100, 2);
    assert_int_equal(p[N - 1].verdict, HV_OK);
    assert_true(strcmp(hist_verdict_name(HV_SUSPECT), "suspect") == 0);
    /* The same nights taken as good measurements. */
    hist_judge_series(v, N, &o, NULL, 0, p);
    assert_int_equal(p[30].verdict, HV_REGRESSION);
}

/* A not-clean newest night stays suspect even after a recent step, and a
 * not-clean first night of a series is suspect, not new. */
static void test_suspect_newest_night(void **state)
{
    (void)state;
    struct hist_opts o;
    hist_opts_default(&o);
    enum { N = 50 };
    double v[N];
    bool suspect[N] = {false};
    noisy(v, N, 0.01, 8);
    for (size_t i = 40; i < N; i++)
        v[i] *= 0.85;
    suspect[0] = suspect[N - 1] = true;
    struct hist_step s[4];
    size_t ns = hist_steps(v + 1, N - 2, &o, s, 4); /* the good nights 1 .. N-2 */
    assert_int_equal(ns, 1);
    s[0].at += 1;
    assert_int_equal(s[0].at, 40);
    struct hist_point p[N];
    hist_judge_series_masked(v, N, &o, s, ns, suspect, p);
    assert_int_equal(p[0].verdict, HV_SUSPECT);
    assert_int_equal(p[N - 1].verdict, HV_SUSPECT);
    /* Had the newest night been clean, the recent step would decide it. */
    suspect[N - 1] = false;
    hist_judge_series_masked(v, N, &o, s, ns, suspect, p);
    assert_int_equal(p[N - 1].verdict, HV_REGRESSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_noise_ignores_a_step),
        cmocka_unit_test(test_step_dated),
        cmocka_unit_test(test_latency_step_direction),
        cmocka_unit_test(test_outlier_is_not_a_step),
        cmocka_unit_test(test_drift_found_early),
        cmocka_unit_test(test_stationary_is_quiet),
        cmocka_unit_test(test_flat_series),
        cmocka_unit_test(test_suspect_nights_left_out),
        cmocka_unit_test(test_suspect_newest_night),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
