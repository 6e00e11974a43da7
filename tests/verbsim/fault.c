/* fault.c - the double's fault layer: an error completion or an
 * asynchronous event, once, at a chosen send request or time, with what
 * the hardware does around it.
 *
 *   GDR_VERBSIM_FAULT=NAME        IBV_WC_RETRY_EXC_ERR, IBV_WC_REM_ACCESS_ERR,
 *                                 IBV_WC_WR_FLUSH_ERR (an error completion) or
 *                                 IBV_EVENT_PORT_ERR, IBV_EVENT_QP_FATAL,
 *                                 IBV_EVENT_DEVICE_FATAL (an async event)
 *   GDR_VERBSIM_FAULT_AT=N        at the process's N-th send request (from 1,
 *                                 every QP counted; the default, N = 1)
 *   GDR_VERBSIM_FAULT_AFTER_MS=T  or T ms after the first device was opened
 *                                 (an event is raised then by the timer, with
 *                                 or without a send: a write test's server
 *                                 posts none; an error completion hits the
 *                                 first request posted from then on)
 *   GDR_VERBSIM_FAULT_PORT=P      the port of a port error (default 1)
 *   GDR_VERBSIM_RENEW_FAILS=N     once the fault has come, the next N calls of
 *                                 ibv_create_qp fail (ENOMEM): a renewal of
 *                                 the QPs that fails part way, as one can
 *                                 when the port goes again (default 0)
 *   GDR_VERBSIM_RETRY_MS=R        a port error: how long requests wait for the
 *                                 link before they fail (default 500: rxe's
 *                                 7 retries of 67 ms)
 *
 * What the program then sees, as on a ConnectX:
 * - an error completion: the requests posted before the faulty one complete
 *   as usual; it completes with the status, under its own wr_id, signalled
 *   or not; the QP is then in error: the real QP is moved to IBV_QPS_ERR (its
 *   receives flush, nothing more reaches the peer) and every later request
 *   completes with IBV_WC_WR_FLUSH_ERR;
 * - IBV_EVENT_QP_FATAL (the faulty request's QP, or the first QP) and
 *   IBV_EVENT_DEVICE_FATAL (every QP of the context): the event, and the
 *   QPs in error at once: what was in flight flushes, and every later request;
 * - IBV_EVENT_PORT_ERR: the event; nothing posted from then on leaves, and
 *   GDR_VERBSIM_RETRY_MS later the oldest waiting request of each QP fails
 *   with IBV_WC_RETRY_EXC_ERR and the rest flush (a QP with nothing to send
 *   does not notice).
 * Events come through the context's async fd: its number holds an epoll
 * fd over the kernel's file and the double's own eventfd, so polling it,
 * blocking or not, works as before and wakes for either (below). An injected QP event that the program
 * has not acknowledged when it destroys the QP aborts the process with a
 * log line: ibv_destroy_qp would wait forever on real hardware.
 * Not combined with GDR_VERBSIM_REORDER (its flushes would post requests
 * this layer holds): with both set, this layer stays off and says so. */
#define _GNU_SOURCE /* dup3 */
#include "verbsim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define LAYER 1 /* our index in vs_qp.layer[] */

/* Moves a real QP to the error state; the double's own test replaces it
 * (its fake provider has no modify_qp). */
int (*vs_fault_modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask) = ibv_modify_qp;

#define NAME(x)                                                                                    \
    {                                                                                              \
#x, x                                                                                      \
    }
static const struct {
    const char *name;
    int code;
} wc_faults[] = {NAME(IBV_WC_RETRY_EXC_ERR), NAME(IBV_WC_REM_ACCESS_ERR),
                 NAME(IBV_WC_WR_FLUSH_ERR)},
  event_faults[] = {NAME(IBV_EVENT_PORT_ERR), NAME(IBV_EVENT_QP_FATAL),
                    NAME(IBV_EVENT_DEVICE_FATAL)};
#undef NAME

