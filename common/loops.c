/* loops.c - the timed loops: the sender's pipelined post/poll loop, the
 * receiver's repost loop, and the one-at-a-time latency loop. Nothing here
 * talks to the peer except to notice that it has gone. */
#include "config.h"

#include "error.h"
#include "loops.h"
#include "sizing.h"
#include "transfer.h"

#include <stdlib.h>
#include <string.h>

#define POLL_BATCH 32
/* wr_id: QP << 48 | count; a receive's also has RECV_TAG (sends count
 * per QP from 1, receives from 0). */
#define QP_SHIFT 48
#define COUNT_MASK ((1ull << QP_SHIFT) - 1)
#define RECV_TAG (1ull << 47)

/* The message of the phase a work request carried (for a failure). */
static uint64_t wr_message(const struct gdr_watchdog *w, uint64_t wr_id)
{
    uint64_t q = wr_id >> QP_SHIFT, n = wr_id & COUNT_MASK & ~RECV_TAG;
    if (!(wr_id & RECV_TAG))
        n = n ? n - 1 : 0;
    return n * w->s->verbs.num_qps + q;
}

static void watch_loop(struct gdr_watchdog *w, const uint64_t *done)
{
    w->done = done;
    w->wr_iteration = wr_message;
}

uint64_t gdr_slots_for(const struct gdr_session *s, uint64_t size)
{
    /* Each direction's region: the buffer, or half of it when it has two. */
    uint64_t remote = gdr_roles_two_regions(&s->roles) ? s->remote.buf_len / 2 : s->remote.buf_len;
    uint64_t len = s->region < remote ? s->region : remote;
    /* A staged read responder serves what it pre-staged into its ring. */
    uint64_t ring = !s->roles.prestager ? 0 : s->is_server ? s->buf.ring_len : s->remote.ring_bytes;
    if (ring && ring < len)
        len = ring;
    return gdr_slot_count(len, gdr_slots_wanted(&s->roles, s->cfg->tx_depth, s->cfg->num_qps),
                          size);
}

/* Inline only up to what -I asked for: providers round the QP's inline
 * capacity up (rxe gives 16 bytes for 0), and perftest's habit is no
 * inlining unless asked. */
unsigned gdr_inline_flag(const struct gdr_session *s, enum ibv_wr_opcode op, uint64_t size)
{
    /* Never from GPU memory: the provider would read it with the CPU
     * (options.c refuses -I for such an end; this keeps it so). */
    if (s->buf.cuda_device >= 0 && !gdr_buffer_staged(&s->buf))
        return 0;
    return op != IBV_WR_RDMA_READ && size <= s->cfg->inline_size ? IBV_SEND_INLINE : 0;
}

void gdr_measure_finish(struct gdr_measure *m, uint64_t size, uint64_t counted, uint64_t elapsed_ns)
{
    m->elapsed_ns = elapsed_ns;
    m->bytes = counted * size;
    m->bw_avg = gdr_bandwidth(m->bytes, elapsed_ns);
    m->msg_rate = elapsed_ns ? (double)counted * 1e9 / (double)elapsed_ns : 0;
    if (m->bw_peak < m->bw_avg)
        m->bw_peak = m->bw_avg; /* a run shorter than one window */
}

/* The sender's state: messages go round robin over the QPs, at most
 * tx_depth in flight per QP. */
struct sender {
    uint64_t iters, nslots, next, done;
    unsigned sig, inline_flag;
    uint64_t posted[GDR_MAX_QPS], completed[GDR_MAX_QPS], share[GDR_MAX_QPS];
    struct gdr_prepared_send send; /* built once; a post sets its slot */
    uint64_t laddr, raddr;         /* ... from these bases */
    struct gdr_peak_tracker peak;
    uint64_t start_ns, last_ns;
    struct gdr_window window;
};

