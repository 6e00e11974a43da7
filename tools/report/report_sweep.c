/* report_sweep.c - the page of a sweep, a nightly or any directory of
 * result documents: what was measured on what, the doctor's verdict, the
 * runs, per test the GDR on/off curves (report_tests.c), a nightly's
 * history verdict. */
#include "config.h"

#include "plot.h"
#include "report.h"
#include "text.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small JSON readers for optional fields ---- */

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
        const char *x = gdr_jstr(a, keys[i]), *y = gdr_jstr(b, keys[i]);
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
            const char *reg = gdr_jstr(e, "registration");
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
        const char *name = gdr_jstr(e, "cuda_name"), *bus = gdr_jstr(e, "cuda_bus_id");
        const char *place = gdr_jstr(e, "placement"), *path = gdr_jstr(e, "pcie_path");
        bool gpu = place && !strcmp(place, "cuda");
        double speed = gdr_jnum(e, "speed_bps"), mtu = gdr_jnum(e, "active_mtu");
        gdr_buf_escf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s", rows[j].role,
                     gdr_jstr_or(e, "host", "?"), gdr_jstr_or(e, "device", "?"),
                     gdr_jstr_or(e, "link_layer", ""));
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
            if (gdr_jstr(e, vkeys[k]) && gdr_jstr(e, vkeys[k])[0]) {
                gdr_buf_escf(b, "%s%s %s", any ? "; " : "", vkeys[k], gdr_jstr(e, vkeys[k]));
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
        double fail = gdr_jnum(sum, "fail"), warn = gdr_jnum(sum, "warn");
        gdr_buf_escf(b, "<p>%s: ", r->doctor_names[i]);
        const char *env = gdr_jstr(d, "environment_missing");
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
        gdr_buf_printf(b, " %.0f PASS, %.0f WARN, %.0f FAIL, %.0f UNKNOWN", gdr_jnum(sum, "pass"),
                       warn, fail, gdr_jnum(sum, "unknown"));
        if (v)
            gdr_buf_escf(b, "; kernel %s, rdma-core %s, NVIDIA driver %s, CUDA driver %s",
                         gdr_jstr_or(v, "kernel", "?"),
                         gdr_jstr(v, "rdma_core") && gdr_jstr(v, "rdma_core")[0]
                             ? gdr_jstr(v, "rdma_core")
                             : "?",
                         gdr_jstr(v, "nvidia_driver") && gdr_jstr(v, "nvidia_driver")[0]
                             ? gdr_jstr(v, "nvidia_driver")
                             : "none",
                         gdr_jstr(v, "cuda_driver") && gdr_jstr(v, "cuda_driver")[0]
                             ? gdr_jstr(v, "cuda_driver")
                             : "none");
        gdr_buf_puts(b, "</p>\n");
        size_t shown = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
            const char *st = gdr_jstr(c, "status");
            if (!st || (strcmp(st, "FAIL") && strcmp(st, "WARN")))
                continue;
            if (shown++ == 0)
                gdr_buf_puts(b, "<div class=\"tbl\"><table><thead><tr><th>check</th><th>subject"
                                "</th><th>status</th><th>finding</th><th>fix</th></tr></thead>"
                                "<tbody>\n");
            gdr_buf_escf(b, "<tr><td>%s</td><td>%s</td><td>", gdr_jstr_or(c, "check", ""),
                         gdr_jstr_or(c, "subject", ""));
            gdr_badge(b, !strcmp(st, "FAIL") ? "fail" : "warn", st);
            gdr_buf_escf(b, "</td><td>%s</td><td>%s</td></tr>\n", gdr_jstr_or(c, "message", ""),
                         gdr_jstr_or(c, "fix", ""));
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
    if (m && gdr_jstr(m, "run_id"))
        gdr_buf_escf(b, "gdrbench %s %s", kind, gdr_jstr(m, "run_id"));
    else
        gdr_buf_escf(b, "gdrbench results: %s", dir);
    gdr_buf_puts(b, "</h1>\n");
    gdr_lab_warnings(b, simulated, *soft_roce);
    gdr_buf_puts(b, "</header>\n");
    gdr_section_begin(b, "measured", "What was measured, when, on what");
    gdr_buf_puts(b, "<dl class=\"facts\">");
    gdr_buf_escf(b, "<dt>when</dt><dd>%s .. %s (UTC, first and last run)</dd>",
                 gdr_jstr_or(m, "date", first), gdr_jstr_or(m, "end_date", last));
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
        gdr_buf_escf(b, "<dt>mode</dt><dd>%s</dd>", gdr_jstr_or(m, "mode", "?"));
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(m, "hosts");
        if (h)
            gdr_buf_escf(b, "<dt>hosts</dt><dd>client %s, server %s (%s)</dd>",
                         gdr_jstr_or(h, "client", "?"), gdr_jstr_or(h, "server", "?"),
                         gdr_jstr_or(h, "server_addr", "?"));
        gdr_buf_puts(b, "<dt>command</dt><dd><code>");
        gdr_argv_text(b, cJSON_GetObjectItemCaseSensitive(m, "command_line"));
        gdr_buf_puts(b, "</code></dd>");
        gdr_buf_printf(b, "<dt>runs</dt><dd>%.0f planned: %.0f ok, %.0f failed</dd>",
                       gdr_jnum(m, "planned"), gdr_jnum(m, "ok"), gdr_jnum(m, "failed"));
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
            const char *st = gdr_jstr(run, "status");
            bool failed = !st || strcmp(st, "ok");
            gdr_buf_printf(b, "<tr%s><td class=\"n\">%.0f</td>", failed ? " class=\"flag\"" : "",
                           gdr_jnum(run, "index"));
            gdr_buf_escf(b, "<td>%s</td><td>%s</td><td>%s</td><td>", gdr_jstr_or(run, "tool", "?"),
                         gdr_jstr_or(run, "placement", "?"), gdr_jstr_or(run, "gdr", "?"));
            gdr_badge(b, failed ? "failed" : "ok", st ? st : "?");
            gdr_buf_printf(
                b, "</td><td class=\"n\">%.0f</td><td>%s</td><td>", gdr_jnum(run, "duration_s"),
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "simulated")) ? "yes" : "no");
            gdr_buf_esc(b, gdr_jstr_or(run, "reason", ""));
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
        gdr_argv_text(b, cJSON_GetObjectItemCaseSensitive(r->docs[i].root, "command_line"));
        gdr_buf_puts(b, "</code></li>\n");
    }
    gdr_buf_puts(b, "</ul></details>\n");
    gdr_section_end(b);
}

