/* loops.c - the timed loops: the sender's pipelined post/poll loop, the
 * receiver's repost loop, and the one-at-a-time latency loop. Nothing here
 * talks to the peer except to notice that it has gone. */
#include "config.h"

#include "session.h"
#include "error.h"
#include "sizing.h"
#include "transfer.h"

#include <stdlib.h>

#define POLL_BATCH 32
#define QP_SHIFT 48
#define COUNT_MASK ((1ull << QP_SHIFT) - 1)

uint64_t gdr_slots_for(const struct gdr_session *s, uint64_t size)
{
    uint64_t len = s->buf.len < s->remote.buf_len ? s->buf.len : s->remote.buf_len;
    return gdr_slot_count(len, gdr_slots_wanted(&s->roles, s->cfg->tx_depth, s->cfg->num_qps),
                          size);
}

/* Inline only up to what -I asked for: providers round the QP's inline
 * capacity up (rxe gives 16 bytes for 0), and perftest's habit is no
 * inlining unless asked. */
static unsigned inline_flag_for(const struct gdr_session *s, enum ibv_wr_opcode op, uint64_t size)
{
    /* Never from GPU memory: the provider would read it with the CPU
     * (options.c refuses -I for such an end; this keeps it so). */
    if (s->buf.cuda_device >= 0 && !gdr_buffer_staged(&s->buf))
        return 0;
    return op != IBV_WR_RDMA_READ && size <= s->cfg->inline_size ? IBV_SEND_INLINE : 0;
}

static void finish_measure(struct gdr_measure *m, uint64_t size, uint64_t counted,
                           uint64_t elapsed_ns)
{
    m->elapsed_ns = elapsed_ns;
    m->bytes = counted * size;
    m->bw_avg = gdr_bandwidth(m->bytes, elapsed_ns);
    m->msg_rate = elapsed_ns ? (double)counted * 1e9 / (double)elapsed_ns : 0;
    if (m->bw_peak < m->bw_avg)
        m->bw_peak = m->bw_avg;     /* a run shorter than one window */
}

int gdr_loop_sender(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    const struct gdr_config *cfg = s->cfg;
    unsigned nqp = s->verbs.num_qps, depth = cfg->tx_depth;
    /* Signal every `sig` posts per QP: one completion frees many WQEs, as
     * on real workloads; the last post of each QP is always signalled. */
    unsigned sig = depth / 2 < 64 ? depth / 2 : 64;
    if (!sig)
        sig = 1;
    uint64_t posted[GDR_MAX_QPS] = {0}, completed[GDR_MAX_QPS] = {0}, share[GDR_MAX_QPS];
    for (unsigned q = 0; q < nqp; q++)
        share[q] = gdr_share_of(iters, nqp, q);
    uint64_t nslots = gdr_slots_for(s, size);
    struct gdr_wr wr = {
        .op = s->roles.opcode, .laddr = (uintptr_t)s->buf.addr, .lkey = s->buf.mr->lkey,
        .len = (uint32_t)size, .raddr = s->remote.addr, .rkey = s->remote.rkey,
    };
    unsigned inline_flag = inline_flag_for(s, wr.op, size);
    struct gdr_peak_tracker peak;
    struct gdr_watchdog w;
    struct ibv_wc wc[POLL_BATCH];
    uint64_t next = 0, done = 0;

    uint64_t start = gdr_now_ns(), last_ns = start;
    gdr_peak_start(&peak, size, iters, 0, start);
    gdr_watchdog_start(&w, s, size, start);
    while (done < iters) {
        while (next < iters) {
            unsigned q = (unsigned)(next % nqp);
            if (posted[q] - completed[q] >= depth)
                break;
            uint64_t n = ++posted[q], off = (next % nslots) * size;
            struct gdr_wr one = wr;
            one.laddr += off;
            one.raddr += off;
            one.flags = inline_flag | ((n % sig == 0 || n == share[q]) ? IBV_SEND_SIGNALED : 0);
            one.wr_id = ((uint64_t)q << QP_SHIFT) | n;
            if (gdr_post_send(s->verbs.qp[q], &one))
                return -1;
            next++;
        }
        int got = gdr_poll_cq(&w, s->verbs.send_cq, POLL_BATCH, wc, gdr_verb_name(s->test->verb));
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        for (int i = 0; i < got; i++) {
            unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
            uint64_t count = wc[i].wr_id & COUNT_MASK;
            done += count - completed[q];
            completed[q] = count;
        }
        uint64_t now = last_ns = gdr_now_ns();
        gdr_watchdog_progress(&w, now);
        gdr_peak_update(&peak, done, now);
        if (gdr_interrupted)
            return gdr_fail(GDR_EXIT_RUN, "interrupted at size %llu", (unsigned long long)size);
    }
    m->iters = iters;
    m->bw_peak = peak.peak;
    finish_measure(m, size, iters, last_ns - start);    /* to the last completion */
    return 0;
}

/* Receive j on QP q carries message j * nqp + q; it lands in that
 * message's slot, the slot the sender sent it from, so --validate can
 * check every slot after the run. */
static int post_receive(struct gdr_session *s, unsigned q, uint64_t j, uint64_t size,
                        uint64_t nslots)
{
    uint64_t msg = j * s->verbs.num_qps + q;
    uint64_t off = (msg % nslots) * size;
    return gdr_post_recv(s->verbs.qp[q], (uintptr_t)s->buf.addr + off, s->buf.mr->lkey,
                         (uint32_t)size, ((uint64_t)q << QP_SHIFT) | j);
}