static struct {
    char name[40];
    bool is_event;
    int code;
    uint64_t at, after_ns, retry_ns, port;
    uint64_t renew_fails; /* ibv_create_qp calls still to fail once it fired */
    uint64_t posts, first_ns;
    bool fired;
    uint64_t fired_at; /* the send request it came with (0: the timer) */
    uint32_t fired_qp;
    uint64_t failed, flushed; /* requests the layer failed with the fault's status, flushed */
} f;

/* A QP this layer is failing: from `since` it holds every request; at
 * `due` the held ones fail (the first with `first`) once nothing earlier
 * is in flight. */
struct qp_state {
    bool failing, broken;
    enum ibv_wc_status first;
    uint64_t due;
    uint64_t settle; /* unsignalled requests in flight: done by then */
};

/* How long unsignalled requests in flight get to execute before the
 * failing one's error says they completed. */
#define SETTLE_NS 50000000ull

static struct qp_state *state_of(struct vs_qp *q)
{
    if (!q->layer[LAYER])
        q->layer[LAYER] = calloc(1, sizeof(struct qp_state));
    return q->layer[LAYER];
}

/* ---- events through the async fd ---- */

/* The context's async fd: from the open, its number holds an epoll fd
 * over the kernel's file (kept as a dup) and an eventfd of the double's,
 * so a poll on that number, even one asleep when the double raises an
 * event, sees both; the interposed reads take the double's events first,
 * then the kernel's through the dup. rdma-core hands ctx->async_fd to the
 * kernel when it creates a CQ, QP or SRQ, and the kernel wants its own
 * file there: the creating calls are interposed to put the dup in the
 * field for their duration (ibv_create_cq, ibv_create_qp, ibv_create_srq;
 * the _ex ones, inline through the ops, are not). */
#define MAX_EVENTS 8
struct ev_ctx {
    struct ibv_context *ctx;
    int number;  /* ctx->async_fd as the program knows it */
    int real_fd; /* the kernel's file once redirected, else -1 */
    int efd;
    struct ibv_async_event queue[MAX_EVENTS]; /* raised, not yet read */
    size_t nqueue;
    struct ibv_async_event unacked[MAX_EVENTS]; /* read, not yet acknowledged */
    size_t nunacked;
};
static struct ev_ctx evs[8];
static size_t nevs;
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ev_ctx *ev_of(struct ibv_context *ctx)
{
    for (size_t i = 0; i < nevs; i++)
        if (evs[i].ctx == ctx)
            return &evs[i];
    return NULL;
}

static int redirect(struct ev_ctx *e);

static void fault_opened(struct ibv_context *ctx)
{
    if (!f.first_ns) /* the clock of GDR_VERBSIM_FAULT_AFTER_MS */
        f.first_ns = vs_now_ns();
    if (!f.is_event || nevs == sizeof(evs) / sizeof(evs[0]))
        return;
    pthread_mutex_lock(&ev_lock);
    evs[nevs] = (struct ev_ctx){.ctx = ctx, .number = ctx->async_fd, .real_fd = -1, .efd = -1};
    if (!redirect(&evs[nevs]))
        nevs++;
    pthread_mutex_unlock(&ev_lock);
}

static void fault_closing(struct ibv_context *ctx)
{
    pthread_mutex_lock(&ev_lock);
    struct ev_ctx *e = ev_of(ctx);
    if (e && e->real_fd >= 0) { /* the kernel's file back under its number */
        dup3(e->real_fd, e->number, O_CLOEXEC);
        close(e->real_fd);
        close(e->efd);
    }
    if (e)
        *e = evs[--nevs];
    pthread_mutex_unlock(&ev_lock);
}

/* Put the epoll fd under the program's number. */
static int redirect(struct ev_ctx *e)
{
    int real = fcntl(e->number, F_DUPFD_CLOEXEC, 0);
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event a = {.events = EPOLLIN, .data.fd = real};
    struct epoll_event b = {.events = EPOLLIN, .data.fd = efd};
    if (real < 0 || efd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, real, &a) ||
        epoll_ctl(ep, EPOLL_CTL_ADD, efd, &b) || dup3(ep, e->number, O_CLOEXEC) < 0) {
        vs_log("fault: cannot take over the async fd %d: %s: no event will come", e->number,
               strerror(errno));
        if (real >= 0)
            close(real);
        if (efd >= 0)
            close(efd);
        if (ep >= 0)
            close(ep);
        return -1;
    }
    close(ep); /* it lives on under e->number */
    e->real_fd = real;
    e->efd = efd;
    return 0;
}

