/* report_cluster.c - the page of a gdr-cluster run: the suspects and
 * their retest verdicts first, then the aggregate node-pair bandwidth over
 * all rails (cluster_aggregate.c), a heatmap per test and rail, the
 * per-rail panel, each node's software and rails, the failed runs. The
 * statistics are the detector's own (cluster_suspects.c), with the options
 * suspects.json recorded, so the page shows what gdr-cluster judged. */
#include "config.h"

#include "report.h"
#include "svg.h"
#include "text.h"
#include "error.h"
#include "json.h"
#include "stats.h"

#include "cluster_aggregate.h"
#include "cluster_links.h"
#include "cluster_stream.h"
#include "cluster_suspects.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bandwidth in bits per second, as report.md and network people read it;
 * latency in microseconds. */
static void fmt_value(bool latency, double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (latency)
        snprintf(buf, len, "%.3g\xc2\xa0\xc2\xb5s", v * 1e6);
    else if (v * 8 >= 1e9)
        snprintf(buf, len, "%.1f\xc2\xa0Gb/s", v * 8 / 1e9);
    else
        snprintf(buf, len, "%.1f\xc2\xa0Mb/s", v * 8 / 1e6);
}

/* A result document of a newer schema is not a failed run: refuse it. */
static int newer_docs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read it", dir);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 12 || strcmp(e->d_name + n - 12, ".client.json"))
            continue;
        char path[4600];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
        gdr_error_clear(); /* unreadable: the matrix marks the run failed */
        const char *sv = root ? gdr_jstr(root, "schema_version") : NULL;
        int v;
        if (sv && sscanf(sv, "gdrbench.result/%d", &v) == 1 && v > 1)
            rc = gdr_fail(GDR_EXIT_USAGE,
                          "%s: schema %s is newer than this gdr-report reads "
                          "(gdrbench.result/1): update gdrbench",
                          path, sv);
        cJSON_Delete(root);
    }
    closedir(d);
    return rc;
}

