/* report_compare.c - a run against a baseline: per series both curves on
 * one figure, and per size the change and gdr-compare's verdict (the same
 * noise rule: tools/results/compare.c). */
#include "config.h"

#include "report.h"
#include "compare.h"
#include "text.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double value_of(const struct gdr_series *s, const struct gdr_row *r)
{
    return s->latency ? r->lat[LAT_MEDIAN] : r->bw_avg;
}

static void side_facts(struct gdr_buf *b, const char *what, const char *path,
                       const struct gdr_rdir *r)
{
    char first[40] = "", vers[256] = "";
    for (size_t i = 0; i < r->ndocs; i++) {
        const struct gdr_doc *d = &r->docs[i].d;
        if (!first[0] || strcmp(d->start_time, first) < 0)
            snprintf(first, sizeof(first), "%s", d->start_time);
        if (!strstr(vers, d->version) && strlen(vers) + strlen(d->version) + 3 < sizeof(vers))
            snprintf(vers + strlen(vers), sizeof(vers) - strlen(vers), "%s%s", vers[0] ? ", " : "",
                     d->version);
    }
    const struct gdr_doc *d0 = r->ndocs ? &r->docs[0].d : NULL;
    gdr_buf_escf(b,
                 "<dt>%s</dt><dd><code>%s</code>: %zu documents, from %s, gdrbench %s, %s %s "
                 "\xe2\x86\x92 %s %s</dd>",
                 what, path, r->ndocs, first, vers, d0 ? d0->client.host : "?",
                 d0 ? d0->client.device : "", d0 ? d0->server.host : "?",
                 d0 ? d0->server.device : "");
}

struct judged {
    const struct gdr_series *run, *base;
    size_t n;
    uint64_t sizes[256];
    double b[256], r[256], change[256];
    bool suspect[256];
    enum gdr_cmp_verdict v[256];
    enum gdr_cmp_verdict worst;
};

static void judge_series(const struct gdr_series *rs, const struct gdr_series *bs, double tol,
                         struct judged *j)
{
    memset(j, 0, sizeof(*j));
    j->run = rs;
    j->base = bs;
    for (size_t i = 0; i < rs->nsizes && j->n < 256; i++)
        for (size_t k = 0; k < bs->nsizes; k++)
            if (bs->rows[k].size == rs->rows[i].size) {
                j->sizes[j->n] = rs->rows[i].size;
                j->suspect[j->n] = rs->rows[i].clean == 0 || bs->rows[k].clean == 0;
                j->r[j->n] = value_of(rs, &rs->rows[i]);
                j->b[j->n++] = value_of(bs, &bs->rows[k]);
            }
    gdr_compare_judge(rs, j->b, j->r, j->suspect, j->n, tol, j->change, j->v);
    static const int rank[GDR_CMP_VERDICTS] = {
        [GDR_CMP_OK] = 0,      [GDR_CMP_BETTER] = 1, [GDR_CMP_NO_LIMIT] = 1,
        [GDR_CMP_SUSPECT] = 2, [GDR_CMP_NOISE] = 2,  [GDR_CMP_REGRESSION] = 3};
    j->worst = GDR_CMP_OK;
    for (size_t i = 0; i < j->n; i++)
        if (rank[j->v[i]] > rank[j->worst])
            j->worst = j->v[i];
}

static const char *verdict_class(enum gdr_cmp_verdict v)
{
    return v == GDR_CMP_REGRESSION ? "regression" : gdr_cmp_verdict_name(v);
}

