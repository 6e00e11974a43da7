/* check_reg: can GPU memory be registered with the NIC (peermem, dma-buf)?
 * dma-buf is judged per RDMA device, for the devices NCCL pairs with a GPU:
 * an old NIC beside the ConnectX (mlx4, an old irdma) says nothing about
 * the pairs that use the ConnectX. */
#include "doctor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static cJSON *tri(int v)
{
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v);
}

/* The GPUs device d is paired with, "0000:03:00.0 0000:04:00.0"; "" none. */
static void paired_gpus(const struct gdr_doctor_ctx *ctx, size_t d, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t g = 0; g < ctx->n_gpus; g++)
        if (ctx->gpu_nic[g] == (int)d)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", ctx->gpus[g]);
}

/* Per device facts; the aggregate over paired devices (1 all take dma-buf,
 * 0 one does not, -1 unknown) into ctx->verbs_dmabuf; *some_ok: a paired
 * device may take dma-buf (or none is paired). */
static int device_facts(struct gdr_doctor_ctx *ctx, cJSON *j, bool *some_ok)
{
    cJSON *devs = cJSON_AddArrayToObject(j, "devices");
    int all = 1;
    bool any = false;
    *some_ok = false;
    if (!devs)
        return -ENOMEM;
    for (size_t d = 0; d < ctx->n_ibdevs; d++) {
        char gpus[GDR_DOCTOR_MAX_DEVS * GDR_BDF_LEN];
        cJSON *jd = cJSON_CreateObject();
        if (!jd)
            return -ENOMEM;
        cJSON_AddItemToArray(devs, jd);
        paired_gpus(ctx, d, gpus, sizeof(gpus));
        cJSON_AddStringToObject(jd, "rdma_device", ctx->ibdevs[d]);
        cJSON_AddItemToObject(jd, "dmabuf", tri(ctx->dev_dmabuf[d]));
        cJSON_AddStringToObject(jd, "paired_gpus", gpus);
        if (!gpus[0] || gdr_topo_is_software(ctx->sysfs, ctx->ibdevs[d]))
            continue;
        any = true;
        *some_ok |= ctx->dev_dmabuf[d] != 0;
        if (ctx->dev_dmabuf[d] == 0)
            all = 0;
        else if (ctx->dev_dmabuf[d] < 0 && all == 1)
            all = -1;
    }
    ctx->verbs_dmabuf = any ? all : -1;
    *some_ok |= !any;
    return 0;
}

/* A GPU-paired device that takes no dma-buf: its GPUs cannot use GDR
 * through it without peermem. */
static void device_verdicts(struct gdr_doctor_ctx *ctx)
{
    for (size_t d = 0; d < ctx->n_ibdevs; d++) {
        char gpus[GDR_DOCTOR_MAX_DEVS * GDR_BDF_LEN];
        paired_gpus(ctx, d, gpus, sizeof(gpus));
        if (!gpus[0] || ctx->dev_dmabuf[d] != 0)
            continue;
        gdr_doctor_add(ctx, "registration", ctx->ibdevs[d], GDR_DOCTOR_FAIL,
                       "modprobe nvidia_peermem, or pair the GPU with a NIC whose driver takes "
                       "dma-buf (mlx5)",
                       "%s takes no dma-buf registrations (%s); GPU %s, paired with it, cannot "
                       "use GDR through it without nvidia_peermem",
                       ctx->ibdevs[d],
                       ctx->live ? "its provider answers EOPNOTSUPP" : "its kernel driver has none",
                       gpus);
    }
}

int gdr_doctor_check_registration(struct gdr_doctor_ctx *ctx)
{
    const struct gdr_reg_caps *c = &ctx->caps;
    char why[256] = "";
    cJSON *j = cJSON_AddObjectToObject(ctx->facts, "registration");

    bool some_ok;
    if (!j || device_facts(ctx, j, &some_ok))
        return -ENOMEM;
    /* Possible for the host when one GPU-paired device takes it; those
     * that do not are FAILed on their own (device_verdicts). */
    bool dmabuf = gdr_reg_caps_dmabuf(c) && some_ok;
    cJSON_AddItemToObject(j, "peermem", tri(c->peermem));
    cJSON_AddItemToObject(j, "kernel_dmabuf", tri(c->kernel_dmabuf));
    cJSON_AddItemToObject(j, "nvidia_open_module", tri(c->nvidia_open));
    cJSON_AddItemToObject(j, "verbs_dmabuf", tri(ctx->verbs_dmabuf));
    cJSON_AddBoolToObject(j, "dmabuf", dmabuf);
    cJSON_AddStringToObject(j, "method", c->peermem == 1 ? "peermem" : dmabuf ? "dmabuf" : "none");
    if (c->peermem != 1 && gdr_reg_caps_dmabuf(c))
        device_verdicts(ctx);

    if (c->peermem == 1)
        return gdr_doctor_add(ctx, "registration", "system", GDR_DOCTOR_PASS, NULL,
                              "nvidia_peermem loaded (peermem)%s",
                              dmabuf ? "; dma-buf also possible" : "");

    /* Say every reason dma-buf is out, so one fix round suffices. */
    if (c->kernel_dmabuf == 0)
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; kernel %s < 5.12", c->kernel);
    else if (c->kernel_dmabuf < 0)
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; kernel version unreadable");
    if (!c->nvidia_loaded)
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; NVIDIA driver not loaded");
    else if (c->nvidia_open == 0)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "; NVIDIA proprietary (not open) kernel module");
    else if (c->nvidia_open < 0)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "; cannot tell open vs proprietary NVIDIA module");
    if (c->driver_major >= 0 && c->driver_major < 515)
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; driver %s < 515",
                 c->nvidia_version);
    if (!some_ok)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "; no GPU-paired RDMA device takes dma-buf");

    if (dmabuf)
        return gdr_doctor_add(
            ctx, "registration", "system", GDR_DOCTOR_PASS, NULL,
            "dma-buf: kernel %s, NVIDIA open kernel module %s, ibv_reg_dmabuf_mr %s; nvidia_peermem not loaded (not needed)",
            c->kernel, c->nvidia_version[0] ? c->nvidia_version : "?",
            ctx->verbs_dmabuf == 1 ? "supported"
            : ctx->live            ? "not checked"
                                   : "not checked (captured tree)");
    return gdr_doctor_add(
        ctx, "registration", "system", GDR_DOCTOR_FAIL,
        "modprobe nvidia_peermem (NVIDIA driver >= 470), or use kernel >= 5.12 with the NVIDIA open kernel module >= 515 for dma-buf",
        "no way to register GPU memory: nvidia_peermem not loaded; dma-buf not possible: %s",
        why[0] ? why + 2 : "reason unknown");
}
