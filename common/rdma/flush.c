/* flush.c - a read through the local NIC; see flush.h. */
#include "config.h"

#include "clock.h"
#include "error.h"
#include "events.h"
#include "flush.h"

#include <errno.h>
#include <string.h>

/* How often a waiting flush read looks for asynchronous events. */
#define GDR_FLUSH_EVENTS_NS 1000000ull

static int setup(struct gdr_verbs *v, struct gdr_nic_flush *f)
{
    f->cq = ibv_create_cq(v->ctx, 2, NULL, NULL, 0);
    if (!f->cq)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_create_cq for the NIC flush failed: %s", v->dev_name,
                        strerror(errno));
    f->mr = ibv_reg_mr(v->pd, &f->sink, sizeof(f->sink), IBV_ACCESS_LOCAL_WRITE);
    if (!f->mr)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_reg_mr of the NIC flush's word failed: %s",
                        v->dev_name, strerror(errno));
    struct ibv_qp_init_attr ia = {
        .send_cq = f->cq,
        .recv_cq = f->cq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1},
    };
    f->qp = ibv_create_qp(v->pd, &ia);
    if (!f->qp)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_create_qp for the NIC flush failed: %s", v->dev_name,
                        strerror(errno));
    v->flush_qp = f->qp;
    v->flush_cq = f->cq;
    return gdr_verbs_loopback(v, f->qp);
}

/* The read's wait, like a timed loop's: a signal or a fatal event ends it
 * at once, named as such; otherwise the deadline. */
static int wait_read(struct gdr_verbs *v, struct gdr_nic_flush *f, double timeout_s)
{
    uint64_t now = gdr_now_ns(), deadline = now + (uint64_t)(timeout_s * 1e9);
    uint64_t next_events = now + GDR_FLUSH_EVENTS_NS;
    struct ibv_wc wc;
    int n;
    while ((n = ibv_poll_cq(f->cq, 1, &wc)) == 0) {
        if (gdr_interrupted)
            return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN,
                                 "interrupted during the NIC flush read on %s", v->dev_name);
        now = gdr_now_ns();
        if (now >= next_events) { /* a system call: not on every spin */
            if (gdr_events_check(v, GDR_ERROR_UNKNOWN))
                return -1;
            next_events = now + GDR_FLUSH_EVENTS_NS;
        }
        if (now > deadline)
            return gdr_fail(GDR_EXIT_RUN, "%s: the NIC flush read did not complete within %g s",
                            v->dev_name, timeout_s);
    }
    if (n < 0)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_poll_cq (NIC flush) failed", v->dev_name);
    if (wc.status != IBV_WC_SUCCESS)
        return gdr_wc_fail(v, &wc, "NIC flush read", 4, GDR_ERROR_UNKNOWN);
    return 0;
}

int gdr_nic_flush_read(struct gdr_verbs *v, struct gdr_nic_flush *f, uint64_t addr, uint32_t rkey,
                       double timeout_s)
{
    if (!f->qp && setup(v, f))
        return -1;
    struct gdr_wr wr = {.op = IBV_WR_RDMA_READ,
                        .laddr = (uintptr_t)&f->sink,
                        .lkey = f->mr->lkey,
                        .len = 4,
                        .raddr = addr,
                        .rkey = rkey,
                        .flags = IBV_SEND_SIGNALED,
                        .wr_id = f->reads};
    if (gdr_post_send(f->qp, &wr) || wait_read(v, f, timeout_s))
        return -1;
    f->reads++;
    return 0;
}

void gdr_nic_flush_release(struct gdr_verbs *v, struct gdr_nic_flush *f)
{
    v->flush_qp = NULL;
    v->flush_cq = NULL;
    if (f->qp)
        ibv_destroy_qp(f->qp);
    if (f->mr)
        ibv_dereg_mr(f->mr);
    if (f->cq)
        ibv_destroy_cq(f->cq);
    memset(f, 0, sizeof(*f));
}
