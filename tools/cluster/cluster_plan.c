/* cluster_plan.c - build, write and read the cluster plan (cluster_plan.h). */
#include "config.h"

#include "cluster_plan.h"
#include "order.h"
#include "doc.h"
#include "error.h"
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool gdr_plan_node_name_ok(const char *s)
{
    if (!*s || strlen(s) >= GDR_NODE_NAME_LEN)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '-'))
            return false;
    return true;
}

int gdr_cluster_input_error(void)
{
    if (gdr_error_code() == GDR_EXIT_RUN) {
        char m[512];
        snprintf(m, sizeof(m), "%s", gdr_error_message());
        gdr_error_clear();
        gdr_fail(GDR_EXIT_USAGE, "%s", m);
    }
    return -1;
}

void gdr_test_mode_name(const struct gdr_test_mode *t, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%s.%s", t->tool, t->placement, t->gdr);
}

bool gdr_test_mode_equal(const struct gdr_test_mode *a, const struct gdr_test_mode *b)
{
    return !strcmp(a->tool, b->tool) && !strcmp(a->placement, b->placement) &&
           !strcmp(a->gdr, b->gdr);
}

void gdr_plan_free(struct gdr_plan *p)
{
    free(p->nodes);
    free(p->left_out);
    free(p->ends);
    free(p->share);
    free(p->play);
    free(p->perm);
    gdr_sched_free(&p->file);
    free(p->split_first);
    free(p->run_first);
    free(p->runs);
    cJSON_Delete(p->meta);
    memset(p, 0, sizeof(*p));
}

uint64_t gdr_plan_id_hash(const char *id)
{
    uint64_t h = 1469598103934665603ull;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 1099511628211ull;
    return h | 1;
}

static int index_one(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct gdr_plan_index *x = ctx;
    uint64_t h = gdr_plan_id_hash(r->id);
    size_t k = h % x->cap;
    while (x->hash[k])
        k = (k + 1) % x->cap;
    x->hash[k] = h;
    x->ordinal[k] = (uint32_t)ordinal;
    return x->each ? x->each(r, ordinal, x->ctx) : 0;
}

int gdr_plan_index_build(const struct gdr_plan *p, struct gdr_plan_index *x, gdr_plan_run_fn each,
                         void *ctx)
{
    *x = (struct gdr_plan_index){2 * p->nruns + 1, NULL, NULL, each, ctx};
    x->hash = calloc(x->cap, sizeof(*x->hash));
    x->ordinal = calloc(x->cap, sizeof(*x->ordinal));
    if (!x->hash || !x->ordinal) {
        gdr_plan_index_free(x);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu runs", p->nruns);
    }
    int rc = gdr_plan_foreach(p, 0, index_one, x);
    if (rc)
        gdr_plan_index_free(x);
    return rc;
}

long gdr_plan_index_find(const struct gdr_plan_index *x, const char *id)
{
    uint64_t h = gdr_plan_id_hash(id);
    for (size_t k = h % x->cap; x->hash && x->hash[k]; k = (k + 1) % x->cap)
        if (x->hash[k] == h)
            return (long)x->ordinal[k];
    return -1;
}

void gdr_plan_index_free(struct gdr_plan_index *x)
{
    free(x->hash);
    free(x->ordinal);
    x->hash = NULL;
    x->ordinal = NULL;
}

long gdr_plan_node_index(const struct gdr_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nnodes; i++)
        if (!strcmp(p->nodes[i], name))
            return (long)i;
    return -1;
}

static size_t nsel_slots(const struct gdr_plan *p)
{
    return p->nrail_sel ? p->nrail_sel : 1;
}

void gdr_plan_rail_end(const struct gdr_plan *p, size_t node, int rail, struct gdr_plan_end *e)
{
    e->node = node;
    e->device[0] = '\0';
    e->gpu = -1;
    e->gpu_bdf[0] = '\0';
    for (size_t k = 0; p->ends && k < p->nrail_sel; k++)
        if (p->rail_sel[k] == rail) {
            *e = p->ends[node * p->nrail_sel + k];
            e->node = node;
            return;
        }
}

double gdr_plan_step_s(const struct gdr_plan *p)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(p->meta, "sizes");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(p->meta, "time_per_size_s");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(p->meta, "run_overhead_s");
    return (cJSON_IsNumber(n) ? n->valuedouble : 0) * (cJSON_IsNumber(t) ? t->valuedouble : 0) +
           (cJSON_IsNumber(o) ? o->valuedouble : 0);
}

/* ---- the schedule, computed ---- */

/* A soak cycles the pairing's rounds: round r0 (0-based) is the
 * pairing's round r0 mod cycle. */
static size_t natural0(const struct gdr_plan *p, size_t r0)
{
    return p->cycle ? r0 % p->cycle : r0;
}

unsigned gdr_plan_run_soak_s(const struct gdr_plan *p, size_t round)
{
    if (!p->cycle || round == 0 || round > p->nrounds)
        return 0;
    double left = p->soak_s - (double)(round - 1) * p->rotate_s;
    double s = floor((left < p->rotate_s ? left : p->rotate_s) / (double)p->steps_per_round);
    return s >= 1 ? (unsigned)s : 1;
}

