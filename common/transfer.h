/* transfer.h - what every timed loop shares: the stall watchdog, CQ
 * polling with it, and the wait for a local copy. Internal to common/. */
#ifndef GDR_TRANSFER_H
#define GDR_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "session.h"

/* Clock reads in an idle loop, one every (mask + 1)th idle round. A read
 * can be a system call (the clocksource hpet, as in a VM: microseconds),
 * and a poll costs nanoseconds on a NIC and a microsecond on rxe, so no
 * fixed count of rounds suits both: gdr_cadence_read doubles the interval
 * while reads come less than min_ns apart and halves it when two reads of
 * one idle stretch come more than max_ns apart. */
struct gdr_cadence {
    unsigned mask; /* 2^k - 1 */
    uint64_t last_ns;
};

/* The time now, the interval adapted; idle: the idle rounds of this
 * stretch so far (a read at the stretch's first multiple of mask + 1 has
 * no earlier read of the stretch to halve by). */
uint64_t gdr_cadence_read(struct gdr_cadence *c, unsigned idle, uint64_t min_ns, uint64_t max_ns);

/* A loop's watch over its own progress: every (check.mask + 1)th idle tick
 * it checks for interruption, for --timeout without progress, for clients
 * to refuse and for a peer that has gone or given up. */
struct gdr_watchdog {
    struct gdr_session *s;
    uint64_t size;
    uint64_t last_progress_ns;
    unsigned idle;              /* idle ticks since the last progress */
    struct gdr_cadence check;   /* checks 5-40 ms apart */
    uint64_t bumps, bumps_seen; /* progress noted without reading the clock */
    bool copy_pending;          /* a staging copy is what the loop waits for */
    /* For a failure's message and class, the iteration (message of the
     * phase): how far the loop is (NULL: not known), and which one a
     * failed work request carried (NULL: *done); loop is the loop's own
     * state, for wr_iteration. */
    const uint64_t *done;
    uint64_t (*wr_iteration)(const struct gdr_watchdog *w, uint64_t wr_id);
    const void *loop;
    /* Optional: what the loop was waiting for, added to a stall's message
     * (the staged loops: the last credit seen, the groups sent). */
    void (*note)(const void *arg, char *buf, size_t len);
    const void *note_arg;
    /* Optional: what a send-queue work request is, by its wr_id, for the
     * cause found behind a flushed receive (the staged loops: a credit
     * write or the test's verb); NULL: "send request". */
    const char *(*send_op)(const struct gdr_watchdog *w, uint64_t wr_id);
};

/* The error of a loop that saw Ctrl-C or SIGTERM: -1. */
int gdr_fail_interrupted(uint64_t size);

/* -1 with the error recorded when interrupted, when nothing has progressed
 * for --timeout since last_progress_ns, when a fatal asynchronous event
 * came (iteration: how far the loop is, GDR_ERROR_UNKNOWN when not known)
 * or when the peer has gone. */
int gdr_stalled(struct gdr_session *s, uint64_t size, uint64_t last_progress_ns,
                uint64_t iteration);

static inline void gdr_watchdog_progress(struct gdr_watchdog *w, uint64_t now_ns)
{
    w->last_progress_ns = now_ns;
    w->idle = 0;
}

/* Progress, for a loop that reads no clock per iteration: the time is
 * taken at the next idle check instead. */
static inline void gdr_watchdog_bump(struct gdr_watchdog *w)
{
    w->bumps++;
    w->idle = 0;
}

static inline void gdr_watchdog_start(struct gdr_watchdog *w, struct gdr_session *s, uint64_t size,
                                      uint64_t now_ns)
{
    w->s = s;
    w->size = size;
    w->bumps = w->bumps_seen = 0;
    w->copy_pending = false;
    w->done = NULL;
    w->wr_iteration = NULL;
    w->loop = NULL;
    w->note = NULL;
    w->send_op = NULL;
    w->note_arg = NULL;
    w->check = (struct gdr_cadence){1023, now_ns};
    gdr_watchdog_progress(w, now_ns);
}

/* gdr_stalled, naming a staging copy when that is what did not finish. */
int gdr_watchdog_check(struct gdr_watchdog *w);

/* Bumps since the last check become progress now; then gdr_watchdog_check. */
static inline int gdr_watchdog_check_bumps(struct gdr_watchdog *w)
{
    if (w->bumps != w->bumps_seen) {
        w->bumps_seen = w->bumps;
        w->last_progress_ns = gdr_now_ns();
    }
    return gdr_watchdog_check(w);
}

/* The idle check itself (gdr_watchdog_idle's slow path): adapts check.mask,
 * then gdr_watchdog_check_bumps. */
int gdr_watchdog_tick(struct gdr_watchdog *w);

/* Nothing happened this time round: 0, or -1 with the error recorded.
 * Cheap except every (check.mask + 1)th call. */
static inline int gdr_watchdog_idle(struct gdr_watchdog *w)
{
    if (++w->idle & w->check.mask)
        return 0;
    return gdr_watchdog_tick(w);
}

/* A poll failed or a completion did: -1 with the error recorded. */
int gdr_poll_failed(struct gdr_watchdog *w, int got, const struct ibv_wc *wc, const char *op);

/* Poll up to max completions from cq: their count; 0 when there were none
 * (an idle tick for the watchdog); -1 with the error recorded when the
 * poll fails, a completion failed (`op` names it) or the watchdog fires.
 * Inline: the latency loop's samples include it. */
static inline int gdr_poll_cq(struct gdr_watchdog *w, struct ibv_cq *cq, int max, struct ibv_wc *wc,
                              const char *op)
{
    int got = ibv_poll_cq(cq, max, wc);
    if (got == 0)
        return gdr_watchdog_idle(w);
    for (int i = 0; i < got; i++)
        if (wc[i].status != IBV_WC_SUCCESS)
            return gdr_poll_failed(w, got, &wc[i], op);
    return got < 0 ? gdr_poll_failed(w, got, NULL, op) : got;
}

/* Sleep on the receive CQ's completion channel (s->verbs.recv_channel):
 * the first call arms the CQ and returns 1 (poll it once more before
 * sleeping, or an arrival between the last poll and the arming is never
 * signalled); the next sleeps until an event or GDR_SLEEP_MS, so the watchdog
 * still runs, counts the sleep in *sleeps and returns 0; -1 on error. */
#define GDR_SLEEP_MS 100
int gdr_recv_cq_sleep(struct gdr_watchdog *w, bool *armed, uint64_t *sleeps);

/* Wait for this end's staging copy at ring slot `slot` to finish: 0, or
 * -1 with the error recorded on Ctrl-C, a vanished peer, or --timeout
 * without the copy finishing (w names the session and the size). */
int gdr_wait_copy(struct gdr_watchdog *w, struct gdr_buffer *b, unsigned slot);

#endif