static void raise_event(struct ibv_context *ctx, const struct ibv_async_event *ev)
{
    pthread_mutex_lock(&ev_lock);
    struct ev_ctx *e = ev_of(ctx);
    if (e && e->nqueue < MAX_EVENTS) {
        e->queue[e->nqueue++] = *ev;
        uint64_t one = 1;
        if (write(e->efd, &one, sizeof(one)) != sizeof(one))
            vs_log("fault: eventfd write failed: %s", strerror(errno));
    } else if (!e) {
        vs_log("fault: %s not delivered (context not watched)", f.name);
    }
    pthread_mutex_unlock(&ev_lock);
}

static bool same_event(const struct ibv_async_event *a, const struct ibv_async_event *b)
{
    return a->event_type == b->event_type && !memcmp(&a->element, &b->element, sizeof(a->element));
}

int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
    static int (*real_get)(struct ibv_context *, struct ibv_async_event *);
    if (!real_get)
        real_get = (int (*)(struct ibv_context *, struct ibv_async_event *))dlsym(
            RTLD_NEXT, "ibv_get_async_event");
    if (!real_get) {
        errno = ENOSYS;
        return -1;
    }
    for (;;) {
        pthread_mutex_lock(&ev_lock);
        struct ev_ctx *e = ev_of(ctx);
        if (!e) { /* not a context of ours */
            pthread_mutex_unlock(&ev_lock);
            return real_get(ctx, event);
        }
        if (e->nqueue) {
            *event = e->queue[0];
            memmove(e->queue, e->queue + 1, --e->nqueue * sizeof(e->queue[0]));
            uint64_t one;
            if (read(e->efd, &one, sizeof(one)) != sizeof(one))
                vs_log("fault: eventfd read failed: %s", strerror(errno));
            if (e->nunacked < MAX_EVENTS)
                e->unacked[e->nunacked++] = *event;
            pthread_mutex_unlock(&ev_lock);
            return 0;
        }
        /* The kernel's events through its file, blocking or not as the
         * program set the fd it knows (read only once one is there). */
        bool nonblock = fcntl(e->number, F_GETFL) & O_NONBLOCK;
        struct pollfd p = {.fd = e->real_fd, .events = POLLIN};
        if (poll(&p, 1, 0) > 0) {
            ctx->async_fd = e->real_fd;
            int rc = real_get(ctx, event);
            ctx->async_fd = e->number;
            pthread_mutex_unlock(&ev_lock);
            return rc;
        }
        int number = e->number;
        pthread_mutex_unlock(&ev_lock);
        if (nonblock) {
            errno = EAGAIN;
            return -1;
        }
        struct pollfd w = {.fd = number, .events = POLLIN};
        poll(&w, 1, -1);
    }
}

/* Run a creating call with the kernel's file in ctx->async_fd. */
#define WITH_KERNEL_FD(ctx, call)                                                                  \
    do {                                                                                           \
        pthread_mutex_lock(&ev_lock);                                                              \
        struct ev_ctx *e_ = ev_of(ctx);                                                            \
        if (e_)                                                                                    \
            (ctx)->async_fd = e_->real_fd;                                                         \
        call;                                                                                      \
        if (e_)                                                                                    \
            (ctx)->async_fd = e_->number;                                                          \
        pthread_mutex_unlock(&ev_lock);                                                            \
    } while (0)

