/* pingpong.c - write and send latency as perftest measures them: the
 * client sends, the server answers as soon as the message has arrived,
 * and each client sample is half of one round trip.
 *
 * Each end sends from its first region and the peer's message lands in
 * its second (a staged end: the two halves of its bounce ring). How an
 * arrival is seen:
 *  - send: a receive completion (receives are kept posted);
 *  - RDMA write into host memory: the last byte of the landing buffer
 *    turns into the last byte of the sender's pattern (perftest's way;
 *    the receiver sets it to something else before each answer can come);
 *  - RDMA write into GPU memory, or --write_with_imm: the write carries an
 *    immediate and the receiver polls its CQ. The CPU cannot poll GPU
 *    memory: on hardware each load is a BAR read at best, and the strict
 *    CUDA test double faults on it.
 * A staged end (--gdr=off) copies its message out of GPU memory into its
 * ring before posting it, and an arrival from its ring into GPU memory
 * before it answers, so both copies are inside the sample. */
#include "config.h"

#include "error.h"
#include "loops.h"
#include "pattern.h"
#include "sizing.h"
#include "transfer.h"

#include <arpa/inet.h>
#include <string.h>

/* One end of the ping-pong for one size. */
struct pp {
    uint64_t size, iters;
    struct gdr_prepared_send send; /* what this end sends, built once */
    struct gdr_prepared_recv recv; /* the receive it reposts, likewise */
    uint64_t land;                 /* where the peer's message lands here */
    uint32_t land_lkey;            /* ... and its key, for receives */
    bool staged;                   /* this end copies through its ring */
    unsigned in_slot;              /* staged: the ring slot arrivals land in */
    volatile uint8_t *flag;        /* memory completion: the landing's last byte */
    uint8_t expect;                /* ... and what the peer's message puts there */
    uint64_t sent, completed;      /* posts and their send completions */
    uint64_t sq_room;              /* posts the send queue holds */
};

static int does_not_fit(uint64_t size)
{
    return gdr_fail(GDR_EXIT_USAGE,
                    "size %llu does not fit half the bounce ring (raise --stage-slot "
                    "or --stage-slots)",
                    (unsigned long long)size);
}

static int pp_init(struct gdr_session *s, struct pp *p, uint64_t size, uint64_t iters)
{
    struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    memset(p, 0, sizeof(*p));
    p->size = size;
    p->iters = iters;
    p->staged = gdr_buffer_staged(b);
    p->sq_room = gdr_send_depth(s->cfg->tx_depth, s->cfg->stage_slots);
    struct gdr_wr wr = {.op = s->roles.opcode, .len = (uint32_t)size, .flags = IBV_SEND_SIGNALED};
    if (p->staged) {
        /* Outgoing in the first half of the ring, incoming in the second. */
        if (size > b->ring_len / 2)
            return does_not_fit(size);
        wr.laddr = (uintptr_t)b->ring;
        wr.lkey = b->ring_mr->lkey;
        p->land = (uintptr_t)b->ring + b->ring_len / 2;
        p->land_lkey = b->ring_mr->lkey;
        p->in_slot = b->nslots / 2;
    } else {
        wr.laddr = (uintptr_t)b->addr;
        wr.lkey = b->mr->lkey;
        p->land = (uintptr_t)b->addr + s->dest_off;
        p->land_lkey = b->mr->lkey;
    }
    if (r->ring_bytes) {
        if (size > r->ring_bytes / 2)
            return does_not_fit(size);
        wr.raddr = r->ring_addr + r->ring_bytes / 2;
        wr.rkey = r->ring_rkey;
    } else {
        wr.raddr = r->addr + s->dest_off;
        wr.rkey = r->rkey;
    }
    wr.flags |= gdr_inline_flag(s, wr.op, size);
    gdr_send_prepare(&p->send, &wr);
    bool data = s->roles.opcode == IBV_WR_SEND;
    gdr_recv_prepare(&p->recv, data ? p->land : 0, data ? p->land_lkey : 0,
                     data ? (uint32_t)size : 0);
    if (s->roles.polls_memory) {
        /* Roles poll memory only where both landings are host memory. */
        if (!p->staged && b->cuda_device >= 0)
            return gdr_fail(GDR_EXIT_RUN, "internal: memory completion on GPU memory");
        p->flag = (volatile uint8_t *)(uintptr_t)(p->land + size - 1);
        p->expect = gdr_pattern_byte(gdr_source_seed(size, 0, !s->is_server), (size_t)size - 1);
    }
    return 0;
}

/* Until the peer's next message: the landing byte holds something else. */
static void pp_arm(struct pp *p)
{
    __atomic_store_n(p->flag, (uint8_t)~p->expect, __ATOMIC_RELEASE);
}

static int pp_post_recv(struct gdr_session *s, struct pp *p)
{
    return gdr_post_prepared_recv(s->verbs.qp[0], &p->recv, s->rx_posted[0]++);
}

