/* core.c - the verbs test double's interposition core (see verbsim.h):
 * the wrapped context ops, the program's send requests from post to
 * completion, the real functions, the environment, the seeded generator,
 * the log and the timer thread. What the double does to the requests is
 * the layers' (reorder.c, ...). */
#include "verbsim.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#undef ibv_open_device

/* The layers, in the order they are asked. */
static const struct vs_layer *const layers[] = {&vs_reorder_layer, &vs_fault_layer};
#define NLAYERS (sizeof(layers) / sizeof(layers[0]))
static bool layer_on[NLAYERS];
static bool any_on;

/* The real QP's wr_id of a request the double posted: a tag in the top 16
 * bits (so a receive completion on a shared CQ is not taken for one),
 * its real sequence number below. */
#define TAG (0x7653ull << 48)
#define TAG_MASK (0xffffull << 48)
#define SEQ_MASK (~TAG_MASK)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- environment, generator, log ---- */

static FILE *log_file;
static bool verbose;
static uint64_t seed_value, rng_state;
static uint64_t cq_delay_ns;

uint64_t vs_env_u64(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end || v[0] == '-' || x < min || x > max) {
        vs_log("%s=%s is not a number in [%llu, %llu]: using %llu", name, v,
               (unsigned long long)min, (unsigned long long)max, (unsigned long long)dflt);
        return dflt;
    }
    return x;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t vs_rand(void)
{
    return splitmix(&rng_state);
}

uint64_t vs_rand_below(uint64_t n)
{
    return n ? vs_rand() % n : 0;
}

uint64_t vs_seed(void)
{
    return seed_value;
}

uint64_t vs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void vlog(const char *fmt, va_list ap)
{
    FILE *f = log_file ? log_file : stderr;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    fprintf(f, "verbsim[%ld]: %s\n", (long)getpid(), line);
    fflush(f);
}

void vs_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

bool vs_verbose_on(void)
{
    return verbose;
}

void vs_verbose(const char *fmt, ...)
{
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

static void setup(void)
{
    const char *path = getenv("GDR_VERBSIM_LOG");
    if (path && *path && !(log_file = fopen(path, "a")))
        fprintf(stderr, "verbsim: cannot open GDR_VERBSIM_LOG=%s: %s\n", path, strerror(errno));
    verbose = vs_env_u64("GDR_VERBSIM_VERBOSE", 0, 0, 1);
    /* No seed given: one from the clock, logged so the run can be replayed. */
    seed_value = vs_env_u64("GDR_VERBSIM_SEED", vs_now_ns() ^ (uint64_t)getpid(), 0, UINT64_MAX);
    rng_state = seed_value;
    cq_delay_ns = vs_env_u64("GDR_VERBSIM_CQ_DELAY_US", 0, 0, 10000000) * 1000;
    for (size_t i = 0; i < NLAYERS; i++)
        any_on |= layer_on[i] = layers[i]->init();
    if (any_on)
        vs_log("seed %llu (GDR_VERBSIM_SEED)", (unsigned long long)seed_value);
}

static void start(void)
{
    pthread_once(&once, setup);
}

void vs_start(void)
{
    start();
}

/* ---- the real functions ---- */

struct vs_ctx {
    struct ibv_context *ctx;
    struct ibv_context_ops real;
};

static struct vs_ctx ctxs[64];
static size_t nctx;

static const struct ibv_context_ops *real_ops(struct ibv_context *ctx)
{
    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i].ctx == ctx)
            return &ctxs[i].real;
    return NULL;
}

static void *next_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        vs_log("no %s after the double (is libibverbs loaded?)", name);
    return f;
}

/* ---- QPs and their requests ---- */

static struct vs_qp **qps;
static size_t nqps, qps_cap;

size_t vs_qp_count(void)
{
    return nqps;
}

struct vs_qp *vs_qp_at(size_t i)
{
    return i < nqps ? qps[i] : NULL;
}

static size_t fifo_len(const struct vs_qp *q)
{
    return q->tail - q->head;
}

static struct vs_wr *fifo_at(struct vs_qp *q, size_t i)
{
    return &q->fifo[(q->head + i) % q->cap];
}