static void sender_init(struct gdr_session *s, struct sender *st, uint64_t size, uint64_t iters)
{
    const struct gdr_config *cfg = s->cfg;
    unsigned nqp = s->verbs.num_qps;
    memset(st, 0, sizeof(*st));
    st->iters = iters;
    /* Signal every `sig` posts per QP: one completion frees many WQEs, as
     * on real workloads; the last post of each QP is always signalled. */
    st->sig = cfg->tx_depth / 2 < 64 ? cfg->tx_depth / 2 : 64;
    if (!st->sig)
        st->sig = 1;
    for (unsigned q = 0; q < nqp; q++)
        st->share[q] = gdr_share_of(iters, nqp, q);
    st->nslots = gdr_slots_for(s, size);
    struct gdr_wr wr = {
        .op = s->roles.opcode,
        .laddr = (uintptr_t)s->buf.addr,
        .lkey = s->buf.mr->lkey,
        .len = (uint32_t)size,
        .raddr = s->remote.addr + s->dest_off,
        .rkey = s->remote.rkey,
    };
    if (s->roles.prestager && s->remote.ring_bytes) { /* reads from a staged responder's ring */
        wr.raddr = s->remote.ring_addr;
        wr.rkey = s->remote.ring_rkey;
    }
    st->inline_flag = gdr_inline_flag(s, wr.op, size);
    st->laddr = wr.laddr;
    st->raddr = wr.raddr;
    gdr_send_prepare(&st->send, &wr);
    st->start_ns = st->last_ns = gdr_now_ns();
    gdr_peak_start(&st->peak, size, iters, 0, st->start_ns);
}

static int sender_post(struct gdr_session *s, struct sender *st, uint64_t size)
{
    unsigned nqp = s->verbs.num_qps, depth = s->cfg->tx_depth;
    uint64_t before = st->next;
    while (st->next < st->iters) {
        unsigned q = (unsigned)(st->next % nqp);
        if (st->posted[q] - st->completed[q] >= depth)
            break;
        uint64_t n = ++st->posted[q], off = (st->next % st->nslots) * size;
        st->send.sge.addr = st->laddr + off;
        st->send.wr.wr.rdma.remote_addr = st->raddr + off;
        st->send.wr.send_flags =
            st->inline_flag | ((n % st->sig == 0 || n == st->share[q]) ? IBV_SEND_SIGNALED : 0);
        if (gdr_post_prepared_send(s->verbs.qp[q], &st->send, ((uint64_t)q << QP_SHIFT) | n, 0))
            return -1;
        st->next++;
    }
    if (st->next != before)
        gdr_window_note(&st->window, st->next - st->done, (st->next - st->done) * size);
    return 0;
}

/* Completions of the sender's posts: their count (0: none), -1 on error. */
static int sender_poll(struct gdr_session *s, struct sender *st, struct gdr_watchdog *w)
{
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.send_cq, POLL_BATCH, wc, gdr_verb_name(s->test->verb));
    if (got <= 0)
        return got;
    for (int i = 0; i < got; i++) {
        unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
        uint64_t count = wc[i].wr_id & COUNT_MASK;
        st->done += count - st->completed[q];
        st->completed[q] = count;
    }
    uint64_t now = st->last_ns = gdr_now_ns();
    gdr_watchdog_progress(w, now);
    gdr_peak_update(&st->peak, st->done, now);
    return got;
}

int gdr_loop_sender(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct sender st;
    struct gdr_watchdog w;
    sender_init(s, &st, size, iters);
    gdr_watchdog_start(&w, s, size, st.start_ns);
    watch_loop(&w, &st.done);
    while (st.done < iters) {
        if (sender_post(s, &st, size) || sender_poll(s, &st, &w) < 0)
            return -1;
        if (gdr_interrupted)
            return gdr_fail_interrupted(size);
    }
    m->iters = iters;
    m->bw_peak = st.peak.peak;
    gdr_peak_steadiness(&st.peak, &m->steady);
    m->window = st.window;
    gdr_measure_finish(m, size, iters, st.last_ns - st.start_ns); /* to the last completion */
    return 0;
}

/* Receive j on QP q carries message j * nqp + q; it lands in that
 * message's slot, the slot the sender sent it from, so --validate can
 * check every slot after the run. */
