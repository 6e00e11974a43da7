/* report_soak.c - a soak's section of the page (--soak, issue 35): what
 * it asked and how it ended, a timeline of every interval's value with its
 * outages and dips marked, and its findings with their times. The
 * document has the summary and the findings; the timeline comes from its
 * --json-lines stream, looked for beside the document first (a results
 * directory copied off the node), then where the run wrote it. */
#include "config.h"

#include "report.h"
#include "text.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stream longer than this (three days at one second) is drawn from its
 * first lines only, and the page says so. */
#define MAX_POINTS 262144u

struct timeline {
    char path[4096]; /* the stream read, "" when none was found */
    size_t n, unreadable;
    bool cut;
    double *x0, *x1, *y; /* start_s, end_s, value (SI) of each interval line */
};

/* dir/NAME where NAME is the recorded stream's file name, else the
 * recorded path itself when absolute (a relative one was the run's). */
static bool find_stream(const char *dir, const char *recorded, char *out, size_t len)
{
    const char *base = strrchr(recorded, '/');
    snprintf(out, len, "%s/%s", dir, base ? base + 1 : recorded);
    FILE *f = fopen(out, "r");
    if (!f && recorded[0] == '/') {
        snprintf(out, len, "%s", recorded);
        f = fopen(out, "r");
    }
    if (f)
        fclose(f);
    else
        out[0] = '\0';
    return f != NULL;
}

static void timeline_free(struct timeline *t)
{
    free(t->x0);
    free(t->x1);
    free(t->y);
}

static int grow(struct timeline *t, size_t n)
{
    double **p[3] = {&t->x0, &t->x1, &t->y};
    for (int i = 0; i < 3; i++) {
        double *q = realloc(*p[i], n * sizeof(*q));
        if (!q)
            return -1;
        *p[i] = q;
    }
    return 0;
}

/* An interval line's numbers as a soak writes them: a value of zero or
 * more, 0 <= start <= end, all finite (1e999 parses as infinity). */
static bool interval_ok(const cJSON *v, const cJSON *start, const cJSON *end)
{
    return cJSON_IsNumber(v) && cJSON_IsNumber(start) && cJSON_IsNumber(end) &&
           isfinite(v->valuedouble) && isfinite(end->valuedouble) && v->valuedouble >= 0 &&
           start->valuedouble >= 0 && start->valuedouble <= end->valuedouble;
}

/* The interval lines of the stream (an outage's lines are in the
 * document's findings). A line that does not parse (the last one of a
 * soak whose host lost power) or breaks an interval's rules is counted,
 * not fatal: the rest is read. */
static int read_stream(struct timeline *t)
{
    FILE *f = fopen(t->path, "r");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read it", t->path);
    char *line = NULL;
    size_t cap = 0, have = 0;
    int rc = 0;
    while (getline(&line, &cap, f) > 0) {
        cJSON *l = cJSON_Parse(line);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(l, "value");
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(l, "start_s");
        const cJSON *end = cJSON_GetObjectItemCaseSensitive(l, "end_s");
        if (!l || (!cJSON_GetObjectItemCaseSensitive(l, "record") && !interval_ok(v, start, end))) {
            t->unreadable++;
        } else if (!cJSON_GetObjectItemCaseSensitive(l, "record")) {
            if (t->n == MAX_POINTS) {
                t->cut = true;
                cJSON_Delete(l);
                break;
            }
            if (t->n == have && grow(t, have = have ? 2 * have : 1024)) {
                cJSON_Delete(l);
                rc = gdr_fail(GDR_EXIT_RUN, "%s: out of memory", t->path);
                break;
            }
            t->x0[t->n] = start->valuedouble;
            t->x1[t->n] = end->valuedouble;
            t->y[t->n++] = v->valuedouble;
        }
        cJSON_Delete(l);
    }
    free(line);
    fclose(f);
    return rc;
}

/* The x axis of a soak's figures: its unit by the span, one label. */
static double soak_x_axis(double span_s, char *label, size_t len)
{
    struct gdr_unit u = gdr_unit_span(span_s);
    snprintf(label, len, "time since the soak began [%s]", u.name);
    return u.scale;
}

