/* dmabuf.h - GPU memory to the NIC by dma-buf: the export (with the PCIe
 * mapping type when asked for, and without it where auto asked and the
 * driver refused the flag), and the registration: mlx5dv_reg_dmabuf_mr
 * through the device's Data Direct engine where asked, else (or, under
 * auto, when Data Direct refuses) ibv_reg_dmabuf_mr on the same export.
 * The mlx5 Data Direct calls are looked up at run time (rdma-core 54's
 * libmlx5), so one build uses them wherever the library has them.
 * Internal to mem/. */
#ifndef GDR_DMABUF_H
#define GDR_DMABUF_H

#include <stdbool.h>
#include <stddef.h>

#include <infiniband/verbs.h>

#include "cuda_api.h"

struct gdr_dmabuf_req {
    const struct gdr_cuda_api *cu;
    CUdeviceptr ptr; /* the buffer (the NIC addresses it by this iova) */
    size_t len;
    struct ibv_pd *pd;
    int access;
    bool pcie;                 /* ask for CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE */
    bool pcie_required;        /* --dmabuf-mapping=pcie: no second try without it */
    bool data_direct;          /* register through mlx5 Data Direct */
    bool data_direct_required; /* --data-direct=on: no plain registration after */
};

struct gdr_dmabuf_reg {
    struct ibv_mr *mr;
    int fd;              /* the export, kept open while registered */
    const char *mapping; /* "pcie", "default", "default-pcie-refused" */
    bool data_direct;    /* registered through Data Direct */
    char note[192];      /* what was refused on the way, "" when nothing */
};

/* Export and register. 0 with reg filled, or -1 with why the export or
 * the registration failed in why (nothing recorded: the caller decides
 * whether peermem is tried next). */
int gdr_dmabuf_register(const struct gdr_dmabuf_req *req, struct gdr_dmabuf_reg *reg, char *why,
                        size_t len);

/* Does ctx's device have an mlx5 Data Direct engine? 1 yes (its sysfs
 * path, under /sys, in path), 0 no, -1 the process's libmlx5 cannot tell
 * (no mlx5dv_get_data_direct_sysfs_path or mlx5dv_reg_dmabuf_mr: rdma-core
 * before 54); why says what was found. */
int gdr_data_direct_probe(struct ibv_context *ctx, char *path, size_t len, char *why,
                          size_t why_len);

#endif
