/* history_publish.c - the static dashboard (history_publish.h). */
#include "config.h"

#include "history_publish.h"
#include "history_check.h"
#include "atomic_file.h"
#include "error.h"
#include "figure.h"
#include "json.h"

#include "html.h"
#include "sha256.h"
#include "history_trend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STATE_FILE "publish-state.json"
#define STATE_VERSION "gdrbench.dashboard-state/1"
#define TABLE_NIGHTS 30

/* One line of the index, from a fresh analysis or from the state file. */
struct pub_row {
    char page[600], hash[65];
    char testbed[256], test[64], pair[48], reg[40], metric[16], verdict[32], last[40];
    char unit[8];
    unsigned long long size;
    double value, baseline, change; /* shown units; change in % as measured */
};

static int verdict_rank(const char *v)
{
    static const char *const order[] = {"regression",  "missing series", "suspect", "noise",
                                        "improvement", "new series",     "ok",      "not recent"};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (!strcmp(v, order[i]))
            return (int)i;
    return 99;
}

static const char *verdict_class(const char *v)
{
    return !strcmp(v, "missing series") ? "missing"
           : !strcmp(v, "new series")   ? "new"
           : !strcmp(v, "not recent")   ? "unknown"
                                        : v;
}

/* ---- names ---- */

static void slug(const char *s, char *out, size_t len, size_t max)
{
    size_t n = 0;
    for (; *s && n + 1 < len && n < max; s++) {
        char c = *s;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.' || c == '_';
        out[n++] = ok ? c : '_';
    }
    out[n] = '\0';
}

static void testbed_dir(const char *name, char *out, size_t len)
{
    unsigned char d[32];
    char hex[65], s[64];
    gdr_sha256(name, strlen(name), d);
    gdr_hex(d, 4, hex);
    slug(name, s, sizeof(s), 56);
    snprintf(out, len, "%s-%s", s, hex);
}

static void series_file(const struct hdb_key *k, char *out, size_t len)
{
    char raw[300];
    snprintf(raw, sizeof(raw), "%s-%s-%s-%s-%s%s-%llu-%s", k->test, k->cplace, k->splace, k->creg,
             k->sreg, k->bidir ? "-bidir" : "", (unsigned long long)k->size, k->metric);
    slug(raw, out, len, 200);
    snprintf(out + strlen(out), len - strlen(out), ".html");
}

/* The manifest's name of the run a series' points come from
 * ("write_bw.H-D.on"), to mark its failed nights. */
static void run_name(const struct hdb_key *k, char *out, size_t len)
{
    bool cc = !strcmp(k->cplace, "cuda"), sc = !strcmp(k->splace, "cuda");
    bool on = (cc && (!strcmp(k->creg, "dmabuf") || !strcmp(k->creg, "peermem"))) ||
              (sc && (!strcmp(k->sreg, "dmabuf") || !strcmp(k->sreg, "peermem")));
    char test[64];
    snprintf(test, sizeof(test), "%s", k->test);
    char *bidi = strstr(test, "-bidir");
    if (bidi)
        *bidi = '\0';
    snprintf(out, len, "%s.%c-%c.%s", test, cc ? 'D' : 'H', sc ? 'D' : 'H',
             on           ? "on"
             : (cc || sc) ? "off"
                          : "na");
}

/* Percent-encode a path for an href (RFC 3986 unreserved and '/'). */
static void url_path(const char *p, char *out, size_t len)
{
    size_t n = 0;
    for (; *p && n + 4 < len; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, len - n, "%%%02X", c);
    }
    out[n] = '\0';
}

/* to (absolute) relative to the directory from (absolute, no trailing slash). */
static void rel_path(const char *from, const char *to, char *out, size_t len)
{
    size_t common = 0, fl = strlen(from);
    for (size_t i = 0; from[i] && from[i] == to[i]; i++)
        if (from[i] == '/')
            common = i + 1;
    if (!strncmp(from, to, fl) && to[fl] == '/')
        common = fl + 1;
    size_t up = 0;
    for (const char *p = from + (common <= fl ? common : fl); *p;) {
        up++;
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        p = slash + 1;
    }
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < up && n + 4 < len; i++)
        n += (size_t)snprintf(out + n, len - n, "../");
    snprintf(out + n, len - n, "%s", to + common);
}

