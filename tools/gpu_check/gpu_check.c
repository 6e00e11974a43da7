/* gdr-gpu-check - what only a real GPU can show, without an RDMA NIC:
 * the driver loads from the same dlopen path the benchmarks use, device
 * memory allocates (with SYNC_MEMOPS, as the benchmarks set it), a dma-buf
 * handle exports (the GDR-on path of --gdr=auto), the GPUDirect RDMA
 * write-ordering attributes and flush answer, what NCCL's allocations and
 * GB200 need (the VMM attributes, a VMM allocation's dma-buf export, the
 * PCIe dma-buf mapping flag, the C2C attributes), and per slot size: plain
 * pinned cuMemcpy, the staged path's copies (--gdr=off) through a pipelined
 * ring of pinned bounce slots, D2H and H2D, and (--staged=FILE) the
 * benchmarks' staged bandwidth measured over soft-RoCE by ci/gpu-check.
 * ci/gpu-check builds and runs it on a GPU machine. */
#include "config.h"

#include "cuda_api.h"
#include "error.h"
#include "gpu_alloc.h"
#include "parse.h"
#include "sizes.h"
#include "clock.h"
#include "stats.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "gdr-gpu-check" /* in usage errors */
#define MAX_SLOTS 64

#define NSIZES 4
static const size_t slot_sizes[NSIZES] = {64u << 10, 256u << 10, 1u << 20, 4u << 20};

/* Benchmarks whose staged bandwidth --staged may report, per slot size. */
#define NBENCH 2
static const char *const bench_names[NBENCH] = {"write_bw", "send_bw"};

struct check_cfg {
    int gpu;
    uint64_t total; /* bytes copied per measurement */
    unsigned nslots;
    const char *staged; /* results of the soft-RoCE runs, or NULL */
};

static int parse(int argc, char **argv, struct check_cfg *c)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"bytes", required_argument, NULL, 'b'},
        {"slots", required_argument, NULL, 's'},
        {"staged", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    c->gpu = 0;
    c->total = 256ull << 20;
    c->nslots = 8;
    c->staged = NULL;
    opterr = 0; /* one message, gdr_usage_error's */
    int o;
    uint64_t v;
    while ((o = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (o) {
        case 'g':
            if (gdr_parse_uint(optarg, 0, 1023, &v))
                return -gdr_usage_error(PROG, "--gpu '%s': want a GPU index from 0 to 1023",
                                        optarg);
            c->gpu = (int)v;
            break;
        case 'b':
            if (gdr_parse_bytes(optarg, &v) || v < (1u << 20) || v > (16ull << 30))
                return -gdr_usage_error(PROG, "--bytes '%s': want a size from 1M to 16G", optarg);
            c->total = v;
            break;
        case 's':
            if (gdr_parse_uint(optarg, 1, MAX_SLOTS, &v))
                return -gdr_usage_error(PROG, "--slots '%s': want 1 to %d", optarg, MAX_SLOTS);
            c->nslots = (unsigned)v;
            break;
        case 'S':
            if (!*optarg)
                return -gdr_usage_error(PROG, "--staged wants a file");
            c->staged = optarg;
            break;
        case 'h':
            printf("Usage: gdr-gpu-check [--gpu=N] [--bytes=SIZE] [--slots=N] [--staged=FILE]\n"
                   "Loads libcuda.so.1, allocates GPU memory, tries a dma-buf export, reads\n"
                   "the GPUDirect RDMA write-ordering attributes and measures, per slot size,\n"
                   "plain pinned cuMemcpy and staged copies through a ring of N pinned slots\n"
                   "(D2H, H2D).\n"
                   "  --gpu=N        GPU index (default 0)\n"
                   "  --bytes=SIZE   bytes per measurement, 1M..16G (default 256M)\n"
                   "  --slots=N      pinned slots in the ring, 1..64 (default 8)\n"
                   "  --staged=FILE  lines 'TEST SLOT_BYTES BYTES_PER_S' (write_bw, send_bw;\n"
                   "                 0 = failed) from the benchmarks' staged runs over\n"
                   "                 soft-RoCE, shown beside the copies\n"
                   "  --help, --version\n"
                   "Exit: 0 ok, 1 a step failed, 2 usage, 3 no driver or GPU.\n");
            return 1;
        case 'V': gdr_print_version(PROG); return 1;
        default:
            return -gdr_usage_error(PROG, "unknown option or missing value: '%s'",
                                    argv[optind - 1]);
        }
    }
    if (optind < argc)
        return -gdr_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
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
static double ring_copy(struct gpu *g, bool to_host, size_t slot, unsigned nslots, uint64_t total,
                        size_t dev_len)
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

/* Plain synchronous cuMemcpy of `slot` bytes at a time between GPU memory
 * and pinned host memory, `total` bytes in all: the copy engines' rate
 * without any pipelining; returns bytes/s or -1. */
static double pinned_copy(struct gpu *g, bool to_host, size_t slot, uint64_t total, size_t dev_len)
{
    const struct gdr_cuda_api *cu = g->cu;
    uint64_t units = total / slot;
    uint64_t t0 = gdr_now_ns();
    for (uint64_t u = 0; u < units; u++) {
        CUdeviceptr d = g->dptr + (u * slot) % (dev_len - dev_len % slot);
        CUresult rc =
            to_host ? cu->cuMemcpyDtoH(g->ring, d, slot) : cu->cuMemcpyHtoD(d, g->ring, slot);
        if (gdr_cuda_check(rc, to_host ? "cuMemcpyDtoH" : "cuMemcpyHtoD"))
            return -1;
    }
    return gdr_bandwidth(units * slot, gdr_now_ns() - t0);
}

/* --staged FILE: bw[bench][size] in bytes/s; -1 not measured, 0 failed. */
static int read_staged(const char *path, double bw[NBENCH][NSIZES])
{
    for (int b = 0; b < NBENCH; b++)
        for (int i = 0; i < NSIZES; i++)
            bw[b][i] = -1;
    if (!path)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "--staged '%s': %s", path, strerror(errno));
    char line[256], name[32];
    unsigned long long slot;
    double rate;
    int rc = 0, n = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        n++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%31s %llu %lf", name, &slot, &rate) != 3 || rate < 0) {
            rc = gdr_fail(GDR_EXIT_USAGE,
                          "--staged %s line %d: expected 'TEST SLOT_BYTES "
                          "BYTES_PER_S'",
                          path, n);
            break;
        }
        int b = -1, i = -1;
        for (int k = 0; k < NBENCH; k++)
            if (strcmp(name, bench_names[k]) == 0)
                b = k;
        for (int k = 0; k < NSIZES; k++)
            if (slot == slot_sizes[k])
                i = k;
        if (b < 0 || i < 0)
            rc = gdr_fail(GDR_EXIT_USAGE, "--staged %s line %d: unknown test '%s' or slot %llu",
                          path, n, name, slot);
        else
            bw[b][i] = rate;
    }
    fclose(f);
    return rc;
}

