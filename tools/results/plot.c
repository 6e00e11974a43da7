/* plot.c - a sweep's data and figures (plot.h). */
#include "config.h"

#include "plot.h"
#include "order.h"
#include "atomic_file.h"
#include "error.h"
#include "figure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One data file: a series, or a speed-up (on over off). */
struct pfile {
    char name[128];
    const struct gdr_series *s, *off;
    bool simulated;
};

void gdr_plot_rows(FILE *f, bool latency, const struct gdr_row *rows, size_t n)
{
    if (latency)
        fprintf(f, "# size_B min_s median_s mean_s p99_s p999_s max_s cpu_client cpu_server\n");
    else
        fprintf(f, "# size_B bw_avg_Bps bw_peak_Bps msg_rate_per_s cpu_client cpu_server "
                   "limit_Bps pct_of_limit clean\n");
    for (size_t i = 0; i < n; i++) {
        const struct gdr_row *r = &rows[i];
        if (latency)
            fprintf(f, "%llu %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g\n",
                    (unsigned long long)r->size, r->lat[LAT_MIN], r->lat[LAT_MEDIAN],
                    r->lat[LAT_MEAN], r->lat[LAT_P99], r->lat[LAT_P999], r->lat[LAT_MAX],
                    r->cpu_client, r->cpu_server);
        else
            /* unknown: NaN, which gnuplot leaves out; clean: 1, 0 or -1 (not known) */
            fprintf(f, "%llu %.10g %.10g %.10g %.10g %.10g %.10g %.10g %d\n",
                    (unsigned long long)r->size, r->bw_avg, r->bw_peak, r->msg_rate, r->cpu_client,
                    r->cpu_server, r->limit, r->pct_of_limit, r->clean);
    }
}

/* The GPU of a cuda end ("-" for host memory, "GPU" when unnamed). */
static const char *gpu_name(const struct gdr_end_info *e)
{
    if (strcmp(e->placement, "cuda"))
        return "-";
    return e->cuda_name[0] ? e->cuda_name : "GPU";
}

static void print_index(FILE *index, const char *dir, const struct pfile *p)
{
    if (!index)
        return;
    const struct gdr_series *s = p->s;
    const struct gdr_doc *d = s->docs[0];
    fprintf(index, "%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%zu\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
            p->off ? "speedup" : "series", dir, p->name, s->test, s->metric, s->pair, s->gdr,
            s->reg, s->ndocs, d->client.host, d->server.host, d->client.device, d->server.device,
            d->start_time, d->version, p->simulated ? "simulated" : "real", gpu_name(&d->client),
            gpu_name(&d->server));
}

double gdr_speedup(const struct gdr_series *on, const struct gdr_series *off, uint64_t size)
{
    const struct gdr_row *x = NULL, *y = NULL;
    for (size_t i = 0; i < on->nsizes; i++)
        if (on->rows[i].size == size)
            x = &on->rows[i];
    for (size_t j = 0; j < off->nsizes; j++)
        if (off->rows[j].size == size)
            y = &off->rows[j];
    if (!x || !y)
        return NAN;
    double num = on->latency ? y->lat[LAT_MEDIAN] : x->bw_avg;
    double den = on->latency ? x->lat[LAT_MEDIAN] : y->bw_avg;
    return den > 0 ? num / den : NAN;
}

