/* staged.c - transfers without GPUDirect RDMA: GPU data crosses pinned host
 * bounce rings, with the GPU copies on the critical path, pipelined as
 * NCCL's proxy does it.
 *
 * The run is a stream of items (work requests): whole messages when they
 * fit a slot, else units of at most a slot. Consecutive items form a
 * group, the items one ring slot holds at once (several small messages,
 * or one unit); group g uses slot g % N at both ends (sizing.h has the
 * arithmetic). The source copies a group into its slot (when its buffer
 * is staged), then posts its items round robin over the QPs, keeping as
 * many items in flight as the direct path would keep messages (tx_depth x
 * QPs) and asking for a send completion only every few posts per QP, as
 * the direct loop does. A send carries its item number as immediate data.
 * Writes are plain except each QP's last of a group, a write with
 * immediate: RC places a QP's writes in order, so its receive completion
 * says that all of the group's writes on that QP have landed, and the
 * destination pays one receive per group and QP, not one per item (the
 * direct write pays none). The destination counts a group's arrivals,
 * copies the group out of its slot
 * (when staged) and then credits it: an RDMA write of the number of groups
 * landed into the source's credit word. A slot is reused only after its
 * credit is back, so the ring is never overrun, and the source's clock
 * stops at the last credit: the bandwidth counts bytes that have landed in
 * the destination's memory. Credits are writes, not sends, so they take no
 * receive from the data's queue: a bidirectional end runs a source and a
 * destination on the same QPs, with its ring's first N slots outgoing and
 * the next N incoming. */
#include "config.h"

#include "error.h"
#include "session.h"
#include "sizing.h"
#include "staged.h"
#include "transfer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define POLL_BATCH 32
/* Send completions of credit writes, told apart from the source's items. */
#define CREDIT_TAG (1ull << 63)

static void plan_for(const struct gdr_session *s, uint64_t size, struct gdr_stage_plan *p)
{
    const struct gdr_config *cfg = s->cfg;
    gdr_stage_plan(p, size, cfg->stage_slot, cfg->stage_slots,
                   gdr_slots_wanted(&s->roles, cfg->tx_depth, cfg->num_qps));
}

/* Ring slots of the incoming direction (after the outgoing ones when both). */
static unsigned in_base(const struct gdr_session *s)
{
    return s->roles.bidirectional ? s->cfg->stage_slots : 0;
}

/* Copy a group between the buffer and its ring slot, one copy per run of
 * items that are contiguous in both. */
static int copy_group(struct gdr_session *s, const struct gdr_stage_plan *p, uint64_t bslots,
                      uint64_t first, uint64_t end, bool out)
{
    struct gdr_buffer *b = &s->buf;
    uint64_t base = out ? 0 : s->dest_off;
    unsigned ring_base = out ? 0 : in_base(s);
    struct gdr_stage_item run = gdr_stage_item(p, bslots, first);
    uint64_t run_len = run.len;
    for (uint64_t i = first + 1; i <= end; i++) {
        struct gdr_stage_item x = {0, 0, 0, 0, 0};
        if (i < end) {
            x = gdr_stage_item(p, bslots, i);
            if (x.off == run.off + run_len && x.ring_off == run.ring_off + run_len) {
                run_len += x.len;
                continue;
            }
        }
        int rc =
            out ? b->ops->stage_out(b, ring_base + run.slot, run.ring_off, base + run.off, run_len)
                : b->ops->stage_in(b, ring_base + run.slot, run.ring_off, base + run.off, run_len);
        if (rc)
            return -1;
        run = x;
        run_len = x.len;
    }
    return 0;
}

/* Items i < x with i % nqp == q: how many of the first x items QP q carries. */
static uint64_t on_qp_below(uint64_t x, unsigned q, unsigned nqp)
{
    return x / nqp + (x % nqp > q);
}

/* Is item i the last of its group [.., end) on its QP? Such an item
 * carries the immediate that reports the QP's part of the group. */
static bool last_on_qp(uint64_t i, uint64_t end, unsigned nqp)
{
    return i + nqp >= end;
}

/* ---- source ---- */

