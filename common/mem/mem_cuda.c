/* mem_cuda.c - GPU memory (cuMemAlloc or VMM, gpu_alloc.c, on the
 * device's primary context) and the three ways a NIC can reach it: a
 * dma-buf export registered with ibv_reg_dmabuf_mr (dmabuf.c), a plain
 * ibv_reg_mr that nvidia_peermem resolves, or none at all (--gdr=off):
 * data is staged through a pinned host ring with asynchronous copies, as a
 * GPU transfer goes without GPUDirect RDMA. */
#include "config.h"

#include "cuda_api.h"
#include "dmabuf.h"
#include "error.h"
#include "gpu_alloc.h"
#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cuda_state {
    const struct gdr_cuda_api *cu;
    CUdevice dev;
    bool ctx_retained;
    struct gdr_gpu_mem mem;
    CUdeviceptr dptr;
    size_t alloc_len;
    int dmabuf_fd;
    int access;        /* MR access flags */
    bool flush_writes; /* cuFlushGPUDirectRDMAWrites before reading */
    bool nic_read;     /* a read through the NIC before reading (C2C) */
    bool nic_near;     /* the NIC shares a PCIe switch with the GPU */
    /* One stream per direction: H100/H200 have copy engines for each, and
     * a -b run's device-to-host and host-to-device copies must not wait
     * for each other. Each direction's copies finish in order. */
    CUstream stream_out, stream_in;
    CUevent ev[GDR_STAGE_SLOTS_MAX];
};

