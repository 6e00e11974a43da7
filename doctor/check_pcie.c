/* check_pcie: NIC<->GPU path class per pair and NCCL's GDR decision. */
#include "doctor.h"
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
    }
    return 0;
}

int gdr_doctor_check_pcie(struct gdr_doctor_ctx *ctx)
{
    enum gdr_path_class cls[GDR_DOCTOR_MAX_DEVS][GDR_DOCTOR_MAX_DEVS];
    static struct gdr_topo_pairing pr;
    const char *level = gdr_path_class_name(ctx->level);
    cJSON *jpairs;
    /* Each GPU's rail NIC: the nearest with an active port, as
     * gdr-cluster-core rails pairs them (common/topo/pairing.h). */
    gdr_topo_pair(ctx->sysfs, (const char(*)[64])ctx->ibdevs, ctx->n_ibdevs,
                  (const char(*)[GDR_BDF_LEN])ctx->gpus, ctx->n_gpus, &pr);
    int rc = gpu_facts(ctx, &pr);

    if (rc)
        return rc;
    jpairs = cJSON_AddArrayToObject(ctx->facts, "pairs");
    if (!jpairs)
        return -ENOMEM;

    for (size_t g = 0; g < ctx->n_gpus; g++) {
        for (size_t d = 0; d < ctx->n_ibdevs; d++) {
            char err[256] = "";
            cls[g][d] = GDR_PATH_UNKNOWN;
            if (gdr_topo_path_class(ctx->sysfs, ctx->ibdevs[d], ctx->gpus[g], &cls[g][d], err,
                                    sizeof(err)) != 0)
                gdr_doctor_add(ctx, "path", ctx->ibdevs[d], GDR_DOCTOR_UNKNOWN, NULL, "%s", err);
        }
    }

    for (size_t g = 0; g < ctx->n_gpus; g++) {
        /* NCCL picks the nearest NIC per GPU; judge a pair in that light. */
        int best = pr.nic_of[g];
        bool best_used = best >= 0 && gdr_nccl_gdr_used(cls[g][best], ctx->level);

        for (size_t d = 0; d < ctx->n_ibdevs; d++) {
            enum gdr_path_class c = cls[g][d];
            bool used = gdr_nccl_gdr_used(c, ctx->level);
            char subject[96];
            cJSON *jp = cJSON_CreateObject();

            if (!jp)
                return -ENOMEM;
            cJSON_AddItemToArray(jpairs, jp);
            cJSON_AddStringToObject(jp, "rdma_device", ctx->ibdevs[d]);
            cJSON_AddStringToObject(jp, "gpu", ctx->gpus[g]);
            cJSON_AddStringToObject(jp, "path", gdr_path_class_name(c));
            cJSON_AddBoolToObject(jp, "gdr_used", used);
            if (c == GDR_PATH_UNKNOWN)
                continue; /* already reported */

            snprintf(subject, sizeof(subject), "%s<->%s", ctx->ibdevs[d], ctx->gpus[g]);
            if (used)
                gdr_doctor_add(ctx, "path", subject, GDR_DOCTOR_PASS, NULL,
                               "%s; NCCL uses GDR at NCCL_NET_GDR_LEVEL=%s (%s)",
                               gdr_path_class_name(c), level, ctx->level_source);
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
                gdr_doctor_add(
                    ctx, "path", subject, GDR_DOCTOR_WARN,
                    c == GDR_PATH_SYS
                        ? "put NIC and GPU on the same socket (ideally one PCIe switch); NCCL_NET_GDR_LEVEL=SYS forces GDR across the socket link, usually slower"
                        : "put NIC and GPU under one PCIe switch, or set NCCL_NET_GDR_LEVEL=PHB (traffic then crosses the CPU root complex)",
                    "%s; NCCL does not use GDR beyond NCCL_NET_GDR_LEVEL=%s (%s)",
                    gdr_path_class_name(c), level, ctx->level_source);
        }
    }
    return 0;
}