static void point_href(const struct hist_publish_opts *o, const struct hdb_run_row *run,
                       const char *pagedir, char *out, size_t len)
{
    char enc[1024];
    if (o->runs_url) {
        const char *ph = strstr(o->runs_url, "{run}");
        url_path(run->run_id, enc, sizeof(enc));
        if (ph)
            snprintf(out, len, "%.*s%s%s", (int)(ph - o->runs_url), o->runs_url, enc, ph + 5);
        else
            snprintf(out, len, "%s%s%s/report.html", o->runs_url,
                     o->runs_url[0] && o->runs_url[strlen(o->runs_url) - 1] == '/' ? "" : "/", enc);
        return;
    }
    char abs[4096], rel[4096];
    if (run->source[0] == '/') {
        snprintf(abs, sizeof(abs), "%s/report.html", run->source);
    } else {
        char cwd[1024];
        if (!getcwd(cwd, sizeof(cwd)))
            snprintf(cwd, sizeof(cwd), "/");
        snprintf(abs, sizeof(abs), "%s/%s/report.html", cwd, run->source);
    }
    rel_path(pagedir, abs, rel, sizeof(rel));
    url_path(rel, out, len);
}

/* ---- the content hash of a series page ---- */

static void hash_str(struct gdr_sha256 *c, const char *s)
{
    gdr_sha256_update(c, s, strlen(s) + 1);
}

static void hash_num(struct gdr_sha256 *c, double v)
{
    char buf[40];
    snprintf(buf, sizeof(buf), "%.17g", v);
    hash_str(c, buf);
}

static void series_hash(const struct hdb_testbed *t, const struct hdb_series *s,
                        const struct hist_publish_opts *o, const char *rname, char out[65])
{
    struct gdr_sha256 c;
    gdr_sha256_init(&c);
    hash_str(&c, PACKAGE_VERSION);
    hash_str(&c, o->runs_url ? o->runs_url : "");
    const struct hist_opts *so = &o->stats;
    hash_num(&c, (double)so->window);
    hash_num(&c, (double)so->noise_window);
    hash_num(&c, (double)so->min_points);
    hash_num(&c, (double)so->min_seg);
    hash_num(&c, so->z_min);
    hash_num(&c, so->rel_min);
    hash_str(&c, t->name);
    const struct hdb_key *k = &s->key;
    hash_str(&c, hist_unit(t, k).name); /* t's largest point may change it */
    hash_str(&c, k->test);
    hash_str(&c, k->cplace);
    hash_str(&c, k->creg);
    hash_str(&c, k->splace);
    hash_str(&c, k->sreg);
    hash_str(&c, k->metric);
    hash_num(&c, k->bidir);
    hash_num(&c, (double)k->size);
    for (size_t i = 0; i < s->npoints; i++) {
        const struct hdb_point *p = &s->points[i];
        const struct hdb_run_row *r = &t->runs[p->run];
        hash_str(&c, r->run_id);
        hash_str(&c, r->date);
        hash_str(&c, r->version);
        hash_str(&c, r->source);
        hash_num(&c, p->value);
        hash_num(&c, p->spread);
        hash_num(&c, p->simulated * 2 + p->soft_roce);
        hash_num(&c, p->clean);
        hash_num(&c, p->pct_of_limit);
    }
    /* Whether the newest point is this run, a recent one or older decides
     * "missing series"; later runs without a point change nothing else. */
    size_t last = s->npoints ? s->points[s->npoints - 1].run : 0;
    size_t behind = t->nruns - 1 - last;
    hash_num(&c, (double)(behind > so->window ? so->window + 1 : behind));
    for (size_t i = 0; i < t->nnotes; i++) {
        hash_str(&c, t->notes[i].date);
        hash_str(&c, t->notes[i].text);
    }
    for (size_t i = 0; i < t->nfailures; i++)
        if (!strcmp(t->failures[i].name, rname) && t->failures[i].run < t->nruns) {
            hash_str(&c, t->runs[t->failures[i].run].run_id);
            hash_str(&c, t->failures[i].reason);
        }
    unsigned char d[32];
    gdr_sha256_final(&c, d);
    gdr_hex(d, 32, out);
}

/* ---- a series page ---- */

static void describe(const struct hdb_key *k, char *buf, size_t len)
{
    char sz[32], name[200];
    gdr_fmt_size(k->size, sz, sizeof(sz));
    hdb_key_name(k, name, sizeof(name));
    snprintf(buf, len, "%s, %s, %s", name, sz, k->metric);
}

/* The pages written, each waiting for the publish's one gnuplot run. */
struct pending {
    struct gdr_figset figs;
    size_t n;
    char **path, **page;
    size_t *len;
};