/* Every data file of the set, written; *out (free it) lists them. */
static int write_data(const struct gdr_set *set, const char *dir, FILE *index, struct pfile **out,
                      size_t *nout)
{
    size_t n = 0;
    struct pfile *pf = calloc(set->nseries * (set->nseries + 1) + 1, sizeof(*pf));
    if (!pf)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    for (size_t k = 0; k < set->nseries; k++) {
        const struct gdr_series *s = &set->series[k];
        pf[n] = (struct pfile){.s = s, .simulated = s->simulated};
        snprintf(pf[n].name, sizeof(pf[n].name), "series-%02zu-%.40s-%.40s.dat", k + 1, s->test,
                 s->pair);
        n++;
    }
    for (size_t a = 0; a < set->nseries; a++)
        for (size_t b = 0; b < set->nseries; b++) {
            const struct gdr_series *on = &set->series[a], *off = &set->series[b];
            if (strcmp(on->gdr, "on") || strcmp(off->gdr, "off") || strcmp(off->test, on->test) ||
                strcmp(off->pair, on->pair))
                continue;
            pf[n] =
                (struct pfile){.s = on, .off = off, .simulated = on->simulated || off->simulated};
            snprintf(pf[n].name, sizeof(pf[n].name), "speedup-%02zu-%02zu.dat", a + 1, b + 1);
            n++;
        }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, pf[i].name);
        FILE *f = fopen(path, "w");
        if (!f) {
            free(pf);
            return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
        }
        const struct gdr_series *s = pf[i].s, *off = pf[i].off;
        if (off) {
            fprintf(f, "# %s %s: GDR on (%s) over off (%s)\n# size_B speedup\n", s->test, s->pair,
                    s->reg, off->reg);
            for (size_t r = 0; r < s->nsizes; r++) {
                double x = gdr_speedup(s, off, s->rows[r].size);
                if (!isnan(x))
                    fprintf(f, "%llu %.10g\n", (unsigned long long)s->rows[r].size, x);
            }
        } else {
            fprintf(f, "# %s %s %s (GDR %s), median of %zu run%s\n", s->test, s->pair, s->reg,
                    s->gdr, s->ndocs, s->ndocs == 1 ? "" : "s");
            gdr_plot_rows(f, s->latency, s->rows, s->nsizes);
        }
        if (fclose(f)) {
            free(pf);
            return gdr_fail(GDR_EXIT_USAGE, "%s: write error", path);
        }
        print_index(index, dir, &pf[i]);
    }
    *out = pf;
    *nout = n;
    return 0;
}

int gdr_plot_data(const struct gdr_set *set, const char *dir, FILE *index)
{
    struct pfile *pf;
    size_t n;
    if (write_data(set, dir, index, &pf, &n))
        return -1;
    free(pf);
    return 0;
}

/* ---- the figures ---- */

static int rank(const struct gdr_series *s, bool speedup)
{
    static const char *const order[] = {"host-host", "host-cuda", "cuda-host", "cuda-cuda"};
    int r = 40;
    for (int i = 0; i < 4; i++)
        if (!strcmp(s->pair, order[i]))
            r = 10 * i;
    return r + (!speedup && !strcmp(s->gdr, "off") ? 2 : 1);
}

static int by_rank(const void *a, const void *b)
{
    const struct pfile *x = *(const struct pfile *const *)a, *y = *(const struct pfile *const *)b;
    int d = rank(x->s, x->off) - rank(y->s, y->off);
    return d ? d : (x < y ? -1 : x > y);
}