/* Pairs of base round b (0-based, before the split) into out. */
static size_t base_pairs(const struct gdr_plan *p, size_t b, struct gdr_pair *out)
{
    size_t n = 0;
    switch (p->pairing) {
    case GDR_PAIRING_FULL:
        for (size_t i = 0; i < (p->m + 1) / 2; i++)
            if (gdr_sched_circle_slot(p->m, b, i, &out[n]))
                n++;
        break;
    case GDR_PAIRING_RANDOM:
        for (size_t i = 0; i < (p->m + 1) / 2; i++)
            if (gdr_sched_random_slot(p->m, p->perm, p->random_first, b, i, &out[n]))
                n++;
        break;
    case GDR_PAIRING_QUICK:
        for (size_t i = 0; i < p->m / 2; i++)
            out[n++] = (struct gdr_pair){i, i + p->m / 2};
        break;
    case GDR_PAIRING_FILE:
        memcpy(out, p->file.rounds[b].pairs, p->file.rounds[b].npairs * sizeof(*out));
        return p->file.rounds[b].npairs; /* already node indices */
    }
    for (size_t k = 0; k < n; k++)
        out[k] = (struct gdr_pair){p->play[out[k].a], p->play[out[k].b]};
    return n;
}

static size_t base_count(const struct gdr_plan *p, size_t b)
{
    return p->pairing == GDR_PAIRING_FILE ? p->file.rounds[b].npairs : p->m / 2;
}