static cJSON *read_optional(const char *dir, const char *name, const char *version_key,
                            const char *version, int *rc)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fclose(f);
    cJSON *j = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!j) {
        *rc = -1;
        return NULL;
    }
    const char *v = gdr_jstr(j, version_key);
    if (version && (!v || strcmp(v, version))) {
        *rc = gdr_fail(GDR_EXIT_USAGE, "%s: %s is '%s', this gdr-report reads '%s'", path,
                       version_key, v ? v : "(none)", version);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* ---- sections ---- */

static void facts(struct gdr_buf *b, const struct gdr_plan *p, const cJSON *m)
{
    gdr_section_begin(b, "run", "What ran, when, on which nodes");
    gdr_buf_puts(b, "<dl class=\"facts\">");
    if (m) {
        gdr_buf_escf(b,
                     "<dt>finished</dt><dd>%s (UTC)</dd><dt>gdrbench</dt><dd>%s</dd>"
                     "<dt>launcher</dt><dd>%s</dd>",
                     gdr_jstr(m, "end_date") ? gdr_jstr(m, "end_date") : "?",
                     gdr_jstr(m, "git_version") ? gdr_jstr(m, "git_version") : "?",
                     gdr_jstr(m, "launcher") ? gdr_jstr(m, "launcher") : "?");
        gdr_buf_puts(b, "<dt>command</dt><dd><code>");
        gdr_argv_text(b, cJSON_GetObjectItemCaseSensitive(m, "command_line"));
        gdr_buf_puts(b, "</code></dd>");
        gdr_buf_printf(b, "<dt>runs</dt><dd>%.0f planned: %.0f ok, %.0f failed, %.0f missing</dd>",
                       gdr_jnum(m, "planned"), gdr_jnum(m, "ok"), gdr_jnum(m, "failed"),
                       gdr_jnum(m, "missing"));
    }
    gdr_buf_printf(b, "<dt>plan</dt><dd>%zu nodes, %zu rounds, %zu steps, %zu runs</dd>", p->nnodes,
                   p->nrounds, p->nsteps, p->nruns);
    gdr_buf_puts(b, "<dt>nodes</dt><dd>");
    for (size_t i = 0; i < p->nnodes; i++)
        gdr_buf_escf(b, "%s%s", i ? ", " : "", p->nodes[i]);
    gdr_buf_puts(b, "</dd></dl>\n");
    gdr_section_end(b);
}

static void suspects_section(struct gdr_buf *b, const cJSON *sj)
{
    gdr_section_begin(b, "suspects", "Suspects and their retest verdicts");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(sj, "suspects");
    if (!sj) {
        gdr_buf_puts(b, "<p>No suspects.json: the analysis did not run.</p>\n");
        gdr_section_end(b);
        return;
    }
    if (cJSON_GetArraySize(arr) == 0) {
        gdr_buf_puts(b, "<p>");
        gdr_badge(b, "ok", "no suspects");
        gdr_buf_puts(b, " Every node, link and rail within the detector's threshold.</p>\n");
        gdr_section_end(b);
        return;
    }
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"suspects\"><thead><tr><th>kind</th>"
                    "<th>nodes</th><th class=\"n\">rail</th><th>test</th><th>evidence</th>"
                    "<th>retests</th><th>status</th><th>verdict</th></tr></thead><tbody>\n");
    const cJSON *s;
    cJSON_ArrayForEach(s, arr) {
        const char *st = gdr_jstr(s, "status");
        bool bad = st && strcmp(st, "cleared");
        bool lat = gdr_jstr(s, "metric") && !strcmp(gdr_jstr(s, "metric"), "latency");
        gdr_buf_escf(b, "<tr%s><td>%s</td><td>", bad ? " class=\"flag\"" : "",
                     gdr_jstr(s, "kind") ? gdr_jstr(s, "kind") : "?");
        const cJSON *n;
        bool first = true;
        cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(s, "nodes")) {
            if (cJSON_IsString(n)) {
                gdr_buf_escf(b, "%s%s", first ? "" : ", ", n->valuestring);
                first = false;
            }
        }
        char ref[48];
        fmt_value(lat, gdr_jnum(s, "reference"), ref, sizeof(ref));
        gdr_buf_escf(b, "</td><td class=\"n\">%.0f</td><td>%s, %.0f B</td>", gdr_jnum(s, "rail"),
                     gdr_jstr(s, "test") ? gdr_jstr(s, "test") : "?", gdr_jnum(s, "size"));
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(s, "evidence");
        gdr_buf_printf(b, "<td>low against %.0f of %.0f partners (reference ",
                       gdr_jnum(ev, "low_partners"), gdr_jnum(ev, "partners"));
        gdr_buf_esc(b, ref);
        gdr_buf_puts(b, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "gdr_not_in_effect"))
                            ? "; GDR not in effect)"
                            : ")");
        gdr_buf_puts(b, "</td><td>");
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(s, "retest")) {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "client"),
                        *v = cJSON_GetObjectItemCaseSensitive(r, "server");
            char val[48];
            fmt_value(lat, gdr_jnum(r, "value"), val, sizeof(val));
            gdr_buf_escf(b, "%s \xe2\x86\x92 %s: %s%s<br>",
                         gdr_jstr(c, "node") ? gdr_jstr(c, "node") : "?",
                         gdr_jstr(v, "node") ? gdr_jstr(v, "node") : "?", val,
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "low")) ? " (low)" : "");
        }
        gdr_buf_puts(b, "</td><td>");
        gdr_badge(b, st ? st : "unknown", st ? st : "?");
        gdr_buf_escf(b, "</td><td>%s</td></tr>\n",
                     gdr_jstr(s, "verdict") ? gdr_jstr(s, "verdict") : "");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    gdr_section_end(b);
}

#define AGG_PAIRS_SHOWN 100

/* Slowest first: an incomplete pair's partial sum sorts it to the top. */
static int slower_pair(const void *x, const void *y)
{
    const struct gdr_aggregate_pair *a = *(const struct gdr_aggregate_pair *const *)x;
    const struct gdr_aggregate_pair *b = *(const struct gdr_aggregate_pair *const *)y;
    if (a->sum != b->sum)
        return a->sum < b->sum ? -1 : 1;
    return a->client != b->client ? (a->client < b->client ? -1 : 1)
                                  : (a->server > b->server) - (a->server < b->server);
}

