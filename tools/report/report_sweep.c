/* report_sweep.c - the page of a sweep, a nightly or any directory of
 * result documents: what was measured on what, the doctor's verdict, the
 * runs, and per test the GDR on/off curves with a table of every point. */
#include "config.h"

#include "report.h"
#include "svg.h"
#include "text.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small JSON readers for optional fields ---- */

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A JSON array of strings joined by spaces into the buffer, escaped. */
static void argv_text(struct gdr_buf *b, const cJSON *arr)
{
    const cJSON *it;
    bool first = true;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it))
            continue;
        if (!first)
            gdr_buf_puts(b, " ");
        gdr_buf_esc(b, it->valuestring);
        first = false;
    }
}

/* ---- header ---- */

struct end_row {
    const cJSON *e;
    char role[8];
    char regs[64];
};

static bool same_end(const cJSON *a, const cJSON *b)
{
    static const char *const keys[] = {"host",      "device",    "cuda_bus_id",
                                       "cuda_name", "pcie_path", "placement"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *x = jstr(a, keys[i]), *y = jstr(b, keys[i]);
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
            return false;
    }
    return true;
}

static void ends_table(struct gdr_buf *b, const struct gdr_rdir *r)
{
    struct end_row rows[48];
    size_t n = 0;
    for (size_t i = 0; i < r->ndocs; i++) {
        const cJSON *ends = cJSON_GetObjectItemCaseSensitive(r->docs[i].root, "ends");
        for (int k = 0; k < 2; k++) {
            const char *role = k ? "server" : "client";
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(ends, role);
            if (!e)
                continue;
            const char *reg = jstr(e, "registration");
            reg = reg ? reg : "host";
            size_t j = 0;
            while (j < n && !(same_end(rows[j].e, e) && !strcmp(rows[j].role, role)))
                j++;
            if (j == n) {
                if (n == sizeof(rows) / sizeof(rows[0]))
                    continue;
                rows[n].e = e;
                snprintf(rows[n].role, sizeof(rows[n].role), "%s", role);
                rows[n].regs[0] = '\0';
                n++;
            }
            if (!strstr(rows[j].regs, reg) &&
                strlen(rows[j].regs) + strlen(reg) + 3 < sizeof(rows[j].regs))
                snprintf(rows[j].regs + strlen(rows[j].regs),
                         sizeof(rows[j].regs) - strlen(rows[j].regs), "%s%s",
                         rows[j].regs[0] ? ", " : "", reg);
        }
    }
    gdr_buf_puts(b, "<h3>The ends</h3>\n<div class=\"tbl\"><table><thead><tr><th>end</th>"
                    "<th>host</th><th>RDMA device</th><th>link</th><th>buffer</th>"
                    "<th>GPU\xe2\x86\x94NIC path</th><th>registration</th><th>versions</th>"
                    "</tr></thead><tbody>\n");
    for (size_t j = 0; j < n; j++) {
        const cJSON *e = rows[j].e;
        const char *name = jstr(e, "cuda_name"), *bus = jstr(e, "cuda_bus_id");
        const char *place = jstr(e, "placement"), *path = jstr(e, "pcie_path");
        bool gpu = place && !strcmp(place, "cuda");
        double speed = jnum(e, "speed_bps"), mtu = jnum(e, "active_mtu");
        gdr_buf_escf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s", rows[j].role,
                     jstr(e, "host") ? jstr(e, "host") : "?",
                     jstr(e, "device") ? jstr(e, "device") : "?",
                     jstr(e, "link_layer") ? jstr(e, "link_layer") : "");
        if (speed > 0)
            gdr_buf_printf(b, ", %g Gb/s", speed / 1e9);
        if (mtu > 0)
            gdr_buf_printf(b, ", MTU %.0f", mtu);
        gdr_buf_puts(b, "</td><td>");
        if (gpu)
            gdr_buf_escf(b, "GPU %s (%s)", name ? name : "?", bus ? bus : "?");
        else
            gdr_buf_puts(b, "host memory");
        gdr_buf_escf(b, "</td><td>%s</td><td>%s</td><td>", gpu && path && path[0] ? path : "-",
                     rows[j].regs);
        /* Versions a result document may carry (kernel, driver, firmware). */
        static const char *const vkeys[] = {"kernel", "nvidia_driver", "fw_ver", "firmware",
                                            "rdma_core"};
        bool any = false;
        for (size_t k = 0; k < sizeof(vkeys) / sizeof(vkeys[0]); k++)
            if (jstr(e, vkeys[k]) && jstr(e, vkeys[k])[0]) {
                gdr_buf_escf(b, "%s%s %s", any ? "; " : "", vkeys[k], jstr(e, vkeys[k]));
                any = true;
            }
        gdr_buf_puts(b, any ? "</td></tr>\n" : "-</td></tr>\n");
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
}

