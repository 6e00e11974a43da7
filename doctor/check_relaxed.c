/* check_relaxed: PCIe relaxed ordering on the NICs paired with GPUs. The
 * benchmarks (and NCCL) ask for it on every memory region, rdma-core drops
 * the request silently where the device or kernel lacks it, and mlx5
 * honours it only when the function's Device Control "Enable Relaxed
 * Ordering" bit is set: a GPU-paired NIC with it clear loses bandwidth on
 * hosts whose root complex reorders (AMD, Grace). */
#include "doctor.h"

#include <errno.h>
#include <stdio.h>

int gdr_doctor_check_relaxed(struct gdr_doctor_ctx *ctx)
{
    cJSON *j = cJSON_AddArrayToObject(ctx->facts, "relaxed_ordering");
    if (!j)
        return -ENOMEM;
    for (size_t d = 0; d < ctx->n_ibdevs; d++) {
        bool paired = false;
        for (size_t g = 0; g < ctx->n_gpus; g++)
            paired |= ctx->gpu_nic[g] == (int)d;
        if (!paired || gdr_topo_is_software(ctx->sysfs, ctx->ibdevs[d]))
            continue;
        int ro = gdr_topo_relaxed_ordering(ctx->sysfs, ctx->ibdevs[d]);
        cJSON *jd = cJSON_CreateObject();
        if (!jd)
            return -ENOMEM;
        cJSON_AddItemToArray(j, jd);
        cJSON_AddStringToObject(jd, "rdma_device", ctx->ibdevs[d]);
        if (ro < 0)
            cJSON_AddNullToObject(jd, "enabled");
        else
            cJSON_AddBoolToObject(jd, "enabled", ro);
        if (ro == 1)
            gdr_doctor_add(ctx, "relaxed", ctx->ibdevs[d], GDR_DOCTOR_PASS, NULL,
                           "PCIe relaxed ordering enabled (Device Control)");
        else if (ro == 0) {
            struct gdr_ibdev_info info;
            char fix[160];
            if (gdr_topo_ibdev_info(ctx->sysfs, ctx->ibdevs[d], &info, NULL, 0))
                info.pci_bdf[0] = '\0';
            snprintf(fix, sizeof(fix),
                     "enable it: setpci -s %s CAP_EXP+8.w=0010:0010 (or the BIOS/firmware "
                     "setting); mlx5 ignores IBV_ACCESS_RELAXED_ORDERING until then",
                     info.pci_bdf[0] ? info.pci_bdf : "BDF");
            gdr_doctor_add(ctx, "relaxed", ctx->ibdevs[d], GDR_DOCTOR_WARN, fix,
                           "PCIe relaxed ordering disabled in Device Control: memory regions "
                           "asking for it get strict ordering");
        } else
            gdr_doctor_add(ctx, "relaxed", ctx->ibdevs[d], GDR_DOCTOR_UNKNOWN,
                           "run gdr_doctor as root (config space past 64 bytes)",
                           "PCIe Device Control unreadable");
    }
    return 0;
}
