/* test_fault.c - the fault layer's own test, without a device: the
 * double's sources wrap a fake provider whose post_send executes each
 * request at once (what reached the peer is counted) and whose CQ
 * completes the signalled ones in order. Each scenario runs in a child
 * with its own environment (the double reads it once). Asserts: an error
 * completion hits the chosen request under its own wr_id, signalled or
 * not, after every earlier request completed, and flushes every later one,
 * none of which reaches the peer; the real QP is moved to the error state
 * once; an event comes through the context's async fd (non-blocking reads
 * answer EAGAIN before it), by request or by time (also in a process that
 * posts no send), with its element, and its QPs then fail as the
 * hardware's do (a port error after the retry time, with
 * IBV_WC_RETRY_EXC_ERR); destroying a QP with its fatal event
 * unacknowledged aborts; an unknown fault or one combined with reordering
 * injects nothing and says so. */
#include "fake_cq.h"
#include "verbsim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern int (*vs_fault_modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);

/* ---- the fake provider: executes at post, completes signalled ones ---- */

static struct {
    size_t executed; /* requests that reached the peer */
    int modified;    /* moves to the error state */
    bool error;
} nic;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    for (; wr; wr = wr->next) {
        struct ibv_wc wc = {.wr_id = wr->wr_id, .qp_num = qp->qp_num, .opcode = IBV_WC_RDMA_WRITE};
        if (nic.error) {
            wc.status = IBV_WC_WR_FLUSH_ERR;
        } else {
            nic.executed++;
            if (!(wr->send_flags & IBV_SEND_SIGNALED))
                continue;
        }
        if (fake_cq_full()) {
            *bad = wr;
            return ENOMEM;
        }
        fake_cq_push(&wc);
    }
    return 0;
}

static int fake_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
    (void)qp;
    if (mask == IBV_QP_STATE && attr->qp_state == IBV_QPS_ERR) {
        nic.modified++;
        nic.error = true;
    }
    return 0;
}

static struct ibv_context ctx;
static struct ibv_cq cq;
static struct ibv_qp qp;
static int async_pipe[2];

static void setup(void)
{
    ctx.ops.post_send = fake_post_send;
    ctx.ops.poll_cq = fake_poll_cq;
    ctx.ops.req_notify_cq = fake_req_notify;
    if (pipe(async_pipe))
        exit(99);
    ctx.async_fd = async_pipe[0];
    cq.context = &ctx;
    qp = (struct ibv_qp){
        .context = &ctx, .send_cq = &cq, .recv_cq = &cq, .qp_num = 0x11, .qp_type = IBV_QPT_RC};
    vs_fault_modify_qp = fake_modify_qp;
    vs_wrap_context(&ctx);
    vs_qp_register(&qp, 0, false);
}

static int post(uint64_t id, bool signaled)
{
    static uint64_t data;
    struct ibv_sge sge = {(uintptr_t)&data, 8, 1};
    struct ibv_send_wr wr = {.wr_id = id,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_RDMA_WRITE,
                             .send_flags = signaled ? IBV_SEND_SIGNALED : 0};
    struct ibv_send_wr *bad = NULL;
    return ibv_post_send(&qp, &wr, &bad);
}

/* Poll until `want` completions came or `ms` passed. */
static int poll_for(struct ibv_wc *wc, int want, int ms)
{
    int n = 0;
    for (int t = 0; t < ms && n < want; t++) {
        int got = ibv_poll_cq(&cq, want - n, wc + n);
        if (got < 0)
            return got;
        n += got;
        if (!got)
            usleep(1000);
    }
    return n;
}

/* Non-blocking, as the benchmark reads it. */
static int get_event(struct ibv_async_event *ev, int wait_ms)
{
    struct pollfd p = {.fd = ctx.async_fd, .events = POLLIN};
    if (wait_ms && poll(&p, 1, wait_ms) <= 0)
        return -1;
    return ibv_get_async_event(&ctx, ev);
}

/* ---- scenarios ---- */

/* Request 5 fails: 1..4 complete (the signalled ones are seen), 5 with
 * the status though unsignalled, 6..8 flushed; only 4 reached the peer;
 * a later post flushes too. */
