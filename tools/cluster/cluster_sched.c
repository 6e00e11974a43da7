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
 * m-1-i of the turned circle. A node paired with the phantom m-1 (odd n)
 * has the round off. */
int gdr_sched_full(size_t n, struct gdr_schedule *out)
{
    memset(out, 0, sizeof(*out));
    if (n < 2)
        return 0;
    size_t m = n + (n & 1), nrounds = m - 1;
    if (alloc_rounds(out, nrounds, m / 2))
        return -1;
    for (size_t r = 0; r < nrounds; r++) {
        struct gdr_round *rd = &out->rounds[r];
        for (size_t i = 0; i < m / 2; i++) {
            size_t a = i == 0 ? m - 1 : (r + i) % (m - 1);
            size_t b = (r + (m - 1) - i) % (m - 1);
            if (a >= n || b >= n)
                continue; /* the phantom: a bye */
            rd->pairs[rd->npairs++] = (struct gdr_pair){a < b ? a : b, a < b ? b : a};
        }
    }
    return 0;
}

int gdr_sched_quick(size_t n, struct gdr_schedule *out)
{
    memset(out, 0, sizeof(*out));
    if (n < 2)
        return 0;
    if (alloc_rounds(out, 1, n / 2))
        return -1;
    for (size_t i = 0; i < n / 2; i++)
        out->rounds[0].pairs[out->rounds[0].npairs++] = (struct gdr_pair){i, i + n / 2};
    return 0;
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

int gdr_sched_split(struct gdr_schedule *s, size_t k)
{
    if (k == 0)
        return 0;
    size_t total = 0;
    for (size_t r = 0; r < s->nrounds; r++)
        total += s->rounds[r].npairs ? (s->rounds[r].npairs + k - 1) / k : 1;
    struct gdr_schedule t;
    if (alloc_rounds(&t, total, k))
        return -1;
    size_t o = 0;
    for (size_t r = 0; r < s->nrounds; r++) {
        const struct gdr_round *rd = &s->rounds[r];
        if (rd->npairs == 0) {
            o++; /* keep an empty round (n = 1 bye) as it was */
            continue;
        }
        for (size_t p = 0; p < rd->npairs; p++) {
            struct gdr_round *d = &t.rounds[o + p / k];
            d->pairs[d->npairs++] = rd->pairs[p];
        }
        o += (rd->npairs + k - 1) / k;
    }
    gdr_sched_free(s);
    *s = t;
    return 0;
}
