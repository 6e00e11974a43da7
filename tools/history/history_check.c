/* history_check.c - judge a testbed's series: the regression check of a
 * run, written as text, Markdown, JUnit XML and JSON, and the CSV export
 * (history_check.h). */
#include "config.h"

#include "history_check.h"
#include "error.h"
#include "escape.h"
#include "json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool hist_higher_better(const struct hdb_key *k)
{
    return strcmp(k->metric, "latency") != 0;
}

struct gdr_unit hist_unit(const struct hdb_testbed *t, const struct hdb_key *k)
{
    return hist_higher_better(k) ? gdr_unit_bw(t->most[0]) : gdr_unit_lat(t->most[1]);
}

/* The number of annotations in effect at a date (ISO dates compare as
 * strings; "2026-12-01" sorts before any time of that day). */
static size_t notes_before(const struct hdb_testbed *t, const char *date)
{
    size_t k = 0;
    while (k < t->nnotes && strcmp(t->notes[k].date, date) <= 0)
        k++;
    return k;
}

int hist_analyse(const struct hdb_testbed *t, const struct hdb_series *s, size_t upto,
                 const struct hist_opts *o, struct hist_view *out)
{
    memset(out, 0, sizeof(*out));
    out->s = s;
    while (out->n < s->npoints && s->points[out->n].run <= upto)
        out->n++;
    out->v = malloc((out->n + 1) * sizeof(*out->v));
    out->pts = malloc((out->n + 1) * sizeof(*out->pts));
    if (!out->v || !out->pts) {
        hist_view_free(out);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    /* Not-clean nights are no measurement to judge by: the steps are
     * searched over the good nights alone (good[], at their indices idx[]). */
    bool *suspect = calloc(out->n + 1, sizeof(*suspect));
    double *good = malloc((out->n + 1) * sizeof(*good));
    size_t *idx = malloc((out->n + 1) * sizeof(*idx));
    if (!suspect || !good || !idx) {
        free(suspect);
        free(good);
        free(idx);
        hist_view_free(out);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    struct hist_opts so = *o;
    so.higher_better = hist_higher_better(&s->key);
    for (size_t i = 0; i < out->n; i++) {
        out->v[i] = s->points[i].value;
        suspect[i] = s->points[i].clean == 0;
    }
    /* Each stretch between annotations is a history of its own. */
    for (size_t a = 0; a < out->n;) {
        size_t seg = notes_before(t, t->runs[s->points[a].run].date), b = a + 1;
        while (b < out->n && notes_before(t, t->runs[s->points[b].run].date) == seg)
            b++;
        size_t ng = 0;
        for (size_t i = a; i < b; i++)
            if (!suspect[i]) {
                good[ng] = out->v[i];
                idx[ng++] = i - a;
            }
        struct hist_step st[HIST_MAX_STEPS];
        size_t ns = hist_steps(good, ng, &so, st, HIST_MAX_STEPS);
        for (size_t i = 0; i < ns; i++)
            st[i].at = idx[st[i].at];
        hist_judge_series_masked(out->v + a, b - a, &so, st, ns, suspect + a, out->pts + a);
        for (size_t i = 0; i < ns && out->nsteps < HIST_MAX_STEPS; i++) {
            st[i].at += a;
            out->steps[out->nsteps++] = st[i];
        }
        out->seg = a;
        a = b;
    }
    free(suspect);
    free(good);
    free(idx);
    return 0;
}

void hist_view_free(struct hist_view *v)
{
    free(v->v);
    free(v->pts);
    v->v = NULL;
    v->pts = NULL;
}

static void run_date(const struct hdb_testbed *t, const struct hist_view *v, size_t i, char *buf,
                     size_t len)
{
    snprintf(buf, len, "%s", t->runs[v->s->points[i].run].date);
}

void hist_check_row(const struct hdb_testbed *t, const struct hist_view *v, struct check_row *row)
{
    const struct hist_point *p = &v->pts[v->n - 1];
    row->verdict = p->verdict;
    row->value = v->v[v->n - 1];
    row->center = p->center;
    row->z = p->z;
    row->rel = p->rel;
    row->clean = v->s->points[v->n - 1].clean;
    row->pct_of_limit = v->s->points[v->n - 1].pct_of_limit;
    for (size_t i = v->nsteps; i-- > 0;)
        if (v->steps[i].at >= v->seg) {
            row->has_step = true;
            row->step = v->steps[i];
            run_date(t, v, row->step.at, row->step_date, sizeof(row->step_date));
            break;
        }
    for (size_t i = v->seg; i + 1 < v->n; i++) {
        if (v->pts[i].outlier) {
            row->outliers++;
            run_date(t, v, i, row->outlier_date, sizeof(row->outlier_date));
        }
        if (v->pts[i].verdict == HV_SUSPECT) {
            row->unclean++;
            run_date(t, v, i, row->unclean_date, sizeof(row->unclean_date));
        }
    }
    size_t k = notes_before(t, t->runs[v->s->points[v->n - 1].run].date);
    if (k > 0)
        snprintf(row->since, sizeof(row->since), "%s", t->notes[k - 1].date);
}

int hist_check(const struct hdb_testbed *t, size_t run, const struct hist_opts *o,
               struct check_result *r)
{
    memset(r, 0, sizeof(*r));
    r->t = t;
    r->run = run;
    r->opts = *o;
    r->rows = calloc(t->nseries + 1, sizeof(*r->rows));
    if (!r->rows)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    /* Missing: a point in one of the last `window` runs before, none now. */
    size_t recent = run > o->window ? run - o->window : 0;
    for (size_t k = 0; k < t->nseries; k++) {
        const struct hdb_series *s = &t->series[k];
        struct hist_view v;
        if (hist_analyse(t, s, run, o, &v))
            return -1;
        struct check_row *row = &r->rows[r->nrows];
        row->s = s;
        if (v.n > 0 && s->points[v.n - 1].run == run) {
            hist_check_row(t, &v, row);
            r->counts[row->verdict]++;
            r->nrows++;
        } else if (v.n > 0 && s->points[v.n - 1].run >= recent) {
            row->missing = true;
            row->value = row->center = row->z = row->rel = row->pct_of_limit = NAN;
            row->clean = -1;
            r->counts[HIST_MISSING]++;
            r->nrows++;
        }
        hist_view_free(&v);
    }
    for (size_t i = 0; i < t->nfailures; i++)
        r->nfailed += t->failures[i].run == run;
    return 0;
}

void hist_check_free(struct check_result *r)
{
    free(r->rows);
    r->rows = NULL;
}

int hist_check_status(const struct check_result *r)
{
    return r->counts[HV_REGRESSION] || r->nfailed ? GDR_EXIT_RUN : GDR_EXIT_OK;
}

static const char *verdict_text(const struct check_row *row)
{
    return row->missing ? "missing series" : hist_verdict_name(row->verdict);
}

enum num_style { N_VALUE, N_PCT, N_Z };

static void num(char *buf, size_t len, enum num_style style, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (style == N_VALUE)
        gdr_fmt_num(v, buf, len);
    else if (style == N_PCT)
        snprintf(buf, len, "%+.1f%%", v);
    else
        snprintf(buf, len, "%+.1f", v);
}

/* The notes of a row: not clean, step, outliers, not-clean nights,
 * annotation, "; "-separated. */
static void notes(const struct check_row *row, char *buf, size_t len)
{
    char step[128] = "", out[128] = "", since[96] = "", unclean[128] = "";
    const char *dirty = row->clean == 0 && !row->missing
                            ? "not clean: the NIC counted errors or retransmissions, not judged"
                            : "";
    /* The change of a step is shown as measured (+ faster / lower latency). */
    if (row->has_step)
        snprintf(step, sizeof(step), "step at %s (%+.1f%%)", row->step_date,
                 (row->step.after - row->step.before) / row->step.before * 100);
    if (row->outliers)
        snprintf(out, sizeof(out), "%zu outlier night%s (last %s)", row->outliers,
                 row->outliers == 1 ? "" : "s", row->outlier_date);
    if (row->unclean)
        snprintf(unclean, sizeof(unclean), "%zu not-clean night%s left out (last %s)", row->unclean,
                 row->unclean == 1 ? "" : "s", row->unclean_date);
    if (row->since[0])
        snprintf(since, sizeof(since), "baseline from annotation %s", row->since);
    const char *parts[] = {dirty, step, out, unclean, since};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && used < len; i++)
        if (parts[i][0]) {
            int k = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", parts[i]);
            used = k < 0 ? len : used + (size_t)k;
        }
}

/* z as measured (the rows keep z with > 0 worse). */
static double z_shown(const struct check_row *row)
{
    return hist_higher_better(&row->s->key) ? -row->z : row->z;
}

/* Measured change over the baseline (sign as measured, not as judged). */
static double change_pct(const struct check_row *row)
{
    return row->center > 0 ? (row->value - row->center) / row->center * 100 : NAN;
}

static void summary_line(FILE *f, const struct check_result *r, const char *lead)
{
    const struct hdb_run_row *run = &r->t->runs[r->run];
    fprintf(f,
            "%stestbed %s, run %s (%s, gdrbench %s): %zu series: %zu regression%s, "
            "%zu improvement%s, %zu noise, %zu ok, %zu new, %zu missing, %zu suspect (not "
            "clean); %zu failed run%s\n",
            lead, r->t->name, run->run_id, run->date, run->version, r->nrows,
            r->counts[HV_REGRESSION], r->counts[HV_REGRESSION] == 1 ? "" : "s",
            r->counts[HV_IMPROVEMENT], r->counts[HV_IMPROVEMENT] == 1 ? "" : "s",
            r->counts[HV_NOISE], r->counts[HV_OK], r->counts[HV_NEW], r->counts[HIST_MISSING],
            r->counts[HV_SUSPECT], r->nfailed, r->nfailed == 1 ? "" : "s");
}

/* One check row's cells, formatted the same for the text and markdown tables. */
struct row_cells {
    char pair[48], reg[40], size[32], metric[24], value[32], pct[32], base[32], change[32], z[32];
    char notes[512];
};

static void row_cells(const struct hdb_testbed *t, const struct check_row *row, struct row_cells *c)
{
    const struct hdb_key *k = &row->s->key;
    struct gdr_unit u = hist_unit(t, k);
    hdb_key_pair(k, c->pair, sizeof(c->pair));
    hdb_key_reg(k, c->reg, sizeof(c->reg));
    gdr_fmt_size(k->size, c->size, sizeof(c->size));
    snprintf(c->metric, sizeof(c->metric), "%s_%s", hist_higher_better(k) ? "bw" : "median",
             u.name);
    num(c->value, sizeof(c->value), N_VALUE, row->value * u.scale);
    if (isnan(row->pct_of_limit))
        snprintf(c->pct, sizeof(c->pct), "-");
    else
        snprintf(c->pct, sizeof(c->pct), "%.1f%%", row->pct_of_limit);
    num(c->base, sizeof(c->base), N_VALUE, row->center * u.scale);
    num(c->change, sizeof(c->change), N_PCT, change_pct(row));
    num(c->z, sizeof(c->z), N_Z, z_shown(row));
    notes(row, c->notes, sizeof(c->notes));
}

void hist_check_text(FILE *f, const struct check_result *r)
{
    fprintf(f, "%-10s %-16s %-16s %10s %-10s %12s %7s %12s %8s %7s  %-14s %s\n", "test",
            "placement", "registration", "size", "metric", "value", "%limit", "baseline", "change",
            "z", "verdict", "notes");
    for (size_t i = 0; i < r->nrows; i++) {
        const struct check_row *row = &r->rows[i];
        const struct hdb_key *k = &row->s->key;
        struct row_cells c;
        row_cells(r->t, row, &c);
        fprintf(f, "%-10s %-16s %-16s %10s %-10s %12s %7s %12s %8s %7s  %-14s %s\n", k->test,
                c.pair, c.reg, c.size, c.metric, c.value, c.pct, c.base, c.change, c.z,
                row->verdict == HV_REGRESSION && !row->missing ? "REGRESSION" : verdict_text(row),
                c.notes);
    }
    for (size_t i = 0; i < r->t->nfailures; i++)
        if (r->t->failures[i].run == r->run)
            fprintf(f, "failed run: %s: %s\n", r->t->failures[i].name, r->t->failures[i].reason);
    summary_line(f, r, "gdr-history: ");
}

void hist_check_markdown(FILE *f, const struct check_result *r)
{
    const struct hist_opts *o = &r->opts;
    summary_line(f, r, "");
    char suspect[96] = "";
    if (r->counts[HV_SUSPECT])
        snprintf(suspect, sizeof(suspect), " (%zu series **suspect**: not judged)",
                 r->counts[HV_SUSPECT]);
    fprintf(f,
            "\nVerdict: %s%s. Baseline: median of the last %zu good nights; a regression is "
            "at least %.1f%% worse and %.1f noise sigmas (robust z) away, or a step of that "
            "size in the last %zu nights.\n\n",
            hist_check_status(r) ? "**FAIL**" : "pass", suspect, o->window, o->rel_min * 100,
            o->z_min, o->window);
    size_t shown = 0, unclean = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct check_row *row = &r->rows[i];
        unclean += row->unclean > 0;
        if (!row->missing && (row->verdict == HV_OK || row->verdict == HV_NEW) && !row->has_step)
            continue;
        if (shown++ == 0)
            fprintf(f, "| test | placement | registration | size | metric | value | "
                       "%% of limit | baseline | change | z | verdict | notes |\n"
                       "|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        const struct hdb_key *k = &row->s->key;
        struct row_cells c;
        row_cells(r->t, row, &c);
        const char *bold =
            (row->verdict == HV_REGRESSION || row->verdict == HV_SUSPECT) && !row->missing ? "**"
                                                                                           : "";
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s | ", k->test, c.pair,
                c.reg, c.size, c.metric, c.value, c.pct, c.base, c.change, c.z, bold,
                verdict_text(row), bold);
        gdr_esc_md_cell(f, c.notes);
        fprintf(f, " |\n");
    }
    if (shown == 0)
        fprintf(f, "Every series ok or new; no step since the last annotation.\n");
    if (r->counts[HV_SUSPECT])
        fprintf(f,
                "\n%zu series **suspect**: the NIC counted errors or retransmissions during "
                "this night's point (clean: false); not judged, and left out of every "
                "baseline.\n",
                r->counts[HV_SUSPECT]);
    if (unclean)
        fprintf(f,
                "\n%zu series had not-clean nights before this one since the last "
                "annotation: left out of their baselines and steps (gdr-history check: the "
                "notes).\n",
                unclean);
    for (size_t i = 0; i < r->t->nfailures; i++)
        if (r->t->failures[i].run == r->run) {
            fprintf(f, "\n- failed run `%s`: ", r->t->failures[i].name);
            gdr_esc_md_cell(f, r->t->failures[i].reason);
        }
    fprintf(f, "\n");
}