static void doctor_block(struct gdr_buf *b, const struct gdr_rdir *r, const char *dir)
{
    gdr_buf_puts(b, "<h3>gdr_doctor</h3>\n");
    if (r->ndoctor == 0) {
        gdr_buf_escf(b,
                     "<p>No doctor report: put <code>gdr_doctor --json</code> output in "
                     "<code>%s/doctor/</code> or give <code>--doctor FILE</code>.</p>\n",
                     dir);
        return;
    }
    for (size_t i = 0; i < r->ndoctor; i++) {
        const cJSON *d = r->doctor[i], *sum = cJSON_GetObjectItemCaseSensitive(d, "summary");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, "versions");
        double fail = jnum(sum, "fail"), warn = jnum(sum, "warn");
        gdr_buf_escf(b, "<p>%s: ", r->doctor_names[i]);
        const char *env = jstr(d, "environment_missing");
        gdr_badge(b,
                  fail > 0   ? "fail"
                  : env      ? "unknown"
                  : warn > 0 ? "warn"
                             : "pass",
                  fail > 0   ? "GDR conditions not met"
                  : env      ? "not checked: environment missing"
                  : warn > 0 ? "GDR possible, with warnings"
                             : "GDR conditions met");
        if (env)
            gdr_buf_escf(b, " (%s)", env);
        gdr_buf_printf(b, " %.0f PASS, %.0f WARN, %.0f FAIL, %.0f UNKNOWN", jnum(sum, "pass"), warn,
                       fail, jnum(sum, "unknown"));
        if (v)
            gdr_buf_escf(
                b, "; kernel %s, rdma-core %s, NVIDIA driver %s, CUDA driver %s",
                jstr(v, "kernel") ? jstr(v, "kernel") : "?",
                jstr(v, "rdma_core") && jstr(v, "rdma_core")[0] ? jstr(v, "rdma_core") : "?",
                jstr(v, "nvidia_driver") && jstr(v, "nvidia_driver")[0] ? jstr(v, "nvidia_driver")
                                                                        : "none",
                jstr(v, "cuda_driver") && jstr(v, "cuda_driver")[0] ? jstr(v, "cuda_driver")
                                                                    : "none");
        gdr_buf_puts(b, "</p>\n");
        size_t shown = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
            const char *st = jstr(c, "status");
            if (!st || (strcmp(st, "FAIL") && strcmp(st, "WARN")))
                continue;
            if (shown++ == 0)
                gdr_buf_puts(b, "<div class=\"tbl\"><table><thead><tr><th>check</th><th>subject"
                                "</th><th>status</th><th>finding</th><th>fix</th></tr></thead>"
                                "<tbody>\n");
            gdr_buf_escf(b, "<tr><td>%s</td><td>%s</td><td>",
                         jstr(c, "check") ? jstr(c, "check") : "",
                         jstr(c, "subject") ? jstr(c, "subject") : "");
            gdr_badge(b, !strcmp(st, "FAIL") ? "fail" : "warn", st);
            gdr_buf_escf(b, "</td><td>%s</td><td>%s</td></tr>\n",
                         jstr(c, "message") ? jstr(c, "message") : "",
                         jstr(c, "fix") ? jstr(c, "fix") : "");
        }
        if (shown)
            gdr_buf_puts(b, "</tbody></table></div>\n");
    }
}

