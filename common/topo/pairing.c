/* pairing.c - each GPU's rail NIC (pairing.h). */
#include "pairing.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nearest first, in the enum's order (P2C between PXB and PHB, as NCCL
 * ranks it); a class that could not be read counts as the farthest. */
static int rank(enum gdr_path_class c)
{
    return c == GDR_PATH_UNKNOWN ? GDR_PATH_NONE + 1 : (int)c;
}

int gdr_topo_port_state(const char *sysfs_root, const char *ibdev, int port, char *out, size_t len)
{
    const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
    char path[PATH_MAX], buf[64];
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/state", root, ibdev, port);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    char *ok = fgets(buf, sizeof(buf), f);
    fclose(f);
    if (!ok)
        return -EIO;
    buf[strcspn(buf, "\n")] = '\0';
    /* "4: ACTIVE" -> "ACTIVE" */
    const char *p = strchr(buf, ':');
    p = p ? p + 1 : buf;
    p += strspn(p, " ");
    snprintf(out, len, "%s", p);
    return 0;
}

enum gdr_nic_port gdr_topo_nic_port(const char *sysfs_root, const char *ibdev, int *port,
                                    char *state, size_t len)
{
    const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
    char path[PATH_MAX], st[32];
    int first = 0, active = 0;
    *port = 0;
    if (len)
        state[0] = '\0';
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, ibdev);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        int p = atoi(de->d_name);
        if (p <= 0 || gdr_topo_port_state(root, ibdev, p, st, sizeof(st)))
            continue;
        if (!first || p < first) {
            first = p;
            if (!active && len)
                snprintf(state, len, "%s", st);
        }
        if (!strcmp(st, "ACTIVE") && (!active || p < active)) {
            active = p;
            if (len)
                snprintf(state, len, "%s", st);
        }
    }
    if (d)
        closedir(d);
    *port = active ? active : first;
    return active ? GDR_NIC_PORT_ACTIVE : first ? GDR_NIC_PORT_DOWN : GDR_NIC_PORT_UNKNOWN;
}

int gdr_topo_pair(const char *sysfs_root, const char (*nics)[64], size_t nnics,
                  const char (*gpus)[GDR_BDF_LEN], const int *gpu_c2c, size_t ngpus,
                  struct gdr_topo_pairing *out)
{
    memset(out, 0, sizeof(*out));
    if (nnics > GDR_PAIR_MAX || ngpus > GDR_PAIR_MAX)
        return -EINVAL;
    out->ngpus = ngpus;
    out->nnics = nnics;
    bool usable[GDR_PAIR_MAX];
    for (size_t n = 0; n < nnics; n++) {
        enum gdr_nic_port st = gdr_topo_nic_port(sysfs_root, nics[n], &out->port[n],
                                                 out->port_state[n], sizeof(out->port_state[0]));
        usable[n] = st != GDR_NIC_PORT_DOWN;
        out->role[n] = !usable[n] ? GDR_NIC_DOWN : ngpus ? GDR_NIC_UNUSED : GDR_NIC_RAIL;
    }
    for (size_t g = 0; g < ngpus; g++) {
        int best = -1, best_rank = 0;
        size_t best_hops = 0;
        out->nic_of[g] = -1;
        out->path[g] = GDR_PATH_UNKNOWN;
        for (size_t n = 0; n < nnics; n++) {
            if (!usable[n])
                continue;
            enum gdr_path_class c;
            char bridges[32][GDR_BDF_LEN];
            size_t hops = 0;
            gdr_topo_pair_class(sysfs_root, nics[n], gpus[g], gpu_c2c ? gpu_c2c[g] : -1, &c, NULL,
                                0);
            if (gdr_topo_path_bridges(sysfs_root, nics[n], gpus[g], bridges, 32, &hops, NULL, 0))
                hops = 32;
            int r = rank(c);
            /* nearer class, then fewer bridges, then fewer GPUs on the NIC */
            if (best < 0 || r < best_rank || (r == best_rank && hops < best_hops) ||
                (r == best_rank && hops == best_hops && out->gpus_on[n] < out->gpus_on[best])) {
                best = (int)n;
                best_rank = r;
                best_hops = hops;
                out->path[g] = c;
            }
        }
        out->nic_of[g] = best;
        if (best >= 0) {
            out->gpus_on[best]++;
            out->role[best] = GDR_NIC_RAIL;
        }
    }
    return 0;
}