void hist_check_junit(FILE *f, const struct check_result *r)
{
    const struct hdb_run_row *run = &r->t->runs[r->run];
    size_t tests = r->nrows + r->nfailed;
    size_t failures = r->counts[HV_REGRESSION] + r->nfailed;
    size_t skipped = r->counts[HIST_MISSING] + r->counts[HV_SUSPECT];
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gdr-history\" "
            "tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"0\">\n",
            tests, failures);
    fprintf(f, "  <testsuite name=\"");
    gdr_esc_xml(f, r->t->name);
    fprintf(f,
            "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\" "
            "timestamp=\"",
            tests, failures, skipped);
    /* JUnit's timestamp has no zone designator. */
    char ts[40];
    snprintf(ts, sizeof(ts), "%.19s", run->date);
    gdr_esc_xml(f, ts);
    fprintf(f, "\" hostname=\"");
    gdr_esc_xml(f, r->t->name);
    fprintf(f, "\">\n    <properties>\n      <property name=\"run\" value=\"");
    gdr_esc_xml(f, run->run_id);
    fprintf(f, "\"/>\n      <property name=\"gdrbench\" value=\"");
    gdr_esc_xml(f, run->version);
    fprintf(f, "\"/>\n    </properties>\n");
    for (size_t i = 0; i < r->nrows; i++) {
        const struct check_row *row = &r->rows[i];
        const struct hdb_key *k = &row->s->key;
        char key[200], name[256], msg[1024], nt[512], val[48], base[48];
        struct gdr_unit u = hist_unit(r->t, k);
        hdb_key_name(k, key, sizeof(key));
        /* the JUnit name identifies the series in a CI's test history:
         * the byte count, as every night before (no display size) */
        snprintf(name, sizeof(name), "%s %llu B %s", key, (unsigned long long)k->size, k->metric);
        fprintf(f, "    <testcase classname=\"gdrbench.");
        gdr_esc_xml(f, k->test);
        fprintf(f, "\" name=\"");
        gdr_esc_xml(f, name);
        fprintf(f, "\" time=\"0\"");
        notes(row, nt, sizeof(nt));
        gdr_fmt_unit(u, row->value, val, sizeof(val));
        gdr_fmt_unit(u, row->center, base, sizeof(base));
        if (row->missing) {
            fprintf(f, ">\n      <skipped message=\"missing series: no point in this run\"/>\n"
                       "    </testcase>\n");
        } else if (row->verdict == HV_SUSPECT) {
            /* Not judged, and not hidden: CI reporters show skipped cases. */
            snprintf(msg, sizeof(msg), "suspect: %s; %s", val, nt);
            fprintf(f, ">\n      <skipped message=\"");
            gdr_esc_xml(f, msg);
            fprintf(f, "\"/>\n    </testcase>\n");
        } else if (row->verdict == HV_REGRESSION) {
            snprintf(msg, sizeof(msg),
                     "regression: %s against a baseline of %s (%+.1f%%, robust z %+.1f)%s%s", val,
                     base, change_pct(row), z_shown(row), nt[0] ? "; " : "", nt);
            fprintf(f, ">\n      <failure type=\"regression\" message=\"");
            gdr_esc_xml(f, msg);
            fprintf(f, "\">");
            gdr_esc_xml(f, msg);
            fprintf(f, "</failure>\n    </testcase>\n");
        } else {
            snprintf(msg, sizeof(msg), "%s: %s%s%s", hist_verdict_name(row->verdict), val,
                     nt[0] ? "; " : "", nt);
            fprintf(f, ">\n      <system-out>");
            gdr_esc_xml(f, msg);
            fprintf(f, "</system-out>\n    </testcase>\n");
        }
    }
    for (size_t i = 0; i < r->t->nfailures; i++) {
        const struct hdb_failure *fl = &r->t->failures[i];
        if (fl->run != r->run)
            continue;
        fprintf(f, "    <testcase classname=\"gdrbench.run\" name=\"");
        gdr_esc_xml(f, fl->name);
        fprintf(f, "\" time=\"0\">\n      <failure type=\"failed run\" message=\"");
        gdr_esc_xml(f, fl->reason);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
}