struct vs_wr *vs_held_at(struct vs_qp *q, size_t i)
{
    return fifo_at(q, fifo_len(q) - q->held + i);
}

static int fifo_grow(struct vs_qp *q)
{
    size_t cap = q->cap ? 2 * q->cap : 64;
    struct vs_wr *f = calloc(cap, sizeof(*f));
    if (!f)
        return ENOMEM;
    size_t n = fifo_len(q);
    for (size_t i = 0; i < n; i++)
        f[i] = *fifo_at(q, i);
    free(q->fifo);
    q->fifo = f;
    q->cap = cap;
    q->head = 0;
    q->tail = n;
    return 0;
}

static struct vs_qp *qp_add(struct ibv_qp *qp, uint32_t max_send_wr, bool sig_all)
{
    if (nqps == qps_cap) {
        size_t cap = qps_cap ? 2 * qps_cap : 16;
        struct vs_qp **n = realloc(qps, cap * sizeof(*n));
        if (!n)
            return NULL;
        qps = n;
        qps_cap = cap;
    }
    struct vs_qp *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->qp = qp;
    q->qp_num = qp->qp_num;
    q->max_send_wr = max_send_wr;
    q->sig_all = sig_all;
    qps[nqps++] = q;
    return q;
}

static struct vs_qp *qp_of(struct ibv_qp *qp)
{
    for (size_t i = 0; i < nqps; i++)
        if (qps[i]->qp == qp)
            return qps[i];
    /* First post on a QP the double has not seen: ask its size. */
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    memset(&ia, 0, sizeof(ia));
    if (ibv_query_qp(qp, &a, IBV_QP_CAP, &ia))
        ia.cap.max_send_wr = 0;
    return qp_add(qp, ia.cap.max_send_wr, ia.sq_sig_all);
}

static struct vs_qp *qp_by_num(uint32_t num)
{
    for (size_t i = 0; i < nqps; i++)
        if (qps[i]->qp_num == num)
            return qps[i];
    return NULL;
}

static void wr_free(struct vs_wr *w)
{
    free(w->sge);
    free(w->inline_data);
    w->sge = NULL;
    w->inline_data = NULL;
}

static void qp_remove(struct ibv_qp *qp)
{
    for (size_t i = 0; i < nqps; i++) {
        struct vs_qp *q = qps[i];
        if (q->qp != qp)
            continue;
        for (size_t k = 0; k < NLAYERS; k++)
            if (layer_on[k] && layers[k]->qp_gone)
                layers[k]->qp_gone(q);
        if (q->held)
            vs_log("qp %#x destroyed with %zu write(s) never placed", q->qp_num, q->held);
        for (size_t k = 0; k < fifo_len(q); k++)
            wr_free(fifo_at(q, k));
        free(q->fifo);
        free(q);
        qps[i] = qps[--nqps];
        return;
    }
}

void vs_qp_register(struct ibv_qp *qp, uint32_t max_send_wr, bool sig_all)
{
    start();
    pthread_mutex_lock(&lock);
    qp_add(qp, max_send_wr, sig_all);
    pthread_mutex_unlock(&lock);
}

/* ---- CQs: the program's completions, in the order it gets them ---- */

struct pending {
    struct ibv_wc wc;
    uint64_t visible_ns; /* GDR_VERBSIM_CQ_DELAY_US: not before */
};

struct vs_cq {
    struct ibv_cq *cq;
    struct pending *q;
    size_t cap, head, tail;
};

static struct vs_cq **cqs;
static size_t ncqs, cqs_cap;

static struct vs_cq *cq_of(struct ibv_cq *cq)
{
    for (size_t i = 0; i < ncqs; i++)
        if (cqs[i]->cq == cq)
            return cqs[i];
    if (ncqs == cqs_cap) {
        size_t cap = cqs_cap ? 2 * cqs_cap : 8;
        struct vs_cq **n = realloc(cqs, cap * sizeof(*n));
        if (!n)
            return NULL;
        cqs = n;
        cqs_cap = cap;
    }
    struct vs_cq *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->cq = cq;
    cqs[ncqs++] = c;
    return c;
}