static void wc_error(void)
{
    setup();
    CHECK(ctx.async_fd == async_pipe[0], "an error completion takes no async fd");
    for (uint64_t i = 1; i <= 8; i++)
        CHECK(post(i, i % 2 == 0) == 0, "post %llu", (unsigned long long)i);
    struct ibv_wc wc[16];
    int n = poll_for(wc, 6, 2000);
    CHECK(n == 6, "%d completions, want 6 (2, 4, then 5..8)", n);
    CHECK(n >= 6 && wc[0].wr_id == 2 && wc[0].status == IBV_WC_SUCCESS, "2 first, ok");
    CHECK(n >= 6 && wc[1].wr_id == 4 && wc[1].status == IBV_WC_SUCCESS, "4 ok");
    CHECK(n >= 6 && wc[2].wr_id == 5 && wc[2].status == IBV_WC_RETRY_EXC_ERR,
          "5 fails with IBV_WC_RETRY_EXC_ERR: wr %llu status %d", (unsigned long long)wc[2].wr_id,
          wc[2].status);
    for (int i = 3; i < n; i++)
        CHECK(wc[i].wr_id == (uint64_t)i + 3 && wc[i].status == IBV_WC_WR_FLUSH_ERR, "%llu flushed",
              (unsigned long long)wc[i].wr_id);
    CHECK(nic.executed == 4, "%zu requests reached the peer, want 4", nic.executed);
    CHECK(nic.modified == 1, "the real QP moved to the error state %d times", nic.modified);
    CHECK(post(9, false) == 0, "a post to a QP in error is taken");
    n = poll_for(wc, 1, 2000);
    CHECK(n == 1 && wc[0].wr_id == 9 && wc[0].status == IBV_WC_WR_FLUSH_ERR, "9 flushed");
    CHECK(nic.executed == 4 && nic.modified == 1, "nothing more reached the peer");
}

/* The requests before the faulty one are unsignalled: no real completion
 * says they are done; the error comes after they had time to execute,
 * and says they are. */
static void wc_after_unsignalled(void)
{
    setup();
    for (uint64_t i = 1; i <= 6; i++)
        CHECK(post(i, i == 2) == 0, "post %llu", (unsigned long long)i);
    struct ibv_wc wc[8];
    int n = poll_for(wc, 3, 2000);
    CHECK(n == 3 && wc[0].wr_id == 2 && wc[0].status == IBV_WC_SUCCESS, "2 ok");
    CHECK(n == 3 && wc[1].wr_id == 5 && wc[1].status == IBV_WC_REM_ACCESS_ERR, "5 fails");
    CHECK(n == 3 && wc[2].wr_id == 6 && wc[2].status == IBV_WC_WR_FLUSH_ERR, "6 flushed");
    CHECK(nic.executed == 4, "%zu requests reached the peer, want 4", nic.executed);
}

/* QP_FATAL at request 3: nothing before it, the event after it, with the
 * QP; 3 and later flush. */
static void qp_fatal(void)
{
    setup();
    fcntl(ctx.async_fd, F_SETFL, fcntl(ctx.async_fd, F_GETFL) | O_NONBLOCK); /* as the benchmark */
    struct ibv_async_event ev;
    CHECK(post(1, true) == 0 && post(2, true) == 0, "posts");
    errno = 0;
    CHECK(get_event(&ev, 0) == -1 && errno == EAGAIN, "no event yet: EAGAIN (errno %d)", errno);
    CHECK(post(3, true) == 0, "post 3");
    CHECK(get_event(&ev, 1000) == 0, "the event comes through the async fd");
    CHECK(ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == &qp, "QP_FATAL on our QP: %d",
          ev.event_type);
    ibv_ack_async_event(&ev);
    struct ibv_wc wc[8];
    int n = poll_for(wc, 3, 2000);
    CHECK(n == 3 && wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS,
          "1 and 2 done before the event");
    CHECK(n == 3 && wc[2].wr_id == 3 && wc[2].status == IBV_WC_WR_FLUSH_ERR, "3 flushed");
    CHECK(nic.modified == 1, "the QP is in error");
    /* Acknowledged: the QP may go (the layer's part of ibv_destroy_qp;
     * the real one would not know the fake QP). */
    vs_fault_layer.qp_gone(vs_qp_at(0));
}

