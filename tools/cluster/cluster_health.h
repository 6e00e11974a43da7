/* cluster_health.h - dead nodes: a finding, not an edge case.
 *
 * From the manifest (each run's status, the nodes the rails probe never
 * reached) and the plan, the node suspects that measured nothing:
 *   unreachable  the rails probe got no answer: left out of the plan;
 *   failed       its runs fail from some point on to the end, with every
 *                partner: at least two partners, or its only one (then its
 *                partner is a candidate too and the retest tells them
 *                apart).
 * Each gets one retest: a run from it to a healthy partner (a node with no
 * failed run and no other suspicion). Confirmed when that run fails too,
 * cleared when it runs, unresolved when it did not run. */
#ifndef GDR_TOOLS_CLUSTER_HEALTH_H
#define GDR_TOOLS_CLUSTER_HEALTH_H

#include "cluster_plan.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

#define GDR_HEALTH_MAX_PARTNERS 8

struct gdr_dead_node {
    size_t node;
    bool unreachable;          /* else failed */
    size_t nfailed;            /* failed runs in its tail */
    size_t since_round;        /* round of the first of them */
    long last_run;             /* plan ordinal of its last failed run; -1 unreachable */
    struct gdr_test_mode test; /* that run's test and rail (the retest's) */
    int rail;
    size_t npartners; /* distinct partners of those runs */
    size_t partners[GDR_HEALTH_MAX_PARTNERS];
    char why[440]; /* the probe's reason, or the last failed run's class and reason */
};

struct gdr_health {
    size_t n;
    struct gdr_dead_node *v;
    size_t *nfail; /* per plan node: its failed runs */
    bool *dead;    /* per plan node: one of v (never a healthy partner) */
};

/* Read the dead nodes from manifest (manifest.json of gdr-cluster-core
 * manifest) over plan p. Returns 0 or -1 (memory). The manifest lists the
 * runs in plan order; per run only its state is kept (and a failed run's
 * reason), so that the file variant reads a manifest of any size one
 * entry at a time. */
int gdr_health_from_manifest(const cJSON *manifest, const struct gdr_plan *p, struct gdr_health *h);
int gdr_health_from_manifest_file(const char *path, const struct gdr_plan *p, struct gdr_health *h);
/* The same from what the manifest is made of: the run status lines (in
 * plan order: cluster_status.h) and the probe's NODE<TAB>REASON lines
 * (NULL: none); a tenth of the manifest's bytes at thousands of nodes. */
int gdr_health_from_status(const char *status, const char *unreachable, const struct gdr_plan *p,
                           struct gdr_health *h);
void gdr_health_free(struct gdr_health *h);

/* suspects.json's entry for dead node k: kind "node", finding "unreachable"
 * or "failed", the evidence, and a retest run from it to partner (a plan
 * node index; -1: none, the verdict stays unresolved). */
cJSON *gdr_health_suspect_json(const struct gdr_health *h, size_t k, const struct gdr_plan *p,
                               long partner, size_t number, unsigned base_port);

#endif