static int pending_add(struct pending *q, struct gdr_buf *b, const char *path)
{
    size_t len = gdr_buf_len(b);
    char **pa = realloc(q->path, (q->n + 1) * sizeof(char *));
    char **pg = pa ? realloc(q->page, (q->n + 1) * sizeof(char *)) : NULL;
    size_t *ln = pg ? realloc(q->len, (q->n + 1) * sizeof(size_t)) : NULL;
    if (pa)
        q->path = pa;
    if (pg)
        q->page = pg;
    if (ln)
        q->len = ln;
    char *text = ln ? malloc(len + 1) : NULL, *pcopy = text ? strdup(path) : NULL;
    if (!pcopy) {
        free(text);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    memcpy(text, gdr_buf_text(b), len + 1);
    q->path[q->n] = pcopy;
    q->page[q->n] = text;
    q->len[q->n++] = len;
    return 0;
}

/* Draw every page's figure (one gnuplot) and write the pages. */
static int pending_write(struct pending *q)
{
    int rc = q->n ? gdr_figset_draw(&q->figs) : 0;
    for (size_t i = 0; rc == 0 && i < q->n; i++)
        rc = gdr_figset_write(&q->figs, q->page[i], q->len[i], q->path[i], GDR_EXIT_USAGE);
    return rc;
}

static void pending_free(struct pending *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->path[i]);
        free(q->page[i]);
    }
    free(q->path);
    free(q->page);
    free(q->len);
    gdr_figset_close(&q->figs);
}

struct page_ctx {
    struct gdr_figset *figs;
    struct pending *pend;
    const struct hdb_testbed *t;
    const struct hdb_series *s;
    const struct hist_view *v;
    const struct check_row *row;
    const struct hist_publish_opts *o;
    const char *pagedir; /* absolute */
    const char *rname;
    const char *verdict;
};

/* A point's tooltip on the dashboard: the night, its run, the value and
 * verdict, and the link to that night's report. */
struct tip_ctx {
    const struct page_ctx *p;
    struct gdr_unit u;
    char (*href)[8192];
};

static size_t point_tip(void *ctx, size_t i)
{
    const struct tip_ctx *c = ctx;
    const struct hdb_series *s = c->p->s;
    const struct hdb_point *pt = &s->points[i];
    const struct hdb_run_row *run = &c->p->t->runs[pt->run];
    char tip[320], val[48];
    gdr_fmt_unit(c->u, pt->value, val, sizeof(val));
    point_href(c->p->o, run, c->p->pagedir, c->href[i], sizeof(c->href[i]));
    snprintf(tip, sizeof(tip), "%s %s: %s (%s%s%s)", run->date, run->run_id, val,
             hist_verdict_name(c->p->v->pts[i].verdict),
             pt->clean == 0 ? ", not clean: NIC errors or retransmissions" : "",
             pt->simulated ? ", simulated" : "");
    return gdr_figset_tip(c->p->figs, tip, c->href[i]);
}