static int cq_push(struct vs_cq *c, const struct ibv_wc *wc, uint64_t visible_ns)
{
    if (c->tail - c->head == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        struct pending *n = calloc(cap, sizeof(*n));
        if (!n)
            return ENOMEM;
        for (size_t i = c->head; i < c->tail; i++)
            n[i - c->head] = c->q[i % c->cap];
        free(c->q);
        c->q = n;
        c->tail -= c->head;
        c->head = 0;
        c->cap = cap;
    }
    c->q[c->tail % c->cap] = (struct pending){*wc, visible_ns};
    c->tail++;
    return 0;
}

static void cq_remove(struct ibv_cq *cq)
{
    for (size_t i = 0; i < ncqs; i++)
        if (cqs[i]->cq == cq) {
            free(cqs[i]->q);
            free(cqs[i]);
            cqs[i] = cqs[--ncqs];
            return;
        }
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    case IBV_WR_LOCAL_INV: return IBV_WC_LOCAL_INV;
    case IBV_WR_BIND_MW: return IBV_WC_BIND_MW;
    case IBV_WR_TSO: return IBV_WC_TSO;
    default: return IBV_WC_SEND;
    }
}

/* Hand the program the completions of its oldest requests that the real
 * QP has finished (all real requests up to `covered` are, RC completing
 * in order), in posting order, signalled ones and failed ones only. */
static void complete_done(struct vs_qp *q, uint64_t covered)
{
    struct vs_cq *c = cq_of(q->qp->send_cq);
    uint64_t visible = cq_delay_ns ? vs_now_ns() + cq_delay_ns : 0;
    while (fifo_len(q) > q->held) {
        struct vs_wr *w = fifo_at(q, 0);
        if (!w->failed && !(w->real_seq && w->real_seq <= covered))
            break;
        enum ibv_wc_status st = IBV_WC_SUCCESS;
        if (w->failed)
            st = w->status;
        else if (q->error_seq && w->real_seq > q->error_seq)
            st = IBV_WC_WR_FLUSH_ERR;
        if (c && ((w->app_flags & IBV_SEND_SIGNALED) || q->sig_all || st != IBV_WC_SUCCESS)) {
            struct ibv_wc wc = {
                .wr_id = w->app_wr_id,
                .status = st,
                .opcode = wc_opcode(w->opcode),
                .byte_len = w->byte_len,
                .qp_num = q->qp_num,
            };
            if (cq_push(c, &wc, visible))
                vs_log("out of memory for a completion of qp %#x", q->qp_num);
        }
        wr_free(w);
        q->head++;
    }
}

/* ---- posting ---- */

static uint32_t total_len(const struct ibv_send_wr *wr)
{
    uint64_t n = 0;
    for (int i = 0; i < wr->num_sge; i++)
        n += wr->sg_list[i].length;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* A held request keeps its own copy: the list and, for an inline one,
 * the payload (the program may reuse both once ibv_post_send returns; a
 * NIC reads the rest of the data when it executes the request). */
static int hold_copy(struct vs_wr *w, const struct ibv_send_wr *wr)
{
    w->wr = *wr;
    w->wr.next = NULL;
    if (wr->num_sge <= 0) {
        w->wr.sg_list = NULL;
        w->wr.num_sge = 0;
        return 0;
    }
    if (wr->send_flags & IBV_SEND_INLINE) {
        w->inline_data = malloc(w->byte_len ? w->byte_len : 1);
        w->sge = malloc(sizeof(*w->sge));
        if (!w->inline_data || !w->sge)
            return ENOMEM;
        uint32_t at = 0;
        for (int i = 0; i < wr->num_sge; i++) {
            memcpy(w->inline_data + at, (void *)(uintptr_t)wr->sg_list[i].addr,
                   wr->sg_list[i].length);
            at += wr->sg_list[i].length;
        }
        *w->sge = (struct ibv_sge){(uintptr_t)w->inline_data, w->byte_len, 0};
        w->wr.num_sge = 1;
    } else {
        w->sge = malloc((size_t)wr->num_sge * sizeof(*w->sge));
        if (!w->sge)
            return ENOMEM;
        memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(*w->sge));
    }
    w->wr.sg_list = w->sge;
    return 0;
}

