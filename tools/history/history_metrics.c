/* history_metrics.c - the OpenMetrics / node_exporter textfile export. */
#include "config.h"

#include "history_metrics.h"
#include "history_check.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void hist_metrics_label(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 3 < len; s++) {
        if (*s == '\\' || *s == '"') {
            out[n++] = '\\';
            out[n++] = *s;
        } else if (*s == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
}

/* The labels of a series: testbed, test, placements, registrations, direction, size. */
static void series_labels(const struct hdb_testbed *t, const struct hdb_key *k, char *out,
                          size_t len)
{
    char tb[600], test[160];
    hist_metrics_label(t->name, tb, sizeof(tb));
    hist_metrics_label(k->test, test, sizeof(test));
    snprintf(out, len,
             "testbed=\"%s\",test=\"%s\",client_placement=\"%s\",client_registration=\"%s\","
             "server_placement=\"%s\",server_registration=\"%s\",bidirectional=\"%s\","
             "size_bytes=\"%llu\"",
             tb, test, k->cplace, k->creg, k->splace, k->sreg, k->bidir ? "true" : "false",
             (unsigned long long)k->size);
}

/* In enum hist_verdict's order, then the missing series. */
static const char *const verdicts[] = {"ok",         "noise",   "improvement",   "regression",
                                       "new_series", "suspect", "missing_series"};
#define NVERDICTS (sizeof(verdicts) / sizeof(verdicts[0]))
_Static_assert(NVERDICTS == HIST_MISSING + 1, "a label per verdict and the missing series");

struct mrow {
    const struct hdb_testbed *t;
    const struct hdb_series *s;
    size_t verdict; /* index into verdicts */
    double value, baseline;
};

static void family(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void sample(FILE *f, const char *name, const char *labels, double v)
{
    fprintf(f, "%s{%s} %.9g\n", name, labels, v);
}

int hist_metrics_write(FILE *f, const struct hdb_testbed *tbs, size_t n, const struct hist_opts *o)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += tbs[i].nseries;
    struct mrow *rows = calloc(total + 1, sizeof(*rows));
    size_t(*counts)[NVERDICTS] = calloc(n + 1, sizeof(*counts));
    size_t *failed = calloc(n + 1, sizeof(*failed));
    if (!rows || !counts || !failed) {
        free(rows);
        free(counts);
        free(failed);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    size_t nr = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct hdb_testbed *t = &tbs[i];
        if (t->nruns == 0)
            continue;
        struct check_result r;
        if ((rc = hist_check(t, t->nruns - 1, o, &r)))
            break;
        for (size_t k = 0; k < r.nrows; k++) {
            const struct check_row *cr = &r.rows[k];
            struct mrow *m = &rows[nr++];
            m->t = t;
            m->s = cr->s;
            m->verdict = cr->missing ? HIST_MISSING : (size_t)cr->verdict;
            m->value = cr->value;
            m->baseline = cr->center;
            counts[i][m->verdict]++;
        }
        failed[i] = r.nfailed;
        hist_check_free(&r);
    }
    char labels[1400];
    static const struct {
        const char *name, *help, *metric;
        bool base;
    } values[] = {
        {"gdrbench_bandwidth_bytes_per_second",
         "Average bandwidth of the newest night of a series.", "bandwidth", false},
        {"gdrbench_bandwidth_baseline_bytes_per_second",
         "Rolling baseline of a bandwidth series (median of the last good nights).", "bandwidth",
         true},
        {"gdrbench_latency_seconds", "Median latency of the newest night of a series.", "latency",
         false},
        {"gdrbench_latency_baseline_seconds",
         "Rolling baseline of a latency series (median of the last good nights).", "latency", true},
    };
    for (size_t v = 0; rc == 0 && v < sizeof(values) / sizeof(values[0]); v++) {
        family(f, values[v].name, values[v].help);
        for (size_t i = 0; i < nr; i++) {
            double x = values[v].base ? rows[i].baseline : rows[i].value;
            if (strcmp(rows[i].s->key.metric, values[v].metric) || isnan(x))
                continue;
            series_labels(rows[i].t, &rows[i].s->key, labels, sizeof(labels));
            sample(f, values[v].name, labels, x);
        }
    }
    if (rc == 0) {
        family(f, "gdrbench_series_change_ratio",
               "Newest night against the baseline, (value - baseline) / baseline, as measured.");
        for (size_t i = 0; i < nr; i++) {
            /* A suspect night is no measurement to compare (its verdict says so). */
            if (isnan(rows[i].value) || !(rows[i].baseline > 0) || rows[i].verdict == HV_SUSPECT)
                continue;
            series_labels(rows[i].t, &rows[i].s->key, labels, sizeof(labels));
            sample(f, "gdrbench_series_change_ratio", labels,
                   (rows[i].value - rows[i].baseline) / rows[i].baseline);
        }
        family(f, "gdrbench_series_verdict",
               "The verdict of the newest night of a series: 1 for its verdict, 0 for the others.");
        for (size_t i = 0; i < nr; i++) {
            series_labels(rows[i].t, &rows[i].s->key, labels, sizeof(labels));
            for (size_t v = 0; v < NVERDICTS; v++)
                fprintf(f, "gdrbench_series_verdict{%s,verdict=\"%s\"} %d\n", labels, verdicts[v],
                        rows[i].verdict == v);
        }
        family(f, "gdrbench_verdict_series", "Series of a testbed with each verdict.");
        for (size_t i = 0; i < n; i++) {
            char tb[600];
            hist_metrics_label(tbs[i].name, tb, sizeof(tb));
            for (size_t v = 0; v < NVERDICTS; v++)
                fprintf(f, "gdrbench_verdict_series{testbed=\"%s\",verdict=\"%s\"} %zu\n", tb,
                        verdicts[v], counts[i][v]);
        }
        family(f, "gdrbench_failed_runs", "Failed runs in the newest run of a testbed.");
        for (size_t i = 0; i < n; i++) {
            char tb[600];
            hist_metrics_label(tbs[i].name, tb, sizeof(tb));
            fprintf(f, "gdrbench_failed_runs{testbed=\"%s\"} %zu\n", tb, failed[i]);
        }
        family(f, "gdrbench_last_run_timestamp_seconds",
               "Start of the newest run of a testbed, Unix time.");
        for (size_t i = 0; i < n; i++) {
            if (tbs[i].nruns == 0)
                continue;
            struct tm tm = {0};
            if (!strptime(tbs[i].runs[tbs[i].nruns - 1].date, "%Y-%m-%dT%H:%M:%SZ", &tm))
                continue;
            char tb[600];
            hist_metrics_label(tbs[i].name, tb, sizeof(tb));
            fprintf(f, "gdrbench_last_run_timestamp_seconds{testbed=\"%s\"} %lld\n", tb,
                    (long long)timegm(&tm));
        }
        fprintf(f, "# EOF\n");
    }
    free(rows);
    free(counts);
    free(failed);
    return rc;
}