static int series_page(const struct page_ctx *p, const char *path)
{
    const struct hdb_testbed *t = p->t;
    const struct hdb_series *s = p->s;
    const struct hist_view *v = p->v;
    const struct hdb_key *k = &s->key;
    struct gdr_unit u = hist_unit(t, k);
    const struct hist_opts *so = &p->o->stats;
    size_t n = v->n;
    char(*href)[8192] = calloc(n + 1, sizeof(*href));
    char *rows = NULL, *fails = NULL;
    size_t rlen = 0, flen = 0;
    FILE *d = open_memstream(&rows, &rlen), *fd = open_memstream(&fails, &flen);
    struct gdr_buf b = {0};
    struct hist_panel pan = {0};
    int rc = 0;
    if (!href || !d || !fd) {
        rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
        goto out;
    }
    struct tip_ctx tc = {p, u, href};
    if (hist_panel_build(&pan, d, t, v, so, u, true, point_tip, &tc)) {
        rc = -1;
        goto out;
    }
    size_t nf = 0;
    for (size_t i = 0; i < t->nfailures; i++)
        if (!strcmp(t->failures[i].name, p->rname) && t->failures[i].run < t->nruns && ++nf)
            fprintf(fd, "%s %.9g %zu\n", t->runs[t->failures[i].run].date, pan.y_lo,
                    gdr_figset_tip(p->figs, "failed run", NULL));
    if (fclose(d) | fclose(fd)) {
        d = fd = NULL;
        rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
        goto out;
    }
    d = fd = NULL;
    struct gdr_fig_line lines[8];
    hist_trend_lines(lines, "$trend", -1, "measured (each point links to that night's report)",
                     true);
    size_t nl = pan.unclean ? 5 : 4;
    lines[nl++] = (struct gdr_fig_line){"$trend", -1,    "1:2", GDR_FIG_LINES, NULL, GDR_C_BLACK,
                                        false,    false, 1.2};
    if (nf)
        lines[nl++] = (struct gdr_fig_line){
            "$fails", -1,    "1:2:3", GDR_FIG_TIPS, "a failed run that night", GDR_C_PURPLE,
            false,    false, 0};
    char desc[400], ylabel[64];
    describe(k, desc, sizeof(desc));
    snprintf(ylabel, sizeof(ylabel), "%s [%s]",
             hist_higher_better(k) ? "bandwidth" : "median latency", u.name);
    struct gdr_fig_chart c = {.title = "",
                              .xlabel = "night (UTC)",
                              .ylabel = ylabel,
                              .x = GDR_X_TIME,
                              .x_hours = pan.hours,
                              .y = GDR_Y_AROUND,
                              .y_lo = pan.y_lo,
                              .y_hi = pan.y_hi,
                              .hline = NAN,
                              .nlines = nl,
                              .lines = lines,
                              .nvlines = pan.nvlines,
                              .vlines = pan.vlines,
                              .key_cols = 2};
    char title[700];
    snprintf(title, sizeof(title), "%s on %s", desc, t->name);
    gdr_html_begin(&b, title);
    gdr_buf_puts(&b, "<header><p class=\"sub\"><a href=\"../index.html\">gdrbench history "
                     "dashboard</a> \xe2\x80\xba ");
    gdr_buf_esc(&b, t->name);
    gdr_buf_puts(&b, "</p><h1>");
    gdr_buf_esc(&b, desc);
    gdr_buf_puts(&b, "</h1>\n");
    gdr_lab_warnings(&b, pan.simulated, pan.soft_roce);
    gdr_buf_puts(&b, "</header>\n");
    const struct check_row *row = p->row;
    gdr_buf_puts(&b, "<section id=\"trend\"><h2>Trend</h2>\n<p>Latest: ");
    gdr_buf_escf(&b, "<span class=\"badge v-%s\">%s</span>", verdict_class(p->verdict), p->verdict);
    if (row && !isnan(row->value)) {
        char val[48], base[48];
        gdr_fmt_unit(u, row->value, val, sizeof(val));
        gdr_fmt_unit(u, row->center, base, sizeof(base));
        gdr_buf_escf(&b, " %s against a baseline of %s", val, base);
    }
    if (row && row->center > 0 && !isnan(row->value))
        gdr_buf_printf(&b, " (%+.1f %%)", (row->value - row->center) / row->center * 100);
    if (row && !isnan(row->pct_of_limit))
        gdr_buf_printf(&b, ", %.1f %% of the path's limit", row->pct_of_limit);
    gdr_buf_puts(&b, ".</p>\n");
    if (row && row->clean == 0)
        gdr_buf_puts(&b, "<p class=\"warn\">Not clean: the NIC counted errors or retransmissions "
                         "during this night's point. It is not judged, and no baseline uses "
                         "it.</p>\n");
    /* gnuplot draws while the next pages are computed; started at the
     * first page written (none when nothing changed) */
    if (!p->figs->pid && gdr_figset_stream(p->figs)) {
        rc = -1;
        goto out;
    }
    gdr_buf_puts(&b, "<figure><div class=\"fig\">");
    FILE *gp = gdr_figset_add(p->figs, &b, desc, 960, 480);
    gdr_fig_block(gp, "trend", rows);
    if (nf)
        gdr_fig_block(gp, "fails", fails);
    gdr_fig_chart(gp, &c);
    gdr_buf_puts(&b, "</div>");
    char band[512], marks[512];
    hist_trend_caption(so, band, marks, sizeof(band));
    gdr_buf_escf(&b, "<figcaption>%zu nights. %s %s%s</figcaption>", n, band, marks,
                 nf ? " Purple dots on the axis: a failed run that night." : "");
    gdr_buf_puts(&b, "</figure>\n");
    gdr_buf_puts(&b, "</section>\n<section id=\"nights\"><h2>The last nights</h2>\n"
                     "<div class=\"tbl\"><table data-kind=\"nights\"><thead><tr><th>night</th>"
                     "<th>run</th><th>gdrbench</th><th class=\"n\">value</th><th class=\"n\">"
                     "baseline</th><th class=\"n\">z</th><th>verdict</th><th>notes</th></tr>"
                     "</thead><tbody>\n");
    size_t from = n > TABLE_NIGHTS ? n - TABLE_NIGHTS : 0;
    for (size_t i = n; i-- > from;) {
        const struct hdb_point *pt = &s->points[i];
        const struct hdb_run_row *run = &t->runs[pt->run];
        const struct hist_point *h = &v->pts[i];
        bool step = false;
        for (size_t j = 0; j < v->nsteps; j++)
            step |= v->steps[j].at == i;
        const char *vn = hist_verdict_name(h->verdict);
        gdr_buf_escf(&b, "<tr%s><td>%s</td><td><a href=\"%s\">%s</a></td><td>%s</td>",
                     h->verdict == HV_REGRESSION ? " class=\"flag\"" : "", run->date, href[i],
                     run->run_id, run->version);
        char val[32], bl[32], z[32];
        gdr_fmt_num(pt->value * u.scale, val, sizeof(val));
        gdr_fmt_num(h->center * u.scale, bl, sizeof(bl));
        if (isnan(h->z))
            snprintf(z, sizeof(z), "-");
        else
            snprintf(z, sizeof(z), "%+.1f", hist_higher_better(k) ? -h->z : h->z);
        gdr_buf_printf(&b,
                       "<td class=\"n\" data-si=\"%.9g\">%s</td><td class=\"n\">%s</td>"
                       "<td class=\"n\">%s</td><td>",
                       pt->value, val, bl, z);
        gdr_buf_escf(&b, "<span class=\"badge v-%s\">%s</span></td><td>%s%s%s%s</td></tr>\n",
                     verdict_class(vn), vn, h->outlier ? "outlier " : "", step ? "step " : "",
                     pt->clean == 0 ? "not clean " : "", pt->simulated ? "simulated" : "");
    }
    gdr_buf_puts(&b, "</tbody></table></div>\n");
    if (t->nnotes) {
        gdr_buf_puts(&b, "<h3>Annotations</h3><ul>");
        for (size_t i = 0; i < t->nnotes; i++)
            gdr_buf_escf(&b, "<li>%s: %s</li>", t->notes[i].date, t->notes[i].text);
        gdr_buf_puts(&b, "</ul>\n");
    }
    if (nf) {
        gdr_buf_puts(&b, "<h3>Failed runs of this series</h3><ul>");
        for (size_t i = 0; i < t->nfailures; i++)
            if (!strcmp(t->failures[i].name, p->rname) && t->failures[i].run < t->nruns)
                gdr_buf_escf(&b, "<li>%s %s: %s</li>", t->runs[t->failures[i].run].date,
                             t->runs[t->failures[i].run].run_id, t->failures[i].reason);
        gdr_buf_puts(&b, "</ul>\n");
    }
    gdr_buf_puts(&b, "</section>\n");
    gdr_html_end(&b, "made by gdr-history publish (gdrbench " PACKAGE_VERSION ")");
    rc = b.oom ? gdr_fail(GDR_EXIT_RUN, "out of memory") : pending_add(p->pend, &b, path);
out:
    if (d)
        fclose(d);
    if (fd)
        fclose(fd);
    gdr_buf_free(&b);
    hist_panel_free(&pan);
    free(rows);
    free(fails);
    free(href);
    return rc;
}

