/* credit_race.c - credit schemes on a fabric that places writes out of
 * order, for the verbs double (tests/verbsim) on soft-RoCE.
 *
 *   credit_race [-d DEV] [-g GID_INDEX] [-r ROUNDS] word|reuse|slots
 *
 * Two RC QPs on one verbs device, connected to each other; a
 * "destination" returns credits to a "source" by RDMA WRITE, up to four
 * at a time in flight, as gdrbench's staged destination did before issue
 * 20:
 *   word:  each credit is the absolute count of groups landed, written
 *          into one word at the source (each from a local word of its
 *          own). Where the fabric places an older count after a newer one
 *          the word ends stale: the source would wait forever for credits
 *          the destination has already sent.
 *   reuse: the credits come from one local word, rewritten for each post
 *          before the earlier writes completed (into a word each, here, so
 *          the damage shows): a NIC that reads the word when it executes
 *          the request, or again for a retransmission, sends a later value.
 *   slots: one entry per slot at the source (slot g % N gets g + 1), each
 *          written from a local entry that is not touched again until its
 *          write completed: any placement order ends with every entry
 *          right (the scheme gdrbench uses now).
 * Prints one line: how many rounds ended wrong. Exit 0 none, 1 some (the
 * scheme broke), 2 usage, 3 no verbs device. */
#include "config.h"

#include "../rc_pair.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { K = 4, SLOTS = 8 };

static int fail(int code, const char *what, const char *why)
{
    printf("credit_race: %s: %s\n", what, why);
    return code;
}

/* The two ends' memory: the source's credit area (remote to the
 * destination) and the destination's local words. */
struct mem {
    volatile uint64_t remote[SLOTS];
    uint64_t local[SLOTS];
};

static int post_write(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t *from, volatile uint64_t *to)
{
    struct ibv_sge sge = {(uintptr_t)from, sizeof(uint64_t), mr->lkey};
    struct ibv_send_wr wr = {.sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    wr.wr.rdma.remote_addr = (uintptr_t)to;
    wr.wr.rdma.rkey = mr->rkey;
    return ibv_post_send(qp, &wr, &bad);
}

int main(int argc, char **argv)
{
    const char *dev_name = "rxe0";
    int gid_index = 1, n = 0, argi = 1;
    long rounds = 50;
    for (; argi + 1 < argc && argv[argi][0] == '-'; argi += 2) {
        if (!strcmp(argv[argi], "-d"))
            dev_name = argv[argi + 1];
        else if (!strcmp(argv[argi], "-g"))
            gid_index = atoi(argv[argi + 1]);
        else if (!strcmp(argv[argi], "-r") && (rounds = atol(argv[argi + 1])) > 0)
            continue;
        else
            return fail(2, argv[argi],
                        "bad option (usage: [-d DEV] [-g GID] [-r ROUNDS] word|reuse|slots)");
    }
    const char *mode = argc - argi == 1 ? argv[argi] : "";
    if (strcmp(mode, "word") && strcmp(mode, "reuse") && strcmp(mode, "slots"))
        return fail(2, "usage", "credit_race [-d DEV] [-g GID] [-r ROUNDS] word|reuse|slots");

    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = NULL;
    for (int i = 0; list && i < n; i++)
        if (!strcmp(ibv_get_device_name(list[i]), dev_name))
            ctx = ibv_open_device(list[i]);
    struct ibv_port_attr port;
    union ibv_gid gid;
    if (!ctx)
        return fail(3, dev_name, "no such verbs device");
    if (ibv_query_port(ctx, 1, &port) || ibv_query_gid(ctx, 1, gid_index, &gid))
        return fail(3, dev_name, "cannot query port 1 or its GID");
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4 * K, NULL, NULL, 0) : NULL;
    if (!cq)
        return fail(1, "pd/cq", strerror(errno));
    struct ibv_qp_init_attr qi = {
        .send_cq = cq,
        .recv_cq = cq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = K, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp *qa = ibv_create_qp(pd, &qi), *qb = ibv_create_qp(pd, &qi);
    if (!qa || !qb || rc_pair_connect(qa, qb->qp_num, &gid, gid_index, port.active_mtu) ||
        rc_pair_connect(qb, qa->qp_num, &gid, gid_index, port.active_mtu))
        return fail(1, "QPs", strerror(errno));
    struct mem *m = calloc(1, sizeof(*m));
    struct ibv_mr *mr =
        m ? ibv_reg_mr(pd, m, sizeof(*m), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
    if (!mr)
        return fail(1, "ibv_reg_mr", strerror(errno));

    /* Each round the destination sends K credits back to back (groups
     * landed c + 1 .. c + K), then waits for their completions, as the
     * old destination could have K outstanding. */
    long wrong = 0;
    uint64_t c = 0, stale = 0, stale_of = 0; /* the last stale count seen, and of what */
    for (long r = 0; r < rounds; r++) {
        for (int k = 0; k < K; k++) {
            c++;
            int rc;
            if (!strcmp(mode, "word")) {
                m->local[k] = c;
                rc = post_write(qa, mr, &m->local[k], &m->remote[0]);
            } else if (!strcmp(mode, "reuse")) {
                m->local[0] = c;
                rc = post_write(qa, mr, &m->local[0], &m->remote[k]);
            } else {
                /* Entry c % SLOTS: its last write completed in an earlier
                 * round (SLOTS >= K), so it may be rewritten. */
                m->local[c % SLOTS] = c;
                rc = post_write(qa, mr, &m->local[c % SLOTS], &m->remote[c % SLOTS]);
            }
            if (rc)
                return fail(1, "ibv_post_send", strerror(rc));
        }
        if (rc_pair_wait(cq, K, "credit_race"))
            return fail(1, "credit writes", "no successful completions within 5 s");
        bool bad = false;
        if (!strcmp(mode, "word")) {
            bad = m->remote[0] != c;
            if (bad) {
                stale = m->remote[0];
                stale_of = c;
            }
        } else {
            for (uint64_t v = c - K + 1; v <= c; v++)
                bad |= m->remote[!strcmp(mode, "reuse") ? (v - 1) % K : v % SLOTS] != v;
        }
        wrong += bad;
    }
    if (!strcmp(mode, "word"))
        printf("credit_race word: %ld of %ld rounds ended on a stale count%s", wrong, rounds,
               wrong ? "" : "\n");
    if (!strcmp(mode, "word") && wrong)
        printf(" (the last: %llu where %llu were credited): the source would wait forever\n",
               (unsigned long long)stale, (unsigned long long)stale_of);
    else
        printf("credit_race %s: %ld of %ld rounds ended with a wrong credit%s\n", mode, wrong,
               rounds, wrong ? " (a write carried a value written after its post)" : "");
    return wrong ? 1 : 0;
}
