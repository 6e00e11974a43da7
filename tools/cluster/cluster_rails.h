/* cluster_rails.h - a node's rails: GPU i with its nearest RDMA device.
 *
 * Rail i pairs the i-th GPU (in PCI address order) with the NIC nearest to
 * it by PCIe path class (common/topo: PIX, then PXB, then the rest), each
 * NIC taken once while a free one is left. A node without GPUs has one rail
 * per RDMA device. Rail i of one node runs against rail i of its partner. */
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
    size_t nunused; /* NICs no GPU took (storage, management) */
    char unused[GDR_RAILS_MAX][64];
    size_t nwarnings;
    char warnings[GDR_RAILS_WARN_MAX][200];
};

/* Read the rails of the machine whose sysfs is at sysfs_root (NULL: /sys).
 * Warns (in map->warnings) when the layout is not one nearby NIC per GPU.
 * Returns 0, or -1 with gdr_fail(ENV) when sysfs cannot be read. */
int gdr_rails_detect(const char *sysfs_root, struct gdr_rail_map *map);

/* {"node": NODE, "rails": [{"rail", "gpu", "gpu_bdf", "device", "path"}],
 *  "unused_devices": [...], "warnings": [...]} */
cJSON *gdr_rails_to_json(const char *node, const struct gdr_rail_map *map);

/* The inverse (rails only); `what` names the document in messages. */
int gdr_rails_from_json(const cJSON *doc, const char *what, struct gdr_rail_map *map);

#endif