/* The base round of round r (0-based): the last b with split_first[b] <= r. */
static size_t base_of(const struct gdr_plan *p, size_t r)
{
    size_t lo = 0, hi = p->nbase;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->split_first[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

size_t gdr_plan_round_pairs(const struct gdr_plan *p, size_t round, struct gdr_pair *out)
{
    if (round == 0 || round > p->nrounds)
        return 0;
    size_t r0 = natural0(p, round - 1), b = base_of(p, r0), n = base_pairs(p, b, out);
    if (!p->max_concurrent)
        return n;
    size_t c = r0 - p->split_first[b], k = p->max_concurrent, lo = c * k;
    size_t hi = lo + k < n ? lo + k : n;
    memmove(out, out + lo, (hi - lo) * sizeof(*out));
    return hi - lo;
}

static size_t pairs_in_round(const struct gdr_plan *p, size_t r0)
{
    r0 = natural0(p, r0);
    size_t b = base_of(p, r0), n = base_count(p, b);
    if (!p->max_concurrent)
        return n;
    size_t lo = (r0 - p->split_first[b]) * p->max_concurrent;
    return n - lo < p->max_concurrent ? n - lo : p->max_concurrent;
}

/* The runs of every pair of round (only < 0), or of pair number only (of
 * npairs; pairs then points at that one pair), in plan order: step (test,
 * direction, rail group), pair, rail. */
static int emit(const struct gdr_plan *p, size_t round, const struct gdr_pair *pairs, size_t npairs,
                long only, gdr_plan_run_fn fn, void *ctx)
{
    size_t ndir = p->one_direction ? 1 : 2, nsel = nsel_slots(p);
    size_t before[GDR_RAILS_MAX + 1] = {0}, rank[GDR_RAILS_MAX] = {0}, size[GDR_RAILS_MAX] = {0};
    for (size_t k = 0; k < nsel; k++)
        rank[k] = size[p->group_of[k]]++;
    for (size_t g = 0; g < p->ngroups; g++)
        before[g + 1] = before[g] + size[g];
    struct gdr_plan_run run;
    size_t step = 0, wr = (round - 1) % p->port_window;
    for (size_t t = 0; t < p->ntests; t++)
        for (size_t d = 0; d < ndir; d++)
            for (size_t g = 0; g < p->ngroups; g++) {
                step++;
                size_t base =
                    p->run_first[round - 1] + ((t * ndir + d) * nsel + before[g]) * npairs;
                for (size_t q = only < 0 ? 0 : (size_t)only; q < npairs; q++) {
                    for (size_t k = 0; k < nsel; k++) {
                        if (p->group_of[k] != g)
                            continue;
                        const struct gdr_pair *pq = only < 0 ? &pairs[q] : pairs;
                        size_t c = d ? pq->b : pq->a, sv = d ? pq->a : pq->b;
                        memset(&run, 0, sizeof(run));
                        run.test = p->tests[t];
                        run.test_index = t;
                        run.rail = p->nrail_sel ? p->rail_sel[k] : 0;
                        run.round = round;
                        run.step = step;
                        run.port = p->base_port +
                                   2 * (unsigned)((wr * p->steps_per_round + step - 1) * nsel + k);
                        gdr_plan_rail_end(p, c, run.rail, &run.client);
                        gdr_plan_rail_end(p, sv, run.rail, &run.server);
                        run.nic_share = 1;
                        if (p->nrail_sel && p->share) {
                            unsigned a = p->share[c * nsel + k], b = p->share[sv * nsel + k];
                            run.nic_share = a > b ? a : b;
                        }
                        run.soak_s = gdr_plan_run_soak_s(p, round);
                        char tn[64], sr[32] = "";
                        gdr_test_mode_name(&run.test, tn, sizeof(tn));
                        if (p->cycle) /* a pair may meet again in a later cycle */
                            snprintf(sr, sizeof(sr), ".s%zu", round);
                        snprintf(run.id, sizeof(run.id), "%s.r%d%s.%s_%s", tn, run.rail, sr,
                                 p->nodes[c], p->nodes[sv]);
                        int rc = fn(&run, base + q * size[g] + rank[k], ctx);
                        if (rc)
                            return rc;
                    }
                    if (only >= 0)
                        break;
                }
            }
    return 0;
}

int gdr_plan_foreach(const struct gdr_plan *p, size_t round, gdr_plan_run_fn fn, void *ctx)
{
    struct gdr_pair *pairs = calloc(p->max_round_pairs + 1, sizeof(*pairs));
    if (!pairs)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a round of %zu pairs", p->max_round_pairs);
    int rc = 0;
    for (size_t r = round ? round : 1; !rc && r <= (round ? round : p->nrounds); r++) {
        size_t n = gdr_plan_round_pairs(p, r, pairs);
        rc = emit(p, r, pairs, n, -1, fn, ctx);
    }
    free(pairs);
    return rc;
}

int gdr_plan_foreach_node(const struct gdr_plan *p, size_t node, gdr_plan_run_fn fn, void *ctx)
{
    if (node >= p->nnodes || p->left_out[node])
        return 0;
    bool circle =
        !p->max_concurrent && (p->pairing == GDR_PAIRING_FULL || p->pairing == GDR_PAIRING_RANDOM);
    if (circle) {
        /* The circle method gives the node's slot, hence its partner, in
         * O(1) a round; an odd m's bye is slot 0. */
        size_t v = 0;
        while (p->play[v] != node)
            v++;
        size_t pos = v, m = p->m, q = m + (m & 1) - 1;
        if (p->pairing == GDR_PAIRING_RANDOM)
            for (pos = 0; p->perm[pos] != v; pos++)
                ;
        int rc = 0;
        for (size_t r = 1; !rc && r <= p->nrounds; r++) {
            size_t r0 = natural0(p, r - 1);
            size_t cr = p->pairing == GDR_PAIRING_RANDOM ? (p->random_first + r0) % q : r0;
            size_t slot = gdr_sched_circle_slot_of(m, cr, pos);
            struct gdr_pair pr;
            bool ok = p->pairing == GDR_PAIRING_RANDOM
                          ? gdr_sched_random_slot(m, p->perm, p->random_first, r0, slot, &pr)
                          : gdr_sched_circle_slot(m, cr, slot, &pr);
            if (!ok)
                continue; /* its bye */
            pr = (struct gdr_pair){p->play[pr.a], p->play[pr.b]};
            rc = emit(p, r, &pr, pairs_in_round(p, r - 1), (long)(slot - (m & 1)), fn, ctx);
        }
        return rc;
    }
    struct gdr_pair *pairs = calloc(p->max_round_pairs + 1, sizeof(*pairs));
    if (!pairs)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a round of %zu pairs", p->max_round_pairs);
    int rc = 0;
    for (size_t r = 1; !rc && r <= p->nrounds; r++) {
        size_t n = gdr_plan_round_pairs(p, r, pairs);
        for (size_t q = 0; q < n; q++)
            if (pairs[q].a == node || pairs[q].b == node) {
                rc = emit(p, r, &pairs[q], n, (long)q, fn, ctx);
                break;
            }
    }
    free(pairs);
    return rc;
}

static int expand_one(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct gdr_plan *p = ctx;
    p->runs[ordinal] = *r;
    return 0;
}

int gdr_plan_expand(struct gdr_plan *p)
{
    free(p->runs);
    p->runs = calloc(p->nruns + 1, sizeof(*p->runs));
    if (!p->runs)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu runs", p->nruns);
    return gdr_plan_foreach(p, 0, expand_one, p);
}

/* ---- building ---- */

static bool left_out(const struct gdr_plan_opts *o, size_t i)
{
    return o->left_out && o->left_out[i];
}

static int check_opts(const struct gdr_plan_opts *o)
{
    size_t in = 0;
    for (size_t i = 0; i < o->nnodes; i++)
        in += !left_out(o, i);
    if (in < 2)
        return gdr_fail(GDR_EXIT_USAGE, "a cluster plan needs at least two nodes, got %zu", in);
    for (size_t i = 0; i < o->nnodes; i++)
        if (!gdr_plan_node_name_ok(o->nodes[i]))
            return gdr_fail(GDR_EXIT_USAGE, "node name '%s' is not [A-Za-z0-9.-]+", o->nodes[i]);
    if (o->ntests == 0)
        return gdr_fail(GDR_EXIT_USAGE, "no test to run");
    for (size_t k = 0; k < o->nrail_sel; k++)
        for (size_t i = 0; i < o->nnodes; i++)
            if (!left_out(o, i) &&
                (!o->rails || o->rail_sel[k] < 0 || (size_t)o->rail_sel[k] >= o->rails[i].nrails))
                return gdr_fail(GDR_EXIT_USAGE, "node '%s' has no rail %d", o->nodes[i],
                                o->rail_sel[k]);
    return 0;
}

static int check_unique(size_t n, const char (*nodes)[GDR_NODE_NAME_LEN])
{
    const char **v = calloc(n + 1, sizeof(*v));
    if (!v)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", n);
    for (size_t i = 0; i < n; i++)
        v[i] = nodes[i];
    qsort(v, n, sizeof(*v), gdr_cmp_strp);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++)
        if (!strcmp(v[i], v[i - 1]))
            rc = gdr_fail(GDR_EXIT_USAGE, "node '%s' is listed twice", v[i]);
    free(v);
    return rc;
}

/* Do selected rails x and y use one NIC on some node? */
static bool share_nic(const struct gdr_plan *p, size_t x, size_t y)
{
    for (size_t i = 0; p->ends && i < p->nnodes; i++) {
        if (p->left_out[i])
            continue;
        const struct gdr_plan_end *a = &p->ends[i * p->nrail_sel + x];
        const struct gdr_plan_end *b = &p->ends[i * p->nrail_sel + y];
        if (a->device[0] && !strcmp(a->device, b->device))
            return true;
    }
    return false;
}

/* Rail groups (one step each). Greedy: a rail joins the first group where
 * it shares no NIC with a member. */
static void rail_groups(struct gdr_plan *p, bool serial, bool together)
{
    p->ngroups = 0;
    for (size_t k = 0; k < p->nrail_sel; k++) {
        if (serial) {
            p->group_of[k] = p->ngroups++;
            continue;
        }
        size_t g = 0;
        for (; g < p->ngroups; g++) {
            bool clash = false;
            for (size_t j = 0; j < k && !clash; j++)
                clash = p->group_of[j] == g && !together && share_nic(p, j, k);
            if (!clash)
                break;
        }
        p->group_of[k] = g;
        if (g == p->ngroups)
            p->ngroups++;
    }
    if (p->ngroups == 0) {
        p->ngroups = 1;
        p->group_of[0] = 0;
    }
}

/* Per node and selected rail: the rails of its group on the same NIC. */
static int compute_shares(struct gdr_plan *p)
{
    if (!p->nrail_sel || !p->ends)
        return 0;
    p->share = calloc(p->nnodes * p->nrail_sel + 1, sizeof(*p->share));
    if (!p->share)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for the rails");
    for (size_t i = 0; i < p->nnodes; i++)
        for (size_t k = 0; k < p->nrail_sel; k++) {
            const struct gdr_plan_end *e = &p->ends[i * p->nrail_sel];
            unsigned n = 0;
            for (size_t j = 0; j < p->nrail_sel; j++)
                n += p->group_of[j] == p->group_of[k] && e[j].device[0] &&
                     !strcmp(e[j].device, e[k].device);
            p->share[i * p->nrail_sel + k] = n ? n : 1;
        }
    return 0;
}

/* A soak: the pairing's rounds (p->nrounds so far) become the cycle, and
 * the plan's rounds the soak's, rotate_s each (default: the soak over the
 * cycle, each round once), until soak_s is spent. */
static int soak_rounds(struct gdr_plan *p)
{
    p->cycle = 0;
    if (p->soak_s <= 0)
        return 0;
    if (!(p->rotate_s > 0))
        p->rotate_s = p->soak_s / (double)p->nrounds;
    if (p->rotate_s > p->soak_s)
        return gdr_fail(GDR_EXIT_USAGE, "--rotate (%.0f s) is longer than --soak (%.0f s)",
                        p->rotate_s, p->soak_s);
    double n = ceil(p->soak_s / p->rotate_s - 1e-9);
    if (n > 1e7)
        return gdr_fail(GDR_EXIT_USAGE, "--soak %.0f s in rounds of %g s: %.0f rounds, too many",
                        p->soak_s, p->rotate_s, n);
    p->cycle = p->nrounds;
    p->nrounds = (size_t)n;
    return 0;
}

/* From the pairing and the nodes in play: the base rounds, the split, the
 * runs' ordinals, the counts and the estimate. */
static int compute_schedule(struct gdr_plan *p, double step_s)
{
    p->m = 0;
    p->play = calloc(p->nnodes + 1, sizeof(size_t));
    if (!p->play)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", p->nnodes);
    for (size_t i = 0; i < p->nnodes; i++)
        if (!p->left_out[i])
            p->play[p->m++] = i;
    p->max_round_pairs = p->m / 2;
    switch (p->pairing) {
    case GDR_PAIRING_FULL: p->nbase = gdr_sched_circle_rounds(p->m); break;
    case GDR_PAIRING_QUICK: p->nbase = 1; break;
    case GDR_PAIRING_RANDOM:
        p->perm = calloc(p->m + 1, sizeof(size_t));
        if (!p->perm)
            return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", p->m);
        if (gdr_sched_random_pick(p->m, p->random_k, p->seed, p->perm, &p->random_first))
            return -1;
        p->nbase = p->random_k;
        break;
    case GDR_PAIRING_FILE:
        p->nbase = p->file.nrounds;
        p->max_round_pairs = 0;
        for (size_t b = 0; b < p->nbase; b++)
            if (p->file.rounds[b].npairs > p->max_round_pairs)
                p->max_round_pairs = p->file.rounds[b].npairs;
        break;
    }
    p->split_first = calloc(p->nbase + 2, sizeof(size_t));
    if (!p->split_first)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu rounds", p->nbase);
    for (size_t b = 0; b < p->nbase; b++) {
        size_t n = base_count(p, b), k = p->max_concurrent;
        p->split_first[b + 1] = p->split_first[b] + (k ? (n + k - 1) / k : 1);
    }
    p->nrounds = p->split_first[p->nbase];
    if (soak_rounds(p))
        return -1;
    if (p->pairing == GDR_PAIRING_FULL || p->pairing == GDR_PAIRING_RANDOM)
        p->max_round_pairs = (p->m + 1) / 2; /* the slots, a bye among them */
    size_t ndir = p->one_direction ? 1 : 2, nsel = nsel_slots(p);
    p->steps_per_round = p->ntests * ndir * p->ngroups;
    p->port_window = GDR_PLAN_PORT_STEPS / p->steps_per_round;
    if (p->port_window < 1)
        p->port_window = 1;
    size_t top = (size_t)p->base_port + 2 * p->port_window * p->steps_per_round * nsel;
    if (top > 65535)
        return gdr_fail(GDR_EXIT_USAGE,
                        "ports %u to %zu: past 65535 (a lower --port, fewer tests or rails)",
                        p->base_port, top);
    p->run_first = calloc(p->nrounds + 2, sizeof(size_t));
    if (!p->run_first)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu rounds", p->nrounds);
    for (size_t r = 0; r < p->nrounds; r++)
        p->run_first[r + 1] = p->run_first[r] + pairs_in_round(p, r) * p->ntests * ndir * nsel;
    p->nruns = p->run_first[p->nrounds];
    p->nsteps = p->nrounds * p->steps_per_round;
    p->round_s = (double)p->steps_per_round * step_s;
    p->estimated_s = (double)p->nrounds * p->round_s;
    if (p->cycle) /* a soak lasts its duration, and each step starts its ends */
        p->estimated_s = p->soak_s + (double)p->nsteps * gdr_jnum_or(p->meta, "run_overhead_s", 0);
    return 0;
}

static const char *pairing_name(enum gdr_pairing k)
{
    switch (k) {
    case GDR_PAIRING_FULL: return "full";
    case GDR_PAIRING_QUICK: return "quick";
    case GDR_PAIRING_RANDOM: return "random";
    case GDR_PAIRING_FILE: break;
    }
    return "file";
}

int gdr_plan_build(const struct gdr_plan_opts *o, struct gdr_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (check_opts(o) || check_unique(o->nnodes, o->nodes))
        return -1;
    p->nnodes = o->nnodes;
    p->nodes = calloc(o->nnodes + 1, sizeof(*p->nodes));
    p->left_out = calloc(o->nnodes + 1, sizeof(bool));
    if (!p->nodes || !p->left_out) {
        gdr_plan_free(p);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for the plan");
    }
    memcpy(p->nodes, o->nodes, o->nnodes * sizeof(*p->nodes));
    for (size_t i = 0; i < o->nnodes; i++)
        p->left_out[i] = left_out(o, i);
    p->ntests = o->ntests;
    memcpy(p->tests, o->tests, sizeof(p->tests));
    p->one_direction = o->one_direction;
    p->base_port = o->base_port;
    p->pairing = o->pairing;
    p->random_k = o->random_k;
    p->seed = o->seed;
    p->max_concurrent = o->max_concurrent;
    p->nrail_sel = o->rails ? o->nrail_sel : 0;
    memcpy(p->rail_sel, o->rail_sel, sizeof(p->rail_sel));
    if (p->nrail_sel) {
        p->ends = calloc(o->nnodes * p->nrail_sel + 1, sizeof(*p->ends));
        if (!p->ends) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_RUN, "out of memory for the rails");
        }
        for (size_t i = 0; i < o->nnodes; i++)
            for (size_t k = 0; k < p->nrail_sel; k++) {
                struct gdr_plan_end *e = &p->ends[i * p->nrail_sel + k];
                e->node = i;
                e->gpu = -1;
                if (left_out(o, i) || (size_t)o->rail_sel[k] >= o->rails[i].nrails)
                    continue;
                const struct gdr_rail *r = &o->rails[i].rails[o->rail_sel[k]];
                snprintf(e->device, sizeof(e->device), "%s", r->device);
                e->gpu = r->gpu;
                snprintf(e->gpu_bdf, sizeof(e->gpu_bdf), "%s", r->gpu_bdf);
            }
    }
    rail_groups(p, o->rails_serial, o->shared_nic_together);
    if (o->pairing == GDR_PAIRING_FILE) {
        /* A pairs file's pairs with a node left out are dropped. */
        struct gdr_pair *pairs = calloc(o->npairs + 1, sizeof(*pairs));
        size_t np = 0;
        if (!pairs) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu pairs", o->npairs);
        }
        for (size_t k = 0; k < o->npairs; k++)
            if (o->pairs[k].a >= o->nnodes || o->pairs[k].b >= o->nnodes ||
                (!left_out(o, o->pairs[k].a) && !left_out(o, o->pairs[k].b)))
                pairs[np++] = o->pairs[k]; /* out of range: gdr_sched_from_pairs names it */
        int rc = gdr_sched_from_pairs(o->nnodes, pairs, np, &p->file);
        free(pairs);
        if (rc) {
            gdr_plan_free(p);
            return -1;
        }
    }
    p->meta = cJSON_CreateObject();
    cJSON_AddStringToObject(p->meta, "pairing", pairing_name(o->pairing));
    if (o->pairing == GDR_PAIRING_RANDOM) {
        cJSON_AddNumberToObject(p->meta, "random_k", (double)o->random_k);
        cJSON_AddNumberToObject(p->meta, "seed", (double)o->seed);
    }
    cJSON_AddNumberToObject(p->meta, "max_concurrent", (double)o->max_concurrent);
    cJSON_AddStringToObject(p->meta, "directions", o->one_direction ? "one" : "both");
    cJSON_AddBoolToObject(p->meta, "rails_serial", o->rails_serial);
    cJSON_AddBoolToObject(p->meta, "shared_nic_together", o->shared_nic_together);
    cJSON *rs = cJSON_AddArrayToObject(p->meta, "rails");
    for (size_t k = 0; k < p->nrail_sel; k++)
        cJSON_AddItemToArray(rs, cJSON_CreateNumber(o->rail_sel[k]));
    cJSON *lo = cJSON_AddArrayToObject(p->meta, "left_out");
    for (size_t i = 0; i < o->nnodes; i++)
        if (left_out(o, i))
            cJSON_AddItemToArray(lo, cJSON_CreateString(o->nodes[i]));
    cJSON_AddNumberToObject(p->meta, "sizes", (double)o->nsizes);
    cJSON_AddNumberToObject(p->meta, "time_per_size_s", o->time_per_size_s);
    cJSON_AddNumberToObject(p->meta, "run_overhead_s", o->run_overhead_s);
    cJSON_AddNumberToObject(p->meta, "base_port", o->base_port);
    p->soak_s = o->soak_s;
    p->rotate_s = o->rotate_s;
    if (compute_shares(p) ||
        compute_schedule(p, (double)o->nsizes * o->time_per_size_s + o->run_overhead_s)) {
        gdr_plan_free(p);
        return -1;
    }
    return 0;
}

