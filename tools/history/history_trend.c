/* history_trend.c - write the trend data and script, then run gnuplot. */
#include "config.h"

#include "history_trend.h"
#include "history_check.h"
#include "atomic_file.h"
#include "error.h"
#include "figure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool same_figure(const struct hdb_key *a, const struct hdb_key *b)
{
    return !strcmp(a->test, b->test) && !strcmp(a->cplace, b->cplace) &&
           !strcmp(a->creg, b->creg) && !strcmp(a->splace, b->splace) &&
           !strcmp(a->sreg, b->sreg) && a->bidir == b->bidir && !strcmp(a->metric, b->metric);
}

/* A file-name-safe copy: letters, digits, '-', '_' and '.'. */
static void slug(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        out[n++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                                  (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'
                              ? *s
                              : '_');
    out[n] = '\0';
}

static void dat_num(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " NaN");
    else
        fprintf(f, " %.6g", v); /* six digits: a plot, not a record */
}

/* The series (indices first..last-1 of t->series) to draw: the chosen sizes. */
static size_t pick(const struct hdb_testbed *t, size_t first, size_t last, const uint64_t *sizes,
                   size_t nsizes, size_t *out)
{
    size_t n = 0, count = last - first;
    if (nsizes) {
        for (size_t i = first; i < last && n < HIST_TREND_MAX_SIZES; i++)
            for (size_t j = 0; j < nsizes; j++)
                if (t->series[i].key.size == sizes[j])
                    out[n++] = i;
        return n;
    }
    /* Loaded in ascending size order. */
    out[n++] = first;
    if (count > 2)
        out[n++] = first + count / 2;
    if (count > 1)
        out[n++] = last - 1;
    return n;
}

void hist_trend_lines(struct gdr_fig_line l[5], const char *data, int index, const char *measured,
                      bool tips)
{
    l[0] = (struct gdr_fig_line){data,  index, "1:4:5", GDR_FIG_BAND, "no-alarm band", GDR_C_BLUE,
                                 false, false, 0};
    l[1] = (struct gdr_fig_line){data, index, "1:3", GDR_FIG_LINES, "baseline", GDR_C_BLUE,
                                 true, false, 1.5};
    l[2] = (struct gdr_fig_line){data,
                                 index,
                                 tips ? "1:2:8" : "1:2",
                                 tips ? GDR_FIG_TIPS : GDR_FIG_LINESPOINTS,
                                 measured,
                                 GDR_C_BLACK,
                                 false,
                                 false,
                                 1.2};
    l[3] = (struct gdr_fig_line){data,  index, "1:6", GDR_FIG_RING, "outlier", GDR_C_VERMILLION,
                                 false, false, 0};
    l[4] = (struct gdr_fig_line){
        data, index, "1:7", GDR_FIG_CROSS, "not clean (left out)", GDR_C_BLACK, false, false, 0};
}

void hist_trend_caption(const struct hist_opts *o, char *band, char *marks, size_t len)
{
    snprintf(band, len,
             "Band: the baseline (median of the last %zu good nights) \xc2\xb1 the wider of %.1f "
             "noise sigmas and %.1f %%; y: at least \xc2\xb1"
             "10 %% around the baseline, or from zero.",
             o->window, o->z_min, o->rel_min * 100);
    snprintf(marks, len,
             "Vermillion lines: steps (where a change began); grey dashed: annotations; ringed: "
             "outliers; crossed: not clean (left out of baseline and steps).");
}

void hist_panel_free(struct hist_panel *p)
{
    free(p->vlines);
    free(p->steplab);
    p->vlines = NULL;
    p->steplab = NULL;
}

static bool less_than_3_days(const char *from, const char *to)
{
    struct tm t0 = {0}, t1 = {0};
    return strptime(from, "%Y-%m-%dT%H:%M:%SZ", &t0) && strptime(to, "%Y-%m-%dT%H:%M:%SZ", &t1) &&
           timegm(&t1) - timegm(&t0) < 3 * 86400;
}