static void aggregate_section(struct gdr_buf *b, const struct gdr_aggregate_set *g,
                              const struct gdr_matrix_set *s)
{
    gdr_section_begin(b, "aggregate", "Aggregate node-pair bandwidth over all rails");
    if (g->count == 0) {
        gdr_buf_puts(b, "<p>No bandwidth test in this run.</p>\n");
        gdr_section_end(b);
        return;
    }
    gdr_buf_puts(b, "<p>Per ordered node pair (client \xe2\x86\x92 server), the sum of its rails "
                    "measured at the same time; min, median and max over the pairs whose every "
                    "rail was measured (<code>gdr-cluster-core aggregate</code>).</p>\n");
    for (size_t i = 0; i < g->count;) {
        size_t e = i + 1;
        while (e < g->count && !strcmp(g->a[e].test.tool, g->a[i].test.tool) &&
               !strcmp(g->a[e].test.placement, g->a[i].test.placement) &&
               !strcmp(g->a[e].test.gdr, g->a[i].test.gdr))
            e++;
        char tn[64];
        gdr_test_mode_name(&g->a[i].test, tn, sizeof(tn));
        double max = 0;
        for (size_t k = i; k < e; k++)
            max = fmax(max, isnan(g->a[k].max) ? 0 : g->a[k].max);
        bool gbit = max * 8 >= 1e9;
        double scale = gbit ? 8 / 1e9 : 8 / 1e6;
        const char *unit = gbit ? "Gb/s" : "Mb/s";
        struct gdr_pt pts[64];
        size_t n = 0;
        for (size_t k = i; k < e && n < 64; k++)
            if (g->a[k].ncomplete)
                pts[n++] = (struct gdr_pt){(double)g->a[k].size,
                                           g->a[k].median * scale,
                                           g->a[k].min * scale,
                                           g->a[k].max * scale,
                                           0,
                                           NULL,
                                           NULL};
        struct gdr_line line = {.label = "median over node pairs (bar: min .. max)",
                                .color = GDR_C_BLUE,
                                .marker = GDR_MK_DIAMOND,
                                .n = n,
                                .pts = pts};
        char yl[64], lab[128];
        snprintf(yl, sizeof(yl), "node-pair bandwidth [%s]", unit);
        snprintf(lab, sizeof(lab), "%s aggregate node-pair bandwidth", tn);
        struct gdr_chart c = {.label = lab,
                              .xlabel = "message size",
                              .ylabel = yl,
                              .x = GDR_X_LOG2_BYTES,
                              .y = GDR_Y_ZERO,
                              .hline = NAN,
                              .nlines = 1,
                              .lines = &line,
                              .height = 320};
        gdr_buf_escf(b, "<h3>%s</h3>\n<figure>", tn);
        gdr_chart_figure(b, &c, NULL);
        gdr_buf_puts(b, "</figure>\n");
        gdr_buf_escf(b,
                     "<div class=\"tbl\"><table data-kind=\"aggregate\" data-test=\"%s\"><thead>"
                     "<tr><th>size</th><th class=\"n\">rails</th><th class=\"n\">pairs</th>"
                     "<th class=\"n\">complete</th><th class=\"n\">min [%s]</th>"
                     "<th class=\"n\">median [%s]</th><th class=\"n\">max [%s]</th>"
                     "<th>rails at once</th></tr></thead><tbody>\n",
                     tn, unit, unit, unit);
        for (size_t k = i; k < e; k++) {
            const struct gdr_aggregate *a = &g->a[k];
            char sz[32];
            gdr_fmt_size(a->size, sz, sizeof(sz));
            gdr_buf_printf(b,
                           "<tr data-size=\"%llu\"%s><th>%s</th><td class=\"n\">%zu</td>"
                           "<td class=\"n\">%zu</td><td class=\"n\">%zu</td>",
                           (unsigned long long)a->size,
                           a->ncomplete < a->npairs ? " class=\"flag\"" : "", sz, a->nrails,
                           a->npairs, a->ncomplete);
            gdr_td_num(b, a->min, scale, NULL, NULL);
            gdr_td_num(b, a->median, scale, NULL, NULL);
            gdr_td_num(b, a->max, scale, NULL, NULL);
            gdr_buf_puts(b, a->concurrent ? "<td>yes</td></tr>\n"
                                          : "<td>no: a sum of rails run apart (an upper "
                                            "bound)</td></tr>\n");
        }
        gdr_buf_puts(b, "</tbody></table></div>\n");
        /* The pairs of the largest size, slowest first (at most
         * AGG_PAIRS_SHOWN: aggregate.json has every pair). */
        const struct gdr_aggregate *a = &g->a[e - 1];
        const struct gdr_aggregate_pair **ord = calloc(a->npairs + 1, sizeof(*ord));
        if (ord) {
            for (size_t k = 0; k < a->npairs; k++)
                ord[k] = &a->pairs[k];
            qsort(ord, a->npairs, sizeof(*ord), slower_pair);
            size_t shown = a->npairs < AGG_PAIRS_SHOWN ? a->npairs : AGG_PAIRS_SHOWN;
            char sz[32];
            gdr_fmt_size(a->size, sz, sizeof(sz));
            if (shown < a->npairs)
                gdr_buf_escf(b,
                             "<details><summary>The %zu slowest of %zu node pairs at %s "
                             "(aggregate.json lists every pair)</summary>",
                             shown, a->npairs, sz);
            else
                gdr_buf_escf(b, "<details><summary>Each node pair at %s, slowest first</summary>",
                             sz);
            gdr_buf_escf(b,
                         "<div class=\"tbl\"><table><thead><tr><th>client</th><th>server</th>"
                         "<th class=\"n\">rails measured</th><th class=\"n\">sum [%s]</th>"
                         "</tr></thead><tbody>\n",
                         unit);
            for (size_t k = 0; k < shown; k++) {
                const struct gdr_aggregate_pair *pp = ord[k];
                gdr_buf_escf(b, "<tr%s><td>%s</td><td>%s</td><td class=\"n\">%zu of %zu</td>",
                             pp->rails_ok < pp->rails ? " class=\"flag\"" : "",
                             s->nodes[pp->client], s->nodes[pp->server], pp->rails_ok, pp->rails);
                gdr_td_num(b, pp->sum, scale, NULL, NULL);
                gdr_buf_puts(b, "</tr>\n");
            }
            gdr_buf_puts(b, "</tbody></table></div></details>\n");
            free(ord);
        }
        i = e;
    }
    gdr_section_end(b);
}

