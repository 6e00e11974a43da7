/* test_clock.c - the latency samples' clock: the guard that allows the TSC
 * only where it cannot lie, the TSC's rate from two readings of both
 * clocks, its edges, and a real interval measured both ways (the TSC where
 * the guard allows it here, else the fallback), on any host: with or
 * without RDTSCP. */
#include "config.h"

#include "unit.h"

#include <stdlib.h>
#include <time.h>

#include "clock.h"

static void test_ns_per_tick(void **state)
{
    (void)state;
    /* 3 GHz: 3e9 ticks in 1e9 ns. */
    assert_near(gdr_ns_per_tick(1000, 5000, 1000 + 3000000000ull, 5000 + 1000000000ull), 1.0 / 3,
                1e-12);
    assert_near(gdr_ns_per_tick(0, 0, 100, 250), 2.5, 0);
    /* No interval, or a clock that went backwards: 1, never a division by
     * zero or a negative rate. */
    assert_near(gdr_ns_per_tick(100, 100, 100, 200), 1.0, 0);
    assert_near(gdr_ns_per_tick(100, 100, 200, 100), 1.0, 0);
    assert_near(gdr_ns_per_tick(200, 100, 100, 200), 1.0, 0);
}

/* The TSC only when the CPU flags it invariant, the kernel's clocksource
 * is tsc and the loop is pinned; GDR_CLOCK overrides; each refusal says
 * why. */
static void test_guard(void **state)
{
    (void)state;
    static const struct {
        const char *force;
        bool present, invariant;
        const char *clocksource;
        bool pinned, want;
        const char *why;
    } cases[] = {
        {NULL, true, true, "tsc", true, true, "pinned"},
        {NULL, true, true, "tsc", false, false, "not pinned"},
        {NULL, true, true, "hpet", true, false, "clocksource is not tsc"},
        {NULL, true, true, "kvm-clock", true, false, "clocksource is not tsc"},
        {NULL, true, true, "", true, false, "clocksource is not tsc"},
        {NULL, true, true, NULL, true, false, "clocksource is not tsc"},
        {NULL, true, false, "tsc", true, false, "invariant"},
        {NULL, false, false, "tsc", true, false, "invariant"},
        {"monotonic", true, true, "tsc", true, false, "GDR_CLOCK=monotonic"},
        {"tsc", true, false, "hpet", false, true, "GDR_CLOCK=tsc"},
        {"tsc", false, false, "tsc", true, false, "no TSC"},
        {"bogus", true, true, "tsc", true, true, "pinned"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *why = NULL;
        bool got = gdr_clock_choose(cases[i].force, cases[i].present, cases[i].invariant,
                                    cases[i].clocksource, cases[i].pinned, &why);
        if (got != cases[i].want || !why || !strstr(why, cases[i].why))
            fail_msg("case %zu: tsc %d (want %d), why '%s' (want '%s')", i, got, cases[i].want,
                     why ? why : "(null)", cases[i].why);
    }
}

/* A sample across two CPUs (or going backwards) is dropped, never a
 * wrapped difference. */
static void test_sample_guard(void **state)
{
    (void)state;
    uint64_t t = 0;
    assert_true(gdr_tick_sample(1000, 3, 1700, 3, &t));
    assert_int_equal(t, 700);
    assert_true(gdr_tick_sample(5, 0, 5, 0, &t));
    assert_int_equal(t, 0);
    t = 42;
    assert_false(gdr_tick_sample(1000, 3, 1700, 4, &t)); /* migrated */
    assert_false(gdr_tick_sample(1000, 3, 900, 3, &t));  /* would wrap to ~1.8e19 */
    assert_false(gdr_tick_sample(1000, 3, 900, 4, &t));
    assert_int_equal(t, 42); /* untouched when dropped */
}

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* 20 ms measured in ticks and converted agrees with the monotonic clock. */
static void interval_agrees(bool expect_tsc)
{
    struct gdr_tick_clock c;
    gdr_tick_clock_start(&c, true);
    assert_int_equal(c.tsc, expect_tsc);
    assert_true(c.pinned);
    assert_int_equal(c.dropped, 0);
    uint64_t t0 = gdr_ticks(&c), n0 = gdr_now_ns();
    sleep_ms(20);
    uint64_t t1 = gdr_ticks(&c), n1 = gdr_now_ns();
    gdr_tick_clock_stop(&c);
    double ns = (double)gdr_ticks_to_ns(&c, t1 - t0), want = (double)(n1 - n0);
    assert_true(ns > 0.9 * want && ns < 1.1 * want);
    assert_string_equal(gdr_tick_clock_name(&c), expect_tsc ? "tsc" : "monotonic_raw");
}

static void test_interval(void **state)
{
    (void)state;
    unsetenv("GDR_CLOCK");
    char source[32];
    gdr_kernel_clocksource(source, sizeof(source));
    /* What this host offers, as the code asks it: a CPU without RDTSCP
     * (hidden by some hypervisors) never uses the TSC, even when forced. */
    bool readable = gdr_tsc_readable();
    interval_agrees(readable && gdr_tsc_invariant() && !strcmp(source, "tsc"));
    setenv("GDR_CLOCK", "monotonic", 1);
    interval_agrees(false);
    setenv("GDR_CLOCK", "tsc", 1); /* forced, invariant or not */
    interval_agrees(readable);
    unsetenv("GDR_CLOCK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_guard),
        gdr_unit_test(test_sample_guard),
        gdr_unit_test(test_ns_per_tick),
        gdr_unit_test(test_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
