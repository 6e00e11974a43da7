/* staged_read.c - RDMA read bandwidth when the requester is staged.
 *
 * The reads are cut and grouped as the staged writes are (sizing.h: items
 * of at most a slot, a group per ring slot, group g in slot g % N): the
 * requester reads a group's items into its ring slot, round robin over the
 * QPs, as many messages in flight as the direct sender keeps (tx_depth x
 * QPs, or what the ring holds).
 * Once every item of the oldest group has completed (the last of a group
 * on each QP is signalled; RC completes a QP's reads in order), it copies
 * the group on into GPU memory (cuMemcpyHtoDAsync); the slot takes the
 * next group when that copy is done. The clock stops when the last copy
 * is done, so bandwidth counts bytes in the requester's GPU memory. The
 * responder's side is what it always is for a read: nothing, or (staged)
 * its data pre-staged into its ring before the loop. */
#include "config.h"

#include "error.h"
#include "loops.h"
#include "sizing.h"
#include "transfer.h"

#include <string.h>

#define POLL_BATCH 32

struct reader {
    struct gdr_stage_plan p;
    uint64_t bslots, iters, total, groups;
    uint64_t posted, copied, landed; /* items; groups copy started; groups in GPU memory */
    uint64_t qdone[GDR_MAX_QPS];     /* completed items per QP (their count) */
    unsigned nqp, sig;
    uint64_t start_ns, end_ns;
    struct gdr_peak_tracker steady; /* in bytes landed in GPU memory */
    struct gdr_window window;
};

static uint64_t group_start(const struct reader *rd, uint64_t g)
{
    return gdr_stage_group_start(&rd->p, rd->iters, g);
}

/* Items i < x that go to QP q. */
static uint64_t on_qp(uint64_t x, unsigned q, unsigned nqp)
{
    return x / nqp + (x % nqp > q);
}

static int post_read(struct gdr_session *s, const struct reader *rd, uint64_t i)
{
    const struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    struct gdr_stage_item x = gdr_stage_item(&rd->p, rd->bslots, i);
    unsigned q = (unsigned)(i % rd->nqp);
    uint64_t n = i / rd->nqp + 1; /* its number on QP q, from 1 */
    /* Signalled: the last of its group on its QP (that completion says the
     * QP's part has landed), the last on the QP, and every sig-th. */
    bool tell = i + rd->nqp >= group_start(rd, x.group + 1) || n % rd->sig == 0;
    struct gdr_wr wr = {
        .op = IBV_WR_RDMA_READ,
        .len = x.len,
        .flags = tell ? IBV_SEND_SIGNALED : 0,
        .wr_id = i,
        .laddr = (uintptr_t)(b->ring + (size_t)x.slot * b->slot_size + x.ring_off),
        .lkey = b->ring_mr->lkey,
        .raddr = (r->ring_bytes ? r->ring_addr : r->addr) + x.off,
        .rkey = r->ring_bytes ? r->ring_rkey : r->rkey,
    };
    return gdr_post_send(s->verbs.qp[q], &wr);
}

/* Post what the ring slots, the QPs' depth and the window allow. */
static int post_reads(struct gdr_session *s, struct reader *rd)
{
    uint64_t before = rd->posted, landed_items = group_start(rd, rd->landed);
    /* The window (p.window) is the direct path's in messages; a message
     * cut into units takes several send-queue entries of its QP. */
    unsigned depth = gdr_send_depth(s->cfg->tx_depth, s->cfg->stage_slots);
    while (rd->posted < rd->total) {
        uint64_t i = rd->posted;
        unsigned q = (unsigned)(i % rd->nqp);
        if (i / rd->p.per_group >= rd->landed + rd->p.slots ||
            on_qp(i, q, rd->nqp) - rd->qdone[q] >= depth || i - landed_items >= rd->p.window)
            break;
        if (post_read(s, rd, i))
            return -1;
        rd->posted++;
    }
    if (rd->posted != before) {
        const struct gdr_stage_plan *p = &rd->p;
        gdr_window_note(
            &rd->window, gdr_stage_msgs_before(p, rd->posted) - landed_items / p->items_per_msg,
            gdr_stage_bytes_before(p, rd->posted) - gdr_stage_bytes_before(p, landed_items));
    }
    return 0;
}

