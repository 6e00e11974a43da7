#include "config.h"

#include "stats.h"
#include "order.h"

#include <math.h>
#include <stdlib.h>

double gdr_quantile_sorted(const uint64_t *sorted_ns, size_t count, double q)
{
    if (count == 0)
        return 0;
    if (q <= 0)
        return sorted_ns[0] * 1e-9;
    if (q >= 1)
        return sorted_ns[count - 1] * 1e-9;
    double pos = q * (double)(count - 1);
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    double lo_v = (double)sorted_ns[lo];
    double hi_v = lo + 1 < count ? (double)sorted_ns[lo + 1] : lo_v;
    return (lo_v + (hi_v - lo_v) * frac) * 1e-9;
}

int gdr_lat_stats_compute(uint64_t *samples_ns, size_t count, struct gdr_lat_stats *out)
{
    if (count == 0)
        return -1;
    qsort(samples_ns, count, sizeof(*samples_ns), gdr_cmp_u64);

    double mean = 0, m2 = 0;
    for (size_t i = 0; i < count; i++) {
        double x = (double)samples_ns[i];
        double delta = x - mean;
        mean += delta / (double)(i + 1);
        m2 += delta * (x - mean);
    }
    out->count = count;
    out->min = samples_ns[0] * 1e-9;
    out->max = samples_ns[count - 1] * 1e-9;
    out->mean = mean * 1e-9;
    out->stdev = count > 1 ? sqrt(m2 / (double)(count - 1)) * 1e-9 : 0;
    out->median = gdr_quantile_sorted(samples_ns, count, 0.5);
    out->p99 = gdr_quantile_sorted(samples_ns, count, 0.99);
    out->p999 = gdr_quantile_sorted(samples_ns, count, 0.999);
    return 0;
}

double gdr_median_inplace(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), gdr_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double gdr_bandwidth(uint64_t bytes, uint64_t elapsed_ns)
{
    return elapsed_ns ? (double)bytes * 1e9 / (double)elapsed_ns : 0;
}

static uint64_t window_len(uint64_t total)
{
    uint64_t w = total / GDR_PEAK_WINDOWS;
    return w ? w : 1;
}

void gdr_peak_start(struct gdr_peak_tracker *t, uint64_t msg_bytes, uint64_t total,
                    uint64_t start_count, uint64_t start_ns)
{
    t->msg_bytes = msg_bytes;
    t->total = total;
    t->prev_count = t->last_count = start_count;
    t->prev_ns = t->last_ns = start_ns;
    t->next_mark = start_count + window_len(total);
    t->segments = 0;
    t->peak = 0;
    t->slice_base = start_count;
    t->slice_mark = total >= GDR_STEADY_SLICES ? start_count + total / GDR_STEADY_SLICES
                                               : UINT64_MAX; /* too short: no slices */
    t->slice_count = start_count;
    t->slice_ns = start_ns;
    t->nslices = 0;
}

static void slice_update(struct gdr_peak_tracker *t, uint64_t count, uint64_t now_ns)
{
    if (count < t->slice_mark || now_ns <= t->slice_ns || t->nslices >= GDR_STEADY_SLICES)
        return;
    t->slice_bw[t->nslices++] =
        gdr_bandwidth((count - t->slice_count) * t->msg_bytes, now_ns - t->slice_ns);
    t->slice_count = count;
    t->slice_ns = now_ns;
    /* The next mark past count: fixed positions, so a poll that ends a
     * slice a little late does not shift the later ones. */
    uint64_t k = (count - t->slice_base) * GDR_STEADY_SLICES / t->total + 1;
    t->slice_mark = t->slice_base + (k * t->total + GDR_STEADY_SLICES - 1) / GDR_STEADY_SLICES;
}

void gdr_peak_steadiness(const struct gdr_peak_tracker *t, struct gdr_steady *out)
{
    out->slices = t->nslices;
    out->min = out->max = out->cv = 0;
    if (t->nslices < 2) {
        out->slices = 0; /* one slice says nothing about steadiness */
        return;
    }
    double mean = 0, m2 = 0;
    out->min = out->max = t->slice_bw[0];
    for (unsigned i = 0; i < t->nslices; i++) {
        double x = t->slice_bw[i], delta = x - mean;
        mean += delta / (i + 1);
        m2 += delta * (x - mean);
        out->min = x < out->min ? x : out->min;
        out->max = x > out->max ? x : out->max;
    }
    out->cv = mean > 0 ? sqrt(m2 / (t->nslices - 1)) / mean : 0;
}

void gdr_peak_update(struct gdr_peak_tracker *t, uint64_t count, uint64_t now_ns)
{
    slice_update(t, count, now_ns);
    if (count < t->next_mark || now_ns <= t->last_ns)
        return;
    if (++t->segments >= 2) {
        double bw = gdr_bandwidth((count - t->prev_count) * t->msg_bytes, now_ns - t->prev_ns);
        if (bw > t->peak)
            t->peak = bw;
    }
    t->prev_count = t->last_count;
    t->prev_ns = t->last_ns;
    t->last_count = count;
    t->last_ns = now_ns;
    t->next_mark = count + window_len(t->total);
}
