/* history_check.h - the history of one testbed judged: every series
 * analysed up to a run (annotations split it into independent stretches,
 * history_stats.h judges each), and the check of that run in text,
 * Markdown, JUnit XML and JSON, and the points as CSV. */
#ifndef GDR_TOOLS_HISTORY_CHECK_H
#define GDR_TOOLS_HISTORY_CHECK_H

#include "figure.h"
#include "history_db.h"
#include "history_stats.h"

#include <stdio.h>

#define HIST_MAX_STEPS 32

struct hist_view {
    const struct hdb_series *s;
    size_t n; /* points up to the run */
    double *v;
    struct hist_point *pts;
    size_t nsteps;
    struct hist_step steps[HIST_MAX_STEPS]; /* indices into the points */
    size_t seg;                             /* first point after the last annotation */
};

/* Analyse s's points of runs up to index upto (into t->runs). 0 or -1. */
int hist_analyse(const struct hdb_testbed *t, const struct hdb_series *s, size_t upto,
                 const struct hist_opts *o, struct hist_view *out);
void hist_view_free(struct hist_view *v);

struct check_row {
    const struct hdb_series *s;
    bool missing; /* in recent runs, not in this one */
    enum hist_verdict verdict;
    double value, center, z, rel; /* z, rel: > 0 is worse */
    bool has_step;
    struct hist_step step; /* the newest step since the last annotation */
    char step_date[40];
    size_t outliers;       /* earlier outlier nights since the annotation */
    char outlier_date[40]; /* the newest of them */
    char since[40];        /* the annotation the baseline starts at, or "" */
    int clean;             /* the point's: 1, 0 (verdict HV_SUSPECT), -1 unknown */
    double pct_of_limit;   /* the point's % of the path's limit; NAN unknown */
    size_t unclean;        /* earlier not-clean nights since the annotation (left out) */
    char unclean_date[40]; /* the newest of them */
};

/* check_result.counts: one per verdict, then the missing series. */
#define HIST_MISSING (HV_SUSPECT + 1)

struct check_result {
    const struct hdb_testbed *t;
    size_t run;
    struct hist_opts opts;
    size_t nrows;
    struct check_row *rows;
    size_t counts[HIST_MISSING + 1]; /* per verdict, and [HIST_MISSING] */
    size_t nfailed;                  /* failed runs of this run */
};

int hist_check(const struct hdb_testbed *t, size_t run, const struct hist_opts *o,
               struct check_result *r);
/* One series' row of the check of its newest analysed point (v from
 * hist_analyse, v->n > 0): verdict, value, baseline, step, outliers. */
void hist_check_row(const struct hdb_testbed *t, const struct hist_view *v, struct check_row *row);
void hist_check_free(struct check_result *r);
/* Exit status of the check: 1 on a regression or a failed run, else 0 (a
 * suspect series is flagged in every report, but is no regression). */
int hist_check_status(const struct check_result *r);

void hist_check_text(FILE *f, const struct check_result *r);
void hist_check_markdown(FILE *f, const struct check_result *r);
void hist_check_junit(FILE *f, const struct check_result *r);
/* A compact JSON document; NULL when out of memory. Free it. */
char *hist_check_json(const struct check_result *r);

/* Every point of every series of t (annotations applied), one CSV line
 * each, after the header line. Values, spread, baseline and sigma in
 * hist_unit (the unit column); z and rel > 0 is worse; outlier and step
 * are 0/1. */
void hist_export_csv_header(FILE *f);
int hist_export_csv(FILE *f, const struct hdb_testbed *t, const struct hist_opts *o);

/* The unit t's values of k's metric are shown in, one for all of t's
 * outputs (check, CSV, trend, dashboard): gdr_unit_bw or gdr_unit_lat of
 * its largest point (t->most). */
struct gdr_unit hist_unit(const struct hdb_testbed *t, const struct hdb_key *k);
bool hist_higher_better(const struct hdb_key *k);

#endif
