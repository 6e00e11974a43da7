/* history_stats.c - rolling baselines, robust z-scores and step detection
 * for gdr-history (the method and its defaults: history_stats.h). */
#include "config.h"

#include "history_stats.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1 / Phi^-1(3/4): MAD to standard deviation for normal noise. */
#define MAD_TO_SIGMA 1.4826
/* Standard error of a median over that of a mean, normal noise: sqrt(pi/2). */
#define MEDIAN_SE 1.2533
/* Noise floor, relative to the level: a flat series still has a scale. */
#define SIGMA_FLOOR 0.001

void hist_opts_default(struct hist_opts *o)
{
    o->window = HIST_DEFAULT_WINDOW;
    o->noise_window = HIST_DEFAULT_NOISE_WINDOW;
    o->min_points = HIST_DEFAULT_MIN_POINTS;
    o->min_seg = HIST_DEFAULT_MIN_SEG;
    o->z_min = HIST_DEFAULT_Z;
    o->rel_min = HIST_DEFAULT_REL;
    o->higher_better = true;
}

const char *hist_verdict_name(enum hist_verdict v)
{
    static const char *const names[] = {"ok",         "noise",      "improvement",
                                        "regression", "new series", "suspect"};
    return names[v];
}

/* Median of v[0..n), sorting the scratch copy tmp. */
static double median_into(const double *v, size_t n, double *tmp)
{
    if (n == 0)
        return NAN;
    memcpy(tmp, v, n * sizeof(*v));
    return gdr_median_inplace(tmp, n);
}

double hist_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *tmp = malloc(n * sizeof(*tmp));
    if (!tmp)
        return NAN;
    double m = median_into(v, n, tmp);
    free(tmp);
    return m;
}

double hist_noise(const double *v, size_t n)
{
    if (n < 3)
        return NAN;
    double *d = malloc(2 * (n - 1) * sizeof(*d));
    if (!d)
        return NAN;
    double *tmp = d + (n - 1);
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = v[i + 1] - v[i];
    double m = median_into(d, n - 1, tmp);
    for (size_t i = 0; i + 1 < n; i++)
        tmp[i] = fabs(d[i] - m);
    double mad = MAD_TO_SIGMA * median_into(tmp, n - 1, tmp);
    /* The MAD alone is a noisy scale (37% efficient): use it only to drop
     * the differences beyond 4 of it (a step, an outlier night), and take
     * the standard deviation of the rest, corrected for the cut (a normal
     * variable cut at 4 sd keeps 99.89% of its variance). */
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (fabs(d[i] - m) <= 4 * mad) {
            sum += (d[i] - m) * (d[i] - m);
            k++;
        }
    free(d);
    if (k < 2 || mad == 0)
        return mad / sqrt(2.0);
    return sqrt(sum / (double)(k - 1) / 0.9989) / sqrt(2.0);
}

static double floor_sigma(double sigma, double center)
{
    double f = SIGMA_FLOOR * fabs(center);
    return isnan(sigma) || sigma < f ? f : sigma;
}

/* A binary heap of doubles: max-heap when sign is 1, min-heap when -1. */
struct heap {
    double *a;
    size_t n;
    double sign, sum;
};

static void heap_push(struct heap *h, double x)
{
    size_t i = h->n++;
    h->sum += x;
    while (i > 0 && h->sign * h->a[(i - 1) / 2] < h->sign * x) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = x;
}

static double heap_pop(struct heap *h)
{
    double top = h->a[0], x = h->a[--h->n];
    h->sum -= top;
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->sign * h->a[c + 1] > h->sign * h->a[c])
            c++;
        if (h->sign * h->a[c] <= h->sign * x)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = x;
    return top;
}

/* For k = 1..n: the median of v[0..k) (or of v[n-k..n) read backwards when
 * step is -1) and the summed |x - median| over it, in O(n log n) with two
 * heaps: lo holds the smaller half, hi the larger. */
static void running_costs(const double *v, size_t n, int step, double *heaps, double *cost,
                          double *median)
{
    struct heap lo = {heaps, 0, 1, 0}, hi = {heaps + n, 0, -1, 0};
    for (size_t k = 0; k < n; k++) {
        double x = step > 0 ? v[k] : v[n - 1 - k];
        if (lo.n == 0 || x <= lo.a[0])
            heap_push(&lo, x);
        else
            heap_push(&hi, x);
        if (lo.n > hi.n + 1)
            heap_push(&hi, heap_pop(&lo));
        else if (hi.n > lo.n)
            heap_push(&lo, heap_pop(&hi));
        double m = lo.n > hi.n ? lo.a[0] : (lo.a[0] + hi.a[0]) / 2;
        median[k + 1] = m;
        cost[k + 1] = hi.sum - lo.sum + m * ((double)lo.n - (double)hi.n);
    }
    cost[0] = 0;
    median[0] = NAN;
}

struct seg_ctx {
    const double *v;
    const struct hist_opts *o;
    double sigma;
    double *heaps, *pre, *pre_med, *suf, *suf_med; /* scratch, n + 1 each (heaps 2n) */
    struct hist_step *out;
    size_t max, count;
};

static void add_step(struct seg_ctx *c, const struct hist_step *s)
{
    if (c->count >= c->max)
        return;
    size_t i = c->count++;
    while (i > 0 && c->out[i - 1].at > s->at) { /* keep them sorted by night */
        c->out[i] = c->out[i - 1];
        i--;
    }
    c->out[i] = *s;
}

