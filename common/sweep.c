/* sweep.c - the timed loops: the sender's pipelined post/poll loop, the
 * receiver's repost loop, and the one-at-a-time latency loop. Nothing here
 * talks to the peer except to notice that it has gone. */
#include "config.h"

#include "session.h"
#include "error.h"
#include "staged.h"

#include <stdlib.h>
#include <sys/socket.h>

#define POLL_BATCH 32
#define QP_SHIFT 48
#define COUNT_MASK ((1ull << QP_SHIFT) - 1)

uint64_t gdr_slots_for(const struct gdr_session *s, uint64_t size)
{
    uint64_t len = s->buf.len < s->remote.buf_len ? s->buf.len : s->remote.buf_len;
    uint64_t want = s->test->metric == GDR_METRIC_LAT ? 1
                    : (uint64_t)s->cfg->tx_depth * s->cfg->num_qps;
    uint64_t fit = len / size;
    uint64_t n = want < fit ? want : fit;
    return n ? n : 1;
}

/* Messages of a run that go to QP q when messages are dealt round robin. */
static uint64_t share_of(uint64_t iters, unsigned nqp, unsigned q)
{
    return iters / nqp + (q < iters % nqp);
}

struct watchdog {
    struct gdr_session *s;
    uint64_t size;
    uint64_t last_progress_ns;
    unsigned idle;
};

/* The control socket became readable in the middle of a run. EOF means
 * the peer is gone; an ERROR message says why it gave up. Anything else
 * (the peer finished its side first, say) waits for this side to finish. */
static int check_peer(struct gdr_session *s, uint64_t size)
{
    uint8_t hdr[GDR_OOB_HEADER_LEN];
    struct gdr_msg_header h;
    ssize_t n = recv(s->oob.fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);
    if (n == 0)
        return gdr_fail(GDR_EXIT_RUN, "peer %s closed the connection at size %llu", s->oob.peer,
                        (unsigned long long)size);
    if (n < (ssize_t)sizeof(hdr) || gdr_oob_check_header(hdr, &h) || h.type != GDR_MSG_ERROR)
        return 0;
    unsigned type;
    cJSON *body;
    if (gdr_oob_recv_any(&s->oob, 0, &type, &body) == 0)   /* records the peer's reason */
        cJSON_Delete(body);
    return -1;
}

static void watchdog_progress(struct watchdog *w, uint64_t now)
{
    w->last_progress_ns = now;
    w->idle = 0;
}

int gdr_stalled(struct gdr_session *s, uint64_t size, uint64_t last_progress_ns)
{
    if (gdr_interrupted)
        return gdr_fail(GDR_EXIT_RUN, "interrupted at size %llu", (unsigned long long)size);
    uint64_t now = gdr_now_ns();
    if ((double)(now - last_progress_ns) > s->cfg->timeout * 1e9)
        return gdr_fail(GDR_EXIT_RUN, "no completion for %g s at size %llu: peer %s stalled "
                        "(--timeout)", s->cfg->timeout, (unsigned long long)size, s->oob.peer);
    gdr_oob_refuse_pending();
    if (gdr_oob_readable(&s->oob))
        return check_peer(s, size);
    return 0;
}

/* Called when a poll found nothing; cheap except every 1024th call. */
static int watchdog_idle(struct watchdog *w)
{
    if (++w->idle & 1023)
        return 0;
    return gdr_stalled(w->s, w->size, w->last_progress_ns);
}

/* Poll up to POLL_BATCH completions: their count, 0 when there were none
 * (and the watchdog is content), -1 on error. */
static int poll_batch(struct watchdog *w, struct ibv_cq *cq, struct ibv_wc *wc)
{
    int got = ibv_poll_cq(cq, POLL_BATCH, wc);
    if (got < 0)
        return gdr_fail(GDR_EXIT_RUN, "ibv_poll_cq failed at size %llu",
                        (unsigned long long)w->size);
    if (got == 0 && watchdog_idle(w))
        return -1;
    return got;
}

static enum ibv_wr_opcode opcode_of(enum gdr_verb verb)
{
    switch (verb) {
    case GDR_VERB_WRITE: return IBV_WR_RDMA_WRITE;
    case GDR_VERB_READ: return IBV_WR_RDMA_READ;
    default: return IBV_WR_SEND;
    }
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
        share[q] = share_of(iters, nqp, q);
    uint64_t nslots = gdr_slots_for(s, size);
    enum ibv_wr_opcode op = opcode_of(s->test->verb);
    unsigned inline_flag = inline_flag_for(s, op, size);
    uint64_t laddr = (uintptr_t)s->buf.addr, raddr = s->remote.addr;
    uint32_t lkey = s->buf.mr->lkey, rkey = s->remote.rkey;
    struct gdr_peak_tracker peak;
    struct watchdog w = {.s = s, .size = size};
    struct ibv_wc wc[POLL_BATCH];
    uint64_t next = 0, done = 0;

