/* dmabuf_reg.c - the benchmarks' GPU buffer (common/mem) registered on a
 * host with inbox drivers: dma-buf, and no nvidia_peermem. The verbs here
 * are this program's own, on a device that is not there (no lab needed):
 * ibv_reg_dmabuf_mr registers any export (iova and offset on the same
 * page offset, as the kernel wants), a plain ibv_reg_mr of GPU memory
 * fails with EFAULT (nothing resolves GPU pages). Run under the CUDA
 * double on LD_LIBRARY_PATH, not preloaded (its peermem stand-in stays
 * out), with GDR_CUDASIM_DMABUF=1, and mlx5dv_stub preloaded for Data
 * Direct; exported (-rdynamic) so the stub's dlsym finds these verbs.
 *
 *   dmabuf_reg [--data-direct=auto|on|off] [--mapping=auto|pcie|default]
 *              [--gdr=auto|dmabuf] [--near] [--offset=BYTES]
 *
 * One line: "registration=R mapping=M data_direct=0|1 flush=F mr=IOVA+LEN
 * note=..." and exit 0, or the buffer's error and its exit code.
 * --offset registers a 64 KiB buffer that starts BYTES into a GPU page (as
 * the driver's sub-allocations do) straight through dmabuf.c, Data Direct
 * asked (required with --data-direct=on). */
#include "config.h"

#include "dmabuf.h"
#include "error.h"
#include "mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                 int fd, int access);
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                               int access);
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access);
int ibv_dereg_mr(struct ibv_mr *mr);

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                 int fd, int access)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || length == 0 || (iova ^ offset) % 4096) {
        errno = EINVAL;
        return NULL;
    }
    struct ibv_mr *mr = calloc(1, sizeof(*mr));
    if (!mr) {
        errno = ENOMEM;
        return NULL;
    }
    mr->pd = pd;
    mr->context = pd->context;
    mr->addr = (void *)(uintptr_t)iova;
    mr->length = length;
    mr->lkey = mr->rkey = 0x1234 | (uint32_t)(access & 0xff) << 16;
    return mr;
}

/* No nvidia_peermem: the kernel cannot pin GPU pages. */
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    (void)pd, (void)addr, (void)length, (void)access;
    errno = EFAULT;
    return NULL;
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                               int access)
{
    (void)iova;
    return ibv_reg_mr(pd, addr, length, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    (void)iova;
    return ibv_reg_mr(pd, addr, length, (int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    free(mr);
    return 0;
}

static int near_answer;

static int shares_switch(const char *gpu_bus_id, void *arg)
{
    (void)gpu_bus_id, (void)arg;
    return near_answer;
}

static int choice(const char *arg, const char *opt, const char *const *names, int n, int *out)
{
    size_t len = strlen(opt);
    if (strncmp(arg, opt, len) || arg[len] != '=')
        return 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(arg + len + 1, names[i])) {
            *out = i;
            return 1;
        }
    fprintf(stderr, "dmabuf_reg: %s: unknown value\n", arg);
    exit(2);
}

/* A buffer BYTES into a GPU page, through dmabuf.c itself. */
static int offset_buffer(struct ibv_pd *pd, uint64_t offset, bool dd_on)
{
    const struct gdr_cuda_api *cu = gdr_cuda_load();
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr p;
    if (!cu || gdr_cuda_check(cu->cuDeviceGet(&dev, 0), "cuDeviceGet") ||
        gdr_cuda_check(cu->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
        gdr_cuda_check(cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent") ||
        gdr_cuda_check(cu->cuMemAlloc(&p, 4 * GDR_GPU_PAGE), "cuMemAlloc")) {
        printf("dmabuf_reg: %s\n", gdr_error_message());
        return gdr_error_code();
    }
    struct gdr_dmabuf_req req = {.cu = cu,
                                 .ptr = p + offset,
                                 .len = GDR_GPU_PAGE,
                                 .pd = pd,
                                 .access = gdr_mr_access(true),
                                 .data_direct = true,
                                 .data_direct_required = dd_on};
    struct gdr_dmabuf_reg reg;
    char why[256];
    int rc = 0;
    if (gdr_dmabuf_register(&req, &reg, why, sizeof(why))) {
        printf("dmabuf_reg: %s\n", why);
        rc = 3;
    } else {
        uint64_t at = (uintptr_t)reg.mr->addr;
        printf("registration=dmabuf mapping=%s data_direct=%d buffer=%#" PRIx64 "+%#zx mr=%#" PRIx64
               "+%#zx covers=%d note=%s\n",
               reg.mapping, reg.data_direct, (uint64_t)req.ptr, req.len, at, reg.mr->length,
               at <= req.ptr && req.ptr + req.len <= at + reg.mr->length, reg.note);
        ibv_dereg_mr(reg.mr);
        close(reg.fd);
    }
    cu->cuMemFree(p);
    cu->cuDevicePrimaryCtxRelease(dev);
    return rc;
}

int main(int argc, char **argv)
{
    struct gdr_mem_spec spec = {.cuda = true, .cuda_index = 0, .relaxed_ordering = true};
    static const char *const dds[] = {"auto", "on", "off"};
    static const char *const maps[] = {"auto", "pcie", "default"};
    static const char *const modes[] = {"auto", "dmabuf"};
    long long offset = -1;
    for (int i = 1; i < argc; i++) {
        int v;
        if (choice(argv[i], "--data-direct", dds, 3, &v))
            spec.data_direct = (enum gdr_data_direct)v;
        else if (choice(argv[i], "--mapping", maps, 3, &v))
            spec.mapping = (enum gdr_dmabuf_mapping)v;
        else if (choice(argv[i], "--gdr", modes, 2, &v))
            spec.gdr = v ? GDR_MODE_DMABUF : GDR_MODE_AUTO;
        else if (!strcmp(argv[i], "--near"))
            near_answer = 1;
        else if (!strncmp(argv[i], "--offset=", 9))
            offset = strtoll(argv[i] + 9, NULL, 0);
        else {
            fprintf(stderr, "usage: dmabuf_reg [--data-direct=auto|on|off] "
                            "[--mapping=auto|pcie|default] [--gdr=auto|dmabuf] [--near] "
                            "[--offset=BYTES]\n");
            return 2;
        }
    }
    spec.nic_shares_switch = shares_switch;
    /* A device that is not there: only its name is ever read. */
    struct ibv_device dev;
    memset(&dev, 0, sizeof(dev));
    snprintf(dev.name, sizeof(dev.name), "mlx5_0");
    struct ibv_context ctx = {.device = &dev};
    struct ibv_pd pd = {.context = &ctx};
    if (offset >= 0)
        return offset_buffer(&pd, (uint64_t)offset, spec.data_direct == GDR_DD_ON);

    struct gdr_buffer b;
    if (gdr_buffer_create(&b, &spec, &pd, 64 << 10, 0, 0)) {
        printf("dmabuf_reg: %s\n", gdr_error_message());
        return gdr_error_code();
    }
    printf("registration=%s mapping=%s data_direct=%d flush=%s mr=%#" PRIx64 "+%#zx note=%s\n",
           b.registration, b.dmabuf_mapping, b.data_direct, b.writes_flush,
           (uint64_t)(uintptr_t)b.mr->addr, b.mr->length, b.reg_note);
    gdr_buffer_destroy(&b);
    return 0;
}
