/* report_tests.c - a test's section of the sweep page: the GDR on/off
 * curves (bandwidth, or latency with a bar to p99) with each row's limit
 * where the documents have one, the GDR speed-up, the percent of the path's
 * limit, the CPU of each end; every figure with a table of its numbers,
 * unclean rows crossed and marked. */
#include "config.h"

#include "plot.h"
#include "report.h"
#include "text.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gdr_row *series_row(const struct gdr_series *s, uint64_t size)
{
    for (size_t i = 0; i < s->nsizes; i++)
        if (s->rows[i].size == size)
            return &s->rows[i];
    return NULL;
}

/* A table's column: a series' values by size. */
struct tpt {
    double x, y;
};
struct tcol {
    const char *label;
    size_t n;
    struct tpt *pts;
};

struct fig {
    size_t n; /* columns */
    struct tcol lines[32];
    struct tpt *pts[32];
    char labels[32][160];
    const struct gdr_series *series[32];
};

static void fig_free(struct fig *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->pts[i]);
}

static int series_order(const struct gdr_series *s)
{
    static const char *const pairs[] = {"host-host", "host-cuda", "cuda-host", "cuda-cuda"};
    int k = 4;
    for (int i = 0; i < 4; i++)
        if (!strcmp(s->pair, pairs[i]))
            k = i;
    return k * 4 + (!strcmp(s->gdr, "off") ? 1 : 0);
}