/* ---- the state of the last publish ---- */

static void row_to_json(cJSON *arr, const struct pub_row *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddItemToArray(arr, o);
    cJSON_AddStringToObject(o, "page", r->page);
    cJSON_AddStringToObject(o, "hash", r->hash);
    cJSON_AddStringToObject(o, "testbed", r->testbed);
    cJSON_AddStringToObject(o, "test", r->test);
    cJSON_AddStringToObject(o, "placement", r->pair);
    cJSON_AddStringToObject(o, "registration", r->reg);
    cJSON_AddStringToObject(o, "metric", r->metric);
    cJSON_AddStringToObject(o, "verdict", r->verdict);
    cJSON_AddStringToObject(o, "last", r->last);
    cJSON_AddStringToObject(o, "unit", r->unit);
    cJSON_AddNumberToObject(o, "size", (double)r->size);
    gdr_json_add_number_or_null(o, "value", r->value);
    gdr_json_add_number_or_null(o, "baseline", r->baseline);
    gdr_json_add_number_or_null(o, "change", r->change);
}

static void copy_str(const cJSON *o, const char *key, char *buf, size_t len)
{
    snprintf(buf, len, "%s", gdr_jstr_or(o, key, ""));
}

/* The rows of the last publish; a missing or unreadable state means every
 * page is written again (never an error: the pages are derived data). */