    uint64_t start = gdr_now_ns(), last_ns = start;
    gdr_peak_start(&peak, size, iters, 0, start);
    watchdog_progress(&w, start);
    while (done < iters) {
        while (next < iters) {
            unsigned q = (unsigned)(next % nqp);
            if (posted[q] - completed[q] >= depth)
                break;
            uint64_t n = ++posted[q];
            unsigned flags = inline_flag | ((n % sig == 0 || n == share[q]) ? IBV_SEND_SIGNALED : 0);
            uint64_t off = (next % nslots) * size;
            if (gdr_post_one(s->verbs.qp[q], op, laddr + off, lkey, (uint32_t)size, raddr + off,
                             rkey, flags, ((uint64_t)q << QP_SHIFT) | n))
                return -1;
            next++;
        }
        int got = poll_batch(&w, s->verbs.send_cq, wc);
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        for (int i = 0; i < got; i++) {
            if (wc[i].status != IBV_WC_SUCCESS)
                return gdr_wc_fail(&wc[i], gdr_verb_name(s->test->verb), size);
            unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
            uint64_t count = wc[i].wr_id & COUNT_MASK;
            done += count - completed[q];
            completed[q] = count;
        }
        uint64_t now = last_ns = gdr_now_ns();
        watchdog_progress(&w, now);
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
        uint64_t first = share_of(iters, nqp, q);
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
    struct watchdog w = {.s = s, .size = size};
    /* The clock starts when the sender was told to go, not at the first
     * arrival: receive completions can be reported in bursts long after the
     * data came in (rxe does), and a window that starts at the first of a
     * burst reads faster than any wire. The cost is one control-message
     * latency at the start, which errs low, never high. */
    uint64_t received = 0, last_ns = 0;
    uint64_t start = gdr_now_ns();

    gdr_peak_start(&peak, size, iters, 0, start);
    watchdog_progress(&w, start);
    while (received < iters) {
        int got = poll_batch(&w, s->verbs.recv_cq, wc);
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        uint64_t now = gdr_now_ns();
        for (int i = 0; i < got; i++) {
            if (wc[i].status != IBV_WC_SUCCESS)
                return gdr_wc_fail(&wc[i], "receive", size);
            if (wc[i].byte_len != size)
                return gdr_fail(GDR_EXIT_RUN, "received %u bytes where %llu were sent",
                                wc[i].byte_len, (unsigned long long)size);
            unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
            if (s->rx_posted[q] < share_of(iters, nqp, q) &&
                post_receive(s, q, s->rx_posted[q]++, size, nslots))
                return -1;
        }
        received += (uint64_t)got;
        last_ns = now;
        gdr_peak_update(&peak, received, now);
        watchdog_progress(&w, now);
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
    enum ibv_wr_opcode op = opcode_of(s->test->verb);
    unsigned inline_flag = inline_flag_for(s, op, size);
    struct ibv_qp *qp = s->verbs.qp[0];
    struct watchdog w = {.s = s, .size = size};
    struct ibv_wc wc;
    int rc = 0;
    /* Staged ends read from / into their bounce ring; a staged requester
     * copies each message on into GPU memory inside the sample. */
    struct gdr_buffer *b = &s->buf;
    bool local_staged = gdr_buffer_staged(b);
    uint64_t laddr = local_staged ? (uintptr_t)b->ring : (uintptr_t)b->addr;
    uint32_t lkey = local_staged ? b->ring_mr->lkey : b->mr->lkey;
    uint64_t raddr = s->remote.ring_bytes ? s->remote.ring_addr : s->remote.addr;
    uint32_t rkey = s->remote.ring_bytes ? s->remote.ring_rkey : s->remote.rkey;
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
    for (uint64_t i = 0; i < iters && !rc; i++) {
        watchdog_progress(&w, prev);
        rc = gdr_post_one(qp, op, laddr, lkey, (uint32_t)size, raddr, rkey,
                          IBV_SEND_SIGNALED | inline_flag, i);
        int got = 0;
        while (!rc && (got = ibv_poll_cq(s->verbs.send_cq, 1, &wc)) == 0)
            rc = watchdog_idle(&w);
        if (!rc && got > 0 && wc.status == IBV_WC_SUCCESS && local_staged)
            rc = b->ops->stage_in(b, 0, 0, size) || gdr_stage_wait(s, 0, size) ? -1 : 0;
        uint64_t now = gdr_now_ns();
        samples[i] = now - prev;
        prev = now;
        if (!rc && got < 0)
            rc = gdr_fail(GDR_EXIT_RUN, "ibv_poll_cq failed at size %llu",
                          (unsigned long long)size);
        if (!rc && wc.status != IBV_WC_SUCCESS)
            rc = gdr_wc_fail(&wc, gdr_verb_name(s->test->verb), size);
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