static int pick_device(struct gdr_buffer *b, struct cuda_state *st, const struct gdr_mem_spec *spec)
{
    const struct gdr_cuda_api *cu = st->cu;
    int count = 0;
    if (gdr_cuda_check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount"))
        return -1;
    if (count == 0)
        return gdr_fail(GDR_EXIT_ENV, "--mem=cuda: the CUDA driver sees no GPU");
    if (spec->cuda_bus_id[0]) {
        if (cu->cuDeviceGetByPCIBusId(&st->dev, spec->cuda_bus_id) != CUDA_SUCCESS)
            return gdr_fail(GDR_EXIT_ENV, "--mem=cuda:%s: no GPU at that PCI bus id",
                            spec->cuda_bus_id);
    } else {
        if (spec->cuda_index >= count)
            return gdr_fail(GDR_EXIT_ENV, "--mem=cuda:%d: this host has %d GPU(s)",
                            spec->cuda_index, count);
        if (gdr_cuda_check(cu->cuDeviceGet(&st->dev, spec->cuda_index), "cuDeviceGet"))
            return -1;
    }
    b->cuda_device = (int)st->dev;
    cu->cuDeviceGetName(b->cuda_name, sizeof(b->cuda_name), st->dev);
    cu->cuDeviceGetPCIBusId(b->cuda_bus_id, sizeof(b->cuda_bus_id), st->dev);
    CUcontext ctx;
    if (gdr_cuda_check(cu->cuDevicePrimaryCtxRetain(&ctx, st->dev), "cuDevicePrimaryCtxRetain"))
        return -1;
    st->ctx_retained = true;
    return gdr_cuda_check(cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

/* Would NCCL ask for the PCIe mapping? On a C2C platform, where the NIC
 * reaches the GPU over PCIe rather than through the CPU: under a switch
 * they share, or through a Data Direct engine (ncclTopoCheckGdr's PCI
 * mode). */
static bool want_pcie(const struct gdr_mem_spec *spec, const struct gdr_buffer *b,
                      const struct cuda_state *st, bool data_direct)
{
    if (spec->mapping != GDR_MAPPING_AUTO)
        return spec->mapping == GDR_MAPPING_PCIE;
    return b->c2c && (st->nic_near || data_direct);
}

/* Each returns 0 with b->mr set, or -1 with why in `why` (dma-buf: -2
 * when refused outright, the error recorded: no peermem fallback). */
static int register_dmabuf(struct gdr_buffer *b, struct cuda_state *st, struct ibv_pd *pd,
                           const struct gdr_mem_spec *spec, char *why, size_t len)
{
    char dd_path[256], dd_why[160] = "";
    int dd =
        spec->data_direct == GDR_DD_OFF
            ? 0
            : gdr_data_direct_probe(pd->context, dd_path, sizeof(dd_path), dd_why, sizeof(dd_why));
    if (spec->data_direct == GDR_DD_ON && dd != 1) {
        gdr_fail(GDR_EXIT_ENV, "--data-direct=on on GPU %s: %s", b->cuda_bus_id, dd_why);
        return -2;
    }
    struct gdr_dmabuf_req req = {.cu = st->cu,
                                 .ptr = st->dptr,
                                 .len = st->alloc_len,
                                 .pd = pd,
                                 .access = st->access,
                                 .pcie = want_pcie(spec, b, st, dd == 1),
                                 .pcie_required = spec->mapping == GDR_MAPPING_PCIE,
                                 .data_direct = dd == 1,
                                 .data_direct_required = spec->data_direct == GDR_DD_ON};
    struct gdr_dmabuf_reg reg;
    if (gdr_dmabuf_register(&req, &reg, why, len)) {
        if (spec->data_direct != GDR_DD_ON)
            return -1;
        gdr_fail(GDR_EXIT_ENV, "--data-direct=on on GPU %s: %s", b->cuda_bus_id, why);
        return -2;
    }
    b->mr = reg.mr;
    st->dmabuf_fd = reg.fd;
    b->dmabuf_mapping = reg.mapping;
    b->data_direct = reg.data_direct;
    snprintf(b->reg_note, sizeof(b->reg_note), "%s", reg.note);
    return 0;
}

static int register_peermem(struct gdr_buffer *b, struct cuda_state *st, struct ibv_pd *pd,
                            char *why, size_t len)
{
    b->mr = ibv_reg_mr(pd, (void *)(uintptr_t)st->dptr, st->alloc_len, st->access);
    if (!b->mr) {
        snprintf(why, len, "ibv_reg_mr on GPU memory: %s (nvidia_peermem not loaded?)",
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* GPUDirect RDMA writes may reach GPU memory out of order with respect to
 * the completion the CPU sees: what to do before a copy reads what the NIC
 * wrote is gdr_writes_flush_choice's (mem.c), from the device's answers
 * and the path the NIC's writes take. */
static void choose_flush(struct gdr_buffer *b, struct cuda_state *st)
{
    int ordering = -1, options = 0;
    if (st->cu->cuDeviceGetAttribute(&ordering, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
                                     st->dev) != CUDA_SUCCESS)
        ordering = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE;
    if (st->cu->cuDeviceGetAttribute(&options,
                                     CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
                                     st->dev) != CUDA_SUCCESS)
        options = 0;
    b->writes_ordering = ordering >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES ? "all-devices"
                         : ordering >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER     ? "owner"
                                                                                    : "none";
    struct gdr_flush_facts f = {
        .c2c = b->c2c,
        .pcie_mapping = !strcmp(b->dmabuf_mapping, "pcie"),
        .data_direct = b->data_direct,
        .nic_near = st->nic_near,
        .owner_ordered = ordering >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER,
        .can_flush = (options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST) &&
                     st->cu->cuFlushGPUDirectRDMAWrites,
    };
    b->writes_flush = gdr_writes_flush_choice(&f);
    st->nic_read = !strcmp(b->writes_flush, "nic-read");
    st->flush_writes = !strcmp(b->writes_flush, "flush");
}

static int register_direct(struct gdr_buffer *b, struct cuda_state *st, struct ibv_pd *pd,
                           const struct gdr_mem_spec *spec)
{
    enum gdr_mode mode = spec->gdr;
    char dmabuf_why[256] = "", peermem_why[160] = "";
    if (mode != GDR_MODE_PEERMEM) {
        int rc = register_dmabuf(b, st, pd, spec, dmabuf_why, sizeof(dmabuf_why));
        if (rc == 0) {
            b->registration = "dmabuf";
            choose_flush(b, st);
            return 0;
        }
        if (rc == -2)
            return -1;
    }
    if (mode == GDR_MODE_DMABUF)
        return gdr_fail(GDR_EXIT_ENV, "--gdr=dmabuf on GPU %s: %s (gdr_doctor checks why)",
                        b->cuda_bus_id, dmabuf_why);
    if (register_peermem(b, st, pd, peermem_why, sizeof(peermem_why)) == 0) {
        b->registration = "peermem";
        if (dmabuf_why[0])
            snprintf(b->reg_note, sizeof(b->reg_note), "dmabuf not used: %.*s",
                     (int)sizeof(b->reg_note) - 18, dmabuf_why);
        choose_flush(b, st);
        return 0;
    }
    if (mode == GDR_MODE_PEERMEM)
        return gdr_fail(GDR_EXIT_ENV, "--gdr=peermem on GPU %s: %s (gdr_doctor checks why)",
                        b->cuda_bus_id, peermem_why);
    return gdr_fail(GDR_EXIT_ENV,
                    "GPU %s cannot be registered for RDMA: %s; %s. Run gdr_doctor, "
                    "or measure without GPUDirect RDMA with --gdr=off",
                    b->cuda_bus_id, dmabuf_why, peermem_why);
}

static int setup_staging(struct gdr_buffer *b, struct cuda_state *st, struct ibv_pd *pd)
{
    const struct gdr_cuda_api *cu = st->cu;
    b->ring_len = b->slot_size * b->nslots;
    void *ring;
    if (gdr_cuda_check(cu->cuMemHostAlloc(&ring, b->ring_len, CU_MEMHOSTALLOC_PORTABLE),
                       "cuMemHostAlloc (bounce ring)"))
        return -1;
    b->ring = ring;
    b->ring_mr = ibv_reg_mr(pd, ring, b->ring_len, st->access);
    if (!b->ring_mr)
        return gdr_fail(GDR_EXIT_RUN, "ibv_reg_mr of the %zu-byte bounce ring failed: %s",
                        b->ring_len, strerror(errno));
    if (gdr_cuda_check(cu->cuStreamCreate(&st->stream_out, CU_STREAM_DEFAULT),
                       "cuStreamCreate (device to host)") ||
        gdr_cuda_check(cu->cuStreamCreate(&st->stream_in, CU_STREAM_DEFAULT),
                       "cuStreamCreate (host to device)"))
        return -1;
    for (unsigned i = 0; i < b->nslots; i++)
        if (gdr_cuda_check(cu->cuEventCreate(&st->ev[i], CU_EVENT_DISABLE_TIMING), "cuEventCreate"))
            return -1;
    b->registration = "staged";
    return 0;
}

static int cuda_alloc(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd)
{
    struct cuda_state *st = calloc(1, sizeof(*st));
    if (!st)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    b->priv = st;
    st->dmabuf_fd = -1;
    if (!(st->cu = gdr_cuda_load()) || pick_device(b, st, spec))
        return -1;
    b->gpu_alloc = gdr_gpu_alloc_name(spec->alloc);
    b->c2c = gdr_gpu_c2c(st->cu, st->dev);
    st->nic_near =
        spec->nic_shares_switch && spec->nic_shares_switch(b->cuda_bus_id, spec->nic_arg) == 1;
    if (gdr_gpu_mem_alloc(st->cu, st->dev, b->cuda_bus_id, spec->alloc, spec->gdr != GDR_MODE_OFF,
                          b->len, &st->mem))
        return -1;
    st->dptr = st->mem.ptr;
    st->alloc_len = st->mem.size;
    b->addr = (void *)(uintptr_t)st->dptr;
    /* Synchronous copies (fill, clear, check) then complete in device
     * memory before they return, so the NIC never overtakes them. VMM
     * memory takes no pointer attributes: its copies synchronize instead
     * (cuda_from_host). */
    if (spec->alloc == GDR_ALLOC_MALLOC) {
        unsigned one = 1;
        char what[96];
        snprintf(what, sizeof(what), "cuPointerSetAttribute(SYNC_MEMOPS) on GPU %s",
                 b->cuda_bus_id);
        if (gdr_cuda_check(
                st->cu->cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, st->dptr),
                what))
            return -1;
    }
    st->access = gdr_mr_access(spec->relaxed_ordering);
    return spec->gdr == GDR_MODE_OFF ? setup_staging(b, st, pd) : register_direct(b, st, pd, spec);
}

static void cuda_release(struct gdr_buffer *b)
{
    struct cuda_state *st = b->priv;
    if (b->mr)
        ibv_dereg_mr(b->mr);
    if (b->ring_mr)
        ibv_dereg_mr(b->ring_mr);
    if (!st)
        return;
    if (st->dmabuf_fd >= 0)
        close(st->dmabuf_fd);
    const struct gdr_cuda_api *cu = st->cu;
    if (cu) {
        for (unsigned i = 0; i < GDR_STAGE_SLOTS_MAX; i++)
            if (st->ev[i])
                cu->cuEventDestroy(st->ev[i]);
        if (st->stream_out)
            cu->cuStreamDestroy(st->stream_out);
        if (st->stream_in)
            cu->cuStreamDestroy(st->stream_in);
        if (b->ring)
            cu->cuMemFreeHost(b->ring);
        gdr_gpu_mem_free(cu, &st->mem);
        if (st->ctx_retained)
            cu->cuDevicePrimaryCtxRelease(st->dev);
    }
    free(st);
}

static int cuda_to_host(struct gdr_buffer *b, void *dst, size_t off, size_t len)
{
    struct cuda_state *st = b->priv;
    return gdr_cuda_check(st->cu->cuMemcpyDtoH(dst, st->dptr + off, len), "cuMemcpyDtoH");
}

static int cuda_from_host(struct gdr_buffer *b, size_t off, const void *src, size_t len)
{
    struct cuda_state *st = b->priv;
    /* A copy from pageable memory may return before it lands; VMM memory
     * has no SYNC_MEMOPS, so wait for it here. */
    return gdr_cuda_check(st->cu->cuMemcpyHtoD(st->dptr + off, src, len), "cuMemcpyHtoD") ||
           (st->mem.kind == GDR_ALLOC_VMM &&
            gdr_cuda_check(st->cu->cuCtxSynchronize(), "cuCtxSynchronize"));
}

static int cuda_nic_writes_visible(struct gdr_buffer *b)
{
    struct cuda_state *st = b->priv;
    if (st->nic_read) {
        if (!b->nic_read)
            return gdr_fail(GDR_EXIT_RUN,
                            "GPU %s needs a read through the NIC before its data "
                            "is checked, and nothing here can post one",
                            b->cuda_bus_id);
        return b->nic_read(b->nic_read_arg, b);
    }
    if (!st->flush_writes)
        return 0;
    return gdr_cuda_check(
        st->cu->cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                           CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
        "cuFlushGPUDirectRDMAWrites");
}

static int cuda_stage_out(struct gdr_buffer *b, unsigned slot, size_t ring_off, size_t off,
                          size_t len)
{
    struct cuda_state *st = b->priv;
    uint8_t *at = b->ring + (size_t)slot * b->slot_size + ring_off;
    return gdr_cuda_check(st->cu->cuMemcpyDtoHAsync(at, st->dptr + off, len, st->stream_out),
                          "cuMemcpyDtoHAsync (staging)") ||
           gdr_cuda_check(st->cu->cuEventRecord(st->ev[slot], st->stream_out), "cuEventRecord");
}

static int cuda_stage_in(struct gdr_buffer *b, unsigned slot, size_t ring_off, size_t off,
                         size_t len)
{
    struct cuda_state *st = b->priv;
    uint8_t *at = b->ring + (size_t)slot * b->slot_size + ring_off;
    return gdr_cuda_check(st->cu->cuMemcpyHtoDAsync(st->dptr + off, at, len, st->stream_in),
                          "cuMemcpyHtoDAsync (staging)") ||
           gdr_cuda_check(st->cu->cuEventRecord(st->ev[slot], st->stream_in), "cuEventRecord");
}

static int cuda_stage_done(struct gdr_buffer *b, unsigned slot)
{
    struct cuda_state *st = b->priv;
    CUresult rc = st->cu->cuEventQuery(st->ev[slot]);
    if (rc == CUDA_ERROR_NOT_READY)
        return 0;
    return gdr_cuda_check(rc, "cuEventQuery (staging)") ? -1 : 1;
}

const struct gdr_mem_ops gdr_mem_cuda_ops = {
    .placement = "cuda",
    .alloc = cuda_alloc,
    .release = cuda_release,
    .to_host = cuda_to_host,
    .from_host = cuda_from_host,
    .stage_out = cuda_stage_out,
    .stage_in = cuda_stage_in,
    .stage_done = cuda_stage_done,
    .nic_writes_visible = cuda_nic_writes_visible,
};