static size_t state_load(const char *outdir, struct pub_row **rows)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/" STATE_FILE, outdir);
    *rows = NULL;
    cJSON *j = access(path, F_OK) == 0 ? gdr_json_read_file(path, 256u << 20) : NULL;
    gdr_error_clear();
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "state_version");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "series");
    if (!cJSON_IsString(ver) || strcmp(ver->valuestring, STATE_VERSION) || !cJSON_IsArray(arr)) {
        cJSON_Delete(j);
        return 0;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr), k = 0;
    *rows = calloc(n + 1, sizeof(**rows));
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        if (!*rows)
            break;
        struct pub_row *r = &(*rows)[k++];
        copy_str(o, "page", r->page, sizeof(r->page));
        copy_str(o, "hash", r->hash, sizeof(r->hash));
        copy_str(o, "testbed", r->testbed, sizeof(r->testbed));
        copy_str(o, "test", r->test, sizeof(r->test));
        copy_str(o, "placement", r->pair, sizeof(r->pair));
        copy_str(o, "registration", r->reg, sizeof(r->reg));
        copy_str(o, "metric", r->metric, sizeof(r->metric));
        copy_str(o, "verdict", r->verdict, sizeof(r->verdict));
        copy_str(o, "last", r->last, sizeof(r->last));
        copy_str(o, "unit", r->unit, sizeof(r->unit));
        r->size = gdr_jcount(o, "size");
        r->value = gdr_jnum_or(o, "value", NAN);
        r->baseline = gdr_jnum_or(o, "baseline", NAN);
        r->change = gdr_jnum_or(o, "change", NAN);
    }
    cJSON_Delete(j);
    return *rows ? k : 0;
}

static const struct pub_row *state_find(const struct pub_row *rows, size_t n, const char *page)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].page, page))
            return &rows[i];
    return NULL;
}

static int state_save(const char *outdir, const struct pub_row *rows, size_t n)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *arr = j ? cJSON_AddArrayToObject(j, "series") : NULL;
    if (!arr) {
        cJSON_Delete(j);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    cJSON_AddStringToObject(j, "state_version", STATE_VERSION);
    for (size_t i = 0; i < n; i++)
        row_to_json(arr, &rows[i]);
    char path[4200];
    snprintf(path, sizeof(path), "%s/" STATE_FILE, outdir);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!text)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    int rc = gdr_atomic_write(path, text, strlen(text), GDR_EXIT_USAGE);
    free(text);
    return rc;
}

/* ---- the index ---- */

static int cmp_rows(const void *a, const void *b)
{
    const struct pub_row *x = a, *y = b;
    int c = strcmp(x->testbed, y->testbed);
    if (c)
        return c;
    int rx = verdict_rank(x->verdict), ry = verdict_rank(y->verdict);
    if (rx != ry)
        return rx - ry;
    if ((c = strcmp(x->test, y->test)) || (c = strcmp(x->pair, y->pair)) ||
        (c = strcmp(x->reg, y->reg)))
        return c;
    return (x->size > y->size) - (x->size < y->size);
}

