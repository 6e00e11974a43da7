/* report_cluster.c - the page of a gdr-cluster run: the suspects and
 * their retest verdicts first, then the aggregate node-pair bandwidth over
 * all rails (cluster_aggregate.c), a heatmap per test and rail, the
 * per-rail panel, each node's software and rails, the failed runs. The
 * statistics are the detector's own (cluster_suspects.c), with the options
 * suspects.json recorded, so the page shows what gdr-cluster judged. */
#include "config.h"

#include "report.h"
#include "text.h"
#include "error.h"
#include "json.h"
#include "stats.h"

#include "cluster_aggregate.h"
#include "cluster_findings.h"
#include "cluster_links.h"
#include "cluster_stream.h"
#include "cluster_suspects.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        rc = gdr_doc_newer_schema(root, path);
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
                     gdr_jstr_or(m, "end_date", "?"), gdr_jstr_or(m, "git_version", "?"),
                     gdr_jstr_or(m, "launcher", "?"));
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

/* The analysis' verdict and its reasons (suspects.json summary). */
static void verdict(struct gdr_buf *b, const cJSON *doc)
{
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary"), *r;
    const char *v = gdr_jstr_or(sum, "verdict", "unknown");
    gdr_buf_escf(b, "<p data-verdict=\"%s\">Verdict: ", v);
    gdr_badge(b, v, v);
    bool lead = true;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sum, "reasons")) {
        gdr_buf_escf(b, "%s%s", lead ? " " : ", ", cJSON_GetStringValue(r));
        lead = false;
    }
    gdr_buf_puts(b, "</p>\n");
}

static void suspects_section(struct gdr_buf *b, const cJSON *sj, bool read)
{
    gdr_section_begin(b, "suspects", "Suspects and their retest verdicts");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(sj, "suspects");
    if (!read) {
        gdr_buf_puts(b, "<p>No suspects.json: the analysis did not run.</p>\n");
        gdr_section_end(b);
        return;
    }
    verdict(b, sj);
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
                     gdr_jstr_or(s, "kind", "?"));
        const cJSON *n;
        bool first = true;
        cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(s, "nodes")) {
            if (cJSON_IsString(n)) {
                gdr_buf_escf(b, "%s%s", first ? "" : ", ", n->valuestring);
                first = false;
            }
        }
        char ref[48], sz[32];
        gdr_findings_fmt(sj, lat, gdr_jnum(s, "reference"), ref, sizeof(ref));
        gdr_fmt_size(gdr_jcount(s, "size"), sz, sizeof(sz));
        gdr_buf_escf(b, "</td><td class=\"n\">%.0f</td><td>%s, %s</td>", gdr_jnum(s, "rail"),
                     gdr_jstr_or(s, "test", "?"), sz);
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
            gdr_findings_fmt(sj, lat, gdr_jnum(r, "value"), val, sizeof(val));
            gdr_buf_escf(b, "%s \xe2\x86\x92 %s: %s%s<br>", gdr_jstr_or(c, "node", "?"),
                         gdr_jstr_or(v, "node", "?"), val,
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "low")) ? " (low)" : "");
        }
        gdr_buf_puts(b, "</td><td>");
        gdr_badge(b, st ? st : "unknown", st ? st : "?");
        gdr_buf_escf(b, "</td><td>%s</td></tr>\n", gdr_jstr_or(s, "verdict", ""));
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

