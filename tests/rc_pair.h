/* rc_pair.h - two RC QPs of one verbs device connected to each other, for
 * the small planted-defect programs of the test doubles
 * (tests/cudasim/post_from_device, tests/verbsim/credit_race). Header
 * only: each program is one file. */
#ifndef GDR_TEST_RC_PAIR_H
#define GDR_TEST_RC_PAIR_H

#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Move qp to RTS towards dest_qpn on port 1 of the same device. */
static inline int rc_pair_connect(struct ibv_qp *qp, uint32_t dest_qpn, const union ibv_gid *gid,
                                  int gid_index, enum ibv_mtu mtu)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                            .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = mtu;
    a.dest_qp_num = dest_qpn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = *gid;
    a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a.ah_attr.grh.hop_limit = 1;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Wait for n successful completions; -1 on an error (said on stdout,
 * after `who`) or after 5 s. */
static inline int rc_pair_wait(struct ibv_cq *cq, int n, const char *who)
{
    struct timespec t0, t;
    struct ibv_wc wc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (n > 0) {
        int got = ibv_poll_cq(cq, 1, &wc);
        if (got < 0)
            return -1;
        if (got == 1) {
            if (wc.status != IBV_WC_SUCCESS) {
                printf("%s: completion: %s\n", who, ibv_wc_status_str(wc.status));
                return -1;
            }
            n--;
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 5)
            return -1;
    }
    return 0;
}

#endif
