/* check_iommu: IOMMU mode, and PCIe ACS redirect on bridges NIC<->GPU. */
#include "doctor.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ECAP_START 0x100
#define ECAP_ACS 0x000D
#define ACS_CTRL 6    /* control register offset in the capability */
#define ACS_RR 0x0004 /* P2P Request Redirect */
#define ACS_CR 0x0008 /* P2P Completion Redirect */
#define ACS_EC 0x0020 /* P2P Egress Control */

static size_t count_entries(const char *dir)
{
    struct dirent *de;
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Whole-word search in the kernel command line. */
static bool cmdline_has(const char *cmdline, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(cmdline, word); p; p = strstr(p + 1, word))
        if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* IOMMU group type of a PCI function ("identity", "DMA", "DMA-FQ"), "" if none. */
static void group_type(const char *sysfs, const char *bdf, char *out, size_t len)
{
    char path[PATH_MAX], real[PATH_MAX];
    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", sysfs, bdf);
    out[0] = '\0';
    if (!realpath(path, real))
        return;
    gdr_doctor_read_line(real, "type", out, len);
}

int gdr_doctor_check_iommu(struct gdr_doctor_ctx *ctx)
{
    char path[PATH_MAX], cmdline[4096] = "", types[256] = "", t[32];
    size_t units, groups;
    bool pt, off, translated = false, identity_all = true, any_type = false;
    cJSON *j = cJSON_AddObjectToObject(ctx->facts, "iommu");

    if (!j)
        return -ENOMEM;
    snprintf(path, sizeof(path), "%s/class/iommu", ctx->sysfs);
    units = count_entries(path);
    snprintf(path, sizeof(path), "%s/kernel/iommu_groups", ctx->sysfs);
    groups = count_entries(path);
    gdr_doctor_read_line(ctx->procfs, "cmdline", cmdline, sizeof(cmdline));
    pt = cmdline_has(cmdline, "iommu=pt") || cmdline_has(cmdline, "iommu.passthrough=1");
    off = cmdline_has(cmdline, "intel_iommu=off") || cmdline_has(cmdline, "amd_iommu=off") ||
          cmdline_has(cmdline, "iommu=off");

    /* The mode that matters is the one of the groups holding our devices. */
    for (size_t g = 0; g < ctx->n_gpus + ctx->n_ibdevs; g++) {
        struct gdr_ibdev_info info;
        const char *bdf;
        if (g < ctx->n_gpus) {
            bdf = ctx->gpus[g];
        } else {
            if (gdr_topo_ibdev_info(ctx->sysfs, ctx->ibdevs[g - ctx->n_gpus], &info, NULL, 0) ||
                !info.pci_bdf[0])
                continue;
            bdf = info.pci_bdf;
        }
        group_type(ctx->sysfs, bdf, t, sizeof(t));
        if (!t[0])
            continue;
        any_type = true;
        snprintf(types + strlen(types), sizeof(types) - strlen(types), "%s%s=%s",
                 types[0] ? ", " : "", bdf, t);
        if (strcmp(t, "identity") != 0)
            identity_all = false;
        if (strncmp(t, "DMA", 3) == 0)
            translated = true;
    }
    cJSON_AddNumberToObject(j, "units", (double)units);
    cJSON_AddNumberToObject(j, "groups", (double)groups);
    cJSON_AddBoolToObject(j, "cmdline_passthrough", pt);
    cJSON_AddStringToObject(j, "device_group_types", types);

    if (units == 0 && groups == 0)
        return gdr_doctor_add(ctx, "iommu", "system", GDR_DOCTOR_PASS, NULL,
                              "no IOMMU active (nothing in class/iommu or kernel/iommu_groups)%s",
                              off ? ", disabled on the kernel command line" : "");
    if (translated)
        return gdr_doctor_add(
            ctx, "iommu", "system", GDR_DOCTOR_WARN,
            "boot with iommu=pt (intel_iommu=on iommu=pt / amd_iommu=on iommu=pt) or disable the IOMMU",
            "IOMMU translates DMA for %s: peer-to-peer NIC<->GPU traffic is remapped and may fail or slow down",
            types);
    if ((any_type && identity_all) || pt)
        return gdr_doctor_add(ctx, "iommu", "system", GDR_DOCTOR_PASS, NULL,
                              "IOMMU on in passthrough mode (%s)",
                              any_type ? types : "iommu=pt on the command line");
    return gdr_doctor_add(
        ctx, "iommu", "system", GDR_DOCTOR_UNKNOWN,
        "boot with iommu=pt, or check dmesg for 'iommu: Default domain type'",
        "IOMMU present (%zu units, %zu groups) but its mode for the NIC/GPU is not visible", units,
        groups);
}

enum acs_state { ACS_UNREADABLE, ACS_NONE, ACS_OK, ACS_REDIRECT };

/* Walk the extended capabilities of one bridge; *ctrl gets the ACS control. */
static enum acs_state read_acs(const char *sysfs, const char *bdf, unsigned *ctrl)
{
    unsigned char cfg[4096];
    char path[PATH_MAX];
    size_t n;
    unsigned off = ECAP_START;
    FILE *f;

    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", sysfs, bdf);
    f = fopen(path, "rb");
    if (!f)
        return ACS_UNREADABLE;
    n = fread(cfg, 1, sizeof(cfg), f);
    fclose(f);
    /* Without root the kernel hands out only the first 64 bytes. */
    if (n < ECAP_START + 8)
        return ACS_UNREADABLE;
    for (int guard = 0; guard < 64 && off >= ECAP_START && off + 8 <= n; guard++) {
        unsigned hdr =
            cfg[off] | cfg[off + 1] << 8 | cfg[off + 2] << 16 | (unsigned)cfg[off + 3] << 24;
        if (hdr == 0 || hdr == 0xffffffffu)
            break;
        if ((hdr & 0xffff) == ECAP_ACS) {
            *ctrl = cfg[off + ACS_CTRL] | cfg[off + ACS_CTRL + 1] << 8;
            return (*ctrl & (ACS_RR | ACS_CR | ACS_EC)) ? ACS_REDIRECT : ACS_OK;
        }
        off = (hdr >> 20) & 0xffc;
    }
    return ACS_NONE;
}

int gdr_doctor_check_acs(struct gdr_doctor_ctx *ctx)
{
    for (size_t g = 0; g < ctx->n_gpus; g++) {
        for (size_t d = 0; d < ctx->n_ibdevs; d++) {
            char bridges[32][GDR_BDF_LEN], subject[96], redirect[256] = "", unreadable[256] = "";
            size_t nb = 0, n_ok = 0;
            enum gdr_path_class cls;

            if (gdr_topo_path_class(ctx->sysfs, ctx->ibdevs[d], ctx->gpus[g], &cls, NULL, 0) ||
                cls == GDR_PATH_NONE ||
                gdr_topo_path_bridges(ctx->sysfs, ctx->ibdevs[d], ctx->gpus[g], bridges, 32, &nb,
                                      NULL, 0) ||
                nb == 0)
                continue;
            snprintf(subject, sizeof(subject), "%s<->%s", ctx->ibdevs[d], ctx->gpus[g]);
            for (size_t b = 0; b < nb; b++) {
                unsigned ctrl = 0;
                switch (read_acs(ctx->sysfs, bridges[b], &ctrl)) {
                case ACS_REDIRECT:
                    snprintf(redirect + strlen(redirect), sizeof(redirect) - strlen(redirect),
                             "%s%s (ctrl 0x%04x)", redirect[0] ? ", " : "", bridges[b], ctrl);
                    break;
                case ACS_UNREADABLE:
                    snprintf(unreadable + strlen(unreadable),
                             sizeof(unreadable) - strlen(unreadable), "%s%s",
                             unreadable[0] ? " " : "", bridges[b]);
                    break;
                default: n_ok++;
                }
            }
            if (redirect[0])
                /* Below the root complex a redirect defeats the switch path. */
                gdr_doctor_add(
                    ctx, "acs", subject, cls <= GDR_PATH_PXB ? GDR_DOCTOR_FAIL : GDR_DOCTOR_WARN,
                    "disable ACS P2P redirect on these bridges (BIOS 'ACS' option, or setpci -s BDF ECAP_ACS+6.w=0 at boot)",
                    "ACS redirects peer-to-peer traffic up to the root complex at %s", redirect);
            else if (unreadable[0])
                gdr_doctor_add(
                    ctx, "acs", subject, GDR_DOCTOR_UNKNOWN,
                    "run gdr_doctor as root to read PCIe extended config space",
                    "config space beyond 64 bytes unreadable for %s (%zu of %zu bridges checked)",
                    unreadable, n_ok, nb);
            else
                gdr_doctor_add(ctx, "acs", subject, GDR_DOCTOR_PASS, NULL,
                               "no ACS redirect on the %zu bridge(s) between NIC and GPU", nb);
        }
    }
    return 0;
}
