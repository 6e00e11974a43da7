/* cluster_software.c - a node's software versions (see cluster_software.h). */
#include "config.h"

#include "cluster_software.h"
#include "topo.h"

#include <stdio.h>
#include <string.h>

void gdr_node_software_detect(const char *sysfs_root, const char *procfs_root,
                              const struct gdr_rail_map *map, struct gdr_node_software *sw)
{
    struct gdr_reg_caps caps;
    memset(sw, 0, sizeof(*sw));
    snprintf(sw->gdrbench, sizeof(sw->gdrbench), "%s", PACKAGE_VERSION);
    if (gdr_topo_reg_caps(sysfs_root, procfs_root, &caps) == 0) {
        snprintf(sw->kernel, sizeof(sw->kernel), "%s", caps.kernel);
        snprintf(sw->nvidia_driver, sizeof(sw->nvidia_driver), "%s", caps.nvidia_version);
        sw->peermem = caps.peermem > 0;
    }
    for (size_t i = 0; i < map->nrails; i++) {
        const char *dev = map->rails[i].device;
        bool seen = !*dev;
        for (size_t k = 0; k < sw->nfw && !seen; k++)
            seen = !strcmp(sw->fw_device[k], dev);
        if (seen)
            continue;
        snprintf(sw->fw_device[sw->nfw], sizeof(sw->fw_device[0]), "%s", dev);
        gdr_topo_ibdev_fw(sysfs_root, dev, sw->fw[sw->nfw], sizeof(sw->fw[0]));
        sw->nfw++;
    }
}

cJSON *gdr_node_software_to_json(const struct gdr_node_software *sw)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "gdrbench", sw->gdrbench);
    cJSON_AddStringToObject(o, "kernel", sw->kernel);
    cJSON_AddStringToObject(o, "nvidia_driver", sw->nvidia_driver);
    cJSON_AddBoolToObject(o, "nvidia_peermem", sw->peermem);
    cJSON *fw = cJSON_AddObjectToObject(o, "nic_firmware");
    for (size_t i = 0; i < sw->nfw; i++)
        cJSON_AddStringToObject(fw, sw->fw_device[i], sw->fw[i]);
    return o;
}