int hist_panel_build(struct hist_panel *p, FILE *rows, const struct hdb_testbed *t,
                     const struct hist_view *v, const struct hist_opts *o, struct gdr_unit u,
                     bool note_labels, hist_tip_fn tip, void *ctx)
{
    const struct hdb_series *s = v->s;
    *p = (struct hist_panel){.soft_roce = v->n > 0, .first_run = SIZE_MAX};
    p->vlines = calloc(t->nnotes + v->nsteps + 1, sizeof(*p->vlines));
    p->steplab = calloc(v->nsteps + 1, sizeof(*p->steplab));
    if (!p->vlines || !p->steplab) {
        hist_panel_free(p);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    /* Honest axis: at least +-10 % around the newest baseline, so two
     * nights 1 % apart do not fill the panel as a cliff. */
    double lo = INFINITY, hi = -INFINITY, ref = NAN;
    for (size_t i = 0; i < v->n; i++) {
        const struct hdb_point *pt = &s->points[i];
        const struct hist_point *h = &v->pts[i];
        double c = h->center, w = fmax(o->z_min * h->sigma, o->rel_min * fabs(c));
        fprintf(rows, "%s", t->runs[pt->run].date);
        dat_num(rows, pt->value * u.scale);
        dat_num(rows, c * u.scale);
        dat_num(rows, (c - w) * u.scale);
        dat_num(rows, (c + w) * u.scale);
        dat_num(rows, h->outlier ? pt->value * u.scale : NAN);
        dat_num(rows, pt->clean == 0 ? pt->value * u.scale : NAN);
        if (tip)
            fprintf(rows, " %zu", tip(ctx, i));
        fputc('\n', rows);
        lo = fmin(lo, pt->value);
        hi = fmax(hi, pt->value);
        if (!isnan(c)) {
            lo = fmin(lo, c - w);
            hi = fmax(hi, c + w);
            ref = c;
        }
        p->unclean |= pt->clean == 0;
        p->simulated |= pt->simulated;
        p->soft_roce &= pt->soft_roce;
        p->first_run = pt->run < p->first_run ? pt->run : p->first_run;
        p->last_run = pt->run + 1 > p->last_run ? pt->run + 1 : p->last_run;
    }
    if (isnan(ref))
        ref = hist_median(v->v, v->n);
    gdr_y_range(GDR_Y_AROUND, lo * u.scale, hi * u.scale, ref * u.scale, 0.10, &p->y_lo, &p->y_hi);
    /* Nights a day or more apart show the date; lab runs minutes apart the time. */
    p->hours = v->n && less_than_3_days(t->runs[p->first_run].date, t->runs[p->last_run - 1].date);
    for (size_t i = 0; i < v->nsteps; i++) {
        const struct hist_step *st = &v->steps[i];
        snprintf(p->steplab[i], sizeof(p->steplab[i]), "step %+.1f%%",
                 (st->after - st->before) / st->before * 100);
        p->vlines[p->nvlines++] = (struct gdr_fig_vline){t->runs[s->points[st->at].run].date,
                                                         p->steplab[i], GDR_C_VERMILLION, false};
    }
    for (size_t i = 0; i < t->nnotes; i++)
        p->vlines[p->nvlines++] = (struct gdr_fig_vline){
            t->notes[i].date, note_labels ? t->notes[i].text : NULL, GDR_C_GREY, true};
    return 0;
}

/* One figure: its data (NAME.dat, in the figure's unit) and its panels,
 * written once for the PNG and once for the SVG. */
static int write_figure(FILE *gp, FILE *index, const struct hdb_testbed *t,
                        const struct hist_opts *o, const char *outdir, const size_t *which,
                        size_t n)
{
    const struct hdb_key *k = &t->series[which[0]].key;
    char name[256], raw[256], path[2048], file[280];
    snprintf(raw, sizeof(raw), "trend-%s-%s-%s-%s-%s%s", k->test, k->cplace, k->splace, k->creg,
             k->sreg, k->bidir ? "-bidir" : "");
    slug(raw, name, sizeof(name));
    snprintf(file, sizeof(file), "%s.dat", name);
    struct hist_view views[HIST_TREND_MAX_SIZES];
    struct hist_panel panels[HIST_TREND_MAX_SIZES];
    for (size_t j = 0; j < n; j++) {
        const struct hdb_series *s = &t->series[which[j]];
        if (hist_analyse(t, s, t->nruns - 1, o, &views[j])) {
            while (j-- > 0)
                hist_view_free(&views[j]);
            return -1;
        }
    }
    /* The history's unit, as its check, CSV and dashboard write it. */
    struct gdr_unit u = hist_unit(t, k);
    snprintf(path, sizeof(path), "%s/%s", outdir, file);
    FILE *dat = fopen(path, "w");
    char *body = NULL;
    size_t blen = 0, built = 0;
    FILE *b = open_memstream(&body, &blen);
    if (!dat || !b) {
        int e = errno;
        if (dat)
            fclose(dat);
        if (b)
            fclose(b);
        free(body);
        for (size_t j = 0; j < n; j++)
            hist_view_free(&views[j]);
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(e));
    }
    bool bad = false;
    for (size_t j = 0; j < n && !bad; j++, built++) {
        fprintf(dat, "# %s %llu B (%s): date value baseline band_low band_high outlier not_clean\n",
                name, (unsigned long long)views[j].s->key.size, u.name);
        bad = hist_panel_build(&panels[j], dat, t, &views[j], o, u, j == 0, NULL, NULL) != 0;
        fprintf(dat, "\n\n");
    }
    bad |= fclose(dat) != 0;
    /* The figure's caption speaks for all its panels. */
    struct hist_panel all = {.soft_roce = true, .first_run = SIZE_MAX};
    for (size_t j = 0; j < built && !bad; j++) {
        all.unclean |= panels[j].unclean;
        all.simulated |= panels[j].simulated;
        all.soft_roce &= panels[j].soft_roce;
        all.first_run = panels[j].first_run < all.first_run ? panels[j].first_run : all.first_run;
        all.last_run = panels[j].last_run > all.last_run ? panels[j].last_run : all.last_run;
    }
    /* One x format for the figure's panels, from all their nights. */
    all.hours = built && !bad &&
                less_than_3_days(t->runs[all.first_run].date, t->runs[all.last_run - 1].date);
    bool warn = all.simulated || all.soft_roce;
    char text[1024], marks[512];
    if (!bad) {
        fprintf(b,
                "set multiplot layout %zu,1 margins 0.1, 0.97, 0.16, %.2f spacing 0, 0.08 title ",
                n, warn ? 0.85 : 0.89);
        char series[200];
        hdb_key_name(k, series, sizeof(series));
        snprintf(text, sizeof(text), "%s: %s per night on %s", series, k->metric, t->name);
        gdr_fig_str(b, text);
        fprintf(b, " font \",13\"\n");
        /* Caption: what the marks mean, runs, versions, and the lab's warnings. */
        hist_trend_caption(o, text, marks, sizeof(marks));
        gdr_fig_caption(b, 0, marks, false);
        gdr_fig_caption(b, 1, text, false);
        snprintf(text, sizeof(text), "%zu runs %.10s .. %.10s, gdrbench %s .. %s",
                 all.last_run - all.first_run, t->runs[all.first_run].date,
                 t->runs[all.last_run - 1].date, t->runs[all.first_run].version,
                 t->runs[all.last_run - 1].version);
        gdr_fig_caption(b, 2, text, false);
        gdr_fig_lab_warnings(b, 3, all.simulated, all.soft_roce);
        fprintf(b,
                "set key at screen 0.97, screen %.3f right top horizontal maxrows 1 noopaque "
                "font \",9\"\n",
                warn ? 0.905 : 0.945);
    }
    for (size_t j = 0; j < built && !bad; j++) {
        char ylabel[96], sz[32];
        gdr_fmt_size(views[j].s->key.size, sz, sizeof(sz));
        snprintf(ylabel, sizeof(ylabel), "%s: %s [%s]", sz,
                 hist_higher_better(k) ? "bandwidth" : "median latency", u.name);
        struct gdr_fig_line lines[5];
        hist_trend_lines(lines, file, (int)j, "measured", false);
        gdr_fig_chart(b, &(struct gdr_fig_chart){.title = "",
                                                 .xlabel = j + 1 == n ? "night (UTC)" : "",
                                                 .ylabel = ylabel,
                                                 .x = GDR_X_TIME,
                                                 .x_hours = all.hours,
                                                 .y = GDR_Y_AROUND,
                                                 .y_lo = panels[j].y_lo,
                                                 .y_hi = panels[j].y_hi,
                                                 .hline = NAN,
                                                 .nlines = all.unclean ? 5 : 4,
                                                 .lines = lines,
                                                 .nvlines = panels[j].nvlines,
                                                 .vlines = panels[j].vlines});
        /* The caption, warnings and key are drawn once, with the first panel. */
        if (j == 0)
            fprintf(b, "unset label\nunset key\n");
    }
    fprintf(b, "unset multiplot\nset key default\n");
    bad |= fclose(b) != 0;
    for (int png = 1; png >= 0 && !bad; png--) {
        gdr_fig_output(gp, png, name, 960, (unsigned)(260 * n + 160));
        fputs(body, gp);
    }
    free(body);
    if (!bad)
        fprintf(index, "%s\t%s\t%s-%s%s\t%s/%s\t%s.dat\n", name, k->test, k->cplace, k->splace,
                k->bidir ? " bidir" : "", k->creg, k->sreg, name);
    for (size_t j = 0; j < n; j++) {
        if (j < built)
            hist_panel_free(&panels[j]);
        hist_view_free(&views[j]);
    }
    return bad ? gdr_fail(GDR_EXIT_USAGE, "%s: write error", path) : 0;
}