/* The detector's statistics of matrix k, or NULL when it was not analysed. */
static const struct gdr_mstats *stats_of(const struct gdr_detection *d, size_t k)
{
    for (size_t i = 0; i < d->nstats; i++)
        if (d->stats[i].matrix == k)
            return &d->stats[i];
    return NULL;
}

/* A heatmap shows every node up to HEAT_FULL_MAX; above, each cell is a
 * block of B x B nodes (B the smallest that fits), as report.md's figures
 * do: the page stays a few megabytes at thousands of nodes. */
#define HEAT_FULL_MAX 64

static size_t heat_block(size_t n)
{
    return n > HEAT_FULL_MAX ? (n + HEAT_FULL_MAX - 1) / HEAT_FULL_MAX : 1;
}

/* Matrix k against ref, a block of nodes a cell (heat_block): a block
 * holds its worst cell (a failed one, else the lowest ratio) and is low
 * when any of its cells is. */
static void heatmap(struct gdr_buf *b, const struct gdr_matrix_set *s, size_t k, double ref,
                    const struct gdr_mstats *st, const struct gdr_detect_opts *o, const char *title)
{
    const struct gdr_matrix *m = &s->m[k];
    size_t bs = heat_block(s->n), n = (s->n + bs - 1) / bs, nn = n * n;
    enum gdr_heat_state *state = calloc(nn + 1, sizeof(*state));
    double *ratio = calloc(nn + 1, sizeof(*ratio)), *value = calloc(nn + 1, sizeof(*value));
    bool *low = calloc(nn + 1, sizeof(*low));
    char(*txt)[32] = calloc(nn + 1, sizeof(*txt));
    const char **text = calloc(nn + 1, sizeof(*text));
    const char **names = calloc(n + 1, sizeof(*names));
    char(*blocks)[2 * GDR_NODE_NAME_LEN + 8] = bs > 1 ? calloc(n + 1, sizeof(*blocks)) : NULL;
    if (state && ratio && value && low && txt && text && names && (bs == 1 || blocks)) {
        for (size_t i = 0; i < n; i++) {
            size_t last = (i + 1) * bs < s->n ? (i + 1) * bs - 1 : s->n - 1;
            if (bs > 1)
                snprintf(blocks[i], sizeof(blocks[i]), "%s\xe2\x80\x93%s", s->nodes[i * bs],
                         s->nodes[last]);
            names[i] = bs > 1 ? blocks[i] : s->nodes[i];
        }
        for (size_t i = 0; i < nn; i++) {
            state[i] = bs == 1 && i / n == i % n ? GDR_HEAT_SELF : GDR_HEAT_NONE;
            ratio[i] = NAN;
        }
        for (size_t q = 0; q < m->ncells; q++) {
            const struct gdr_cell *c = &m->cells[q];
            size_t i = (c->c / bs) * n + c->s / bs;
            low[i] |= st && gdr_cell_low(m, st, o, c);
            if (c->state == GDR_CELL_FAILED) {
                state[i] = GDR_HEAT_FAILED;
            } else if (c->state == GDR_CELL_OK && state[i] != GDR_HEAT_FAILED) {
                double r =
                    ref > 0 && c->value > 0 ? (m->latency ? ref / c->value : c->value / ref) : NAN;
                if (state[i] != GDR_HEAT_OK || (!isnan(r) && (isnan(ratio[i]) || r < ratio[i]))) {
                    ratio[i] = r;
                    value[i] = c->value;
                }
                state[i] = GDR_HEAT_OK;
            }
        }
        for (size_t i = 0; i < nn; i++) {
            fmt_value(m->latency, state[i] == GDR_HEAT_OK ? value[i] : NAN, txt[i], sizeof(txt[i]));
            text[i] = txt[i];
        }
        struct gdr_heat h = {.label = title,
                             .n = n,
                             .names = names,
                             .state = state,
                             .ratio = ratio,
                             .text = text,
                             .low = low,
                             .row_label = bs > 1 ? "client nodes" : "client",
                             .col_label = bs > 1 ? "server nodes" : "server"};
        gdr_buf_puts(b, "<div class=\"fig\">");
        gdr_heatmap_svg(b, &h);
        gdr_buf_puts(b, "</div>\n");
    }
    free(state);
    free(ratio);
    free(value);
    free(low);
    free(txt);
    free(text);
    free(names);
    free(blocks);
}