/* ---- JSON ---- */

cJSON *gdr_plan_to_json(const struct gdr_plan *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plan_version", GDR_PLAN_VERSION);
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (size_t i = 0; i < p->nnodes; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[i]));
    if (p->meta)
        cJSON_AddItemToObject(o, "options", cJSON_Duplicate(p->meta, true));
    cJSON *tests = cJSON_AddArrayToObject(o, "tests");
    for (size_t t = 0; t < p->ntests; t++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "tool", p->tests[t].tool);
        cJSON_AddStringToObject(x, "placement", p->tests[t].placement);
        cJSON_AddStringToObject(x, "gdr", p->tests[t].gdr);
        cJSON_AddItemToArray(tests, x);
    }
    cJSON *groups = cJSON_AddArrayToObject(o, "rail_groups");
    for (size_t k = 0; k < p->nrail_sel; k++)
        cJSON_AddItemToArray(groups, cJSON_CreateNumber((double)p->group_of[k]));
    /* per node, per selected rail: [device, gpu, gpu_bdf] (gpu_bdf "" when
     * unknown); null for a node left out */
    cJSON *ends = cJSON_AddArrayToObject(o, "rail_ends");
    for (size_t i = 0; p->nrail_sel && i < p->nnodes; i++) {
        if (p->left_out[i]) {
            cJSON_AddItemToArray(ends, cJSON_CreateNull());
            continue;
        }
        cJSON *row = cJSON_CreateArray();
        for (size_t k = 0; k < p->nrail_sel; k++) {
            const struct gdr_plan_end *e = &p->ends[i * p->nrail_sel + k];
            cJSON *x = cJSON_CreateArray();
            cJSON_AddItemToArray(x, cJSON_CreateString(e->device));
            cJSON_AddItemToArray(x, cJSON_CreateNumber(e->gpu));
            cJSON_AddItemToArray(x, cJSON_CreateString(e->gpu_bdf));
            cJSON_AddItemToArray(row, x);
        }
        cJSON_AddItemToArray(ends, row);
    }
    if (p->pairing == GDR_PAIRING_FILE) {
        cJSON *pairs = cJSON_AddArrayToObject(o, "pairs");
        for (size_t r = 0; r < p->file.nrounds; r++)
            for (size_t q = 0; q < p->file.rounds[r].npairs; q++) {
                cJSON *x = cJSON_CreateArray();
                cJSON_AddItemToArray(x, cJSON_CreateNumber((double)p->file.rounds[r].pairs[q].a));
                cJSON_AddItemToArray(x, cJSON_CreateNumber((double)p->file.rounds[r].pairs[q].b));
                cJSON_AddItemToArray(pairs, x);
            }
    }
    if (p->cycle) {
        /* the soak as planned: rotate_s is the computed default when not given */
        cJSON *soak = cJSON_AddObjectToObject(o, "soak");
        cJSON_AddNumberToObject(soak, "duration_s", p->soak_s);
        cJSON_AddNumberToObject(soak, "rotate_s", p->rotate_s);
        cJSON_AddNumberToObject(soak, "cycle_rounds", (double)p->cycle);
        cJSON_AddNumberToObject(soak, "run_s", gdr_plan_run_soak_s(p, 1));
    }
    cJSON_AddNumberToObject(o, "rounds_count", (double)p->nrounds);
    cJSON_AddNumberToObject(o, "steps_count", (double)p->nsteps);
    cJSON_AddNumberToObject(o, "runs_count", (double)p->nruns);
    cJSON_AddNumberToObject(o, "estimated_s", p->estimated_s);
    return o;
}