static void timeline_figure(struct gdr_buf *b, struct gdr_figset *fs, const struct gdr_rdoc *rd,
                            const struct timeline *t, struct gdr_unit u, const char *label)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(rd->root, "soak");
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(k, "findings");
    char xl[64];
    double xs =
        soak_x_axis(fmax(gdr_jnum(k, "elapsed_s"), t->n ? t->x1[t->n - 1] : 0), xl, sizeof(xl));
    char *rows = NULL;
    size_t rlen = 0;
    FILE *d = open_memstream(&rows, &rlen);
    /* Each interval a step over its span; a gap (an outage) breaks the line. */
    for (size_t i = 0; d && i < t->n; i++) {
        if (i && t->x0[i] > t->x1[i - 1] + 0.5)
            fputc('\n', d);
        fprintf(d, "%.9g %.9g\n%.9g %.9g\n", t->x0[i] * xs, t->y[i] * u.scale, t->x1[i] * xs,
                t->y[i] * u.scale);
    }
    if (!d || fclose(d)) {
        free(rows);
        return;
    }
    /* An outage: a solid line where it began; a dip: dashed, where it began. */
    size_t nf = (size_t)cJSON_GetArraySize(findings), nv = 0;
    struct gdr_fig_vline *vl = calloc(nf + 1, sizeof(*vl));
    char(*at)[32] = calloc(nf + 1, sizeof(*at)), (*lab)[64] = calloc(nf + 1, sizeof(*lab));
    const cJSON *f;
    cJSON_ArrayForEach(f, findings) {
        const char *kind = gdr_jstr(f, "kind");
        bool outage = kind && !strcmp(kind, "outage"), dip = kind && !strcmp(kind, "dip");
        if (!vl || !at || !lab || !(outage || dip) ||
            !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(f, "start_s")))
            continue;
        snprintf(at[nv], sizeof(at[nv]), "%.9g", gdr_jnum(f, "start_s") * xs);
        if (outage)
            snprintf(lab[nv], sizeof(lab[nv]), "outage");
        else
            snprintf(lab[nv], sizeof(lab[nv]), "dip %.0f %%", gdr_jnum(f, "pct_of_median"));
        vl[nv] = (struct gdr_fig_vline){at[nv], lab[nv], outage ? GDR_C_VERMILLION : GDR_C_ORANGE,
                                        !outage};
        nv++;
    }
    bool lat = !strcmp(rd->d.metric, "latency");
    char yl[64];
    snprintf(yl, sizeof(yl), "%s [%s]", lat ? "median latency" : "bandwidth", u.name);
    struct gdr_fig_line line = {"$soak", -1,    "1:2", GDR_FIG_LINES, "each interval", GDR_C_BLUE,
                                false,   false, 0};
    double median = gdr_jnum(cJSON_GetObjectItemCaseSensitive(k, "value"), "median");
    struct gdr_fig_chart c = {.title = "",
                              .xlabel = xl,
                              .ylabel = yl,
                              .x = GDR_X_LINEAR,
                              .y = GDR_Y_ZERO,
                              .hline = median * u.scale,
                              .nlines = 1,
                              .lines = &line,
                              .nvlines = nv,
                              .vlines = vl,
                              .no_key = true};
    gdr_buf_puts(b, "<figure><div class=\"fig\">");
    FILE *gp = gdr_figset_add(fs, b, label, 960, 360);
    gdr_fig_block(gp, "soak", rows);
    gdr_fig_chart(gp, &c);
    gdr_buf_puts(b, "</div><figcaption>Each interval's value over its span (dotted: the soak's "
                    "median; a gap: an outage, marked where it began, solid), dips marked where "
                    "they began (dashed).");
    if (t->cut)
        gdr_buf_printf(b, " Only the first %u intervals are drawn.", MAX_POINTS);
    gdr_buf_puts(b, "</figcaption></figure>\n");
    free(rows);
    free(vl);
    free(at);
    free(lab);
}