static void *real_fn(const char *name)
{
    void *fn = dlvsym(RTLD_NEXT, name, "IBVERBS_1.1");
    return fn ? fn : dlsym(RTLD_NEXT, name);
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
                             struct ibv_comp_channel *channel, int comp_vector)
{
    static struct ibv_cq *(*real)(struct ibv_context *, int, void *, struct ibv_comp_channel *,
                                  int);
    if (!real &&
        !(real = (struct ibv_cq * (*)(struct ibv_context *, int, void *, struct ibv_comp_channel *,
                                      int)) real_fn("ibv_create_cq"))) {
        errno = ENOSYS;
        return NULL;
    }
    struct ibv_cq *cq;
    WITH_KERNEL_FD(ctx, cq = real(ctx, cqe, cq_context, channel, comp_vector));
    return cq;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
    static struct ibv_qp *(*real)(struct ibv_pd *, struct ibv_qp_init_attr *);
    if (!real && !(real = (struct ibv_qp * (*)(struct ibv_pd *, struct ibv_qp_init_attr *))
                       real_fn("ibv_create_qp"))) {
        errno = ENOSYS;
        return NULL;
    }
    if (f.fired && f.renew_fails) {
        f.renew_fails--;
        vs_log("fault: ibv_create_qp failed after the fault (ENOMEM; %llu more to fail)",
               (unsigned long long)f.renew_fails);
        errno = ENOMEM;
        return NULL;
    }
    struct ibv_qp *qp;
    WITH_KERNEL_FD(pd->context, qp = real(pd, attr));
    return qp;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    static struct ibv_srq *(*real)(struct ibv_pd *, struct ibv_srq_init_attr *);
    if (!real && !(real = (struct ibv_srq * (*)(struct ibv_pd *, struct ibv_srq_init_attr *))
                       real_fn("ibv_create_srq"))) {
        errno = ENOSYS;
        return NULL;
    }
    struct ibv_srq *srq;
    WITH_KERNEL_FD(pd->context, srq = real(pd, attr));
    return srq;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
    static void (*real_ack)(struct ibv_async_event *);
    pthread_mutex_lock(&ev_lock);
    for (size_t i = 0; i < nevs; i++)
        for (size_t k = 0; k < evs[i].nunacked; k++)
            if (same_event(&evs[i].unacked[k], event)) {
                evs[i].unacked[k] = evs[i].unacked[--evs[i].nunacked];
                pthread_mutex_unlock(&ev_lock);
                return; /* ours: the real library never counted it */
            }
    pthread_mutex_unlock(&ev_lock);
    if (!real_ack)
        real_ack = (void (*)(struct ibv_async_event *))dlsym(RTLD_NEXT, "ibv_ack_async_event");
    if (real_ack)
        real_ack(event);
}

/* ---- the requests ---- */

static bool fault_init(void)
{
    const char *name = getenv("GDR_VERBSIM_FAULT");
    if (!name || !*name)
        return false;
    if (vs_env_u64("GDR_VERBSIM_REORDER", 0, 0, 1)) {
        vs_log("fault: GDR_VERBSIM_FAULT=%s with GDR_VERBSIM_REORDER: not combined, no fault",
               name);
        return false;
    }
    for (size_t i = 0; i < sizeof(wc_faults) / sizeof(wc_faults[0]); i++)
        if (!strcmp(name, wc_faults[i].name))
            f.code = wc_faults[i].code;
    for (size_t i = 0; i < sizeof(event_faults) / sizeof(event_faults[0]); i++)
        if (!strcmp(name, event_faults[i].name)) {
            f.code = event_faults[i].code;
            f.is_event = true;
        }
    if (!f.code && !f.is_event) {
        vs_log(
            "fault: GDR_VERBSIM_FAULT=%s is none of IBV_WC_RETRY_EXC_ERR, IBV_WC_REM_ACCESS_ERR, "
            "IBV_WC_WR_FLUSH_ERR, IBV_EVENT_PORT_ERR, IBV_EVENT_QP_FATAL, "
            "IBV_EVENT_DEVICE_FATAL: no fault",
            name);
        return false;
    }
    snprintf(f.name, sizeof(f.name), "%s", name);
    f.after_ns = vs_env_u64("GDR_VERBSIM_FAULT_AFTER_MS", 0, 0, 86400000) * 1000000;
    f.at = f.after_ns ? 0 : vs_env_u64("GDR_VERBSIM_FAULT_AT", 1, 1, UINT64_MAX);
    f.retry_ns = vs_env_u64("GDR_VERBSIM_RETRY_MS", 500, 1, 3600000) * 1000000;
    f.port = vs_env_u64("GDR_VERBSIM_FAULT_PORT", 1, 1, 255);
    f.renew_fails = vs_env_u64("GDR_VERBSIM_RENEW_FAILS", 0, 0, 1000);
    vs_log("fault: %s at %s %llu", f.name, f.at ? "send request" : "ms",
           (unsigned long long)(f.at ? f.at : f.after_ns / 1000000));
    return true;
}

