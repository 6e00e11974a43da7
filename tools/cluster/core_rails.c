/* core_rails.c - gdr-cluster-core rails: this node's rails, software and
 * PCIe links. */
#include "config.h"

#include "core_cli.h"
#include "cluster_links.h"
#include "cluster_rails.h"
#include "cluster_software.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gdr_core_cmd_rails(int argc, char **argv)
{
    const char *root = NULL, *proc = NULL, *node = NULL, *v;
    char host[256];
    for (int i = 0; i < argc; i++) {
        if (gdr_core_opt(argc, argv, &i, "--sysfs-root", &v))
            root = v;
        else if (gdr_core_opt(argc, argv, &i, "--procfs-root", &v))
            proc = v;
        else if (gdr_core_opt(argc, argv, &i, "--node", &v))
            node = v;
        else
            return gdr_core_usage_error("rails: unknown argument '%s'", argv[i]);
        if (gdr_core_missing_value)
            return gdr_core_usage_error("rails: %s needs a value", gdr_core_missing_value);
    }
    if (root && access(root, F_OK))
        return gdr_core_usage_error("rails: --sysfs-root %s: %s", root, strerror(errno));
    if (proc && access(proc, F_OK))
        return gdr_core_usage_error("rails: --procfs-root %s: %s", proc, strerror(errno));
    if (!node) {
        if (gethostname(host, sizeof(host)))
            snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        node = host;
    }
    struct gdr_rail_map *m = calloc(1, sizeof(*m));
    if (!m)
        return gdr_core_usage_error("out of memory");
    if (gdr_rails_detect(root, proc, m)) {
        free(m);
        return gdr_core_report_error();
    }
    for (size_t i = 0; i < m->nwarnings; i++)
        fprintf(stderr, "gdr-cluster-core: warning: %s: %s\n", node, m->warnings[i]);
    cJSON *j = gdr_rails_to_json(node, m);
    struct gdr_node_software *sw = malloc(sizeof(*sw));
    if (sw) {
        gdr_node_software_detect(root, proc, m, sw);
        cJSON_AddItemToObject(j, "software", gdr_node_software_to_json(sw));
        free(sw);
    }
    struct gdr_node_links *links = malloc(sizeof(*links));
    if (links) {
        gdr_node_links_detect(root, m, links);
        cJSON_AddItemToObject(j, "pcie_links", gdr_node_links_to_json(links));
        free(links);
    }
    int rc = gdr_core_write_json(j, NULL);
    cJSON_Delete(j);
    free(m);
    return rc;
}
