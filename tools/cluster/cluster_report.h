/* cluster_report.h - report.md, the capacity report of one cluster run:
 * what ran, per-node and per-rail summaries of the analysed matrices, the
 * suspects and their verdicts, the figures. */
#ifndef GDR_TOOLS_CLUSTER_REPORT_H
#define GDR_TOOLS_CLUSTER_REPORT_H

#include "cluster_suspects.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct gdr_report_input {
    const char *title;       /* "" for none */
    const cJSON *manifest;   /* manifest.json, or NULL */
    const cJSON *suspects;   /* suspects.json, or NULL */
    const char *figures_dir; /* where heat/hist PNGs are, or NULL */
    const char *figures_rel; /* the same, relative to report.md */
    const char *rails_dir;   /* NODE.json from `rails` (software), or NULL */
    size_t worst;            /* per matrix, the N worst nodes only (0: every node) */
};

/* Write the report to f. d holds the statistics of the analysed matrices. */
void gdr_cluster_report(FILE *f, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                        const struct gdr_detection *d, const struct gdr_detect_opts *o,
                        const struct gdr_report_input *in);

#endif