static void heatmaps_section(struct gdr_buf *b, const struct gdr_matrix_set *s,
                             const struct gdr_detection *d, const struct gdr_detect_opts *o)
{
    gdr_section_begin(b, "heatmaps", "Node \xc3\x97 node heatmaps");
    gdr_buf_puts(b, "<p>Each analysed matrix (the largest size of a bandwidth test, the smallest "
                    "of a latency test, per rail): every cell against the detector's reference, "
                    "so a value of 1 is as good as the reference and lower is worse.</p>\n");
    for (size_t i = 0; i < d->nstats; i++) {
        const struct gdr_mstats *st = &d->stats[i];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64], title[256], ref[48];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        double r = m->latency && st->reference > 0 ? 1 / st->reference : st->reference;
        fmt_value(m->latency, r, ref, sizeof(ref));
        snprintf(title, sizeof(title), "%s, %llu B, rail %d", tn, (unsigned long long)m->size,
                 m->rail);
        gdr_buf_escf(b, "<figure><h3>%s</h3>", title);
        heatmap(b, s, st->matrix, r, st, o, title);
        gdr_buf_escf(b,
                     "<figcaption>Reference %s; %zu cells, %zu low, %zu failed. Rows: client, "
                     "columns: server.",
                     ref, st->nvalid, st->nlow, st->nfailed);
        if (heat_block(s->n) > 1)
            gdr_buf_printf(b,
                           " Each square is a block of %zu \xc3\x97 %zu nodes holding its worst "
                           "cell (a failed one first); the suspects above name the nodes.",
                           heat_block(s->n), heat_block(s->n));
        gdr_buf_puts(b, "</figcaption></figure>\n");
    }
    gdr_section_end(b);
}

static void rail_panel(struct gdr_buf *b, const struct gdr_matrix_set *s,
                       const struct gdr_detection *d, const struct gdr_detect_opts *o)
{
    gdr_section_begin(b, "rails", "Per-rail panel");
    bool any = false;
    for (size_t i = 0; i < d->nstats; i++) {
        const struct gdr_matrix *m = &s->m[d->stats[i].matrix];
        /* Each test once: its rails at the analysed size side by side. */
        bool seen = false;
        for (size_t j = 0; j < i; j++) {
            const struct gdr_matrix *x = &s->m[d->stats[j].matrix];
            seen |= !strcmp(x->test.tool, m->test.tool) &&
                    !strcmp(x->test.placement, m->test.placement) &&
                    !strcmp(x->test.gdr, m->test.gdr);
        }
        size_t rails[GDR_RAILS_MAX], nr = 0;
        for (size_t k = 0; k < s->count && nr < GDR_RAILS_MAX; k++)
            if (!strcmp(s->m[k].test.tool, m->test.tool) &&
                !strcmp(s->m[k].test.placement, m->test.placement) &&
                !strcmp(s->m[k].test.gdr, m->test.gdr) && s->m[k].size == m->size)
                rails[nr++] = k;
        if (seen || nr < 2)
            continue;
        any = true;
        /* Every cell against the median of all rails: a slow rail stands out. */
        size_t total = 0;
        for (size_t r = 0; r < nr; r++)
            total += s->m[rails[r]].ncells;
        double *all = calloc(total + 1, sizeof(double));
        size_t na = 0;
        for (size_t r = 0; all && r < nr; r++)
            for (size_t c = 0; c < s->m[rails[r]].ncells; c++)
                if (s->m[rails[r]].cells[c].state == GDR_CELL_OK)
                    all[na++] = s->m[rails[r]].cells[c].value;
        double med = na ? gdr_median_inplace(all, na) : 0;
        free(all);
        char tn[64];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        gdr_buf_escf(b,
                     "<h3>%s, %llu B: every rail against the median of all rails</h3>"
                     "<div class=\"grid\">",
                     tn, (unsigned long long)m->size);
        for (size_t r = 0; r < nr; r++) {
            char title[160];
            snprintf(title, sizeof(title), "%s rail %d", tn, s->m[rails[r]].rail);
            gdr_buf_escf(b, "<figure><h3>rail %d</h3>", s->m[rails[r]].rail);
            heatmap(b, s, rails[r], med, stats_of(d, rails[r]), o, title);
            gdr_buf_puts(b, "</figure>");
        }
        gdr_buf_puts(b, "</div>\n");
    }
    if (!any)
        gdr_buf_puts(b, "<p>One rail per test: nothing to set side by side.</p>\n");
    gdr_section_end(b);
}

/* By value, then by node: a tie keeps node order. */
static int cmp_value(const void *x, const void *y)
{
    const char *const *a = *(const char *const *const *)x, *const *b =
                                                               *(const char *const *const *)y;
    int c = strcmp(*a, *b);
    return c ? c : (a > b) - (a < b);
}