/* Move the real QP to the error state (once): its receives flush and
 * nothing more reaches the peer. */
static void break_qp(struct vs_qp *q, struct qp_state *st)
{
    if (st->broken)
        return;
    st->broken = true;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
    int rc = vs_fault_modify_qp(q->qp, &a, IBV_QP_STATE);
    if (rc)
        vs_log("fault: qp %#x: moving the real QP to the error state failed: %s", q->qp_num,
               strerror(rc > 0 ? rc : errno));
}

static void start_failing(struct vs_qp *q, enum ibv_wc_status first, uint64_t due, bool now)
{
    struct qp_state *st = state_of(q);
    if (!st || st->failing)
        return;
    st->failing = true;
    st->first = first;
    st->due = due;
    if (now)
        break_qp(q, st);
    vs_wake_at(due);
}

/* The event and its effect on the QPs of q's context (or of every QP the
 * double knows, when none is given yet). */
static void fire_event(struct vs_qp *q)
{
    struct ibv_async_event ev = {.event_type = (enum ibv_event_type)f.code};
    uint64_t now = vs_now_ns();
    struct ibv_context *ctx = q ? q->qp->context : NULL;
    for (size_t i = 0; i < vs_qp_count(); i++) {
        struct vs_qp *o = vs_qp_at(i);
        if (ctx && o->qp->context != ctx)
            continue;
        if (!ctx)
            ctx = o->qp->context;
        switch (ev.event_type) {
        case IBV_EVENT_PORT_ERR:
            start_failing(o, IBV_WC_RETRY_EXC_ERR, now + f.retry_ns, false);
            break;
        case IBV_EVENT_QP_FATAL:
            if (o == (q ? q : vs_qp_at(0)))
                start_failing(o, IBV_WC_WR_FLUSH_ERR, now, true);
            break;
        default: start_failing(o, IBV_WC_WR_FLUSH_ERR, now, true); break;
        }
    }
    if (!ctx && nevs) /* no send posted yet (a write test's server): the device's */
        ctx = evs[0].ctx;
    if (!ctx || (ev.event_type == IBV_EVENT_QP_FATAL && !q && !vs_qp_count())) {
        vs_log("fault: %s not raised: no %s yet", f.name, ctx ? "QP" : "context");
        f.fired = true; /* once */
        return;
    }
    if (ev.event_type == IBV_EVENT_PORT_ERR)
        ev.element.port_num = (int)f.port;
    else if (ev.event_type == IBV_EVENT_QP_FATAL)
        ev.element.qp = (q ? q : vs_qp_at(0))->qp;
    f.fired = true;
    f.fired_qp = q ? q->qp_num : vs_qp_count() ? vs_qp_at(0)->qp_num : 0;
    vs_log("fault: %s raised%s%llu", f.name, f.fired_at ? " at send request " : " after ms ",
           (unsigned long long)(f.fired_at ? f.fired_at : f.after_ns / 1000000));
    raise_event(ctx, &ev);
}