struct source {
    struct gdr_stage_plan p;
    uint64_t bslots, iters, total, groups;
    uint64_t started, ready, posted, sent, credited; /* groups, groups, items, items, groups */
    unsigned nqp, sig;           /* QPs; a send completion every sig posts per QP */
    uint64_t qdepth;             /* most items per QP posted and not completed */
    uint64_t qdone[GDR_MAX_QPS]; /* items completed per QP */
    uint64_t start_ns, last_credit_ns;
    struct gdr_window window;
};

static void source_init(struct gdr_session *s, struct source *src, uint64_t size, uint64_t iters)
{
    memset(src, 0, sizeof(*src));
    plan_for(s, size, &src->p);
    src->bslots = gdr_slots_for(s, size);
    src->iters = iters;
    src->total = gdr_stage_items(&src->p, iters);
    src->groups = gdr_stage_groups(&src->p, iters);
    src->nqp = s->verbs.num_qps;
    /* As the direct loop: one completion frees many send-queue entries.
     * The queue also holds up to a credit write per slot (QP 0, when
     * bidirectional); the rest is the source's. */
    src->sig = s->cfg->tx_depth / 2 < 64 ? s->cfg->tx_depth / 2 : 64;
    if (!src->sig)
        src->sig = 1;
    src->qdepth = gdr_send_depth(s->cfg->tx_depth, s->cfg->stage_slots) - s->cfg->stage_slots;
    /* No credit of this phase can come before its first item is posted. */
    __atomic_store_n(&s->credit_page[0], 0, __ATOMIC_RELEASE);
    src->start_ns = src->last_credit_ns = gdr_now_ns();
}

static int post_item(struct gdr_session *s, const struct source *src, uint64_t i)
{
    const struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    struct gdr_stage_item x = gdr_stage_item(&src->p, src->bslots, i);
    unsigned q = (unsigned)(i % src->nqp);
    uint64_t n = i / src->nqp + 1; /* its number on QP q, from 1 */
    bool last = n == on_qp_below(src->total, q, src->nqp);
    enum ibv_wr_opcode op = s->roles.opcode;
    if (op == IBV_WR_RDMA_WRITE_WITH_IMM &&
        !last_on_qp(i, gdr_stage_group_start(&src->p, src->iters, x.group + 1), src->nqp))
        op = IBV_WR_RDMA_WRITE;
    struct gdr_wr wr = {
        .op = op,
        .len = x.len,
        .flags = n % src->sig == 0 || last ? IBV_SEND_SIGNALED : 0,
        .wr_id = i,
        .imm = (uint32_t)i,
        .laddr = gdr_buffer_staged(b)
                     ? (uintptr_t)(b->ring + (size_t)x.slot * b->slot_size + x.ring_off)
                     : (uintptr_t)b->addr + x.off,
        .lkey = gdr_buffer_staged(b) ? b->ring_mr->lkey : b->mr->lkey,
        .raddr = r->ring_bytes
                     ? r->ring_addr + (uint64_t)(in_base(s) + x.slot) * r->slot_bytes + x.ring_off
                     : r->addr + s->dest_off + x.off,
        .rkey = r->ring_bytes ? r->ring_rkey : r->rkey,
    };
    return gdr_post_send(s->verbs.qp[q], &wr);
}

/* May item i go on its QP's send queue now? */
static bool qp_has_room(const struct source *src, uint64_t i)
{
    unsigned q = (unsigned)(i % src->nqp);
    return on_qp_below(i, q, src->nqp) - src->qdone[q] < src->qdepth;
}

/* One round: take new credits, start groups into free slots, post the
 * items whose copies are done while the window allows. 1 when something
 * moved, 0 when not, -1 on error. */
