/* reorder.c - the double's reordering layer: a QP's plain RDMA writes are
 * placed out of order between ordering points, as ConnectX places them
 * under adaptive routing with out-of-order placement (InfiniBand AR,
 * Spectrum-X RoCE with direct data placement).
 *
 * A plain RDMA write without a fence is held. The held writes of a QP
 * are posted to the real QP together, in a seeded random order that is
 * never the posting order, when the program posts an ordering point on
 * that QP (a write with immediate, a send, a read, an atomic, anything
 * fenced: the core posts held writes before it, so its completion at
 * either end still follows every earlier write), when the batch is full
 * (a random size in [2, GDR_VERBSIM_BATCH]) or when its oldest write has
 * waited GDR_VERBSIM_HOLD_US (the timer thread: the NIC goes on while the
 * program sleeps). rxe executes a QP's requests in order, so the order
 * they are posted in is the order they land in. A held write's data is
 * read when it is posted, as a NIC reads it when it executes the request:
 * a buffer changed before the request completed is caught too. */
#include "verbsim.h"

#include <stdlib.h>
#include <string.h>

#define LAYER 0 /* our index in vs_qp.layer[] */

static unsigned batch_max;
static uint64_t hold_ns;

enum cause { FULL, ORDERING, DEADLINE, NCAUSES };
static const char *const cause_name[NCAUSES] = {"full", "ordering point", "deadline"};
static enum cause cause;

static struct {
    uint64_t held, batches, moved, by[NCAUSES];
} count;

struct qp_state {
    uint64_t first_ns; /* the oldest held write's time */
    unsigned limit;    /* this batch's size */
};

static bool reorder_init(void)
{
    if (!vs_env_u64("GDR_VERBSIM_REORDER", 0, 0, 1))
        return false;
    batch_max = (unsigned)vs_env_u64("GDR_VERBSIM_BATCH", 8, 2, 256);
    hold_ns = vs_env_u64("GDR_VERBSIM_HOLD_US", 200, 1, 10000000) * 1000;
    return true;
}

static struct qp_state *state_of(struct vs_qp *q)
{
    if (!q->layer[LAYER])
        q->layer[LAYER] = calloc(1, sizeof(struct qp_state));
    return q->layer[LAYER];
}

static bool holdable(const struct vs_qp *q, const struct vs_wr *w)
{
    return q->qp->qp_type == IBV_QPT_RC && w->opcode == IBV_WR_RDMA_WRITE &&
           !(w->app_flags & IBV_SEND_FENCE);
}

static int reorder_post_send(struct vs_qp *q, struct vs_wr *w)
{
    struct qp_state *st = state_of(q);
    if (!st)
        return -12; /* ENOMEM */
    if (!holdable(q, w)) {
        cause = ORDERING;
        return VS_POST;
    }
    if (!q->held) {
        st->first_ns = vs_now_ns();
        st->limit = 2 + (unsigned)vs_rand_below(batch_max - 1);
        vs_wake_at(st->first_ns + hold_ns);
    }
    count.held++;
    if (q->held + 1 >= st->limit) {
        cause = FULL;
        return VS_HOLD_FLUSH;
    }
    return VS_HOLD;
}

static void reorder_permute(struct vs_qp *q, struct vs_wr **batch, size_t n)
{
    struct vs_wr *orig[256];
    size_t keep = n < 256 ? n : 256;
    memcpy(orig, batch, keep * sizeof(*orig));
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)vs_rand_below(i);
        struct vs_wr *t = batch[i - 1];
        batch[i - 1] = batch[j];
        batch[j] = t;
    }
    size_t moved = 0;
    for (size_t i = 0; i < keep; i++)
        moved += batch[i] != orig[i];
    if (n >= 2 && !moved) { /* never the posting order */
        struct vs_wr *t = batch[0];
        batch[0] = batch[n - 1];
        batch[n - 1] = t;
        moved = 2;
    }
    count.batches++;
    count.moved += moved;
    count.by[cause]++;
    if (vs_verbose_on()) {
        char line[400];
        size_t at = 0;
        for (size_t i = 0; i < n && at + 24 < sizeof(line); i++)
            at += (size_t)snprintf(line + at, sizeof(line) - at, " %llu",
                                   (unsigned long long)batch[i]->app_seq);
        vs_verbose("qp %#x: %zu writes placed as%s%s (%s)", q->qp_num, n, line,
                   at + 24 >= sizeof(line) ? " ..." : "", cause_name[cause]);
    }
}

/* Flush every batch whose oldest write has waited long enough; the next
 * deadline of those left. */
static uint64_t reorder_tick(uint64_t now)
{
    uint64_t next = 0;
    for (size_t i = 0; i < vs_qp_count(); i++) {
        struct vs_qp *q = vs_qp_at(i);
        struct qp_state *st = q->layer[LAYER];
        if (!q->held || !st)
            continue;
        uint64_t due = st->first_ns + hold_ns;
        if (due <= now) {
            cause = DEADLINE;
            vs_flush(q);
        } else if (!next || due < next) {
            next = due;
        }
    }
    return next;
}

static void reorder_qp_gone(struct vs_qp *q)
{
    free(q->layer[LAYER]);
    q->layer[LAYER] = NULL;
}

static void reorder_summary(void)
{
    vs_log("reorder: seed %llu: %llu writes held in %llu batches (%llu full, %llu at an ordering "
           "point, %llu at the deadline), %llu placed out of order",
           (unsigned long long)vs_seed(), (unsigned long long)count.held,
           (unsigned long long)count.batches, (unsigned long long)count.by[FULL],
           (unsigned long long)count.by[ORDERING], (unsigned long long)count.by[DEADLINE],
           (unsigned long long)count.moved);
}

const struct vs_layer vs_reorder_layer = {
    .name = "reorder",
    .init = reorder_init,
    .post_send = reorder_post_send,
    .permute = reorder_permute,
    .tick = reorder_tick,
    .qp_gone = reorder_qp_gone,
    .summary = reorder_summary,
};