static void header(struct gdr_buf *b, const struct gdr_rdir *r, const char *dir, const char *kind,
                   bool *soft_roce)
{
    const cJSON *m = r->manifest;
    char first[40] = "", last[40] = "";
    bool simulated = false;
    *soft_roce = r->ndocs > 0;
    for (size_t i = 0; i < r->ndocs; i++) {
        const struct gdr_doc *d = &r->docs[i].d;
        if (!first[0] || strcmp(d->start_time, first) < 0)
            snprintf(first, sizeof(first), "%s", d->start_time);
        if (strcmp(d->start_time, last) > 0)
            snprintf(last, sizeof(last), "%s", d->start_time);
        simulated |= d->simulated;
        *soft_roce &= (!d->has_client || !strncmp(d->client.device, "rxe", 3)) &&
                      (!d->has_server || !strncmp(d->server.device, "rxe", 3));
    }
    if (r->has_set)
        for (size_t i = 0; i < r->set.nseries; i++)
            simulated |= r->set.series[i].simulated;
    gdr_buf_puts(b, "<header>\n<h1>");
    if (m && jstr(m, "run_id"))
        gdr_buf_escf(b, "gdrbench %s %s", kind, jstr(m, "run_id"));
    else
        gdr_buf_escf(b, "gdrbench results: %s", dir);
    gdr_buf_puts(b, "</h1>\n");
    gdr_lab_warnings(b, simulated, *soft_roce);
    gdr_buf_puts(b, "</header>\n");
    gdr_section_begin(b, "measured", "What was measured, when, on what");
    gdr_buf_puts(b, "<dl class=\"facts\">");
    gdr_buf_escf(b, "<dt>when</dt><dd>%s .. %s (UTC, first and last run)</dd>",
                 m && jstr(m, "date") ? jstr(m, "date") : first,
                 m && jstr(m, "end_date") ? jstr(m, "end_date") : last);
    gdr_buf_puts(b, "<dt>gdrbench</dt><dd>");
    char seen[512] = "";
    for (size_t i = 0; i < r->ndocs; i++) {
        const char *v = r->docs[i].d.version;
        if (strstr(seen, v) || strlen(seen) + strlen(v) + 3 >= sizeof(seen))
            continue;
        snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s", seen[0] ? ", " : "", v);
    }
    gdr_buf_esc(b, seen);
    gdr_buf_puts(b, "</dd>");
    if (m) {
        gdr_buf_escf(b, "<dt>mode</dt><dd>%s</dd>", jstr(m, "mode") ? jstr(m, "mode") : "?");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(m, "hosts");
        if (h)
            gdr_buf_escf(b, "<dt>hosts</dt><dd>client %s, server %s (%s)</dd>",
                         jstr(h, "client") ? jstr(h, "client") : "?",
                         jstr(h, "server") ? jstr(h, "server") : "?",
                         jstr(h, "server_addr") ? jstr(h, "server_addr") : "?");
        gdr_buf_puts(b, "<dt>command</dt><dd><code>");
        argv_text(b, cJSON_GetObjectItemCaseSensitive(m, "command_line"));
        gdr_buf_puts(b, "</code></dd>");
        gdr_buf_printf(b, "<dt>runs</dt><dd>%.0f planned: %.0f ok, %.0f failed</dd>",
                       jnum(m, "planned"), jnum(m, "ok"), jnum(m, "failed"));
    } else {
        gdr_buf_printf(b, "<dt>documents</dt><dd>%zu</dd>", r->ndocs);
    }
    gdr_buf_puts(b, "</dl>\n");
    ends_table(b, r);
    doctor_block(b, r, dir);
    gdr_section_end(b);
}