/* u: the page's unit of the series' quantity. */
static void series_block(struct gdr_buf *b, const struct judged *j, const struct gdr_rdir *run,
                         struct gdr_unit u)
{
    const struct gdr_series *s = j->run;
    char label[160], ylabel[64];
    gdr_series_label(s, label, sizeof(label));
    double *sizes = calloc(j->n + 1, sizeof(double));
    char *rows = NULL;
    size_t rlen = 0;
    FILE *d = sizes ? open_memstream(&rows, &rlen) : NULL;
    bool unclean = false;
    for (size_t i = 0; d && i < j->n; i++) {
        struct gdr_row_extra x;
        gdr_row_extra(run, s, j->sizes[i], &x);
        sizes[i] = (double)j->sizes[i];
        unclean |= !x.clean;
        fprintf(d, "%llu %.9g %.9g %s\n", (unsigned long long)j->sizes[i], j->b[i] * u.scale,
                j->r[i] * u.scale, x.clean ? "NaN" : "1");
    }
    if (!d || fclose(d)) {
        free(sizes);
        free(rows);
        return;
    }
    const char *color = gdr_fig_pair_colour(s->pair);
    struct gdr_fig_line lines[3] = {
        {"$cmp", -1, "1:2", GDR_FIG_LINESPOINTS, "baseline", GDR_C_GREY, true, true, 0},
        {"$cmp", -1, "1:3", GDR_FIG_LINESPOINTS, "run", color, false, false, 0},
        {"$cmp", -1, "1:($4*$3)", GDR_FIG_CROSS, "not clean", GDR_C_BLACK, false, false, 0}};
    snprintf(ylabel, sizeof(ylabel), "%s [%s]", s->latency ? "median latency" : "bandwidth",
             u.name);
    char name[256];
    snprintf(name, sizeof(name), "%s %s", s->test, label);
    struct gdr_fig_chart c = {.title = "",
                              .xlabel = "message size",
                              .ylabel = ylabel,
                              .x = GDR_X_LOG2_BYTES,
                              .nsizes = j->n,
                              .sizes = sizes,
                              .y = s->latency ? GDR_Y_LOG : GDR_Y_ZERO,
                              .hline = NAN,
                              .nlines = unclean ? 3 : 2,
                              .lines = lines,
                              .key_cols = 3};
    gdr_buf_escf(b, "<figure data-series=\"%s %s %s\"><h3>%s %s ", s->test, s->pair, s->reg,
                 s->test, label);
    gdr_badge(b, verdict_class(j->worst), gdr_cmp_verdict_name(j->worst));
    gdr_buf_puts(b, "</h3><div class=\"fig\">");
    FILE *gp = gdr_figset_add(run->figs, b, name, 720, 360);
    gdr_fig_block(gp, "cmp", rows);
    gdr_fig_chart(gp, &c);
    gdr_buf_puts(b, "</div>");
    free(sizes);
    free(rows);
    gdr_buf_escf(b,
                 "<div class=\"tbl\"><table data-kind=\"compare\" data-test=\"%s\" "
                 "data-pair=\"%s\" data-reg=\"%s\"><thead><tr><th>size</th><th class=\"n\">"
                 "baseline [%s]</th><th class=\"n\">run [%s]</th><th class=\"n\">change</th>"
                 "<th>verdict</th></tr></thead><tbody>\n",
                 s->test, s->pair, s->reg, u.name, u.name);
    for (size_t i = 0; i < j->n; i++) {
        char sz[32];
        gdr_fmt_size(j->sizes[i], sz, sizeof(sz));
        gdr_buf_printf(b, "<tr data-size=\"%llu\"%s><th>%s</th>", (unsigned long long)j->sizes[i],
                       j->v[i] == GDR_CMP_REGRESSION ? " class=\"flag\"" : "", sz);
        gdr_td_num(b, j->b[i], u.scale, NULL, NULL);
        struct gdr_row_extra x;
        gdr_row_extra(run, s, j->sizes[i], &x);
        gdr_td_num(b, j->r[i], u.scale, x.clean ? NULL : "\xe2\x9c\x97",
                   x.clean ? NULL : "not clean");
        if (isinf(j->change[i]))
            gdr_buf_puts(b, "<td class=\"n\">inf</td><td>");
        else
            gdr_buf_printf(b, "<td class=\"n\">%+.1f %%</td><td>", j->change[i] * 100);
        gdr_badge(b, verdict_class(j->v[i]), gdr_cmp_verdict_name(j->v[i]));
        gdr_buf_puts(b, "</td></tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div></figure>\n");
}

int gdr_report_compare(struct gdr_buf *b, const char *base, const char *run,
                       const struct gdr_report_opts *o)
{
    struct gdr_rdir rb, rr;
    if (gdr_rdir_load(base, o, 1, &rb))
        return -1;
    if (gdr_rdir_load(run, o, 1, &rr)) {
        gdr_rdir_free(&rb);
        return -1;
    }
    if (!rb.has_set || !rr.has_set) {
        gdr_rdir_free(&rb);
        gdr_rdir_free(&rr);
        return gdr_fail(GDR_EXIT_USAGE, "%s: no complete result document to compare",
                        rb.has_set ? run : base);
    }
    size_t ns = rr.set.nseries;
    struct judged *js = calloc(ns + 1, sizeof(*js));
    if (!js) {
        gdr_rdir_free(&rb);
        gdr_rdir_free(&rr);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    size_t counts[GDR_CMP_VERDICTS] = {0}, matched = 0;
    for (size_t k = 0; k < ns; k++) {
        const struct gdr_series *rs = &rr.set.series[k], *bs = gdr_set_find(&rb.set, rs);
        if (!bs || strcmp(bs->metric, rs->metric))
            continue;
        judge_series(rs, bs, rs->latency ? o->lat_tol : o->bw_tol, &js[matched]);
        for (size_t i = 0; i < js[matched].n; i++)
            counts[js[matched].v[i]]++;
        matched++;
    }
    char title[600];
    if (o->title)
        snprintf(title, sizeof(title), "%s", o->title);
    else
        snprintf(title, sizeof(title), "gdrbench comparison: %s against %s", run, base);
    gdr_html_begin(b, title);
    gdr_buf_puts(b, "<header><h1>");
    gdr_buf_esc(b, title);
    gdr_buf_puts(b, "</h1>\n");
    bool sim = false;
    for (size_t k = 0; k < ns; k++)
        sim |= rr.set.series[k].simulated;
    for (size_t k = 0; k < rb.set.nseries; k++)
        sim |= rb.set.series[k].simulated;
    gdr_lab_warnings(b, sim, false);
    gdr_buf_puts(b, "</header>\n");
    gdr_section_begin(b, "summary", "Verdict");
    gdr_buf_puts(b, "<dl class=\"facts\">");
    side_facts(b, "baseline", base, &rb);
    side_facts(b, "run", run, &rr);
    gdr_buf_printf(b,
                   "<dt>rule</dt><dd>Average bandwidth (tolerance %g %%) or median latency "
                   "(%g %%), size by size. Worse than the tolerance is a regression when it is "
                   "worse than twice the tolerance or a neighbouring size is also worse; a lone "
                   "size between one and two tolerances is noise (gdr-compare's rule).</dd>",
                   o->bw_tol * 100, o->lat_tol * 100);
    gdr_buf_puts(b, "</dl>\n<p>");
    gdr_badge(b, counts[GDR_CMP_REGRESSION] ? "regression" : "ok",
              counts[GDR_CMP_REGRESSION] ? "REGRESSION" : "clean");
    gdr_buf_printf(b,
                   " %zu sizes regressed, %zu noise, %zu better, %zu ok, in %zu series; %zu "
                   "suspect (a NIC counted errors or retransmissions: not judged).</p>\n",
                   counts[GDR_CMP_REGRESSION], counts[GDR_CMP_NOISE], counts[GDR_CMP_BETTER],
                   counts[GDR_CMP_OK], matched, counts[GDR_CMP_SUSPECT]);
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"compare-summary\"><thead><tr><th>test"
                    "</th><th>series</th><th class=\"n\">sizes</th><th class=\"n\">worst change"
                    "</th><th>verdict</th></tr></thead><tbody>\n");
    for (size_t k = 0; k < matched; k++) {
        const struct judged *j = &js[k];
        char label[160];
        gdr_series_label(j->run, label, sizeof(label));
        double worst = 0;
        for (size_t i = 0; i < j->n; i++) {
            double w = j->run->latency ? j->change[i] : -j->change[i];
            double cur = j->run->latency ? worst : -worst;
            if (w > cur || i == 0)
                worst = j->change[i];
        }
        gdr_buf_escf(
            b, "<tr%s><td>%s</td><td><a href=\"#s%zu\">%s</a></td><td class=\"n\">%zu</td>",
            j->worst == GDR_CMP_REGRESSION ? " class=\"flag\"" : "", j->run->test, k, label, j->n);
        gdr_buf_printf(b, "<td class=\"n\">%+.1f %%</td><td>", worst * 100);
        gdr_badge(b, verdict_class(j->worst), gdr_cmp_verdict_name(j->worst));
        gdr_buf_puts(b, "</td></tr>\n");
    }
    /* Series on one side only: listed, not judged. */
    for (int side = 0; side < 2; side++) {
        const struct gdr_set *a = side ? &rb.set : &rr.set, *other = side ? &rr.set : &rb.set;
        for (size_t k = 0; k < a->nseries; k++) {
            const struct gdr_series *s = &a->series[k], *m = gdr_set_find(other, s);
            if (m && !strcmp(m->metric, s->metric))
                continue;
            char label[160];
            gdr_series_label(s, label, sizeof(label));
            gdr_buf_escf(b,
                         "<tr class=\"flag\"><td>%s</td><td>%s</td><td class=\"n\">-</td>"
                         "<td class=\"n\">-</td><td>",
                         s->test, label);
            gdr_badge(b, "missing", side ? "only in the baseline" : "only in the run");
            gdr_buf_puts(b, "</td></tr>\n");
        }
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    gdr_section_end(b);
    gdr_section_begin(b, "series", "Each series: baseline and run");
    gdr_buf_puts(b, "<div class=\"grid\">\n");
    double most[2] = {0, 0}; /* one unit a quantity, from the largest value shown */
    for (size_t k = 0; k < matched; k++)
        for (size_t i = 0; i < js[k].n; i++)
            most[js[k].run->latency] = fmax(most[js[k].run->latency], fmax(js[k].b[i], js[k].r[i]));
    for (size_t k = 0; k < matched; k++) {
        gdr_buf_printf(b, "<div id=\"s%zu\">", k);
        series_block(b, &js[k], &rr,
                     js[k].run->latency ? gdr_unit_lat(most[1]) : gdr_unit_bw(most[0]));
        gdr_buf_puts(b, "</div>\n");
    }
    gdr_buf_puts(b, "</div>\n");
    gdr_section_end(b);
    gdr_html_end(b, o->generator);
    free(js);
    gdr_rdir_free(&rb);
    gdr_rdir_free(&rr);
    return 0;
}
