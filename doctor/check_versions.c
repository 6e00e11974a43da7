/* check_versions: kernel, rdma-core, NVIDIA driver, CUDA driver. */
#include "doctor.h"
#include "live.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int gdr_doctor_check_versions(struct gdr_doctor_ctx *ctx)
{
    const struct gdr_reg_caps *c = &ctx->caps;
    char rdma[128] = "", err[256] = "", cuda[32] = "";
    int cuda_ver = 0, rc;
    cJSON *j = cJSON_AddObjectToObject(ctx->facts, "versions");

    if (!j)
        return -ENOMEM;

    if (c->kernel[0])
        gdr_doctor_add(ctx, "version", "kernel", GDR_DOCTOR_PASS, NULL, "%s", c->kernel);
    else
        gdr_doctor_add(ctx, "version", "kernel", GDR_DOCTOR_UNKNOWN, NULL,
                       "%s/sys/kernel/osrelease unreadable", ctx->procfs);
    cJSON_AddStringToObject(j, "kernel", c->kernel);

    /* The loaded library says nothing about a captured machine. */
    if (ctx->live && gdr_doctor_rdma_core_version(rdma, sizeof(rdma)) == 0)
        gdr_doctor_add(ctx, "version", "rdma-core", GDR_DOCTOR_PASS, NULL, "%s", rdma);
    else if (ctx->live)
        gdr_doctor_add(ctx, "version", "rdma-core", GDR_DOCTOR_UNKNOWN, NULL,
                       "cannot locate the loaded libibverbs");
    else
        gdr_doctor_add(ctx, "version", "rdma-core", GDR_DOCTOR_UNKNOWN, NULL,
                       "not checked: reading a captured tree");
    cJSON_AddStringToObject(j, "rdma_core", rdma);

    if (c->nvidia_version[0])
        gdr_doctor_add(ctx, "version", "nvidia-driver", GDR_DOCTOR_PASS, NULL,
                       "%s (%s kernel module)", c->nvidia_version,
                       c->nvidia_open == 1   ? "open"
                       : c->nvidia_open == 0 ? "proprietary"
                                             : "unknown");
    else if (ctx->n_gpus)
        gdr_doctor_add(ctx, "version", "nvidia-driver", GDR_DOCTOR_FAIL,
                       "install and load the NVIDIA driver (modprobe nvidia)",
                       "NVIDIA driver not loaded: no %s/driver/nvidia/version, no %s/module/nvidia",
                       ctx->procfs, ctx->sysfs);
    else
        gdr_doctor_add(ctx, "version", "nvidia-driver", GDR_DOCTOR_UNKNOWN, NULL, "not present");
    cJSON_AddStringToObject(j, "nvidia_driver", c->nvidia_version);

    if (!ctx->live) {
        gdr_doctor_add(ctx, "version", "cuda-driver", GDR_DOCTOR_UNKNOWN, NULL,
                       "not checked: reading a captured tree");
    } else if ((rc = gdr_doctor_cuda_driver_version(&cuda_ver, err, sizeof(err))) == 0) {
        snprintf(cuda, sizeof(cuda), "%d.%d", cuda_ver / 1000, cuda_ver % 1000 / 10);
        gdr_doctor_add(ctx, "version", "cuda-driver", GDR_DOCTOR_PASS, NULL, "%s (libcuda.so.1)",
                       cuda);
    } else {
        gdr_doctor_add(
            ctx, "version", "cuda-driver", ctx->n_gpus ? GDR_DOCTOR_WARN : GDR_DOCTOR_UNKNOWN,
            ctx->n_gpus ? "install the NVIDIA driver's libcuda.so.1 (CUDA user-mode driver)" : NULL,
            "not present: %s", err);
    }
    if (cuda[0])
        cJSON_AddStringToObject(j, "cuda_driver", cuda);
    else
        cJSON_AddNullToObject(j, "cuda_driver");
    return 0;
}
