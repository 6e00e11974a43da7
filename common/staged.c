/* staged.c - transfers without GPUDirect RDMA: GPU data crosses pinned host
 * bounce rings, with the GPU copies on the critical path, pipelined as
 * NCCL's proxy does it.
 *
 * A message is cut into units of at most one ring slot. Unit u uses slot
 * u % nslots on both ends. The source copies the unit into its slot (when
 * its buffer is staged), then writes or sends it with the unit number as
 * immediate data; the destination copies it out of its slot into GPU
 * memory (when staged) and only then returns a credit (a zero-byte send
 * carrying u). A slot is reused only after its credit is back, so the
 * ring is never overrun, and the source's clock stops at the last credit:
 * the bandwidth counts bytes that have landed in the destination's memory.
 * Staged runs use the first QP only. */
#include "config.h"

#include "error.h"
#include "session.h"
#include "sizing.h"
#include "staged.h"
#include "transfer.h"

#include <arpa/inet.h>

static struct gdr_unit unit_at(const struct gdr_session *s, uint64_t size, uint64_t u)
{
    return gdr_unit_at(size, s->cfg->stage_slot, gdr_slots_for(s, size), u);
}

static uint64_t total_units(const struct gdr_session *s, uint64_t size, uint64_t iters)
{
    return iters * gdr_units_per_msg(size, s->cfg->stage_slot);
}

/* ---- source (the client of write and send) ---- */

static int post_unit(struct gdr_session *s, uint64_t u, struct gdr_unit x, unsigned k)
{
    const struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    struct gdr_wr wr = {
        .op = s->roles.opcode, .len = x.len, .flags = IBV_SEND_SIGNALED,
        .wr_id = u, .imm = (uint32_t)u,
        .laddr = gdr_buffer_staged(b) ? (uintptr_t)(b->ring + (size_t)k * b->slot_size)
                                      : (uintptr_t)b->addr + x.off,
        .lkey = gdr_buffer_staged(b) ? b->ring_mr->lkey : b->mr->lkey,
        .raddr = r->ring_bytes ? r->ring_addr + (uint64_t)k * r->slot_bytes : r->addr + x.off,
        .rkey = r->ring_bytes ? r->ring_rkey : r->rkey,
    };
    return gdr_post_send(s->verbs.qp[0], &wr);
}

int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct gdr_buffer *b = &s->buf;
    unsigned nslots = s->cfg->stage_slots;
    uint64_t total = total_units(s, size, iters);
    uint64_t next = 0, posted = 0, credited = 0;   /* units started, sent, landed */
    uint64_t sent = 0;                              /* send completions polled */
    struct ibv_wc wc;
    struct gdr_watchdog w;
    uint64_t start = gdr_now_ns(), last_credit_ns = start;

    gdr_watchdog_start(&w, s, size, start);
    for (uint64_t u = 0; u < nslots && u < total; u++)
        if (gdr_post_recv(s->verbs.qp[0], 0, 0, 0, u))     /* credits carry no data */
            return -1;
    while (credited < total || sent < total) {
        bool progress = false;
        /* Start units while their slot is free (its credit is back). */
        while (next < total && next - credited < nslots) {
            unsigned k = (unsigned)(next % nslots);
            struct gdr_unit x = unit_at(s, size, next);
            if (gdr_buffer_staged(b)) {
                if (b->ops->stage_out(b, k, x.off, x.len))
                    return -1;
            } else {
                if (post_unit(s, next, x, k))
                    return -1;
                posted++;
            }
            next++;
            progress = true;
        }
        /* Post the oldest staged units whose copy to the ring finished. */
        while (posted < next) {
            unsigned k = (unsigned)(posted % nslots);
            int done = b->ops->stage_done(b, k);
            if (done < 0)
                return -1;
            if (!done)
                break;
            if (post_unit(s, posted, unit_at(s, size, posted), k))
                return -1;
            posted++;
            progress = true;
        }
        /* Send completions only free send-queue entries; the slot waits
         * for its credit. */
        int got = gdr_poll_cq(&w, s->verbs.send_cq, 1, &wc, gdr_verb_name(s->test->verb));
        if (got < 0)
            return -1;
        sent += (uint64_t)got;
        progress |= got > 0;
        got = gdr_poll_cq(&w, s->verbs.recv_cq, 1, &wc, "credit receive");
        if (got < 0)
            return -1;
        if (got) {
            uint64_t u = ntohl(wc.imm_data);
            if (u != (credited & 0xffffffffu))
                return gdr_fail(GDR_EXIT_RUN, "staged size %llu: credit for unit %llu, expected "
                                "%llu", (unsigned long long)size, (unsigned long long)u,
                                (unsigned long long)credited);
            if (credited + nslots < total &&
                gdr_post_recv(s->verbs.qp[0], 0, 0, 0, credited + nslots))
                return -1;
            credited++;
            last_credit_ns = gdr_now_ns();
            progress = true;
        }
        if (progress)
            gdr_watchdog_progress(&w, gdr_now_ns());
    }
    uint64_t elapsed = last_credit_ns - start;
    m->iters = iters;
    m->elapsed_ns = elapsed;
    m->bytes = iters * size;
    m->bw_avg = m->bw_peak = gdr_bandwidth(m->bytes, elapsed);
    m->msg_rate = elapsed ? (double)iters * 1e9 / (double)elapsed : 0;
    return 0;
}