static bool wants_signal(const struct vs_qp *q, const struct vs_wr *w)
{
    return q->sig_all || (w->app_flags & IBV_SEND_SIGNALED);
}

size_t vs_in_flight(const struct vs_qp *q)
{
    return fifo_len(q) - q->held;
}

size_t vs_signalled_in_flight(const struct vs_qp *q)
{
    size_t n = 0;
    for (size_t i = 0; i < vs_in_flight(q); i++)
        n += wants_signal(q, &q->fifo[(q->head + i) % q->cap]);
    return n;
}

void vs_complete_in_flight(struct vs_qp *q)
{
    complete_done(q, q->next_real_seq);
}

void vs_fail_held(struct vs_qp *q, enum ibv_wc_status first)
{
    for (size_t i = 0; i < q->held; i++) {
        struct vs_wr *w = vs_held_at(q, i);
        w->held = false;
        w->failed = true;
        w->status = i ? IBV_WC_WR_FLUSH_ERR : first;
        wr_free(w);
    }
    q->held = 0;
    complete_done(q, 0);
}

int vs_flush(struct vs_qp *q)
{
    size_t n = q->held;
    if (!n)
        return 0;
    const struct ibv_context_ops *ops = real_ops(q->qp->context);
    struct vs_wr **batch = malloc(n * sizeof(*batch));
    struct ibv_send_wr *real = malloc(n * sizeof(*real));
    if (!batch || !real || !ops) {
        free(batch);
        free(real);
        return ENOMEM;
    }
    bool signal = false;
    for (size_t i = 0; i < n; i++) {
        batch[i] = vs_held_at(q, i);
        signal |= wants_signal(q, batch[i]);
    }
    for (size_t k = 0; k < NLAYERS; k++)
        if (layer_on[k] && layers[k]->permute)
            layers[k]->permute(q, batch, n);
    /* One real completion for the batch, on the last one posted (RC
     * completes the real QP in order), when the program asked for any:
     * never more real completions than the program's CQ expects. */
    for (size_t i = 0; i < n; i++) {
        real[i] = batch[i]->wr;
        real[i].next = i + 1 < n ? &real[i + 1] : NULL;
        real[i].wr_id = TAG | (q->next_real_seq + 1 + i);
        real[i].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
        if (signal && i + 1 == n)
            real[i].send_flags |= IBV_SEND_SIGNALED;
    }
    struct ibv_send_wr *bad = NULL;
    int rc = ops->post_send(q->qp, real, &bad);
    size_t posted = rc ? (bad ? (size_t)(bad - real) : 0) : n;
    for (size_t i = 0; i < n; i++) {
        batch[i]->held = false;
        if (i < posted) {
            batch[i]->real_seq = ++q->next_real_seq;
        } else {
            batch[i]->failed = true;
            batch[i]->status = IBV_WC_LOC_QP_OP_ERR;
        }
        wr_free(batch[i]);
    }
    q->held = 0;
    if (rc) {
        vs_log("qp %#x: the real post of %zu held write(s) failed at %zu: %s", q->qp_num, n, posted,
               strerror(rc));
        complete_done(q, 0);
    }
    /* Unsignalled, a batch is done for the program once a later request of
     * the QP completes (RC completes in order): complete_done() pops it. */
    free(batch);
    free(real);
    return rc;
}

static int post_now(struct vs_qp *q, struct vs_wr *w, const struct ibv_send_wr *app)
{
    const struct ibv_context_ops *ops = real_ops(q->qp->context);
    struct ibv_send_wr r = *app, *bad = NULL;
    r.next = NULL;
    r.wr_id = TAG | (q->next_real_seq + 1);
    int rc = ops ? ops->post_send(q->qp, &r, &bad) : ENODEV;
    if (!rc)
        w->real_seq = ++q->next_real_seq;
    return rc;
}