static void aggregate_section(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *doc,
                              const struct gdr_aggregate_set *g, const struct gdr_matrix_set *s)
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
        while (e < g->count && gdr_test_mode_equal(&g->a[e].test, &g->a[i].test))
            e++;
        char tn[64];
        gdr_test_mode_name(&g->a[i].test, tn, sizeof(tn));
        /* the run's unit (cluster_findings.h), as every other number */
        struct gdr_unit u = gdr_findings_unit(doc, false);
        double sizes[64];
        size_t n = 0;
        char *rows = NULL, yl[64], lab[128];
        size_t rlen = 0;
        FILE *d = open_memstream(&rows, &rlen);
        for (size_t k = i; d && k < e && n < 64; k++)
            if (g->a[k].ncomplete) {
                sizes[n++] = (double)g->a[k].size;
                fprintf(d, "%llu %.9g %.9g %.9g\n", (unsigned long long)g->a[k].size,
                        g->a[k].median * u.scale, g->a[k].min * u.scale, g->a[k].max * u.scale);
            }
        if (d && fclose(d) == 0) {
            struct gdr_fig_line line = {"$agg",
                                        -1,
                                        "1:2:3:4",
                                        GDR_FIG_ERRORLINES,
                                        "median over node pairs (bar: min .. max)",
                                        GDR_C_BLUE,
                                        false,
                                        false,
                                        0};
            snprintf(yl, sizeof(yl), "node-pair bandwidth [%s]", u.name);
            snprintf(lab, sizeof(lab), "%s aggregate node-pair bandwidth", tn);
            struct gdr_fig_chart c = {.title = "",
                                      .xlabel = "message size",
                                      .ylabel = yl,
                                      .x = GDR_X_LOG2_BYTES,
                                      .nsizes = n,
                                      .sizes = sizes,
                                      .y = GDR_Y_ZERO,
                                      .hline = NAN,
                                      .nlines = 1,
                                      .lines = &line,
                                      .key_cols = 1};
            gdr_buf_escf(b, "<h3>%s</h3>\n<figure><div class=\"fig\">", tn);
            FILE *gp = gdr_figset_add(fs, b, lab, 720, 360);
            gdr_fig_block(gp, "agg", rows);
            gdr_fig_chart(gp, &c);
            gdr_buf_puts(b, "</div></figure>\n");
        }
        free(rows);
        gdr_buf_escf(b,
                     "<div class=\"tbl\"><table data-kind=\"aggregate\" data-test=\"%s\"><thead>"
                     "<tr><th>size</th><th class=\"n\">rails</th><th class=\"n\">pairs</th>"
                     "<th class=\"n\">complete</th><th class=\"n\">min [%s]</th>"
                     "<th class=\"n\">median [%s]</th><th class=\"n\">max [%s]</th>"
                     "<th>rails at once</th></tr></thead><tbody>\n",
                     tn, u.name, u.name, u.name);
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
            gdr_td_num(b, a->min, u.scale, NULL, NULL);
            gdr_td_num(b, a->median, u.scale, NULL, NULL);
            gdr_td_num(b, a->max, u.scale, NULL, NULL);
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
                         u.name);
            for (size_t k = 0; k < shown; k++) {
                const struct gdr_aggregate_pair *pp = ord[k];
                gdr_buf_escf(b, "<tr%s><td>%s</td><td>%s</td><td class=\"n\">%zu of %zu</td>",
                             pp->rails_ok < pp->rails ? " class=\"flag\"" : "",
                             s->nodes[pp->client], s->nodes[pp->server], pp->rails_ok, pp->rails);
                gdr_td_num(b, pp->sum, u.scale, NULL, NULL);
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

struct low_ctx {
    const struct gdr_matrix *m;
    const struct gdr_mstats *st;
    const struct gdr_detect_opts *o;
};

static bool cell_low(const void *ctx, const struct gdr_cell *c)
{
    const struct low_ctx *l = ctx;
    return gdr_cell_low(l->m, l->st, l->o, c);
}

/* Matrix k against ref, the grid of the figures too (gdr_heat_grid). */
static void heatmap(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *doc,
                    const struct gdr_matrix_set *s, size_t k, double ref,
                    const struct gdr_mstats *st, const struct gdr_detect_opts *o, const char *title)
{
    const struct gdr_matrix *m = &s->m[k];
    struct low_ctx lc = {m, st, o};
    struct gdr_heat_grid g;
    if (gdr_heat_grid(s, m, ref, st ? cell_low : NULL, &lc, &g))
        return;
    size_t bs = g.block, n = g.side;
    const char **names = calloc(n + 1, sizeof(*names));
    char(*blocks)[2 * GDR_NODE_NAME_LEN + 8] = bs > 1 ? calloc(n + 1, sizeof(*blocks)) : NULL;
    enum { CELLS, FAILED, UNREACHABLE, LOW, TIPS, NFILES };
    static const char *const kind[NFILES] = {"cells", "failed", "unreachable", "low", "tips"};
    char file[NFILES][48];
    FILE *f[NFILES] = {0};
    bool opened = true;
    for (int i = 0; i < NFILES; i++) {
        char path[4400];
        snprintf(file[i], sizeof(file[i]), "heat%zu-%s.dat", fs->n, kind[i]);
        snprintf(path, sizeof(path), "%s/%s", fs->dir, file[i]);
        opened &= (f[i] = fopen(path, "w")) != NULL;
    }
    if (names && (bs == 1 || blocks) && opened) {
        for (size_t i = 0; i < n; i++) {
            size_t last = (i + 1) * bs < s->n ? (i + 1) * bs - 1 : s->n - 1;
            if (bs > 1)
                snprintf(blocks[i], sizeof(blocks[i]), "%s\xe2\x80\x93%s", s->nodes[i * bs],
                         s->nodes[last]);
            names[i] = bs > 1 ? blocks[i] : s->nodes[i];
        }
        for (size_t i = 0; i < n * n; i++) {
            const struct gdr_heat_cell *c = &g.cell[i];
            size_t row = i / n, col = i % n;
            if (bs == 1 && row == col)
                continue; /* a node with itself */
            char txt[32], tip[600];
            gdr_findings_fmt(doc, m->latency, c->value, txt, sizeof(txt));
            if (!isnan(c->ratio)) {
                fprintf(f[CELLS], "%zu %zu %.6g\n", col, row, c->ratio);
                snprintf(tip, sizeof(tip), "%s \xe2\x86\x92 %s: %s (%.2f of the reference)%s%s",
                         names[row], names[col], txt, c->ratio, c->low ? ", low" : "",
                         c->failed ? ", a run failed" : "");
            } else {
                snprintf(tip, sizeof(tip), "%s \xe2\x86\x92 %s: %s", names[row], names[col],
                         c->failed        ? "failed"
                         : c->unreachable ? "unreachable"
                                          : "not run");
            }
            if (c->failed)
                fprintf(f[FAILED], "%zu %zu\n", col, row);
            if (c->unreachable)
                fprintf(f[UNREACHABLE], "%zu %zu\n", col, row);
            if (c->low)
                fprintf(f[LOW], "%zu %zu\n", col, row);
            fprintf(f[TIPS], "%zu %zu %zu\n", col, row, gdr_figset_tip(fs, tip, NULL));
        }
        bool bad = false;
        for (int i = 0; i < NFILES; i++) {
            bad |= fclose(f[i]) != 0;
            f[i] = NULL;
        }
        struct gdr_fig_heat h = {.title = "",
                                 .xlabel = bs > 1 ? "server nodes" : "server",
                                 .ylabel = bs > 1 ? "client nodes" : "client",
                                 .side = n,
                                 .nnames = n,
                                 .names = names,
                                 .cells = file[CELLS],
                                 .ratio_col = "3",
                                 .failed = file[FAILED],
                                 .unreachable = file[UNREACHABLE],
                                 .low = file[LOW],
                                 .tips = file[TIPS],
                                 .values = true,
                                 .key = true};
        gdr_buf_puts(b, "<div class=\"fig\">");
        if (!bad)
            gdr_fig_heatmap(gdr_figset_add(fs, b, title, 720, 640), &h);
        gdr_buf_puts(b, "</div>\n");
    }
    for (int i = 0; i < NFILES; i++)
        if (f[i])
            fclose(f[i]);
    gdr_heat_grid_free(&g);
    free(names);
    free(blocks);
}

static void heatmaps_section(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *doc,
                             const struct gdr_matrix_set *s, const struct gdr_detection *d,
                             const struct gdr_detect_opts *o)
{
    gdr_section_begin(b, "heatmaps", "Node \xc3\x97 node heatmaps");
    gdr_buf_puts(b, "<p>Each analysed matrix (the largest size of a bandwidth test, the smallest "
                    "of a latency test, per rail): every cell against the detector's reference, "
                    "so a value of 1 is as good as the reference and lower is worse.</p>\n");
    for (size_t i = 0; i < d->nstats; i++) {
        const struct gdr_mstats *st = &d->stats[i];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64], title[256], ref[48], sz[32];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        gdr_fmt_size(m->size, sz, sizeof(sz));
        double r = m->latency && st->reference > 0 ? 1 / st->reference : st->reference;
        gdr_findings_fmt(doc, m->latency, r, ref, sizeof(ref));
        snprintf(title, sizeof(title), "%s, %s, rail %d", tn, sz, m->rail);
        gdr_buf_escf(b, "<figure><h3>%s</h3>", title);
        heatmap(b, fs, doc, s, st->matrix, r, st, o, title);
        gdr_buf_escf(b,
                     "<figcaption>Reference %s; %zu cells, %zu low, %zu failed. Rows: client, "
                     "columns: server.",
                     ref, st->nvalid, st->nlow, st->nfailed);
        if (gdr_heat_block(s->n) > 1)
            gdr_buf_printf(b,
                           " Each square is a block of %zu \xc3\x97 %zu nodes holding its worst "
                           "measured pair (black, crossed, when one of its runs failed: the "
                           "tooltip keeps the ratio); the suspects above name the nodes.",
                           gdr_heat_block(s->n), gdr_heat_block(s->n));
        gdr_buf_puts(b, "</figcaption></figure>\n");
    }
    gdr_section_end(b);
}