static void findings_table(struct gdr_buf *b, const cJSON *findings)
{
    if (!cJSON_GetArraySize(findings)) {
        gdr_buf_puts(b, "<p>No finding: no outage, dip, trend, rising counter, "
                        "throttling or rising GPU ECC errors.</p>\n");
        return;
    }
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"soak-findings\"><thead><tr>"
                    "<th>kind</th><th>from (UTC)</th><th class=\"n\">s</th><th>finding</th>"
                    "</tr></thead><tbody>\n");
    const cJSON *f;
    cJSON_ArrayForEach(f, findings) {
        const char *kind = gdr_jstr_or(f, "kind", "?");
        gdr_buf_escf(b, "<tr class=\"flag\" data-finding=\"%s\"><td>%s</td><td>%s</td>", kind, kind,
                     gdr_jstr_or(f, "start_time", "-"));
        gdr_buf_printf(b, "<td class=\"n\">%.1f-%.1f</td><td>", gdr_jnum(f, "start_s"),
                       gdr_jnum(f, "end_s"));
        gdr_buf_esc(b, gdr_jstr_or(f, "text", ""));
        gdr_buf_puts(b, "</td></tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
}

int gdr_report_soak_section(struct gdr_buf *b, const struct gdr_rdir *r, const struct gdr_rdoc *rd,
                            const char *dir, size_t index)
{
    const struct gdr_doc *d = &rd->d;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(rd->root, "soak");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(k, "value");
    bool lat = !strcmp(d->metric, "latency");
    struct timeline t = {0};
    const char *recorded = gdr_jstr(k, "json_lines");
    if (recorded && find_stream(dir, recorded, t.path, sizeof(t.path)) && read_stream(&t)) {
        timeline_free(&t);
        return -1;
    }
    double top = gdr_jnum(value, "max");
    for (size_t i = 0; i < t.n; i++)
        top = fmax(top, t.y[i]);
    struct gdr_unit u = lat ? gdr_unit_lat(top) : gdr_unit_bw(top);
    char id[32], title[256], sz[32], label[320];
    gdr_fmt_size(d->nrows ? d->rows[0].size : 0, sz, sizeof(sz));
    snprintf(id, sizeof(id), "soak-%zu", index);
    snprintf(title, sizeof(title), "Soak: %s %s (%s), %s, %s end", d->test, gdr_pair_short(d->pair),
             d->reg, sz, d->role);
    snprintf(label, sizeof(label), "%s: each interval's %s over time", title,
             lat ? "median latency" : "bandwidth");
    gdr_section_begin(b, id, title);
    char med[48], lo[48], hi[48];
    gdr_fmt_unit(u, gdr_jnum(value, "median"), med, sizeof(med));
    gdr_fmt_unit(u, gdr_jnum(value, "min"), lo, sizeof(lo));
    gdr_fmt_unit(u, gdr_jnum(value, "max"), hi, sizeof(hi));
    const char *ended = gdr_jstr_or(k, "ended", "?");
    gdr_buf_escf(b, "<dl class=\"facts\"><dt>status</dt><dd>%s, %s</dd>", d->status,
                 !strcmp(ended, "signal")     ? "ended by a signal"
                 : !strcmp(ended, "duration") ? "ran its duration"
                 : !strcmp(ended, "outage")   ? "ended by an outage it did not come through"
                                              : ended);
    gdr_buf_printf(b,
                   "<dt>duration</dt><dd>%.0f s asked, %.1f s run, %.0f intervals of %.0f s</dd>"
                   "<dt>%s</dt><dd>median %s, min %s, max %s</dd><dt>outages</dt><dd>%.0f</dd>",
                   gdr_jnum(k, "duration_s"), gdr_jnum(k, "elapsed_s"), gdr_jnum(k, "intervals"),
                   gdr_jnum(k, "interval_s"), lat ? "median latency" : "bandwidth", med, lo, hi,
                   gdr_jnum(k, "outages"));
    gdr_buf_puts(b, "<dt>interval lines</dt><dd>");
    if (t.path[0])
        gdr_buf_escf(b, "%s: %zu intervals", t.path, t.n);
    else if (recorded)
        gdr_buf_escf(b, "not found (%s, nor its name in %s): no timeline", recorded, dir);
    else
        gdr_buf_puts(b, "none written (the soak ran without --json-lines): no timeline");
    if (t.unreadable)
        gdr_buf_printf(b, ", %zu unreadable line%s skipped", t.unreadable,
                       t.unreadable == 1 ? "" : "s");
    gdr_buf_puts(b, "</dd></dl>\n");
    if (t.n)
        timeline_figure(b, r->figs, rd, &t, u, label);
    findings_table(b, cJSON_GetObjectItemCaseSensitive(k, "findings"));
    gdr_section_end(b);
    timeline_free(&t);
    return 0;
}

/* ---- a cluster soak: a timeline per link ---- */

/* Rows of the cluster soak's timeline (a link each, its findings' first):
 * the page stays a page at thousands of links. */
#define CLUSTER_SOAK_ROWS 40

/* Segments "x row" pairs (a blank line between) of link's events of kind
 * (NULL: its spans, when it soaked) into d. */
static void link_segments(FILE *d, const cJSON *link, size_t row, const char *kind, double xs)
{
    const cJSON *e;
    if (!kind) {
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(link, "spans"))
            fprintf(d, "%.9g %zu\n%.9g %zu\n\n", gdr_jitem_num_or(e, 0, NAN) * xs, row,
                    gdr_jitem_num_or(e, 1, NAN) * xs, row);
        return;
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(link, "events")) {
        if (strcmp(gdr_jstr_or(e, "kind", ""), kind))
            continue;
        double at = gdr_jnum_or(e, "at_s", 0), until = gdr_jnum_or(e, "until_s", at);
        fprintf(d, "%.9g %zu\n%.9g %zu\n\n", at * xs, row, fmax(until, at) * xs, row);
    }
}