static int wrap_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
    int rc = 0;
    pthread_mutex_lock(&lock);
    struct vs_qp *q = qp_of(qp);
    if (!q)
        rc = ENOMEM;
    for (; wr && !rc; wr = wr->next) {
        /* The send queue holds what the program has posted and not yet
         * seen complete (mlx5 frees entries as their completions are
         * polled), held requests included. */
        if (q->max_send_wr && fifo_len(q) >= q->max_send_wr) {
            rc = ENOMEM;
            break;
        }
        if (fifo_len(q) == q->cap && (rc = fifo_grow(q)))
            break;
        struct vs_wr w = {
            .app_wr_id = wr->wr_id,
            .app_seq = q->next_app_seq + 1,
            .opcode = wr->opcode,
            .app_flags = wr->send_flags,
            .byte_len = total_len(wr),
        };
        int verdict = VS_POST;
        for (size_t k = 0; k < NLAYERS && !rc; k++) {
            if (!layer_on[k] || !layers[k]->post_send)
                continue;
            int v = layers[k]->post_send(q, &w);
            if (v < 0)
                rc = -v;
            else if (v > verdict)
                verdict = v;
        }
        if (!rc && verdict != VS_POST && !(rc = hold_copy(&w, wr))) {
            w.held = true;
            q->fifo[q->tail++ % q->cap] = w;
            q->next_app_seq++;
            q->held++;
            if (verdict == VS_HOLD_FLUSH)
                vs_flush(q); /* a failure completes them with an error */
            continue;
        }
        wr_free(&w);
        if (!rc && q->held)
            vs_flush(q);
        if (!rc)
            rc = post_now(q, &w, wr);
        if (!rc) {
            q->fifo[q->tail++ % q->cap] = w;
            q->next_app_seq++;
        }
    }
    if (rc && bad_wr)
        *bad_wr = wr;
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- polling ---- */

/* A completion the real CQ gave: the double's own requests become the
 * program's; anything else (receives) goes through as it is. */
static void take_real(struct vs_cq *c, const struct ibv_wc *wc)
{
    struct vs_qp *q = (wc->wr_id & TAG_MASK) == TAG ? qp_by_num(wc->qp_num) : NULL;
    bool send_side = wc->status != IBV_WC_SUCCESS || !(wc->opcode & IBV_WC_RECV);
    if (!q || !send_side) {
        if (cq_push(c, wc, 0))
            vs_log("out of memory for a completion of qp %#x", wc->qp_num);
        return;
    }
    uint64_t seq = wc->wr_id & SEQ_MASK;
    if (wc->status != IBV_WC_SUCCESS) {
        for (size_t i = 0; i < fifo_len(q); i++) {
            struct vs_wr *w = fifo_at(q, i);
            if (w->real_seq == seq) {
                w->failed = true;
                w->status = wc->status;
            }
        }
        if (!q->error_seq || seq < q->error_seq)
            q->error_seq = seq;
    }
    complete_done(q, seq);
}

static int wrap_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
    struct ibv_wc real[64];
    pthread_mutex_lock(&lock);
    const struct ibv_context_ops *ops = real_ops(cq->context);
    struct vs_cq *c = cq_of(cq);
    if (!ops || !c) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    int want = num < 1 ? 1 : num > 64 ? 64 : num;
    int got = ops->poll_cq(cq, want, real);
    for (int i = 0; i < got; i++)
        take_real(c, &real[i]);
    int n = 0;
    uint64_t now = 0;
    while (n < num && c->head != c->tail) {
        struct pending *p = &c->q[c->head % c->cap];
        if (p->visible_ns && p->visible_ns > (now ? now : (now = vs_now_ns())))
            break;
        wc[n++] = p->wc;
        c->head++;
    }
    pthread_mutex_unlock(&lock);
    return got < 0 && !n ? got : n;
}

static int wrap_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
    pthread_mutex_lock(&lock);
    const struct ibv_context_ops *ops = real_ops(cq->context);
    for (size_t k = 0; k < NLAYERS; k++)
        if (layer_on[k] && layers[k]->arming)
            layers[k]->arming(cq);
    /* The program may sleep next: what it is owed becomes visible now
     * (a real CQ would raise no event for it). */
    struct vs_cq *c = cq_of(cq);
    for (size_t i = c ? c->head : 0; c && i < c->tail; i++)
        c->q[i % c->cap].visible_ns = 0;
    pthread_mutex_unlock(&lock);
    return ops ? ops->req_notify_cq(cq, solicited_only) : ENODEV;
}

/* ---- the timer thread: the NIC goes on while the program does not call ---- */

