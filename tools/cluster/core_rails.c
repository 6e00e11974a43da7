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
    static const struct option opts[] = {
        {"sysfs-root", required_argument, NULL, 's'},
        {"procfs-root", required_argument, NULL, 'p'},
        {"node", required_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    const char *root = NULL, *proc = NULL, *node = NULL;
    char host[256];
    int c, rc;
    while ((c = gdr_core_getopt(argc, argv, "", opts, NULL, 0, &rc)) != -1) {
        switch (c) {
        case 's': root = optarg; break;
        case 'p': proc = optarg; break;
        case 'n': node = optarg; break;
        }
    }
    if (rc)
        return rc;
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
    rc = gdr_core_write_json(j, NULL);
    cJSON_Delete(j);
    free(m);
    return rc;
}