static int post_receive(struct gdr_session *s, unsigned q, uint64_t j, uint64_t size,
                        uint64_t nslots)
{
    uint64_t msg = j * s->verbs.num_qps + q;
    uint64_t off = s->dest_off + (msg % nslots) * size;
    return gdr_post_recv(s->verbs.qp[q], (uintptr_t)s->buf.addr + off, s->buf.mr->lkey,
                         (uint32_t)size, ((uint64_t)q << QP_SHIFT) | RECV_TAG | j);
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

struct receiver {
    uint64_t iters, nslots, received;
    struct gdr_peak_tracker peak;
    uint64_t start_ns, last_ns;
};

/* The clock starts when the sender was told to go, not at the first
 * arrival: receive completions can be reported in bursts long after the
 * data came in (rxe does), and a window that starts at the first of a
 * burst reads faster than any wire. The cost is one control-message
 * latency at the start, which errs low, never high. */
static void receiver_init(struct gdr_session *s, struct receiver *st, uint64_t size, uint64_t iters)
{
    memset(st, 0, sizeof(*st));
    st->iters = iters;
    st->nslots = gdr_slots_for(s, size);
    st->start_ns = gdr_now_ns();
    gdr_peak_start(&st->peak, size, iters, 0, st->start_ns);
}

/* Arrivals, each replaced by the next receive of its QP: their count (0:
 * none), -1 on error. */
static int receiver_poll(struct gdr_session *s, struct receiver *st, struct gdr_watchdog *w,
                         uint64_t size)
{
    unsigned nqp = s->verbs.num_qps;
    struct ibv_wc wc[POLL_BATCH];
    int got = gdr_poll_cq(w, s->verbs.recv_cq, POLL_BATCH, wc, "receive");
    if (got <= 0)
        return got;
    uint64_t now = gdr_now_ns();
    for (int i = 0; i < got; i++) {
        if (wc[i].byte_len != size)
            return gdr_fail(GDR_EXIT_RUN, "received %u bytes where %llu were sent", wc[i].byte_len,
                            (unsigned long long)size);
        unsigned q = (unsigned)(wc[i].wr_id >> QP_SHIFT);
        if (s->rx_posted[q] < gdr_share_of(st->iters, nqp, q) &&
            post_receive(s, q, s->rx_posted[q]++, size, st->nslots))
            return -1;
    }
    st->received += (uint64_t)got;
    st->last_ns = now;
    gdr_peak_update(&st->peak, st->received, now);
    gdr_watchdog_progress(w, now);
    return got;
}

static void receiver_measure(const struct receiver *st, uint64_t size, struct gdr_measure *m)
{
    m->iters = st->iters;
    m->bw_peak = st->peak.peak;
    gdr_peak_steadiness(&st->peak, &m->steady);
    gdr_measure_finish(m, size, st->iters, st->last_ns - st->start_ns);
}

int gdr_loop_receiver(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct receiver st;
    struct gdr_watchdog w;
    bool armed = false, events = s->cfg->events && s->verbs.recv_channel;
    receiver_init(s, &st, size, iters);
    gdr_watchdog_start(&w, s, size, st.start_ns);
    watch_loop(&w, &st.received);
    while (st.received < iters) {
        int got = receiver_poll(s, &st, &w, size);
        if (got < 0 || (!got && events && gdr_recv_cq_sleep(&w, &armed, &m->sleeps) < 0))
            return -1;
        if (gdr_interrupted)
            return gdr_fail_interrupted(size);
    }
    receiver_measure(&st, size, m);
    return 0;
}

int gdr_loop_sender_receiver(struct gdr_session *s, uint64_t size, uint64_t iters,
                             struct gdr_measure *m)
{
    struct sender tx;
    struct receiver rx;
    struct gdr_watchdog w;
    receiver_init(s, &rx, size, iters);
    sender_init(s, &tx, size, iters);
    gdr_watchdog_start(&w, s, size, rx.start_ns);
    watch_loop(&w, &tx.done);
    while (tx.done < iters || rx.received < iters) {
        if (sender_post(s, &tx, size) || (tx.done < iters && sender_poll(s, &tx, &w) < 0) ||
            (rx.received < iters && receiver_poll(s, &rx, &w, size) < 0))
            return -1;
        if (gdr_interrupted)
            return gdr_fail_interrupted(size);
    }
    receiver_measure(&rx, size, m);
    m->window = tx.window; /* what this end sent; the numbers are what it received */
    return 0;
}

/* Latency posts carry their iteration as wr_id. */
static uint64_t wr_is_iteration(const struct gdr_watchdog *w, uint64_t wr_id)
{
    (void)w;
    return wr_id;
}

int gdr_samples_start(struct gdr_samples *sm, const struct gdr_session *s, uint64_t iters)
{
    memset(sm, 0, sizeof(*sm));
    sm->ticks = malloc(iters * sizeof(*sm->ticks));
    if (!sm->ticks)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %llu latency samples",
                        (unsigned long long)iters);
    gdr_tick_clock_start(&sm->clk, s->place.loop_cpu >= 0);
    sm->start_ns = gdr_now_ns();
    sm->prev = gdr_ticks_on(&sm->clk, &sm->prev_where);
    return 0;
}