static int source_step(struct gdr_session *s, struct source *src, uint64_t size)
{
    struct gdr_buffer *b = &s->buf;
    const struct gdr_stage_plan *p = &src->p;
    int moved = 0;
    uint64_t credited = __atomic_load_n(&s->credit_page[0], __ATOMIC_ACQUIRE);
    /* An older count can land after a newer one where the fabric places
     * writes out of order (adaptive routing): counts only go up, so a
     * smaller one is stale and waits for the next. */
    if (credited > src->credited) {
        if (credited > src->started)
            return gdr_fail(GDR_EXIT_RUN, "staged size %llu: credit for %llu groups, %llu sent",
                            (unsigned long long)size, (unsigned long long)credited,
                            (unsigned long long)src->started);
        src->credited = credited;
        /* The clock stops at the last credit; no read before (a clock read
         * is a system call where the clock source is not the TSC). */
        if (credited == src->groups)
            src->last_credit_ns = gdr_now_ns();
        moved = 1;
    }
    while (src->started < src->groups && src->started - src->credited < p->slots) {
        uint64_t g = src->started;
        if (gdr_buffer_staged(b) &&
            copy_group(s, p, src->bslots, gdr_stage_group_start(p, src->iters, g),
                       gdr_stage_group_start(p, src->iters, g + 1), true))
            return -1;
        src->started++;
        moved = 1;
    }
    if (!gdr_buffer_staged(b))
        src->ready = src->started;
    while (src->ready < src->started) {
        int done = b->ops->stage_done(b, (unsigned)(src->ready % p->slots));
        if (done < 0)
            return -1;
        if (!done)
            break;
        src->ready++;
    }
    uint64_t landed = gdr_stage_group_start(p, src->iters, src->credited);
    uint64_t ready_end = gdr_stage_group_start(p, src->iters, src->ready);
    uint64_t before = src->posted;
    /* Credits come through memory, not the CQ: bound what is posted by
     * the completions polled too, or the send queue overflows while
     * credits race ahead. A full queue always holds a signalled post
     * (qdepth >= sig), so its completion comes. */
    while (src->posted < ready_end && src->posted - landed < p->window &&
           qp_has_room(src, src->posted)) {
        if (post_item(s, src, src->posted))
            return -1;
        src->posted++;
    }
    if (src->posted == before)
        return moved;
    /* In flight: posted, and not yet credited (a message counts from its
     * first item to its last). */
    gdr_window_note(&src->window, gdr_stage_msgs_before(p, src->posted) - landed / p->items_per_msg,
                    gdr_stage_bytes_before(p, src->posted) - gdr_stage_bytes_before(p, landed));
    return 1;
}

static bool source_done(const struct source *src)
{
    return src->credited == src->groups && src->sent == src->total;
}

static void source_measure(const struct source *src, uint64_t size, struct gdr_measure *m)
{
    uint64_t iters = src->iters;
    uint64_t elapsed = src->last_credit_ns - src->start_ns;
    m->iters = iters;
    m->elapsed_ns = elapsed;
    m->bytes = iters * size;
    m->bw_avg = m->bw_peak = gdr_bandwidth(m->bytes, elapsed);
    m->msg_rate = elapsed ? (double)iters * 1e9 / (double)elapsed : 0;
    m->window = src->window;
}

/* ---- destination ---- */

struct dest {
    struct gdr_stage_plan p;
    uint64_t bslots, iters, total, groups;
    uint64_t receiving;                    /* groups whose receives are posted */
    uint64_t copied, landed;               /* groups copied out of their slot, credited */
    uint64_t credit_sent;                  /* the last credit value written */
    uint64_t credit_batch;                 /* groups landed before a credit goes out */
    unsigned writes_out;                   /* credit writes not yet completed */
    uint64_t arrived[GDR_STAGE_SLOTS_MAX]; /* items arrived, per slot */
};

/* A group's receives: one per item, into its slot (or its place in the
 * buffer) for a send; for writes one without a buffer per QP, for the
 * write with immediate that ends the QP's part of the group (its data is
 * in place when the receive completes). Item i arrives on QP i % QPs,
 * whose receives are consumed in the order they were posted. */
static int post_group_recvs(struct gdr_session *s, const struct dest *d, uint64_t g)
{
    const struct gdr_buffer *b = &s->buf;
    unsigned nqp = s->verbs.num_qps;
    uint64_t end = gdr_stage_group_start(&d->p, d->iters, g + 1);
    for (uint64_t i = gdr_stage_group_start(&d->p, d->iters, g); i < end; i++) {
        struct ibv_qp *qp = s->verbs.qp[i % nqp];
        int rc;
        if (!s->roles.dest_recv_has_data) {
            if (!last_on_qp(i, end, nqp))
                continue;
            rc = gdr_post_recv(qp, 0, 0, 0, i);
        } else {
            struct gdr_stage_item x = gdr_stage_item(&d->p, d->bslots, i);
            if (gdr_buffer_staged(b))
                rc = gdr_post_recv(qp,
                                   (uintptr_t)(b->ring +
                                               (size_t)(in_base(s) + x.slot) * b->slot_size +
                                               x.ring_off),
                                   b->ring_mr->lkey, x.len, i);
            else
                rc = gdr_post_recv(qp, (uintptr_t)b->addr + s->dest_off + x.off, b->mr->lkey, x.len,
                                   i);
        }
        if (rc)
            return -1;
    }
    return 0;
}

