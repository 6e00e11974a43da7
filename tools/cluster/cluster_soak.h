/* cluster_soak.h - a cluster soak's findings (gdr-cluster --soak): every
 * run is a benchmark's soak, and its client document's soak.findings
 * (docs/results-format.md "A soak") are read here, per link (a node pair on
 * a rail, both directions, every round it soaked), judged by
 * gdr_soak_judge (cluster_suspects.h: flapping links and nodes) and
 * written once as suspects.json's "soak", which report.md, report.html and
 * aggregate.json carry as they are. A soak is not retested: its outages
 * are what happened over hours, which a short serial run cannot confirm. */
#ifndef GDR_TOOLS_CLUSTER_SOAK_H
#define GDR_TOOLS_CLUSTER_SOAK_H

#include "cluster_plan.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/* Events (outages and dips) kept per link for the report and the
 * timeline; more are counted, not listed. */
#define GDR_SOAK_LINK_EVENTS 16

/* Is doc a complete soak's document? The benchmark then exits 1 for its
 * findings, and the run is a completed run all the same. */
bool gdr_soak_doc_complete(const cJSON *doc);

/* suspects.json's "soak" for plan p (a soak plan) from the client
 * documents in dir (ID.client.json, else ID.failed-client.json: a soak
 * ended by an outage's deadline): the soak, each link with an outage or a
 * dip (flapping links first), the flapping nodes, and how many runs were
 * read. NULL on error (recorded). */
cJSON *gdr_soak_findings(const struct gdr_plan *p, const char *dir);

/* "soak" of doc (suspects.json): the counts gdr-cluster's verdict and exit
 * status take (0 when doc has no soak). */
struct gdr_soak_counts {
    size_t flapping_links, dipping_links, flapping_nodes;
};
void gdr_soak_counts(const cJSON *doc, struct gdr_soak_counts *c);

#endif
