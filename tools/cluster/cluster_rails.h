/* cluster_rails.h - a node's rails: GPU i with its rail NIC.
 *
 * Rail i pairs the i-th GPU (in PCI address order) with its rail NIC, the
 * answer of common/topo's pairing (gdr_doctor's too): the nearest NIC with
 * an ACTIVE port by PCIe distance; GPUs may share one (warned: "N GPUs per
 * NIC"). NICs no GPU takes (storage, management) are listed as unused, NICs
 * with no ACTIVE port as down; neither is a rail. A node without GPUs has
 * one rail per active RDMA device. Rail i of one node runs against rail i
 * of its partner. */
#ifndef GDR_TOOLS_CLUSTER_RAILS_H
#define GDR_TOOLS_CLUSTER_RAILS_H

#include "topo.h"

#include <cjson/cJSON.h>
#include <stddef.h>

#define GDR_RAILS_MAX 64
#define GDR_RAILS_WARN_MAX 8

struct gdr_rail {
    int gpu;                   /* GPU index (CUDA order by PCI address); -1 none */
    char gpu_bdf[GDR_BDF_LEN]; /* "" when gpu < 0 */
    char device[64];           /* RDMA device, "" for the default */
    enum gdr_path_class path;  /* GPU <-> NIC; UNKNOWN when gpu < 0 */
};

struct gdr_rail_map {
    size_t nrails;
    struct gdr_rail rails[GDR_RAILS_MAX];
    size_t nunused; /* active NICs no GPU took (storage, management) */
    char unused[GDR_RAILS_MAX][64];
    size_t ndown; /* NICs with no ACTIVE port */
    char down[GDR_RAILS_MAX][64];
    size_t nwarnings;
    char warnings[GDR_RAILS_WARN_MAX][256];
};

/* Read the rails of the machine whose sysfs is at sysfs_root (NULL: /sys)
 * and procfs at procfs_root (NULL: /proc; each GPU's C2C link). Each
 * rail's path is common/topo's gdr_topo_pair_class, gdr_doctor's. Warns
 * (in map->warnings) when the layout is not one nearby NIC per GPU: GPUs
 * sharing a NIC, or a rail NCCL at its defaults would not use GDR on.
 * Returns 0, or -1 with gdr_fail(ENV) when sysfs cannot be read. */
int gdr_rails_detect(const char *sysfs_root, const char *procfs_root, struct gdr_rail_map *map);

/* {"node": NODE, "rails": [{"rail", "gpu", "gpu_bdf", "device", "path"}],
 *  "unused_devices": [...], "down_devices": [...], "warnings": [...]} */
cJSON *gdr_rails_to_json(const char *node, const struct gdr_rail_map *map);

/* The inverse (rails, unused and down devices); `what` names the document
 * in messages. */
int gdr_rails_from_json(const cJSON *doc, const char *what, struct gdr_rail_map *map);

#endif