static void dest_init(struct gdr_session *s, struct dest *d, uint64_t size, uint64_t iters)
{
    memset(d, 0, sizeof(*d));
    plan_for(s, size, &d->p);
    d->bslots = gdr_slots_for(s, size);
    d->iters = iters;
    d->total = gdr_stage_items(&d->p, iters);
    d->groups = gdr_stage_groups(&d->p, iters);
    d->receiving = d->groups < d->p.slots ? d->groups : d->p.slots;
    d->credit_batch = gdr_stage_credit_batch(&d->p);
}

int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters)
{
    struct dest d;
    dest_init(s, &d, size, iters);
    for (uint64_t g = 0; g < d.receiving; g++)
        if (post_group_recvs(s, &d, g))
            return -1;
    return 0;
}

/* The number of groups landed, into the source's credit word. */
static int write_credit(struct gdr_session *s, struct dest *d)
{
    s->credit_page[1] = d->landed;
    struct gdr_wr wr = {
        .op = IBV_WR_RDMA_WRITE,
        .len = sizeof(uint64_t),
        .flags = IBV_SEND_SIGNALED,
        .wr_id = CREDIT_TAG | d->landed,
        .laddr = (uintptr_t)&s->credit_page[1],
        .lkey = s->credit_mr->lkey,
        .raddr = s->remote.credit_addr,
        .rkey = s->remote.credit_rkey,
    };
    if (gdr_post_send(s->verbs.qp[0], &wr))
        return -1;
    d->credit_sent = d->landed;
    d->writes_out++;
    return 0;
}

static int dest_arrivals(struct gdr_session *s, struct dest *d, struct gdr_watchdog *w,
                         uint64_t size)
{
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.recv_cq, POLL_BATCH, wc, "staged receive");
    unsigned nqp = s->verbs.num_qps;
    for (int k = 0; k < got; k++) {
        uint64_t i = wc[k].wr_id;
        struct gdr_stage_item x = gdr_stage_item(&d->p, d->bslots, i);
        if (i >= d->total || ntohl(wc[k].imm_data) != (uint32_t)i ||
            (s->roles.dest_recv_has_data && wc[k].byte_len != x.len))
            return gdr_fail(GDR_EXIT_RUN,
                            "staged size %llu: item %u (%u bytes) arrived where "
                            "item %llu (%u bytes) was expected",
                            (unsigned long long)size, ntohl(wc[k].imm_data), wc[k].byte_len,
                            (unsigned long long)i, x.len);
        if (s->roles.dest_recv_has_data) {
            d->arrived[x.slot]++;
        } else {
            /* The QP's part of the group, all landed before its immediate. */
            unsigned q = (unsigned)(i % nqp);
            uint64_t first = gdr_stage_group_start(&d->p, d->iters, x.group);
            uint64_t end = gdr_stage_group_start(&d->p, d->iters, x.group + 1);
            d->arrived[x.slot] += on_qp_below(end, q, nqp) - on_qp_below(first, q, nqp);
        }
    }
    return got;
}

static int dest_step(struct gdr_session *s, struct dest *d, struct gdr_watchdog *w, uint64_t size)
{
    struct gdr_buffer *b = &s->buf;
    const struct gdr_stage_plan *p = &d->p;
    int moved = dest_arrivals(s, d, w, size);
    if (moved < 0)
        return -1;
    /* Copy out the oldest groups whose items have all arrived. */
    while (d->copied < d->landed + p->slots && d->copied < d->groups) {
        uint64_t first = gdr_stage_group_start(p, d->iters, d->copied);
        uint64_t end = gdr_stage_group_start(p, d->iters, d->copied + 1);
        unsigned k = (unsigned)(d->copied % p->slots);
        if (d->arrived[k] < end - first)
            break;
        if (gdr_buffer_staged(b) && copy_group(s, p, d->bslots, first, end, false))
            return -1;
        d->arrived[k] = 0;
        d->copied++;
        moved = 1;
    }
    /* Land them in order: the slot's next receives go up before its credit
     * goes out. */
    uint64_t before = d->landed;
    while (d->landed < d->copied) {
        if (gdr_buffer_staged(b)) {
            int done = b->ops->stage_done(b, in_base(s) + (unsigned)(d->landed % p->slots));
            if (done < 0)
                return -1;
            if (!done)
                break;
        }
        if (d->receiving < d->groups && post_group_recvs(s, d, d->receiving++))
            return -1;
        d->landed++;
    }
    /* One write carries every group landed since the last, once a batch
     * has landed (or the last group): a credit is a packet and a post for
     * both ends, and the source has slots to spare meanwhile. A slot's
     * worth of writes outstanding at most, so the send queue cannot
     * overflow. */
    if (d->landed != d->credit_sent &&
        (d->landed - d->credit_sent >= d->credit_batch || d->landed == d->groups) &&
        d->writes_out < p->slots && write_credit(s, d))
        return -1;
    return moved || d->landed != before;
}

