/* report.h - gdr-report's pages, each one self-contained HTML (html.h):
 * a sweep or nightly run directory, a cluster run directory, and the
 * comparison of two runs. Each builder reads its input, checks all of it,
 * and only then fills the buffer: bad input is one gdr_fail message
 * (exit 2) and no page. */
#ifndef GDR_REPORT_REPORT_H
#define GDR_REPORT_REPORT_H

#include "figure.h"
#include "html.h"
#include "json.h" /* gdr_jstr, gdr_jnum */

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect.h"

struct gdr_report_opts {
    const char *title;   /* NULL: from the input */
    char *const *doctor; /* gdr_doctor --json files given with --doctor */
    size_t ndoctor;
    double bw_tol, lat_tol;  /* comparison tolerances (fractions) */
    const char *generator;   /* the footer: what made the page */
    struct gdr_figset *figs; /* the page's figures (tools/figure), drawn by gdr_report.c */
};

/* A sweep's, a nightly's or any directory of result documents. */
int gdr_report_sweep(struct gdr_buf *b, const char *dir, const struct gdr_report_opts *o);
/* A gdr-cluster results directory (plan.json beside the documents). */
int gdr_report_cluster(struct gdr_buf *b, const char *dir, const struct gdr_report_opts *o);
/* RUN against BASE (directories or files): both curves, change, verdict. */
int gdr_report_compare(struct gdr_buf *b, const char *base, const char *run,
                       const struct gdr_report_opts *o);

/* ---- shared by the pages (report_load.c) ---- */

/* One result document with its parsed JSON (for the optional fields the
 * library does not keep: limit, pct_of_limit, clean, command lines). */
struct gdr_rdoc {
    struct gdr_doc d;
    cJSON *root;
};

struct gdr_rdir {
    size_t ndocs;
    struct gdr_rdoc *docs; /* sorted by file name */
    cJSON *manifest;       /* manifest.json or NULL */
    size_t ndoctor;
    cJSON **doctor;            /* DIR/doctor/ and --doctor files */
    char (*doctor_names)[256]; /* their file names */
    cJSON *history;            /* history/check.json (a nightly's gdr-history check --json) */
    struct gdr_set set;        /* the complete documents as series */
    bool has_set;
    struct gdr_figset *figs; /* the page's (the options') */
};

/* Read every *.json of dir (not recursing; manifest.json is the run's, not
 * a result document; doctor/ and history/check.json are read too), each checked as gdr-json check
 * does; a document of a newer schema version, corrupt JSON or a failed
 * check is an error naming the file. min_docs: fewer documents is an
 * error ("no result documents"). Returns 0 or -1 after gdr_fail. */
int gdr_rdir_load(const char *dir, const struct gdr_report_opts *o, size_t min_docs,
                  struct gdr_rdir *r);
void gdr_rdir_free(struct gdr_rdir *r);
/* The parsed document of one in r->set, by path. */
const struct gdr_rdoc *gdr_rdir_find(const struct gdr_rdir *r, const char *path);

/* What the optional per-row fields of a series say at one size, over its
 * documents (docs/results-format.md; from the limits issue): */
struct gdr_row_extra {
    bool clean_known, clean; /* every document's row said clean: true */
    double limit, pct;       /* bytes/s and percent; NAN when unknown */
    char bound_by[16];
};
void gdr_row_extra(const struct gdr_rdir *r, const struct gdr_series *s, uint64_t size,
                   struct gdr_row_extra *x);

/* A soak document's section (report_soak.c): its summary, the timeline of
 * its intervals from its --json-lines stream (DIR/its name, else where it
 * was written), its findings; index numbers the section's id. */
int gdr_report_soak_section(struct gdr_buf *b, const struct gdr_rdir *r, const struct gdr_rdoc *rd,
                            const char *dir, size_t index);
/* A cluster soak's section of the cluster page (report_soak.c):
 * suspects.json's "soak" (nothing when sj has none): the flapping nodes,
 * a timeline with a row per link with findings (the first few; the rest
 * counted), outages and dips marked, and a table of those links. */
int gdr_report_cluster_soak(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *sj);

/* A test's section of the sweep page (report_tests.c). */
int gdr_report_test_section(struct gdr_buf *b, const struct gdr_rdir *r, const char *test);

/* Shared page pieces (report_page.c). */
/* A JSON array of strings (a command line), joined by spaces, escaped. */
void gdr_argv_text(struct gdr_buf *b, const cJSON *arr);
const char *gdr_pair_short(const char *pair); /* "host-cuda" -> "H-D" */
/* "H-D GDR on (host/peermem)" */
void gdr_series_label(const struct gdr_series *s, char *buf, size_t len);
/* <td class="n" data-si="..."> with the shown number. */
void gdr_td_num(struct gdr_buf *b, double si, double scale, const char *mark, const char *title);

#endif
