/* transfer.c - the watchdog and CQ polling every timed loop uses. */
#include "config.h"

#include "transfer.h"
#include "error.h"
#include "events.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/* The control socket became readable in the middle of a run. EOF means
 * the peer is gone; an ERROR message says why it gave up. Anything else
 * (the peer finished its side first, say) waits for this side to finish. */
static int check_peer(struct gdr_session *s, uint64_t size)
{
    int words = gdr_oob_peer_last_words(&s->oob);
    if (words > 0)
        return gdr_fail_kind(GDR_KIND_PEER, GDR_EXIT_RUN,
                             "peer %s closed the connection at size %llu", s->oob.peer,
                             (unsigned long long)size);
    return words;
}

int gdr_fail_interrupted(uint64_t size)
{
    return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN, "interrupted at size %llu",
                         (unsigned long long)size);
}

int gdr_stalled(struct gdr_session *s, uint64_t size, uint64_t last_progress_ns, uint64_t iteration)
{
    if (gdr_interrupted)
        return gdr_fail_interrupted(size);
    /* A port gone down stops completions too: name it, not a stall. */
    if (gdr_events_check(&s->verbs, iteration))
        return -1;
    uint64_t now = gdr_now_ns();
    if ((double)(now - last_progress_ns) > s->cfg->timeout * 1e9)
        return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                             "no completion for %g s at size %llu: peer %s stalled "
                             "(--timeout)",
                             s->cfg->timeout, (unsigned long long)size, s->oob.peer);
    gdr_oob_refuse_pending(s->oob.refusal);
    if (gdr_oob_readable(&s->oob))
        return check_peer(s, size);
    return 0;
}

/* A check costs system calls: the clock (one where the clocksource has no
 * vDSO read, as hpet in a VM), polls of the peer's socket and of the async
 * events. At a fixed 1024 idle polls the ping-pongs checked once or more a
 * round trip (in the lab 9-30 system calls a round trip besides the
 * doorbell, perftest none: docs/benchmarking.md), and an arrival that
 * lands during a check waits for it. Checks at least CHECK_MIN_NS apart
 * stay off the common round trip; at most CHECK_MAX_NS apart within one
 * idle stretch, a stall is seen within that. */
#define CHECK_MIN_NS 5000000ull
#define CHECK_MAX_NS 40000000ull
#define CADENCE_MASK_MIN 63u
#define CADENCE_MASK_MAX ((1u << 24) - 1)

uint64_t gdr_cadence_read(struct gdr_cadence *c, unsigned idle, uint64_t min_ns, uint64_t max_ns)
{
    uint64_t now = gdr_now_ns(), gap = now - c->last_ns;
    /* Past one interval's rounds: the last read was in this stretch too. */
    bool same_stretch = idle > c->mask + 1;
    if (gap < min_ns && c->mask < CADENCE_MASK_MAX)
        c->mask = c->mask * 2 + 1;
    else if (same_stretch && gap > max_ns && c->mask > CADENCE_MASK_MIN)
        c->mask >>= 1;
    c->last_ns = now;
    return now;
}

int gdr_watchdog_tick(struct gdr_watchdog *w)
{
    uint64_t now = gdr_cadence_read(&w->check, w->idle, CHECK_MIN_NS, CHECK_MAX_NS);
    if (w->bumps != w->bumps_seen) {
        w->bumps_seen = w->bumps;
        w->last_progress_ns = now;
    }
    return gdr_watchdog_check(w);
}

static uint64_t iteration_of(const struct gdr_watchdog *w, const struct ibv_wc *wc)
{
    if (wc && w->wr_iteration)
        return w->wr_iteration(w, wc->wr_id);
    return w->done ? *w->done : GDR_ERROR_UNKNOWN;
}

int gdr_watchdog_check(struct gdr_watchdog *w)
{
    const struct gdr_config *cfg = w->s->cfg;
    bool late =
        !gdr_interrupted && (double)(gdr_now_ns() - w->last_progress_ns) > cfg->timeout * 1e9;
    if (late && w->copy_pending)
        return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                             "the GPU staging copy at size %llu did not finish "
                             "within %g s (--timeout)",
                             (unsigned long long)w->size, cfg->timeout);
    if (late && w->note) {
        char note[192];
        w->note(w->note_arg, note, sizeof(note));
        return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                             "no completion for %g s at size %llu: peer %s stalled "
                             "(--timeout); %s",
                             cfg->timeout, (unsigned long long)w->size, w->s->oob.peer, note);
    }
    return gdr_stalled(w->s, w->size, w->last_progress_ns, iteration_of(w, NULL));
}