static bool dest_done(const struct dest *d)
{
    return d->landed == d->groups && d->credit_sent == d->groups && !d->writes_out;
}

/* ---- the loop: a source, a destination, or both (bidirectional) ---- */

/* Idle rounds a destination spins before it sleeps on its receive CQ. */
#define IDLE_ROUNDS_BEFORE_SLEEP 64
/* Longest sleep, so that the watchdog still sees a peer gone or Ctrl-C. */
#define SLEEP_MS 100

/* Is all a destination waits for an arrival (no copy, credit or credit
 * completion of its own pending)? Then it may sleep: a direct write's
 * target does not run at all, and a core spinning here is a core the NIC
 * (rxe: the kernel on the same CPUs) does not get. */
static bool dest_only_waits_arrivals(const struct dest *d)
{
    return d->copied == d->landed && d->copied < d->groups && !d->writes_out;
}

/* Sleep until the receive CQ has an entry, armed first (1: armed, look
 * again before sleeping), or SLEEP_MS. 0 after a sleep, -1 on error. */
static int dest_sleep(struct gdr_session *s, struct gdr_watchdog *w, bool *armed)
{
    struct ibv_comp_channel *ch = s->verbs.recv_channel;
    if (!*armed) {
        if (ibv_req_notify_cq(s->verbs.recv_cq, 0))
            return gdr_fail(GDR_EXIT_RUN, "ibv_req_notify_cq failed at size %llu",
                            (unsigned long long)w->size);
        *armed = true;
        return 1;
    }
    struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
    int n = poll(&pfd, 1, SLEEP_MS);
    if (n > 0) {
        struct ibv_cq *cq;
        void *ctx;
        if (ibv_get_cq_event(ch, &cq, &ctx))
            return gdr_fail(GDR_EXIT_RUN, "ibv_get_cq_event failed at size %llu",
                            (unsigned long long)w->size);
        ibv_ack_cq_events(cq, 1);
        *armed = false;
        return 0;
    }
    if (n < 0 && errno != EINTR)
        return gdr_fail(GDR_EXIT_RUN, "poll on the receive CQ's channel failed: %s",
                        strerror(errno));
    /* Nothing for SLEEP_MS: what an idle poll's watchdog check does. */
    return gdr_watchdog_check_bumps(w);
}

static int poll_sends(struct gdr_session *s, struct gdr_watchdog *w, struct source *src,
                      struct dest *d)
{
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.send_cq, POLL_BATCH, wc,
                          src ? gdr_verb_name(s->test->verb) : "credit write");
    for (int k = 0; k < got; k++) {
        if (wc[k].wr_id & CREDIT_TAG) {
            if (!d || !d->writes_out)
                return gdr_fail(GDR_EXIT_RUN, "staged: a credit write completed that was not "
                                              "posted");
            d->writes_out--;
        } else if (src) {
            /* RC completes a QP's posts in order: all before this one are done. */
            uint64_t i = wc[k].wr_id;
            unsigned q = (unsigned)(i % src->nqp);
            uint64_t n = i / src->nqp + 1;
            if (n > src->qdone[q]) {
                src->sent += n - src->qdone[q];
                src->qdone[q] = n;
            }
        }
    }
    return got;
}

/* The message an item's work request carried (for a failure); a credit
 * write is none. */
