/* cluster_rails.c - GPU <-> nearest NIC rails from sysfs (see cluster_rails.h). */
#include "config.h"

#include "cluster_plan.h"
#include "cluster_rails.h"
#include "pairing.h"
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

/* "GPU 0, 1" for the GPUs whose rail NIC is n. */
static void gpus_of(const struct gdr_topo_pairing *pr, size_t n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t g = 0; g < pr->ngpus; g++) {
        if (pr->nic_of[g] != (int)n)
            continue;
        int k = snprintf(out + used, len - used, "%s%zu", used ? ", " : "GPU ", g);
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
}

/* One warning per count of GPUs sharing a NIC: "2 GPUs per NIC: mlx5_0
 * (GPU 0, 1), mlx5_3 (GPU 2, 3)". */
static void warn_shared(struct gdr_rail_map *m, const struct gdr_topo_pairing *pr,
                        const char (*nics)[64])
{
    for (size_t count = 2; count <= pr->ngpus; count++) {
        char text[sizeof(m->warnings[0])], gl[96];
        size_t used = 0;
        for (size_t n = 0; n < pr->nnics; n++) {
            if (pr->gpus_on[n] != count)
                continue;
            gpus_of(pr, n, gl, sizeof(gl));
            int k = snprintf(text + used, sizeof(text) - used, "%s%s (%s)", used ? ", " : "",
                             nics[n], gl);
            if (k < 0 || (size_t)k >= sizeof(text) - used)
                break;
            used += (size_t)k;
        }
        if (used)
            warn(m, "%zu GPUs per NIC: %s", count, text);
    }
}

int gdr_rails_detect(const char *sysfs_root, const char *procfs_root, struct gdr_rail_map *m)
{
    static char nics[GDR_RAILS_MAX][64];
    static char gpus[GDR_RAILS_MAX][GDR_BDF_LEN];
    static int c2c[GDR_RAILS_MAX];
    static struct gdr_topo_pairing pr;
    size_t nnic = 0, ngpu = 0;
    memset(m, 0, sizeof(*m));
    const char *root = sysfs_root ? sysfs_root : "/sys";
    if (gdr_topo_list_ibdevs(sysfs_root, nics, GDR_RAILS_MAX, &nnic))
        return gdr_fail(GDR_EXIT_ENV, "%s: cannot list RDMA devices", root);
    if (gdr_topo_list_gpus(sysfs_root, gpus, GDR_RAILS_MAX, &ngpu))
        return gdr_fail(GDR_EXIT_ENV, "%s: cannot list GPUs", root);
    if (ngpu > 0 && nnic == 0) {
        warn(m, "%zu GPUs but no RDMA device: no rail", ngpu);
        return 0;
    }
    /* The C2C link (procfs) in, so the class is gdr_doctor's: P2C on Grace. */
    for (size_t g = 0; g < ngpu; g++)
        c2c[g] = gdr_topo_gpu_c2c(procfs_root, gpus[g]);
    gdr_topo_pair(sysfs_root, (const char(*)[64])nics, nnic, (const char(*)[GDR_BDF_LEN])gpus, c2c,
                  ngpu, &pr);
    for (size_t n = 0; n < nnic; n++) {
        if (pr.role[n] == GDR_NIC_DOWN) {
            snprintf(m->down[m->ndown++], sizeof(m->down[0]), "%.63s", nics[n]);
            warn(m, "%s port %d is %s: not a rail", nics[n], pr.port[n], pr.port_state[n]);
        } else if (pr.role[n] == GDR_NIC_UNUSED) {
            snprintf(m->unused[m->nunused++], sizeof(m->unused[0]), "%.63s", nics[n]);
        } else if (ngpu == 0) {
            /* A host-only node: each active RDMA device is a rail of its own. */
            struct gdr_rail *r = &m->rails[m->nrails++];
            r->gpu = -1;
            snprintf(r->device, sizeof(r->device), "%.63s", nics[n]);
            r->path = GDR_PATH_UNKNOWN;
        }
    }
    for (size_t g = 0; g < ngpu; g++) {
        if (pr.nic_of[g] < 0) {
            warn(m, "GPU %zu (%s): no RDMA device with an active port: no rail", g, gpus[g]);
            continue;
        }
        struct gdr_rail *r = &m->rails[m->nrails++];
        r->gpu = (int)g;
        snprintf(r->gpu_bdf, sizeof(r->gpu_bdf), "%s", gpus[g]);
        snprintf(r->device, sizeof(r->device), "%s", nics[pr.nic_of[g]]);
        r->path = pr.path[g];
        /* Warned where NCCL at its defaults would not use GDR (P2C: it does). */
        if (r->path != GDR_PATH_UNKNOWN && !gdr_nccl_gdr_used_default(r->path, true))
            warn(m, "GPU %zu (%s): nearest NIC %s is %s, not under a shared PCIe switch", g,
                 gpus[g], r->device, gdr_path_class_name(r->path));
    }
    warn_shared(m, &pr, (const char(*)[64])nics);
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
    cJSON *dn = cJSON_AddArrayToObject(o, "down_devices");
    for (size_t i = 0; i < m->ndown; i++)
        cJSON_AddItemToArray(dn, cJSON_CreateString(m->down[i]));
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
    /* Optional (older rails files have no down_devices). */
    const char *lists[2] = {"unused_devices", "down_devices"};
    for (int k = 0; k < 2; k++) {
        size_t *n = k ? &m->ndown : &m->nunused;
        char(*names)[64] = k ? m->down : m->unused;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, lists[k])) {
            if (cJSON_IsString(it) && *n < GDR_RAILS_MAX)
                snprintf(names[(*n)++], 64, "%s", it->valuestring);
        }
    }
    return 0;
}