static pthread_cond_t wake;
static pthread_t timer;
static bool timer_started;
static uint64_t timer_until; /* when the thread will look next; 0: waiting */

static uint64_t run_ticks(uint64_t now)
{
    uint64_t next = 0;
    for (size_t k = 0; k < NLAYERS; k++) {
        if (!layer_on[k] || !layers[k]->tick)
            continue;
        uint64_t t = layers[k]->tick(now);
        if (t && (!next || t < next))
            next = t;
    }
    return next;
}

void vs_wake_at(uint64_t at_ns)
{
    if (timer_started && (!timer_until || at_ns < timer_until))
        pthread_cond_signal(&wake);
}

static void *timer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        uint64_t next = run_ticks(vs_now_ns());
        timer_until = next;
        if (!next) {
            pthread_cond_wait(&wake, &lock);
            continue;
        }
        struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
        pthread_cond_timedwait(&wake, &lock, &ts);
    }
    return NULL;
}

static void start_timer(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
    if (pthread_create(&timer, NULL, timer_main, NULL) == 0) {
        pthread_detach(timer);
        timer_started = true;
    } else {
        vs_log("no timer thread: held writes wait for the program's next post");
    }
}

/* ---- the context ---- */

void vs_wrap_context(struct ibv_context *ctx)
{
    start();
    if (!any_on || !ctx)
        return;
    pthread_mutex_lock(&lock);
    if (!real_ops(ctx) && nctx < sizeof(ctxs) / sizeof(ctxs[0])) {
        ctxs[nctx].ctx = ctx;
        ctxs[nctx].real = ctx->ops;
        nctx++;
        ctx->ops.post_send = wrap_post_send;
        ctx->ops.poll_cq = wrap_poll_cq;
        ctx->ops.req_notify_cq = wrap_req_notify_cq;
        for (size_t k = 0; k < NLAYERS; k++)
            if (layer_on[k] && layers[k]->opened)
                layers[k]->opened(ctx);
        if (!timer_started)
            start_timer();
    } else if (!real_ops(ctx)) {
        vs_log("too many contexts: %s not wrapped", ibv_get_device_name(ctx->device));
    }
    pthread_mutex_unlock(&lock);
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    static struct ibv_context *(*real_open)(struct ibv_device *);
    start();
    if (!real_open &&
        !(real_open = (struct ibv_context * (*)(struct ibv_device *)) next_fn("ibv_open_device"))) {
        errno = ENOSYS;
        return NULL;
    }
    struct ibv_context *ctx = real_open(device);
    vs_wrap_context(ctx);
    return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
    static int (*real_close)(struct ibv_context *);
    if (!real_close && !(real_close = (int (*)(struct ibv_context *))next_fn("ibv_close_device")))
        return ENOSYS;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i].ctx == ctx) {
            for (size_t k = 0; k < NLAYERS; k++)
                if (layer_on[k] && layers[k]->closing)
                    layers[k]->closing(ctx);
            ctx->ops = ctxs[i].real;
            ctxs[i] = ctxs[--nctx];
            break;
        }
    pthread_mutex_unlock(&lock);
    return real_close(ctx);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
    static int (*real_destroy)(struct ibv_qp *);
    if (!real_destroy && !(real_destroy = (int (*)(struct ibv_qp *))next_fn("ibv_destroy_qp")))
        return ENOSYS;
    pthread_mutex_lock(&lock);
    qp_remove(qp);
    pthread_mutex_unlock(&lock);
    return real_destroy(qp);
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
    static int (*real_destroy)(struct ibv_cq *);
    if (!real_destroy && !(real_destroy = (int (*)(struct ibv_cq *))next_fn("ibv_destroy_cq")))
        return ENOSYS;
    pthread_mutex_lock(&lock);
    cq_remove(cq);
    pthread_mutex_unlock(&lock);
    return real_destroy(cq);
}

void vs_summaries(void)
{
    pthread_mutex_lock(&lock);
    for (size_t k = 0; k < NLAYERS; k++)
        if (layer_on[k] && layers[k]->summary)
            layers[k]->summary();
    pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void at_exit(void)
{
    if (any_on)
        vs_summaries();
}
