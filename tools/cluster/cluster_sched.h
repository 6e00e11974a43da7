/* cluster_sched.h - which node pairs run together: rounds of disjoint pairs.
 *
 * Pure arithmetic on node indices 0..n-1; no I/O. A round never holds a
 * node twice, so every pair of a round can run at the same time. */
#ifndef GDR_TOOLS_CLUSTER_SCHED_H
#define GDR_TOOLS_CLUSTER_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Given pairs (a != b, both < n), packed greedily into rounds of disjoint
 * pairs in the order given. Returns -1 with gdr_fail(USAGE) on a bad pair. */
int gdr_sched_from_pairs(size_t n, const struct gdr_pair *pairs, size_t npairs,
                         struct gdr_schedule *out);

void gdr_sched_free(struct gdr_schedule *s);

/* ---- computed on demand (a plan of thousands of nodes stores none of it) ---- */

/* Rounds of the circle method over n nodes: n-1 for even n, n for odd n. */
size_t gdr_sched_circle_rounds(size_t n);

/* Slot i (0 .. (n+1)/2-1) of circle round r: its pair in *out (a < b), or
 * false when it is the bye of an odd n. */
bool gdr_sched_circle_slot(size_t n, size_t r, size_t i, struct gdr_pair *out);

/* The slot node v occupies in circle round r (its pair's, or the bye's). */
size_t gdr_sched_circle_slot_of(size_t n, size_t r, size_t v);

/* Pairing random:K over n nodes: K consecutive circle rounds, from a
 * random start, over a random order of the nodes (both from seed): every
 * node meets K different partners (odd n: K-1 in the round it sits out),
 * no pair twice. perm gets the order (n entries: circle position ->
 * node), *first the first circle round. In round q of the K, slot i is
 * oriented so that a node is the first of its pair in alternate rounds:
 * with one direction, every node is a client and a server about equally
 * (gdr_sched_random_slot). Returns -1 with gdr_fail(USAGE) when K is 0 or
 * more than the circle has rounds. */
int gdr_sched_random_pick(size_t n, size_t k, uint64_t seed, size_t *perm, size_t *first);

/* Slot i of round q (0 .. K-1) of a random:K pairing: the pair in node
 * numbers through perm, first = the client of the forward direction;
 * false for a bye. */
bool gdr_sched_random_slot(size_t n, const size_t *perm, size_t first, size_t q, size_t i,
                           struct gdr_pair *out);

/* A seeded generator (splitmix64): the same seed gives the same pairing
 * on every machine. */
uint64_t gdr_sched_rand(uint64_t *state);

#endif
