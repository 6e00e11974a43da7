/* staged_read.h - RDMA read bandwidth with a staged requester (--gdr=off
 * on the client): reads land in its bounce ring and are copied on into
 * GPU memory, pipelined over the ring's slots. Internal to common/. */
#ifndef GDR_STAGED_READ_H
#define GDR_STAGED_READ_H

#include <stdint.h>

#include "session.h"

/* Measures until the last message is in GPU memory. */
int gdr_staged_reader(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

#endif
