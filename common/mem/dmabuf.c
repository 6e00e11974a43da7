/* dmabuf.c - dma-buf export and registration; see dmabuf.h. */
#include "config.h"

#include "dmabuf.h"
#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MLX5DV_DATA_DIRECT
#include <infiniband/mlx5dv.h>
#endif

int gdr_data_direct_probe(struct ibv_context *ctx, char *path, size_t len, char *why,
                          size_t why_len)
{
#ifdef HAVE_MLX5DV_DATA_DIRECT
    int rc = mlx5dv_get_data_direct_sysfs_path(ctx, path, len);
    if (rc == 0)
        return 1;
    /* ENODEV: an mlx5 device without one; EOPNOTSUPP: not mlx5, or a
     * kernel without the query. */
    snprintf(why, why_len, "%s has no Data Direct engine (mlx5dv_get_data_direct_sysfs_path: %s)",
             ibv_get_device_name(ctx->device), strerror(rc));
    return 0;
#else
    (void)ctx, (void)path, (void)len;
    snprintf(why, why_len,
             "this build has no mlx5 Data Direct (rdma-core 54 or later with mlx5dv has "
             "mlx5dv_get_data_direct_sysfs_path)");
    return -1;
#endif
}

static struct ibv_mr *reg_mr(const struct gdr_dmabuf_req *req, uint64_t offset, int fd)
{
#ifdef HAVE_MLX5DV_DATA_DIRECT
    if (req->data_direct)
        return mlx5dv_reg_dmabuf_mr(req->pd, offset, req->len, req->ptr, fd, req->access,
                                    MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT);
#endif
#ifdef HAVE_IBV_REG_DMABUF_MR
    return ibv_reg_dmabuf_mr(req->pd, offset, req->len, req->ptr, fd, req->access);
#else
    (void)req, (void)offset, (void)fd;
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

int gdr_dmabuf_register(const struct gdr_dmabuf_req *req, struct gdr_dmabuf_reg *reg, char *why,
                        size_t len)
{
    const struct gdr_cuda_api *cu = req->cu;
    char msg[128];
    reg->mr = NULL;
    reg->fd = -1;
    reg->mapping = "default";
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
    unsigned long long flags = req->pcie ? CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE : 0;
    CUresult rc = cu->cuMemGetHandleForAddressRange(&reg->fd, (CUdeviceptr)span.base, span.length,
                                                    CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, flags);
    if (rc == CUDA_ERROR_INVALID_VALUE && req->pcie && !req->pcie_required) {
        /* A driver that predates the flag: auto does without it. */
        reg->fd = -1;
        rc = cu->cuMemGetHandleForAddressRange(&reg->fd, (CUdeviceptr)span.base, span.length,
                                               CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
        reg->mapping = "default-pcie-refused";
    } else if (req->pcie) {
        reg->mapping = "pcie";
    }
    if (rc != CUDA_SUCCESS) {
        cuda_message(cu, rc, msg, sizeof(msg));
        snprintf(why, len, "dma-buf export%s refused by the CUDA driver: %s",
                 req->pcie && !strcmp(reg->mapping, "pcie") ? " with the PCIe mapping" : "", msg);
        reg->fd = -1;
        return -1;
    }
    reg->mr = reg_mr(req, span.offset, reg->fd);
    if (!reg->mr) {
        snprintf(why, len, "%s: %s",
                 req->data_direct ? "mlx5dv_reg_dmabuf_mr (Data Direct)" : "ibv_reg_dmabuf_mr",
                 strerror(errno));
        close(reg->fd);
        reg->fd = -1;
        return -1;
    }
    return 0;
}