char *hist_check_json(const struct check_result *r)
{
    const struct hdb_run_row *run = &r->t->runs[r->run];
    cJSON *root = cJSON_CreateObject(), *rows = NULL, *failed = NULL;
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "testbed", r->t->name);
    cJSON_AddStringToObject(root, "run_id", run->run_id);
    cJSON_AddStringToObject(root, "date", run->date);
    cJSON_AddStringToObject(root, "version", run->version);
    cJSON_AddStringToObject(root, "verdict", hist_check_status(r) ? "fail" : "pass");
    cJSON *counts = cJSON_AddObjectToObject(root, "counts");
    for (int v = HV_OK; v <= HV_SUSPECT; v++)
        cJSON_AddNumberToObject(counts, hist_verdict_name((enum hist_verdict)v),
                                (double)r->counts[v]);
    cJSON_AddNumberToObject(counts, "missing series", (double)r->counts[HIST_MISSING]);
    cJSON_AddNumberToObject(counts, "failed runs", (double)r->nfailed);
    rows = cJSON_AddArrayToObject(root, "series");
    for (size_t i = 0; rows && i < r->nrows; i++) {
        const struct check_row *row = &r->rows[i];
        const struct hdb_key *k = &row->s->key;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(rows, o);
        cJSON_AddStringToObject(o, "test", k->test);
        cJSON_AddStringToObject(o, "client_placement", k->cplace);
        cJSON_AddStringToObject(o, "client_registration", k->creg);
        cJSON_AddStringToObject(o, "server_placement", k->splace);
        cJSON_AddStringToObject(o, "server_registration", k->sreg);
        cJSON_AddBoolToObject(o, "bidirectional", k->bidir);
        cJSON_AddNumberToObject(o, "size", (double)k->size);
        cJSON_AddStringToObject(o, "metric", k->metric);
        cJSON_AddStringToObject(o, "verdict", verdict_text(row));
        gdr_json_add_number_or_null(o, "value", row->value);
        gdr_json_add_number_or_null(o, "baseline", row->center);
        gdr_json_add_number_or_null(o, "z", row->z);
        gdr_json_add_number_or_null(o, "rel", row->rel);
        if (row->clean >= 0)
            cJSON_AddBoolToObject(o, "clean", row->clean);
        else
            cJSON_AddNullToObject(o, "clean");
        gdr_json_add_number_or_null(o, "pct_of_limit", row->pct_of_limit);
        if (row->has_step) {
            cJSON *s = cJSON_AddObjectToObject(o, "step");
            cJSON_AddStringToObject(s, "date", row->step_date);
            gdr_json_add_number_or_null(s, "before", row->step.before);
            gdr_json_add_number_or_null(s, "after", row->step.after);
            gdr_json_add_number_or_null(s, "rel", row->step.rel);
        }
        cJSON_AddNumberToObject(o, "outliers", (double)row->outliers);
        cJSON_AddNumberToObject(o, "unclean_nights", (double)row->unclean);
        if (row->since[0])
            cJSON_AddStringToObject(o, "baseline_since", row->since);
    }
    failed = cJSON_AddArrayToObject(root, "failed_runs");
    for (size_t i = 0; failed && i < r->t->nfailures; i++) {
        if (r->t->failures[i].run != r->run)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(failed, o);
        cJSON_AddStringToObject(o, "name", r->t->failures[i].name);
        cJSON_AddStringToObject(o, "reason", r->t->failures[i].reason);
    }
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

