/* compare.c - match a run's series to a baseline's and judge each size. */
#include "config.h"

#include "compare.h"
#include "error.h"
#include "figure.h"
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum verdict { V_OK, V_BETTER, V_NOISE, V_REGRESSION, V_SUSPECT, V_NO_LIMIT };
_Static_assert(V_REGRESSION == (int)GDR_CMP_REGRESSION && V_NOISE == (int)GDR_CMP_NOISE &&
                   V_BETTER == (int)GDR_CMP_BETTER && V_SUSPECT == (int)GDR_CMP_SUSPECT &&
                   V_NO_LIMIT == (int)GDR_CMP_NO_LIMIT,
               "compare.h's verdicts are these");
static const char *const verdict_name[] = {"ok",         "better",  "noise",
                                           "REGRESSION", "suspect", "no-limit"};

struct line {
    const struct gdr_series *s;
    uint64_t size;
    double base, run, change; /* change: (run - base) / base */
    double worse;             /* change signed so that > 0 is worse */
    bool suspect;             /* a NIC counted errors or retransmissions */
    enum verdict v;
};

static int match(const struct gdr_set *base, const struct gdr_set *run,
                 const struct gdr_compare_opts *o)
{
    char name[256];
    for (size_t k = 0; k < run->nseries; k++) {
        const struct gdr_series *r = &run->series[k], *b = gdr_set_find(base, r);
        gdr_series_name(r, name, sizeof(name));
        if (!b)
            return gdr_fail(GDR_EXIT_USAGE, "%s (%s) has no baseline", name, r->docs[0]->path);
        if (strcmp(r->metric, b->metric))
            return gdr_fail(GDR_EXIT_USAGE, "%s measures %s in the run but %s in the baseline",
                            name, r->metric, b->metric);
        for (size_t i = 0; i < r->nsizes; i++) {
            bool found = false;
            for (size_t j = 0; j < b->nsizes && !found; j++)
                found = b->rows[j].size == r->rows[i].size;
            if (!found)
                return gdr_fail(GDR_EXIT_USAGE,
                                "%s size %llu is in the run but not in the "
                                "baseline",
                                name, (unsigned long long)r->rows[i].size);
        }
        if (b->nsizes != r->nsizes)
            for (size_t j = 0; j < b->nsizes; j++) {
                bool found = false;
                for (size_t i = 0; i < r->nsizes && !found; i++)
                    found = b->rows[j].size == r->rows[i].size;
                if (!found)
                    return gdr_fail(GDR_EXIT_USAGE,
                                    "%s size %llu is in the baseline but not "
                                    "in the run",
                                    name, (unsigned long long)b->rows[j].size);
            }
    }
    for (size_t k = 0; k < base->nseries; k++) {
        const struct gdr_series *b = &base->series[k];
        if (gdr_set_find(run, b))
            continue;
        gdr_series_name(b, name, sizeof(name));
        if (!o->subset)
            return gdr_fail(GDR_EXIT_USAGE, "%s is in the baseline (%s) but not in the run", name,
                            b->docs[0]->path);
        printf("gdr-compare: not in the run, not compared: %s (%s)\n", name, b->docs[0]->path);
    }
    return 0;
}

static bool by_limit(const struct gdr_series *s, const struct gdr_compare_opts *o)
{
    return o->by_limit && !s->latency;
}

static double value(const struct gdr_series *s, const struct gdr_row *r,
                    const struct gdr_compare_opts *o)
{
    return s->latency ? r->lat[LAT_MEDIAN] : by_limit(s, o) ? r->pct_of_limit : r->bw_avg;
}

static void judge(struct line *l, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i].base > 0)
            l[i].change = (l[i].run - l[i].base) / l[i].base;
        else
            l[i].change = l[i].run > 0 ? INFINITY : 0;
        l[i].worse = l[i].s->latency ? l[i].change : -l[i].change;
        if (l[i].base <= 0 && l[i].run > 0 && !l[i].s->latency)
            l[i].worse = -INFINITY;
    }
    /* Suspect sizes and unknown limits are not judged, nor neighbours. */
