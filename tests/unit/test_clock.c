/* test_clock.c - the latency samples' clock: the TSC's rate from two
 * readings of both clocks, its edges, and a real interval measured both
 * ways (the TSC where this CPU has an invariant one, else the fallback). */
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

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* 20 ms measured in ticks and converted agrees with the monotonic clock. */
static void interval_agrees(bool expect_tsc)
{
    struct gdr_tick_clock c;
    gdr_tick_clock_start(&c);
    assert_int_equal(c.tsc, expect_tsc);
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
    interval_agrees(gdr_tsc_invariant());
    setenv("GDR_CLOCK", "monotonic", 1);
    interval_agrees(false);
#if defined(__x86_64__) || defined(__i386__)
    setenv("GDR_CLOCK", "tsc", 1); /* forced, invariant or not */
    interval_agrees(true);
#endif
    unsetenv("GDR_CLOCK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_ns_per_tick),
        gdr_unit_test(test_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