/* ---- runs ---- */

static void runs_table(struct gdr_buf *b, const struct gdr_rdir *r)
{
    gdr_section_begin(b, "runs", "Runs");
    const cJSON *runs = r->manifest ? cJSON_GetObjectItemCaseSensitive(r->manifest, "runs") : NULL;
    gdr_buf_puts(b, "<div class=\"tbl\"><table><thead><tr><th>#</th><th>test</th><th>placement"
                    "</th><th>GDR</th><th>status</th><th class=\"n\">s</th><th>simulated</th>"
                    "<th>reason</th></tr></thead><tbody>\n");
    if (cJSON_IsArray(runs)) {
        const cJSON *run;
        cJSON_ArrayForEach(run, runs) {
            const char *st = jstr(run, "status");
            bool failed = !st || strcmp(st, "ok");
            gdr_buf_printf(b, "<tr%s><td class=\"n\">%.0f</td>", failed ? " class=\"flag\"" : "",
                           jnum(run, "index"));
            gdr_buf_escf(b, "<td>%s</td><td>%s</td><td>%s</td><td>",
                         jstr(run, "tool") ? jstr(run, "tool") : "?",
                         jstr(run, "placement") ? jstr(run, "placement") : "?",
                         jstr(run, "gdr") ? jstr(run, "gdr") : "?");
            gdr_badge(b, failed ? "failed" : "ok", st ? st : "?");
            gdr_buf_printf(
                b, "</td><td class=\"n\">%.0f</td><td>%s</td><td>", jnum(run, "duration_s"),
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "simulated")) ? "yes" : "no");
            gdr_buf_esc(b, jstr(run, "reason") ? jstr(run, "reason") : "");
            gdr_buf_puts(b, "</td></tr>\n");
        }
    } else {
        for (size_t i = 0; i < r->ndocs; i++) {
            const struct gdr_doc *d = &r->docs[i].d;
            if (strcmp(d->role, "client") && d->has_client)
                continue;
            bool failed = strcmp(d->status, "complete") != 0;
            gdr_buf_printf(b, "<tr%s><td class=\"n\">%zu</td>", failed ? " class=\"flag\"" : "",
                           i + 1);
            gdr_buf_escf(b, "<td>%s</td><td>%s</td><td>%s</td><td>", d->test,
                         gdr_pair_short(d->pair), d->gdr);
            gdr_badge(b, failed ? "failed" : "ok", d->status);
            gdr_buf_escf(b, "</td><td class=\"n\">-</td><td>%s</td><td>%s</td></tr>\n",
                         d->simulated ? "yes" : "no", d->error);
        }
    }
    gdr_buf_puts(b, "</tbody></table></div>\n");
    /* Each document's command line, folded. */
    gdr_buf_puts(b, "<details><summary>Command lines of the documents</summary><ul>\n");
    for (size_t i = 0; i < r->ndocs; i++) {
        const char *base = strrchr(r->docs[i].d.path, '/');
        gdr_buf_escf(b, "<li><b>%s</b>: <code>", base ? base + 1 : r->docs[i].d.path);
        argv_text(b, cJSON_GetObjectItemCaseSensitive(r->docs[i].root, "command_line"));
        gdr_buf_puts(b, "</code></li>\n");
    }
    gdr_buf_puts(b, "</ul></details>\n");
    gdr_section_end(b);
}

/* ---- per test ---- */

static const struct gdr_row *series_row(const struct gdr_series *s, uint64_t size)
{
    for (size_t i = 0; i < s->nsizes; i++)
        if (s->rows[i].size == size)
            return &s->rows[i];
    return NULL;
}

