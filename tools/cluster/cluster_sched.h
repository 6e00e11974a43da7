/* cluster_sched.h - which node pairs run together: rounds of disjoint pairs.
 *
 * Pure arithmetic on node indices 0..n-1; no I/O. A round never holds a
 * node twice, so every pair of a round can run at the same time. */
#ifndef GDR_TOOLS_CLUSTER_SCHED_H
#define GDR_TOOLS_CLUSTER_SCHED_H

#include <stddef.h>

struct gdr_pair {
    size_t a, b;
};

struct gdr_round {
    size_t npairs;
    struct gdr_pair *pairs;
};

struct gdr_schedule {
    size_t nrounds;
    struct gdr_round *rounds;
};

/* Every unordered pair exactly once, by the circle method: n-1 rounds of
 * n/2 pairs for even n; n rounds of (n-1)/2 pairs (one node sits out) for
 * odd n. n < 2 gives no rounds. Returns 0 or -1 (out of memory). */
int gdr_sched_full(size_t n, struct gdr_schedule *out);

/* One round: node i of the first half with node i + n/2 (odd n: the last
 * node sits out). A quick look at every node, not at every link. */
int gdr_sched_quick(size_t n, struct gdr_schedule *out);

/* Given pairs (a != b, both < n), packed greedily into rounds of disjoint
 * pairs in the order given. Returns -1 with gdr_fail(USAGE) on a bad pair. */
int gdr_sched_from_pairs(size_t n, const struct gdr_pair *pairs, size_t npairs,
                         struct gdr_schedule *out);

/* Split every round of more than k pairs into rounds of at most k pairs
 * (k = 1: one pair at a time, contention-free). k = 0 leaves s alone. */
int gdr_sched_split(struct gdr_schedule *s, size_t k);

void gdr_sched_free(struct gdr_schedule *s);

#endif
