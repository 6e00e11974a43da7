/* cluster_suspects.h - find slow nodes, links, rails and GDR paths in the
 * matrices of one cluster run, without a baseline, and judge them again
 * after a serial retest.
 *
 * Per analysed matrix (one per test and rail: the largest size of a
 * bandwidth test, the smallest of a latency test, or --size) the cells get
 * a reference and a threshold:
 *   5 or more nodes: reference = median of the cells, threshold = reference
 *     - max(k * 1.4826 * MAD, tolerance * reference) (k = 4, tolerance 10%);
 *   2 to 4 nodes: one bad node is in half or more of the links, so the
 *     median would follow it: reference = median of every node's best cell,
 *     threshold = reference * (1 - tolerance).
 * Latency is compared as its inverse (a rate), so "low" always means bad.
 * A bandwidth cell under min_link_frac of the slower port's rate
 * (ends.*.speed_bps) is low too, and so is one under min_pct_of_limit %
 * of its row's limit (what the path carries at best: an absolute rule, as
 * ngc_multinode_perf's 90 % of port rate). A cell whose NIC counted errors
 * or retransmissions (clean: false) is listed as not clean in its matrix's
 * statistics. Median and MAD are also kept per round.
 *
 * Suspects (a node "flagged" in a matrix: low against more than half of its
 * partners, at least two of them):
 *   rail  flagged in host or GDR-off matrices of some rails, clean in others;
 *   node  flagged in host or GDR-off matrices (all rails), or in GDR-on
 *         ones when nothing else ran;
 *   gdr   host matrices clean but flagged in a GDR-on matrix, or GDR asked
 *         for and not in effect on the node (registration neither dmabuf
 *         nor peermem);
 *   link  a low cell whose two nodes are not suspects themselves. */
#ifndef GDR_TOOLS_CLUSTER_SUSPECTS_H
#define GDR_TOOLS_CLUSTER_SUSPECTS_H

#include "cluster_matrix.h"

#include <cjson/cJSON.h>

#define GDR_SUSPECTS_VERSION "gdrbench.cluster-suspects/1"
#define GDR_SUSPECT_MAX_PARTNERS 8

struct gdr_detect_opts {
    double tolerance;        /* fraction of the reference; default 0.10 */
    double mad_k;            /* default 4 */
    double min_link_frac;    /* default 0.90; 0 = no absolute floor */
    double min_pct_of_limit; /* 0 = off */
    uint64_t size;           /* 0 = largest (bandwidth) / smallest (latency) */
};
void gdr_detect_opts_default(struct gdr_detect_opts *o);

struct gdr_round_stats {
    size_t round, n;
    double median, mad;
};

struct gdr_mstats {
    size_t matrix; /* index in the set */
    double reference, median, mad, threshold_score;
    size_t nvalid, nlow, nfailed;
    size_t nrounds;
    struct gdr_round_stats *rounds;
    bool *node_flag; /* per node */
};

enum gdr_suspect_kind { GDR_SUSPECT_NODE, GDR_SUSPECT_RAIL, GDR_SUSPECT_GDR, GDR_SUSPECT_LINK };
const char *gdr_suspect_kind_name(enum gdr_suspect_kind k);

struct gdr_suspect {
    enum gdr_suspect_kind kind;
    size_t a, b;  /* b == a except for links */
    size_t stats; /* index into the detection's stats: the evidence */
    size_t nlow_partners;
    size_t low_partners[GDR_SUSPECT_MAX_PARTNERS];
    size_t npartners;
    bool gdr_not_in_effect;
};

struct gdr_detection {
    size_t nstats;
    struct gdr_mstats *stats;
    size_t nsuspects;
    struct gdr_suspect *suspects;
    const bool *avoid; /* per node, or NULL: never a retest's third node (not owned) */
};

/* Is this cell low under stats? (A FAILED or NONE cell is not.) */
bool gdr_cell_low(const struct gdr_matrix *m, const struct gdr_mstats *st,
                  const struct gdr_detect_opts *o, const struct gdr_cell *c);

int gdr_detect(const struct gdr_matrix_set *s, const struct gdr_detect_opts *o,
               struct gdr_detection *d);
void gdr_detection_free(struct gdr_detection *d);

/* suspects.json: options, per-matrix statistics, suspects with evidence and
 * their retest list (status "pending"). Retest runs take devices and GPUs
 * (by bus id) from the plan's rail ends; ports from base_port. */
cJSON *gdr_detection_to_json(const struct gdr_detection *d, const struct gdr_matrix_set *s,
                             const struct gdr_plan *p, const struct gdr_detect_opts *o,
                             unsigned base_port);

/* One retest run object of suspects.json: id PREFIX<k+1>.<j+1>.TEST.rRAIL.
 * CLIENT_SERVER, the ends' devices and GPUs as the plan has them on rail. */
cJSON *gdr_retest_run_json(const struct gdr_plan *p, const struct gdr_test_mode *t, int rail,
                           const char *id_prefix, size_t k, size_t j, size_t c, size_t sv,
                           const char *role, unsigned port);

/* What a retest run gave at one size: found = a complete document with
 * that size; value as in the matrix. */
struct gdr_retest_value {
    bool found;
    double value, rate_bytes;
    bool gdr_off;    /* GDR asked for, not in effect on an end */
    bool ran;        /* the script recorded the run (its status line) */
    bool run_failed; /* ... as failed */
    char reason[200];
};
typedef void (*gdr_retest_lookup)(const cJSON *run, uint64_t size, struct gdr_retest_value *v,
                                  void *ctx);

struct gdr_confirm_counts {
    size_t confirmed, cleared, unresolved;
};

/* Judge every suspect of doc (suspects.json) from its retest runs and
 * record status, values and the verdict's reason in doc:
 *   node, rail, gdr: confirmed when most of its retest runs are low (or GDR
 *     is still not in effect), cleared when most are not;
 *   link: confirmed when the link's own retest is low (a control through a
 *     third node that is low too is noted: the node may be the cause),
 *     cleared when it is not;
 *   unresolved: no retest result for the suspect's own runs.
 * A dead node (finding "failed" or "unreachable", cluster_health.h) is
 * confirmed when its retest run failed too, cleared when it ran, and
 * unresolved when it did not run. */
int gdr_suspects_confirm(cJSON *doc, gdr_retest_lookup lookup, void *ctx,
                         struct gdr_confirm_counts *counts);

/* A soak's links (cluster_soak.h reads them from the documents): a link
 * is a node pair on a rail, both directions and every round it soaked. */
struct gdr_soak_link {
    size_t a, b; /* a < b */
    int rail;
    size_t noutages, ndips;
    long node; /* gdr_soak_judge: the flapping node it is put down to, else -1 */
};

/* Judge a soak as the suspects are judged, the node before the link: a
 * link with an outage flapped; a node whose links flapped with two or more
 * distinct partners is a flapping node (flapping[i], nnodes of them), and
 * its links are put down to it (link.node), as a link suspect needs both
 * its nodes clear. Returns how many nodes flapped; SIZE_MAX when out of
 * memory (nothing judged). */
size_t gdr_soak_judge(size_t nnodes, struct gdr_soak_link *links, size_t n, bool *flapping);

#endif
