/* history_trend.c - write the trend data and script, then run gnuplot. */
#include "config.h"

#include "history_trend.h"
#include "history_check.h"
#include "error.h"
#include "svg.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

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

/* A gnuplot single-quoted string. */
static void gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void dat_num(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " NaN");
    else
        fprintf(f, " %.9g", v);
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

struct fig_facts {
    bool simulated, soft_roce_only, unclean;
    size_t first_run, last_run;
};

static int write_figure(FILE *gp, FILE *index, const struct hdb_testbed *t,
                        const struct hist_opts *o, const char *outdir, const size_t *which,
                        size_t n)
{
    const struct hdb_key *k = &t->series[which[0]].key;
    char name[256], raw[256], path[2048];
    snprintf(raw, sizeof(raw), "trend-%s-%s-%s-%s-%s%s", k->test, k->cplace, k->splace, k->creg,
             k->sreg, k->bidir ? "-bidir" : "");
    slug(raw, name, sizeof(name));
    snprintf(path, sizeof(path), "%s/%s.dat", outdir, name);
    FILE *dat = fopen(path, "w");
    if (!dat)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    struct fig_facts ff = {.soft_roce_only = true, .first_run = SIZE_MAX};
    struct hist_view views[HIST_TREND_MAX_SIZES];
    for (size_t j = 0; j < n; j++) {
        const struct hdb_series *s = &t->series[which[j]];
        if (hist_analyse(t, s, t->nruns - 1, o, &views[j])) {
            while (j-- > 0)
                hist_view_free(&views[j]);
            fclose(dat);
            return -1;
        }
        fprintf(dat, "# %s %llu B: date value baseline band_low band_high outlier not_clean\n",
                name, (unsigned long long)s->key.size);
        for (size_t i = 0; i < views[j].n; i++) {
            const struct hdb_point *p = &s->points[i];
            const struct hist_point *h = &views[j].pts[i];
            double c = h->center, w = fmax(o->z_min * h->sigma, o->rel_min * fabs(c));
            fprintf(dat, "%s", t->runs[p->run].date);
            dat_num(dat, hist_shown(&s->key, p->value));
            dat_num(dat, hist_shown(&s->key, c));
            dat_num(dat, hist_shown(&s->key, c - w));
            dat_num(dat, hist_shown(&s->key, c + w));
            dat_num(dat, h->outlier ? hist_shown(&s->key, p->value) : NAN);
            dat_num(dat, p->clean == 0 ? hist_shown(&s->key, p->value) : NAN);
            fputc('\n', dat);
            ff.unclean |= p->clean == 0;
            ff.simulated |= p->simulated;
            ff.soft_roce_only &= p->soft_roce;
            if (p->run < ff.first_run)
                ff.first_run = p->run;
            if (p->run + 1 > ff.last_run)
                ff.last_run = p->run + 1;
        }
        fprintf(dat, "\n\n");
    }
    if (fclose(dat))
        return gdr_fail(GDR_EXIT_USAGE, "%s: write error", path);

    const char *ylabel = hist_higher_better(k) ? "bandwidth [MB/s]" : "median latency [us]";
    fprintf(gp, "\n# %s\n", name);
    /* Nights a day or more apart show the date; lab runs minutes apart the time. */
    struct tm t0 = {0}, t1 = {0};
    bool close_runs = strptime(t->runs[ff.first_run].date, "%Y-%m-%dT%H:%M:%SZ", &t0) &&
                      strptime(t->runs[ff.last_run - 1].date, "%Y-%m-%dT%H:%M:%SZ", &t1) &&
                      timegm(&t1) - timegm(&t0) < 3 * 86400;
    fprintf(gp, "set format x %s\n", close_runs ? "\"%m-%d\\n%H:%M\"" : "'%m-%d'");
    fprintf(gp,
            "do for [term_i = 1:2] {\n"
            "  if (term_i == 2) { set terminal svg size 960,%zu dynamic noenhanced "
            "font 'sans,12'; set output '%s.svg' }\n",
            260 * n + 140, name);
    fprintf(gp, "  if (term_i == 1) { eval sprintf(png_fmt, png_h); set output '%s.png' }\n", name);
    fprintf(gp, "  set multiplot layout %zu,1 margins 0.1, 0.97, 0.14, %.2f spacing 0, 0.08 title ",
            n, ff.simulated || ff.soft_roce_only ? 0.85 : 0.89);
    char title[768];
    snprintf(title, sizeof(title), "%s %s-%s %s/%s%s: %s per night on %s", k->test, k->cplace,
             k->splace, k->creg, k->sreg, k->bidir ? " bidirectional" : "", k->metric, t->name);
    gq(gp, title);
    fprintf(gp, " font ',13'\n");
    /* Caption: runs, versions, method, and the lab's warnings. */
    char cap[1024];
    snprintf(cap, sizeof(cap), "%zu runs %.10s .. %.10s, gdrbench %s .. %s",
             ff.last_run - ff.first_run, t->runs[ff.first_run].date, t->runs[ff.last_run - 1].date,
             t->runs[ff.first_run].version, t->runs[ff.last_run - 1].version);
    fprintf(gp, "  set label 100 ");
    gq(gp, cap);
    fprintf(gp, " at screen 0.01, screen 0.04 left font ',9'\n");
    snprintf(cap, sizeof(cap),
             "band: baseline (median of the last %zu good nights) +/- the "
             "wider of %.1f sigma and %.1f%%; red: steps; grey dashed: annotations; circled: "
             "outlier nights; y: at least +/-10%% around the baseline",
             o->window, o->z_min, o->rel_min * 100);
    fprintf(gp, "  set label 103 ");
    gq(gp, cap);
    fprintf(gp, " at screen 0.01, screen 0.015 left font ',9'\n");
    fprintf(gp,
            "  set key at screen 0.97, screen %.3f right top horizontal maxrows 1 "
            "noopaque font ',9'\n",
            ff.simulated || ff.soft_roce_only ? 0.905 : 0.945);
    size_t warn = 0;
    if (ff.simulated) {
        fprintf(gp,
                "  set label 101 'GPU rows: CUDA driver test double (simulated) — not "
                "performance' at screen 0.01, screen %.3f left font ',10' tc rgb '#a00000'\n",
                1 - 0.04 - 0.025 * (double)warn++);
    }
    if (ff.soft_roce_only) {
        fprintf(gp,
                "  set label 102 'soft-RoCE under emulation — ratios only' at screen "
                "0.01, screen %.3f left font ',10' tc rgb '#a00000'\n",
                1 - 0.04 - 0.025 * (double)warn++);
    }
    for (size_t j = 0; j < n; j++) {
        const struct hdb_series *s = &t->series[which[j]];
        fprintf(gp, "  unset arrow\n");
        int a = 1;
        for (size_t i = 0; i < t->nnotes; i++) {
            fprintf(gp,
                    "  set arrow %d from '%s', graph 0 to '%s', graph 1 nohead dt 2 lw 1.5 "
                    "lc rgb '#707070'\n",
                    a++, t->notes[i].date, t->notes[i].date);
            if (j == 0) {
                fprintf(gp, "  set label %d ", 300 + (int)i);
                gq(gp, t->notes[i].text);
                fprintf(gp, " at '%s', graph 0.92 left offset 0.5,0 font ',9' tc rgb '#505050'\n",
                        t->notes[i].date);
            }
        }
        for (size_t i = 0; i < views[j].nsteps; i++) {
            const struct hist_step *st = &views[j].steps[i];
            const char *d = t->runs[s->points[st->at].run].date;
            fprintf(gp,
                    "  set arrow %d from '%s', graph 0 to '%s', graph 1 nohead lw 2 "
                    "lc rgb '#c00000'\n",
                    a++, d, d);
            fprintf(gp,
                    "  set label %d 'step %+.1f%%' at '%s', graph 0.08 left offset 0.5,0 "
                    "font ',9' tc rgb '#c00000'\n",
                    400 + (int)i, (st->after - st->before) / st->before * 100, d);
        }
        /* Honest axis: at least +-10 % around the newest baseline, so two
         * nights 1 % apart do not fill the panel as a cliff. */
        double lo = INFINITY, hi = -INFINITY, ref = NAN;
        for (size_t i = 0; i < views[j].n; i++) {
            const struct hist_point *h = &views[j].pts[i];
            double v = hist_shown(&s->key, s->points[i].value);
            double w = fmax(o->z_min * h->sigma, o->rel_min * fabs(h->center));
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            if (!isnan(h->center)) {
                lo = fmin(lo, hist_shown(&s->key, h->center - w));
                hi = fmax(hi, hist_shown(&s->key, h->center + w));
                ref = hist_shown(&s->key, h->center);
            }
        }
        if (isnan(ref))
            ref = hist_shown(&s->key, hist_median(views[j].v, views[j].n));
        double y0, y1;
        gdr_y_range(GDR_Y_AROUND, lo, hi, ref, 0.10, &y0, &y1);
        fprintf(gp, "  set yrange [%.9g:%.9g]\n", y0, y1);
        fprintf(gp, "  set ylabel '%llu B: %s'\n", (unsigned long long)s->key.size, ylabel);
        fprintf(gp, "  set xlabel %s\n", j + 1 == n ? "'night (UTC)'" : "''");
        fprintf(gp,
                "  plot '%s.dat' index %zu using 1:4:5 with filledcurves fc rgb '#cfe0f5' "
                "fs solid 0.6 noborder title 'no-alarm band', \\\n"
                "       '' index %zu using 1:3 with lines dt 2 lw 1.5 lc rgb '#3060a0' "
                "title 'baseline', \\\n"
                "       '' index %zu using 1:2 with linespoints pt 7 ps 0.5 lw 1.2 "
                "lc rgb '#202020' title 'measured', \\\n"
                "       '' index %zu using 1:6 with points pt 6 ps 1.8 lw 1.5 lc rgb '#c00000' "
                "title 'outlier'%s",
                name, j, j, j, j, ff.unclean ? ", \\\n" : "\n");
        /* Not-clean nights crossed, in every panel of a figure that has one. */
        if (ff.unclean)
            fprintf(gp,
                    "       '' index %zu using 1:7 with points pt 2 ps 1.8 lw 2 lc rgb '#000000' "
                    "title 'not clean (left out)'\n",
                    j);
        for (size_t i = 0; i < views[j].nsteps; i++)
            fprintf(gp, "  unset label %d\n", 400 + (int)i);
        /* The caption and warnings are drawn once, with the first panel. */
        if (j == 0)
            fprintf(gp, "  unset label 100; unset label 101; unset label 102; unset label 103; "
                        "unset key\n");
    }
    for (size_t i = 0; i < t->nnotes; i++)
        fprintf(gp, "  unset label %d\n", 300 + (int)i);
    fprintf(gp, "  unset multiplot\n  set key default\n  set autoscale y\n}\n");
    fprintf(index, "%s\t%s\t%s-%s%s\t%s/%s\t%s.dat\n", name, k->test, k->cplace, k->splace,
            k->bidir ? " bidir" : "", k->creg, k->sreg, name);
    for (size_t j = 0; j < n; j++)
        hist_view_free(&views[j]);
    return 0;
}