static int fault_post_send(struct vs_qp *q, struct vs_wr *w)
{
    uint64_t now = vs_now_ns();
    f.posts++;
    bool due = !f.fired && (f.at ? f.posts == f.at : now - f.first_ns >= f.after_ns);
    if (due) {
        f.fired_at = f.posts;
        if (f.is_event) {
            fire_event(q);
        } else {
            f.fired = true;
            f.fired_qp = q->qp_num;
            vs_log("fault: %s at send request %llu (qp %#x request %llu)", f.name,
                   (unsigned long long)f.posts, q->qp_num, (unsigned long long)w->app_seq);
            start_failing(q, (enum ibv_wc_status)f.code, now, false);
        }
    }
    struct qp_state *st = q->layer[LAYER];
    return st && st->failing ? VS_HOLD : VS_POST;
}

/* Fail what is held where it is due; raise a timed event. */
static uint64_t fault_tick(uint64_t now)
{
    uint64_t next = 0;
    if (!f.fired && f.is_event && f.after_ns && f.first_ns && now - f.first_ns >= f.after_ns)
        fire_event(NULL);
    else if (!f.fired && f.is_event && f.after_ns && f.first_ns)
        next = f.first_ns + f.after_ns;
    for (size_t i = 0; i < vs_qp_count(); i++) {
        struct vs_qp *q = vs_qp_at(i);
        struct qp_state *st = q->layer[LAYER];
        if (!st || !st->failing)
            continue;
        if (st->due > now) {
            next = !next || st->due < next ? st->due : next;
            continue;
        }
        if (!q->held)
            continue;
        /* An error completion is the oldest outstanding request's: the
         * ones before it complete first, the signalled ones by the real
         * QP, the unsignalled ones once they had time to execute (its
         * error says they are done). */
        if (!st->broken && vs_in_flight(q)) {
            if (!vs_signalled_in_flight(q) && !st->settle)
                st->settle = now + SETTLE_NS;
            if (!vs_signalled_in_flight(q) && st->settle <= now) {
                vs_complete_in_flight(q);
            } else {
                next = !next || now + 1000000 < next ? now + 1000000 : next;
                continue;
            }
        }
        break_qp(q, st);
        bool first = st->first != IBV_WC_WR_FLUSH_ERR;
        f.failed += first;
        f.flushed += q->held - first;
        vs_fail_held(q, st->first);
        st->first = IBV_WC_WR_FLUSH_ERR; /* the QP is in error from now on */
    }
    /* Requests posted to a failing QP later: look again soon. */
    for (size_t i = 0; i < vs_qp_count() && !next; i++) {
        struct qp_state *st = vs_qp_at(i)->layer[LAYER];
        if (st && st->failing)
            next = now + 1000000;
    }
    return next;
}

static void fault_qp_gone(struct vs_qp *q)
{
    pthread_mutex_lock(&ev_lock);
    for (size_t i = 0; i < nevs; i++)
        for (size_t k = 0; k < evs[i].nunacked + evs[i].nqueue; k++) {
            const struct ibv_async_event *e =
                k < evs[i].nunacked ? &evs[i].unacked[k] : &evs[i].queue[k - evs[i].nunacked];
            if (e->event_type == IBV_EVENT_QP_FATAL && e->element.qp == q->qp) {
                vs_log("fault: qp %#x destroyed with its IBV_EVENT_QP_FATAL %s: ibv_destroy_qp "
                       "would wait forever on real hardware",
                       q->qp_num, k < evs[i].nunacked ? "read but not acknowledged" : "never read");
                abort();
            }
        }
    pthread_mutex_unlock(&ev_lock);
    free(q->layer[LAYER]);
    q->layer[LAYER] = NULL;
}

static void fault_summary(void)
{
    if (!f.fired)
        vs_log("fault: %s never injected (%llu send requests)", f.name,
               (unsigned long long)f.posts);
    else
        vs_log("fault: %s injected on qp %#x; %llu request(s) failed with a retry or the fault's "
               "status, %llu flushed",
               f.name, f.fired_qp, (unsigned long long)f.failed, (unsigned long long)f.flushed);
}

const struct vs_layer vs_fault_layer = {
    .name = "fault",
    .init = fault_init,
    .post_send = fault_post_send,
    .tick = fault_tick,
    .qp_gone = fault_qp_gone,
    .summary = fault_summary,
    .opened = fault_opened,
    .closing = fault_closing,
};