/* ---- a nightly's history check (gdr-history check --json) ---- */

static void history_section(struct gdr_buf *b, const cJSON *h)
{
    gdr_section_begin(b, "history", "History: this night against the earlier nights");
    const char *verdict = gdr_jstr(h, "verdict");
    gdr_buf_escf(b, "<p>Testbed <b>%s</b>, run %s: ", gdr_jstr_or(h, "testbed", "?"),
                 gdr_jstr_or(h, "run_id", "?"));
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
        const char *v = gdr_jstr(s, "verdict");
        if (!v || !strcmp(v, "ok") || !strcmp(v, "new series"))
            continue;
        if (shown++ == 0)
            gdr_buf_puts(b, "<div class=\"tbl\"><table><thead><tr><th>test</th><th>placement</th>"
                            "<th>size</th><th>verdict</th><th class=\"n\">change</th></tr></thead>"
                            "<tbody>\n");
        double val = gdr_jnum(s, "value"), base = gdr_jnum(s, "baseline");
        char sz[32];
        gdr_fmt_size(gdr_jcount(s, "size"), sz, sizeof(sz));
        gdr_buf_escf(b, "<tr><td>%s</td><td>%s-%s %s/%s</td><td class=\"n\">%s</td><td>",
                     gdr_jstr_or(s, "test", ""), gdr_jstr_or(s, "client_placement", ""),
                     gdr_jstr_or(s, "server_placement", ""),
                     gdr_jstr_or(s, "client_registration", ""),
                     gdr_jstr_or(s, "server_registration", ""), sz);
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
    const char *run_id = r.manifest ? gdr_jstr(r.manifest, "run_id") : NULL;
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
    /* A soak's section each (the client's end, or every end when no
     * client's is here); a directory of soaks alone has no curves: a
     * soak's one row is its last interval. */
    bool clients = false, sweeps = false;
    for (size_t i = 0; i < r.ndocs; i++) {
        clients |= r.docs[i].d.soak.present && !strcmp(r.docs[i].d.role, "client");
        sweeps |= !r.docs[i].d.soak.present;
    }
    int rc = 0;
    for (size_t i = 0, n = 0; rc == 0 && i < r.ndocs; i++)
        if (r.docs[i].d.soak.present && (!clients || !strcmp(r.docs[i].d.role, "client")))
            rc = gdr_report_soak_section(b, &r, &r.docs[i], dir, n++);
    bool curves = r.has_set && sweeps;
    /* gdr-plot's figures of the set, drawn with the page's others. */
    if (rc == 0 && curves)
        rc = gdr_plot_svg(&r.set, o->figs->dir, o->figs->gp, title);
    /* One section per test, in the order of the series; then the tests
     * whose every run failed (from the manifest, or failed documents). */
    for (size_t i = 0; rc == 0 && curves && i < r.set.nseries; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(r.set.series[j].test, r.set.series[i].test);
        if (!seen)
            rc = gdr_report_test_section(b, &r, r.set.series[i].test);
    }
    char failed[32][64];
    size_t nf = 0;
    const cJSON *run, *runs = cJSON_GetObjectItemCaseSensitive(r.manifest, "runs");
    cJSON_ArrayForEach(run, runs) {
        const char *tool = gdr_jstr(run, "tool"), *st = gdr_jstr(run, "status");
        if (tool && st && strcmp(st, "ok") && nf < 32)
            snprintf(failed[nf++], sizeof(failed[0]), "%s", tool);
    }
    for (size_t i = 0; !r.manifest && i < r.ndocs && nf < 32; i++)
        if (strcmp(r.docs[i].d.status, "complete"))
            snprintf(failed[nf++], sizeof(failed[0]), "%s", r.docs[i].d.test);
    for (size_t i = 0; rc == 0 && i < nf; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(failed[j], failed[i]);
        for (size_t j = 0; curves && j < r.set.nseries; j++)
            seen |= !strcmp(r.set.series[j].test, failed[i]);
        if (!seen)
            rc = gdr_report_test_section(b, &r, failed[i]);
    }
    if (rc == 0 && r.history)
        history_section(b, r.history);
    gdr_html_end(b, o->generator);
    gdr_rdir_free(&r);
    return rc;
}