/* gnuplot -e "cd 'DIR'" DIR/trend.gp: the script names its files relative
 * to DIR, so it can be rerun from there. */
static int run_gnuplot(const char *outdir)
{
    char *abs = realpath(outdir, NULL);
    if (!abs)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", outdir, strerror(errno));
    char cd[4200], script[4200], log[4200];
    bool quote = strchr(abs, '\'') != NULL;
    snprintf(cd, sizeof(cd), "cd '%s'", abs);
    snprintf(script, sizeof(script), "%s/trend.gp", abs);
    snprintf(log, sizeof(log), "%s/trend.log", abs);
    free(abs);
    if (quote)
        return gdr_fail(GDR_EXIT_USAGE, "%s: a quote in the directory name", outdir);
    char *argv[] = {"gnuplot", "-e", cd, script, NULL};
    /* gnuplot's warnings (a range of one night) go to trend.log. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    pid_t pid;
    int err = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err)
        return gdr_fail(err == ENOENT ? GDR_EXIT_ENV : GDR_EXIT_RUN, "gnuplot: %s%s", strerror(err),
                        err == ENOENT ? " (apt-get install gnuplot-nox)" : "");
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        return gdr_fail(GDR_EXIT_RUN, "gnuplot failed on %s/trend.gp (see trend.log there)",
                        outdir);
    return 0;
}

int hist_trend(const struct hdb_testbed *t, const struct hist_opts *o, const char *outdir,
               const uint64_t *sizes, size_t nsizes)
{
    if (t->nruns == 0 || t->nseries == 0)
        return gdr_fail(GDR_EXIT_USAGE, "testbed %s has no points to draw", t->name);
    if (mkdir(outdir, 0777) && errno != EEXIST)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", outdir, strerror(errno));
    char path[2048];
    snprintf(path, sizeof(path), "%s/trend.gp", outdir);
    FILE *gp = fopen(path, "w");
    snprintf(path, sizeof(path), "%s/trend-figures.tsv", outdir);
    FILE *index = fopen(path, "w");
    if (!gp || !index) {
        if (gp)
            fclose(gp);
        if (index)
            fclose(index);
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot write there", outdir);
    }
    /* pngcairo draws antialiased text; the libgd png terminal is the fallback. */
    fprintf(gp,
            "# gdr-history trend: rerun with  cd %s && gnuplot trend.gp\n"
            "png_fmt = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? "
            "\"set terminal pngcairo size 960,%%d noenhanced font 'sans,12'\" : "
            "\"set terminal png size 960,%%d noenhanced font 'sans,12'\"\n"
            "set encoding utf8\nset xdata time\n"
            "set timefmt '%%Y-%%m-%%dT%%H:%%M:%%SZ'\n"
            "set grid\n"
            "set style fill transparent solid 0.6 noborder\n",
            outdir);
    int rc = 0;
    size_t figures = 0;
    for (size_t a = 0; a < t->nseries && rc == 0;) {
        size_t b = a + 1;
        while (b < t->nseries && same_figure(&t->series[a].key, &t->series[b].key))
            b++;
        size_t which[HIST_TREND_MAX_SIZES];
        size_t n = pick(t, a, b, sizes, nsizes, which);
        if (n) {
            /* The figure's height (a panel per size) for png_fmt. */
            fprintf(gp, "png_h = %zu\n", 260 * n + 140);
            rc = write_figure(gp, index, t, o, outdir, which, n);
            figures++;
        }
        a = b;
    }
    bool bad = fclose(gp) | fclose(index);
    if (rc)
        return -1;
    if (bad)
        return gdr_fail(GDR_EXIT_USAGE, "%s: write error", outdir);
    if (figures == 0)
        return gdr_fail(GDR_EXIT_USAGE, "none of the sizes asked for is in testbed %s", t->name);
    return run_gnuplot(outdir);
}