int gdr_pingpong_prepare(struct gdr_session *s, uint64_t size, uint64_t iters)
{
    struct pp p;
    if (pp_init(s, &p, size, iters))
        return -1;
    if (p.flag) {
        pp_arm(&p);
        return 0;
    }
    uint64_t first = iters < s->verbs.recv_depth ? iters : s->verbs.recv_depth;
    for (s->rx_posted[0] = 0; s->rx_posted[0] < first;)
        if (pp_post_recv(s, &p))
            return -1;
    return 0;
}

/* Nothing has arrived yet: collect send completions (every post is
 * signalled: a failed one ends the wait), else tick the watchdog. */
static int pp_idle(struct gdr_session *s, struct pp *p, struct gdr_watchdog *w)
{
    if (p->sent == p->completed)
        return gdr_watchdog_idle(w);
    struct ibv_wc wc[4];
    int got = gdr_poll_cq(w, s->verbs.send_cq, 4, wc, gdr_verb_name(s->test->verb));
    if (got < 0)
        return -1;
    p->completed += (uint64_t)got;
    return 0;
}

static int pp_send(struct gdr_session *s, struct pp *p, struct gdr_watchdog *w, uint64_t i)
{
    struct gdr_buffer *b = &s->buf;
    if (p->staged) {
        /* The ring's outgoing half is rewritten only once the post that
         * read it has completed: until then a retransmission may re-read
         * it (the answer can come before this end has seen the ACK). */
        while (p->completed < p->sent)
            if (pp_idle(s, p, w))
                return -1;
        if (b->ops->stage_out(b, 0, 0, 0, p->size) || gdr_wait_copy(w, b, 0))
            return -1;
    }
    while (p->sent - p->completed >= p->sq_room)
        if (pp_idle(s, p, w))
            return -1;
    if (gdr_post_prepared_send(s->verbs.qp[0], &p->send, i, (uint32_t)i))
        return -1;
    p->sent++;
    return 0;
}

/* Message i has arrived (and, staged, is in GPU memory). */
static int pp_wait(struct gdr_session *s, struct pp *p, struct gdr_watchdog *w, uint64_t i)
{
    struct gdr_buffer *b = &s->buf;
    if (p->flag) {
        while (__atomic_load_n(p->flag, __ATOMIC_ACQUIRE) != p->expect)
            if (pp_idle(s, p, w))
                return -1;
    } else {
        /* One watchdog tick per round (pp_idle's), not one per CQ polled. */
        struct ibv_wc wc;
        int got;
        while ((got = ibv_poll_cq(s->verbs.recv_cq, 1, &wc)) == 0)
            if (pp_idle(s, p, w))
                return -1;
        if (got < 0 || wc.status != IBV_WC_SUCCESS)
            return gdr_poll_failed(w, got, got < 0 ? NULL : &wc, "receive");
        bool imm = s->roles.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
        if (wc.byte_len != p->size || (imm && ntohl(wc.imm_data) != (uint32_t)i))
            return gdr_fail(GDR_EXIT_RUN,
                            "%s %llu of size %llu arrived with %u bytes (immediate data %u)",
                            imm ? "write" : "send", (unsigned long long)i,
                            (unsigned long long)p->size, wc.byte_len, imm ? ntohl(wc.imm_data) : 0);
        if (s->rx_posted[0] < p->iters && pp_post_recv(s, p))
            return -1;
    }
    if (p->staged && (b->ops->stage_in(b, p->in_slot, 0, s->dest_off, p->size) ||
                      gdr_wait_copy(w, b, p->in_slot)))
        return -1;
    return 0;
}

int gdr_loop_pingpong(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct pp p;
    struct gdr_watchdog w;
    struct gdr_samples sm;
    bool client = !s->is_server;
    if (pp_init(s, &p, size, iters) || (client && gdr_samples_start(&sm, s, iters)))
        return -1;
    uint64_t t0 = gdr_now_ns();
    gdr_watchdog_start(&w, s, size, t0);
    int rc = 0;
    for (uint64_t i = 0; i < iters && !rc; i++) {
        if (client) {
            /* Armed before the message goes: the answer cannot come sooner. */
            if (p.flag)
                pp_arm(&p);
            rc = pp_send(s, &p, &w, i) || pp_wait(s, &p, &w, i) ? -1 : 0;
            gdr_samples_take(&sm);
        } else {
            rc = pp_wait(s, &p, &w, i) ? -1 : 0;
            /* After the last, the arrival stays for --validate to check. */
            if (!rc && p.flag && i + 1 < iters)
                pp_arm(&p);
            rc = rc || pp_send(s, &p, &w, i) ? -1 : 0;
        }
        gdr_watchdog_bump(&w);
        if (!rc && gdr_interrupted)
            rc = gdr_fail_interrupted(size);
    }
    /* Every post's completion, so none is left for the next phase. */
    while (!rc && p.completed < p.sent)
        rc = pp_idle(s, &p, &w);
    if (client)
        return gdr_samples_finish(s, &sm, size, iters, 2, rc, m);
    if (!rc) {
        m->iters = iters;
        gdr_measure_finish(m, size, iters, gdr_now_ns() - t0);
        m->window = (struct gdr_window){1, size};
    }
    return rc;
}