/* A port error by time: the event, then what is posted waits, and fails
 * with IBV_WC_RETRY_EXC_ERR after the retry time (the rest flush). */
static void port_err_timed(void)
{
    setup();
    CHECK(post(1, true) == 0, "post 1");
    struct ibv_wc wc[8];
    CHECK(poll_for(wc, 1, 1000) == 1 && wc[0].status == IBV_WC_SUCCESS, "1 done");
    struct ibv_async_event ev;
    CHECK(get_event(&ev, 2000) == 0, "the port error comes by the timer");
    CHECK(ev.event_type == IBV_EVENT_PORT_ERR && ev.element.port_num == 1, "PORT_ERR port 1");
    ibv_ack_async_event(&ev);
    uint64_t t0 = vs_now_ns();
    CHECK(post(2, false) == 0 && post(3, true) == 0, "posts after the port error");
    int n = poll_for(wc, 2, 3000);
    double waited_ms = (double)(vs_now_ns() - t0) / 1e6;
    CHECK(n == 2 && wc[0].wr_id == 2 && wc[0].status == IBV_WC_RETRY_EXC_ERR, "2: retry exceeded");
    CHECK(n == 2 && wc[1].wr_id == 3 && wc[1].status == IBV_WC_WR_FLUSH_ERR, "3 flushed");
    CHECK(waited_ms >= 90, "failed after %.0f ms, before the 100 ms retry time", waited_ms);
    CHECK(nic.executed == 1, "%zu requests reached the peer, want 1", nic.executed);
}

/* A fatal device error at the first request, blocking read. */
static void device_fatal(void)
{
    setup();
    CHECK(post(1, true) == 0, "post 1");
    struct ibv_async_event ev;
    CHECK(ibv_get_async_event(&ctx, &ev) == 0 && ev.event_type == IBV_EVENT_DEVICE_FATAL,
          "DEVICE_FATAL, read blocking");
    ibv_ack_async_event(&ev);
    struct ibv_wc wc[2];
    CHECK(poll_for(wc, 1, 2000) == 1 && wc[0].status == IBV_WC_WR_FLUSH_ERR, "1 flushed");
    CHECK(nic.executed == 0, "nothing reached the peer");
}

/* By time, in a process that posts no send (a write test's server). */
static void timed_no_send(void)
{
    setup();
    struct ibv_async_event ev;
    CHECK(get_event(&ev, 2000) == 0 && ev.event_type == IBV_EVENT_DEVICE_FATAL,
          "DEVICE_FATAL without a send");
    ibv_ack_async_event(&ev);
}

/* A QP destroyed with its fatal event unacknowledged: abort, as the real
 * destroy would hang. */
static void unacked(void)
{
    setup();
    post(1, true);
    struct ibv_async_event ev;
    get_event(&ev, 1000);
    ibv_destroy_qp(&qp);
    exit(0); /* not reached */
}

static void off(void)
{
    setup();
    for (uint64_t i = 1; i <= 4; i++)
        post(i, true);
    struct ibv_wc wc[4];
    CHECK(poll_for(wc, 4, 1000) == 4 && wc[3].status == IBV_WC_SUCCESS, "no fault");
}

struct scenario {
    const char *name;
    void (*run)(void);
    const char *env[4]; /* NAME=VALUE */
    int want_signal;
    const char *log_says;
};

