/* devctl.c - the Relaxed Ordering enable of a NIC's PCI function, read from
 * the PCI Express capability in sysfs' config. See topo.h. */
#include "topo.h"

#include <stdint.h>
#include <stdio.h>

#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CAP_ID_EXP 0x10
#define PCI_EXP_DEVCTL 0x08 /* from the capability's start */
#define PCI_EXP_DEVCTL_RELAX_EN 0x0010

int gdr_topo_relaxed_ordering(const char *sysfs_root, const char *ibdev)
{
    const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
    uint8_t cfg[256];
    char path[512];

    if (gdr_topo_is_software(root, ibdev))
        return -1;
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/config", root, ibdev);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(cfg, 1, sizeof(cfg), f); /* 64 bytes unless root */
    fclose(f);
    if (n <= PCI_CAPABILITY_LIST || !(cfg[PCI_STATUS] & PCI_STATUS_CAP_LIST))
        return -1;
    /* The standard capability list, at most 48 entries (a loop guard). */
    unsigned at = cfg[PCI_CAPABILITY_LIST] & 0xfc;
    for (int hops = 0; at >= 0x40 && hops < 48; hops++) {
        if (at + PCI_EXP_DEVCTL + 2 > n)
            return -1; /* past what we could read */
        if (cfg[at] == PCI_CAP_ID_EXP) {
            unsigned devctl = cfg[at + PCI_EXP_DEVCTL] | (unsigned)cfg[at + PCI_EXP_DEVCTL + 1]
                                                             << 8;
            return (devctl & PCI_EXP_DEVCTL_RELAX_EN) != 0;
        }
        at = cfg[at + 1] & 0xfc;
    }
    return -1;
}
