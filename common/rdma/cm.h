/* cm.h - connecting the queue pairs with rdma_cm (-R) instead of
 * exchanging QP numbers and GIDs by hand. rdma_cm resolves the address and
 * route, so it also chooses the device and GID. The TCP channel still
 * carries parameters, buffer keys and results; rdma_cm listens on the
 * channel's port + 1 (its own port space on InfiniBand and RoCE, but
 * iWARP shares TCP's). */
#ifndef GDR_CM_H
#define GDR_CM_H

#include "options.h"
#include "verbs.h"

struct gdr_cm;

/* Server: listen for rdma_cm connections (before the client's HELLO). */
int gdr_cm_listen(struct gdr_cm **cm, const char *bind_addr, uint16_t port, double timeout);
/* Client: a handle that will connect to host. */
int gdr_cm_client(struct gdr_cm **cm, const char *host, uint16_t port, double timeout);

/* Connect num_qps QPs: the client resolves and connects, the server
 * accepts. Creates v's PD, CQs and QPs on the device rdma_cm chose. */
int gdr_cm_connect(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_config *cfg,
                   unsigned send_depth, unsigned recv_depth);

/* Destroy the QPs (before gdr_verbs_close) ... */
void gdr_cm_release_qps(struct gdr_cm *cm, struct gdr_verbs *v);
/* ... and the rest (after it: the device context is rdma_cm's). */
void gdr_cm_destroy(struct gdr_cm *cm);

#endif