static int end_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_end *e,
                         const char *what)
{
    char node[GDR_NODE_NAME_LEN];
    double gpu;
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", what);
    if (gdr_json_str(o, "node", node, sizeof(node), what) ||
        gdr_json_str(o, "device", e->device, sizeof(e->device), what) ||
        gdr_json_double(o, "gpu", &gpu, what))
        return gdr_cluster_input_error();
    long n = gdr_plan_node_index(p, node);
    if (n < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: node '%s' is not in the plan's nodes", what, node);
    e->node = (size_t)n;
    e->gpu = gpu < 0 ? -1 : (int)gpu;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "gpu_bdf"); /* optional */
    snprintf(e->gpu_bdf, sizeof(e->gpu_bdf), "%s", cJSON_IsString(b) ? b->valuestring : "");
    return 0;
}

int gdr_plan_run_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_run *r,
                           const char *what)
{
    char w[300];
    uint64_t rail, port;
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", what);
    if (gdr_json_str(o, "id", r->id, sizeof(r->id), what) ||
        gdr_json_str(o, "tool", r->test.tool, sizeof(r->test.tool), what) ||
        gdr_json_str(o, "placement", r->test.placement, sizeof(r->test.placement), what) ||
        gdr_json_str(o, "gdr", r->test.gdr, sizeof(r->test.gdr), what) ||
        gdr_json_u64(o, "rail", GDR_RAILS_MAX - 1, &rail, what) ||
        gdr_json_u64(o, "port", 65535, &port, what))
        return gdr_cluster_input_error();
    if (strchr(r->id, '/') || strchr(r->id, '\t') || !strcmp(r->id, "..") || !strcmp(r->id, "."))
        return gdr_fail(GDR_EXIT_USAGE, "%s: id '%s' is not a file name", what, r->id);
    r->rail = (int)rail;
    r->port = (unsigned)port;
    const cJSON *share = cJSON_GetObjectItemCaseSensitive(o, "nic_share");
    r->nic_share = cJSON_IsNumber(share) && share->valuedouble >= 1 && share->valuedouble <= 64
                       ? (unsigned)share->valuedouble
                       : 1;
    snprintf(w, sizeof(w), "%s.client", what);
    if (end_from_json(cJSON_GetObjectItemCaseSensitive(o, "client"), p, &r->client, w))
        return -1;
    snprintf(w, sizeof(w), "%s.server", what);
    return end_from_json(cJSON_GetObjectItemCaseSensitive(o, "server"), p, &r->server, w);
}

