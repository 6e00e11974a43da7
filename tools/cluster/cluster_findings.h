/* cluster_findings.h - what one cluster run found, judged once and kept in
 * suspects.json beside the suspects and the matrices' statistics: the
 * verdict and its reasons, the display units of the run, the heatmaps'
 * blocking, per analysed matrix its worst nodes and links, and per node the
 * software and PCIe links, each value that differs from most nodes' marked.
 * report.md (cluster_digest.c) and report.html (gdr-report) render these;
 * neither judges anything itself, and gdr_findings_fmt is their one way of
 * writing a number. */
#ifndef GDR_TOOLS_CLUSTER_FINDINGS_H
#define GDR_TOOLS_CLUSTER_FINDINGS_H

#include "cluster_suspects.h"
#include "figure.h"

#include <cjson/cJSON.h>
#include <stddef.h>

#define GDR_WORST_LINKS 10

/* Add the findings to doc (gdr_detection_to_json(d, ...)'s, dead nodes
 * added). manifest: manifest.json without its runs, or NULL; rails_dir: the
 * rails probe's NODE.json files; worst: per matrix, the N worst nodes (0:
 * every node). Returns 0 or -1 (memory). */
int gdr_findings_add(cJSON *doc, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                     const struct gdr_detection *d, const struct gdr_detect_opts *o,
                     const cJSON *manifest, const char *rails_dir, size_t worst);

/* summary.verdict ("pass" or "fail") and summary.reasons from the doc's
 * suspects and runs; again after the retests change their status. */
void gdr_findings_verdict(cJSON *doc);

/* doc (suspects.json as read, or NULL) with its findings: the detector run
 * here (o) when doc has none, an older run's or no suspects.json. Takes
 * doc; NULL on error (recorded). */
cJSON *gdr_findings_ensure(cJSON *doc, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                           const struct gdr_detect_opts *o, const cJSON *manifest,
                           const char *rails_dir, size_t worst);

/* The detector's options as doc recorded them (defaults for those absent). */
void gdr_detect_opts_from_json(const cJSON *doc, struct gdr_detect_opts *o);

/* The run's one unit of bandwidth (latency) in every output (report.md,
 * report.html, figures; "units" names it): gdr_unit_bw (gdr_unit_lat) of
 * the largest reference of doc's matrices of that metric. */
struct gdr_unit gdr_findings_unit(const cJSON *doc, bool latency);
/* v (bytes/s or seconds) in it: "5.94 GB/s", "3.21 µs"; "-" when not above 0. */
void gdr_findings_fmt(const cJSON *doc, bool latency, double v, char *buf, size_t len);

#endif