static const struct scenario scenarios[] = {
    {"wc_after_unsignalled",
     wc_after_unsignalled,
     {"GDR_VERBSIM_FAULT=IBV_WC_REM_ACCESS_ERR", "GDR_VERBSIM_FAULT_AT=5"},
     0,
     "fault: IBV_WC_REM_ACCESS_ERR injected on qp 0x11; 1 request(s) failed"},
    {"wc_error",
     wc_error,
     {"GDR_VERBSIM_FAULT=IBV_WC_RETRY_EXC_ERR", "GDR_VERBSIM_FAULT_AT=5"},
     0,
     "fault: IBV_WC_RETRY_EXC_ERR injected on qp 0x11; 1 request(s) failed"},
    {"qp_fatal",
     qp_fatal,
     {"GDR_VERBSIM_FAULT=IBV_EVENT_QP_FATAL", "GDR_VERBSIM_FAULT_AT=3"},
     0,
     "fault: IBV_EVENT_QP_FATAL raised at send request 3"},
    {"port_err_timed",
     port_err_timed,
     {"GDR_VERBSIM_FAULT=IBV_EVENT_PORT_ERR", "GDR_VERBSIM_FAULT_AFTER_MS=50",
      "GDR_VERBSIM_RETRY_MS=100"},
     0,
     "fault: IBV_EVENT_PORT_ERR raised after ms 50"},
    {"device_fatal",
     device_fatal,
     {"GDR_VERBSIM_FAULT=IBV_EVENT_DEVICE_FATAL"},
     0,
     "fault: IBV_EVENT_DEVICE_FATAL raised at send request 1"},
    {"timed_no_send",
     timed_no_send,
     {"GDR_VERBSIM_FAULT=IBV_EVENT_DEVICE_FATAL", "GDR_VERBSIM_FAULT_AFTER_MS=30"},
     0,
     "fault: IBV_EVENT_DEVICE_FATAL raised after ms 30"},
    {"unacked",
     unacked,
     {"GDR_VERBSIM_FAULT=IBV_EVENT_QP_FATAL"},
     SIGABRT,
     "destroyed with its IBV_EVENT_QP_FATAL read but not acknowledged"},
    {"unknown", off, {"GDR_VERBSIM_FAULT=IBV_WC_SOMETHING"}, 0, "is none of"},
    {"with_reorder",
     off,
     {"GDR_VERBSIM_FAULT=IBV_WC_REM_ACCESS_ERR", "GDR_VERBSIM_REORDER=1"},
     0,
     "not combined, no fault"},
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

static bool file_has(const char *path, const char *text)
{
    FILE *fp = fopen(path, "r");
    char line[1024];
    bool found = false;
    while (fp && !found && fgets(line, sizeof(line), fp))
        found = strstr(line, text) != NULL;
    if (fp)
        fclose(fp);
    return found;
}

int main(int argc, char **argv)
{
    if (argc == 2) {
        for (size_t i = 0; i < NSCEN; i++)
            if (!strcmp(argv[1], scenarios[i].name)) {
                scenarios[i].run();
                return failures ? 1 : 0;
            }
        fprintf(stderr, "no scenario %s\n", argv[1]);
        return 2;
    }
    char dir[] = "/tmp/test_fault.XXXXXX";
    if (!mkdtemp(dir))
        return 99;
    int bad = 0;
    for (size_t i = 0; i < NSCEN; i++) {
        const struct scenario *sc = &scenarios[i];
        char log[128];
        snprintf(log, sizeof(log), "%s/%s.log", dir, sc->name);
        pid_t pid = fork();
        if (pid == 0) {
            for (int k = 0; k < 4 && sc->env[k]; k++)
                putenv((char *)sc->env[k]);
            setenv("GDR_VERBSIM_LOG", log, 1);
            setenv("GDR_VERBSIM_SEED", "7", 1);
            execl(argv[0], argv[0], sc->name, (char *)NULL);
            _exit(98);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        bool ok = sc->want_signal ? WIFSIGNALED(st) && WTERMSIG(st) == sc->want_signal
                                  : WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!ok)
            fprintf(stderr, "%s: exit status %#x\n", sc->name, st);
        if (!file_has(log, sc->log_says)) {
            fprintf(stderr, "%s: the log does not say '%s'\n", sc->name, sc->log_says);
            ok = false;
        }
        printf("%s %s\n", ok ? "ok" : "FAIL", sc->name);
        bad += !ok;
        unlink(log);
    }
    rmdir(dir);
    return bad ? 1 : 0;
}
