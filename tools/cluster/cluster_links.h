/* cluster_links.h - a node's PCIe links on its rails, for the capacity
 * report: each rail NIC's and GPU's link and every switch link above them
 * (common/topo/pcie.c's walk, the doctor's "below its maximum" rule), read
 * by the rails probe into rails/NODE.json ("pcie_links") and summed up per
 * node in report.md, where a node whose links differ from the others' is
 * marked. A NIC or a switch trained slower or narrower than both of its
 * ends can go is a node's slow link waiting to happen; a GPU's speed is
 * read at idle, when GPUs lower it to save power, so only its width is
 * compared (its speed under load is in each result row's gpu block). */
#ifndef GDR_TOOLS_CLUSTER_LINKS_H
#define GDR_TOOLS_CLUSTER_LINKS_H

#include "cluster_rails.h"
#include "pcie.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define GDR_NODE_LINKS_MAX 256

struct gdr_node_link {
    char name[64];           /* "mlx5_0", "GPU 0", or a bridge's BDF */
    struct gdr_pcie_hop hop; /* the walk's hop: role, link, expect_*, below_max */
};

struct gdr_node_links {
    size_t n;
    struct gdr_node_link link[GDR_NODE_LINKS_MAX];
};

/* The links of map's rail NICs and GPUs and the switch links above them
 * (each once), from sysfs_root (NULL: /sys). Software NICs and devices
 * sysfs does not show are left out: never an error. */
void gdr_node_links_detect(const char *sysfs_root, const struct gdr_rail_map *map,
                           struct gdr_node_links *out);

/* [{"name", and common/topo's link shape (pcie_json.h: "bdf", "role",
 *   "current_gts", ..., "expect_gts", "expect_width", "below_max")}, ...]
 * (numbers null when unknown). */
cJSON *gdr_node_links_to_json(const struct gdr_node_links *l);
/* The inverse; -1 when arr is not such an array (an older probe's file). */
int gdr_node_links_from_json(const cJSON *arr, struct gdr_node_links *out);

/* Whether a link is short of what it should run at, as report.md counts
 * it: a NIC or bridge by the doctor's rule, a GPU by its width only. */
bool gdr_node_link_short(const struct gdr_node_link *k);

/* What report.md compares across nodes, in one line: the NICs' current
 * links and the GPUs' widths with what they can reach, grouped with their
 * counts, and the switch links short of their maximum:
 * "NIC Gen5 x16 (8); GPU x16, up to Gen5 (8)", or "NIC Gen5 x16 (7),
 * Gen5 x8 (1); GPU x16, up to Gen5 (8); 1 switch link short". "-" when
 * there is no PCIe device on the rails. */
void gdr_node_links_summary(const struct gdr_node_links *l, char *out, size_t len);

/* Each short link named: "mlx5_3 Gen5 x8 (can Gen5 x16)", "GPU 2 x8 (can
 * x16)", "switch 0000:01:00.0 Gen3 x16 (can Gen4 x16)", comma-separated;
 * "" when none. */
void gdr_node_links_short(const struct gdr_node_links *l, char *out, size_t len);

#endif