static int poll_reads(struct gdr_session *s, struct reader *rd, struct gdr_watchdog *w)
{
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.send_cq, POLL_BATCH, wc, "RDMA read");
    for (int k = 0; k < got; k++) {
        uint64_t i = wc[k].wr_id, n = i / rd->nqp + 1;
        unsigned q = (unsigned)(i % rd->nqp);
        if (n > rd->qdone[q])
            rd->qdone[q] = n;
    }
    return got;
}

/* A group's items sit back to back in its ring slot, and in the buffer
 * too except where the buffer's message slots wrap: one copy per run. */
static int copy_group_in(struct gdr_session *s, const struct reader *rd, uint64_t g)
{
    struct gdr_buffer *b = &s->buf;
    uint64_t end = group_start(rd, g + 1);
    for (uint64_t i = group_start(rd, g); i < end;) {
        struct gdr_stage_item x = gdr_stage_item(&rd->p, rd->bslots, i);
        uint64_t len = x.len;
        for (i++; i < end && gdr_stage_item(&rd->p, rd->bslots, i).off == x.off + len; i++)
            len += gdr_stage_item(&rd->p, rd->bslots, i).len;
        if (b->ops->stage_in(b, x.slot, x.ring_off, x.off, len))
            return -1;
    }
    return 0;
}

/* Has every item of group g completed? */
static bool group_read(const struct reader *rd, uint64_t g)
{
    uint64_t first = group_start(rd, g), end = group_start(rd, g + 1);
    for (unsigned q = 0; q < rd->nqp; q++)
        if (on_qp(end, q, rd->nqp) > on_qp(first, q, rd->nqp) &&
            rd->qdone[q] < on_qp(end, q, rd->nqp))
            return false;
    return true;
}

/* Copy on the groups that have been read, in order; free the slots whose
 * copies are done. 1 when something moved, 0 not, -1 on error. */
static int land_groups(struct gdr_session *s, struct reader *rd)
{
    struct gdr_buffer *b = &s->buf;
    int moved = 0;
    while (rd->copied < rd->groups && group_read(rd, rd->copied)) {
        if (copy_group_in(s, rd, rd->copied))
            return -1;
        rd->copied++;
        moved = 1;
    }
    uint64_t was = rd->landed;
    int done = 1;
    while (rd->landed < rd->copied &&
           (done = b->ops->stage_done(b, (unsigned)(rd->landed % rd->p.slots))) > 0)
        rd->landed++;
    if (done < 0)
        return -1;
    /* One clock read per batch landed: the slices of steadiness, and the
     * clock stops at the last group. */
    if (rd->landed > was) {
        uint64_t now = gdr_now_ns();
        gdr_peak_update(&rd->steady, gdr_stage_bytes_before(&rd->p, group_start(rd, rd->landed)),
                        now);
        if (rd->landed == rd->groups)
            rd->end_ns = now;
        moved = 1;
    }
    return moved;
}

int gdr_staged_reader(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    const struct gdr_config *cfg = s->cfg;
    struct reader rd;
    struct gdr_watchdog w;
    memset(&rd, 0, sizeof(rd));
    gdr_stage_plan(&rd.p, size, cfg->stage_slot, cfg->stage_slots,
                   gdr_slots_wanted(&s->roles, cfg->tx_depth, cfg->num_qps));
    rd.bslots = gdr_slots_for(s, size);
    rd.iters = iters;
    rd.total = gdr_stage_items(&rd.p, iters);
    rd.groups = gdr_stage_groups(&rd.p, iters);
    rd.nqp = s->verbs.num_qps;
    rd.sig = cfg->tx_depth / 2 < 64 ? cfg->tx_depth / 2 : 64;
    if (!rd.sig)
        rd.sig = 1;
    rd.start_ns = gdr_now_ns();
    gdr_peak_start(&rd.steady, 1, size * iters, 0, rd.start_ns);
    gdr_watchdog_start(&w, s, size, rd.start_ns);
    while (rd.landed < rd.groups) {
        int moved, got;
        if (post_reads(s, &rd) || (got = poll_reads(s, &rd, &w)) < 0 ||
            (moved = land_groups(s, &rd)) < 0)
            return -1;
        if (got > 0 || moved)
            gdr_watchdog_bump(&w);
        /* Waiting on our copy, not on the peer: the watchdog says so. */
        w.copy_pending = rd.landed < rd.copied;
        if (gdr_interrupted)
            return gdr_fail_interrupted(size);
    }
    m->iters = iters;
    m->window = rd.window;
    gdr_peak_steadiness(&rd.steady, &m->steady);
    gdr_measure_finish(m, size, iters, rd.end_ns - rd.start_ns);
    return 0;
}