static void segment(struct seg_ctx *c, size_t a, size_t b)
{
    size_t m = c->o->min_seg ? c->o->min_seg : 1, n = b - a;
    if (n < 2 * m)
        return;
    /* pre[k]: cost of v[a..a+k); suf[k]: cost of v[b-k..b). */
    running_costs(c->v + a, n, 1, c->heaps, c->pre, c->pre_med);
    running_costs(c->v + a, n, -1, c->heaps, c->suf, c->suf_med);
    double whole = c->pre[n], best_gain = 0, mb = 0, ma = 0;
    size_t best = 0;
    for (size_t t = a + m; t + m <= b; t++) {
        double gain = whole - c->pre[t - a] - c->suf[b - t];
        if (gain > best_gain) {
            best_gain = gain;
            best = t;
            mb = c->pre_med[t - a];
            ma = c->suf_med[b - t];
        }
    }
    if (!best || mb == 0)
        return;
    double se = MEDIAN_SE * c->sigma * sqrt(1.0 / (double)(best - a) + 1.0 / (double)(b - best));
    double sign = c->o->higher_better ? -1 : 1;
    struct hist_step s = {.at = best,
                          .before = mb,
                          .after = ma,
                          .rel = sign * (ma - mb) / mb,
                          .z = sign * (ma - mb) / se};
    if (fabs(s.rel) < c->o->rel_min || fabs(s.z) < c->o->z_min)
        return;
    add_step(c, &s);
    segment(c, a, best);
    segment(c, best, b);
}

size_t hist_steps(const double *v, size_t n, const struct hist_opts *o, struct hist_step *out,
                  size_t max)
{
    if (n < 2 * (o->min_seg ? o->min_seg : 1) || max == 0)
        return 0;
    double *scratch = malloc((6 * n + 4) * sizeof(*scratch));
    if (!scratch)
        return 0;
    struct seg_ctx c = {.v = v,
                        .o = o,
                        .out = out,
                        .max = max,
                        .heaps = scratch,
                        .pre = scratch + 2 * n,
                        .pre_med = scratch + 3 * n + 1,
                        .suf = scratch + 4 * n + 2,
                        .suf_med = scratch + 5 * n + 3};
    c.sigma = floor_sigma(hist_noise(v, n), median_into(v, n, c.pre));
    segment(&c, 0, n);
    free(scratch);
    return c.count;
}

static enum hist_verdict classify(double z, double rel, const struct hist_opts *o)
{
    if (z >= o->z_min && rel >= o->rel_min)
        return HV_REGRESSION;
    if (z <= -o->z_min && rel <= -o->rel_min)
        return HV_IMPROVEMENT;
    if (fabs(z) >= o->z_min || fabs(rel) >= o->rel_min)
        return HV_NOISE;
    return HV_OK;
}

void hist_judge_series(const double *v, size_t n, const struct hist_opts *o,
                       const struct hist_step *steps, size_t nsteps, struct hist_point *out)
{
    hist_judge_series_masked(v, n, o, steps, nsteps, NULL, out);
}

void hist_judge_series_masked(const double *v, size_t n, const struct hist_opts *o,
                              const struct hist_step *steps, size_t nsteps, const bool *suspect,
                              struct hist_point *out)
{
    double *base = malloc((2 * n + 1) * sizeof(*base)); /* good nights, then scratch */
    if (!base) {
        for (size_t i = 0; i < n; i++)
            out[i] = (struct hist_point){NAN, NAN, NAN, NAN, HV_NEW, false};
        return;
    }
    double *tmp = base + n;
    double sign = o->higher_better ? -1 : 1;
    size_t nbase = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        struct hist_point *p = &out[i];
        *p = (struct hist_point){NAN, NAN, NAN, NAN, HV_NEW, false};
        if (k < nsteps && steps[k].at == i) { /* a new level: a new baseline */
            nbase = 0;
            k++;
        }
        if (nbase >= o->min_points) {
            size_t w = nbase < o->window ? nbase : o->window;
            p->center = median_into(base + nbase - w, w, tmp);
            size_t nw = nbase < o->noise_window ? nbase : o->noise_window;
            p->sigma = floor_sigma(hist_noise(base + nbase - nw, nw), p->center);
            p->rel = p->center != 0 ? sign * (v[i] - p->center) / fabs(p->center) : 0;
            p->z = sign * (v[i] - p->center) / p->sigma;
            p->verdict = classify(p->z, p->rel, o);
            p->outlier = p->verdict == HV_REGRESSION || p->verdict == HV_IMPROVEMENT;
        }
        if (suspect && suspect[i]) { /* shown against the baseline, never judged */
            p->verdict = HV_SUSPECT;
            p->outlier = false;
            continue;
        }
        if (!p->outlier)
            base[nbase++] = v[i];
    }
    free(base);
    if (n == 0 || nsteps == 0)
        return;
    /* A recent step that still holds decides the newest night. */
    const struct hist_step *s = &steps[nsteps - 1];
    struct hist_point *last = &out[n - 1];
    if (s->at + o->window < n || s->before == 0 || last->verdict == HV_SUSPECT)
        return;
    double held = sign * (v[n - 1] - s->before) / fabs(s->before);
    if ((s->rel > 0 && held >= o->rel_min) || (s->rel < 0 && held <= -o->rel_min)) {
        last->verdict = s->rel > 0 ? HV_REGRESSION : HV_IMPROVEMENT;
        last->center = s->before;
        last->rel = held;
        last->z = s->z;
    }
}