int gdr_loop_receiver_prepare(struct gdr_session *s, uint64_t size, uint64_t iters)
{
    unsigned nqp = s->verbs.num_qps;
    uint64_t nslots = gdr_slots_for(s, size);
    for (unsigned q = 0; q < nqp; q++) {
        uint64_t first = gdr_share_of(iters, nqp, q);
        if (first > s->verbs.recv_depth)
            first = s->verbs.recv_depth;
        for (s->rx_posted[q] = 0; s->rx_posted[q] < first; s->rx_posted[q]++)
            if (post_receive(s, q, s->rx_posted[q], size, nslots))
                return -1;
    }
    return 0;
}

int gdr_loop_receiver(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    unsigned nqp = s->verbs.num_qps;
    uint64_t nslots = gdr_slots_for(s, size);
    struct ibv_wc wc[POLL_BATCH];
    struct gdr_peak_tracker peak;
    struct gdr_watchdog w;
    /* The clock starts when the sender was told to go, not at the first
     * arrival: receive completions can be reported in bursts long after the
     * data came in (rxe does), and a window that starts at the first of a
     * burst reads faster than any wire. The cost is one control-message
     * latency at the start, which errs low, never high. */
    uint64_t received = 0, last_ns = 0;
    uint64_t start = gdr_now_ns();

    gdr_peak_start(&peak, size, iters, 0, start);
    gdr_watchdog_start(&w, s, size, start);
    while (received < iters) {
        int got = gdr_poll_cq(&w, s->verbs.recv_cq, POLL_BATCH, wc, "receive");
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        uint64_t now = gdr_now_ns();
        for (int i = 0; i < got; i++) {
            if (wc[i].byte_len != size)
                return gdr_fail(GDR_EXIT_RUN, "received %u bytes where %llu were sent",
                                wc[i].byte_len, (unsigned long long)size);
            unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
            if (s->rx_posted[q] < gdr_share_of(iters, nqp, q) &&
                post_receive(s, q, s->rx_posted[q]++, size, nslots))
                return -1;
        }
        received += (uint64_t)got;
        last_ns = now;
        gdr_peak_update(&peak, received, now);
        gdr_watchdog_progress(&w, now);
        if (gdr_interrupted)
            return gdr_fail(GDR_EXIT_RUN, "interrupted at size %llu", (unsigned long long)size);
    }
    m->iters = iters;
    m->bw_peak = peak.peak;
    finish_measure(m, size, iters, last_ns - start);
    return 0;
}

int gdr_loop_latency(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    uint64_t *samples = malloc(iters * sizeof(*samples));
    if (!samples)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %llu latency samples",
                        (unsigned long long)iters);
    struct ibv_qp *qp = s->verbs.qp[0];
    struct gdr_watchdog w;
    struct ibv_wc wc;
    int rc = 0;
    /* Staged ends read from / into their bounce ring; a staged requester
     * copies each message on into GPU memory inside the sample. */
    struct gdr_buffer *b = &s->buf;
    bool local_staged = gdr_buffer_staged(b);
    struct gdr_wr wr = {
        .op = s->roles.opcode, .len = (uint32_t)size,
        .laddr = local_staged ? (uintptr_t)b->ring : (uintptr_t)b->addr,
        .lkey = local_staged ? b->ring_mr->lkey : b->mr->lkey,
        .raddr = s->remote.ring_bytes ? s->remote.ring_addr : s->remote.addr,
        .rkey = s->remote.ring_bytes ? s->remote.ring_rkey : s->remote.rkey,
    };
    wr.flags = IBV_SEND_SIGNALED | inline_flag_for(s, wr.op, size);
    if ((local_staged && size > b->ring_len) ||
        (s->remote.ring_bytes && size > s->remote.ring_bytes)) {
        free(samples);
        return gdr_fail(GDR_EXIT_USAGE, "size %llu does not fit the bounce ring (raise "
                        "--stage-slot or --stage-slots)", (unsigned long long)size);
    }
    /* One clock read per iteration: each sample runs from the previous
     * completion's timestamp to this one's, so it holds one post, the wait
     * and the loop's own few instructions, and no second clock read. */
    uint64_t start = gdr_now_ns(), prev = start;
    gdr_watchdog_start(&w, s, size, start);
    for (uint64_t i = 0; i < iters && !rc; i++) {
        gdr_watchdog_progress(&w, prev);
        wr.wr_id = i;
        rc = gdr_post_send(qp, &wr);
        int got = 0;
        while (!rc && (got = gdr_poll_cq(&w, s->verbs.send_cq, 1, &wc,
                                         gdr_verb_name(s->test->verb))) == 0)
            ;
        if (got < 0)
            rc = -1;
        if (!rc && local_staged)
            rc = b->ops->stage_in(b, 0, 0, size) || gdr_wait_copy(&w, b, 0) ? -1 : 0;
        uint64_t now = gdr_now_ns();
        samples[i] = now - prev;
        prev = now;
        if (!rc && gdr_interrupted)
            rc = gdr_fail(GDR_EXIT_RUN, "interrupted at size %llu", (unsigned long long)size);
    }
    if (!rc) {
        m->iters = iters;
        finish_measure(m, size, iters, prev - start);
        gdr_lat_stats_compute(samples, iters, &m->lat);
    }
    free(samples);
    return rc;
}
