/* check_bar1: is the GPU's BAR1 aperture large enough to expose its memory? */
#include "doctor.h"
#include "live.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define IORESOURCE_MEM 0x00000200ULL
#define IORESOURCE_PREFETCH 0x00002000ULL
#define GIB (1024ULL * 1024 * 1024)
#define MIB (1024ULL * 1024)
/* Without a driver the memory size is unknown; under 1 GiB is a small BAR. */
#define SMALL_BAR (1ULL * GIB)

/*
 * sysfs "resource": one "start end flags" line per resource index; a 64-bit
 * BAR takes two BAR registers, so the next index reads as zeros. NVIDIA's
 * BAR1 (the framebuffer aperture) is the 64-bit prefetchable BAR at index 1;
 * if index 1 is not that, take the largest prefetchable memory BAR.
 */
static int read_bar1(const char *sysfs, const char *bdf, unsigned long long *size, int *index)
{
    char path[PATH_MAX];
    unsigned long long start, end, flags, best = 0;
    int i = 0, best_i = -1;
    FILE *f;

    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/resource", sysfs, bdf);
    f = fopen(path, "r");
    if (!f)
        return -errno;
    while (i < 6 && fscanf(f, "%llx %llx %llx", &start, &end, &flags) == 3) {
        unsigned long long sz = end > start ? end - start + 1 : 0;
        if ((flags & IORESOURCE_MEM) && (flags & IORESOURCE_PREFETCH) && sz) {
            if (i == 1) {
                best = sz, best_i = 1;
                break;
            }
            if (sz > best)
                best = sz, best_i = i;
        }
        i++;
    }
    fclose(f);
    if (best_i < 0)
        return -ENOENT;
    *size = best;
    *index = best_i;
    return 0;
}

static void human(unsigned long long b, char *out, size_t len)
{
    if (b >= GIB && b % GIB == 0)
        snprintf(out, len, "%llu GiB", b / GIB);
    else if (b >= GIB)
        snprintf(out, len, "%.1f GiB", (double)b / GIB);
    else
        snprintf(out, len, "%llu MiB", b / MIB);
}

int gdr_doctor_check_bar1(struct gdr_doctor_ctx *ctx)
{
    static const char fix[] =
        "enable Above 4G Decoding and Resizable BAR in the BIOS (or the GPU's large-BAR mode)";
    cJSON *jgpus = cJSON_GetObjectItem(ctx->facts, "gpus");

    for (size_t g = 0; g < ctx->n_gpus; g++) {
        const char *bdf = ctx->gpus[g];
        unsigned long long bar = 0, mem = 0;
        int idx = -1, rc;
        bool mem_known = false;
        char sb[32], sm[32];
        cJSON *jg = jgpus ? cJSON_GetArrayItem(jgpus, (int)g) : NULL;

        rc = read_bar1(ctx->sysfs, bdf, &bar, &idx);
        if (ctx->live && gdr_doctor_cuda_gpu_memory(bdf, &mem) == 0)
            mem_known = true;
        if (jg) {
            if (rc == 0)
                cJSON_AddNumberToObject(jg, "bar1_bytes", (double)bar);
            else
                cJSON_AddNullToObject(jg, "bar1_bytes");
            cJSON_AddNumberToObject(jg, "bar1_resource_index", idx);
            if (mem_known)
                cJSON_AddNumberToObject(jg, "memory_bytes", (double)mem);
            else
                cJSON_AddNullToObject(jg, "memory_bytes");
        }
        if (rc != 0) {
            gdr_doctor_add(ctx, "bar1", bdf, GDR_DOCTOR_UNKNOWN, NULL,
                           "no prefetchable memory BAR in %s/bus/pci/devices/%s/resource (%s)",
                           ctx->sysfs, bdf, strerror(-rc));
            continue;
        }
        human(bar, sb, sizeof(sb));
        if (mem_known) {
            human(mem, sm, sizeof(sm));
            if (bar >= mem)
                gdr_doctor_add(ctx, "bar1", bdf, GDR_DOCTOR_PASS, NULL,
                               "BAR1 %s covers GPU memory %s", sb, sm);
            else
                gdr_doctor_add(
                    ctx, "bar1", bdf, bar < SMALL_BAR ? GDR_DOCTOR_FAIL : GDR_DOCTOR_WARN, fix,
                    "BAR1 %s < GPU memory %s: only part of GPU memory can be registered", sb, sm);
        } else if (bar < SMALL_BAR) {
            gdr_doctor_add(
                ctx, "bar1", bdf, GDR_DOCTOR_FAIL, fix,
                "BAR1 %s (resource %d) is a small BAR: GDR can map at most that much GPU memory",
                sb, idx);
        } else {
            gdr_doctor_add(
                ctx, "bar1", bdf, GDR_DOCTOR_PASS, NULL,
                "BAR1 %s (resource %d); large BAR (GPU memory size unknown without the CUDA driver)",
                sb, idx);
        }
    }
    return 0;
}