/* The value of most nodes, to mark the ones that differ; a tie goes to
 * the value of the first node. Sorted, for thousands of nodes; by is
 * scratch space for n pointers. */
static const char *majority(const char **v, size_t n, const char ***by)
{
    for (size_t i = 0; i < n; i++)
        by[i] = &v[i];
    qsort(by, n, sizeof(*by), cmp_value);
    const char *const *best = NULL;
    size_t bc = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(*by[i], *by[j]); j++)
            ;
        if (j - i > bc || (j - i == bc && by[i] < best)) {
            bc = j - i;
            best = by[i];
        }
    }
    return best ? *best : NULL;
}

/* rails/NODE.json, or NULL (no file, or not JSON: a "?" row). */
static cJSON *rails_doc(const char *dir, const char *node)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s/rails/%s.json", dir, node);
    cJSON *doc = gdr_json_read_file(path, 1 << 20);
    gdr_error_clear();
    return doc;
}

static void nodes_section(struct gdr_buf *b, const char *dir, const struct gdr_plan *p)
{
    gdr_section_begin(b, "nodes", "Nodes: software, rails and PCIe paths");
    size_t n = p->nnodes;
    static const char *const cols[] = {"gdrbench", "kernel", "nvidia_driver"};
    enum { NC = 3, NV = NC + 3 }; /* then peermem, NIC firmware, PCIe links */
    char(*vals)[NV][256] = calloc(n + 1, sizeof(*vals));
    char(*shortl)[256] = calloc(n + 1, sizeof(*shortl));
    const char **col = calloc(n + 1, sizeof(*col));
    const char ***by = calloc(n + 1, sizeof(*by));
    bool *have = calloc(n + 1, sizeof(*have));
    struct gdr_node_links *links = malloc(sizeof(*links));
    if (!vals || !shortl || !col || !by || !have || !links) {
        free(vals);
        free(shortl);
        free(col);
        free(by);
        free(have);
        free(links);
        gdr_section_end(b);
        return;
    }
    /* Each node's rails file read twice (its values, then its rails and
     * warnings), never thousands of them held at once. */
    for (size_t i = 0; i < n; i++) {
        cJSON *doc = rails_doc(dir, p->nodes[i]);
        have[i] = doc != NULL;
        const cJSON *sw = cJSON_GetObjectItemCaseSensitive(doc, "software");
        for (int c = 0; c < NC; c++)
            snprintf(vals[i][c], sizeof(vals[i][c]), "%s",
                     !doc                                                ? "?"
                     : gdr_jstr(sw, cols[c]) && gdr_jstr(sw, cols[c])[0] ? gdr_jstr(sw, cols[c])
                                                                         : "-");
        snprintf(vals[i][NC], sizeof(vals[i][NC]), "%s",
                 !doc                                                                   ? "?"
                 : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sw, "nvidia_peermem")) ? "yes"
                                                                                        : "no");
        /* NIC firmware: DEVICE VERSION pairs. */
        char fw[256] = "";
        const cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(sw, "nic_firmware")) {
            if (cJSON_IsString(f) && f->string && strlen(fw) + strlen(f->string) + 40 < sizeof(fw))
                snprintf(fw + strlen(fw), sizeof(fw) - strlen(fw), "%s%s %s", fw[0] ? ", " : "",
                         f->string, f->valuestring[0] ? f->valuestring : "-");
        }
        snprintf(vals[i][NC + 1], sizeof(vals[i][NC + 1]), "%s", doc ? fw : "?");
        /* The rails' PCIe links (cluster_links.h); "?" from an older probe. */
        snprintf(vals[i][NC + 2], sizeof(vals[i][NC + 2]), "?");
        if (gdr_node_links_from_json(cJSON_GetObjectItemCaseSensitive(doc, "pcie_links"), links) ==
            0) {
            gdr_node_links_summary(links, vals[i][NC + 2], sizeof(vals[i][NC + 2]));
            gdr_node_links_short(links, shortl[i], sizeof(shortl[i]));
        }
        cJSON_Delete(doc);
    }
    const char *maj[NV];
    for (int c = 0; c < NV; c++) {
        for (size_t i = 0; i < n; i++)
            col[i] = vals[i][c];
        maj[c] = majority(col, n, by);
    }
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"nodes\"><thead><tr><th>node</th>"
                    "<th>gdrbench</th><th>kernel</th><th>NVIDIA driver</th><th>nvidia_peermem</th>"
                    "<th>NIC firmware</th><th>PCIe links</th>"
                    "<th>rails: GPU \xe2\x86\x94 NIC (PCIe path)</th>"
                    "<th>warnings</th></tr></thead><tbody>\n");
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
        cJSON *doc = have[i] ? rails_doc(dir, p->nodes[i]) : NULL;
        gdr_buf_escf(b, "<tr><td>%s</td>", p->nodes[i]);
        for (int c = 0; c < NV; c++) {
            bool d = maj[c] && strcmp(vals[i][c], maj[c]) && strcmp(vals[i][c], "?");
            differ += d;
            gdr_buf_escf(b, "<td>%s%s", vals[i][c], d ? " \xe2\x89\xa0" : "");
            if (c == NC + 2 && shortl[i][0]) /* links short of their maximum, named */
                gdr_buf_escf(b, "<br><span class=\"warn\">below max: %s</span>", shortl[i]);
            gdr_buf_puts(b, "</td>");
        }
        gdr_buf_puts(b, "<td>");
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "rails")) {
            const char *bdf = gdr_jstr(r, "gpu_bdf");
            gdr_buf_escf(b, "%.0f: %s \xe2\x86\x94 %s (%s)<br>", gdr_jnum(r, "rail"),
                         bdf && bdf[0] ? bdf : "host",
                         gdr_jstr(r, "device") ? gdr_jstr(r, "device") : "?",
                         gdr_jstr(r, "path") ? gdr_jstr(r, "path") : "?");
        }
        if (!doc)
            gdr_buf_puts(b, "? (no rails file)");
        gdr_buf_puts(b, "</td><td>");
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "warnings")) {
            if (cJSON_IsString(w))
                gdr_buf_escf(b, "%s<br>", w->valuestring);
        }
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "unused_devices")) {
            if (cJSON_IsString(w))
                gdr_buf_escf(b, "not a rail: %s<br>", w->valuestring);
        }
        gdr_buf_puts(b, "</td></tr>\n");
        cJSON_Delete(doc);
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    gdr_buf_puts(b, differ ? "<p class=\"warn\">\xe2\x89\xa0 marks a value that differs from most "
                             "nodes': rule it out first when that node is slow.</p>\n"
                           : "<p>Every node runs the same software and PCIe links.</p>\n");
    free(vals);
    free(shortl);
    free(col);
    free(by);
    free(have);
    free(links);
    gdr_section_end(b);
}

