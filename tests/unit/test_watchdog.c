/* test_watchdog.c - the loops' watchdog checks (a clock read and polls of
 * the peer's socket and the async events: system calls) rarely enough to
 * stay off a fast loop's round trip, and still sees a stall. */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "options.h"
#include "session.h"
#include "transfer.h"

struct rig {
    struct gdr_config cfg;
    struct gdr_session s;
    int fds[2];
};

/* A session whose peer is quiet (a socket with nothing to read) and
 * whose device reports no events. */
static void rig_start(struct rig *r, double timeout, struct gdr_watchdog *w)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, r->fds), 0);
    r->cfg.timeout = timeout;
    r->s.cfg = &r->cfg;
    r->s.oob.fd = r->fds[0];
    snprintf(r->s.oob.peer, sizeof(r->s.oob.peer), "peer");
    gdr_watchdog_start(w, &r->s, 4096, gdr_now_ns());
}

static void rig_stop(struct rig *r)
{
    close(r->fds[0]);
    close(r->fds[1]);
}

/* A ping-pong whose every wait is 2048 idle polls (at 1024 a check came
 * every round trip): the checks that failed. */
static int ping_pong(struct gdr_watchdog *w)
{
    int failed = 0;
    for (int trip = 0; trip < 4096; trip++) {
        for (int i = 0; i < 2048; i++)
            failed += gdr_watchdog_idle(w) != 0;
        gdr_watchdog_bump(w);
    }
    return failed;
}

/* The interval grows past the ping-pong's wait, so its round trips run
 * without checks. */
static void test_checks_leave_the_round_trip(void **state)
{
    (void)state;
    struct rig r;
    struct gdr_watchdog w;
    rig_start(&r, 60, &w);
    assert_int_equal(w.check.mask, 1023);
    assert_int_equal(ping_pong(&w), 0);
    assert_true(w.check.mask >= 2047);
    rig_stop(&r);
}

/* Grown as above, a stall (no progress at all) still ends at --timeout,
 * with the stall's message. */
static void test_stall_still_seen(void **state)
{
    (void)state;
    struct rig r;
    struct gdr_watchdog w;
    rig_start(&r, 0.2, &w);
    ping_pong(&w);
    gdr_error_clear();
    int rc = 0;
    for (uint64_t i = 0; i < (1ull << 40) && !rc; i++)
        rc = gdr_watchdog_idle(&w);
    assert_int_equal(rc, -1);
    assert_non_null(
        strstr(gdr_error_message(), "no completion for 0.2 s at size 4096: peer peer stalled"));
    rig_stop(&r);
}

/* Checks of one idle stretch that come more than 40 ms apart (polls that
 * got slow: a loaded host) halve the interval; a check after progress,
 * however late, is no measure of it and leaves it. */
static void test_slow_stretch_shrinks(void **state)
{
    (void)state;
    struct rig r;
    struct gdr_watchdog w;
    rig_start(&r, 60, &w);
    w.check.mask = (1u << 20) - 1;
    w.idle = 2 * (w.check.mask + 1) - 1; /* the next tick is this stretch's second check */
    w.check.last_ns = gdr_now_ns() - 100000000ull;
    assert_int_equal(gdr_watchdog_idle(&w), 0);
    assert_int_equal(w.check.mask, (1u << 19) - 1);
    w.idle = w.check.mask; /* the first check since progress */
    w.check.last_ns = gdr_now_ns() - 100000000ull;
    assert_int_equal(gdr_watchdog_idle(&w), 0);
    assert_int_equal(w.check.mask, (1u << 19) - 1);
    rig_stop(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks_leave_the_round_trip),
        cmocka_unit_test(test_stall_still_seen),
        cmocka_unit_test(test_slow_stretch_shrinks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