static void cluster_timeline(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *soak)
{
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(soak, "links"), *l;
    size_t n = (size_t)cJSON_GetArraySize(links),
           rows = n < CLUSTER_SOAK_ROWS ? n : CLUSTER_SOAK_ROWS;
    if (!rows)
        return;
    char xl[64];
    double xs = soak_x_axis(gdr_jnum_or(soak, "duration_s", 0), xl, sizeof(xl));
    char *text[3] = {NULL, NULL, NULL}, (*names)[96] = calloc(rows, sizeof(*names));
    const char **ynames = calloc(rows, sizeof(*ynames));
    size_t len[3];
    static const char *const kinds[3] = {NULL, "outage", "dip"};
    for (int k = 0; k < 3 && names && ynames; k++) {
        FILE *d = open_memstream(&text[k], &len[k]);
        size_t row = 0;
        cJSON_ArrayForEach(l, links) {
            if (row == rows || !d)
                break;
            link_segments(d, l, ++row, kinds[k], xs);
            const cJSON *nd = cJSON_GetObjectItemCaseSensitive(l, "nodes");
            snprintf(names[row - 1], sizeof(names[0]), "%s-%s r%.0f", gdr_jitem_str_or(nd, 0, "?"),
                     gdr_jitem_str_or(nd, 1, "?"), gdr_jnum_or(l, "rail", 0));
            ynames[row - 1] = names[row - 1];
        }
        if (d)
            fclose(d);
    }
    if (text[0] && text[1] && text[2]) {
        /* an empty block still plots (NaN): a link without a dip */
        struct gdr_fig_line line[3] = {
            {"$spans", -1, "1:2", GDR_FIG_LINES, "soaking", GDR_C_BACKDROP, false, false, 6},
            {"$outages", -1, "1:2", GDR_FIG_LINES, "outage", GDR_C_VERMILLION, false, false, 9},
            {"$dips", -1, "1:2", GDR_FIG_LINES, "dip", GDR_C_ORANGE, false, false, 9},
        };
        struct gdr_fig_chart c = {.title = "",
                                  .xlabel = xl,
                                  .ylabel = "",
                                  .x = GDR_X_LINEAR,
                                  .hline = NAN,
                                  .nlines = 3,
                                  .lines = line,
                                  .nynames = rows,
                                  .ynames = ynames,
                                  .key_cols = 3};
        gdr_buf_puts(b, "<figure><div class=\"fig\">");
        FILE *gp = gdr_figset_add(fs, b, "the soak's links with findings over time", 960,
                                  (unsigned)(140 + 22 * rows));
        gdr_fig_block(gp, "spans", *text[0] ? text[0] : "NaN NaN\n");
        gdr_fig_block(gp, "outages", *text[1] ? text[1] : "NaN NaN\n");
        gdr_fig_block(gp, "dips", *text[2] ? text[2] : "NaN NaN\n");
        gdr_fig_chart(gp, &c);
        gdr_buf_printf(b,
                       "</div><figcaption>A row a link with an outage or a dip (pair and rail; "
                       "the first %zu of %zu), its runs in grey where it soaked, outages and "
                       "dips marked over their span; links without findings are not drawn."
                       "</figcaption></figure>\n",
                       rows, n);
    }
    for (int k = 0; k < 3; k++)
        free(text[k]);
    free(names);
    free(ynames);
}