/* "H-D" from "host-cuda". */
static void short_pair(const char *pair, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = pair; *p && n + 1 < len; p++) {
        if (!strncmp(p, "host", 4) || !strncmp(p, "cuda", 4)) {
            out[n++] = *p == 'h' ? 'H' : 'D';
            p += 3;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

/* a, b, c: v added to the list when new. */
static void add(char *list, size_t len, const char *v)
{
    char probe[600];
    snprintf(probe, sizeof(probe), ", %s, ", v);
    char padded[4200];
    snprintf(padded, sizeof(padded), ", %s, ", list);
    if (!*v || strstr(padded, probe))
        return;
    size_t n = strlen(list);
    snprintf(list + n, len - n, "%s%s", n ? ", " : "", v);
}

struct test_fig {
    const char *test;
    bool lat, sim, all_rxe, anylimit;
    size_t ns, np, nsizes;
    struct pfile **s, **p;
    double *sizes, big, cpumax, pctmax, latmin;
    struct gdr_unit unit; /* the run's (gdr_set_unit) */
    char hosts[1024], devs[1024], gpus[1024], dates[1024], vers[1024];
};

static struct gdr_fig_line mk(const char *data, int index, const char *use, enum gdr_fig_style st,
                              const char *title)
{
    return (struct gdr_fig_line){
        .data = data, .index = index, .using = use, .style = st, .title = title};
}

struct line_text {
    char title[160];
};

static void style(struct gdr_fig_line *l, const struct gdr_series *s, bool on)
{
    bool off = !on && !strcmp(s->gdr, "off");
    l->colour = gdr_fig_pair_colour(s->pair);
    l->dashed = off;
    l->hollow = off;
    l->width = 2.5;
}

static void label(const struct gdr_series *s, char *out, size_t len)
{
    char sp[40];
    short_pair(s->pair, sp, sizeof(sp));
    if (!strcmp(s->gdr, "n/a"))
        snprintf(out, len, "%s  host memory", sp);
    else
        snprintf(out, len, "%s  GDR %s (%s)", sp, s->gdr, s->reg);
}

/* The caption (warnings lowest, dark red); returns the lines used. */
static int caption(FILE *gp, const struct test_fig *t)
{
    int line = gdr_fig_lab_warnings(gp, 0, t->sim, t->all_rxe);
    char c[6000];
    snprintf(c, sizeof(c), "hosts %s   RDMA %s%s%s   %s   gdrbench %s", t->hosts, t->devs,
             *t->gpus ? "   GPU " : "", t->gpus, t->dates, t->vers);
    gdr_fig_caption(gp, line++, c, false);
    return line;
}

static void figure_tsv(FILE *f, const char *kind, const struct test_fig *t, struct pfile **files,
                       size_t n)
{
    fprintf(f, "%s-%s\t%s\t%s\t", kind, t->test, kind, t->test);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? "," : "", files[i]->name);
    fputc('\n', f);
}

static void draw_test(FILE *gp, const struct test_fig *t, const char *title, bool png)
{
    struct gdr_fig_line *l = calloc(t->ns + t->np + 1, sizeof(*l) * 3);
    struct line_text *txt = calloc(t->ns + t->np + 1, sizeof(*txt));
    char(*use)[64] = calloc(t->ns * 3 + t->np + 1, sizeof(*use));
    if (!l || !txt || !use)
        goto out;
    struct gdr_unit u = t->unit;
    char name[128], ttl[512], ylabel[96];
    struct gdr_fig_chart c = {.xlabel = "message size",
                              .x = GDR_X_LOG2_BYTES,
                              .nsizes = t->nsizes,
                              .sizes = t->sizes,
                              .hline = NAN,
                              .key_cols = 2,
                              .lines = l};
    /* bandwidth or latency, each series' limit a thin dashed line */
    size_t nl = 0;
    for (size_t i = 0; i < t->ns; i++) {
        const struct gdr_series *s = t->s[i]->s;
        label(s, txt[i].title, sizeof(txt[i].title));
        if (t->lat)
            snprintf(use[i], sizeof(use[i]), "1:($3*%g):($3*%g):($5*%g)", u.scale, u.scale,
                     u.scale);
        else
            snprintf(use[i], sizeof(use[i]), "1:($2*%g)", u.scale);
        l[nl] = mk(t->s[i]->name, -1, use[i], t->lat ? GDR_FIG_ERRORLINES : GDR_FIG_LINESPOINTS,
                   txt[i].title);
        style(&l[nl++], s, false);
    }
    for (size_t i = 0; i < t->ns && !t->lat; i++) {
        const struct gdr_series *s = t->s[i]->s;
        bool known = false;
        for (size_t r = 0; r < s->nsizes; r++)
            known |= isfinite(s->rows[r].limit);
        if (!known)
            continue;
        snprintf(use[t->ns + i], sizeof(use[0]), "1:($7*%g)", u.scale);
        l[nl] = mk(t->s[i]->name, -1, use[t->ns + i], GDR_FIG_LINES, NULL);
        style(&l[nl], s, false);
        l[nl].dashed = true;
        l[nl++].width = 1;
    }
    /* rows the NIC did not count clean (column 9: 0), crossed */
    bool keyed = false;
    for (size_t i = 0; i < t->ns && !t->lat; i++) {
        const struct gdr_series *s = t->s[i]->s;
        bool unclean = false;
        for (size_t r = 0; r < s->nsizes; r++)
            unclean |= s->rows[r].clean == 0;
        if (!unclean)
            continue;
        snprintf(use[2 * t->ns + i], sizeof(use[0]), "1:($9 == 0 ? $2*%g : NaN)", u.scale);
        l[nl++] = (struct gdr_fig_line){t->s[i]->name,
                                        -1,
                                        use[2 * t->ns + i],
                                        GDR_FIG_CROSS,
                                        keyed ? NULL : "not clean (the NIC counted errors)",
                                        GDR_C_BLACK,
                                        false,
                                        false,
                                        0};
        keyed = true;
    }
    snprintf(name, sizeof(name), "%s-%s", t->lat ? "latency" : "bandwidth", t->test);
    if (t->lat)
        snprintf(ttl, sizeof(ttl), "%s: %s latency (median, bar up to p99)", title, t->test);
    else
        snprintf(ttl, sizeof(ttl), "%s: %s bandwidth (average over the timed loop)", title,
                 t->test);
    snprintf(ylabel, sizeof(ylabel), "%s [%s]", t->lat ? "latency" : "bandwidth", u.name);
    c.title = ttl;
    c.ylabel = ylabel;
    c.y = t->lat ? GDR_Y_LOG : GDR_Y_ZERO;
    gdr_y_range(c.y, t->lat ? t->latmin * u.scale : 0, t->big * u.scale, NAN, 0, &c.y_lo, &c.y_hi);
    c.nlines = nl;
    fprintf(gp, "reset\n");
    gdr_fig_output(gp, png, name, 960, 640);
    c.ncaption = caption(gp, t);
    gdr_fig_chart(gp, &c);
    /* % of limit */
    if (t->anylimit) {
        nl = 0;
        for (size_t i = 0; i < t->ns; i++) {
            const struct gdr_series *s = t->s[i]->s;
            bool known = false;
            for (size_t r = 0; r < s->nsizes; r++)
                known |= isfinite(s->rows[r].limit);
            if (!known)
                snprintf(txt[i].title + strlen(txt[i].title),
                         sizeof(txt[i].title) - strlen(txt[i].title), " (limit unknown)");
            l[nl] = mk(known ? t->s[i]->name : "NaN", -1, known ? "1:8" : NULL, GDR_FIG_LINESPOINTS,
                       txt[i].title);
            style(&l[nl++], s, false);
        }
        snprintf(name, sizeof(name), "limit-%s", t->test);
        snprintf(ttl, sizeof(ttl),
                 "%s: %s bandwidth as %% of the limit of its path (dashed: 100 %%)", title,
                 t->test);
        c.title = ttl;
        c.ylabel = "% of limit";
        c.y = GDR_Y_ZERO;
        c.y_lo = 0;
        c.y_hi = fmax(t->pctmax, 100) * 1.08;
        c.hline = 100;
        c.nlines = nl;
        fprintf(gp, "reset\n");
        gdr_fig_output(gp, png, name, 960, 640);
        c.ncaption = caption(gp, t);
        gdr_fig_chart(gp, &c);
        for (size_t i = 0; i < t->ns; i++)
            label(t->s[i]->s, txt[i].title, sizeof(txt[i].title));
    }
    /* speed-up */
    if (t->np) {
        for (size_t i = 0; i < t->np; i++) {
            char sp[40];
            short_pair(t->p[i]->s->pair, sp, sizeof(sp));
            snprintf(txt[t->ns + i].title, sizeof(txt[0].title), "%s  GDR on / off", sp);
            l[i] = mk(t->p[i]->name, -1, "1:2", GDR_FIG_LINESPOINTS, txt[t->ns + i].title);
            style(&l[i], t->p[i]->s, true);
        }
        snprintf(name, sizeof(name), "speedup-%s", t->test);
        snprintf(ttl, sizeof(ttl), "%s: %s speed-up of GDR on over GDR off", title, t->test);
        c.title = ttl;
        c.ylabel =
            t->lat ? "speed-up [x]  (latency off / on)" : "speed-up [x]  (bandwidth on / off)";
        c.y = GDR_Y_ZERO;
        c.y_lo = c.y_hi = 0;
        c.hline = 1;
        c.nlines = t->np;
        c.key_cols = 3;
        fprintf(gp, "reset\n");
        gdr_fig_output(gp, png, name, 960, 640);
        c.ncaption = caption(gp, t);
        gdr_fig_chart(gp, &c);
        c.key_cols = 2;
    }
    /* CPU: client and server side by side, one key below both */
    snprintf(name, sizeof(name), "cpu-%s", t->test);
    fprintf(gp, "reset\n");
    gdr_fig_output(gp, png, name, 960, 640);
    int ncap = caption(gp, t);
    snprintf(ttl, sizeof(ttl), "%s: %s CPU use during the timed loop", title, t->test);
    fprintf(gp, "set multiplot title ");
    gdr_fig_str(gp, ttl);
    fprintf(gp, " font \",14\"\nset tmargin 4\n");
    c.ylabel = "CPU [% of one core]";
    c.hline = NAN;
    c.y = GDR_Y_ZERO;
    c.y_lo = 0;
    c.y_hi = fmax(t->cpumax, 1) * 105;
    c.nlines = t->ns;
    c.key_cols = 0;
    c.no_key = true;
    c.narrow = true;
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < t->ns; i++) {
            snprintf(use[i], sizeof(use[i]), "1:($%d*100)", (t->lat ? 8 : 5) + side);
            l[i] = mk(t->s[i]->name, -1, use[i], GDR_FIG_LINESPOINTS, NULL);
            style(&l[i], t->s[i]->s, false);
        }
        fprintf(gp, "set bmargin %zu\n", 3 + (t->ns + 1) / 2 + (size_t)ncap + 1);
        fprintf(gp, "set lmargin at screen %s; set rmargin at screen %s\n", side ? "0.58" : "0.08",
                side ? "0.99" : "0.49");
        c.title = side ? "server" : "client";
        gdr_fig_chart(gp, &c);
        if (side == 0)
            fprintf(gp, "unset label\n");
    }
    for (size_t i = 0; i < t->ns; i++) {
        l[i] = mk("NaN", -1, NULL, GDR_FIG_LINESPOINTS, txt[i].title);
        style(&l[i], t->s[i]->s, false);
    }
    gdr_fig_key_panel(gp, l, t->ns, 2, ncap);
    fprintf(gp, "unset multiplot\n");
