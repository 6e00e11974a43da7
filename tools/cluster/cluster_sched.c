/* cluster_sched.c - rounds of disjoint node pairs (see cluster_sched.h). */
#include "config.h"

#include "cluster_sched.h"
#include "error.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void gdr_sched_free(struct gdr_schedule *s)
{
    for (size_t r = 0; r < s->nrounds; r++)
        free(s->rounds[r].pairs);
    free(s->rounds);
    s->rounds = NULL;
    s->nrounds = 0;
}

static int alloc_rounds(struct gdr_schedule *s, size_t nrounds, size_t per_round)
{
    s->nrounds = 0;
    s->rounds = calloc(nrounds ? nrounds : 1, sizeof(*s->rounds));
    if (!s->rounds)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu rounds", nrounds);
    for (size_t r = 0; r < nrounds; r++) {
        s->rounds[r].pairs = calloc(per_round ? per_round : 1, sizeof(struct gdr_pair));
        if (!s->rounds[r].pairs) {
            gdr_sched_free(s);
            return gdr_fail(GDR_EXIT_RUN, "out of memory for round %zu", r);
        }
        s->nrounds = r + 1;
    }
    return 0;
}

/* Circle method: with m = n rounded up to even, node m-1 stays put and the
 * others turn one place per round; in round r, position i faces position
 * m-1-i of the turned circle: slot 0 pairs m-1 with r, slot i > 0 pairs
 * (r + i) and (r - i) mod m-1, so the two of a slot add up to 2r. A node
 * paired with the phantom m-1 (odd n) has the round off. */
size_t gdr_sched_circle_rounds(size_t n)
{
    return n < 2 ? 0 : n + (n & 1) - 1;
}

bool gdr_sched_circle_slot(size_t n, size_t r, size_t i, struct gdr_pair *out)
{
    size_t m = n + (n & 1);
    size_t a = i == 0 ? m - 1 : (r + i) % (m - 1);
    size_t b = (r + (m - 1) - i) % (m - 1);
    if (a >= n || b >= n)
        return false; /* the phantom: a bye */
    *out = (struct gdr_pair){a < b ? a : b, a < b ? b : a};
    return true;
}

size_t gdr_sched_circle_slot_of(size_t n, size_t r, size_t v)
{
    size_t m = n + (n & 1), q = m - 1;
    r %= q;
    if (v == m - 1 || v == r)
        return 0;
    size_t i = (v + q - r) % q; /* as the (r + i) of its slot */
    return i < m / 2 ? i : q - i;
}

uint64_t gdr_sched_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0); the modulo's bias is under 2^-40 at these n. */
static size_t rand_below(uint64_t *st, size_t n)
{
    return (size_t)(gdr_sched_rand(st) % n);
}

int gdr_sched_random_pick(size_t n, size_t k, uint64_t seed, size_t *perm, size_t *first)
{
    size_t rounds = gdr_sched_circle_rounds(n);
    if (k == 0 || k > rounds || k > n - 1)
        return gdr_fail(GDR_EXIT_USAGE,
                        "--pairing=random:%zu: %zu nodes allow 1 to %zu partners per node", k, n,
                        n > 1 ? n - 1 : 0);
    uint64_t st = seed;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = rand_below(&st, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    *first = rand_below(&st, rounds);
    return 0;
}

bool gdr_sched_random_slot(size_t n, const size_t *perm, size_t first, size_t q, size_t i,
                           struct gdr_pair *out)
{
    size_t m = n + (n & 1), r = (first + q) % (m - 1 ? m - 1 : 1);
    size_t a = i == 0 ? m - 1 : (r + i) % (m - 1);
    size_t b = (r + (m - 1) - i) % (m - 1);
    if (a >= n || b >= n)
        return false;
    /* A node's slot moves by one each round (i = v - r on one side, r - v
     * on the other): by the slot's parity, it leads in alternate rounds.
     * The fixed node (slot 0) alternates with the round. */
    bool swap = i == 0 ? (r & 1) : (i & 1) == 0;
    out->a = perm[swap ? b : a];
    out->b = perm[swap ? a : b];
    return true;
}

int gdr_sched_from_pairs(size_t n, const struct gdr_pair *pairs, size_t npairs,
                         struct gdr_schedule *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t p = 0; p < npairs; p++) {
        if (pairs[p].a >= n || pairs[p].b >= n || pairs[p].a == pairs[p].b)
            return gdr_fail(GDR_EXIT_USAGE, "pair %zu is not two different known nodes", p + 1);
    }
    if (npairs == 0)
        return 0;
    /* At most npairs rounds; each node's last round tells where it may go. */
    if (alloc_rounds(out, npairs, n / 2))
        return -1;
    bool *busy = calloc(npairs * n, sizeof(bool)); /* busy[round * n + node] */
    if (!busy) {
        gdr_sched_free(out);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu pairs", npairs);
    }
    size_t used = 0;
    for (size_t p = 0; p < npairs; p++) {
        size_t r = 0;
        while (busy[r * n + pairs[p].a] || busy[r * n + pairs[p].b])
            r++;
        busy[r * n + pairs[p].a] = busy[r * n + pairs[p].b] = true;
        out->rounds[r].pairs[out->rounds[r].npairs++] = pairs[p];
        if (r + 1 > used)
            used = r + 1;
    }
    free(busy);
    for (size_t r = used; r < out->nrounds; r++)
        free(out->rounds[r].pairs);
    out->nrounds = used;
    return 0;
}