int gdr_report_cluster_soak(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *sj)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(sj, "soak"), *x;
    if (!k)
        return 0;
    gdr_section_begin(b, "soak", "Soak: flapping links and nodes");
    gdr_buf_escf(b,
                 "<p>%s. A link with an outage flapped; a node whose links flapped with two "
                 "or more partners is the suspect, not its links.</p>\n",
                 gdr_jstr_or(k, "text", ""));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(k, "flapping_nodes")) {
        gdr_buf_escf(b, "<p data-flapping-node=\"%s\">", gdr_jstr_or(x, "node", ""));
        gdr_badge(b, "confirmed", "flapping node");
        gdr_buf_escf(b, " %s: %.0f outages, with", gdr_jstr_or(x, "node", ""),
                     gdr_jnum_or(x, "outages", 0));
        const cJSON *pn;
        cJSON_ArrayForEach(pn, cJSON_GetObjectItemCaseSensitive(x, "partners"))
            gdr_buf_escf(b, " %s", cJSON_IsString(pn) ? pn->valuestring : "?");
        gdr_buf_puts(b, "</p>\n");
    }
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(k, "links");
    if (!cJSON_GetArraySize(links)) {
        gdr_buf_puts(b, "<p>");
        gdr_badge(b, "ok", "no outage, no dip");
        gdr_buf_puts(b, "</p>\n");
        gdr_section_end(b);
        return 0;
    }
    cluster_timeline(b, fs, k);
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"soak-links\"><thead><tr><th>link</th>"
                    "<th class=\"n\">rail</th><th>verdict</th><th class=\"n\">outages</th>"
                    "<th class=\"n\">dips</th><th>outages from (UTC): class cause, ended</th>"
                    "</tr></thead><tbody>\n");
    size_t shown = 0;
    cJSON_ArrayForEach(x, links) {
        if (shown++ == CLUSTER_SOAK_ROWS)
            break;
        const cJSON *nd = cJSON_GetObjectItemCaseSensitive(x, "nodes"), *e;
        const char *node = gdr_jstr(x, "node");
        gdr_buf_escf(
            b, "<tr class=\"flag\"><td>%s - %s</td><td class=\"n\">%.0f</td><td>%s%s%s</td>",
            gdr_jitem_str_or(nd, 0, "?"), gdr_jitem_str_or(nd, 1, "?"), gdr_jnum_or(x, "rail", 0),
            gdr_jstr_or(x, "verdict", ""), node ? ": node " : "", node ? node : "");
        gdr_buf_printf(b, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
                       gdr_jnum_or(x, "outages", 0), gdr_jnum_or(x, "dips", 0));
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "events"))
            if (!strcmp(gdr_jstr_or(e, "kind", ""), "outage"))
                gdr_buf_escf(b, "%s: %s %s, %s<br>", gdr_jstr_or(e, "start_time", ""),
                             gdr_jstr_or(e, "class", ""), gdr_jstr_or(e, "cause", ""),
                             gdr_jstr_or(e, "ended", ""));
        gdr_buf_puts(b, "</td></tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    if ((size_t)cJSON_GetArraySize(links) > CLUSTER_SOAK_ROWS)
        gdr_buf_printf(b,
                       "<p>%d more links with findings: suspects.json and aggregate.json "
                       "<code>soak.links</code>.</p>\n",
                       cJSON_GetArraySize(links) - CLUSTER_SOAK_ROWS);
    gdr_section_end(b);
    return 0;
}