out:
    free(l);
    free(txt);
    free(use);
}

/* The facts of test: its files, sizes, largest values and caption. */
static int gather(struct test_fig *t, struct pfile *pf, size_t n)
{
    t->s = calloc(n + 1, sizeof(*t->s));
    t->p = calloc(n + 1, sizeof(*t->p));
    size_t maxsizes = 0;
    for (size_t i = 0; i < n; i++)
        maxsizes += pf[i].s->nsizes;
    t->sizes = calloc(maxsizes + 1, sizeof(double));
    if (!t->s || !t->p || !t->sizes)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    t->all_rxe = true;
    t->latmin = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const struct gdr_series *s = pf[i].s;
        if (strcmp(s->test, t->test))
            continue;
        const struct gdr_doc *d = s->docs[0];
        char v[600];
        snprintf(v, sizeof(v), "%s", d->client.host);
        if (strcmp(d->client.host, d->server.host))
            snprintf(v, sizeof(v), "%s <-> %s", d->client.host, d->server.host);
        add(t->hosts, sizeof(t->hosts), v);
        snprintf(v, sizeof(v), "%s", d->client.device);
        if (strcmp(d->client.device, d->server.device))
            snprintf(v, sizeof(v), "%s <-> %s", d->client.device, d->server.device);
        add(t->devs, sizeof(t->devs), v);
        t->all_rxe &= !strncmp(d->client.device, "rxe", 3) && !strncmp(d->server.device, "rxe", 3);
        snprintf(v, sizeof(v), "%.10s", d->start_time);
        add(t->dates, sizeof(t->dates), v);
        add(t->vers, sizeof(t->vers), d->version);
        if (strcmp(gpu_name(&d->client), "-"))
            add(t->gpus, sizeof(t->gpus), gpu_name(&d->client));
        if (strcmp(gpu_name(&d->server), "-"))
            add(t->gpus, sizeof(t->gpus), gpu_name(&d->server));
        t->sim |= pf[i].simulated;
        if (pf[i].off) {
            t->p[t->np++] = &pf[i];
            continue;
        }
        t->s[t->ns++] = &pf[i];
        t->lat = s->latency;
        for (size_t r = 0; r < s->nsizes; r++) {
            const struct gdr_row *row = &s->rows[r];
            t->sizes[t->nsizes++] = (double)row->size;
            t->big = fmax(t->big, s->latency ? row->lat[LAT_P99] : row->bw_avg);
            if (s->latency && row->lat[LAT_MEDIAN] > 0)
                t->latmin = fmin(t->latmin, row->lat[LAT_MEDIAN]);
            t->cpumax = fmax(t->cpumax, fmax(row->cpu_client, row->cpu_server));
            if (!s->latency && isfinite(row->limit)) {
                t->anylimit = true;
                t->big = fmax(t->big, row->limit);
                t->pctmax = fmax(t->pctmax, row->pct_of_limit);
            }
        }
    }
    qsort(t->sizes, t->nsizes, sizeof(double), gdr_cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < t->nsizes; i++)
        if (!u || t->sizes[i] != t->sizes[u - 1])
            t->sizes[u++] = t->sizes[i];
    t->nsizes = u;
    qsort(t->s, t->ns, sizeof(*t->s), by_rank);
    qsort(t->p, t->np, sizeof(*t->p), by_rank);
    return 0;
}

