/* cluster_digest.h - report.md, the text digest of one cluster run: what
 * ran, the verdict, the suspects and their retests, per-rail and per-node
 * summaries, the figures, and a pointer to report.html. It renders the
 * findings of suspects.json (cluster_findings.h) and judges nothing. */
#ifndef GDR_TOOLS_CLUSTER_DIGEST_H
#define GDR_TOOLS_CLUSTER_DIGEST_H

#include "cluster_plan.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct gdr_digest_input {
    const char *title;       /* "" for none */
    const cJSON *manifest;   /* manifest.json, or NULL */
    const char *figures_dir; /* where heat/hist PNGs are, or NULL */
    const char *figures_rel; /* the same, relative to report.md */
    const char *rails_dir;   /* NODE.json from `rails` (the rails), or NULL */
};

/* Write the report of doc (suspects.json with its findings) to f. */
void gdr_cluster_digest(FILE *f, const struct gdr_plan *p, const cJSON *doc,
                        const struct gdr_digest_input *in);

#endif
