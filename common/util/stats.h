/* stats.h - summary statistics of latency samples, and bandwidth maths.
 *
 * Percentiles interpolate linearly between the two nearest order statistics
 * (the method numpy and R call type 7), so p50 of an even count is the mean
 * of the middle pair. Standard deviation is the sample one (n - 1), computed
 * with Welford's method in double precision so nanosecond samples summed
 * over millions of iterations lose nothing. */
#ifndef GDR_STATS_H
#define GDR_STATS_H

#include <stddef.h>
#include <stdint.h>

struct gdr_lat_stats {
    uint64_t count;
    uint64_t dropped; /* samples left out before these (a CPU change); set by the caller */
    double min, max, mean, stdev; /* seconds */
    double median, p99, p999;     /* seconds */
};

/* Summarise count samples given in nanoseconds. Sorts samples in place.
 * Returns -1 when count is 0. */
int gdr_lat_stats_compute(uint64_t *samples_ns, size_t count, struct gdr_lat_stats *out);

/* The q-quantile (0 <= q <= 1) of sorted nanosecond samples, in seconds. */
double gdr_quantile_sorted(const uint64_t *sorted_ns, size_t count, double q);

/* The median of v[0..n), sorting v in place; NAN when n is 0. */
double gdr_median_inplace(double *v, size_t n);

/* Bandwidth in bytes per second; 0 when no time elapsed. */
double gdr_bandwidth(uint64_t bytes, uint64_t elapsed_ns);

/* Peak bandwidth: the run is cut into GDR_PEAK_WINDOWS segments at
 * completion-count milestones, and the peak is the best rate over two
 * adjacent segments (1/8 of the run). Spanning two segments keeps a burst
 * of completions reported together (as receivers see after a retransmit)
 * from passing for bandwidth. A run too short for two segments has no
 * peak of its own: the caller uses the average. */
#define GDR_PEAK_WINDOWS 16
/* Steadiness: the same run cut into GDR_STEADY_SLICES slices at fixed
 * completion counts (k x total / 10), each slice's bandwidth, and their
 * spread. A poll that completes past two marks at once merges their
 * slices. */
#define GDR_STEADY_SLICES 10
struct gdr_steady {
    unsigned slices; /* slices measured; 0: none (too short, or not tracked) */
    double min, max; /* bytes/s */
    double cv;       /* coefficient of variation: sample stdev / mean */
};
struct gdr_peak_tracker {
    uint64_t msg_bytes;           /* bytes per completed message */
    uint64_t total;               /* messages expected in the run */
    uint64_t next_mark;           /* completion count ending the current segment */
    uint64_t prev_count, prev_ns; /* the milestone before the last one */
    uint64_t last_count, last_ns; /* the last milestone */
    unsigned segments;            /* milestones passed */
    double peak;                  /* bytes/s */
    uint64_t slice_base, slice_mark, slice_count, slice_ns; /* steadiness: the open slice */
    unsigned nslices;
    double slice_bw[GDR_STEADY_SLICES];
};

void gdr_peak_start(struct gdr_peak_tracker *t, uint64_t msg_bytes, uint64_t total,
                    uint64_t start_count, uint64_t start_ns);
/* Call with the running completion count and the time it was reached. */
void gdr_peak_update(struct gdr_peak_tracker *t, uint64_t count, uint64_t now_ns);
/* The slices' spread, once the run is over. */
void gdr_peak_steadiness(const struct gdr_peak_tracker *t, struct gdr_steady *out);

#endif
