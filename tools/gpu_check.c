/* gdr-gpu-check - what only a real GPU can show, without an RDMA NIC:
 * the driver loads from the same dlopen path the benchmarks use, device
 * memory allocates, a dma-buf handle exports (the GDR-on path of --gdr=auto),
 * and the staged path's copies (--gdr=off) run at what speed through a
 * pipelined ring of pinned bounce slots, per slot size, D2H and H2D.
 * ci/gpu-check builds and runs it on a GPU machine. */
#include "config.h"

#include "cuda_api.h"
#include "error.h"
#include "options.h"
#include "sizes.h"
#include "clock.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SLOTS 64

struct check_cfg {
    int gpu;
    uint64_t total;         /* bytes copied per measurement */
    unsigned nslots;
};

static void usage(const char *msg)
{
    fprintf(stderr, "gdr-gpu-check: %s (see --help)\n", msg);
}

static int parse(int argc, char **argv, struct check_cfg *c)
{
    c->gpu = 0;
    c->total = 256ull << 20;
    c->nslots = 8;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t v;
        if (strcmp(a, "--help") == 0) {
            printf("Usage: gdr-gpu-check [--gpu=N] [--bytes=SIZE] [--slots=N]\n"
                   "Loads libcuda.so.1, allocates GPU memory, tries a dma-buf export and\n"
                   "measures staged copy bandwidth (D2H, H2D) through a ring of N pinned\n"
                   "slots for several slot sizes, SIZE bytes per measurement (default 256M).\n"
                   "  --gpu=N        GPU index (default 0)\n"
                   "  --bytes=SIZE   bytes per measurement, 1M..16G (default 256M)\n"
                   "  --slots=N      pinned slots in the ring, 1..64 (default 8)\n"
                   "  --help, --version\n"
                   "Exit: 0 ok, 1 a step failed, 2 usage, 3 no driver or GPU.\n");
            return 1;
        }
        if (strcmp(a, "--version") == 0) {
            printf("gdr-gpu-check (gdrbench) %s\n", PACKAGE_VERSION);
            return 1;
        }
        if (strncmp(a, "--gpu=", 6) == 0 && gdr_parse_uint(a + 6, 0, 1023, &v) == 0)
            c->gpu = (int)v;
        else if (strncmp(a, "--bytes=", 8) == 0 && gdr_parse_bytes(a + 8, &v) == 0 &&
                 v >= (1u << 20) && v <= (16ull << 30))
            c->total = v;
        else if (strncmp(a, "--slots=", 8) == 0 && gdr_parse_uint(a + 8, 1, MAX_SLOTS, &v) == 0)
            c->nslots = (unsigned)v;
        else {
            usage("bad argument");
            return -1;
        }
    }
    return 0;
}

struct gpu {
    const struct gdr_cuda_api *cu;
    CUdevice dev;
    CUdeviceptr dptr;
    uint8_t *ring;
    CUstream stream;
    CUevent ev[MAX_SLOTS];
};

/* Copy `total` bytes between GPU memory and the ring, slot by slot, each
 * slot reused only once its previous copy finished (as staged.c does);
 * returns bytes/s or -1. */
static double ring_copy(struct gpu *g, bool to_host, size_t slot, unsigned nslots,
                        uint64_t total, size_t dev_len)
{
    const struct gdr_cuda_api *cu = g->cu;
    uint64_t units = total / slot;
    uint64_t t0 = gdr_now_ns();
    for (uint64_t u = 0; u < units; u++) {
        unsigned k = (unsigned)(u % nslots);
        if (u >= nslots) {
            CUresult rc;
            while ((rc = cu->cuEventQuery(g->ev[k])) == CUDA_ERROR_NOT_READY)
                ;
            if (gdr_cuda_check(rc, "cuEventQuery"))
                return -1;
        }
        CUdeviceptr d = g->dptr + (u * slot) % (dev_len - dev_len % slot);
        uint8_t *h = g->ring + (size_t)k * slot;
        CUresult rc = to_host ? cu->cuMemcpyDtoHAsync(h, d, slot, g->stream)
                              : cu->cuMemcpyHtoDAsync(d, h, slot, g->stream);
        if (gdr_cuda_check(rc, to_host ? "cuMemcpyDtoHAsync" : "cuMemcpyHtoDAsync") ||
            gdr_cuda_check(cu->cuEventRecord(g->ev[k], g->stream), "cuEventRecord"))
            return -1;
    }
    if (gdr_cuda_check(cu->cuStreamSynchronize(g->stream), "cuStreamSynchronize"))
        return -1;
    return gdr_bandwidth(units * slot, gdr_now_ns() - t0);
}

