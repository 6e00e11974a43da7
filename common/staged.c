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
#include "staged.h"

#include <arpa/inet.h>
#include <string.h>

struct unit {
    size_t off;         /* offset in the GPU/host buffer */
    uint32_t len;
};

static uint64_t unit_bytes(const struct gdr_session *s, uint64_t size)
{
    return size < s->cfg->stage_slot ? size : s->cfg->stage_slot;
}

static uint64_t units_per_msg(const struct gdr_session *s, uint64_t size)
{
    uint64_t ub = unit_bytes(s, size);
    return (size + ub - 1) / ub;
}

static struct unit unit_at(const struct gdr_session *s, uint64_t size, uint64_t u)
{
    uint64_t per = units_per_msg(s, size), ub = unit_bytes(s, size);
    uint64_t msg = u / per, chunk = u % per;
    struct unit x;
    x.off = (size_t)((msg % gdr_slots_for(s, size)) * size + chunk * ub);
    x.len = (uint32_t)(size - chunk * ub < ub ? size - chunk * ub : ub);
    return x;
}

bool gdr_staged_run(const struct gdr_session *s)
{
    return gdr_buffer_staged(&s->buf) || s->remote.ring_bytes > 0;
}

/* One poll of a CQ with the usual error handling; returns completions. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, const char *op, uint64_t size)
{
    int got = ibv_poll_cq(cq, 1, wc);
    if (got < 0)
        return gdr_fail(GDR_EXIT_RUN, "ibv_poll_cq failed at size %llu", (unsigned long long)size);
    if (got && wc->status != IBV_WC_SUCCESS) {
        gdr_wc_fail(wc, op, size);
        return -1;
    }
    return got;
}

/* A receive with no buffer: credits and write-with-immediate carry only
 * their immediate data. */
static int post_empty_recv(struct gdr_session *s, uint64_t wr_id)
{
    struct ibv_recv_wr wr = {.wr_id = wr_id, .num_sge = 0}, *bad;
    int rc = ibv_post_recv(s->verbs.qp[0], &wr, &bad);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "ibv_post_recv (staged) failed: %s", strerror(rc));
    return 0;
}

/* ---- source (the client of write and send) ---- */

static int post_unit(struct gdr_session *s, uint64_t size, uint64_t u, struct unit x, unsigned k)
{
    const struct gdr_buffer *b = &s->buf;
    const struct gdr_endpoint *r = &s->remote;
    uint64_t laddr = gdr_buffer_staged(b) ? (uintptr_t)(b->ring + (size_t)k * b->slot_size)
                                          : (uintptr_t)b->addr + x.off;
    uint32_t lkey = gdr_buffer_staged(b) ? b->ring_mr->lkey : b->mr->lkey;
    uint64_t raddr = r->ring_bytes ? r->ring_addr + (uint64_t)k * r->slot_bytes : r->addr + x.off;
    uint32_t rkey = r->ring_bytes ? r->ring_rkey : r->rkey;
    enum ibv_wr_opcode op = s->test->verb == GDR_VERB_SEND ? IBV_WR_SEND_WITH_IMM
                                                          : IBV_WR_RDMA_WRITE_WITH_IMM;
    struct ibv_sge sge = {.addr = laddr, .length = x.len, .lkey = lkey};
    struct ibv_send_wr wr = {
        .wr_id = u, .sg_list = &sge, .num_sge = 1, .opcode = op,
        .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl((uint32_t)u),
        .wr.rdma = {.remote_addr = raddr, .rkey = rkey},
    }, *bad;
    int rc = ibv_post_send(s->verbs.qp[0], &wr, &bad);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "posting staged unit %llu of size %llu failed: %s",
                        (unsigned long long)u, (unsigned long long)size, strerror(rc));
    return 0;
}

