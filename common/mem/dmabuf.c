/* dmabuf.c - dma-buf export and registration; see dmabuf.h. */
#include "config.h"

#include "dmabuf.h"
#include "mem.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MLX5DV_DATA_DIRECT
#include <infiniband/mlx5dv.h>
#endif

/* rdma-core 54's mlx5dv.h: enum mlx5dv_reg_dmabuf_access. */
#define GDR_MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT (1 << 0)
#ifdef HAVE_MLX5DV_DATA_DIRECT
_Static_assert(GDR_MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT == MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT,
               "mlx5dv.h's Data Direct access flag");
#endif

/* The two mlx5 Data Direct calls (rdma-core 54, MLX5_1.25), as their man
 * pages declare them. Looked up at run time, as NCCL does, so a build
 * against an older rdma-core still uses them where the host's libmlx5 has
 * them (and a test's stand-in, preloaded, is found first). */
struct mlx5dv_dd {
    int (*sysfs_path)(struct ibv_context *ctx, char *buf, size_t len);
    struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t length,
                                    uint64_t iova, int fd, int access, int mlx5_access);
};

static void *mlx5dv_symbol(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (f)
        return f;
    /* Not linked (a build without mlx5dv): the provider's library, which
     * libibverbs has loaded on an mlx5 host; kept open. */
    void *lib = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? dlsym(lib, name) : NULL;
}

static const struct mlx5dv_dd *mlx5dv_dd(void)
{
    static struct mlx5dv_dd dd;
    static int looked;
    if (!looked) {
        *(void **)&dd.sysfs_path = mlx5dv_symbol("mlx5dv_get_data_direct_sysfs_path");
        *(void **)&dd.reg_dmabuf_mr = mlx5dv_symbol("mlx5dv_reg_dmabuf_mr");
        looked = 1;
    }
    return dd.sysfs_path && dd.reg_dmabuf_mr ? &dd : NULL;
}

int gdr_data_direct_probe(struct ibv_context *ctx, char *path, size_t len, char *why,
                          size_t why_len)
{
    const struct mlx5dv_dd *dd = mlx5dv_dd();
    if (!dd) {
        snprintf(why, why_len,
                 "this host's libmlx5 has no mlx5 Data Direct (rdma-core 54 or later has "
                 "mlx5dv_get_data_direct_sysfs_path and mlx5dv_reg_dmabuf_mr)");
        return -1;
    }
    int rc = dd->sysfs_path(ctx, path, len);
    if (rc == 0)
        return 1;
    /* ENODEV: an mlx5 device without one; EOPNOTSUPP: not mlx5, or a
     * kernel without the query. */
    snprintf(why, why_len, "%s has no Data Direct engine (mlx5dv_get_data_direct_sysfs_path: %s)",
             ibv_get_device_name(ctx->device), strerror(rc));
    return 0;
}

/* Through Data Direct the mlx5 kernel maps the region in KSM mode, which
 * refuses (EOPNOTSUPP) an iova that is not page aligned: 64 KiB pages on
 * Grace. The export starts on a GPU page (64 KiB, at least the kernel's
 * page), so register all of it at its own start and let the buffer sit
 * inside at its offset; the NIC still addresses the buffer by its own
 * address. */
static struct ibv_mr *reg_data_direct(const struct gdr_dmabuf_req *req,
                                      const struct gdr_dmabuf_span *span, int fd)
{
    return mlx5dv_dd()->reg_dmabuf_mr(req->pd, 0, span->length, span->base, fd, req->access,
                                      GDR_MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT);
}

static struct ibv_mr *reg_plain(const struct gdr_dmabuf_req *req,
                                const struct gdr_dmabuf_span *span, int fd)
{
#ifdef HAVE_IBV_REG_DMABUF_MR
    return ibv_reg_dmabuf_mr(req->pd, span->offset, req->len, req->ptr, fd, req->access);
#else
    (void)req, (void)span, (void)fd;
    errno = EOPNOTSUPP;
    return NULL;
#endif
}

/* The error's name: the driver's sentences would crowd out the rest of a
 * one-line message. */