struct fig {
    size_t n; /* lines */
    struct gdr_line lines[32];
    struct gdr_pt *pts[32];
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

static struct gdr_line *fig_add(struct fig *f, const struct gdr_series *s, const char *label,
                                size_t npts)
{
    if (f->n == 32)
        return NULL;
    size_t k = f->n;
    f->pts[k] = calloc(npts + 1, sizeof(struct gdr_pt));
    if (!f->pts[k])
        return NULL;
    f->n++;
    struct gdr_line *l = &f->lines[k];
    memset(l, 0, sizeof(*l));
    snprintf(f->labels[k], sizeof(f->labels[k]), "%s", label);
    l->label = f->labels[k];
    l->pts = f->pts[k];
    f->series[k] = s;
    int mk = GDR_MK_CIRCLE;
    gdr_series_style(s, &l->color, &mk, &l->dashed);
    l->marker = (enum gdr_marker)mk;
    return l;
}

static void figure(struct gdr_buf *b, const struct gdr_chart *c, const char *caption)
{
    char note[256];
    gdr_chart_axis_note(c, note, sizeof(note));
    gdr_buf_puts(b, "<figure><div class=\"fig\">");
    gdr_chart_svg(b, c);
    gdr_buf_puts(b, "</div>");
    gdr_chart_legend(b, c);
    gdr_buf_puts(b, "<figcaption>");
    gdr_buf_esc(b, caption);
    gdr_buf_puts(b, " ");
    gdr_buf_esc(b, note);
    gdr_buf_puts(b, "</figcaption></figure>\n");
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
            const struct gdr_pt *p = NULL;
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
        const char *st = jstr(run, "status"), *tool = jstr(run, "tool");
        if (!st || !strcmp(st, "ok") || !tool || strncmp(test, tool, strlen(tool)))
            continue;
        if (n++ == 0)
            gdr_buf_puts(b, "<p class=\"warn\">Failed, not drawn:</p><ul>");
        gdr_buf_escf(b, "<li>%s %s GDR %s: %s</li>", tool,
                     jstr(run, "placement") ? jstr(run, "placement") : "?",
                     jstr(run, "gdr") ? jstr(run, "gdr") : "?",
                     jstr(run, "reason") ? jstr(run, "reason") : "failed");
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

static int test_section(struct gdr_buf *b, const struct gdr_rdir *r, const char *test)
{
    const struct gdr_series *ss[32];
    size_t ns = test_series(r, test, ss, 32);
    if (ns == 0)
        return 0;
    bool lat = ss[0]->latency;
    char id[96], title[160];
    snprintf(id, sizeof(id), "t-%s", test);
    snprintf(title, sizeof(title), "%s: %s, GDR on and off", test, lat ? "latency" : "bandwidth");
    gdr_section_begin(b, id, title);
    failed_runs_note(b, r, test);
    double max = 0;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < ss[k]->nsizes; i++) {
            const struct gdr_row *row = &ss[k]->rows[i];
            double v = lat ? row->lat[LAT_P99] : row->bw_avg;
            max = fmax(max, v);
        }
    double scale;
    const char *unit;
    if (lat)
        gdr_lat_unit(max, &scale, &unit);
    else
        gdr_bw_unit(max, &scale, &unit);

    /* 1. The metric, with each row's limit where the documents have one. */
    struct fig f = {0}, lim = {0};
    bool any_pct = false;
    for (size_t k = 0; k < ns; k++) {
        char label[160];
        gdr_series_label(ss[k], label, sizeof(label));
        struct gdr_line *l = fig_add(&f, ss[k], label, ss[k]->nsizes);
        if (!l) {
            fig_free(&f);
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        }
        struct gdr_pt *pts = f.pts[f.n - 1], *lp = NULL;
        size_t nl = 0;
        for (size_t i = 0; i < ss[k]->nsizes; i++) {
            const struct gdr_row *row = &ss[k]->rows[i];
            struct gdr_row_extra x;
            gdr_row_extra(r, ss[k], row->size, &x);
            any_pct |= !isnan(x.pct);
            struct gdr_pt *p = &pts[l->n++];
            p->x = (double)row->size;
            p->y = (lat ? row->lat[LAT_MEDIAN] : row->bw_avg) * scale;
            p->lo = lat ? row->lat[LAT_MEDIAN] * scale : NAN;
            p->hi = lat ? row->lat[LAT_P99] * scale : NAN;
            p->flags = x.clean ? 0 : GDR_PT_UNCLEAN;
            if (!lat && !isnan(x.limit)) {
                if (!lp) {
                    char ll[200];
                    snprintf(ll, sizeof(ll), "%s: path limit", gdr_pair_short(ss[k]->pair));
                    struct gdr_line *m = fig_add(&lim, ss[k], ll, ss[k]->nsizes);
                    if (m) {
                        m->dashed = false;
                        m->dotted = true;
                        m->marker = GDR_MK_NONE;
                        lp = lim.pts[lim.n - 1];
                    }
                }
                if (lp) {
                    lp[nl].x = (double)row->size;
                    lp[nl].y = x.limit * scale;
                    lp[nl].lo = lp[nl].hi = NAN;
                    lim.lines[lim.n - 1].n = ++nl;
                }
            }
        }
    }
    /* Limits drawn as extra dotted lines of the same figure. */
    struct gdr_line all[64];
    size_t na = 0;
    for (size_t i = 0; i < f.n; i++)
        all[na++] = f.lines[i];
    for (size_t i = 0; i < lim.n && na < 64; i++)
        all[na++] = lim.lines[i];
    char ylabel[64], label[200];
    snprintf(ylabel, sizeof(ylabel), "%s [%s]", lat ? "median latency" : "bandwidth", unit);
    snprintf(label, sizeof(label), "%s %s against message size", test, value_title(ss[0]));
    struct gdr_chart c = {.label = label,
                          .xlabel = "message size",
                          .ylabel = ylabel,
                          .x = GDR_X_LOG2_BYTES,
                          .y = lat ? GDR_Y_LOG : GDR_Y_ZERO,
                          .hline = NAN,
                          .nlines = na,
                          .lines = all};
    gdr_buf_escf(b, "<h3>%s</h3>\n", lat ? "Median latency (bar: up to p99)" : "Bandwidth");
    figure(b, &c,
           lat ? "Median per size, bar up to p99. Solid circles: GDR on or host memory; dashed "
                 "squares: GDR off (staged through host memory)."
               : "Average bandwidth per size. Solid circles: GDR on or host memory; dashed "
                 "squares: GDR off (staged through host memory); dotted: the path's limit.");
    fig_table(b, &f, lat ? "latency" : "bandwidth", test, scale, unit, r, true);
    if (lim.n) {
        struct fig lt = lim;
        fig_table(b, &lt, "limit", test, scale, unit, r, false);
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
        struct gdr_line *l = fig_add(&sp, ss[k], l2, ss[k]->nsizes);
        if (!l)
            break;
        l->dashed = false;
        l->marker = GDR_MK_DIAMOND;
        for (size_t i = 0; i < ss[k]->nsizes; i++) {
            const struct gdr_row *a = &ss[k]->rows[i], *o = series_row(off, a->size);
            if (!o)
                continue;
            double on_v = lat ? a->lat[LAT_MEDIAN] : a->bw_avg;
            double off_v = lat ? o->lat[LAT_MEDIAN] : o->bw_avg;
            double ratio = lat ? (on_v > 0 ? off_v / on_v : NAN) : (off_v > 0 ? on_v / off_v : NAN);
            sp.pts[sp.n - 1][l->n++] =
                (struct gdr_pt){(double)a->size, ratio, NAN, NAN, 0, NULL, NULL};
        }
    }
    if (sp.n) {
        struct gdr_chart cs = {.label = "GDR speed-up",
                               .xlabel = "message size",
                               .ylabel = "speed-up (GDR on / off)",
                               .x = GDR_X_LOG2_BYTES,
                               .y = GDR_Y_ZERO,
                               .hline = 1,
                               .nlines = sp.n,
                               .lines = sp.lines};
        gdr_buf_puts(b, "<h3>GDR speed-up</h3>\n");
        figure(b, &cs,
               lat ? "Latency with GDR off over GDR on: above 1 (dotted) GDR helps."
                   : "Bandwidth with GDR on over GDR off: above 1 (dotted) GDR helps.");
        fig_table(b, &sp, "speedup", test, 1, "x", r, false);
    }
    fig_free(&sp);

    /* 3. % of the path's limit, once the documents carry it. */
    if (any_pct) {
        struct fig pc = {0};
        for (size_t k = 0; k < ns; k++) {
            char l3[160];
            gdr_series_label(ss[k], l3, sizeof(l3));
            struct gdr_line *l = fig_add(&pc, ss[k], l3, ss[k]->nsizes);
            if (!l)
                break;
            for (size_t i = 0; i < ss[k]->nsizes; i++) {
                struct gdr_row_extra x;
                gdr_row_extra(r, ss[k], ss[k]->rows[i].size, &x);
                pc.pts[pc.n - 1][l->n++] =
                    (struct gdr_pt){(double)ss[k]->rows[i].size,  x.pct, NAN, NAN,
                                    x.clean ? 0 : GDR_PT_UNCLEAN, NULL,  NULL};
            }
        }
        struct gdr_chart cp = {.label = "percent of the path's limit",
                               .xlabel = "message size",
                               .ylabel = "% of the path's limit",
                               .x = GDR_X_LOG2_BYTES,
                               .y = GDR_Y_ZERO,
                               .hline = 100,
                               .nlines = pc.n,
                               .lines = pc.lines};
        gdr_buf_puts(b, "<h3>Percent of the path's limit</h3>\n");
        figure(b, &cp, "pct_of_limit of each row (100 %: dotted).");
        fig_table(b, &pc, "pct_of_limit", test, 1, "%", r, false);
        fig_free(&pc);
    }

    /* 4. CPU of each end. */
    for (int side = 0; side < 2; side++) {
        struct fig cpu = {0};
        for (size_t k = 0; k < ns; k++) {
            char l4[160];
            gdr_series_label(ss[k], l4, sizeof(l4));
            struct gdr_line *l = fig_add(&cpu, ss[k], l4, ss[k]->nsizes);
            if (!l)
                break;
            for (size_t i = 0; i < ss[k]->nsizes; i++) {
                const struct gdr_row *row = &ss[k]->rows[i];
                cpu.pts[cpu.n - 1][l->n++] =
                    (struct gdr_pt){(double)row->size,
                                    (side ? row->cpu_server : row->cpu_client) * 100,
                                    NAN,
                                    NAN,
                                    0,
                                    NULL,
                                    NULL};
            }
        }
        const char *who = side ? "server" : "client";
        char l5[64], cl[96];
        snprintf(l5, sizeof(l5), "CPU of the %s", who);
        snprintf(cl, sizeof(cl), "%s CPU [%% of one core]", who);
        struct gdr_chart cc = {.label = l5,
                               .xlabel = "message size",
                               .ylabel = cl,
                               .x = GDR_X_LOG2_BYTES,
                               .y = GDR_Y_ZERO,
                               .hline = NAN,
                               .nlines = cpu.n,
                               .lines = cpu.lines};
        gdr_buf_escf(b, "<h3>CPU of the %s</h3>\n", who);
        figure(b, &cc, "User + system time over the timed loop, % of one core.");
        fig_table(b, &cpu, side ? "cpu_server" : "cpu_client", test, 1, "%", r, false);
        fig_free(&cpu);
    }
    fig_free(&lim);
    fig_free(&f);
    gdr_section_end(b);
    return 0;
}

/* ---- a nightly's history check (gdr-history check --json) ---- */

static void history_section(struct gdr_buf *b, const cJSON *h)
{
    gdr_section_begin(b, "history", "History: this night against the earlier nights");
    const char *verdict = jstr(h, "verdict");
    gdr_buf_escf(b, "<p>Testbed <b>%s</b>, run %s: ", jstr(h, "testbed") ? jstr(h, "testbed") : "?",
                 jstr(h, "run_id") ? jstr(h, "run_id") : "?");
    gdr_badge(b, verdict && !strcmp(verdict, "pass") ? "pass" : "fail", verdict ? verdict : "?");
    gdr_buf_puts(b, "</p>\n<p>");
    const cJSON *c;
    bool first = true;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(h, "counts")) {
        if (cJSON_IsNumber(c) && c->string) {
            gdr_buf_escf(b, "%s%s: %.0f", first ? "" : ", ", c->string, c->valuedouble);
            first = false;
        }
    }
    gdr_buf_puts(b, "</p>\n");
    size_t shown = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(h, "series")) {
        const char *v = jstr(s, "verdict");
        if (!v || !strcmp(v, "ok") || !strcmp(v, "new series"))
            continue;
        if (shown++ == 0)
            gdr_buf_puts(b, "<div class=\"tbl\"><table><thead><tr><th>test</th><th>placement</th>"
                            "<th>size</th><th>verdict</th><th class=\"n\">change</th></tr></thead>"
                            "<tbody>\n");
        double val = jnum(s, "value"), base = jnum(s, "baseline");
        gdr_buf_escf(b, "<tr><td>%s</td><td>%s-%s %s/%s</td><td class=\"n\">%.0f</td><td>",
                     jstr(s, "test") ? jstr(s, "test") : "",
                     jstr(s, "client_placement") ? jstr(s, "client_placement") : "",
                     jstr(s, "server_placement") ? jstr(s, "server_placement") : "",
                     jstr(s, "client_registration") ? jstr(s, "client_registration") : "",
                     jstr(s, "server_registration") ? jstr(s, "server_registration") : "",
                     jnum(s, "size"));
        gdr_badge(b, !strcmp(v, "missing series") ? "missing" : v, v);
        if (base > 0 && !isnan(val))
            gdr_buf_printf(b, "</td><td class=\"n\">%+.1f %%</td></tr>\n",
                           (val - base) / base * 100);
        else
            gdr_buf_puts(b, "</td><td class=\"n\">-</td></tr>\n");
    }
    if (shown)
        gdr_buf_puts(b, "</tbody></table></div>\n");
    else
        gdr_buf_puts(b, "<p>Every series ok or new.</p>\n");
    gdr_section_end(b);
}

