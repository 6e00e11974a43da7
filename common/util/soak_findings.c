/* soak_findings.c - dips, trend, counters and throttling of a soak's
 * interval stream (soak_findings.h). */
#include "config.h"

#include "soak_findings.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gdr_soak_counter_name(enum gdr_soak_counter c)
{
    static const char *const names[GDR_SOAK_COUNTERS] = {"errors", "retransmissions", "congestion",
                                                         "link_downed", "symbol_errors"};
    return (unsigned)c < GDR_SOAK_COUNTERS ? names[c] : "?";
}

const char *gdr_soak_finding_kind_name(enum gdr_soak_finding_kind k)
{
    static const char *const names[] = {"dip", "trend", "counter", "throttle", "ecc"};
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

double gdr_soak_median(const struct gdr_soak_series *s)
{
    double *v = s->n ? malloc(s->n * sizeof(*v)) : NULL;
    if (!v)
        return NAN;
    for (size_t i = 0; i < s->n; i++)
        v[i] = s->p[i].value;
    double m = gdr_median_inplace(v, s->n);
    free(v);
    return m;
}

/* An interval's start: its own, not the previous one's end (the interval
 * an outage cut short runs again once it is over). */
static double start_of(const struct gdr_soak_series *s, size_t i)
{
    return s->p[i].start_s;
}

/* The points the slope is fitted to: each a block's median time and value
 * (a block is one interval up to GDR_SOAK_SLOPE_POINTS intervals). */
static size_t blocks(const struct gdr_soak_series *s, double *t, double *v)
{
    size_t nb = s->n < GDR_SOAK_SLOPE_POINTS ? s->n : GDR_SOAK_SLOPE_POINTS;
    double *tmp = malloc((s->n / nb + 1) * sizeof(*tmp) * 2);
    if (!tmp)
        return 0;
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * s->n / nb, hi = (b + 1) * s->n / nb, k = 0;
        for (size_t i = lo; i < hi; i++, k++) {
            tmp[k] = s->p[i].value;
            tmp[s->n / nb + 1 + k] = s->p[i].t_s;
        }
        v[b] = gdr_median_inplace(tmp, k);
        t[b] = gdr_median_inplace(tmp + s->n / nb + 1, k);
    }
    free(tmp);
    return nb;
}

/* Theil-Sen over the blocks (the median of the pairwise slopes), and
 * the Mann-Kendall statistic of the same pairs as a normal score: S, the
 * pairs that rose less those that fell, over its standard deviation with
 * no trend, sqrt(n (n - 1) (2n + 5) / 18). */
static double fit(const struct gdr_soak_series *s, double *z, size_t *npoints)
{
    double slope = NAN;
    *z = 0;
    *npoints = 0;
    if (s->n < 2)
        return NAN;
    size_t cap = s->n < GDR_SOAK_SLOPE_POINTS ? s->n : GDR_SOAK_SLOPE_POINTS;
    double *t = malloc(cap * sizeof(*t)), *v = malloc(cap * sizeof(*v));
    double *pairs = malloc(cap * (cap - 1) / 2 * sizeof(*pairs));
    size_t nb = t && v && pairs ? blocks(s, t, v) : 0, np = 0;
    double score = 0;
    for (size_t i = 0; i < nb; i++)
        for (size_t j = i + 1; j < nb; j++) {
            score += (v[j] > v[i]) - (v[j] < v[i]);
            if (t[j] != t[i])
                pairs[np++] = (v[j] - v[i]) / (t[j] - t[i]);
        }
    if (np) {
        slope = gdr_median_inplace(pairs, np);
        double n = (double)nb;
        *z = score / sqrt(n * (n - 1) * (2 * n + 5) / 18);
        *npoints = nb;
    }
    free(t);
    free(v);
    free(pairs);
    return slope;
}

double gdr_soak_slope(const struct gdr_soak_series *s)
{
    double z;
    size_t np;
    return fit(s, &z, &np);
}

static void list_interval(struct gdr_soak_finding *f, size_t i)
{
    if (f->listed < GDR_SOAK_LISTED_INTERVALS)
        f->intervals[f->listed++] = i;
    f->nintervals++;
}

/* Add f when there is room; count it either way. */
static void add(struct gdr_soak_finding *out, size_t max, long *n, const struct gdr_soak_finding *f)
{
    if ((size_t)*n < max)
        out[*n] = *f;
    (*n)++;
}

