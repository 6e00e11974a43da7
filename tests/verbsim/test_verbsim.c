/* test_verbsim.c - the verbs double's own test, without a device: its
 * sources are linked in and wrap a fake provider's context, whose
 * post_send executes requests in the order it gets them (as rxe does)
 * and records what each one read, and whose CQ completes them in order.
 * Each scenario runs in a child with its own environment (the double
 * reads it once). Asserts: plain writes are placed out of order between
 * ordering points and never across one; the program's completions come
 * in posting order with its wr_ids, only where it signalled; a batch is
 * posted when full and by the timer when the program makes no call; the
 * send queue's size is enforced; an inline payload is taken at the post
 * and other data when placed; a failed request and the flushed ones after
 * it complete with errors under their own wr_ids; a delayed completion
 * shows after its delay or when the CQ is armed; the same seed places the
 * same way; the summary counts what was reordered. */
#include "fake_cq.h"
#include "verbsim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the fake provider ---- */

#define BAD_RKEY 0xbad
static struct {
    uint64_t wr_id[256]; /* the real wr_ids, in execution (= placement) order */
    uint64_t raddr[256];
    uint64_t value[256]; /* the first 8 bytes each one read */
    enum ibv_wr_opcode op[256];
    size_t n;
    bool error;
} nic;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    for (; wr; wr = wr->next) {
        if (nic.n == 256) {
            *bad = wr;
            return ENOMEM;
        }
        struct ibv_wc wc = {.wr_id = wr->wr_id, .qp_num = qp->qp_num, .opcode = IBV_WC_RDMA_WRITE};
        if (nic.error) {
            wc.status = IBV_WC_WR_FLUSH_ERR;
        } else if (wr->wr.rdma.rkey == BAD_RKEY) {
            wc.status = IBV_WC_REM_ACCESS_ERR;
            nic.error = true;
        } else {
            uint64_t v = 0;
            if (wr->num_sge)
                memcpy(&v, (void *)(uintptr_t)wr->sg_list[0].addr, sizeof(v));
            nic.wr_id[nic.n] = wr->wr_id;
            nic.raddr[nic.n] = wr->wr.rdma.remote_addr;
            nic.value[nic.n] = v;
            nic.op[nic.n++] = wr->opcode;
            if (!(wr->send_flags & IBV_SEND_SIGNALED))
                continue;
        }
        fake_cq_push(&wc);
    }
    return 0;
}

static struct ibv_context ctx;
static struct ibv_cq cq;
static struct ibv_qp qp;

static void setup(uint32_t max_send_wr)
{
    ctx.ops.post_send = fake_post_send;
    ctx.ops.poll_cq = fake_poll_cq;
    ctx.ops.req_notify_cq = fake_req_notify;
    cq.context = &ctx;
    qp = (struct ibv_qp){
        .context = &ctx, .send_cq = &cq, .recv_cq = &cq, .qp_num = 0x11, .qp_type = IBV_QPT_RC};
    vs_wrap_context(&ctx);
    vs_qp_register(&qp, max_send_wr, false);
}

static uint64_t local[64];

static int post(enum ibv_wr_opcode op, uint64_t id, bool signaled, uint64_t raddr, uint32_t rkey,
                unsigned extra_flags)
{
    local[id % 64] = 1000 + id;
    struct ibv_sge sge = {(uintptr_t)&local[id % 64], 8, 1};
    struct ibv_send_wr wr = {.wr_id = id,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = op,
                             .send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | extra_flags};
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    struct ibv_send_wr *bad = NULL;
    return ibv_post_send(&qp, &wr, &bad);
}

static int poll_all(struct ibv_wc *wc, int max)
{
    int n = 0;
    for (int tries = 0; tries < 1000 && n < max; tries++) {
        int got = ibv_poll_cq(&cq, max - n, wc + n);
        if (got < 0)
            return got;
        n += got;
        if (!got)
            usleep(1000);
    }
    return n;
}

/* ---- scenarios ---- */

/* Three plain writes, then a write with immediate: the three land in a
 * different order, all before the immediate; the program sees the
 * completions it asked for, in its order, with its wr_ids. */