int gdr_report_sweep(struct gdr_buf *b, const char *dir, const struct gdr_report_opts *o)
{
    struct gdr_rdir r;
    if (gdr_rdir_load(dir, o, 1, &r))
        return -1;
    const char *run_id = r.manifest ? jstr(r.manifest, "run_id") : NULL;
    const char *kind = run_id && !strncmp(run_id, "nightly-", 8) ? "nightly" : "sweep";
    char title[512];
    if (o->title)
        snprintf(title, sizeof(title), "%s", o->title);
    else if (run_id)
        snprintf(title, sizeof(title), "gdrbench %s %s", kind, run_id);
    else
        snprintf(title, sizeof(title), "gdrbench results %s", dir);
    gdr_html_begin(b, title);
    bool soft_roce;
    header(b, &r, dir, kind, &soft_roce);
    runs_table(b, &r);
    int rc = 0;
    /* One section per test, in the order of the series. */
    for (size_t i = 0; rc == 0 && r.has_set && i < r.set.nseries; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(r.set.series[j].test, r.set.series[i].test);
        if (!seen)
            rc = test_section(b, &r, r.set.series[i].test);
    }
    if (rc == 0 && r.history)
        history_section(b, r.history);
    gdr_html_end(b, o->generator);
    gdr_rdir_free(&r);
    return rc;
}