static void rail_panel(struct gdr_buf *b, struct gdr_figset *fs, const cJSON *doc,
                       const struct gdr_matrix_set *s, const struct gdr_detection *d,
                       const struct gdr_detect_opts *o)
{
    gdr_section_begin(b, "rails", "Per-rail panel");
    bool any = false;
    for (size_t i = 0; i < d->nstats; i++) {
        const struct gdr_matrix *m = &s->m[d->stats[i].matrix];
        /* Each test once: its rails at the analysed size side by side. */
        bool seen = false;
        for (size_t j = 0; j < i; j++) {
            const struct gdr_matrix *x = &s->m[d->stats[j].matrix];
            seen |= gdr_test_mode_equal(&x->test, &m->test);
        }
        size_t rails[GDR_RAILS_MAX], nr = 0;
        for (size_t k = 0; k < s->count && nr < GDR_RAILS_MAX; k++)
            if (gdr_test_mode_equal(&s->m[k].test, &m->test) && s->m[k].size == m->size)
                rails[nr++] = k;
        if (seen || nr < 2)
            continue;
        any = true;
        /* Every cell against the median of all rails: a slow rail stands out. */
        const struct gdr_matrix *rm[GDR_RAILS_MAX];
        for (size_t r = 0; r < nr; r++)
            rm[r] = &s->m[rails[r]];
        double med = gdr_matrices_median(rm, nr);
        char tn[64], sz[32];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        gdr_fmt_size(m->size, sz, sizeof(sz));
        gdr_buf_escf(b,
                     "<h3>%s, %s: every rail against the median of all rails</h3>"
                     "<div class=\"grid\">",
                     tn, sz);
        for (size_t r = 0; r < nr; r++) {
            char title[160];
            snprintf(title, sizeof(title), "%s rail %d", tn, s->m[rails[r]].rail);
            gdr_buf_escf(b, "<figure><h3>rail %d</h3>", s->m[rails[r]].rail);
            heatmap(b, fs, doc, s, rails[r], med, stats_of(d, rails[r]), o, title);
            gdr_buf_puts(b, "</figure>");
        }
        gdr_buf_puts(b, "</div>\n");
    }
    if (!any)
        gdr_buf_puts(b, "<p>One rail per test: nothing to set side by side.</p>\n");
    gdr_section_end(b);
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

/* Each node's software and PCIe links as the analysis marked them
 * (suspects.json "software"), then its rails and warnings (rails/NODE.json,
 * read one node at a time). */
static void nodes_section(struct gdr_buf *b, const char *dir, const cJSON *doc)
{
    gdr_section_begin(b, "nodes", "Nodes: software, rails and PCIe paths");
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(doc, "software"), *c, *x, *v;
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"nodes\"><thead><tr><th>node</th>");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sw, "columns"))
        gdr_buf_escf(b, "<th>%s</th>", cJSON_GetStringValue(c));
    gdr_buf_puts(b, "<th>rails: GPU \xe2\x86\x94 NIC (PCIe path)</th>"
                    "<th>warnings</th></tr></thead><tbody>\n");
    bool differ = false;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sw, "nodes")) {
        const cJSON *differs = cJSON_GetObjectItemCaseSensitive(x, "differs");
        const char *node = gdr_jstr_or(x, "node", "?");
        gdr_buf_escf(b, "<tr><td>%s</td>", node);
        c = cJSON_GetObjectItemCaseSensitive(sw, "columns")->child;
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(x, "values")) {
            bool d = false;
            const cJSON *t;
            cJSON_ArrayForEach(t, differs)
                d |= c && cJSON_IsString(t) && !strcmp(t->valuestring, c->valuestring);
            differ |= d;
            gdr_buf_escf(b, "<td>%s%s", cJSON_GetStringValue(v), d ? " \xe2\x89\xa0" : "");
            if (!v->next && gdr_jstr(x, "links_below_max") && *gdr_jstr(x, "links_below_max"))
                gdr_buf_escf(b, "<br><span class=\"warn\">below max: %s</span>",
                             gdr_jstr(x, "links_below_max"));
            gdr_buf_puts(b, "</td>");
            c = c ? c->next : NULL;
        }
        cJSON *rd = rails_doc(dir, node);
        gdr_buf_puts(b, "<td>");
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(rd, "rails")) {
            const char *bdf = gdr_jstr(r, "gpu_bdf");
            gdr_buf_escf(b, "%.0f: %s \xe2\x86\x94 %s (%s)<br>", gdr_jnum(r, "rail"),
                         bdf && bdf[0] ? bdf : "host", gdr_jstr_or(r, "device", "?"),
                         gdr_jstr_or(r, "path", "?"));
        }
        if (!rd)
            gdr_buf_puts(b, "? (no rails file)");
        gdr_buf_puts(b, "</td><td>");
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rd, "warnings")) {
            if (cJSON_IsString(w))
                gdr_buf_escf(b, "%s<br>", w->valuestring);
        }
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rd, "unused_devices")) {
            if (cJSON_IsString(w))
                gdr_buf_escf(b, "not a rail: %s<br>", w->valuestring);
        }
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rd, "down_devices")) {
            if (cJSON_IsString(w))
                gdr_buf_escf(b, "port down: %s<br>", w->valuestring);
        }
        gdr_buf_puts(b, "</td></tr>\n");
        cJSON_Delete(rd);
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    gdr_buf_puts(b, differ ? "<p class=\"warn\">\xe2\x89\xa0 marks a value that differs from most "
                             "nodes': rule it out first when that node is slow.</p>\n"
                           : "<p>Every node runs the same software and PCIe links.</p>\n");
    gdr_section_end(b);
}