/* ---- destination (the server of write and send) ---- */

/* A unit's receive: into its slot (or its place in the buffer) for a
 * send; without a buffer for a write with immediate, whose data is
 * already in place when the receive completes. */
static int post_unit_recv(struct gdr_session *s, uint64_t size, uint64_t u)
{
    const struct gdr_buffer *b = &s->buf;
    unsigned k = (unsigned)(u % s->cfg->stage_slots);
    if (!s->roles.dest_recv_has_data)
        return gdr_post_recv(s->verbs.qp[0], 0, 0, 0, u);
    struct gdr_unit x = unit_at(s, size, u);
    if (gdr_buffer_staged(b))
        return gdr_post_recv(s->verbs.qp[0], (uintptr_t)(b->ring + (size_t)k * b->slot_size),
                             b->ring_mr->lkey, x.len, u);
    return gdr_post_recv(s->verbs.qp[0], (uintptr_t)b->addr + x.off, b->mr->lkey, x.len, u);
}

int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters)
{
    uint64_t total = total_units(s, size, iters);
    for (uint64_t u = 0; u < total && u < s->cfg->stage_slots; u++)
        if (post_unit_recv(s, size, u))
            return -1;
    return 0;
}

/* A credit: a zero-byte send carrying the unit number. */
static int send_credit(struct gdr_session *s, uint64_t u)
{
    struct gdr_wr wr = {.op = IBV_WR_SEND_WITH_IMM, .flags = IBV_SEND_SIGNALED, .wr_id = u,
                        .imm = (uint32_t)u};
    return gdr_post_send(s->verbs.qp[0], &wr);
}

int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct gdr_buffer *b = &s->buf;
    unsigned nslots = s->cfg->stage_slots;
    uint64_t total = total_units(s, size, iters);
    uint64_t arrived = 0, landed = 0, credit_done = 0;
    struct ibv_wc wc;
    struct gdr_watchdog w;
    (void)m;

    gdr_watchdog_start(&w, s, size, gdr_now_ns());
    while (credit_done < total) {
        bool progress = false;
        int got = gdr_poll_cq(&w, s->verbs.recv_cq, 1, &wc, "staged receive");
        if (got < 0)
            return -1;
        if (got) {
            struct gdr_unit x = unit_at(s, size, arrived);
            if (ntohl(wc.imm_data) != (arrived & 0xffffffffu) ||
                (s->roles.dest_recv_has_data && wc.byte_len != x.len))
                return gdr_fail(GDR_EXIT_RUN, "staged size %llu: unit %u (%u bytes) arrived, "
                                "expected unit %llu (%u bytes)", (unsigned long long)size,
                                ntohl(wc.imm_data), wc.byte_len, (unsigned long long)arrived,
                                x.len);
            if (gdr_buffer_staged(b) &&
                b->ops->stage_in(b, (unsigned)(arrived % nslots), x.off, x.len))
                return -1;
            arrived++;
            progress = true;
        }
        /* Credit the oldest units that have landed in their final place. */
        while (landed < arrived) {
            if (gdr_buffer_staged(b)) {
                int done = b->ops->stage_done(b, (unsigned)(landed % nslots));
                if (done < 0)
                    return -1;
                if (!done)
                    break;
            }
            /* The slot's next receive goes up before its credit goes out. */
            if ((landed + nslots < total && post_unit_recv(s, size, landed + nslots)) ||
                send_credit(s, landed))
                return -1;
            landed++;
            progress = true;
        }
        got = gdr_poll_cq(&w, s->verbs.send_cq, 1, &wc, "credit send");
        if (got < 0)
            return -1;
        credit_done += (uint64_t)got;
        if (got || progress)
            gdr_watchdog_progress(&w, gdr_now_ns());
    }
    return 0;
}

/* ---- read: pre-staging on the responder ---- */

int gdr_staged_prestage(struct gdr_session *s, uint64_t size, uint64_t *elapsed_ns)
{
    struct gdr_buffer *b = &s->buf;
    if (size > b->ring_len)
        return gdr_fail(GDR_EXIT_USAGE, "size %llu does not fit the %zu-byte bounce ring "
                        "(raise --stage-slot or --stage-slots)", (unsigned long long)size,
                        b->ring_len);
    struct gdr_watchdog w;
    uint64_t t0 = gdr_now_ns();
    gdr_watchdog_start(&w, s, size, t0);
    if (b->ops->stage_out(b, 0, 0, size) || gdr_wait_copy(&w, b, 0))
        return -1;
    *elapsed_ns = gdr_now_ns() - t0;
    return 0;
}