#define BEYOND(k) (!l[k].suspect && !isnan(l[k].run) && !isnan(l[k].base) && l[k].worse > tol)
    for (size_t i = 0; i < n; i++) {
        bool beyond = BEYOND(i);
        bool prev = i > 0 && BEYOND(i - 1);
        bool next = i + 1 < n && BEYOND(i + 1);
        l[i].v = !beyond                                  ? (l[i].worse < -tol ? V_BETTER : V_OK)
                 : (l[i].worse > 2 * tol || prev || next) ? V_REGRESSION
                                                          : V_NOISE;
        if (isnan(l[i].run) || isnan(l[i].base))
            l[i].v = V_NO_LIMIT;
        if (l[i].suspect)
            l[i].v = V_SUSPECT;
    }
#undef BEYOND
}

/* unit: the comparison's one bandwidth and one latency unit (figure.h). */
static void print_line(FILE *f, const struct line *l, bool md, const struct gdr_compare_opts *o,
                       const struct gdr_unit *unit)
{
    char b[32], r[32], c[32], metric[24], sz[32];
    bool pct = by_limit(l->s, o);
    gdr_fmt_size(l->size, sz, sizeof(sz));
    struct gdr_unit u = pct ? (struct gdr_unit){"", 1} : unit[l->s->latency];
    gdr_fmt_num(l->base * u.scale, b, sizeof(b));
    gdr_fmt_num(l->run * u.scale, r, sizeof(r));
    if (isnan(l->change))
        snprintf(c, sizeof(c), "?");
    else if (isinf(l->change))
        snprintf(c, sizeof(c), "inf");
    else
        snprintf(c, sizeof(c), "%+.1f%%", l->change * 100);
    snprintf(metric, sizeof(metric), "%s%s",
             pct             ? "pct_of_limit"
             : l->s->latency ? "median_"
                             : "bw_avg_",
             u.name);
    if (md)
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", l->s->test, l->s->pair,
                l->s->gdr, l->s->reg, sz, metric, b, r, c,
                l->v == V_REGRESSION ? "**REGRESSION**"
                : l->v == V_SUSPECT  ? "**suspect**"
                                     : verdict_name[l->v]);
    else
        fprintf(f, "%-10s %-10s %-4s %-16s %10s %-12s %12s %12s %8s  %s\n", l->s->test, l->s->pair,
                l->s->gdr, l->s->reg, sz, metric, b, r, c, verdict_name[l->v]);
}

/* One line per series with sizes of verdict v, naming them. */
static void list_sizes(FILE *f, const struct line *l, size_t n, enum verdict v, const char *label,
                       const char *why, bool md)
{
    for (size_t i = 0; i < n; i++) {
        bool first = l[i].v == v;
        for (size_t j = 0; j < i && first; j++)
            first = !(l[j].s == l[i].s && l[j].v == v);
        if (!first)
            continue;
        char name[256];
        gdr_series_name(l[i].s, name, sizeof(name));
        fprintf(f, "%s%s: %s sizes", md ? "- " : "gdr-compare: ", label, name);
        const char *sep = " ";
        for (size_t j = i; j < n; j++)
            if (l[j].s == l[i].s && l[j].v == v) {
                char sz[32];
                gdr_fmt_size(l[j].size, sz, sizeof(sz));
                fprintf(f, "%s%s", sep, sz);
                sep = ", ";
            }
        fprintf(f, "%s\n", why);
    }
}

static void summary(FILE *f, const struct line *l, size_t n, const struct gdr_compare_opts *o,
                    bool md)
{
    size_t count[6] = {0};
    for (size_t i = 0; i < n; i++)
        count[l[i].v]++;
    list_sizes(f, l, n, V_REGRESSION, "regression", "", md);
    list_sizes(f, l, n, V_SUSPECT, "suspect",
               " (a NIC counted errors or retransmissions: not judged)", md);
    list_sizes(f, l, n, V_NO_LIMIT, "no limit", " (the path's limit is unknown: not judged)", md);
    fprintf(f,
            "%s%s: %zu regression%s, %zu noise, %zu better, %zu ok, %zu suspect%s (tolerance: "
            "bandwidth %g%%%s, latency %g%%)\n",
            md ? "\n" : "gdr-compare: ", count[V_REGRESSION] ? "REGRESSION" : "clean",
            count[V_REGRESSION], count[V_REGRESSION] == 1 ? "" : "s", count[V_NOISE],
            count[V_BETTER], count[V_OK], count[V_SUSPECT],
            count[V_NO_LIMIT] ? ", some without a limit" : "", o->bw_tol * 100,
            o->by_limit ? " of % of limit" : "", o->lat_tol * 100);
}

