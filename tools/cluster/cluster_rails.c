/* cluster_rails.c - GPU <-> nearest NIC rails from sysfs (see cluster_rails.h). */
#include "config.h"

#include "cluster_plan.h"
#include "cluster_rails.h"
#include "error.h"
#include "json.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) static void warn(struct gdr_rail_map *m, const char *fmt, ...)
{
    if (m->nwarnings >= GDR_RAILS_WARN_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->warnings[m->nwarnings++], sizeof(m->warnings[0]), fmt, ap);
    va_end(ap);
}

/* Classes in the order a GPU looks for its NIC: nearest first, software
 * and undeterminable last. */
static const enum gdr_path_class search_order[] = {
    GDR_PATH_LOC,  GDR_PATH_PIX, GDR_PATH_PXB,  GDR_PATH_PHB,
    GDR_PATH_NODE, GDR_PATH_SYS, GDR_PATH_NONE, GDR_PATH_UNKNOWN,
};
#define NORDER (sizeof(search_order) / sizeof(search_order[0]))

static size_t rank_of(enum gdr_path_class c)
{
    for (size_t i = 0; i < NORDER; i++)
        if (search_order[i] == c)
            return i;
    return NORDER;
}

int gdr_rails_detect(const char *sysfs_root, struct gdr_rail_map *m)
{
    static char nics[GDR_RAILS_MAX][64];
    static char gpus[GDR_RAILS_MAX][GDR_BDF_LEN];
    static enum gdr_path_class cls[GDR_RAILS_MAX][GDR_RAILS_MAX];
    size_t nnic = 0, ngpu = 0;
    memset(m, 0, sizeof(*m));
    const char *root = sysfs_root ? sysfs_root : "/sys";
    if (gdr_topo_list_ibdevs(sysfs_root, nics, GDR_RAILS_MAX, &nnic))
        return gdr_fail(GDR_EXIT_ENV, "%s: cannot list RDMA devices", root);
    if (gdr_topo_list_gpus(sysfs_root, gpus, GDR_RAILS_MAX, &ngpu))
        return gdr_fail(GDR_EXIT_ENV, "%s: cannot list GPUs", root);
    if (ngpu == 0) {
        /* A host-only node: each RDMA device is a rail of its own. */
        for (size_t i = 0; i < nnic; i++) {
            struct gdr_rail *r = &m->rails[m->nrails++];
            r->gpu = -1;
            snprintf(r->device, sizeof(r->device), "%s", nics[i]);
            r->path = GDR_PATH_UNKNOWN;
        }
        return 0;
    }
    if (nnic == 0) {
        warn(m, "%zu GPUs but no RDMA device: no rail", ngpu);
        return 0;
    }
    for (size_t g = 0; g < ngpu; g++)
        for (size_t n = 0; n < nnic; n++) {
            char err[256];
            if (gdr_topo_path_class(sysfs_root, nics[n], gpus[g], &cls[g][n], err, sizeof(err)))
                cls[g][n] = GDR_PATH_UNKNOWN;
        }
    /* Nearest class first: every GPU that has a free NIC at this class takes
     * the first one (by name) before any GPU settles for a farther one. */
    int nic_of[GDR_RAILS_MAX];
    bool taken[GDR_RAILS_MAX] = {false};
    for (size_t g = 0; g < ngpu; g++)
        nic_of[g] = -1;
    for (size_t k = 0; k < NORDER; k++)
        for (size_t g = 0; g < ngpu; g++) {
            if (nic_of[g] >= 0)
                continue;
            for (size_t n = 0; n < nnic; n++)
                if (!taken[n] && cls[g][n] == search_order[k]) {
                    nic_of[g] = (int)n;
                    taken[n] = true;
                    break;
                }
        }
    /* More GPUs than NICs: the rest share the nearest NIC. */
    for (size_t g = 0; g < ngpu; g++) {
        if (nic_of[g] >= 0)
            continue;
        size_t best = 0;
        for (size_t n = 1; n < nnic; n++)
            if (rank_of(cls[g][n]) < rank_of(cls[g][best]))
                best = n;
        nic_of[g] = (int)best;
        warn(m, "GPU %zu (%s) shares %s with another GPU: fewer NICs than GPUs", g, gpus[g],
             nics[best]);
    }
    for (size_t g = 0; g < ngpu; g++) {
        struct gdr_rail *r = &m->rails[m->nrails++];
        r->gpu = (int)g;
        snprintf(r->gpu_bdf, sizeof(r->gpu_bdf), "%s", gpus[g]);
        snprintf(r->device, sizeof(r->device), "%s", nics[nic_of[g]]);
        r->path = cls[g][nic_of[g]];
        if (r->path > GDR_PATH_PXB)
            warn(m, "GPU %zu (%s): nearest free NIC %s is %s, not under a shared PCIe switch", g,
                 gpus[g], r->device, gdr_path_class_name(r->path));
    }
    for (size_t n = 0; n < nnic; n++)
        if (!taken[n])
            snprintf(m->unused[m->nunused++], sizeof(m->unused[0]), "%s", nics[n]);
    return 0;
}

cJSON *gdr_rails_to_json(const char *node, const struct gdr_rail_map *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "node", node);
    cJSON *rails = cJSON_AddArrayToObject(o, "rails");
    for (size_t i = 0; i < m->nrails; i++) {
        const struct gdr_rail *r = &m->rails[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "rail", (double)i);
        cJSON_AddNumberToObject(j, "gpu", r->gpu);
        cJSON_AddStringToObject(j, "gpu_bdf", r->gpu_bdf);
        cJSON_AddStringToObject(j, "device", r->device);
        cJSON_AddStringToObject(j, "path", r->gpu < 0 ? "n/a" : gdr_path_class_name(r->path));
        cJSON_AddItemToArray(rails, j);
    }
    cJSON *u = cJSON_AddArrayToObject(o, "unused_devices");
    for (size_t i = 0; i < m->nunused; i++)
        cJSON_AddItemToArray(u, cJSON_CreateString(m->unused[i]));
    cJSON *w = cJSON_AddArrayToObject(o, "warnings");
    for (size_t i = 0; i < m->nwarnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(m->warnings[i]));
    return o;
}

int gdr_rails_from_json(const cJSON *doc, const char *what, struct gdr_rail_map *m)
{
    memset(m, 0, sizeof(*m));
    const cJSON *rails = cJSON_GetObjectItemCaseSensitive(doc, "rails");
    if (!cJSON_IsArray(rails))
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'rails' is %s", what,
                        rails ? "not an array" : "missing");
    const cJSON *it;
    cJSON_ArrayForEach(it, rails) {
        if (m->nrails >= GDR_RAILS_MAX)
            return gdr_fail(GDR_EXIT_USAGE, "%s: more than %d rails", what, GDR_RAILS_MAX);
        struct gdr_rail *r = &m->rails[m->nrails];
        char w[300];
        snprintf(w, sizeof(w), "%s: rails[%zu]", what, m->nrails);
        double gpu;
        if (!cJSON_IsObject(it))
            return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", w);
        if (gdr_json_double(it, "gpu", &gpu, w) ||
            gdr_json_str(it, "device", r->device, sizeof(r->device), w))
            return gdr_cluster_input_error();
        r->gpu = gpu < 0 ? -1 : (int)gpu;
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(it, "gpu_bdf");
        if (cJSON_IsString(b))
            snprintf(r->gpu_bdf, sizeof(r->gpu_bdf), "%s", b->valuestring);
        r->path = GDR_PATH_UNKNOWN;
        m->nrails++;
    }
    return 0;
}
