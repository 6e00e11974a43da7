/* rd_atomic.c - reads in flight as mlx5 holds them: max_rd_atomic and
 * max_dest_rd_atomic are kept as powers of two (log_sra_max, log_rra_max).
 * Kernels from about 5.9 round what is asked down, 6.12 (stable 6.11) and
 * later round it up, so two ends on different kernels can hold different
 * numbers for the same -o. rxe keeps what it is given (rounded up).
 *
 * GDR_VERBSIM_RD_ATOMIC=down|up: ibv_modify_qp rounds both attributes
 * down or up to a power of two before the provider sees them, and
 * ibv_query_qp reports them so rounded. =short: a responder that holds
 * half the resources asked for (max_dest_rd_atomic halved, at least 1),
 * whatever the number: the mismatch -o 3 makes across kernels, for a
 * program that rounds to a power of two itself. A symbol interposition of
 * its own, like gid.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbsim.h"

static int mode = -1; /* -1: the environment not read yet */

static enum vs_rd_mode rd_mode(void)
{
    if (mode < 0) {
        const char *v = getenv("GDR_VERBSIM_RD_ATOMIC");
        mode = !v                    ? VS_RD_ASKED
               : !strcmp(v, "down")  ? VS_RD_DOWN
               : !strcmp(v, "up")    ? VS_RD_UP
               : !strcmp(v, "short") ? VS_RD_SHORT
                                     : VS_RD_ASKED;
        vs_start();
        if (mode != VS_RD_ASKED)
            vs_log("rd_atomic: max_rd_atomic and max_dest_rd_atomic held %s", v);
    }
    return (enum vs_rd_mode)mode;
}

unsigned vs_rd_round(unsigned n, enum vs_rd_mode m)
{
    if (n == 0 || m == VS_RD_ASKED || m == VS_RD_SHORT)
        return n;
    unsigned p = 1; /* the power of two at or below n, 128 at most */
    while (p * 2 <= n && p < 128)
        p *= 2;
    return m == VS_RD_UP && p < n && p < 128 ? p * 2 : p;
}

void vs_rd_hold(struct ibv_qp_attr *a, int mask, enum vs_rd_mode m)
{
    if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
        a->max_rd_atomic = (uint8_t)vs_rd_round(a->max_rd_atomic, m);
    if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
        unsigned d = vs_rd_round(a->max_dest_rd_atomic, m);
        a->max_dest_rd_atomic = (uint8_t)(m == VS_RD_SHORT && d > 1 ? d / 2 : d);
    }
}

/* The current (IBVERBS_1.1) symbol: an unversioned look-up may bind the
 * compat one. */
static void *real_fn(const char *name)
{
    void *fn = dlvsym(RTLD_NEXT, name, "IBVERBS_1.1");
    return fn ? fn : dlsym(RTLD_NEXT, name);
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
    static int (*real)(struct ibv_qp *, struct ibv_qp_attr *, int);
    if (!real)
        real = (int (*)(struct ibv_qp *, struct ibv_qp_attr *, int))real_fn("ibv_modify_qp");
    if (!real)
        return -1;
    if (rd_mode() == VS_RD_ASKED)
        return real(qp, attr, mask);
    struct ibv_qp_attr held = *attr; /* the caller's stays as it asked */
    vs_rd_hold(&held, mask, rd_mode());
    return real(qp, &held, mask);
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
                 struct ibv_qp_init_attr *init_attr)
{
    static int (*real)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
    if (!real)
        real = (int (*)(struct ibv_qp *, struct ibv_qp_attr *, int,
                        struct ibv_qp_init_attr *))real_fn("ibv_query_qp");
    if (!real)
        return -1;
    int rc = real(qp, attr, mask, init_attr);
    /* Up and down are idempotent: what the provider kept, as it was
     * stored (short has already halved it there). */
    if (rc == 0 && rd_mode() != VS_RD_SHORT)
        vs_rd_hold(attr, mask, rd_mode());
    return rc;
}