static int setup(struct gpu *g, const struct check_cfg *c, size_t dev_len, size_t ring_len)
{
    const struct gdr_cuda_api *cu = g->cu;
    char name[128] = "", bus[32] = "";
    int count = 0, dmabuf_attr = -1, gdr_attr = -1;
    CUcontext ctx;
    if (gdr_cuda_check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount"))
        return -1;
    if (c->gpu >= count)
        return gdr_fail(GDR_EXIT_ENV, "--gpu=%d: this host has %d GPU(s)", c->gpu, count);
    if (gdr_cuda_check(cu->cuDeviceGet(&g->dev, c->gpu), "cuDeviceGet") ||
        gdr_cuda_check(cu->cuDevicePrimaryCtxRetain(&ctx, g->dev), "cuDevicePrimaryCtxRetain") ||
        gdr_cuda_check(cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
        return -1;
    cu->cuDeviceGetName(name, sizeof(name), g->dev);
    cu->cuDeviceGetPCIBusId(bus, sizeof(bus), g->dev);
    cu->cuDeviceGetAttribute(&dmabuf_attr, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, g->dev);
    cu->cuDeviceGetAttribute(&gdr_attr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, g->dev);
    printf("driver        CUDA %d.%d (libcuda.so.1 via dlopen)\n", cu->driver_version / 1000,
           cu->driver_version % 1000 / 10);
    printf("gpu           %d: %s at %s (%d GPU(s) visible)\n", c->gpu, name, bus, count);
    printf("attributes    DMA_BUF_SUPPORTED=%d GPU_DIRECT_RDMA_SUPPORTED=%d\n", dmabuf_attr,
           gdr_attr);
    char what[64];
    snprintf(what, sizeof(what), "cuMemAlloc(%zu)", dev_len);
    if (gdr_cuda_check(cu->cuMemAlloc(&g->dptr, dev_len), what))
        return -1;
    printf("cuMemAlloc    %zu bytes at 0x%llx\n", dev_len, (unsigned long long)g->dptr);
    int fd = -1;
    CUresult rc = cu->cuMemGetHandleForAddressRange(&fd, g->dptr, dev_len,
                                                    CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    const char *msg = "";
    if (rc != CUDA_SUCCESS)
        cu->cuGetErrorString(rc, &msg);
    printf("dma-buf       %s%s\n", rc == CUDA_SUCCESS ? "exported (GDR can use dma-buf)" :
           "not available: ", rc == CUDA_SUCCESS ? "" : msg);
    if (fd >= 0)
        close(fd);
    void *ring;
    if (gdr_cuda_check(cu->cuMemHostAlloc(&ring, ring_len, CU_MEMHOSTALLOC_PORTABLE),
                       "cuMemHostAlloc") ||
        gdr_cuda_check(cu->cuStreamCreate(&g->stream, CU_STREAM_DEFAULT), "cuStreamCreate"))
        return -1;
    g->ring = ring;
    for (unsigned i = 0; i < c->nslots; i++)
        if (gdr_cuda_check(cu->cuEventCreate(&g->ev[i], CU_EVENT_DISABLE_TIMING), "cuEventCreate"))
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct check_cfg c;
    int p = parse(argc, argv, &c);
    if (p)
        return p > 0 ? 0 : GDR_EXIT_USAGE;
    static const size_t slots[] = {64u << 10, 256u << 10, 1u << 20, 4u << 20};
    size_t max_slot = slots[sizeof(slots) / sizeof(slots[0]) - 1];
    size_t dev_len = 64u << 20;
    struct gpu g = {0};
    int rc = (g.cu = gdr_cuda_load()) ? setup(&g, &c, dev_len, max_slot * c.nslots) : -1;
    if (!rc) {
        printf("\nstaged copies through %u pinned slots, %llu MiB per measurement\n", c.nslots,
               (unsigned long long)(c.total >> 20));
        printf(" %10s %14s %14s\n", "slot", "D2H [GB/s]", "H2D [GB/s]");
        for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]) && !rc; i++) {
            double d2h = ring_copy(&g, true, slots[i], c.nslots, c.total, dev_len);
            double h2d = d2h < 0 ? -1 : ring_copy(&g, false, slots[i], c.nslots, c.total, dev_len);
            if (d2h < 0 || h2d < 0 || d2h == 0 || h2d == 0)
                rc = gdr_fail(GDR_EXIT_RUN, "staged copy with %zu-byte slots failed", slots[i]);
            else
                printf(" %9zuK %14.2f %14.2f\n", slots[i] >> 10, d2h * 1e-9, h2d * 1e-9);
        }
    }
    if (g.cu) {
        for (unsigned i = 0; i < c.nslots; i++)
            if (g.ev[i])
                g.cu->cuEventDestroy(g.ev[i]);
        if (g.stream)
            g.cu->cuStreamDestroy(g.stream);
        if (g.ring)
            g.cu->cuMemFreeHost(g.ring);
        if (g.dptr)
            g.cu->cuMemFree(g.dptr);
    }
    if (rc) {
        fprintf(stderr, "gdr-gpu-check: %s\n", gdr_error_message());
        return gdr_error_code();
    }
    return 0;
}
