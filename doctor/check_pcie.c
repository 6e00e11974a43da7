/* check_pcie: NIC<->GPU path class per pair and NCCL's GDR decision,
 * Grace's C2C link included (NCCL 2.27+: P2C, NCCL_NET_GDR_C2C). */
#include "doctor.h"
#include "live.h"
#include "pairing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gpu_facts(struct gdr_doctor_ctx *ctx, const struct gdr_topo_pairing *pr)
{
    cJSON *jgpus = cJSON_AddArrayToObject(ctx->facts, "gpus");
    if (!jgpus)
        return -ENOMEM;
    for (size_t g = 0; g < ctx->n_gpus; g++) {
        char rel[128], buf[128] = "";
        cJSON *jg = cJSON_CreateObject();
        if (!jg)
            return -ENOMEM;
        cJSON_AddItemToArray(jgpus, jg);
        cJSON_AddStringToObject(jg, "bdf", ctx->gpus[g]);
        snprintf(rel, sizeof(rel), "bus/pci/devices/%s/numa_node", ctx->gpus[g]);
        gdr_doctor_read_line(ctx->sysfs, rel, buf, sizeof(buf));
        cJSON_AddNumberToObject(jg, "numa_node", buf[0] ? atoi(buf) : -1);
        snprintf(rel, sizeof(rel), "bus/pci/devices/%s/device", ctx->gpus[g]);
        gdr_doctor_read_line(ctx->sysfs, rel, buf, sizeof(buf));
        cJSON_AddStringToObject(jg, "device_id", buf);
        if (pr->nic_of[g] >= 0)
            cJSON_AddStringToObject(jg, "rail_device", ctx->ibdevs[pr->nic_of[g]]);
        else
            cJSON_AddNullToObject(jg, "rail_device");
        if (ctx->gpu_c2c[g] < 0)
            cJSON_AddNullToObject(jg, "c2c");
        else
            cJSON_AddBoolToObject(jg, "c2c", ctx->gpu_c2c[g]);
    }
    return 0;
}

/* Each GPU's C2C link, before any class is judged (gdr_topo_pair_class
 * takes it in). procfs says it for an onlined GPU memory node; CUDA
 * (live) also where the driver keeps that memory to itself. */
static void read_c2c(struct gdr_doctor_ctx *ctx)
{
    for (size_t g = 0; g < ctx->n_gpus; g++) {
        int c2c = gdr_topo_gpu_c2c(ctx->procfs, ctx->gpus[g]);
        if (c2c != 1 && ctx->live) {
            int cuda = gdr_doctor_cuda_gpu_c2c(ctx->gpus[g]);
            c2c = cuda >= 0 ? cuda : c2c;
        }
        ctx->gpu_c2c[g] = c2c;
    }
}

/* Would NCCL use GDR for this pair? With NCCL_NET_GDR_LEVEL unset, NCCL
 * 2.27+ takes P2C as its level when NCCL_NET_GDR_C2C is on. */
static bool used_by_nccl(const struct gdr_doctor_ctx *ctx, enum gdr_path_class c)
{
    if (!strcmp(ctx->level_source, "default"))
        return gdr_nccl_gdr_used_default(c, ctx->gdr_c2c);
    return gdr_nccl_gdr_used(c, ctx->level);
}

/* The WARN for a pair NCCL would not use GDR on, with its fix. */
static int warn_unused(struct gdr_doctor_ctx *ctx, const char *subject, enum gdr_path_class c)
{
    const char *level = gdr_path_class_name(ctx->level);
    if (c == GDR_PATH_P2C && !strcmp(ctx->level_source, "default"))
        return gdr_doctor_add(
            ctx, "path", subject, GDR_DOCTOR_WARN,
            "unset NCCL_NET_GDR_C2C (NCCL 2.27+ uses GDR over C2C by default; 2.26 needs "
            "NCCL_NET_GDR_C2C=1), or set NCCL_NET_GDR_LEVEL=P2C",
            "P2C (GPU on the CPU's C2C link, NIC on its PCIe); NCCL does not use GDR with "
            "NCCL_NET_GDR_C2C=0");
    if (c == GDR_PATH_P2C)
        return gdr_doctor_add(ctx, "path", subject, GDR_DOCTOR_WARN,
                              "unset NCCL_NET_GDR_LEVEL (NCCL 2.27+ then uses GDR over C2C) or "
                              "set it to P2C",
                              "P2C (GPU on the CPU's C2C link, NIC on its PCIe); NCCL does not use "
                              "GDR beyond NCCL_NET_GDR_LEVEL=%s (%s)",
                              level, ctx->level_source);
    return gdr_doctor_add(
        ctx, "path", subject, GDR_DOCTOR_WARN,
        c == GDR_PATH_SYS
            ? "put NIC and GPU on the same socket (ideally one PCIe switch); NCCL_NET_GDR_LEVEL=SYS forces GDR across the socket link, usually slower"
            : "put NIC and GPU under one PCIe switch, or set NCCL_NET_GDR_LEVEL=PHB (traffic then crosses the CPU root complex)",
        "%s; NCCL does not use GDR beyond NCCL_NET_GDR_LEVEL=%s (%s)", gdr_path_class_name(c),
        level, ctx->level_source);
}

