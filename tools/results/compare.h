/* compare.h - a run against a baseline, size by size.
 *
 * Bandwidth compares bw_avg_bytes_per_s (lower is worse), latency the
 * median (higher is worse). A size worse than its tolerance is a
 * regression when it is worse than twice the tolerance, or when a
 * neighbouring size of the same series is also beyond tolerance; a lone
 * size between one and two tolerances is reported as noise. */
#ifndef GDR_TOOLS_COMPARE_H
#define GDR_TOOLS_COMPARE_H

#include "collect.h"

struct gdr_compare_opts {
    double bw_tol, lat_tol; /* fractions: 0.05 = 5% */
    const char *markdown;   /* write a Markdown table here, or NULL */
};

/* Prints the table and a summary on stdout. Returns 0 clean, 1 regression,
 * 2 when the two sides do not match (after gdr_fail naming the mismatch). */
int gdr_compare(const struct gdr_set *base, const struct gdr_set *run,
                const struct gdr_compare_opts *opts);

#endif