int gdr_samples_finish(struct gdr_session *s, struct gdr_samples *sm, uint64_t size, uint64_t iters,
                       unsigned per_sample, int rc, struct gdr_measure *m)
{
    uint64_t elapsed_ns = gdr_now_ns() - sm->start_ns;
    gdr_tick_clock_stop(&sm->clk);
    for (uint64_t i = 0; i < sm->kept && !rc; i++)
        sm->ticks[i] = gdr_ticks_to_ns(&sm->clk, sm->ticks[i]) / per_sample;
    uint64_t dropped = sm->clk.dropped;
    sm->clk.dropped += s->clock.dropped; /* the run's total */
    s->clock = sm->clk;
    if (!rc && sm->kept == 0)
        rc = gdr_fail(GDR_EXIT_RUN, "size %llu: every latency sample spans two CPUs",
                      (unsigned long long)size);
    if (!rc) {
        m->iters = iters;
        gdr_measure_finish(m, size, iters, elapsed_ns);
        m->window = (struct gdr_window){1, size};
        gdr_lat_stats_compute(sm->ticks, sm->kept, &m->lat);
        m->lat.dropped = dropped;
    }
    free(sm->ticks);
    sm->ticks = NULL;
    return rc;
}

int gdr_loop_latency(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m)
{
    struct ibv_qp *qp = s->verbs.qp[0];
    struct gdr_watchdog w;
    struct ibv_wc wc;
    int rc = 0;
    /* Staged ends read from / into their bounce ring; a staged requester
     * copies each message on into GPU memory inside the sample. */
    struct gdr_buffer *b = &s->buf;
    bool local_staged = gdr_buffer_staged(b);
    struct gdr_wr wr = {
        .op = s->roles.opcode,
        .len = (uint32_t)size,
        .laddr = local_staged ? (uintptr_t)b->ring : (uintptr_t)b->addr,
        .lkey = local_staged ? b->ring_mr->lkey : b->mr->lkey,
        .raddr = s->remote.ring_bytes ? s->remote.ring_addr : s->remote.addr,
        .rkey = s->remote.ring_bytes ? s->remote.ring_rkey : s->remote.rkey,
    };
    wr.flags = IBV_SEND_SIGNALED | gdr_inline_flag(s, wr.op, size);
    struct gdr_prepared_send send;
    gdr_send_prepare(&send, &wr);
    if ((local_staged && size > b->ring_len) ||
        (s->remote.ring_bytes && size > s->remote.ring_bytes))
        return gdr_fail(GDR_EXIT_USAGE,
                        "size %llu does not fit the bounce ring (raise "
                        "--stage-slot or --stage-slots)",
                        (unsigned long long)size);
    /* One clock read per iteration: each sample runs from the previous
     * completion's timestamp to this one's, so it holds one post, the wait
     * and the loop's own few instructions, and no second clock read
     * (gdr_samples_take). */
    struct gdr_samples sm;
    if (gdr_samples_start(&sm, s, iters))
        return -1;
    gdr_watchdog_start(&w, s, size, sm.start_ns);
    uint64_t i;
    w.done = &i;
    w.wr_iteration = wr_is_iteration;
    for (i = 0; i < iters && !rc; i++) {
        gdr_watchdog_bump(&w);
        rc = gdr_post_prepared_send(qp, &send, i, 0);
        int got = 0;
        while (!rc &&
               (got = gdr_poll_cq(&w, s->verbs.send_cq, 1, &wc, gdr_verb_name(s->test->verb))) == 0)
            ;
        if (got < 0)
            rc = -1;
        if (!rc && local_staged)
            rc = b->ops->stage_in(b, 0, 0, 0, size) || gdr_wait_copy(&w, b, 0) ? -1 : 0;
        gdr_samples_take(&sm);
        if (!rc && gdr_interrupted)
            rc = gdr_fail_interrupted(size);
    }
    return gdr_samples_finish(s, &sm, size, iters, 1, rc, m);
}