static int test_from_json(const cJSON *x, struct gdr_test_mode *t, const char *what)
{
    if (gdr_json_str(x, "tool", t->tool, sizeof(t->tool), what) ||
        gdr_json_str(x, "placement", t->placement, sizeof(t->placement), what) ||
        gdr_json_str(x, "gdr", t->gdr, sizeof(t->gdr), what))
        return gdr_cluster_input_error();
    return 0;
}

/* A whole number from 0 to max at meta's key (default when absent). */
static int opt_count(const cJSON *meta, const char *key, double max, double dflt, size_t *out,
                     const char *what)
{
    double v = gdr_jnum_or(meta, key, dflt);
    if (!(v >= 0 && v <= max) || v != (double)(uint64_t)v)
        return gdr_fail(GDR_EXIT_USAGE, "%s: options.%s is not a whole number from 0 to %.0f", what,
                        key, max);
    *out = (size_t)v;
    return 0;
}

/* "" or a PCI address (hex digits, ':' and '.'): it becomes an argument
 * of the benchmark (--mem=cuda:BDF) and a field of plan-runs' lines. */
static bool bus_id_ok(const cJSON *b)
{
    return cJSON_IsString(b) && strlen(b->valuestring) < GDR_BDF_LEN &&
           strspn(b->valuestring, "0123456789abcdefABCDEF:.") == strlen(b->valuestring);
}

