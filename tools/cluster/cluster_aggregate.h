/* cluster_aggregate.h - the aggregate node-pair bandwidth over all rails:
 * the figure a DGX-class capacity report leads with.
 *
 * For each bandwidth test and message size, each ordered node pair (client
 * -> server, as measured) gets the sum of its rails' cells (rail i of the
 * client against rail i of the server, which run at the same time unless
 * --rails-serial). A pair is complete when every rail the plan ran for it
 * has a value; the min, median and max are over complete pairs only, and
 * incomplete pairs are counted, not summed as if a failed rail moved
 * nothing. `concurrent` says whether each pair's rails ran in one step (a
 * sum of rails measured one after the other is an upper bound, not what
 * the node pair moved at once). Latency tests have no aggregate. */
#ifndef GDR_TOOLS_CLUSTER_AGGREGATE_H
#define GDR_TOOLS_CLUSTER_AGGREGATE_H

#include "cluster_matrix.h"

#include <cjson/cJSON.h>

#include <stdio.h>

#define GDR_AGGREGATE_VERSION "gdrbench.cluster-aggregate/1"

struct gdr_aggregate_pair {
    size_t client, server; /* node indices */
    size_t rails, rails_ok;
    double sum;      /* bytes/s over the rails that have a value */
    bool concurrent; /* every rail of the pair in one (round, step) */
};

struct gdr_aggregate {
    struct gdr_test_mode test;
    uint64_t size;
    size_t nrails;
    int rails[GDR_RAILS_MAX];
    size_t npairs, ncomplete;
    struct gdr_aggregate_pair *pairs;
    double min, median, max; /* over complete pairs, bytes/s; NAN when none */
    bool concurrent;         /* every complete pair concurrent */
};

struct gdr_aggregate_set {
    size_t count;
    struct gdr_aggregate *a; /* by test, then size */
};

/* Returns 0, or -1 after gdr_fail (memory). */
int gdr_aggregate_compute(const struct gdr_plan *p, const struct gdr_matrix_set *s,
                          struct gdr_aggregate_set *out);
void gdr_aggregate_free(struct gdr_aggregate_set *a);

/* The JSON, written as it goes (a pair a line: a million pairs are not a
 * cJSON tree): {"aggregate_version", "aggregates": [{"test", "size",
 * "rails", "pairs", "complete_pairs", "min_bytes_per_s",
 * "median_bytes_per_s", "max_bytes_per_s", "concurrent", "per_pair":
 * [{"client", "server", "rails", "rails_ok", "sum_bytes_per_s",
 * "concurrent"}]}]}. Returns 0, or -1 when the stream failed. */
int gdr_aggregate_write(FILE *f, const struct gdr_aggregate_set *a, const struct gdr_matrix_set *s);
/* The same with a soak's findings (suspects.json's "soak", as it is) as
 * "soak"; NULL: none. */
int gdr_aggregate_write_soak(FILE *f, const struct gdr_aggregate_set *a,
                             const struct gdr_matrix_set *s, const cJSON *soak);

#endif