/* Per analysed matrix, its statistics and worst links and nodes, as the
 * analysis wrote them (suspects.json "matrices"). */
static void per_rail_section(struct gdr_buf *b, const cJSON *doc)
{
    gdr_section_begin(b, "per-rail", "Per rail: statistics, worst links and nodes");
    gdr_buf_puts(b, "<div class=\"tbl\"><table data-kind=\"per-rail\"><thead><tr><th>test</th>"
                    "<th class=\"n\">rail</th><th class=\"n\">size</th><th>median</th>"
                    "<th>reference</th><th>threshold</th><th class=\"n\">cells</th>"
                    "<th class=\"n\">low</th><th class=\"n\">failed</th><th>worst links</th>"
                    "<th>worst nodes (low, failed cells)</th></tr></thead><tbody>\n");
    const cJSON *m, *x;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "matrices")) {
        bool lat = !strcmp(gdr_jstr_or(m, "metric", ""), "latency");
        char v[3][48], sz[32];
        gdr_fmt_size(gdr_jcount(m, "size"), sz, sizeof(sz));
        static const char *const keys[] = {"median", "reference", "threshold"};
        for (int k = 0; k < 3; k++)
            gdr_findings_fmt(doc, lat, gdr_jnum(m, keys[k]), v[k], sizeof(v[k]));
        gdr_buf_escf(b,
                     "<tr><td>%s</td><td class=\"n\">%.0f</td><td class=\"n\">%s</td>"
                     "<td>%s</td><td>%s</td><td>%s</td><td class=\"n\">%.0f</td>"
                     "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
                     gdr_jstr_or(m, "test", "?"), gdr_jnum(m, "rail"), sz, v[0], v[1], v[2],
                     gdr_jnum(m, "cells"), gdr_jnum(m, "low_cells"), gdr_jnum(m, "failed_cells"));
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "worst_links")) {
            gdr_findings_fmt(doc, lat, gdr_jnum(x, "value"), v[0], sizeof(v[0]));
            bool failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "failed"));
            gdr_buf_escf(b, "%s \xe2\x86\x92 %s: %s%s<br>", gdr_jstr(x, "client"),
                         gdr_jstr(x, "server"), failed ? "failed" : v[0],
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "low")) ? " (low)" : "");
        }
        gdr_buf_puts(b, "</td><td>");
        int shown = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "nodes")) {
            if (gdr_jnum(x, "low") + gdr_jnum(x, "failed") > 0 && shown++ < GDR_WORST_LINKS)
                gdr_buf_escf(b, "%s (%.0f, %.0f)<br>", gdr_jstr(x, "node"), gdr_jnum(x, "low"),
                             gdr_jnum(x, "failed"));
        }
        gdr_buf_puts(b, shown ? "</td></tr>\n" : "none</td></tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
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
    gdr_buf_escf(&fl->rows, "<tr class=\"flag\"><td>%s</td><td>", gdr_jstr_or(r, "id", "?"));
    gdr_badge(&fl->rows, "failed", st);
    gdr_buf_escf(&fl->rows, "</td><td>%s</td></tr>\n", gdr_jstr_or(r, "reason", ""));
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
    if (gdr_doc_newer_schema(fd->doc, path))
        return -1;
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
    gdr_detect_opts_from_json(sj, &dopts);
    bool read_sj = sj != NULL;
    bool have_s = false, have_d = false, have_g = false;
    struct first_doc fd = {dir, NULL, 0};
    if (rc == 0 && gdr_plan_foreach(&p, 0, first_doc, &fd) < 0)
        rc = -1;
    if (rc == 0 && (rc = load_cells(&p, dir, &s)) == 0)
        have_s = true;
    /* The findings suspects.json holds (or the analysis run here on an
     * older run's); the detector again only for each heatmap cell's mark. */
    char rails_dir[4200];
    snprintf(rails_dir, sizeof(rails_dir), "%s/rails", dir);
    if (rc == 0 && !(sj = gdr_findings_ensure(sj, &p, &s, &dopts, m, rails_dir, 20)))
        rc = -1;
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
        suspects_section(b, sj, read_sj);
        gdr_report_cluster_soak(b, o->figs, sj);
        per_rail_section(b, sj);
        aggregate_section(b, o->figs, sj, &g, &s);
        heatmaps_section(b, o->figs, sj, &s, &d, &dopts);
        rail_panel(b, o->figs, sj, &s, &d, &dopts);
        nodes_section(b, dir, sj);
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
