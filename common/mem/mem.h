/* mem.h - the benchmark buffer: where it lives, how the NIC reaches it,
 * and how the harness fills and checks it without knowing where it lives.
 *
 * A placement (host memory today; GPU memory through mem_cuda.c) provides
 * the ops below. The harness only ever calls gdr_buffer_*; the data checks
 * go through a host view so they work for any placement. */
#ifndef GDR_MEM_H
#define GDR_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "spec.h"

struct gdr_buffer;

struct gdr_mem_ops {
    const char *placement; /* "host", "cuda" */
    int (*alloc)(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd);
    void (*release)(struct gdr_buffer *b);
    /* Copy between the buffer and host memory (for fill and check). */
    int (*to_host)(struct gdr_buffer *b, void *dst, size_t off, size_t len);
    int (*from_host)(struct gdr_buffer *b, size_t off, const void *src, size_t len);
    /* Staged buffers: start a copy of len bytes at buffer offset off to
     * (out) or from (in) ring slot `slot` at ring_off inside it, and ask
     * whether the last copy at that slot has finished (1 done, 0 not yet,
     * -1 error). Copies finish in order. */
    int (*stage_out)(struct gdr_buffer *b, unsigned slot, size_t ring_off, size_t off, size_t len);
    int (*stage_in)(struct gdr_buffer *b, unsigned slot, size_t ring_off, size_t off, size_t len);
    int (*stage_done)(struct gdr_buffer *b, unsigned slot);
    /* Make what the NIC wrote visible to the buffer's own reads (GPU:
     * flush GPUDirect RDMA writes where the device needs it). Optional. */
    int (*nic_writes_visible)(struct gdr_buffer *b);
};

struct gdr_buffer {
    const struct gdr_mem_ops *ops;
    const char *registration; /* "host", "dmabuf", "peermem", "staged" */
    void *addr;               /* the buffer's address (a device VA for CUDA) */
    size_t len;
    struct ibv_mr *mr; /* covers addr..len; NULL when staged */
    /* Staged (--gdr=off): the pinned, registered bounce ring the NIC uses. */
    uint8_t *ring;
    size_t ring_len, slot_size;
    unsigned nslots;
    struct ibv_mr *ring_mr;
    /* GPU facts for the report. */
    int cuda_device;
    char cuda_bus_id[32];
    char cuda_name[64];
    char reg_note[192];    /* why a preferred registration was not used */
    bool relaxed_ordering; /* MRs asked for PCIe relaxed ordering */
    /* GPU buffers the NIC writes directly: the device's ordering of those
     * writes ("none", "owner", "all-devices"; "" not a GPU) and what is
     * done before reading them ("flush", "not-needed", "unsupported",
     * "nic-read", "not-applicable": gdr_writes_flush_choice). */
    const char *writes_ordering;
    const char *writes_flush;
    /* GPU buffers: how the memory was allocated ("malloc", "vmm"), how a
     * dma-buf export maps it ("pcie", "default", "default-pcie-refused":
     * the driver refused the PCIe flag and auto did without; "" no
     * dma-buf), whether it was registered through mlx5 Data Direct, and
     * whether the GPU hangs off the CPU by a chip-to-chip link (Grace). */
    const char *gpu_alloc;
    const char *dmabuf_mapping;
    bool data_direct;
    bool c2c;
    /* Set by the caller that owns the verbs device: read a few bytes of
     * the buffer through the local NIC (a loopback RDMA read), which
     * pushes the NIC's earlier writes into GPU memory. writes_flush
     * "nic-read" uses it where the CUDA flush cannot (Data Direct, and C2C
     * platforms whose NIC writes come over PCIe, as NCCL's
     * ncclTopoNeedFlush). */
    int (*nic_read)(void *arg, struct gdr_buffer *b);
    void *nic_read_arg;
    void *priv; /* the placement's own state */
};

extern const struct gdr_mem_ops gdr_mem_host_ops;
extern const struct gdr_mem_ops gdr_mem_cuda_ops;

/* Access flags of every MR: local and remote read/write, plus PCIe relaxed
 * ordering when asked. Relaxed ordering is an optional flag: rdma-core
 * drops it where the device or kernel lacks it, so asking is always safe. */
static inline int gdr_mr_access(bool relaxed_ordering)
{
    return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
           (relaxed_ordering ? IBV_ACCESS_RELAXED_ORDERING : 0);
}

/* What is done before the CPU's copies read GPU memory the NIC wrote
 * (writes_flush), from what is known of the GPU and the path:
 * - "nic-read": a read through the NIC, which pushes its earlier writes
 *   ahead of it. Always through mlx5 Data Direct (its engine writes GPU
 *   memory on a path of its own, whatever the GPU's link: NCCL forces the
 *   flush for a Data Direct NIC), and on a C2C GPU whose NIC writes come
 *   over PCIe (the PCIe mapping, a switch shared with the NIC) while the
 *   completions come through the CPU: the driver then reports ALL_DEVICES
 *   and its flush does nothing for that path (ncclTopoNeedFlush).
 * - "not-needed": the device orders the writes for the owning context,
 *   whose copies are the only reads.
 * - "flush": cuFlushGPUDirectRDMAWrites to the owner.
 * - "unsupported": unordered and no flush (a driver before CUDA 11.3). */
struct gdr_flush_facts {
    bool c2c;           /* the GPU hangs off the CPU by a chip-to-chip link */
    bool pcie_mapping;  /* dma-buf exported with the PCIe mapping */
    bool data_direct;   /* registered through mlx5 Data Direct */
    bool nic_near;      /* the NIC shares a PCIe switch with the GPU */
    bool owner_ordered; /* GPU_DIRECT_RDMA_WRITES_ORDERING at least OWNER */
    bool can_flush;     /* the HOST flush option and cuFlushGPUDirectRDMAWrites */
};
const char *gdr_writes_flush_choice(const struct gdr_flush_facts *f);

/* A dma-buf covers whole pages: for [addr, addr + len) with page a power
 * of two, the page-aligned start to export, the buffer's offset in the
 * export (ibv_reg_dmabuf_mr's offset) and the export's length. */
struct gdr_dmabuf_span {
    uint64_t base, offset, length;
};
#define GDR_GPU_PAGE (64u << 10) /* GPUDirect's page: what dma-buf exports cover */
struct gdr_dmabuf_span gdr_dmabuf_span_of(uint64_t addr, uint64_t len, uint64_t page);

/* Allocate len bytes where spec says and make them reachable by the NIC:
 * registered directly, or (staged) behind a bounce ring of nslots slots of
 * slot_size bytes. */
int gdr_buffer_create(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd,
                      size_t len, size_t slot_size, unsigned nslots);

/* Is the buffer behind a bounce ring (--gdr=off)? Then the NIC reaches
 * only the ring (ring_mr), and the data moves through stage_out/stage_in;
 * otherwise the NIC reaches the buffer itself (mr). */
static inline bool gdr_buffer_staged(const struct gdr_buffer *b)
{
    return b->ring != NULL;
}
void gdr_buffer_destroy(struct gdr_buffer *b);

/* Validation helpers: fill/zero/check [off, off + len) through a host view. */
int gdr_buffer_fill(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed);
int gdr_buffer_zero(struct gdr_buffer *b, size_t off, size_t len);
/* Mismatched bytes (0: intact); *first_bad = buffer offset of the first. */
int gdr_buffer_check(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed,
                     uint64_t *bad_bytes, size_t *first_bad);

#endif
