/* flush.h - a read through the local NIC of memory it has just written: an
 * RDMA read on a QP connected to itself. PCIe orders a read after the
 * writes before it on the same path, so once the read completes the NIC's
 * earlier writes have reached the memory. NCCL flushes so (ncclTopoNeedFlush)
 * where the CUDA flush cannot: a C2C platform whose NIC writes GPU memory
 * over PCIe while completions arrive through the CPU. Created on first use,
 * released before the verbs device. */
#ifndef GDR_FLUSH_H
#define GDR_FLUSH_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "verbs.h"

struct gdr_nic_flush {
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint64_t sink; /* where the read's bytes land */
    uint64_t reads;
};

/* Read 4 bytes at addr (rkey) through v's NIC and wait up to timeout_s for
 * them. A signal (class interrupted) or a fatal asynchronous event (class
 * event) ends the wait at once. 0, or -1 with the error recorded. */
int gdr_nic_flush_read(struct gdr_verbs *v, struct gdr_nic_flush *f, uint64_t addr, uint32_t rkey,
                       double timeout_s);

/* Release f's QP, CQ and MR (before v's PD and context). */
void gdr_nic_flush_release(struct gdr_verbs *v, struct gdr_nic_flush *f);

#endif