static void ordering_point(void)
{
    setup(64);
    for (uint64_t id = 1; id <= 3; id++)
        CHECK(post(IBV_WR_RDMA_WRITE, id, id == 2, 0x1000 * id, 1, 0) == 0, "post %llu",
              (unsigned long long)id);
    CHECK(nic.n == 0 || nic.n == 2 || nic.n == 3, "placed %zu of 3 held writes", nic.n);
    CHECK(post(IBV_WR_RDMA_WRITE_WITH_IMM, 4, true, 0x4000, 1, 0) == 0, "post imm");
    CHECK(nic.n == 4, "placed %zu, expected 4", nic.n);
    bool in_order = true;
    for (size_t i = 0; i < 3; i++) {
        in_order &= nic.raddr[i] == 0x1000 * (i + 1);
        CHECK(nic.op[i] == IBV_WR_RDMA_WRITE, "request %zu placed as opcode %d", i, nic.op[i]);
    }
    CHECK(!in_order, "three writes placed in posting order");
    CHECK(nic.op[3] == IBV_WR_RDMA_WRITE_WITH_IMM && nic.raddr[3] == 0x4000,
          "the immediate was not placed last");
    struct ibv_wc wc[8];
    int n = poll_all(wc, 2);
    CHECK(n == 2, "%d completions, expected 2", n);
    CHECK(n == 2 && wc[0].wr_id == 2 && wc[1].wr_id == 4, "completions %llu, %llu: expected 2, 4",
          (unsigned long long)wc[0].wr_id, (unsigned long long)wc[1].wr_id);
    CHECK(n == 2 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_WRITE,
          "completion status %d opcode %d", wc[0].status, wc[0].opcode);
    CHECK(ibv_poll_cq(&cq, 8, wc) == 0, "an extra completion");
    for (size_t i = 0; i < nic.n; i++)
        printf("%llx ", (unsigned long long)nic.raddr[i]);
    printf("\n");
}

/* Twenty signalled writes and no ordering point: batches go out when
 * full, the rest by the timer while the program only polls; every
 * completion in order. */
static void batches_and_timer(void)
{
    setup(64);
    for (uint64_t id = 1; id <= 20; id++)
        CHECK(post(IBV_WR_RDMA_WRITE, id, true, 0x1000 * id, 1, 0) == 0, "post %llu",
              (unsigned long long)id);
    CHECK(nic.n >= 10 && nic.n <= 20, "placed %zu of 20 before the deadline", nic.n);
    struct ibv_wc wc[32];
    int n = poll_all(wc, 20);
    CHECK(n == 20, "%d completions of 20", n);
    CHECK(nic.n == 20, "placed %zu of 20 after the deadline", nic.n);
    for (int i = 0; i < n; i++)
        CHECK(wc[i].wr_id == (uint64_t)i + 1, "completion %d is wr_id %llu", i,
              (unsigned long long)wc[i].wr_id);
    size_t moved = 0;
    for (size_t i = 0; i < nic.n; i++)
        moved += nic.raddr[i] != 0x1000 * (i + 1);
    CHECK(moved > 0, "nothing placed out of order");
}

/* The send queue holds what was posted and not seen complete. */
static void queue_full(void)
{
    setup(4);
    for (uint64_t id = 1; id <= 4; id++)
        CHECK(post(IBV_WR_RDMA_WRITE, id, id == 4, 0x1000 * id, 1, 0) == 0, "post %llu",
              (unsigned long long)id);
    CHECK(post(IBV_WR_RDMA_WRITE, 5, true, 0x5000, 1, 0) == ENOMEM, "a fifth post into 4 entries");
    struct ibv_wc wc[4];
    CHECK(poll_all(wc, 1) == 1 && wc[0].wr_id == 4, "the fourth did not complete");
    CHECK(post(IBV_WR_RDMA_WRITE, 5, true, 0x5000, 1, 0) == 0, "no room after the completion");
}

/* Inline data is the payload at the post; other data is read when the
 * write is placed (a buffer the program changed before the completion
 * sends its new contents). */
static void data_read_when_placed(void)
{
    setup(64);
    uint64_t buf = 8;
    struct ibv_sge sge = {(uintptr_t)&buf, 8, 1};
    struct ibv_send_wr wr = {
        .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE};
    struct ibv_send_wr *bad;
    wr.wr.rdma.remote_addr = 0x100;
    CHECK(ibv_post_send(&qp, &wr, &bad) == 0, "plain post");
    buf = 9;
    wr.wr_id = 2;
    wr.send_flags = IBV_SEND_INLINE;
    wr.wr.rdma.remote_addr = 0x200;
    CHECK(ibv_post_send(&qp, &wr, &bad) == 0, "inline post");
    buf = 10;
    CHECK(post(IBV_WR_SEND, 3, true, 0, 1, 0) == 0, "send");
    CHECK(nic.n == 3, "placed %zu", nic.n);
    for (size_t i = 0; i < 2; i++) {
        if (nic.raddr[i] == 0x100)
            CHECK(nic.value[i] != 8, "the held plain write read what it held at its post");
        else
            CHECK(nic.value[i] == 9, "the inline write carried %llu, not its payload 9",
                  (unsigned long long)nic.value[i]);
    }
}