void hist_export_csv_header(FILE *f)
{
    fprintf(f, "testbed,test,client_placement,client_registration,server_placement,"
               "server_registration,bidirectional,size,metric,unit,run_id,date,version,value,"
               "spread,baseline,sigma,z,rel,verdict,outlier,step,simulated,soft_roce,clean,"
               "pct_of_limit\n");
}

static void csv_num(FILE *f, double v)
{
    if (!isnan(v))
        fprintf(f, "%.9g", v);
}

int hist_export_csv(FILE *f, const struct hdb_testbed *t, const struct hist_opts *o)
{
    if (t->nruns == 0)
        return 0;
    for (size_t k = 0; k < t->nseries; k++) {
        struct hist_view v;
        if (hist_analyse(t, &t->series[k], t->nruns - 1, o, &v))
            return -1;
        const struct hdb_key *key = &t->series[k].key;
        struct gdr_unit u = hist_unit(t, key);
        size_t st = 0;
        for (size_t i = 0; i < v.n; i++) {
            const struct hdb_point *p = &t->series[k].points[i];
            const struct hdb_run_row *run = &t->runs[p->run];
            const struct hist_point *h = &v.pts[i];
            bool step = st < v.nsteps && v.steps[st].at == i;
            st += step;
            gdr_esc_csv(f, t->name);
            fputc(',', f);
            gdr_esc_csv(f, key->test);
            fprintf(f, ",%s,%s,%s,%s,%d,%llu,%s,%s,", key->cplace, key->creg, key->splace,
                    key->sreg, key->bidir, (unsigned long long)key->size, key->metric, u.name);
            gdr_esc_csv(f, run->run_id);
            fprintf(f, ",%s,", run->date);
            gdr_esc_csv(f, run->version);
            fputc(',', f);
            csv_num(f, p->value * u.scale);
            fputc(',', f);
            csv_num(f, p->spread * u.scale);
            fputc(',', f);
            csv_num(f, h->center * u.scale);
            fputc(',', f);
            csv_num(f, h->sigma * u.scale);
            fputc(',', f);
            csv_num(f, h->z);
            fputc(',', f);
            csv_num(f, h->rel);
            fprintf(f, ",%s,%d,%d,%d,%d,", hist_verdict_name(h->verdict), h->outlier, step,
                    p->simulated, p->soft_roce);
            if (p->clean >= 0)
                fprintf(f, "%d", p->clean);
            fputc(',', f);
            csv_num(f, p->pct_of_limit);
            fputc('\n', f);
        }
        hist_view_free(&v);
    }
    return 0;
}