/* The runs that did not complete, from manifest.json one run at a time
 * (a run of thousands of nodes lists hundreds of thousands): the first
 * FAILED_SHOWN as table rows, all of them counted. */
#define FAILED_SHOWN 200

struct failed_list {
    struct gdr_buf rows;
    size_t n;
};

static int failed_run(const cJSON *r, void *ctx)
{
    struct failed_list *fl = ctx;
    const char *st = gdr_jstr(r, "status");
    if (!st || !strcmp(st, "ok") || fl->n++ >= FAILED_SHOWN)
        return 0;
    gdr_buf_escf(&fl->rows, "<tr class=\"flag\"><td>%s</td><td>",
                 gdr_jstr(r, "id") ? gdr_jstr(r, "id") : "?");
    gdr_badge(&fl->rows, "failed", st);
    gdr_buf_escf(&fl->rows, "</td><td>%s</td></tr>\n",
                 gdr_jstr(r, "reason") ? gdr_jstr(r, "reason") : "");
    return 0;
}

static void failed_runs(struct gdr_buf *b, struct failed_list *fl)
{
    if (!fl->n)
        return;
    gdr_buf_puts(b, "<h3>Runs that did not complete</h3>");
    if (fl->n > FAILED_SHOWN)
        gdr_buf_printf(b, "<p>The first %d of %zu (manifest.json lists every run).</p>",
                       FAILED_SHOWN, fl->n);
    gdr_buf_puts(b, "<div class=\"tbl\"><table><thead>"
                    "<tr><th>run</th><th>status</th><th>reason</th></tr></thead><tbody>\n");
    gdr_buf_put(b, gdr_buf_text(&fl->rows), gdr_buf_len(&fl->rows));
    gdr_buf_puts(b, "</tbody></table></div>\n");
}

/* manifest.json (optional): its members but the runs in *m, the failed
 * runs in fl. */
static int read_manifest(const char *dir, cJSON **m, struct failed_list *fl)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/manifest.json", dir);
    *m = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    fclose(f);
    return gdr_json_stream(path, "runs", failed_run, fl, m) ? -1 : 0;
}

/* The first client document there is (at most 64 runs looked at): what
 * the run ran on (the lab's warnings); a newer schema is refused. */
struct first_doc {
    const char *dir;
    cJSON *doc;
    size_t tries;
};

static int first_doc(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    struct first_doc *fd = ctx;
    char path[4600];
    snprintf(path, sizeof(path), "%s/%s.client.json", fd->dir, r->id);
    fd->doc = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    gdr_error_clear();
    const char *sv = gdr_jstr(fd->doc, "schema_version");
    int v;
    if (sv && sscanf(sv, "gdrbench.result/%d", &v) == 1 && v > 1)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: schema %s is newer than this gdr-report reads "
                        "(gdrbench.result/1): update gdrbench",
                        path, sv);
    return fd->doc || ++fd->tries >= 64 ? 1 : 0;
}