int gdr_doctor_check_pcie(struct gdr_doctor_ctx *ctx)
{
    enum gdr_path_class cls[GDR_DOCTOR_MAX_DEVS][GDR_DOCTOR_MAX_DEVS];
    static struct gdr_topo_pairing pr;
    const char *level = gdr_path_class_name(ctx->level);
    cJSON *jpairs;
    read_c2c(ctx);
    /* Each GPU's rail NIC: the nearest with an active port, as
     * gdr-cluster-core rails pairs them (common/topo/pairing.h). */
    gdr_topo_pair(ctx->sysfs, (const char(*)[64])ctx->ibdevs, ctx->n_ibdevs,
                  (const char(*)[GDR_BDF_LEN])ctx->gpus, ctx->gpu_c2c, ctx->n_gpus, &pr);
    int rc = gpu_facts(ctx, &pr);

    if (rc)
        return rc;
    jpairs = cJSON_AddArrayToObject(ctx->facts, "pairs");
    if (!jpairs)
        return -ENOMEM;

    for (size_t g = 0; g < ctx->n_gpus; g++) {
        for (size_t d = 0; d < ctx->n_ibdevs; d++) {
            char err[256] = "";
            if (gdr_topo_pair_class(ctx->sysfs, ctx->ibdevs[d], ctx->gpus[g], ctx->gpu_c2c[g],
                                    &cls[g][d], err, sizeof(err)) != 0)
                gdr_doctor_add(ctx, "path", ctx->ibdevs[d], GDR_DOCTOR_UNKNOWN, NULL, "%s", err);
        }
    }

    for (size_t g = 0; g < ctx->n_gpus; g++) {
        /* NCCL picks the nearest NIC per GPU; judge a pair in that light. */
        int best = pr.nic_of[g];
        bool best_used = best >= 0 && used_by_nccl(ctx, cls[g][best]);
        if (best >= 0)
            ctx->gpu_nic[g] = best;
        bool c2c = ctx->gpu_c2c[g] == 1;

        for (size_t d = 0; d < ctx->n_ibdevs; d++) {
            enum gdr_path_class c = cls[g][d];
            bool used = used_by_nccl(ctx, c);
            /* NCCL on a C2C platform asks for the PCIe mapping where the
             * NIC is reached over PCIe, not through the CPU. */
            bool pcie_mapping = used && c2c && c != GDR_PATH_P2C;
            char subject[96];
            cJSON *jp = cJSON_CreateObject();

            if (!jp)
                return -ENOMEM;
            cJSON_AddItemToArray(jpairs, jp);
            cJSON_AddStringToObject(jp, "rdma_device", ctx->ibdevs[d]);
            cJSON_AddStringToObject(jp, "gpu", ctx->gpus[g]);
            cJSON_AddStringToObject(jp, "path", gdr_path_class_name(c));
            cJSON_AddBoolToObject(jp, "gdr_used", used);
            cJSON_AddStringToObject(jp, "dmabuf_mapping",
                                    !used          ? ""
                                    : pcie_mapping ? "pcie"
                                                   : "default");
            if (c == GDR_PATH_UNKNOWN)
                continue; /* already reported */

            snprintf(subject, sizeof(subject), "%s<->%s", ctx->ibdevs[d], ctx->gpus[g]);
            if (used && c == GDR_PATH_P2C)
                gdr_doctor_add(ctx, "path", subject, GDR_DOCTOR_PASS, NULL,
                               "P2C (GPU on the CPU's C2C link, NIC on its PCIe); NCCL 2.27+ uses "
                               "GDR over C2C (%s)",
                               !strcmp(ctx->level_source, "default")
                                   ? "NCCL_NET_GDR_C2C=1, its default"
                                   : ctx->level_source);
            else if (used)
                gdr_doctor_add(ctx, "path", subject, GDR_DOCTOR_PASS, NULL,
                               "%s; NCCL uses GDR at NCCL_NET_GDR_LEVEL=%s (%s)%s",
                               gdr_path_class_name(c), level, ctx->level_source,
                               pcie_mapping ? "; C2C GPU: NCCL maps its dma-bufs over PCIe "
                                              "(CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE) and "
                                              "flushes through the NIC"
                                            : "");
            else if (best_used)
                gdr_doctor_add(
                    ctx, "path", subject, GDR_DOCTOR_PASS, NULL,
                    "%s; GDR not used for this pair at %s, but NCCL picks nearer %s (%s) for this GPU",
                    gdr_path_class_name(c), level, ctx->ibdevs[best],
                    gdr_path_class_name(cls[g][best]));
            else if (c == GDR_PATH_NONE)
                gdr_doctor_add(
                    ctx, "path", subject, GDR_DOCTOR_FAIL,
                    "use a hardware RDMA NIC for GPUDirect RDMA",
                    "NONE: %s is a software RDMA device, GPU memory cannot be reached over PCIe",
                    ctx->ibdevs[d]);
            else if (ctx->level == GDR_PATH_LOC)
                gdr_doctor_add(ctx, "path", subject, GDR_DOCTOR_WARN,
                               "unset NCCL_NET_GDR_LEVEL or set it to PXB/PHB",
                               "%s; GDR disabled by NCCL_NET_GDR_LEVEL=LOC (%s)",
                               gdr_path_class_name(c), ctx->level_source);
            else
                warn_unused(ctx, subject, c);
        }
    }
    return 0;
}