int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct gdr_buffer *b = &s->buf;
    unsigned nslots = s->cfg->stage_slots;
    uint64_t total = iters * units_per_msg(s, size);
    uint64_t next = 0, posted = 0, credited = 0;   /* units started, sent, landed */
    uint64_t sent = 0;                              /* send completions polled */
    struct ibv_wc wc;
    uint64_t start = gdr_now_ns(), last_progress = start, last_credit_ns = start;
    unsigned idle = 0;

    for (uint64_t u = 0; u < nslots && u < total; u++)
        if (post_empty_recv(s, u))
            return -1;
    while (credited < total || sent < total) {
        bool progress = false;
        /* Start units while their slot is free (its credit is back). */
        while (next < total && next - credited < nslots) {
            unsigned k = (unsigned)(next % nslots);
            struct unit x = unit_at(s, size, next);
            if (gdr_buffer_staged(b)) {
                if (b->ops->stage_out(b, k, x.off, x.len))
                    return -1;
            } else {
                if (post_unit(s, size, next, x, k))
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
            if (post_unit(s, size, posted, unit_at(s, size, posted), k))
                return -1;
            posted++;
            progress = true;
        }
        /* Send completions only free send-queue entries; the slot waits
         * for its credit. */
        int got = poll_one(s->verbs.send_cq, &wc, gdr_verb_name(s->test->verb), size);
        if (got < 0)
            return -1;
        sent += (uint64_t)got;
        progress |= got > 0;
        got = poll_one(s->verbs.recv_cq, &wc, "credit receive", size);
        if (got < 0)
            return -1;
        if (got) {
            uint64_t u = ntohl(wc.imm_data);
            if (u != (credited & 0xffffffffu))
                return gdr_fail(GDR_EXIT_RUN, "staged size %llu: credit for unit %llu, expected "
                                "%llu", (unsigned long long)size, (unsigned long long)u,
                                (unsigned long long)credited);
            if (credited + nslots < total && post_empty_recv(s, credited + nslots))
                return -1;
            credited++;
            last_credit_ns = gdr_now_ns();
            progress = true;
        }
        if (progress) {
            last_progress = gdr_now_ns();
            idle = 0;
        } else if (++idle % 1024 == 0 &&
                   gdr_stalled(s, size, last_progress)) {
            return -1;
        }
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

static int post_unit_recv(struct gdr_session *s, uint64_t size, uint64_t u)
{
    const struct gdr_buffer *b = &s->buf;
    unsigned k = (unsigned)(u % s->cfg->stage_slots);
    if (s->test->verb != GDR_VERB_SEND)     /* write with immediate: no data here */
        return post_empty_recv(s, u);
    struct unit x = unit_at(s, size, u);
    if (gdr_buffer_staged(b))
        return gdr_post_recv(s->verbs.qp[0], (uintptr_t)(b->ring + (size_t)k * b->slot_size),
                             b->ring_mr->lkey, x.len, u);
    return gdr_post_recv(s->verbs.qp[0], (uintptr_t)b->addr + x.off, b->mr->lkey, x.len, u);
}

int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters)
{
    uint64_t total = iters * units_per_msg(s, size);
    for (uint64_t u = 0; u < total && u < s->cfg->stage_slots; u++)
        if (post_unit_recv(s, size, u))
            return -1;
    return 0;
}

static int send_credit(struct gdr_session *s, uint64_t u)
{
    struct ibv_send_wr wr = {
        .wr_id = u, .opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
        .imm_data = htonl((uint32_t)u),
    }, *bad;
    int rc = ibv_post_send(s->verbs.qp[0], &wr, &bad);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "posting credit %llu failed: %s", (unsigned long long)u,
                        strerror(rc));
    return 0;
}

int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct gdr_buffer *b = &s->buf;
    unsigned nslots = s->cfg->stage_slots;
    uint64_t total = iters * units_per_msg(s, size);
    uint64_t arrived = 0, landed = 0, credit_done = 0;
    struct ibv_wc wc;
    uint64_t last_progress = gdr_now_ns();
    unsigned idle = 0;
    (void)m;

    while (credit_done < total) {
        bool progress = false;
        int got = poll_one(s->verbs.recv_cq, &wc, "staged receive", size);
        if (got < 0)
            return -1;
        if (got) {
            struct unit x = unit_at(s, size, arrived);
            if (ntohl(wc.imm_data) != (arrived & 0xffffffffu) ||
                (s->test->verb == GDR_VERB_SEND && wc.byte_len != x.len))
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
        got = poll_one(s->verbs.send_cq, &wc, "credit send", size);
        if (got < 0)
            return -1;
        credit_done += (uint64_t)got;
        if (got || progress) {
            last_progress = gdr_now_ns();
            idle = 0;
        } else if (++idle % 1024 == 0 && gdr_stalled(s, size, last_progress)) {
            return -1;
        }
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
    uint64_t t0 = gdr_now_ns();
    if (b->ops->stage_out(b, 0, 0, size) || gdr_stage_wait(s, 0, size))
        return -1;
    *elapsed_ns = gdr_now_ns() - t0;
    return 0;
}

int gdr_stage_wait(struct gdr_session *s, unsigned slot, uint64_t size)
{
    struct gdr_buffer *b = &s->buf;
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
        if (gdr_stalled(s, size, now))
            return -1;
        if ((double)(now - since) > s->cfg->timeout * 1e9)
            return gdr_fail(GDR_EXIT_RUN, "the GPU staging copy at size %llu did not finish "
                            "within %g s (--timeout)", (unsigned long long)size, s->cfg->timeout);
    }
}