static int ends_from_json(const cJSON *doc, struct gdr_plan *p, const char *what)
{
    const cJSON *ends = cJSON_GetObjectItemCaseSensitive(doc, "rail_ends"), *row;
    if (!p->nrail_sel)
        return 0;
    if (!cJSON_IsArray(ends) || (size_t)cJSON_GetArraySize(ends) != p->nnodes)
        return gdr_fail(GDR_EXIT_USAGE, "%s: rail_ends must list every node", what);
    p->ends = calloc(p->nnodes * p->nrail_sel + 1, sizeof(*p->ends));
    if (!p->ends)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
    size_t i = 0;
    cJSON_ArrayForEach(row, ends) {
        for (size_t k = 0; k < p->nrail_sel; k++) {
            struct gdr_plan_end *e = &p->ends[i * p->nrail_sel + k];
            e->node = i;
            e->gpu = -1;
            if (cJSON_IsNull(row))
                continue;
            const cJSON *x = cJSON_GetArrayItem(row, (int)k);
            const cJSON *dev = cJSON_GetArrayItem(x, 0), *gpu = cJSON_GetArrayItem(x, 1);
            if (!cJSON_IsString(dev) || strlen(dev->valuestring) >= sizeof(e->device) ||
                !cJSON_IsNumber(gpu) || gpu->valuedouble > 1024)
                return gdr_fail(GDR_EXIT_USAGE, "%s: rail_ends[%zu][%zu] is not [device, gpu]",
                                what, i, k);
            snprintf(e->device, sizeof(e->device), "%s", dev->valuestring);
            e->gpu = gpu->valuedouble < 0 ? -1 : (int)gpu->valuedouble;
            const cJSON *bdf = cJSON_GetArrayItem(x, 2); /* optional: the bus id */
            if (bdf && !bus_id_ok(bdf))
                return gdr_fail(GDR_EXIT_USAGE,
                                "%s: rail_ends[%zu][%zu]: the GPU's bus id is not a PCI address",
                                what, i, k);
            snprintf(e->gpu_bdf, sizeof(e->gpu_bdf), "%s", bdf ? bdf->valuestring : "");
        }
        i++;
    }
    return 0;
}

static int pairs_from_json(const cJSON *doc, struct gdr_plan *p, const char *what)
{
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(doc, "pairs"), *x;
    if (!cJSON_IsArray(pairs))
        return gdr_fail(GDR_EXIT_USAGE, "%s: pairing 'file' needs a 'pairs' array", what);
    size_t n = (size_t)cJSON_GetArraySize(pairs), k = 0;
    struct gdr_pair *v = calloc(n + 1, sizeof(*v));
    if (!v)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
    cJSON_ArrayForEach(x, pairs) {
        const cJSON *a = cJSON_GetArrayItem(x, 0), *b = cJSON_GetArrayItem(x, 1);
        if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || a->valuedouble < 0 || b->valuedouble < 0 ||
            a->valuedouble >= (double)p->nnodes || b->valuedouble >= (double)p->nnodes ||
            p->left_out[(size_t)a->valuedouble] || p->left_out[(size_t)b->valuedouble]) {
            free(v);
            return gdr_fail(GDR_EXIT_USAGE, "%s: pairs[%zu] is not two nodes in play", what, k);
        }
        v[k++] = (struct gdr_pair){(size_t)a->valuedouble, (size_t)b->valuedouble};
    }
    int rc = gdr_sched_from_pairs(p->nnodes, v, n, &p->file);
    free(v);
    return rc;
}