/* Each test's figures into gp: PNG and SVG with the figures' list in ft
 * and their files on o, or (ft NULL) SVG only. */
static int draw_all(FILE *gp, const struct gdr_set *set, struct pfile *pf, size_t n,
                    const char *dir, const char *title, FILE *ft, FILE *o, bool *any_speedup)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(pf[j].s->test, pf[i].s->test) != 0;
        if (!first)
            continue;
        struct test_fig t = {.test = pf[i].s->test};
        rc = gather(&t, pf, n);
        t.unit = gdr_set_unit(set, t.lat);
        if (!rc && ft) {
            const char *kind = t.lat ? "latency" : "bandwidth";
            figure_tsv(ft, kind, &t, t.s, t.ns);
            if (t.np)
                figure_tsv(ft, "speedup", &t, t.p, t.np);
            figure_tsv(ft, "cpu", &t, t.s, t.ns);
            if (t.anylimit)
                figure_tsv(ft, "limit", &t, t.s, t.ns);
            draw_test(gp, &t, title, true);
            fprintf(o, "%s/%s-%s.png %s/%s-%s.svg\n", dir, kind, t.test, dir, kind, t.test);
            if (t.np)
                fprintf(o, "%s/speedup-%s.png %s/speedup-%s.svg\n", dir, t.test, dir, t.test);
            fprintf(o, "%s/cpu-%s.png %s/cpu-%s.svg\n", dir, t.test, dir, t.test);
            if (t.anylimit)
                fprintf(o, "%s/limit-%s.png %s/limit-%s.svg\n", dir, t.test, dir, t.test);
        }
        if (!rc)
            draw_test(gp, &t, title, false);
        *any_speedup |= t.np > 0;
        free(t.s);
        free(t.p);
        free(t.sizes);
    }
    return rc;
}

