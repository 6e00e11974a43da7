/* spec.h - what one end asks of its buffer: host memory or which GPU, how
 * GPU memory is allocated, and how the NIC should reach it (--mem, --gdr,
 * --gpu-alloc, --dmabuf-mapping, --data-direct, --stage-slot(s)).
 * Each end chooses its own; the handshake tells the other. */
#ifndef GDR_SPEC_H
#define GDR_SPEC_H

#include <stdbool.h>

#include "bounds.h"

enum gdr_mode {
    GDR_MODE_AUTO, /* dma-buf, else peermem */
    GDR_MODE_DMABUF,
    GDR_MODE_PEERMEM,
    GDR_MODE_OFF, /* staged through pinned host bounce slots */
};

/* "auto", "dmabuf", "peermem", "off": the --gdr spellings. */
const char *gdr_mode_name(enum gdr_mode mode);

/* --gpu-alloc: how GPU memory is allocated. */
enum gdr_gpu_alloc {
    GDR_ALLOC_MALLOC, /* cuMemAlloc */
    GDR_ALLOC_VMM,    /* cuMemCreate (gpuDirectRDMACapable) + cuMemMap, as NCCL's */
};

/* --dmabuf-mapping: how a dma-buf export maps GPU memory for the NIC. */
enum gdr_dmabuf_mapping {
    GDR_MAPPING_AUTO,    /* PCIe where NCCL would ask for it, else the default */
    GDR_MAPPING_PCIE,    /* CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE */
    GDR_MAPPING_DEFAULT, /* no flag */
};

/* --data-direct: register dma-bufs through mlx5 Data Direct. */
enum gdr_data_direct { GDR_DD_AUTO, GDR_DD_ON, GDR_DD_OFF };

/* "malloc"/"vmm", "auto"/"pcie"/"default", "auto"/"on"/"off": the option
 * spellings. */
const char *gdr_gpu_alloc_name(enum gdr_gpu_alloc a);
const char *gdr_dmabuf_mapping_name(enum gdr_dmabuf_mapping m);
const char *gdr_data_direct_name(enum gdr_data_direct d);

#define GDR_STAGE_SLOT_DEFAULT (1u << 20)
#define GDR_STAGE_SLOTS_DEFAULT 8

struct gdr_mem_spec {
    bool cuda;            /* false: host memory */
    int cuda_index;       /* -1 with a bus id */
    char cuda_bus_id[32]; /* "" with an index */
    enum gdr_mode gdr;
    enum gdr_gpu_alloc alloc;
    enum gdr_dmabuf_mapping mapping;
    enum gdr_data_direct data_direct;
    bool relaxed_ordering; /* register with IBV_ACCESS_RELAXED_ORDERING */
    /* Not options: set by whoever knows the NIC, asked once the GPU is
     * known. Does the NIC reach the GPU (PCI bus id) through a PCIe switch
     * they share (PIX, PXB)? 1 yes, 0 no, -1 unknown. NULL: unknown. */
    int (*nic_shares_switch)(const char *gpu_bus_id, void *arg);
    void *nic_arg;
};

/* Whether receives (or RDMA read responses) land directly in GPU memory;
 * staged buffers receive into their host bounce ring. */
static inline bool gdr_mem_spec_gpu_receives(const struct gdr_mem_spec *m)
{
    return m->cuda && m->gdr != GDR_MODE_OFF;
}

#endif