/* A request that fails, and those flushed after it: each completes with
 * its error under its own wr_id, in posting order. */
static void errors(void)
{
    setup(64);
    CHECK(post(IBV_WR_RDMA_WRITE, 1, false, 0x1000, 1, 0) == 0, "post 1");
    CHECK(post(IBV_WR_RDMA_WRITE, 2, false, 0x2000, BAD_RKEY, 0) == 0, "post 2");
    CHECK(post(IBV_WR_RDMA_WRITE, 3, false, 0x3000, 1, 0) == 0, "post 3");
    CHECK(post(IBV_WR_RDMA_WRITE_WITH_IMM, 4, true, 0x4000, 1, 0) == 0, "post 4");
    struct ibv_wc wc[8];
    int n = poll_all(wc, 8);
    bool saw_error = false, saw_4 = false;
    uint64_t last = 0;
    for (int i = 0; i < n; i++) {
        CHECK(wc[i].wr_id > last, "completion %llu after %llu", (unsigned long long)wc[i].wr_id,
              (unsigned long long)last);
        last = wc[i].wr_id;
        if (wc[i].wr_id == 2)
            saw_error = wc[i].status == IBV_WC_REM_ACCESS_ERR;
        else if (wc[i].wr_id == 4)
            saw_4 = wc[i].status == IBV_WC_WR_FLUSH_ERR;
        else
            CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR, "unsignalled %llu completed with %d",
                  (unsigned long long)wc[i].wr_id, wc[i].status);
    }
    CHECK(saw_error, "the failed write did not complete with its error");
    CHECK(saw_4, "the write with immediate after it was not flushed");
}

/* GDR_VERBSIM_CQ_DELAY_US: a completion shows only after the delay, or
 * at once when the program arms the CQ (it may sleep next). */
static void cq_delay(void)
{
    setup(64);
    struct ibv_wc wc[2];
    CHECK(post(IBV_WR_SEND, 1, true, 0, 1, 0) == 0, "send 1");
    CHECK(ibv_poll_cq(&cq, 2, wc) == 0, "a delayed completion showed at once");
    CHECK(ibv_req_notify_cq(&cq, 0) == 0, "arming");
    CHECK(ibv_poll_cq(&cq, 2, wc) == 1 && wc[0].wr_id == 1, "arming did not show the completion");
    CHECK(post(IBV_WR_SEND, 2, true, 0, 1, 0) == 0, "send 2");
    CHECK(ibv_poll_cq(&cq, 2, wc) == 0, "a delayed completion showed at once");
    usleep(600000);
    CHECK(ibv_poll_cq(&cq, 2, wc) == 1 && wc[0].wr_id == 2, "no completion after the delay");
}

struct scenario {
    const char *name;
    void (*run)(void);
    const char *env[2]; /* extra NAME=VALUE */
};

/* Reads in flight as the two kernels keep them: -o 3 held as 2 on one and
 * 4 on the other; a power of two held as asked by both. */
static void rd_atomic(void)
{
    CHECK(vs_rd_round(3, VS_RD_DOWN) == 2, "down 3 -> %u", vs_rd_round(3, VS_RD_DOWN));
    CHECK(vs_rd_round(3, VS_RD_UP) == 4, "up 3 -> %u", vs_rd_round(3, VS_RD_UP));
    CHECK(vs_rd_round(200, VS_RD_DOWN) == 128, "down 200 -> %u", vs_rd_round(200, VS_RD_DOWN));
    CHECK(vs_rd_round(200, VS_RD_UP) == 128, "up 200 -> %u", vs_rd_round(200, VS_RD_UP));
    CHECK(vs_rd_round(100, VS_RD_DOWN) == 64, "down 100 -> %u", vs_rd_round(100, VS_RD_DOWN));
    for (unsigned p = 1; p <= 128; p *= 2)
        CHECK(vs_rd_round(p, VS_RD_DOWN) == p && vs_rd_round(p, VS_RD_UP) == p,
              "%u not held as asked", p);
    CHECK(vs_rd_round(0, VS_RD_UP) == 0 && vs_rd_round(3, VS_RD_ASKED) == 3, "0 or asked changed");
    struct ibv_qp_attr a = {.max_rd_atomic = 3, .max_dest_rd_atomic = 3};
    vs_rd_hold(&a, IBV_QP_MAX_QP_RD_ATOMIC, VS_RD_UP);
    CHECK(a.max_rd_atomic == 4 && a.max_dest_rd_atomic == 3, "up, rd only: %u %u", a.max_rd_atomic,
          a.max_dest_rd_atomic);
    vs_rd_hold(&a, IBV_QP_MAX_DEST_RD_ATOMIC, VS_RD_DOWN);
    CHECK(a.max_dest_rd_atomic == 2, "down, dest: %u", a.max_dest_rd_atomic);
    vs_rd_hold(&a, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, VS_RD_SHORT);
    CHECK(a.max_rd_atomic == 4 && a.max_dest_rd_atomic == 1, "short: %u %u", a.max_rd_atomic,
          a.max_dest_rd_atomic);
}