int hist_trend(const struct hdb_testbed *t, const struct hist_opts *o, const char *outdir,
               const uint64_t *sizes, size_t nsizes)
{
    if (t->nruns == 0 || t->nseries == 0)
        return gdr_fail(GDR_EXIT_USAGE, "testbed %s has no points to draw", t->name);
    if (mkdir(outdir, 0777) && errno != EEXIST)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", outdir, strerror(errno));
    struct gdr_atomic_file af[2];
    if (gdr_fig_files_open(outdir, "trend.gp", "trend-figures.tsv", af))
        return -1;
    FILE *gp = af[0].f, *index = af[1].f;
    fprintf(gp, "# gdr-history trend: rerun with  cd %s && gnuplot trend.gp\n", outdir);
    int rc = 0;
    size_t figures = 0;
    for (size_t a = 0; a < t->nseries && rc == 0;) {
        size_t b = a + 1;
        while (b < t->nseries && same_figure(&t->series[a].key, &t->series[b].key))
            b++;
        size_t which[HIST_TREND_MAX_SIZES];
        size_t n = pick(t, a, b, sizes, nsizes, which);
        if (n) {
            rc = write_figure(gp, index, t, o, outdir, which, n);
            figures++;
        }
        a = b;
    }
    if (gdr_fig_files_close(af, rc == 0) || rc)
        return -1;
    if (figures == 0)
        return gdr_fail(GDR_EXIT_USAGE, "none of the sizes asked for is in testbed %s", t->name);
    /* gnuplot's warnings (a range of one night) go to trend.log. */
    const char *script = "trend.gp";
    char path[2048];
    snprintf(path, sizeof(path), "%s/trend.log", outdir);
    if (truncate(path, 0) && errno != ENOENT)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    return gdr_fig_draw(outdir, &script, 1, path);
}