/* Interval i (> 0) follows interval i - 1 with no outage between them.
 * An outage ends a dip or a throttled stretch: it is a finding of its
 * own, and a stretch across it would claim the outage's time, and join a
 * slow interval before the link went down to a slowdown after it. */
static bool follows(const struct gdr_soak_series *s, size_t i)
{
    return s->p[i].start_s <= s->p[i - 1].t_s;
}

/* A dip: below dip_pct % of the median (bandwidth), or a latency above
 * the median by as much (median / (dip_pct / 100)). */
static bool is_dip(const struct gdr_soak_series *s, double v, double median)
{
    double frac = s->dip_pct / 100.0;
    return s->latency ? v * frac > median : v < median * frac;
}

static void find_dips(const struct gdr_soak_series *s, double median, struct gdr_soak_finding *out,
                      size_t max, long *n)
{
    for (size_t i = 0; i < s->n;) {
        if (!is_dip(s, s->p[i].value, median)) {
            i++;
            continue;
        }
        struct gdr_soak_finding f = {.kind = GDR_FINDING_DIP, .first = i, .reference = median};
        f.value = s->p[i].value;
        for (; i < s->n && is_dip(s, s->p[i].value, median) && (i == f.first || follows(s, i));
             i++) {
            double v = s->p[i].value;
            if (s->latency ? v > f.value : v < f.value)
                f.value = v;
            list_interval(&f, i);
            f.last = i;
        }
        f.start_s = start_of(s, f.first);
        f.end_s = s->p[f.last].t_s;
        f.pct = 100.0 * f.value / median;
        add(out, max, n, &f);
    }
}

/* The trend: the Theil-Sen slope carried across the soak. Named when that
 * change goes the bad way (bandwidth down, latency up) by more than
 * GDR_SOAK_TREND_PCT % of the median, and Mann-Kendall finds the order
 * itself unlikely without a trend (|z| > GDR_SOAK_TREND_Z). 5 % is
 * gdr-compare's bandwidth tolerance: a healthy link drifts less over a
 * soak, a part that heats up or throttles more. z > 3.09 is a one-sided
 * 0.1 % chance on noise alone, so a clean soak does not find slopes in
 * its noise (the unit test runs hundreds of seeded noisy streams); both
 * are rank statistics, so a dip moves neither much. */
static void find_trend(const struct gdr_soak_series *s, double median, struct gdr_soak_finding *out,
                       size_t max, long *n)
{
    if (s->n < GDR_SOAK_TREND_MIN_POINTS || !(median > 0))
        return;
    double z;
    size_t np;
    double slope = fit(s, &z, &np);
    if (isnan(slope) || np < 2)
        return;
    double span = s->p[s->n - 1].t_s - start_of(s, 0);
    double change = slope * span;
    double bad = s->latency ? change : -change;
    double bad_z = s->latency ? z : -z;
    if (!(bad > median * GDR_SOAK_TREND_PCT / 100.0 && bad_z > GDR_SOAK_TREND_Z))
        return;
    struct gdr_soak_finding f = {.kind = GDR_FINDING_TREND, .first = 0, .last = s->n - 1};
    f.start_s = start_of(s, 0);
    f.end_s = s->p[s->n - 1].t_s;
    f.value = change;
    f.reference = median;
    f.pct = 100.0 * change / median;
    add(out, max, n, &f);
}

/* The intervals in which what f counts (a NIC counter class, or the GPU
 * ends' ECC errors) rose: one finding, with the sum. */
static void find_rise(const struct gdr_soak_series *s, struct gdr_soak_finding f,
                      struct gdr_soak_finding *out, size_t max, long *n)
{
    for (size_t i = 0; i < s->n; i++) {
        uint64_t d = f.kind == GDR_FINDING_ECC ? s->p[i].ecc : s->p[i].counters[f.counter];
        if (!d)
            continue;
        if (!f.nintervals)
            f.first = i;
        f.last = i;
        f.total += d;
        list_interval(&f, i);
    }
    if (!f.nintervals)
        return;
    f.start_s = start_of(s, f.first);
    f.end_s = s->p[f.last].t_s;
    add(out, max, n, &f);
}

/* Congestion is recorded in every line but is no finding: a loaded
 * link is marked, as a row stays clean with congestion (counters.h). */