static const struct scenario scenarios[] = {
    {"ordering_point", ordering_point, {NULL}},
    {"batches_and_timer", batches_and_timer, {"GDR_VERBSIM_HOLD_US=2000"}},
    {"queue_full", queue_full, {"GDR_VERBSIM_BATCH=8", "GDR_VERBSIM_HOLD_US=2000"}},
    {"data_read_when_placed", data_read_when_placed, {NULL}},
    {"errors", errors, {"GDR_VERBSIM_BATCH=8"}},
    {"cq_delay", cq_delay, {"GDR_VERBSIM_CQ_DELAY_US=500000"}},
    {"rd_atomic", rd_atomic, {NULL}},
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

/* Run a scenario in a child with the double's environment; its stdout
 * into out (NULL: inherited). 0 when it passed. */
static int run_child(const char *self, const struct scenario *sc, const char *seed, const char *log,
                     char *out, size_t outlen)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        setenv("GDR_VERBSIM_REORDER", "1", 1);
        setenv("GDR_VERBSIM_SEED", seed, 1);
        setenv("GDR_VERBSIM_BATCH", "4", 1);
        /* Only the timer scenarios let the timer place writes: a loaded
         * machine must not change what the others see. */
        setenv("GDR_VERBSIM_HOLD_US", "10000000", 1);
        setenv("GDR_VERBSIM_VERBOSE", "1", 1);
        setenv("GDR_VERBSIM_LOG", log, 1);
        for (size_t i = 0; i < 2; i++)
            if (sc->env[i])
                putenv((char *)sc->env[i]);
        execl(self, self, sc->name, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t at = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(fd[0], out && at + 1 < outlen ? out + at : sink,
                     out && at + 1 < outlen ? outlen - at - 1 : sizeof(sink))) > 0)
        if (out && at + 1 < outlen)
            at += (size_t)r;
    if (out)
        out[at] = 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static unsigned long long moved_in(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[512];
    unsigned long long total = 0, n;
    while (f && fgets(line, sizeof(line), f)) {
        char *p = strstr(line, "), ");
        if (strstr(line, "reorder: seed") && p && sscanf(p, "), %llu placed out of order", &n) == 1)
            total += n;
    }
    if (f)
        fclose(f);
    return total;
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
    char log[] = "/tmp/test_verbsim.XXXXXX";
    int lfd = mkstemp(log);
    if (lfd < 0)
        return 99;
    close(lfd);
    int bad = 0;
    for (size_t i = 0; i < NSCEN; i++) {
        int rc = run_child(argv[0], &scenarios[i], "11", log, NULL, 0);
        printf("%s %s\n", rc ? "FAIL" : "ok", scenarios[i].name);
        bad |= rc != 0;
    }
    /* Replay: the same seed places the same way, another seed does not
     * have to. */
    char a[256], b[256];
    bool same = true;
    for (int seed = 1; seed <= 3; seed++) {
        char s[16];
        snprintf(s, sizeof(s), "%d", seed);
        run_child(argv[0], &scenarios[0], s, log, a, sizeof(a));
        run_child(argv[0], &scenarios[0], s, log, b, sizeof(b));
        same &= !strcmp(a, b) && a[0];
    }
    printf("%s replay: the same seed places the same way\n", same ? "ok" : "FAIL");
    bad |= !same;
    unsigned long long moved = moved_in(log);
    printf("%s summary: %llu writes placed out of order in all\n", moved ? "ok" : "FAIL", moved);
    bad |= !moved;
    if (bad) {
        FILE *f = fopen(log, "r");
        char line[512];
        while (f && fgets(line, sizeof(line), f))
            fputs(line, stderr);
        if (f)
            fclose(f);
    }
    unlink(log);
    return bad;
}
