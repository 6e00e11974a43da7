/* staged.c - copy-engine staging: transfers without GPUDirect RDMA, GPU
 * data crossing pinned host bounce rings with the GPU's copy engines
 * (cuMemcpy*Async) on the critical path, pipelined across slots. (NCCL
 * without GDR copies with the GPU's SMs instead; this path measures what
 * the copy engines and the host memory give.)
 *
 * The run is a stream of items (work requests): whole messages when they
 * fit a slot, else units of at most a slot. Consecutive items form a
 * group, the items one ring slot holds at once (several small messages,
 * or one unit); group g uses slot g % N at both ends (sizing.h has the
 * arithmetic). The source copies a group into its slot (when its buffer
 * is staged), then posts its items round robin over the QPs, keeping as
 * many items in flight as the direct path would keep messages (tx_depth x
 * QPs) and asking for a send completion every few posts per QP, as the
 * direct loop does. A send carries its item number as immediate data.
 * Writes are plain RDMA writes, and after a group's last item on each QP
 * that carries part of it comes a zero-byte write with immediate (the
 * group's number): its receive completion at the destination says that
 * every earlier write of that QP has landed, whatever order the fabric
 * placed them in (adaptive routing), and the data writes are routed as
 * the direct path's are. A slot is refilled only once the requests that
 * read it have completed (a retransmission re-reads the slot until its
 * request completes): the marker (for sends, the group's last item on the
 * QP) of every few groups is signalled for that.
 *
 * The destination counts a group's arrivals, copies the group out of its
 * slot (when staged) and credits it: the source has one credit entry per
 * slot, and the destination writes g + 1 into entry g % N (one RDMA write
 * for a run of consecutive entries). Entries are written by at most one
 * write in flight each, and a source takes entry g % N only when it holds
 * exactly g + 1, so any placement order of the credit writes ends with
 * the right entries (docs/architecture.md). The destination's own copy of
 * an entry is not rewritten until the write that read it completed. A
 * slot is reused only after its credit is back, so the ring is never
 * overrun, and the source's clock stops at the last credit: the bandwidth
 * counts bytes that have landed in the destination's memory. Credits are
 * writes, not sends, so they take no receive from the data's queue: a
 * bidirectional end runs a source and a destination on the same QPs, with
 * its ring's first N slots outgoing and the next N incoming. */
#include "config.h"

#include "error.h"
#include "loops.h"
#include "sizing.h"
#include "transfer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLL_BATCH 32
/* Send completions of credit writes, told apart from the source's items;
 * the rest of their wr_id is the number of groups the write credits. */
#define CREDIT_TAG (1ull << 63)
/* The source's work requests: the QP above QP_SHIFT, its number on that
 * QP (from 1) below. */
#define QP_SHIFT 48
#define SEQ_MASK ((1ull << QP_SHIFT) - 1)
/* The credit page: the entries the peer's destination writes (one per
 * slot of this end's outgoing ring), then this end's destination's copy
 * of the entries it writes to the peer. */
#define CREDIT_IN 0
#define CREDIT_OUT GDR_STAGE_SLOTS_MAX
#define CREDIT_PAGE 4096
_Static_assert(2 * GDR_STAGE_SLOTS_MAX * sizeof(uint64_t) <= CREDIT_PAGE, "credit page");
/* A destination with nothing to do but wait for arrivals spins this long
 * before it sleeps on its receive CQ (unless --events): longer than a
 * credit round trip on real hardware, so a window-limited run does not
 * pay a wake-up per round trip, which the direct path never pays. */
#define SPIN_NS 1000000ull
/* The spin's clock reads (gdr_cadence_read): at least 100 us apart, a few
 * before SPIN_NS is up. One read every 64 idle rounds was one or two a
 * message at 1 KiB in the lab (hpet: a system call each; 6 % of the
 * staged path's speed there, docs/benchmarking.md). */
#define SPIN_READ_MIN_NS 100000ull
#define SPIN_READ_MAX_NS 250000ull

/* What both ends derive the same way for one phase of one size. */
struct run {
    struct gdr_stage_plan p;
    uint64_t bslots, iters, total, groups; /* buffer slots, items, groups */
    unsigned nqp;
};