static void find_counters(const struct gdr_soak_series *s, struct gdr_soak_finding *out, size_t max,
                          long *n)
{
    for (int c = 0; c < GDR_SOAK_COUNTERS; c++)
        if (c != GDR_SOAK_CONGESTION)
            find_rise(s, (struct gdr_soak_finding){.kind = GDR_FINDING_COUNTER, .counter = c}, out,
                      max, n);
}

static void find_throttle(const struct gdr_soak_series *s, struct gdr_soak_finding *out, size_t max,
                          long *n)
{
    for (size_t i = 0; i < s->n;) {
        if (!s->p[i].throttled) {
            i++;
            continue;
        }
        struct gdr_soak_finding f = {.kind = GDR_FINDING_THROTTLE, .first = i};
        for (; i < s->n && s->p[i].throttled && (i == f.first || follows(s, i)); i++) {
            list_interval(&f, i);
            f.last = i;
        }
        f.start_s = start_of(s, f.first);
        f.end_s = s->p[f.last].t_s;
        add(out, max, n, &f);
    }
}

long gdr_soak_findings(const struct gdr_soak_series *s, struct gdr_soak_finding *out, size_t max)
{
    long n = 0;
    if (!s->n)
        return 0;
    double median = gdr_soak_median(s);
    if (isnan(median))
        return -1;
    find_dips(s, median, out, max, &n);
    find_trend(s, median, out, max, &n);
    find_counters(s, out, max, &n);
    find_throttle(s, out, max, &n);
    find_rise(s, (struct gdr_soak_finding){.kind = GDR_FINDING_ECC}, out, max, &n);
    return n;
}

/* "3" or "3-5" */
static const char *span_text(const struct gdr_soak_finding *f, char *buf, size_t len)
{
    if (f->first == f->last)
        snprintf(buf, len, "interval %zu", f->first);
    else
        snprintf(buf, len, "intervals %zu-%zu", f->first, f->last);
    return buf;
}

/* "intervals 3, 7, 9 ..." (the listed ones; "..." when there were more) */
static const char *list_text(const struct gdr_soak_finding *f, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "interval%s", f->nintervals == 1 ? "" : "s");
    for (size_t i = 0; i < f->listed && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", i ? ", " : " ", f->intervals[i]);
    if (f->nintervals > f->listed && used < len)
        snprintf(buf + used, len - used, " ...");
    return buf;
}

void gdr_soak_finding_text(const struct gdr_soak_finding *f, bool latency, char *buf, size_t len)
{
    char span[160];
    span_text(f, span, sizeof(span));
    switch (f->kind) {
    case GDR_FINDING_DIP:
        snprintf(buf, len, "dip: %s (%.0f-%.0f s): %s %.4g %s, %.1f %% of the soak's median %.4g",
                 span, f->start_s, f->end_s, latency ? "latency" : "bandwidth",
                 latency ? f->value * 1e6 : f->value * 1e-6, latency ? "us" : "MB/s", f->pct,
                 latency ? f->reference * 1e6 : f->reference * 1e-6);
        return;
    case GDR_FINDING_TREND:
        snprintf(buf, len, "trend: %s %s by %.1f %% of the median across the soak (0-%.0f s)",
                 latency ? "latency" : "bandwidth", latency ? "rose" : "fell", fabs(f->pct),
                 f->end_s);
        return;
    case GDR_FINDING_COUNTER:
        snprintf(buf, len, "counter: %s rose by %llu in %zu interval%s (%.0f-%.0f s): %s",
                 gdr_soak_counter_name(f->counter), (unsigned long long)f->total, f->nintervals,
                 f->nintervals == 1 ? "" : "s", f->start_s, f->end_s,
                 list_text(f, span, sizeof(span)));
        return;
    case GDR_FINDING_THROTTLE:
        snprintf(buf, len, "throttle: a GPU end reported a slowdown in %s (%.0f-%.0f s)", span,
                 f->start_s, f->end_s);
        return;
    case GDR_FINDING_ECC:
        snprintf(buf, len,
                 "ecc: the GPU ends' uncorrected ECC errors rose by %llu in %zu interval%s "
                 "(%.0f-%.0f s): %s",
                 (unsigned long long)f->total, f->nintervals, f->nintervals == 1 ? "" : "s",
                 f->start_s, f->end_s, list_text(f, span, sizeof(span)));
        return;
    }
    snprintf(buf, len, "?");
}