/* The cells: gdr-cluster's cells file (.cluster/cells: the documents it
 * read once, the numbers report.md and suspects.json judged, the agents'
 * lines in agent mode) when there is one for this plan; else every
 * document, each checked for a newer schema first. */
static int load_cells(const struct gdr_plan *p, const char *dir, struct gdr_matrix_set *s)
{
    char cells[4200];
    snprintf(cells, sizeof(cells), "%s/.cluster/cells", dir);
    FILE *f = fopen(cells, "rb");
    if (f) {
        fclose(f);
        struct gdr_matrix_source src = {dir, cells, NULL, NULL};
        if (gdr_matrix_load(p, &src, false, 0, s) == 0)
            return 0;
        gdr_matrix_set_free(s);
        gdr_error_clear(); /* a cells file of another plan: the documents */
    }
    struct gdr_matrix_source src = {dir, NULL, NULL, NULL};
    return newer_docs(dir) || gdr_matrix_load(p, &src, false, 0, s) ? -1 : 0;
}

static void detect_opts_of(const cJSON *sj, struct gdr_detect_opts *o)
{
    gdr_detect_opts_default(o);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(sj, "options");
    double v;
    if (!isnan(v = gdr_jnum(op, "tolerance")))
        o->tolerance = v;
    if (!isnan(v = gdr_jnum(op, "mad_k")))
        o->mad_k = v;
    if (!isnan(v = gdr_jnum(op, "min_link_frac")))
        o->min_link_frac = v;
    if (!isnan(v = gdr_jnum(op, "min_pct_of_limit")))
        o->min_pct_of_limit = v;
    if (!isnan(v = gdr_jnum(op, "size")) && v >= 0)
        o->size = (uint64_t)v;
}

int gdr_report_cluster(struct gdr_buf *b, const char *dir, const struct gdr_report_opts *o)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/plan.json", dir);
    struct gdr_plan p;
    if (gdr_plan_load(path, &p)) {
        gdr_cluster_input_error();
        return -1;
    }
    struct failed_list fl = {0};
    cJSON *m = NULL;
    int rc = read_manifest(dir, &m, &fl);
    cJSON *sj =
        rc ? NULL
           : read_optional(dir, "suspects.json", "suspects_version", GDR_SUSPECTS_VERSION, &rc);
    struct gdr_matrix_set s = {0};
    struct gdr_detection d = {0};
    struct gdr_aggregate_set g = {0};
    struct gdr_detect_opts dopts;
    detect_opts_of(sj, &dopts);
    bool have_s = false, have_d = false, have_g = false;
    struct first_doc fd = {dir, NULL, 0};
    if (rc == 0 && gdr_plan_foreach(&p, 0, first_doc, &fd) < 0)
        rc = -1;
    if (rc == 0 && (rc = load_cells(&p, dir, &s)) == 0)
        have_s = true;
    if (rc == 0 && (rc = gdr_detect(&s, &dopts, &d)) == 0)
        have_d = true;
    if (rc == 0 && (rc = gdr_aggregate_compute(&p, &s, &g)) == 0)
        have_g = true;
    if (rc == 0) {
        char title[512];
        if (o->title)
            snprintf(title, sizeof(title), "%s", o->title);
        else
            snprintf(title, sizeof(title), "gdrbench cluster run: %zu nodes (%s)", p.nnodes, dir);
        gdr_html_begin(b, title);
        gdr_buf_puts(b, "<header><h1>");
        gdr_buf_esc(b, title);
        gdr_buf_puts(b, "</h1>\n");
        const cJSON *ce = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(fd.doc, "ends"), "client");
        bool soft = gdr_jstr(ce, "device") && !strncmp(gdr_jstr(ce, "device"), "rxe", 3);
        bool sim = gdr_jstr(ce, "cuda_name") && !strncmp(gdr_jstr(ce, "cuda_name"), "cudasim", 7);
        gdr_lab_warnings(b, sim, soft);
        gdr_buf_puts(b, "</header>\n");
        facts(b, &p, m);
        failed_runs(b, &fl);
        suspects_section(b, sj);
        aggregate_section(b, &g, &s);
        heatmaps_section(b, &s, &d, &dopts);
        rail_panel(b, &s, &d, &dopts);
        nodes_section(b, dir, &p);
        gdr_html_end(b, o->generator);
    }
    if (have_g)
        gdr_aggregate_free(&g);
    if (have_d)
        gdr_detection_free(&d);
    if (have_s)
        gdr_matrix_set_free(&s);
    cJSON_Delete(fd.doc);
    gdr_buf_free(&fl.rows);
    cJSON_Delete(m);
    cJSON_Delete(sj);
    gdr_plan_free(&p);
    return rc;
}