int gdr_plan_from_json(const cJSON *doc, const char *what, struct gdr_plan *p)
{
    memset(p, 0, sizeof(*p));
    char v[64];
    if (gdr_json_str(doc, "plan_version", v, sizeof(v), what))
        return gdr_cluster_input_error();
    if (strcmp(v, GDR_PLAN_VERSION))
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: plan_version '%s' (an older gdr-cluster's), this one reads '%s': "
                        "plan again",
                        what, v, GDR_PLAN_VERSION);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "options");
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(tests) || !cJSON_IsObject(meta))
        return gdr_fail(GDR_EXIT_USAGE, "%s: 'nodes', 'tests' and 'options' are required", what);
    size_t nn = (size_t)cJSON_GetArraySize(nodes);
    p->nodes = calloc(nn + 1, sizeof(*p->nodes));
    p->left_out = calloc(nn + 1, sizeof(bool));
    p->meta = cJSON_Duplicate(meta, true);
    if (!p->nodes || !p->left_out || !p->meta) {
        gdr_plan_free(p);
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, nodes) {
        if (!cJSON_IsString(it) || !gdr_plan_node_name_ok(it->valuestring)) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_USAGE, "%s: nodes[%zu] is not a node name", what, p->nnodes);
        }
        snprintf(p->nodes[p->nnodes++], GDR_NODE_NAME_LEN, "%s", it->valuestring);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(meta, "left_out")) {
        long i = cJSON_IsString(it) ? gdr_plan_node_index(p, it->valuestring) : -1;
        if (i < 0) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_USAGE, "%s: options.left_out names no node of the plan", what);
        }
        p->left_out[i] = true;
    }
    char w[200];
    cJSON_ArrayForEach(it, tests) {
        snprintf(w, sizeof(w), "%s: tests[%zu]", what, p->ntests);
        if (p->ntests == GDR_PLAN_MAX_TESTS || test_from_json(it, &p->tests[p->ntests], w)) {
            gdr_plan_free(p);
            return p->ntests == GDR_PLAN_MAX_TESTS
                       ? gdr_fail(GDR_EXIT_USAGE, "%s: more than %d tests", what,
                                  GDR_PLAN_MAX_TESTS)
                       : -1;
        }
        p->ntests++;
    }
    const cJSON *rails = cJSON_GetObjectItemCaseSensitive(meta, "rails");
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(doc, "rail_groups");
    cJSON_ArrayForEach(it, rails) {
        const cJSON *g = cJSON_GetArrayItem(groups, (int)p->nrail_sel);
        if (p->nrail_sel == GDR_RAILS_MAX || !cJSON_IsNumber(it) || it->valuedouble < 0 ||
            it->valuedouble >= GDR_RAILS_MAX || !cJSON_IsNumber(g) || g->valuedouble < 0 ||
            g->valuedouble >= GDR_RAILS_MAX) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_USAGE, "%s: options.rails[%zu] or its rail group is bad", what,
                            p->nrail_sel);
        }
        p->group_of[p->nrail_sel] = (size_t)g->valuedouble;
        p->rail_sel[p->nrail_sel++] = (int)it->valuedouble;
    }
    p->ngroups = 1;
    for (size_t k = 0; k < p->nrail_sel; k++)
        if (p->group_of[k] + 1 > p->ngroups)
            p->ngroups = p->group_of[k] + 1;
    const char *pairing = gdr_jstr_or(meta, "pairing", "");
    size_t port = 0, seed = 0;
    p->one_direction = !strcmp(gdr_jstr_or(meta, "directions", ""), "one");
    p->pairing = !strcmp(pairing, "full")     ? GDR_PAIRING_FULL
                 : !strcmp(pairing, "quick")  ? GDR_PAIRING_QUICK
                 : !strcmp(pairing, "random") ? GDR_PAIRING_RANDOM
                                              : GDR_PAIRING_FILE;
    int rc = 0;
    if (p->pairing == GDR_PAIRING_FILE && strcmp(pairing, "file"))
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: options.pairing '%s' (full, quick, random, file)", what,
                      pairing);
    rc = rc ? rc : opt_count(meta, "max_concurrent", 1 << 20, 0, &p->max_concurrent, what);
    rc = rc ? rc : opt_count(meta, "base_port", 65000, 18515, &port, what);
    if (!rc && p->pairing == GDR_PAIRING_RANDOM)
        rc = opt_count(meta, "random_k", 1e9, 0, &p->random_k, what) ||
             opt_count(meta, "seed", 9007199254740991.0, 0, &seed, what);
    p->base_port = (unsigned)port;
    p->seed = seed;
    const cJSON *soak = cJSON_GetObjectItemCaseSensitive(doc, "soak");
    p->soak_s = gdr_jnum_or(soak, "duration_s", 0);
    p->rotate_s = gdr_jnum_or(soak, "rotate_s", 0);
    if (soak && !(p->soak_s > 0 && p->rotate_s > 0))
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: soak.duration_s and rotate_s must be above 0", what);
    if (rc || ends_from_json(doc, p, what) ||
        (p->pairing == GDR_PAIRING_FILE && pairs_from_json(doc, p, what)) || compute_shares(p) ||
        compute_schedule(p, gdr_plan_step_s(p))) {
        gdr_plan_free(p);
        return -1;
    }
    return 0;
}

int gdr_plan_load(const char *path, struct gdr_plan *p)
{
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root)
        return -1;
    int rc = gdr_plan_from_json(root, path, p);
    cJSON_Delete(root);
    return rc;
}

const char *gdr_plan_end_gpu(const struct gdr_plan_end *e, char *buf, size_t len)
{
    /* The bus id, not the index: CUDA_VISIBLE_DEVICES can hide or reorder
     * GPUs, and the benchmark takes --mem=cuda:BUS_ID as well. */
    if (e->gpu >= 0 && e->gpu_bdf[0])
        snprintf(buf, len, "%s", e->gpu_bdf);
    else if (e->gpu >= 0)
        snprintf(buf, len, "%d", e->gpu);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void print_end(FILE *f, const struct gdr_plan *p, const struct gdr_plan_end *e)
{
    char gpu[GDR_BDF_LEN];
    fprintf(f, "\t%s\t%s\t%s", p->nodes[e->node], e->device[0] ? e->device : "-",
            gdr_plan_end_gpu(e, gpu, sizeof(gpu)));
}

void gdr_plan_print_run(FILE *f, const struct gdr_plan *p, const struct gdr_plan_run *r)
{
    fprintf(f, "%zu\t%zu\t%s\t%s\t%s\t%s\t%d\t%u", r->round, r->step, r->id, r->test.tool,
            r->test.placement, r->test.gdr, r->rail, r->port);
    print_end(f, p, &r->client);
    print_end(f, p, &r->server);
    if (r->soak_s) /* a soak's run: one more field, its --soak seconds */
        fprintf(f, "\t%u", r->soak_s);
    fputc('\n', f);
}

struct print_ctx {
    FILE *f;
    const struct gdr_plan *p;
};

static int print_one(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    const struct print_ctx *pc = ctx;
    gdr_plan_print_run(pc->f, pc->p, r);
    return 0;
}

int gdr_plan_print_round(FILE *f, const struct gdr_plan *p, size_t round)
{
    struct print_ctx pc = {f, p};
    return gdr_plan_foreach(p, round, print_one, &pc);
}