/* The series of one test, in placement order. */
static size_t test_series(const struct gdr_rdir *r, const char *test, const struct gdr_series **out,
                          size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->set.nseries && n < max; i++)
        if (!strcmp(r->set.series[i].test, test))
            out[n++] = &r->set.series[i];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && series_order(out[j]) < series_order(out[j - 1]); j--) {
            const struct gdr_series *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static struct tcol *fig_add(struct fig *f, const struct gdr_series *s, const char *label,
                            size_t npts)
{
    if (f->n == 32)
        return NULL;
    size_t k = f->n;
    f->pts[k] = calloc(npts + 1, sizeof(struct tpt));
    if (!f->pts[k])
        return NULL;
    f->n++;
    struct tcol *l = &f->lines[k];
    memset(l, 0, sizeof(*l));
    snprintf(f->labels[k], sizeof(f->labels[k]), "%s", label);
    l->label = f->labels[k];
    l->pts = f->pts[k];
    f->series[k] = s;
    return l;
}

/* The figure gdr-plot draws as NAME-TEST (tools/results/plot.c), inline. */
static void figure(struct gdr_buf *b, const struct gdr_rdir *r, const char *name, const char *test,
                   const char *label, const char *caption)
{
    char file[200];
    snprintf(file, sizeof(file), "%s-%s", name, test);
    gdr_buf_puts(b, "<figure><div class=\"fig\">");
    gdr_figset_place(r->figs, b, file, label);
    gdr_buf_escf(b, "</div><figcaption>%s</figcaption></figure>\n", caption);
}

/* The table under a figure: a row per size, a column per line. */
static void fig_table(struct gdr_buf *b, const struct fig *f, const char *kind, const char *test,
                      double scale, const char *unit, const struct gdr_rdir *r, bool marks)
{
    uint64_t sizes[256];
    size_t ns = 0;
    for (size_t l = 0; l < f->n; l++)
        for (size_t i = 0; i < f->lines[l].n; i++) {
            uint64_t s = (uint64_t)f->lines[l].pts[i].x;
            size_t j = 0;
            while (j < ns && sizes[j] != s)
                j++;
            if (j == ns && ns < 256)
                sizes[ns++] = s;
        }
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
            uint64_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }
    gdr_buf_escf(b,
                 "<div class=\"tbl\"><table data-kind=\"%s\" data-test=\"%s\"><thead><tr>"
                 "<th>size \\ %s [%s]</th>",
                 kind, test, kind, unit);
    for (size_t l = 0; l < f->n; l++) {
        const struct gdr_series *s = f->series[l];
        gdr_buf_escf(b, "<th class=\"n\" data-pair=\"%s\" data-reg=\"%s\" data-gdr=\"%s\">%s</th>",
                     s ? s->pair : "", s ? s->reg : "", s ? s->gdr : "", f->lines[l].label);
    }
    gdr_buf_puts(b, "</tr></thead><tbody>\n");
    bool any_unclean = false;
    for (size_t i = 0; i < ns; i++) {
        char sz[32];
        gdr_fmt_size(sizes[i], sz, sizeof(sz));
        gdr_buf_printf(b, "<tr data-size=\"%llu\"><th>%s</th>", (unsigned long long)sizes[i], sz);
        for (size_t l = 0; l < f->n; l++) {
            const struct tpt *p = NULL;
            for (size_t k = 0; k < f->lines[l].n; k++)
                if ((uint64_t)f->lines[l].pts[k].x == sizes[i])
                    p = &f->lines[l].pts[k];
            if (!p) {
                gdr_buf_puts(b, "<td class=\"n\">-</td>");
                continue;
            }
            char title[256] = "";
            const char *mark = "";
            if (marks && f->series[l]) {
                struct gdr_row_extra x;
                gdr_row_extra(r, f->series[l], sizes[i], &x);
                if (!x.clean) {
                    mark = "\xe2\x9c\x97";
                    any_unclean = true;
                }
                if (!isnan(x.pct))
                    snprintf(title, sizeof(title), "%.1f %% of the %s limit", x.pct,
                             x.bound_by[0] ? x.bound_by : "path");
            }
            gdr_td_num(b, p->y / scale, scale, mark, title[0] ? title : NULL);
        }
        gdr_buf_puts(b, "</tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    if (any_unclean)
        gdr_buf_puts(b, "<p class=\"sub\">\xe2\x9c\x97 not clean: the NIC counted errors or "
                        "retransmissions during the row; not a good measurement.</p>\n");
}

static const char *value_title(const struct gdr_series *s)
{
    return s->latency ? "median latency" : "average bandwidth";
}

static void failed_runs_note(struct gdr_buf *b, const struct gdr_rdir *r, const char *test)
{
    size_t n = 0;
    const cJSON *runs = r->manifest ? cJSON_GetObjectItemCaseSensitive(r->manifest, "runs") : NULL;
    const cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        const char *st = gdr_jstr(run, "status"), *tool = gdr_jstr(run, "tool");
        if (!st || !strcmp(st, "ok") || !tool || strncmp(test, tool, strlen(tool)))
            continue;
        if (n++ == 0)
            gdr_buf_puts(b, "<p class=\"warn\">Failed, not drawn:</p><ul>");
        gdr_buf_escf(b, "<li>%s %s GDR %s: %s</li>", tool, gdr_jstr_or(run, "placement", "?"),
                     gdr_jstr_or(run, "gdr", "?"), gdr_jstr_or(run, "reason", "failed"));
    }
    if (!runs)
        for (size_t i = 0; i < r->ndocs; i++) {
            const struct gdr_doc *d = &r->docs[i].d;
            if (!strcmp(d->status, "complete") || strcmp(d->test, test))
                continue;
            if (n++ == 0)
                gdr_buf_puts(b, "<p class=\"warn\">Failed, not drawn:</p><ul>");
            gdr_buf_escf(b, "<li>%s %s GDR %s (%s): %s</li>", d->test, gdr_pair_short(d->pair),
                         d->gdr, d->role, d->error);
        }
    if (n)
        gdr_buf_puts(b, "</ul>\n");
}

int gdr_report_test_section(struct gdr_buf *b, const struct gdr_rdir *r, const char *test)
{
    const struct gdr_series *ss[32];
    size_t ns = test_series(r, test, ss, 32);
    if (ns == 0) {
        /* Every run of the test failed: the section says so. */
        char id[96], title[160];
        snprintf(id, sizeof(id), "t-%s", test);
        snprintf(title, sizeof(title), "%s: no complete run", test);
        gdr_section_begin(b, id, title);
        failed_runs_note(b, r, test);
        gdr_section_end(b);
        return 0;
    }
    bool lat = ss[0]->latency;
    char id[96], title[160];
    snprintf(id, sizeof(id), "t-%s", test);
    snprintf(title, sizeof(title), "%s: %s, GDR on and off", test, lat ? "latency" : "bandwidth");
    gdr_section_begin(b, id, title);
    failed_runs_note(b, r, test);
    struct gdr_unit u = gdr_set_unit(&r->set, lat); /* gdr-plot's, the whole run's */

    /* 1. The metric, with each row's limit where the documents have one. */
    struct fig f = {0}, lim = {0};
    bool any_lim = false;
    for (size_t k = 0; k < ns; k++) {
        char label[160];
        gdr_series_label(ss[k], label, sizeof(label));
        struct tcol *l = fig_add(&f, ss[k], label, ss[k]->nsizes);
        if (!l) {
            fig_free(&f);
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        }
        struct tpt *pts = f.pts[f.n - 1], *lp = NULL;
        size_t nl = 0;
        for (size_t i = 0; i < ss[k]->nsizes; i++) {
            const struct gdr_row *row = &ss[k]->rows[i];
            struct gdr_row_extra x;
            gdr_row_extra(r, ss[k], row->size, &x);
            any_lim |= !lat && isfinite(row->limit); /* gdr-plot's rule */
            pts[l->n++] = (struct tpt){(double)row->size,
                                       (lat ? row->lat[LAT_MEDIAN] : row->bw_avg) * u.scale};
            if (!lat && !isnan(x.limit)) {
                if (!lp) {
                    char ll[200];
                    snprintf(ll, sizeof(ll), "%s: path limit", gdr_pair_short(ss[k]->pair));
                    lp = fig_add(&lim, ss[k], ll, ss[k]->nsizes) ? lim.pts[lim.n - 1] : NULL;
                }
                if (lp) {
                    lp[nl] = (struct tpt){(double)row->size, x.limit * u.scale};
                    lim.lines[lim.n - 1].n = ++nl;
                }
            }
        }
    }
    char label[200];
    snprintf(label, sizeof(label), "%s %s against message size", test, value_title(ss[0]));
    gdr_buf_escf(b, "<h3>%s</h3>\n", lat ? "Median latency (bar: up to p99)" : "Bandwidth");
    figure(b, r, lat ? "latency" : "bandwidth", test, label,
           lat ? "Median per size, bar up to p99. Solid: GDR on or host memory; dashed, open "
                 "markers: GDR off (staged through host memory)."
               : "Average bandwidth per size. Solid: GDR on or host memory; dashed, open "
                 "markers: GDR off (staged through host memory); thin dashed: the path's limit.");
    fig_table(b, &f, lat ? "latency" : "bandwidth", test, u.scale, u.name, r, true);
    if (lim.n) {
        struct fig lt = lim;
        fig_table(b, &lt, "limit", test, u.scale, u.name, r, false);
    }

    /* 2. GDR speed-up: on over off (latency: off over on), so above 1 = GDR helps. */
    struct fig sp = {0};
    for (size_t k = 0; k < ns; k++) {
        if (strcmp(ss[k]->gdr, "on"))
            continue;
        const struct gdr_series *off = NULL;
        for (size_t j = 0; j < ns; j++)
            if (!strcmp(ss[j]->gdr, "off") && !strcmp(ss[j]->pair, ss[k]->pair))
                off = ss[j];
        if (!off)
            continue;
        char l2[160];
        snprintf(l2, sizeof(l2), "%s GDR on vs off%s", gdr_pair_short(ss[k]->pair),
                 ss[k]->simulated || off->simulated ? " simulated" : "");
        struct tcol *l = fig_add(&sp, ss[k], l2, ss[k]->nsizes);
        if (!l)
            break;
        for (size_t i = 0; i < ss[k]->nsizes; i++) {
            const struct gdr_row *a = &ss[k]->rows[i];
            if (series_row(off, a->size))
                sp.pts[sp.n - 1][l->n++] =
                    (struct tpt){(double)a->size, gdr_speedup(ss[k], off, a->size)};
        }
    }
    if (sp.n) {
        gdr_buf_puts(b, "<h3>GDR speed-up</h3>\n");
        figure(b, r, "speedup", test, "GDR speed-up",
               lat ? "Latency with GDR off over GDR on: above 1 (dotted) GDR helps."
                   : "Bandwidth with GDR on over GDR off: above 1 (dotted) GDR helps.");
        fig_table(b, &sp, "speedup", test, 1, "x", r, false);
    }
    fig_free(&sp);

    /* 3. % of the path's limit, once the documents carry it. */
    if (any_lim) {
        struct fig pc = {0};
        for (size_t k = 0; k < ns; k++) {
            char l3[160];
            gdr_series_label(ss[k], l3, sizeof(l3));
            struct tcol *l = fig_add(&pc, ss[k], l3, ss[k]->nsizes);
            for (size_t i = 0; l && i < ss[k]->nsizes; i++) {
                struct gdr_row_extra x;
                gdr_row_extra(r, ss[k], ss[k]->rows[i].size, &x);
                pc.pts[pc.n - 1][l->n++] = (struct tpt){(double)ss[k]->rows[i].size, x.pct};
            }
        }
        gdr_buf_puts(b, "<h3>Percent of the path's limit</h3>\n");
        figure(b, r, "limit", test, "percent of the path's limit",
               "pct_of_limit of each row (100 %: dotted).");
        fig_table(b, &pc, "pct_of_limit", test, 1, "%", r, false);
        fig_free(&pc);
    }

    /* 4. CPU of each end: one figure, a table per end. */
    gdr_buf_puts(b, "<h3>CPU of each end</h3>\n");
    figure(b, r, "cpu", test, "CPU of the client and the server",
           "User + system time over the timed loop, % of one core.");
    for (int side = 0; side < 2; side++) {
        struct fig cpu = {0};
        for (size_t k = 0; k < ns; k++) {
            char l4[160];
            gdr_series_label(ss[k], l4, sizeof(l4));
            struct tcol *l = fig_add(&cpu, ss[k], l4, ss[k]->nsizes);
            for (size_t i = 0; l && i < ss[k]->nsizes; i++) {
                const struct gdr_row *row = &ss[k]->rows[i];
                cpu.pts[cpu.n - 1][l->n++] = (struct tpt){
                    (double)row->size, (side ? row->cpu_server : row->cpu_client) * 100};
            }
        }
        gdr_buf_escf(b, "<p class=\"sub\">CPU of the %s</p>\n", side ? "server" : "client");
        /* Shown in % of one core; data-si keeps the document's fraction. */
        fig_table(b, &cpu, side ? "cpu_server" : "cpu_client", test, 100, "%", r, false);
        fig_free(&cpu);
    }
    fig_free(&lim);
    fig_free(&f);
    gdr_section_end(b);
    return 0;
}
