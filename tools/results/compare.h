/* compare.h - a run against a baseline, size by size.
 *
 * Bandwidth compares bw_avg_bytes_per_s (lower is worse), latency the
 * median (higher is worse). A size worse than its tolerance is a
 * regression when it is worse than twice the tolerance, or when a
 * neighbouring size of the same series is also beyond tolerance; a lone
 * size between one and two tolerances is reported as noise.
 *
 * A size whose NIC counted errors or retransmissions (clean: false, in
 * the run or the baseline) is suspect: it is flagged and not judged, and
 * it is no neighbour of a regression. With by_limit, bandwidth compares
 * pct_of_limit instead (runs on different testbeds); a size whose limit
 * is unknown on either side is reported as such. */
#ifndef GDR_TOOLS_COMPARE_H
#define GDR_TOOLS_COMPARE_H

#include "collect.h"

struct gdr_compare_opts {
    double bw_tol, lat_tol; /* fractions: 0.05 = 5% */
    const char *markdown;   /* write a Markdown table here, or NULL */
    bool by_limit;          /* bandwidth by % of the path's limit */
};

/* Prints the table and a summary on stdout. Returns 0 clean, 1 regression,
 * 2 when the two sides do not match (after gdr_fail naming the mismatch). */
int gdr_compare(const struct gdr_set *base, const struct gdr_set *run,
                const struct gdr_compare_opts *opts);

#endif
