/* check_reg: can GPU memory be registered with the NIC (peermem, dma-buf)? */
#include "doctor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static cJSON *tri(int v)
{
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v);
}

int gdr_doctor_check_registration(struct gdr_doctor_ctx *ctx)
{
    const struct gdr_reg_caps *c = &ctx->caps;
    bool dmabuf = gdr_reg_caps_dmabuf(c) && ctx->verbs_dmabuf != 0;
    char why[256] = "";
    cJSON *j = cJSON_AddObjectToObject(ctx->facts, "registration");

    if (!j)
        return -ENOMEM;
    cJSON_AddItemToObject(j, "peermem", tri(c->peermem));
    cJSON_AddItemToObject(j, "kernel_dmabuf", tri(c->kernel_dmabuf));
    cJSON_AddItemToObject(j, "nvidia_open_module", tri(c->nvidia_open));
    cJSON_AddItemToObject(j, "verbs_dmabuf", tri(ctx->verbs_dmabuf));
    cJSON_AddBoolToObject(j, "dmabuf", dmabuf);
    cJSON_AddStringToObject(j, "method", c->peermem == 1 ? "peermem" : dmabuf ? "dmabuf" : "none");

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
    if (ctx->verbs_dmabuf == 0)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "; libibverbs/provider has no dma-buf (EOPNOTSUPP)");

    if (dmabuf)
        return gdr_doctor_add(
            ctx, "registration", "system", GDR_DOCTOR_PASS, NULL,
            "dma-buf: kernel %s, NVIDIA open kernel module %s, ibv_reg_dmabuf_mr %s; nvidia_peermem not loaded (not needed)",
            c->kernel, c->nvidia_version[0] ? c->nvidia_version : "?",
            ctx->verbs_dmabuf == 1 ? "supported" : "not checked (captured tree)");
    return gdr_doctor_add(
        ctx, "registration", "system", GDR_DOCTOR_FAIL,
        "modprobe nvidia_peermem (NVIDIA driver >= 470), or use kernel >= 5.12 with the NVIDIA open kernel module >= 515 for dma-buf",
        "no way to register GPU memory: nvidia_peermem not loaded; dma-buf not possible: %s",
        why[0] ? why + 2 : "reason unknown");
}
