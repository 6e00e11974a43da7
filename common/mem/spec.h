/* spec.h - what one end asks of its buffer: host memory or which GPU, and
 * how the NIC should reach GPU memory (--mem, --gdr, --stage-slot(s)).
 * Each end chooses its own; the handshake tells the other. */
#ifndef GDR_SPEC_H
#define GDR_SPEC_H

#include <stdbool.h>

enum gdr_mode {
    GDR_MODE_AUTO, /* dma-buf, else peermem */
    GDR_MODE_DMABUF,
    GDR_MODE_PEERMEM,
    GDR_MODE_OFF, /* staged through pinned host bounce slots */
};

/* "auto", "dmabuf", "peermem", "off": the --gdr spellings. */
const char *gdr_mode_name(enum gdr_mode mode);

#define GDR_STAGE_SLOT_DEFAULT (1u << 20)
#define GDR_STAGE_SLOTS_DEFAULT 8
#define GDR_STAGE_SLOTS_MAX 256

struct gdr_mem_spec {
    bool cuda;            /* false: host memory */
    int cuda_index;       /* -1 with a bus id */
    char cuda_bus_id[32]; /* "" with an index */
    enum gdr_mode gdr;
    bool relaxed_ordering; /* register with IBV_ACCESS_RELAXED_ORDERING */
};

/* Whether receives (or RDMA read responses) land directly in GPU memory;
 * staged buffers receive into their host bounce ring. */
static inline bool gdr_mem_spec_gpu_receives(const struct gdr_mem_spec *m)
{
    return m->cuda && m->gdr != GDR_MODE_OFF;
}

#endif