int gdr_recv_cq_sleep(struct gdr_watchdog *w, bool *armed, uint64_t *sleeps)
{
    struct gdr_verbs *v = &w->s->verbs;
    if (!*armed) {
        if (ibv_req_notify_cq(v->recv_cq, 0))
            return gdr_fail(GDR_EXIT_RUN, "ibv_req_notify_cq failed at size %llu",
                            (unsigned long long)w->size);
        *armed = true;
        return 1;
    }
    struct pollfd pfd = {.fd = v->recv_channel->fd, .events = POLLIN};
    (*sleeps)++;
    int n = poll(&pfd, 1, GDR_SLEEP_MS);
    if (n > 0) {
        struct ibv_cq *cq;
        void *ctx;
        if (ibv_get_cq_event(v->recv_channel, &cq, &ctx))
            return gdr_fail(GDR_EXIT_RUN, "ibv_get_cq_event failed at size %llu",
                            (unsigned long long)w->size);
        ibv_ack_cq_events(cq, 1);
        *armed = false;
        return 0;
    }
    if (n < 0 && errno != EINTR)
        return gdr_fail(GDR_EXIT_RUN, "poll on the receive CQ's channel failed: %s",
                        strerror(errno));
    /* Nothing for GDR_SLEEP_MS: what an idle poll's watchdog check does. */
    return gdr_watchdog_check_bumps(w) < 0 ? -1 : 0;
}

/* How long a flushed request waits for the failure that caused the flush
 * to show in a CQ: the device writes that completion before it flushes,
 * but not always to the CQ the loop polls first. */
#define GDR_CAUSE_WAIT_NS 100000000ull

/* Once a request fails, its QP is in error and the device flushes every
 * other request, the posted receives included (IBV_WC_WR_FLUSH_ERR): a
 * loop that polls its receives first (a staged destination, a ping-pong)
 * reads a flush while the cause (a credit write or an answer that ran out
 * of retries) waits in the send CQ. The first completion in either CQ
 * whose status is neither success nor a flush; false when none comes. */
static bool flush_cause(const struct gdr_watchdog *w, struct ibv_wc *cause, const char **op)
{
    struct gdr_verbs *v = &w->s->verbs;
    struct ibv_cq *cqs[] = {v->send_cq, v->recv_cq};
    uint64_t until = gdr_now_ns() + GDR_CAUSE_WAIT_NS;
    do {
        for (size_t c = 0; c < 2; c++) {
            struct ibv_wc wc[16];
            int n = cqs[c] ? ibv_poll_cq(cqs[c], 16, wc) : 0;
            for (int i = 0; i < n; i++)
                if (wc[i].status != IBV_WC_SUCCESS && wc[i].status != IBV_WC_WR_FLUSH_ERR) {
                    *cause = wc[i];
                    /* Named as the loop names it where it knows (whichever
                     * CQ it happened to poll first, the same words). */
                    *op = c ? "receive" : w->send_op ? w->send_op(w, wc[i].wr_id) : "send request";
                    return true;
                }
        }
    } while (gdr_now_ns() < until);
    return false;
}

int gdr_poll_failed(struct gdr_watchdog *w, int got, const struct ibv_wc *wc, const char *op)
{
    if (got < 0 || !wc)
        return gdr_fail(GDR_EXIT_RUN, "ibv_poll_cq failed at size %llu",
                        (unsigned long long)w->size);
    /* A peer that gave up (its device died, it was interrupted) tears its
     * memory down after it said why: our writes then fail. With no fatal
     * event of our own, its parting ERROR, when it is here, is the cause. */
    struct gdr_session *s = w->s;
    if (!gdr_events_fatal(&s->verbs, 0)[0] && gdr_oob_peer_last_words(&s->oob) < 0)
        return -1;
    struct ibv_wc cause;
    const char *cause_op;
    /* The cause's wr_id is the other CQ's: its iteration is the loop's count. */
    if (wc->status == IBV_WC_WR_FLUSH_ERR && flush_cause(w, &cause, &cause_op))
        return gdr_wc_fail(&s->verbs, &cause, cause_op, w->size, iteration_of(w, NULL));
    return gdr_wc_fail(&s->verbs, wc, op, w->size, iteration_of(w, wc));
}

int gdr_wait_copy(struct gdr_watchdog *w, struct gdr_buffer *b, unsigned slot)
{
    uint64_t since = gdr_now_ns();
    for (unsigned polls = 1;; polls++) {
        int done = b->ops->stage_done(b, slot);
        if (done)
            return done < 0 ? -1 : 0;
        if (polls % 1024)
            continue;
        /* Ctrl-C and a vanished peer as in every wait (no completion is
         * due here, so that deadline starts now), then our own. */
        uint64_t now = gdr_now_ns();
        if (gdr_stalled(w->s, w->size, now, iteration_of(w, NULL)))
            return -1;
        if ((double)(now - since) > w->s->cfg->timeout * 1e9)
            return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                                 "the GPU staging copy at size %llu did not finish "
                                 "within %g s (--timeout)",
                                 (unsigned long long)w->size, w->s->cfg->timeout);
    }
}