int gdr_plot_svg(const struct gdr_set *set, const char *dir, FILE *gp, const char *title)
{
    struct pfile *pf = NULL;
    size_t n = 0;
    bool any = false;
    if (write_data(set, dir, NULL, &pf, &n))
        return -1;
    int rc = draw_all(gp, set, pf, n, dir, title, NULL, NULL, &any);
    free(pf);
    return rc;
}

int gdr_plot(const struct gdr_set *set, const char *dir, const char *title, const char *src)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.tsv", dir);
    FILE *index = fopen(path, "w");
    if (!index)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    struct pfile *pf = NULL;
    size_t n = 0;
    int rc = write_data(set, dir, index, &pf, &n);
    if (fclose(index) && !rc)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: write error", path);
    if (rc)
        return -1;
    struct gdr_atomic_file af[2];
    char *outl = NULL;
    size_t outlen = 0;
    FILE *o = open_memstream(&outl, &outlen);
    if (!o || gdr_fig_files_open(dir, "plots.gp", "figures.tsv", af)) {
        if (o)
            fclose(o);
        free(outl);
        free(pf);
        return o ? -1 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    FILE *gp = af[0].f;
    fprintf(gp, "# Generated by gdr-plot from: %s\n", src);
    bool any_speedup = false;
    rc = draw_all(gp, set, pf, n, dir, title, af[1].f, o, &any_speedup);
    fprintf(gp, "unset output\n");
    bool bad = fclose(o) != 0;
    free(pf);
    if (gdr_fig_files_close(af, !rc && !bad) || rc || bad) {
        free(outl);
        return rc || !bad ? -1 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    if (!any_speedup)
        fprintf(stderr, "gdr-plot: note: no test has both GDR on and GDR off runs: speed-up plots "
                        "skipped\n");
    const char *script = "plots.gp";
    rc = gdr_fig_draw(dir, &script, 1, NULL);
    if (!rc)
        fputs(outl, stdout);
    free(outl);
    return rc;
}