static void cuda_message(const struct gdr_cuda_api *cu, CUresult rc, char *out, size_t len)
{
    const char *name = NULL;
    if (cu->cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        snprintf(out, len, "CUDA error %d", (int)rc);
    else
        snprintf(out, len, "%s", name);
}

static void add_note(struct gdr_dmabuf_reg *reg, const char *text)
{
    size_t used = strlen(reg->note);
    snprintf(reg->note + used, sizeof(reg->note) - used, "%s%s", used ? "; " : "", text);
}

/* Export [span) of the buffer: with the PCIe mapping where asked; under
 * auto, any refusal of it (a driver older than the flag answers
 * CUDA_ERROR_INVALID_VALUE, one on a platform without the second path
 * another error) exports again without it, as NCCL does. */
static int export_range(const struct gdr_dmabuf_req *req, const struct gdr_dmabuf_span *span,
                        struct gdr_dmabuf_reg *reg, char *why, size_t len)
{
    const struct gdr_cuda_api *cu = req->cu;
    char msg[96], text[192];
    unsigned long long flags = req->pcie ? CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE : 0;
    CUresult rc = cu->cuMemGetHandleForAddressRange(&reg->fd, (CUdeviceptr)span->base, span->length,
                                                    CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, flags);
    if (rc == CUDA_SUCCESS) {
        reg->mapping = req->pcie ? "pcie" : "default";
        return 0;
    }
    reg->fd = -1;
    cuda_message(cu, rc, msg, sizeof(msg));
    if (req->pcie && !req->pcie_required) {
        rc = cu->cuMemGetHandleForAddressRange(&reg->fd, (CUdeviceptr)span->base, span->length,
                                               CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
        if (rc == CUDA_SUCCESS) {
            reg->mapping = "default-pcie-refused";
            snprintf(text, sizeof(text),
                     "the CUDA driver refused the dma-buf PCIe mapping (%s); default mapping "
                     "used",
                     msg);
            add_note(reg, text);
            return 0;
        }
        reg->fd = -1;
        char again[96];
        cuda_message(cu, rc, again, sizeof(again));
        snprintf(why, len,
                 "dma-buf export refused by the CUDA driver: %s with the PCIe mapping, %s "
                 "without",
                 msg, again);
        return -1;
    }
    snprintf(why, len, "dma-buf export%s refused by the CUDA driver: %s",
             req->pcie ? " with the PCIe mapping" : "", msg);
    return -1;
}

int gdr_dmabuf_register(const struct gdr_dmabuf_req *req, struct gdr_dmabuf_reg *reg, char *why,
                        size_t len)
{
    const struct gdr_cuda_api *cu = req->cu;
    memset(reg, 0, sizeof(*reg));
    reg->fd = -1;
    reg->mapping = "default";
    if (req->data_direct && !mlx5dv_dd()) {
        snprintf(why, len, "this host's libmlx5 has no mlx5dv_reg_dmabuf_mr (rdma-core 54)");
        return -1;
    }
#ifndef HAVE_IBV_REG_DMABUF_MR
    if (!req->data_direct) {
        snprintf(why, len,
                 "this build's rdma-core has no ibv_reg_dmabuf_mr (rdma-core 34 or "
                 "later has it)");
        return -1;
    }
#endif
    if (!cu->cuMemGetHandleForAddressRange) {
        snprintf(why, len,
                 "the CUDA driver (%s) has no dma-buf export (cuMemGetHandleForAddressRange: "
                 "CUDA 11.7)",
                 gdr_cuda_version_text(cu));
        return -1;
    }
    /* Exports cover whole GPU pages: export from the page holding the
     * buffer's start, and tell the NIC where in the export it begins. */
    struct gdr_dmabuf_span span = gdr_dmabuf_span_of(req->ptr, req->len, GDR_GPU_PAGE);
    if (export_range(req, &span, reg, why, len))
        return -1;
    char dd_error[64] = "";
    if (req->data_direct) {
        reg->mr = reg_data_direct(req, &span, reg->fd);
        if (reg->mr) {
            reg->data_direct = true;
            return 0;
        }
        snprintf(dd_error, sizeof(dd_error), "%s", strerror(errno));
        if (req->data_direct_required) {
            snprintf(why, len, "mlx5dv_reg_dmabuf_mr (Data Direct): %s", dd_error);
            close(reg->fd);
            reg->fd = -1;
            return -1;
        }
    }
    /* Under auto, a Data Direct refusal (an inbox kernel without it, an
     * engine the kernel did not bind) tries the plain registration on the
     * same export before anything else, as NCCL goes on with dma-buf. */
    reg->mr = reg_plain(req, &span, reg->fd);
    if (!reg->mr) {
        int err = errno;
        if (dd_error[0])
            snprintf(why, len,
                     "mlx5dv_reg_dmabuf_mr (Data Direct): %s; ibv_reg_dmabuf_mr on the same "
                     "export: %s",
                     dd_error, strerror(err));
        else
            snprintf(why, len, "ibv_reg_dmabuf_mr: %s", strerror(err));
        close(reg->fd);
        reg->fd = -1;
        return -1;
    }
    if (dd_error[0]) {
        char text[160];
        snprintf(text, sizeof(text),
                 "mlx5dv_reg_dmabuf_mr (Data Direct) refused: %s; ibv_reg_dmabuf_mr used",
                 dd_error);
        add_note(reg, text);
    }
    return 0;
}