static void run_init(const struct gdr_session *s, struct run *r, uint64_t size, uint64_t iters)
{
    const struct gdr_config *cfg = s->cfg;
    gdr_stage_plan(&r->p, size, cfg->stage_slot, cfg->stage_slots,
                   gdr_slots_wanted(&s->roles, cfg->tx_depth, cfg->num_qps));
    r->bslots = gdr_slots_for(s, size);
    r->iters = iters;
    r->total = gdr_stage_items(&r->p, iters);
    r->groups = gdr_stage_groups(&r->p, iters);
    r->nqp = s->verbs.num_qps;
}

/* The first item of group g (the total past the last group). */
static uint64_t first_of(const struct run *r, uint64_t g)
{
    return gdr_stage_group_start(&r->p, r->iters, g);
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

/* Is item i the last of its group [.., end) on its QP? Then the QP's
 * part of the group ends with it (and, for writes, the marker after it). */
static bool last_on_qp(uint64_t i, uint64_t end, unsigned nqp)
{
    return i + nqp >= end;
}

/* ---- source ---- */

struct source {
    struct run r;
    bool markers; /* writes: a zero-byte write with immediate ends each QP's part of a group */
    uint64_t started, ready, posted; /* groups copied in, groups ready, items posted */
    uint64_t credited, completed;    /* groups credited, groups whose requests completed */
    uint64_t ended;                  /* groups wholly posted */
    unsigned sig;                    /* a send completion at least every sig posts per QP */
    uint64_t sig_groups;             /* and a group's end on it sig_groups after the last */
    uint64_t sig_group[GDR_MAX_QPS]; /* per QP: the last group whose end was signalled, + 1 */
    uint64_t qdepth;                 /* most requests per QP posted and not completed */
    uint64_t wrs[GDR_MAX_QPS], wdone[GDR_MAX_QPS]; /* requests per QP: posted, completed */
    /* Per slot: each QP's request count once the slot's group was wholly
     * posted; the group has completed when every QP has completed that many. */
    uint64_t (*ends)[GDR_MAX_QPS];
    uint64_t start_ns, last_credit_ns;
    /* Steadiness, in bytes credited: groups hold whole items, and the
     * bytes before a group count a message's short last item right. */
    struct gdr_peak_tracker steady;
    struct gdr_window window;
    uint64_t size;
};

static int source_init(struct gdr_session *s, struct source *src, uint64_t size, uint64_t iters)
{
    memset(src, 0, sizeof(*src));
    run_init(s, &src->r, size, iters);
    src->size = size;
    src->markers = s->roles.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
    if (!(src->ends = calloc(src->r.p.slots, sizeof(*src->ends))))
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    /* As the direct loop: one completion frees many send-queue entries.
     * The queue also holds up to a credit write per slot (QP 0, when
     * bidirectional); the rest is the source's, markers included. */
    src->sig = s->cfg->tx_depth / 2 < 64 ? s->cfg->tx_depth / 2 : 64;
    if (!src->sig)
        src->sig = 1;
    /* A slot is refilled once the requests that read it completed: a
     * group's end on a QP is signalled when the last one signalled there
     * is a quarter of the ring's groups back, not for every group, which
     * would cost a completion per group where the direct path takes one
     * per 64 posts. A QP that carries a group every p groups then has a
     * signalled end within N/4 + p groups of any group's end if p < N/4,
     * and at every end if not: always before the slot is wanted again, N
     * groups on. The QP's last request of the run is always signalled. */
    src->sig_groups = src->r.p.slots / 4 ? src->r.p.slots / 4 : 1;
    src->qdepth = gdr_send_depth(s->cfg->tx_depth, s->cfg->stage_slots) - s->cfg->stage_slots;
    /* No credit of this phase can come before its first item is posted;
     * every credit write of the last phase completed before it ended. */
    for (unsigned k = 0; k < src->r.p.slots; k++)
        __atomic_store_n(&s->credit_page[CREDIT_IN + k], 0, __ATOMIC_RELEASE);
    src->start_ns = src->last_credit_ns = gdr_now_ns();
    gdr_peak_start(&src->steady, 1, size * iters, 0, src->start_ns);
    return 0;
}

static int post_wr(struct gdr_session *s, struct source *src, unsigned q, struct gdr_wr *wr,
                   bool signal)
{
    uint64_t n = ++src->wrs[q];
    wr->wr_id = ((uint64_t)q << QP_SHIFT) | n;
    wr->flags = signal || n % src->sig == 0 ? IBV_SEND_SIGNALED : 0;
    return gdr_post_send(s->verbs.qp[q], wr);
}

/* Post item i, and after it the marker when it ends its QP's part of the
 * group (the caller made room for both). */
static int post_item(struct gdr_session *s, struct source *src, uint64_t i)
{
    const struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    const struct run *run = &src->r;
    struct gdr_stage_item x = gdr_stage_item(&run->p, run->bslots, i);
    unsigned q = (unsigned)(i % run->nqp);
    bool end = last_on_qp(i, first_of(run, x.group + 1), run->nqp);
    bool signal =
        end && (!src->sig_group[q] || x.group + 1 - src->sig_group[q] >= src->sig_groups ||
                last_on_qp(i, run->total, run->nqp));
    if (signal)
        src->sig_group[q] = x.group + 1;
    struct gdr_wr wr = {
        .op = src->markers ? IBV_WR_RDMA_WRITE : s->roles.opcode,
        .len = x.len,
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
    if (post_wr(s, src, q, &wr, signal && !src->markers))
        return -1;
    if (!end || !src->markers)
        return 0;
    wr.op = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.len = 0;
    wr.imm = (uint32_t)x.group;
    return post_wr(s, src, q, &wr, signal);
}

/* May item i (and its marker) go on its QP's send queue now? */
static bool qp_has_room(const struct source *src, uint64_t i)
{
    unsigned q = (unsigned)(i % src->r.nqp);
    unsigned need = 1 + (src->markers &&
                         last_on_qp(i, first_of(&src->r, i / src->r.p.per_group + 1), src->r.nqp));
    return src->wrs[q] - src->wdone[q] + need <= src->qdepth;
}

/* Take the credits the peer's destination has written: entry g % N holds
 * g + 1 once group g has landed. 1 when something moved, -1 on a credit
 * no group sent can have earned. */
static int take_credits(struct gdr_session *s, struct source *src)
{
    unsigned n = src->r.p.slots;
    int moved = 0;
    while (src->credited < src->started) {
        unsigned k = (unsigned)(src->credited % n);
        uint64_t v = __atomic_load_n(&s->credit_page[CREDIT_IN + k], __ATOMIC_ACQUIRE);
        if (v == src->credited + 1) {
            src->credited++;
            moved = 1;
            continue;
        }
        /* 0, or an older group's entry not yet rewritten: wait. */
        if (v && ((v - 1) % n != k || v - 1 > src->credited))
            return gdr_fail(GDR_EXIT_RUN,
                            "staged size %llu: a credit for group %llu in slot %u, %llu groups "
                            "sent",
                            (unsigned long long)src->size, (unsigned long long)(v - 1), k,
                            (unsigned long long)src->started);
        break;
    }
    /* One clock read per batch of credits taken, as the direct loop reads
     * it per completion poll that moved: the slices of steadiness, and the
     * clock stops at the last credit. */
    if (moved) {
        uint64_t now = gdr_now_ns();
        uint64_t items = gdr_stage_group_start(&src->r.p, src->r.iters, src->credited);
        gdr_peak_update(&src->steady, gdr_stage_bytes_before(&src->r.p, items), now);
        if (src->credited == src->r.groups)
            src->last_credit_ns = now;
    }
    return moved;
}

/* Groups whose every request has completed, in order. */
static void note_completed(struct source *src)
{
    while (src->completed < src->ended) {
        const uint64_t *end = src->ends[src->completed % src->r.p.slots];
        for (unsigned q = 0; q < src->r.nqp; q++)
            if (src->wdone[q] < end[q])
                return;
        src->completed++;
    }
}

/* One round: take new credits, start groups into free slots, post the
 * items whose copies are done while the window allows. 1 when something
 * moved, 0 when not, -1 on error. */
static int source_step(struct gdr_session *s, struct source *src)
{
    struct gdr_buffer *b = &s->buf;
    const struct run *r = &src->r;
    const struct gdr_stage_plan *p = &r->p;
    int moved = take_credits(s, src);
    if (moved < 0)
        return -1;
    note_completed(src);
    /* A slot is refilled once its last group is credited and every request
     * that read it has completed. */
    while (src->started < r->groups && src->started - src->credited < p->slots &&
           src->started - src->completed < p->slots) {
        uint64_t g = src->started;
        if (gdr_buffer_staged(b) &&
            copy_group(s, p, r->bslots, first_of(r, g), first_of(r, g + 1), true))
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
    uint64_t landed = first_of(r, src->credited);
    uint64_t ready_end = first_of(r, src->ready);
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
        if (src->posted == first_of(r, src->ended + 1)) {
            memcpy(src->ends[src->ended % p->slots], src->wrs, r->nqp * sizeof(src->wrs[0]));
            src->ended++;
        }
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
    return src->credited == src->r.groups && src->completed == src->r.groups;
}

static void source_note(const void *arg, char *buf, size_t len)
{
    const struct source *src = arg;
    snprintf(buf, len,
             "staged source: credits seen for %llu groups, %llu of %llu groups sent (%llu "
             "completed)",
             (unsigned long long)src->credited, (unsigned long long)src->started,
             (unsigned long long)src->r.groups, (unsigned long long)src->completed);
}

/* ---- destination ---- */

struct dest {
    struct run r;
    uint64_t receiving;                    /* groups whose receives are posted */
    uint64_t copied, landed;               /* groups copied out of their slot, landed */
    uint64_t credit_sent, credit_done;     /* groups credited: posted, completed */
    uint64_t credit_batch;                 /* groups landed before a credit goes out */
    bool credit_cut;                       /* the last credit stopped at the ring's end */
    unsigned writes_out;                   /* credit writes not yet completed */
    uint64_t arrived[GDR_STAGE_SLOTS_MAX]; /* items arrived, per slot */
    uint64_t sleeps;
};

/* A group's receives: one per item, into its slot (or its place in the
 * buffer) for a send; for writes one without a buffer per QP that
 * carries part of the group, for its marker (the group's data on that QP
 * is in place when the receive completes). Item i arrives on QP i % QPs,
 * whose receives are consumed in the order they were posted. */
static int post_group_recvs(struct gdr_session *s, const struct dest *d, uint64_t g)
{
    const struct gdr_buffer *b = &s->buf;
    const struct run *r = &d->r;
    uint64_t end = first_of(r, g + 1);
    for (uint64_t i = first_of(r, g); i < end; i++) {
        unsigned q = (unsigned)(i % r->nqp);
        struct ibv_qp *qp = s->verbs.qp[q];
        int rc;
        if (!s->roles.dest_recv_has_data) {
            if (!last_on_qp(i, end, r->nqp))
                continue;
            rc = gdr_post_recv(qp, 0, 0, 0, (g << 8) | q);
        } else {
            struct gdr_stage_item x = gdr_stage_item(&r->p, r->bslots, i);
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
    run_init(s, &d->r, size, iters);
    d->receiving = d->r.groups < d->r.p.slots ? d->r.groups : d->r.p.slots;
    d->credit_batch = gdr_stage_credit_batch(&d->r.p);
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

/* Credit the groups landed since the last credit: g + 1 into entry
 * g % N, one write for the run of entries up to the ring's end. An entry
 * of ours is rewritten only after the write that last read it completed
 * (the write N groups back). 0 also when it has to wait. */
static int write_credit(struct gdr_session *s, struct dest *d)
{
    unsigned n = d->r.p.slots;
    uint64_t from = d->credit_sent, to = d->landed;
    unsigned k = (unsigned)(from % n);
    if (to - from > n - k)
        to = from + (n - k);
    if (to > d->credit_done + n)
        return 0;
    for (uint64_t g = from; g < to; g++)
        s->credit_page[CREDIT_OUT + g % n] = g + 1;
    struct gdr_wr wr = {
        .op = IBV_WR_RDMA_WRITE,
        .len = (uint32_t)((to - from) * sizeof(uint64_t)),
        .flags = IBV_SEND_SIGNALED,
        .wr_id = CREDIT_TAG | to,
        .laddr = (uintptr_t)&s->credit_page[CREDIT_OUT + k],
        .lkey = s->credit_mr->lkey,
        .raddr = s->remote.credit_addr + k * sizeof(uint64_t),
        .rkey = s->remote.credit_rkey,
    };
    if (gdr_post_send(s->verbs.qp[0], &wr))
        return -1;
    d->credit_cut = to < d->landed;
    d->credit_sent = to;
    d->writes_out++;
    return 0;
}

static int dest_arrivals(struct gdr_session *s, struct dest *d, struct gdr_watchdog *w,
                         uint64_t size)
{
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.recv_cq, POLL_BATCH, wc, "staged receive");
    const struct run *r = &d->r;
    for (int k = 0; k < got; k++) {
        uint32_t imm = ntohl(wc[k].imm_data);
        if (s->roles.dest_recv_has_data) {
            uint64_t i = wc[k].wr_id;
            struct gdr_stage_item x = gdr_stage_item(&r->p, r->bslots, i);
            if (i >= r->total || imm != (uint32_t)i || wc[k].byte_len != x.len)
                return gdr_fail(GDR_EXIT_RUN,
                                "staged size %llu: item %u (%u bytes) arrived where "
                                "item %llu (%u bytes) was expected",
                                (unsigned long long)size, imm, wc[k].byte_len,
                                (unsigned long long)i, x.len);
            d->arrived[x.slot]++;
            continue;
        }
        /* A marker: the group's part on that QP has all landed before it. */
        uint64_t g = wc[k].wr_id >> 8;
        unsigned q = (unsigned)(wc[k].wr_id & 0xff);
        if (g >= r->groups || imm != (uint32_t)g || wc[k].byte_len != 0)
            return gdr_fail(GDR_EXIT_RUN,
                            "staged size %llu: the end of group %u (%u bytes) arrived where "
                            "that of group %llu was expected on QP %u",
                            (unsigned long long)size, imm, wc[k].byte_len, (unsigned long long)g,
                            q);
        uint64_t first = first_of(r, g), end = first_of(r, g + 1);
        d->arrived[g % r->p.slots] += on_qp_below(end, q, r->nqp) - on_qp_below(first, q, r->nqp);
    }
    return got;
}

static int dest_step(struct gdr_session *s, struct dest *d, struct gdr_watchdog *w, uint64_t size)
{
    struct gdr_buffer *b = &s->buf;
    const struct run *r = &d->r;
    const struct gdr_stage_plan *p = &r->p;
    int moved = dest_arrivals(s, d, w, size);
    if (moved < 0)
        return -1;
    /* Copy out the oldest groups whose items have all arrived. */
    while (d->copied < d->landed + p->slots && d->copied < r->groups) {
        uint64_t first = first_of(r, d->copied), end = first_of(r, d->copied + 1);
        unsigned k = (unsigned)(d->copied % p->slots);
        if (d->arrived[k] < end - first)
            break;
        if (gdr_buffer_staged(b) && copy_group(s, p, r->bslots, first, end, false))
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
        if (d->receiving < r->groups && post_group_recvs(s, d, d->receiving++))
            return -1;
        d->landed++;
    }
    /* One write carries every group landed since the last, once a batch
     * has landed (or the last group, or the rest of a write cut at the
     * ring's end): a credit is a packet and a post for both ends, and the
     * source has slots to spare meanwhile. A slot's worth of writes
     * outstanding at most, so the send queue cannot overflow. */
    if (d->landed != d->credit_sent &&
        (d->landed - d->credit_sent >= d->credit_batch || d->landed == r->groups ||
         d->credit_cut) &&
        d->writes_out < p->slots && write_credit(s, d))
        return -1;
    return moved || d->landed != before;
}

static bool dest_done(const struct dest *d)
{
    return d->landed == d->r.groups && d->credit_sent == d->r.groups && !d->writes_out;
}

static void dest_note(const void *arg, char *buf, size_t len)
{
    const struct dest *d = arg;
    snprintf(buf, len,
             "staged destination: %llu of %llu groups landed, %llu credited (%llu credit "
             "writes completed)",
             (unsigned long long)d->landed, (unsigned long long)d->r.groups,
             (unsigned long long)d->credit_sent, (unsigned long long)d->credit_done);
}

/* Both ends of a bidirectional loop, for the watchdog. */
struct both {
    const struct source *src;
    const struct dest *d;
};

static void both_note(const void *arg, char *buf, size_t len)
{
    const struct both *b = arg;
    char one[160];
    source_note(b->src, one, sizeof(one));
    int at = snprintf(buf, len, "%s; ", one);
    if (at > 0 && (size_t)at < len)
        dest_note(b->d, buf + at, len - (size_t)at);
}

/* ---- the loop: a source, a destination, or both (bidirectional) ---- */

/* Is all a destination waits for an arrival (no copy, credit or credit
 * completion of its own pending)? Then it may sleep: a direct write's
 * target does not run at all, and a core spinning here is a core the NIC
 * (rxe: the kernel on the same CPUs) does not get. */
static bool dest_only_waits_arrivals(const struct dest *d)
{
    return d->copied == d->landed && d->copied < d->r.groups && !d->writes_out;
}

/* A send completion's work: a credit write (tagged) or the test's verb. */
static const char *send_op_of(const struct gdr_watchdog *w, uint64_t wr_id)
{
    return wr_id & CREDIT_TAG ? "credit write" : gdr_verb_name(w->s->test->verb);
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
            d->credit_done = wc[k].wr_id & ~CREDIT_TAG; /* in order on QP 0 */
        } else if (src) {
            /* RC completes a QP's posts in order: all before this one are done. */
            unsigned q = (unsigned)(wc[k].wr_id >> QP_SHIFT);
            uint64_t n = wc[k].wr_id & SEQ_MASK;
            if (q < src->r.nqp && n > src->wdone[q])
                src->wdone[q] = n;
        }
    }
    return got;
}

static int staged_loop(struct gdr_session *s, uint64_t size, uint64_t iters, bool is_source,
                       bool is_dest, struct gdr_measure *m)
{
    struct source src;
    struct dest *d = NULL;
    struct gdr_watchdog w;
    struct both both = {&src, NULL};
    src.ends = NULL;
    if (is_dest && !(d = malloc(sizeof(*d))))
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    if (is_dest)
        dest_init(s, d, size, iters);
    if (is_source && source_init(s, &src, size, iters)) {
        free(d);
        return -1;
    }
    gdr_watchdog_start(&w, s, size, gdr_now_ns());
    both.d = d;
    w.note = is_source && d ? both_note : is_source ? source_note : dest_note;
    w.note_arg = is_source && d ? (const void *)&both : is_source ? (const void *)&src : d;
    w.send_op = send_op_of;
    int rc = 0;
    unsigned idle = 0;
    uint64_t idle_since = 0;
    struct gdr_cadence spin = {63, 0};
    bool armed = false; /* the receive CQ will signal its channel */
    bool may_sleep = !is_source && s->verbs.recv_channel;
    while ((is_source && !source_done(&src)) || (d && !dest_done(d))) {
        int moved = 0, r = 0;
        if (is_source && (r = source_step(s, &src)) > 0)
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
            idle_since = 0;
        } else if (may_sleep && dest_only_waits_arrivals(d)) {
            /* Spin by time, not by count (a poll costs nanoseconds on a
             * real NIC, microseconds on rxe), reading the clock rarely.
             * --events sleeps at once, like perftest's -e. */
            bool sleep = s->cfg->events;
            if (!sleep && !(++idle & spin.mask)) {
                uint64_t now = gdr_cadence_read(&spin, idle, SPIN_READ_MIN_NS, SPIN_READ_MAX_NS);
                if (!idle_since)
                    idle_since = now;
                sleep = now - idle_since >= SPIN_NS;
            }
            if (sleep && gdr_recv_cq_sleep(&w, &armed, &d->sleeps) < 0) {
                rc = -1;
                break;
            }
        }
        /* Waiting on a copy of ours, not on the peer: the watchdog says so. */
        w.copy_pending = gdr_buffer_staged(&s->buf) &&
                         ((is_source && src.ready < src.started) || (d && d->landed < d->copied));
    }
    if (!rc && is_source) {
        m->iters = iters;
        m->bw_peak = 0;
        gdr_peak_steadiness(&src.steady, &m->steady);
        m->window = src.window;
        gdr_measure_finish(m, size, iters, src.last_credit_ns - src.start_ns);
    }
    if (d)
        m->sleeps = d->sleeps;
    free(src.ends);
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

/* ---- credits: a registered page each end ---- */

int gdr_staged_credits_setup(struct gdr_session *s)
{
    void *page;
    int rc = posix_memalign(&page, CREDIT_PAGE, CREDIT_PAGE);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for the credit page: %s", strerror(rc));
    memset(page, 0, CREDIT_PAGE);
    s->credit_page = page;
    s->credit_mr = ibv_reg_mr(s->verbs.pd, page, CREDIT_PAGE,
                              IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!s->credit_mr)
        return gdr_fail(GDR_EXIT_RUN, "ibv_reg_mr of the credit page failed: %s", strerror(errno));
    s->local.credit_addr = (uintptr_t)&s->credit_page[CREDIT_IN];
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