static void print_rate(double bps)
{
    if (bps < 0)
        printf(" %10s", "-");
    else if (bps == 0)
        printf(" %10s", "failed");
    else
        printf(" %10.2f", bps * 1e-9);
}

/* What a NIC writing this GPU's memory directly would need: gdrbench
 * flushes before reading when ordering is NONE and the flush exists. */
static int write_ordering(struct gpu *g)
{
    const struct gdr_cuda_api *cu = g->cu;
    int ordering = -1, options = -1;
    cu->cuDeviceGetAttribute(&ordering, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
                             g->dev);
    cu->cuDeviceGetAttribute(&options, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
                             g->dev);
    if (!cu->cuFlushGPUDirectRDMAWrites) {
        printf("rdma writes   ORDERING=%d FLUSH_OPTIONS=0x%x; cuFlushGPUDirectRDMAWrites: not in "
               "this driver (CUDA 11.3)\n",
               ordering, (unsigned)options);
        return 0;
    }
    CUresult rc = cu->cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                                 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
    const char *msg = "";
    if (rc != CUDA_SUCCESS)
        cu->cuGetErrorString(rc, &msg);
    printf("rdma writes   ORDERING=%d (0 none, 100 owner, 200 all devices) FLUSH_OPTIONS=0x%x; "
           "cuFlushGPUDirectRDMAWrites: %s%s\n",
           ordering, (unsigned)options, rc == CUDA_SUCCESS ? "ok" : "", msg);
    /* The flush must work exactly where the options say it does. */
    bool expect_ok = options > 0 && (options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
    if (expect_ok != (rc == CUDA_SUCCESS))
        return gdr_fail(GDR_EXIT_RUN,
                        "cuFlushGPUDirectRDMAWrites returned %d with flush options "
                        "0x%x",
                        (int)rc, (unsigned)options);
    return 0;
}

/* "exported" or the driver's refusal, for one dma-buf export of [p, p+len). */
static const char *export_answer(const struct gdr_cuda_api *cu, CUdeviceptr p, size_t len,
                                 unsigned long long flags, char *buf, size_t buflen)
{
    if (!cu->cuMemGetHandleForAddressRange)
        return "no cuMemGetHandleForAddressRange in this driver (CUDA 11.7)";
    int fd = -1;
    CUresult rc =
        cu->cuMemGetHandleForAddressRange(&fd, p, len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, flags);
    if (fd >= 0)
        close(fd);
    if (rc == CUDA_SUCCESS)
        return "exported";
    const char *msg = NULL;
    if (cu->cuGetErrorString(rc, &msg) != CUDA_SUCCESS || !msg)
        msg = "unknown error";
    snprintf(buf, buflen, "refused: %s (CUDA error %d)", msg, (int)rc);
    return buf;
}

static int attribute(struct gpu *g, CUdevice_attribute a)
{
    int v = -1;
    return g->cu->cuDeviceGetAttribute(&v, a, g->dev) == CUDA_SUCCESS ? v : -1;
}

/* What NCCL's allocations and a GB200 rely on: the VMM attributes, whether
 * a VMM allocation (as --gpu-alloc=vmm makes it) exports a dma-buf, whether
 * the driver takes the PCIe mapping flag, and the C2C attributes. Facts,
 * not failures: a GPU without them still runs the rest. */
static void gb200_facts(struct gpu *g, size_t dev_len)
{
    const struct gdr_cuda_api *cu = g->cu;
    char buf[160], bus[32] = "";
    int vmm = attribute(g, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
    int vmm_rdma = attribute(g, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED);
    printf("vmm           VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=%d "
           "GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED=%d\n",
           vmm, vmm_rdma);
    cu->cuDeviceGetPCIBusId(bus, sizeof(bus), g->dev);
    struct gdr_gpu_mem m;
    if (gdr_gpu_mem_alloc(cu, g->dev, bus, GDR_ALLOC_VMM, vmm_rdma == 1, 4u << 20, &m) == 0) {
        printf("vmm alloc     %zu bytes at 0x%llx%s; dma-buf: %s\n", m.size,
               (unsigned long long)m.ptr, m.rdma ? ", gpuDirectRDMACapable" : "",
               export_answer(cu, m.ptr, m.size, 0, buf, sizeof(buf)));
    } else {
        printf("vmm alloc     failed: %s\n", gdr_error_message());
        gdr_error_clear();
    }
    gdr_gpu_mem_free(cu, &m);
    printf("pcie mapping  CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE: %s\n",
           export_answer(cu, g->dptr, dev_len, CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE, buf,
                         sizeof(buf)));
    printf("c2c           HOST_NATIVE_ATOMIC_SUPPORTED=%d NUMA_CONFIG=%d (1: GPU memory is a "
           "NUMA node) -> %s\n",
           attribute(g, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED),
           attribute(g, CU_DEVICE_ATTRIBUTE_NUMA_CONFIG),
           gdr_gpu_c2c(cu, g->dev) ? "C2C (Grace)" : "PCIe");
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
    unsigned one = 1;
    if (gdr_cuda_check(cu->cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, g->dptr),
                       "cuPointerSetAttribute(SYNC_MEMOPS)") ||
        write_ordering(g))
        return -1;
    int fd = -1;
    CUresult rc = cu->cuMemGetHandleForAddressRange
                      ? cu->cuMemGetHandleForAddressRange(&fd, g->dptr, dev_len,
                                                          CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0)
                      : CUDA_ERROR_NOT_SUPPORTED;
    const char *msg = "";
    if (rc != CUDA_SUCCESS)
        cu->cuGetErrorString(rc, &msg);
    printf("dma-buf       %s%s\n",
           rc == CUDA_SUCCESS ? "exported (GDR can use dma-buf)" : "not available: ",
           rc == CUDA_SUCCESS ? "" : msg);
    if (fd >= 0)
        close(fd);
    gb200_facts(g, dev_len);
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
    size_t max_slot = slot_sizes[NSIZES - 1];
    size_t dev_len = 64u << 20;
    double staged[NBENCH][NSIZES];
    if (read_staged(c.staged, staged)) {
        fprintf(stderr, "gdr-gpu-check: %s\n", gdr_error_message());
        return gdr_error_code();
    }
    struct gpu g = {0};
    int rc = (g.cu = gdr_cuda_load()) ? setup(&g, &c, dev_len, max_slot * c.nslots) : -1;
    if (!rc) {
        printf(
            "\nper slot size, GB/s: plain cuMemcpy to/from pinned memory; staged copies through\n"
            "%u pinned slots (%llu MiB per measurement); benchmarks --gdr=off over soft-RoCE\n",
            c.nslots, (unsigned long long)(c.total >> 20));
        printf(" %10s %10s %10s %10s %10s %10s %10s\n", "slot", "pinned-D2H", "pinned-H2D",
               "ring-D2H", "ring-H2D", "write_bw", "send_bw");
        for (size_t i = 0; i < NSIZES && !rc; i++) {
            size_t slot = slot_sizes[i];
            double pd = pinned_copy(&g, true, slot, c.total, dev_len);
            double ph = pd <= 0 ? -1 : pinned_copy(&g, false, slot, c.total, dev_len);
            double d2h = ph <= 0 ? -1 : ring_copy(&g, true, slot, c.nslots, c.total, dev_len);
            double h2d = d2h <= 0 ? -1 : ring_copy(&g, false, slot, c.nslots, c.total, dev_len);
            if (pd <= 0 || ph <= 0 || d2h <= 0 || h2d <= 0) {
                rc = gdr_fail(GDR_EXIT_RUN, "copies with %zu-byte slots failed", slot);
                break;
            }
            printf(" %9zuK %10.2f %10.2f %10.2f %10.2f", slot >> 10, pd * 1e-9, ph * 1e-9,
                   d2h * 1e-9, h2d * 1e-9);
            for (int b = 0; b < NBENCH; b++)
                print_rate(staged[b][i]);
            printf("\n");
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