static int write_index(const char *outdir, struct pub_row *rows, size_t n)
{
    qsort(rows, n, sizeof(*rows), cmp_rows);
    size_t ntestbeds = 0;
    for (size_t i = 0; i < n; i++)
        ntestbeds += i == 0 || strcmp(rows[i].testbed, rows[i - 1].testbed);
    struct gdr_buf b = {0};
    gdr_html_begin(&b, "gdrbench history dashboard");
    gdr_buf_printf(&b,
                   "<header><h1>gdrbench history dashboard</h1>\n<p class=\"sub\">%zu "
                   "testbed%s, %zu series; regressions first. Each series links to its "
                   "trend, each night of a trend to that night's report.</p></header>\n",
                   ntestbeds, ntestbeds == 1 ? "" : "s", n);
    for (size_t a = 0; a < n;) {
        size_t e = a + 1;
        while (e < n && !strcmp(rows[e].testbed, rows[a].testbed))
            e++;
        char id[32];
        snprintf(id, sizeof(id), "tb%zu", a);
        gdr_section_begin(&b, id, rows[a].testbed);
        /* Counts per verdict. */
        static const char *const verdicts[] = {"regression",  "missing series", "noise",
                                               "improvement", "new series",     "ok",
                                               "not recent"};
        gdr_buf_puts(&b, "<p>");
        for (size_t v = 0; v < sizeof(verdicts) / sizeof(verdicts[0]); v++) {
            size_t c = 0;
            for (size_t i = a; i < e; i++)
                c += !strcmp(rows[i].verdict, verdicts[v]);
            if (c) {
                char text[64];
                snprintf(text, sizeof(text), "%zu %s", c, verdicts[v]);
                gdr_badge(&b, verdict_class(verdicts[v]), text);
                gdr_buf_puts(&b, " ");
            }
        }
        gdr_buf_puts(&b, "</p>\n<div class=\"tbl\"><table data-kind=\"series\"><thead><tr>"
                         "<th>verdict</th><th>test</th><th>placement</th><th>registration</th>"
                         "<th class=\"n\">size</th><th class=\"n\">latest</th><th class=\"n\">"
                         "baseline</th><th class=\"n\">change</th><th>last night</th></tr></thead>"
                         "<tbody>\n");
        for (size_t i = a; i < e; i++) {
            const struct pub_row *r = &rows[i];
            char sz[32];
            gdr_fmt_size(r->size, sz, sizeof(sz));
            gdr_buf_escf(&b,
                         "<tr%s><td><span class=\"badge v-%s\">%s</span></td><td><a "
                         "href=\"%s\">%s</a></td><td>%s</td><td>%s</td><td class=\"n\" "
                         "data-si=\"%llu\">%s</td>",
                         !strcmp(r->verdict, "regression") ? " class=\"flag\"" : "",
                         verdict_class(r->verdict), r->verdict, r->page, r->test, r->pair, r->reg,
                         r->size, sz);
            char val[32], bl[32];
            gdr_fmt_num(r->value, val, sizeof(val));
            gdr_fmt_num(r->baseline, bl, sizeof(bl));
            gdr_buf_escf(&b, "<td class=\"n\">%s %s</td><td class=\"n\">%s %s</td>", val,
                         isnan(r->value) ? "" : r->unit, bl, isnan(r->baseline) ? "" : r->unit);
            if (isnan(r->change))
                gdr_buf_puts(&b, "<td class=\"n\">-</td>");
            else
                gdr_buf_printf(&b, "<td class=\"n\">%+.1f %%</td>", r->change);
            gdr_buf_escf(&b, "<td>%s</td></tr>\n", r->last);
        }
        gdr_buf_puts(&b, "</tbody></table></div>\n");
        gdr_section_end(&b);
        a = e;
    }
    if (n == 0)
        gdr_buf_puts(&b, "<p>No series yet.</p>\n");
    gdr_html_end(&b, "made by gdr-history publish (gdrbench " PACKAGE_VERSION ")");
    char path[4200];
    snprintf(path, sizeof(path), "%s/index.html", outdir);
    int rc = gdr_buf_write_atomic(&b, path);
    gdr_buf_free(&b);
    return rc;
}

/* ---- publish ---- */

static int mkdir_p(const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not a directory", dir);
    return 0;
}

static int publish_testbed(struct pending *q, const struct hdb_testbed *t,
                           const struct hist_publish_opts *o, const char *outabs,
                           const struct pub_row *old, size_t nold, struct pub_row *rows,
                           size_t *nrows, struct hist_publish_result *res)
{
    char tb[160], dir[4400];
    testbed_dir(t->name, tb, sizeof(tb));
    snprintf(dir, sizeof(dir), "%s/%s", outabs, tb);
    if (mkdir_p(dir))
        return -1;
    size_t recent = t->nruns - 1 > o->stats.window ? t->nruns - 1 - o->stats.window : 0;
    for (size_t k = 0; k < t->nseries; k++) {
        const struct hdb_series *s = &t->series[k];
        if (s->npoints == 0)
            continue;
        struct pub_row *r = &rows[(*nrows)++];
        memset(r, 0, sizeof(*r));
        char file[300], rname[128], path[4800];
        series_file(&s->key, file, sizeof(file));
        run_name(&s->key, rname, sizeof(rname));
        snprintf(r->page, sizeof(r->page), "%s/%s", tb, file);
        snprintf(path, sizeof(path), "%s/%s", outabs, r->page);
        series_hash(t, s, o, rname, r->hash);
        const struct pub_row *was = state_find(old, nold, r->page);
        res->series++;
        if (!o->force && was && !strcmp(was->hash, r->hash) && access(path, F_OK) == 0) {
            *r = *was;
            res->unchanged++;
            continue;
        }
        struct hist_view v;
        if (hist_analyse(t, s, t->nruns - 1, &o->stats, &v))
            return -1;
        struct check_row row = {.s = s};
        const char *verdict;
        size_t last = s->points[v.n - 1].run;
        if (last == t->nruns - 1) {
            hist_check_row(t, &v, &row);
            verdict = hist_verdict_name(row.verdict);
        } else {
            row.value = row.center = NAN;
            verdict = last >= recent ? "missing series" : "not recent";
        }
        const struct hdb_key *key = &s->key;
        snprintf(r->testbed, sizeof(r->testbed), "%s", t->name);
        snprintf(r->test, sizeof(r->test), "%s", key->test);
        hdb_key_pair(key, r->pair, sizeof(r->pair));
        hdb_key_reg(key, r->reg, sizeof(r->reg));
        snprintf(r->metric, sizeof(r->metric), "%s", key->metric);
        snprintf(r->verdict, sizeof(r->verdict), "%s", verdict);
        snprintf(r->last, sizeof(r->last), "%s", t->runs[last].date);
        struct gdr_unit u = hist_unit(t, key);
        snprintf(r->unit, sizeof(r->unit), "%s", u.name);
        r->size = (unsigned long long)key->size;
        r->value = row.value * u.scale;
        r->baseline = row.center * u.scale;
        r->change =
            row.center > 0 && !isnan(row.value) ? (row.value - row.center) / row.center * 100 : NAN;
        struct page_ctx pc = {&q->figs, q,   t,     s,      &v, last == t->nruns - 1 ? &row : NULL,
                              o,        dir, rname, verdict};
        int rc = series_page(&pc, path);
        hist_view_free(&v);
        if (rc)
            return -1;
        res->written++;
    }
    return 0;
}

