/* cluster_software.h - what software a node runs, for the capacity report:
 * gdrbench, the kernel, the NVIDIA driver, nvidia_peermem, and the firmware
 * of each rail's NIC. Nodes that differ here are the first thing to rule
 * out when one of them is slow. */
#ifndef GDR_TOOLS_CLUSTER_SOFTWARE_H
#define GDR_TOOLS_CLUSTER_SOFTWARE_H

#include "cluster_rails.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct gdr_node_software {
    char gdrbench[64];
    char kernel[64];        /* "" when procfs does not say */
    char nvidia_driver[32]; /* "" when no NVIDIA driver is loaded */
    bool peermem;           /* nvidia_peermem (or nv_peer_mem) loaded */
    size_t nfw;             /* one entry per distinct rail NIC */
    char fw_device[GDR_RAILS_MAX][64];
    char fw[GDR_RAILS_MAX][64]; /* "" when sysfs has no fw_ver (rxe) */
};

/* Read it from sysfs_root and procfs_root (NULL: /sys, /proc) for the NICs
 * of map's rails. Missing files leave fields empty: never an error. */
void gdr_node_software_detect(const char *sysfs_root, const char *procfs_root,
                              const struct gdr_rail_map *map, struct gdr_node_software *sw);

/* {"gdrbench", "kernel", "nvidia_driver", "nvidia_peermem",
 *  "nic_firmware": {DEVICE: VERSION, ...}} */
cJSON *gdr_node_software_to_json(const struct gdr_node_software *sw);

#endif
