/* history_stats.h - the statistics of gdr-history, pure (no I/O, no SQLite).
 *
 * A series is one value per night, oldest first. Each night is judged
 * against a rolling baseline of earlier good nights:
 *   center = median of the last `window` good nights (default 14);
 *   sigma  = the night-to-night noise of the last `noise_window` good
 *            nights (default 60): from the differences of consecutive
 *            nights, those within 4 MADs of their median, their standard
 *            deviation / sqrt(2) (hist_noise); a level change moves one
 *            difference only, so a step or a drift does not inflate it;
 *            floored at 0.1% of the center so a perfectly flat series
 *            cannot divide by zero;
 *   z      = (value - center) / sigma, rel = (value - center) / center,
 *            both signed so that > 0 is worse.
 * A night is a regression when z >= z_min AND rel >= rel_min (defaults 4
 * and 5%): significant and large enough to matter. One of the two alone is
 * "noise". A night that is beyond both but is not followed by a step is an
 * outlier: it stays out of later baselines.
 *
 * Steps: binary segmentation with a least-absolute-deviation (median) cost.
 * In a segment the split that lowers the summed |x - segment median| most
 * is kept when each side has at least `min_seg` nights (default 3: the
 * persistence rule, so one bad night cannot make a step), the medians of
 * the two sides differ by at least rel_min, and that difference is at least
 * z_min standard errors (1.2533 * sigma * sqrt(1/n1 + 1/n2), the standard
 * error of a difference of medians). Both sides are then searched again.
 * The split is the night the change started. */
#ifndef GDR_TOOLS_HISTORY_STATS_H
#define GDR_TOOLS_HISTORY_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct hist_opts {
    size_t window;       /* nights in the rolling baseline */
    size_t noise_window; /* nights the noise is estimated from */
    size_t min_points;   /* fewer good nights than this: a new series */
    size_t min_seg;      /* nights on each side of a step */
    double z_min;        /* robust z-score threshold */
    double rel_min;      /* relative threshold (0.05 = 5%) */
    bool higher_better;  /* bandwidth: true; latency: false */
};

#define HIST_DEFAULT_WINDOW 14
#define HIST_DEFAULT_NOISE_WINDOW 60
#define HIST_DEFAULT_MIN_POINTS 3
#define HIST_DEFAULT_MIN_SEG 3
#define HIST_DEFAULT_Z 4.0
#define HIST_DEFAULT_REL 0.05

void hist_opts_default(struct hist_opts *o);

/* Median of v[0..n) (v is not changed); NAN when n == 0. */
double hist_median(const double *v, size_t n);

/* The noise of v[0..n): the standard deviation of the consecutive
 * differences within 4 MADs of their median, / sqrt(2); NAN when n < 3. */
double hist_noise(const double *v, size_t n);

enum hist_verdict {
    HV_OK,
    HV_NOISE, /* beyond one threshold only */
    HV_IMPROVEMENT,
    HV_REGRESSION,
    HV_NEW,     /* too few good nights for a baseline */
    HV_SUSPECT, /* the NIC counted errors or retransmissions: not judged */
};
const char *hist_verdict_name(enum hist_verdict v);

struct hist_step {
    size_t at;            /* index of the first night of the new level */
    double before, after; /* medians of the two sides */
    double rel, z;        /* signed: > 0 is worse */
};

struct hist_point {
    double center, sigma; /* its baseline (NAN when new) */
    double z, rel;        /* signed: > 0 is worse (NAN when new) */
    enum hist_verdict verdict;
    bool outlier; /* beyond both thresholds and not a step */
};

/* Steps of v[0..n), at most max of them, sorted by night. Returns the count. */
size_t hist_steps(const double *v, size_t n, const struct hist_opts *o, struct hist_step *out,
                  size_t max);

/* Judge every night of v[0..n) against its own rolling baseline; steps
 * (from hist_steps) restart the baseline. out has n entries. The verdict of
 * the newest night also counts a step in the worse (better) direction that
 * started in the last `window` nights and still holds on the newest night:
 * regression (improvement) even when the baseline has caught up. */
void hist_judge_series(const double *v, size_t n, const struct hist_opts *o,
                       const struct hist_step *steps, size_t nsteps, struct hist_point *out);

/* The same, where suspect[i] (NULL: none) marks a night that is no good
 * measurement (not clean: the NIC counted errors or retransmissions). Such
 * a night is shown against the baseline of the good nights before it
 * (center, sigma, z, rel) but judged HV_SUSPECT, never an outlier, and it
 * joins no later baseline. Steps must be found over the good nights alone
 * (hist_steps on them), their `at` mapped back to indices into v. */
void hist_judge_series_masked(const double *v, size_t n, const struct hist_opts *o,
                              const struct hist_step *steps, size_t nsteps, const bool *suspect,
                              struct hist_point *out);

#endif
