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
    bool subset;            /* the run may cover part of the baseline: the
                               baseline's other series are listed, not an error */
};

/* --bw-tol or --lat-tol (latency): a percentage, "5" or "5%", below 100
 * for bandwidth (a drop) and below 1000 for latency (a rise can be several
 * times the value). 0 and *out the fraction, or GDR_EXIT_USAGE after
 * "PROG: --bw-tol 'X' is not a percentage from 0 to below 100". */
int gdr_compare_tolerance(const char *prog, bool latency, const char *text, double *out);

/* Prints the table and a summary on stdout. Returns 0 clean, 1 regression,
 * 2 when the two sides do not match (after gdr_fail naming the mismatch). */
int gdr_compare(const struct gdr_set *base, const struct gdr_set *run,
                const struct gdr_compare_opts *opts);

/* The verdicts of one series, for other reports (gdr-report --compare). */
enum gdr_cmp_verdict {
    GDR_CMP_OK,
    GDR_CMP_BETTER,
    GDR_CMP_NOISE,
    GDR_CMP_REGRESSION,
    GDR_CMP_SUSPECT,  /* a NIC counted errors or retransmissions: not judged */
    GDR_CMP_NO_LIMIT, /* judged by % of limit, and the limit is unknown */
    GDR_CMP_VERDICTS
};
const char *gdr_cmp_verdict_name(enum gdr_cmp_verdict v);
/* Judge n sizes (ascending) of series s as gdr_compare does: base[i] and
 * run[i] are the compared values (bytes/s or seconds), suspect[i] (NULL:
 * none) a size that was not clean on either side, tol the series'
 * tolerance; change[i] = (run - base) / base. */
void gdr_compare_judge(const struct gdr_series *s, const double *base, const double *run,
                       const bool *suspect, size_t n, double tol, double *change,
                       enum gdr_cmp_verdict *v);

#endif
