/* c2c.c - a GPU's chip-to-chip link to the CPU (Grace), from procfs, and
 * the class of a NIC-GPU pair with it taken in (gdr_topo_pair_class, the
 * one every program reports). See topo.h. */
#include "topo.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int gdr_topo_gpu_c2c(const char *procfs_root, const char *gpu_bdf)
{
    const char *proc = procfs_root && *procfs_root ? procfs_root : "/proc";
    char path[512];
    struct stat st;

    /* The driver creates numa_status only for a GPU whose memory it can
     * online as a NUMA node: one coherently attached to the CPU. */
    snprintf(path, sizeof(path), "%s/driver/nvidia/gpus/%s/numa_status", proc, gpu_bdf);
    if (stat(path, &st) == 0)
        return 1;
    snprintf(path, sizeof(path), "%s/driver/nvidia/gpus/%s", proc, gpu_bdf);
    return stat(path, &st) == 0 ? 0 : -1;
}

/* Through the CPU from a C2C GPU is C2C then PCIe; nothing else changes. */
static enum gdr_path_class with_c2c(enum gdr_path_class pcie, bool gpu_c2c)
{
    if (gpu_c2c && (pcie == GDR_PATH_PHB || pcie == GDR_PATH_NODE))
        return GDR_PATH_P2C;
    return pcie;
}

int gdr_topo_pair_class(const char *sysfs_root, const char *ibdev, const char *gpu_bdf, int gpu_c2c,
                        enum gdr_path_class *out, char *err, size_t errlen)
{
    int rc = gdr_topo_path_class(sysfs_root, ibdev, gpu_bdf, out, err, errlen);
    if (rc)
        return rc;
    *out = with_c2c(*out, gpu_c2c == 1);
    return 0;
}
