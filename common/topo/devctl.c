/* devctl.c - the Relaxed Ordering enable of a NIC's PCI function: the PCIe
 * capability's Device Control bit, as pcie.c reads it. See topo.h. */
#include "topo.h"
#include "pcie.h"

int gdr_topo_relaxed_ordering(const char *sysfs_root, const char *ibdev)
{
    struct gdr_ibdev_info info;
    char err[160];
    if (gdr_topo_ibdev_info(sysfs_root, ibdev, &info, err, sizeof(err)) || info.software ||
        !info.pci_bdf[0])
        return -1;
    struct gdr_pcie_link link;
    if (gdr_topo_pcie_link(sysfs_root, info.pci_bdf, &link))
        return -1;
    return link.relaxed_ordering;
}
