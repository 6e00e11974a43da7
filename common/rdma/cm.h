/* cm.h - connecting the queue pairs with rdma_cm (-R) instead of
 * exchanging QP numbers and GIDs by hand. rdma_cm resolves the address and
 * route, so it also chooses the device and GID. The TCP channel still
 * carries parameters, buffer keys and results; rdma_cm listens on the
 * channel's port + 1 (its own port space on InfiniBand and RoCE, but
 * iWARP shares TCP's). */
#ifndef GDR_CM_H
#define GDR_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "verbs.h"

struct gdr_cm;

/* Server: listen for rdma_cm connections (before the client's HELLO). */
int gdr_cm_listen(struct gdr_cm **cm, const char *bind_addr, uint16_t port, double timeout);
/* Client: a handle that will connect to host. */
int gdr_cm_client(struct gdr_cm **cm, const char *host, uint16_t port, double timeout);

/* What rdma_cm needs of the run's options. */
struct gdr_cm_qps {
    const char *ib_dev; /* NULL: any; else the device rdma_cm must have chosen */
    unsigned num_qps, send_depth, recv_depth, inline_size;
    bool gpu_receives;     /* see gdr_verbs_create */
    uint8_t traffic_class; /* ToS; 0 leaves rdma_cm's choice */
    uint8_t qp_timeout, retry_count;
    unsigned outs; /* -o: RDMA reads in flight per QP; 0: as the devices allow */
};

/* First half of connecting q->num_qps QPs: the client resolves the
 * address and route of each, the server waits for each request. Either
 * way rdma_cm has then chosen the device, which v adopts (nothing is
 * allocated on it yet: the caller may place itself near it first). */
int gdr_cm_resolve(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q);
/* Second half: v's PD, CQs and QPs on that device, then connect (client)
 * or accept (server) them all, offering the device's RDMA read limits
 * lowered to q->outs (rdma_cm settles each way on the smaller side). */
int gdr_cm_establish(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q);

/* Destroy the QPs (before gdr_verbs_close) ... */
void gdr_cm_release_qps(struct gdr_cm *cm, struct gdr_verbs *v);
/* ... and the rest (after it: the device context is rdma_cm's). */
void gdr_cm_destroy(struct gdr_cm *cm);

#endif