static uint64_t staged_message(const struct gdr_watchdog *w, uint64_t wr_id)
{
    const struct gdr_stage_plan *p = w->loop;
    return wr_id & CREDIT_TAG ? GDR_ERROR_UNKNOWN : wr_id / p->items_per_msg;
}

static int staged_loop(struct gdr_session *s, uint64_t size, uint64_t iters, bool is_source,
                       bool is_dest, struct gdr_measure *m)
{
    struct source src;
    struct dest *d = NULL;
    struct gdr_watchdog w;
    if (is_dest && !(d = malloc(sizeof(*d))))
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    if (is_dest)
        dest_init(s, d, size, iters);
    if (is_source)
        source_init(s, &src, size, iters);
    gdr_watchdog_start(&w, s, size, gdr_now_ns());
    w.wr_iteration = staged_message;
    w.loop = is_source ? &src.p : &d->p;
    int rc = 0;
    unsigned idle = 0;
    bool armed = false; /* the receive CQ will signal its channel */
    bool may_sleep = !is_source && s->verbs.recv_channel;
    while ((is_source && !source_done(&src)) || (d && !dest_done(d))) {
        int moved = 0, r = 0;
        if (is_source && (r = source_step(s, &src, size)) > 0)
            moved = 1;
        if (r >= 0 && d && (r = dest_step(s, d, &w, size)) > 0)
            moved = 1;
        if (r >= 0 && (r = poll_sends(s, &w, is_source ? &src : NULL, d)) > 0)
            moved = 1;
        if (r < 0) {
            rc = -1;
            break;
        }
        if (gdr_interrupted) {
            rc = gdr_fail_interrupted(size);
            break;
        }
        if (moved) { /* an idle poll has already ticked the watchdog */
            gdr_watchdog_bump(&w);
            idle = 0;
        } else if (may_sleep && ++idle >= IDLE_ROUNDS_BEFORE_SLEEP && dest_only_waits_arrivals(d) &&
                   dest_sleep(s, &w, &armed) < 0) {
            rc = -1;
            break;
        }
        /* Waiting on a copy of ours, not on the peer: the watchdog says so. */
        w.copy_pending = gdr_buffer_staged(&s->buf) &&
                         ((is_source && src.ready < src.started) || (d && d->landed < d->copied));
    }
    if (!rc && is_source)
        source_measure(&src, size, m);
    free(d);
    return rc;
}

int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    return staged_loop(s, size, iters, true, false, m);
}

int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    return staged_loop(s, size, iters, false, true, m);
}

int gdr_staged_both(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    return staged_loop(s, size, iters, true, true, m);
}

/* ---- credits: one registered word each way ---- */

int gdr_staged_credits_setup(struct gdr_session *s)
{
    void *page;
    int rc = posix_memalign(&page, 4096, 4096);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for the credit page: %s", strerror(rc));
    memset(page, 0, 4096);
    s->credit_page = page;
    s->credit_mr =
        ibv_reg_mr(s->verbs.pd, page, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!s->credit_mr)
        return gdr_fail(GDR_EXIT_RUN, "ibv_reg_mr of the credit page failed: %s", strerror(errno));
    s->local.credit_addr = (uintptr_t)&s->credit_page[0];
    s->local.credit_rkey = s->credit_mr->rkey;
    return 0;
}

void gdr_staged_credits_release(struct gdr_session *s)
{
    if (s->credit_mr)
        ibv_dereg_mr(s->credit_mr);
    free(s->credit_page);
    s->credit_mr = NULL;
    s->credit_page = NULL;
}

/* ---- read: pre-staging on the responder ---- */

int gdr_staged_prestage(struct gdr_session *s, uint64_t size, uint64_t *elapsed_ns)
{
    struct gdr_buffer *b = &s->buf;
    if (size > b->ring_len)
        return gdr_fail(GDR_EXIT_USAGE,
                        "size %llu does not fit the %zu-byte bounce ring "
                        "(raise --stage-slot or --stage-slots)",
                        (unsigned long long)size, b->ring_len);
    struct gdr_watchdog w;
    uint64_t t0 = gdr_now_ns();
    gdr_watchdog_start(&w, s, size, t0);
    if (b->ops->stage_out(b, 0, 0, 0, size) || gdr_wait_copy(&w, b, 0))
        return -1;
    *elapsed_ns = gdr_now_ns() - t0;
    return 0;
}