static int write_markdown(const char *path, const struct line *l, size_t n,
                          const struct gdr_compare_opts *o, const struct gdr_unit *unit)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    fprintf(f, "| test | placement | GDR | registration | size | metric | baseline | run "
               "| change | verdict |\n|---|---|---|---|---:|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++)
        print_line(f, &l[i], true, o, unit);
    summary(f, l, n, o, true);
    if (fclose(f))
        return gdr_fail(GDR_EXIT_USAGE, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

int gdr_compare_tolerance(const char *prog, bool latency, const char *text, double *out)
{
    double max = latency ? 1000 : 100, v;
    char num[32];
    size_t n = strlen(text);
    /* one '%' at the end is allowed */
    snprintf(num, sizeof(num), "%.*s", (int)(n && text[n - 1] == '%' ? n - 1 : n), text);
    if (n >= sizeof(num) || gdr_parse_real(num, 0, max, &v) || v >= max)
        return gdr_usage_error(prog, "%s '%s' is not a percentage from 0 to below %.0f",
                               latency ? "--lat-tol" : "--bw-tol", text, max);
    *out = v / 100;
    return 0;
}

int gdr_compare(const struct gdr_set *base, const struct gdr_set *run,
                const struct gdr_compare_opts *o)
{
    if (match(base, run, o))
        return 2;
    size_t n = 0;
    for (size_t k = 0; k < run->nseries; k++)
        n += run->series[k].nsizes;
    struct line *lines = calloc(n + 1, sizeof(*lines));
    if (!lines) {
        gdr_fail(GDR_EXIT_RUN, "out of memory");
        return 2;
    }
    n = 0;
    bool regression = false;
    for (size_t k = 0; k < run->nseries; k++) {
        const struct gdr_series *r = &run->series[k], *b = gdr_set_find(base, r);
        struct line *first = &lines[n];
        for (size_t i = 0; i < r->nsizes; i++) {
            struct line *l = &lines[n++];
            l->s = r;
            l->size = r->rows[i].size;
            l->run = value(r, &r->rows[i], o);
            l->suspect = r->rows[i].clean == 0;
            for (size_t j = 0; j < b->nsizes; j++)
                if (b->rows[j].size == l->size) {
                    l->base = value(b, &b->rows[j], o);
                    l->suspect |= b->rows[j].clean == 0;
                }
        }
        judge(first, r->nsizes, r->latency ? o->lat_tol : o->bw_tol);
        for (size_t i = 0; i < r->nsizes; i++)
            regression |= first[i].v == V_REGRESSION;
    }
    /* One unit of each quantity, from the largest value shown (figure.h). */
    double most[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        if (!by_limit(lines[i].s, o))
            most[lines[i].s->latency] =
                fmax(most[lines[i].s->latency], fmax(lines[i].base, lines[i].run));
    struct gdr_unit unit[2] = {gdr_unit_bw(most[0]), gdr_unit_lat(most[1])};
    printf("%-10s %-10s %-4s %-16s %10s %-12s %12s %12s %8s  %s\n", "test", "placement", "gdr",
           "registration", "size", "metric", "baseline", "run", "change", "verdict");
    for (size_t i = 0; i < n; i++)
        print_line(stdout, &lines[i], false, o, unit);
    summary(stdout, lines, n, o, false);
    int rc = regression ? 1 : 0;
    if (o->markdown && write_markdown(o->markdown, lines, n, o, unit))
        rc = 2;
    free(lines);
    return rc;
}

const char *gdr_cmp_verdict_name(enum gdr_cmp_verdict v)
{
    return verdict_name[v];
}

void gdr_compare_judge(const struct gdr_series *s, const double *base, const double *run,
                       const bool *suspect, size_t n, double tol, double *change,
                       enum gdr_cmp_verdict *v)
{
    struct line *l = calloc(n + 1, sizeof(*l));
    if (!l) {
        for (size_t i = 0; i < n; i++) {
            change[i] = NAN;
            v[i] = GDR_CMP_OK;
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        l[i].s = s;
        l[i].base = base[i];
        l[i].run = run[i];
        l[i].suspect = suspect && suspect[i];
    }
    judge(l, n, tol);
    for (size_t i = 0; i < n; i++) {
        change[i] = l[i].change;
        v[i] = (enum gdr_cmp_verdict)l[i].v;
    }
    free(l);
}
