/* soak_findings.h - what a soak found, judged from its interval stream
 * alone: dips (an interval well below the soak's own median), a trend
 * (bandwidth falling or latency rising across the soak, by a robust
 * slope), NIC counters that rose, GPU throttling and GPU uncorrected ECC
 * errors that rose. Pure: the harness
 * feeds it one point per interval and renders what it returns; the unit
 * test feeds it synthetic streams. */
#ifndef GDR_SOAK_FINDINGS_H
#define GDR_SOAK_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The NIC counter classes a soak line reports: counters.c's classes, with
 * link_downed and symbol_error taken out of "errors" (a flapping link and
 * a bad cable are what a burn-in hunts). */
enum gdr_soak_counter {
    GDR_SOAK_ERRORS,
    GDR_SOAK_RETRANSMISSIONS,
    GDR_SOAK_CONGESTION,
    GDR_SOAK_LINK_DOWNED,
    GDR_SOAK_SYMBOL_ERRORS,
    GDR_SOAK_COUNTERS,
};
/* "errors", "retransmissions", "congestion", "link_downed", "symbol_errors" */
const char *gdr_soak_counter_name(enum gdr_soak_counter c);

/* One interval. */
struct gdr_soak_point {
    double start_s; /* seconds since the soak began, as the interval started */
    double t_s;     /* ... and as it ended (an outage between two: a gap) */
    double value;   /* bytes/s (bandwidth) or seconds (latency: the median) */
    uint64_t counters[GDR_SOAK_COUNTERS]; /* both ends' deltas, summed */
    bool throttled;                       /* a GPU end reported a slowdown reason */
    uint64_t ecc; /* the GPU ends' new uncorrected ECC errors over the interval */
};

#define GDR_SOAK_DIP_PCT_DEFAULT 90.0
/* A trend is named when the slope, carried across the soak, moves the
 * value by more than this share of the median, and the Mann-Kendall score
 * of its order is above GDR_SOAK_TREND_Z (soak_findings.c says why). */
#define GDR_SOAK_TREND_PCT 5.0
#define GDR_SOAK_TREND_Z 3.09
#define GDR_SOAK_TREND_MIN_POINTS 8

enum gdr_soak_finding_kind {
    GDR_FINDING_DIP,
    GDR_FINDING_TREND,
    GDR_FINDING_COUNTER,
    GDR_FINDING_THROTTLE,
    GDR_FINDING_ECC,
};
/* "dip", "trend", "counter", "throttle", "ecc" */
const char *gdr_soak_finding_kind_name(enum gdr_soak_finding_kind k);

#define GDR_SOAK_LISTED_INTERVALS 16
struct gdr_soak_finding {
    enum gdr_soak_finding_kind kind;
    size_t first, last;            /* intervals (0-based), inclusive */
    double start_s, end_s;         /* the soak's seconds: the first interval's start,
                              the last one's end */
    double value;                  /* dip: the worst interval; trend: the change
                            across the soak (bytes/s or s, signed) */
    double reference;              /* dip, trend: the soak's median */
    double pct;                    /* dip: the worst as % of the median; trend: the
                            change as % of the median */
    enum gdr_soak_counter counter; /* counter findings */
    uint64_t total;                /* counter, ecc: the sum of its deltas */
    size_t nintervals;             /* counter, throttle, ecc: intervals it was seen in */
    size_t listed;                 /* of which these, the first ones: */
    size_t intervals[GDR_SOAK_LISTED_INTERVALS];
};

struct gdr_soak_series {
    bool latency;   /* higher is worse */
    double dip_pct; /* --dip-pct */
    size_t n;
    const struct gdr_soak_point *p;
};

/* The soak's median value (NAN with no interval). */
double gdr_soak_median(const struct gdr_soak_series *s);
/* Theil-Sen slope of value over time (value units per second); NAN with
 * fewer than two distinct times. Over at most GDR_SOAK_SLOPE_POINTS points:
 * a longer soak is cut into that many blocks, each its median. */
#define GDR_SOAK_SLOPE_POINTS 256
double gdr_soak_slope(const struct gdr_soak_series *s);

/* Every finding, in this order: dips (consecutive intervals below the
 * line are one dip; an outage between two ends it), the trend, the
 * counters that rose (by class), the throttling (consecutive intervals
 * are one, as for dips). Returns how many there are;
 * at most max are written. -1 out of memory. */
long gdr_soak_findings(const struct gdr_soak_series *s, struct gdr_soak_finding *out, size_t max);

/* One line for stderr: "dip: intervals 4-5 (40-60 s): 61.2 % of the
 * median"... */
void gdr_soak_finding_text(const struct gdr_soak_finding *f, bool latency, char *buf, size_t len);

#endif