int hist_publish(struct hdb *h, const struct hist_publish_opts *o, struct hist_publish_result *res)
{
    memset(res, 0, sizeof(*res));
    char(*names)[256] = NULL;
    size_t n = 0;
    if (o->testbed) {
        names = malloc(sizeof(*names));
        if (!names)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        snprintf(names[0], sizeof(names[0]), "%s", o->testbed);
        n = 1;
    } else if (hdb_testbeds(h, &names, &n)) {
        return -1;
    }
    /* Everything is read before anything is written. */
    struct hdb_testbed *tbs = calloc(n + 1, sizeof(*tbs));
    int rc = tbs ? 0 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    size_t loaded = 0, total = 0;
    for (; rc == 0 && loaded < n; loaded++) {
        rc = hdb_load(h, names[loaded], &tbs[loaded]);
        if (rc == 0 && tbs[loaded].nruns == 0)
            rc = gdr_fail(GDR_EXIT_USAGE, "no testbed '%s' in the history", names[loaded]);
        if (rc == 0)
            total += tbs[loaded].nseries;
    }
    if (rc == 0 && n == 0)
        rc = gdr_fail(GDR_EXIT_USAGE, "the history has no runs yet (gdr-history ingest RUN_DIR)");
    char *outabs = NULL;
    if (rc == 0 && (rc = mkdir_p(o->outdir)) == 0 && !(outabs = realpath(o->outdir, NULL)))
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: %s", o->outdir, strerror(errno));
    struct pub_row *old = NULL, *rows = NULL;
    size_t nold = 0, nrows = 0;
    struct pending q = {0};
    if (rc == 0)
        rc = gdr_figset_open(&q.figs);
    if (rc == 0) {
        nold = state_load(outabs, &old);
        rows = calloc(total + nold + 1, sizeof(*rows));
        if (!rows)
            rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = publish_testbed(&q, &tbs[i], o, outabs, old, nold, rows, &nrows, res);
        res->testbeds++;
    }
    /* Pages of series that are gone; other testbeds' pages stay when one is chosen. */
    for (size_t i = 0; rc == 0 && i < nold; i++) {
        bool keep = state_find(rows, nrows, old[i].page) != NULL;
        bool other = o->testbed && strcmp(old[i].testbed, o->testbed);
        if (other) {
            rows[nrows++] = old[i];
            continue;
        }
        if (!keep && !other && strstr(old[i].page, "..") == NULL) {
            char path[4800];
            snprintf(path, sizeof(path), "%s/%s", outabs, old[i].page);
            if (unlink(path) == 0)
                res->removed++;
        }
    }
    if (rc == 0)
        rc = pending_write(&q);
    pending_free(&q);
    if (rc == 0)
        rc = write_index(outabs, rows, nrows);
    if (rc == 0)
        rc = state_save(outabs, rows, nrows);
    free(rows);
    free(old);
    free(outabs);
    for (size_t i = 0; i < loaded && tbs; i++)
        hdb_testbed_free(&tbs[i]);
    free(tbs);
    free(names);
    return rc;
}
