/* cluster_suspects.c - robust statistics, suspects, retest verdicts. */
#include "config.h"

#include "cluster_suspects.h"
#include "error.h"
#include "stats.h"
#include "json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this many nodes a bad node is in half the links or more. */
#define SMALL_CLUSTER 5

void gdr_detect_opts_default(struct gdr_detect_opts *o)
{
    o->tolerance = 0.10;
    o->mad_k = 4;
    o->min_link_frac = 0.90;
    o->size = 0;
}

const char *gdr_suspect_kind_name(enum gdr_suspect_kind k)
{
    switch (k) {
    case GDR_SUSPECT_NODE: return "node";
    case GDR_SUSPECT_RAIL: return "rail";
    case GDR_SUSPECT_GDR: return "gdr";
    case GDR_SUSPECT_LINK: return "link";
    }
    return "?";
}

/* Median of v[0..n) (sorts v); 0 when empty. */
static double median(double *v, size_t n)
{
    return n ? gdr_median_inplace(v, n) : 0;
}

/* Median absolute deviation from med (reuses v). */
static double mad(double *v, size_t n, double med)
{
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - med);
    return median(v, n);
}

/* Higher is better: bandwidth as is, latency as its inverse. */
static double score(const struct gdr_matrix *m, double value)
{
    return m->latency ? (value > 0 ? 1 / value : 0) : value;
}

bool gdr_cell_low(const struct gdr_matrix *m, const struct gdr_mstats *st,
                  const struct gdr_detect_opts *o, const struct gdr_cell *c)
{
    if (c->state != GDR_CELL_OK)
        return false;
    if (score(m, c->value) < st->threshold_score)
        return true;
    if (!m->latency && o->min_pct_of_limit > 0 && c->limit > 0 &&
        c->value < o->min_pct_of_limit / 100 * c->limit)
        return true;
    return !m->latency && o->min_link_frac > 0 && c->rate_bytes > 0 &&
           c->value < o->min_link_frac * c->rate_bytes;
}

static void stats_free(struct gdr_mstats *st)
{
    free(st->rounds);
    free(st->node_flag);
}

void gdr_detection_free(struct gdr_detection *d)
{
    for (size_t i = 0; i < d->nstats; i++)
        stats_free(&d->stats[i]);
    free(d->stats);
    free(d->suspects);
    memset(d, 0, sizeof(*d));
}

/* Matrices to analyse: per (test, rail) the chosen size. */
static bool analysed(const struct gdr_matrix_set *s, size_t k, const struct gdr_detect_opts *o)
{
    const struct gdr_matrix *m = &s->m[k];
    if (o->size)
        return m->size == o->size;
    for (size_t j = 0; j < s->count; j++) {
        const struct gdr_matrix *x = &s->m[j];
        if (j == k || x->rail != m->rail || !gdr_test_mode_equal(&x->test, &m->test))
            continue;
        if (m->latency ? x->size < m->size : x->size > m->size)
            return false;
    }
    return true;
}

static int cmp_round(const void *x, const void *y)
{
    const struct gdr_cell *const *a = x, *const *b = y;
    return (*a)->round < (*b)->round ? -1 : (*a)->round > (*b)->round;
}

static int matrix_stats(const struct gdr_matrix *m, const struct gdr_detect_opts *o,
                        struct gdr_mstats *st)
{
    size_t n = m->n;
    double *v = calloc(m->ncells + 1, sizeof(double));
    double *best = calloc(n + 1, sizeof(double));
    const struct gdr_cell **by_round = calloc(m->ncells + 1, sizeof(*by_round));
    st->node_flag = calloc(n + 1, sizeof(bool));
    size_t maxround = 0, nok = 0;
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].round > maxround)
            maxround = m->cells[i].round;
    /* rounds: as many as hold a cell (at most the cells) */
    st->rounds = calloc((maxround < m->ncells ? maxround : m->ncells) + 1, sizeof(*st->rounds));
    if (!v || !best || !by_round || !st->node_flag || !st->rounds) {
        free(v);
        free(best);
        free(by_round);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    for (size_t i = 0; i < m->ncells; i++) {
        const struct gdr_cell *c = &m->cells[i];
        if (c->state == GDR_CELL_FAILED)
            st->nfailed++;
        if (c->state != GDR_CELL_OK)
            continue;
        double sc = score(m, c->value);
        v[st->nvalid++] = sc;
        by_round[nok++] = c;
        if (sc > best[c->c])
            best[c->c] = sc;
        if (sc > best[c->s])
            best[c->s] = sc;
    }
    st->median = median(v, st->nvalid);
    st->mad = mad(v, st->nvalid, st->median);
    if (n >= SMALL_CLUSTER) {
        st->reference = st->median;
        double spread = o->mad_k * 1.4826 * st->mad, tol = o->tolerance * st->reference;
        st->threshold_score = st->reference - (spread > tol ? spread : tol);
    } else {
        size_t nb = 0;
        for (size_t i = 0; i < n; i++)
            if (best[i] > 0)
                best[nb++] = best[i];
        st->reference = median(best, nb);
        st->threshold_score = st->reference * (1 - o->tolerance);
    }
    /* Per round: the same figures over that round's cells, in one pass
     * over the cells sorted by round (a full plan has thousands). */
    qsort(by_round, nok, sizeof(*by_round), cmp_round);
    for (size_t i = 0; i < nok;) {
        size_t j = i, k = 0;
        for (; j < nok && by_round[j]->round == by_round[i]->round; j++)
            v[k++] = score(m, by_round[j]->value);
        if (by_round[i]->round > 0) {
            struct gdr_round_stats *rs = &st->rounds[st->nrounds++];
            rs->round = by_round[i]->round;
            rs->n = k;
            rs->median = median(v, k);
            rs->mad = mad(v, k, rs->median);
        }
        i = j;
    }
    free(v);
    free(best);
    free(by_round);
    return 0;
}

/* Partners of node i in m (any OK cell either way) and those with a low
 * one: its row and its column, merged by partner (both sorted). */
static void partners(const struct gdr_matrix *m, const struct gdr_mstats *st,
                     const struct gdr_detect_opts *o, size_t i, struct gdr_suspect *out)
{
    out->npartners = out->nlow_partners = 0;
    size_t nr = gdr_matrix_node_count(m, i, 0), nc = gdr_matrix_node_count(m, i, 1);
    for (size_t a = 0, b = 0; a < nr || b < nc;) {
        const struct gdr_cell *x = a < nr ? gdr_matrix_node_cell(m, i, 0, a) : NULL;
        const struct gdr_cell *y = b < nc ? gdr_matrix_node_cell(m, i, 1, b) : NULL;
        size_t px = x ? x->s : SIZE_MAX, py = y ? y->c : SIZE_MAX, p = px < py ? px : py;
        if (px != p)
            x = NULL;
        if (py != p)
            y = NULL;
        a += x != NULL;
        b += y != NULL;
        if (p == i || ((!x || x->state != GDR_CELL_OK) && (!y || y->state != GDR_CELL_OK)))
            continue;
        out->npartners++;
        if ((x && gdr_cell_low(m, st, o, x)) || (y && gdr_cell_low(m, st, o, y))) {
            if (out->nlow_partners < GDR_SUSPECT_MAX_PARTNERS)
                out->low_partners[out->nlow_partners] = p;
            out->nlow_partners++;
        }
    }
}

static bool gdr_on(const struct gdr_matrix *m)
{
    return !strcmp(m->test.gdr, "on");
}

static int add_suspect(struct gdr_detection *d, const struct gdr_suspect *s)
{
    struct gdr_suspect *g = realloc(d->suspects, (d->nsuspects + 1) * sizeof(*g));
    if (!g)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    d->suspects = g;
    d->suspects[d->nsuspects++] = *s;
    return 0;
}

/* GDR asked for and not in effect on node i's end in matrix m. */
static bool gdr_missing(const struct gdr_matrix *m, size_t i)
{
    if (!gdr_on(m))
        return false;
    for (int d = 0; d < 2; d++)
        for (size_t k = 0; k < gdr_matrix_node_count(m, i, d); k++) {
            const struct gdr_cell *c = gdr_matrix_node_cell(m, i, d, k);
            if (c->state == GDR_CELL_OK && c->gdr_off[d])
                return true;
        }
    return false;
}

static bool node_has_cells(const struct gdr_matrix *m, size_t i)
{
    for (int d = 0; d < 2; d++)
        for (size_t k = 0; k < gdr_matrix_node_count(m, i, d); k++)
            if (gdr_matrix_node_cell(m, i, d, k)->state == GDR_CELL_OK)
                return true;
    return false;
}

/* The suspects of node i across every analysed matrix. */
static int node_suspects(const struct gdr_matrix_set *s, const struct gdr_detect_opts *o,
                         struct gdr_detection *d, size_t i, bool *suspect_rail)
{
    long base_ev = -1, on_ev = -1, gdr_ev = -1;
    size_t base_rails_tested = 0, base_rails_flagged = 0;
    bool base_seen = false;
    bool tested[GDR_RAILS_MAX] = {false}, flagged[GDR_RAILS_MAX] = {false};
    long rail_ev[GDR_RAILS_MAX];
    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_matrix *m = &s->m[d->stats[k].matrix];
        bool f = d->stats[k].node_flag[i];
        if (gdr_on(m)) {
            if (f && on_ev < 0)
                on_ev = (long)k;
            if (gdr_missing(m, i) && gdr_ev < 0)
                gdr_ev = (long)k;
            continue;
        }
        if (!node_has_cells(m, i) || m->rail < 0 || m->rail >= GDR_RAILS_MAX)
            continue;
        base_seen = true;
        tested[m->rail] = true;
        if (f && !flagged[m->rail]) {
            flagged[m->rail] = true;
            rail_ev[m->rail] = (long)k;
        }
        if (f && base_ev < 0)
            base_ev = (long)k;
    }
    for (int r = 0; r < GDR_RAILS_MAX; r++) {
        base_rails_tested += tested[r];
        base_rails_flagged += flagged[r];
    }
    struct gdr_suspect sp;
    memset(&sp, 0, sizeof(sp));
    sp.a = sp.b = i;
    if (base_ev >= 0 && base_rails_tested > 1 && base_rails_flagged < base_rails_tested) {
        for (int r = 0; r < GDR_RAILS_MAX; r++) {
            if (!flagged[r])
                continue;
            sp.kind = GDR_SUSPECT_RAIL;
            sp.stats = (size_t)rail_ev[r];
            suspect_rail[i * GDR_RAILS_MAX + (size_t)r] = true;
            partners(&s->m[d->stats[sp.stats].matrix], &d->stats[sp.stats], o, i, &sp);
            if (add_suspect(d, &sp))
                return -1;
        }
        return 0;
    }
    if (base_ev >= 0 || (on_ev >= 0 && !base_seen && gdr_ev < 0)) {
        sp.kind = GDR_SUSPECT_NODE;
        sp.stats = (size_t)(base_ev >= 0 ? base_ev : on_ev);
    } else if (on_ev >= 0 || gdr_ev >= 0) {
        sp.kind = GDR_SUSPECT_GDR;
        sp.stats = (size_t)(on_ev >= 0 ? on_ev : gdr_ev);
        sp.gdr_not_in_effect = gdr_ev >= 0;
    } else {
        return 0;
    }
    for (int r = 0; r < GDR_RAILS_MAX; r++)
        suspect_rail[i * GDR_RAILS_MAX + (size_t)r] = true;
    partners(&s->m[d->stats[sp.stats].matrix], &d->stats[sp.stats], o, i, &sp);
    return add_suspect(d, &sp);
}

static bool link_known(const struct gdr_detection *d, const struct gdr_matrix_set *s, size_t a,
                       size_t b, int rail)
{
    for (size_t k = 0; k < d->nsuspects; k++) {
        const struct gdr_suspect *x = &d->suspects[k];
        if (x->kind == GDR_SUSPECT_LINK && x->a == a && x->b == b &&
            s->m[d->stats[x->stats].matrix].rail == rail)
            return true;
    }
    return false;
}

int gdr_detect(const struct gdr_matrix_set *s, const struct gdr_detect_opts *o,
               struct gdr_detection *d)
{
    memset(d, 0, sizeof(*d));
    d->stats = calloc(s->count + 1, sizeof(*d->stats));
    bool *suspect_rail = calloc(s->n * GDR_RAILS_MAX + 1, sizeof(bool));
    if (!d->stats || !suspect_rail) {
        free(suspect_rail);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    int rc = 0;
    for (size_t k = 0; k < s->count && !rc; k++) {
        if (!analysed(s, k, o))
            continue;
        struct gdr_mstats *st = &d->stats[d->nstats++];
        st->matrix = k;
        if ((rc = matrix_stats(&s->m[k], o, st)))
            break;
        for (size_t i = 0; i < s->m[k].ncells; i++)
            st->nlow += gdr_cell_low(&s->m[k], st, o, &s->m[k].cells[i]);
        for (size_t i = 0; i < s->n; i++) {
            struct gdr_suspect tmp;
            partners(&s->m[k], st, o, i, &tmp);
            st->node_flag[i] = tmp.npartners >= 2 && 2 * tmp.nlow_partners > tmp.npartners;
        }
    }
    for (size_t i = 0; i < s->n && !rc; i++)
        rc = node_suspects(s, o, d, i, suspect_rail);
    /* Links: low cells between nodes that are not suspects on that rail. */
    for (size_t k = 0; k < d->nstats && !rc; k++) {
        const struct gdr_matrix *m = &s->m[d->stats[k].matrix];
        int rail = m->rail >= 0 && m->rail < GDR_RAILS_MAX ? m->rail : 0;
        for (size_t q = 0; q < m->ncells && !rc; q++) {
            size_t a = m->cells[q].c, b = m->cells[q].s;
            if (!gdr_cell_low(m, &d->stats[k], o, &m->cells[q]) ||
                suspect_rail[a * GDR_RAILS_MAX + (size_t)rail] ||
                suspect_rail[b * GDR_RAILS_MAX + (size_t)rail])
                continue;
            size_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (link_known(d, s, lo, hi, m->rail))
                continue;
            struct gdr_suspect sp;
            memset(&sp, 0, sizeof(sp));
            sp.kind = GDR_SUSPECT_LINK;
            sp.a = lo;
            sp.b = hi;
            sp.stats = k;
            sp.nlow_partners = 1;
            sp.low_partners[0] = hi;
            sp.npartners = 1;
            rc = add_suspect(d, &sp);
        }
    }
    free(suspect_rail);
    if (rc)
        gdr_detection_free(d);
    return rc;
}

/* ---- suspects.json ---- */

static double to_value(const struct gdr_matrix *m, double sc)
{
    return m->latency ? (sc > 0 ? 1 / sc : 0) : sc;
}

static const char *metric(const struct gdr_matrix *m)
{
    return m->latency ? "latency" : "bandwidth";
}

static cJSON *stats_json(const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                         const struct gdr_mstats *st)
{
    cJSON *o = cJSON_CreateObject();
    char tn[64];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    cJSON_AddStringToObject(o, "test", tn);
    cJSON_AddNumberToObject(o, "rail", m->rail);
    cJSON_AddNumberToObject(o, "size", (double)m->size);
    cJSON_AddStringToObject(o, "metric", metric(m));
    /* Statistics in the metric's own unit (latency: seconds); MAD of the
     * compared score (bytes/s, or 1/s for latency). */
    cJSON_AddNumberToObject(o, "median", to_value(m, st->median));
    cJSON_AddNumberToObject(o, "mad_score", st->mad);
    cJSON_AddNumberToObject(o, "reference", to_value(m, st->reference));
    cJSON_AddNumberToObject(o, "threshold", to_value(m, st->threshold_score));
    cJSON_AddNumberToObject(o, "cells", (double)st->nvalid);
    cJSON_AddNumberToObject(o, "low_cells", (double)st->nlow);
    cJSON_AddNumberToObject(o, "failed_cells", (double)st->nfailed);
    /* Cells whose NIC counted errors or retransmissions: suspect numbers. */
    cJSON *nc = cJSON_AddArrayToObject(o, "not_clean");
    for (size_t q = 0; q < m->ncells; q++) {
        const struct gdr_cell *c = &m->cells[q];
        if (c->c == c->s || c->state != GDR_CELL_OK || c->clean != 0)
            continue;
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateString(s->nodes[c->c]));
        cJSON_AddItemToArray(pair, cJSON_CreateString(s->nodes[c->s]));
        cJSON_AddItemToArray(nc, pair);
    }
    cJSON *rs = cJSON_AddArrayToObject(o, "rounds");
    for (size_t r = 0; r < st->nrounds; r++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "round", (double)st->rounds[r].round);
        cJSON_AddNumberToObject(x, "cells", (double)st->rounds[r].n);
        cJSON_AddNumberToObject(x, "median", to_value(m, st->rounds[r].median));
        cJSON_AddNumberToObject(x, "mad_score", st->rounds[r].mad);
        cJSON_AddBoolToObject(x, "median_low", st->rounds[r].median < st->threshold_score);
        cJSON_AddItemToArray(rs, x);
    }
    return o;
}

cJSON *gdr_retest_run_json(const struct gdr_plan *p, const struct gdr_test_mode *t, int rail,
                           const char *id_prefix, size_t k, size_t j, size_t c, size_t sv,
                           const char *role, unsigned port)
{
    cJSON *o = cJSON_CreateObject();
    char tn[64], id[3 * GDR_NODE_NAME_LEN + 48];
    gdr_test_mode_name(t, tn, sizeof(tn));
    snprintf(id, sizeof(id), "%s%zu.%zu.%s.r%d.%s_%s", id_prefix, k + 1, j + 1, tn, rail,
             p->nodes[c], p->nodes[sv]);
    struct gdr_plan_end ce, se;
    gdr_plan_rail_end(p, c, rail, &ce);
    gdr_plan_rail_end(p, sv, rail, &se);
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "role", role);
    cJSON_AddStringToObject(o, "tool", t->tool);
    cJSON_AddStringToObject(o, "placement", t->placement);
    cJSON_AddStringToObject(o, "gdr", t->gdr);
    cJSON_AddNumberToObject(o, "rail", rail);
    cJSON_AddNumberToObject(o, "port", port);
    cJSON *ends[2] = {cJSON_CreateObject(), cJSON_CreateObject()};
    const struct gdr_plan_end *e[2] = {&ce, &se};
    for (int x = 0; x < 2; x++) {
        cJSON_AddStringToObject(ends[x], "node", p->nodes[e[x]->node]);
        cJSON_AddStringToObject(ends[x], "device", e[x]->device);
        cJSON_AddNumberToObject(ends[x], "gpu", e[x]->gpu);
        cJSON_AddStringToObject(ends[x], "gpu_bdf", e[x]->gpu_bdf);
    }
    cJSON_AddItemToObject(o, "client", ends[0]);
    cJSON_AddItemToObject(o, "server", ends[1]);
    return o;
}

static cJSON *retest_run(const struct gdr_plan *p, const struct gdr_matrix *m, size_t k, size_t j,
                         size_t c, size_t sv, const char *role, unsigned port)
{
    return gdr_retest_run_json(p, &m->test, m->rail, "retest", k, j, c, sv, role, port);
}

/* A node that is no suspect, other than a, b and the first nskip low
 * partners of sp (already retested): the triangulation partner. */
static long third_node(const struct gdr_detection *d, size_t n, size_t a, size_t b,
                       const struct gdr_suspect *sp, size_t nskip)
{
    for (size_t t = 0; t < n; t++) {
        bool skip = t == a || t == b;
        for (size_t q = 0; q < nskip; q++)
            skip |= sp->low_partners[q] == t;
        if (skip)
            continue;
        bool clean = !d->avoid || !d->avoid[t];
        for (size_t k = 0; k < d->nsuspects && clean; k++)
            clean = d->suspects[k].a != t && d->suspects[k].b != t;
        if (clean)
            return (long)t;
    }
    return -1;
}

static cJSON *cell_json(const struct gdr_matrix_set *s, const struct gdr_matrix *m, size_t c,
                        size_t sv, bool low)
{
    const struct gdr_cell *x = gdr_cell_at(m, c, sv);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "client", s->nodes[c]);
    cJSON_AddStringToObject(o, "server", s->nodes[sv]);
    cJSON_AddNumberToObject(o, "value", x->value);
    cJSON_AddNumberToObject(o, "round", (double)x->round);
    cJSON_AddBoolToObject(o, "low", low);
    return o;
}

static cJSON *suspect_json(const struct gdr_detection *d, const struct gdr_matrix_set *s,
                           const struct gdr_plan *p, const struct gdr_detect_opts *o, size_t k,
                           unsigned base_port)
{
    const struct gdr_suspect *sp = &d->suspects[k];
    const struct gdr_mstats *st = &d->stats[sp->stats];
    const struct gdr_matrix *m = &s->m[st->matrix];
    cJSON *j = cJSON_CreateObject();
    char tn[64];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    cJSON_AddStringToObject(j, "kind", gdr_suspect_kind_name(sp->kind));
    cJSON_AddStringToObject(j, "finding", "slow");
    cJSON *nodes = cJSON_AddArrayToObject(j, "nodes");
    cJSON_AddItemToArray(nodes, cJSON_CreateString(s->nodes[sp->a]));
    if (sp->b != sp->a)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(s->nodes[sp->b]));
    cJSON_AddNumberToObject(j, "rail", m->rail);
    cJSON_AddStringToObject(j, "test", tn);
    cJSON_AddNumberToObject(j, "size", (double)m->size);
    cJSON_AddStringToObject(j, "metric", metric(m));
    cJSON_AddNumberToObject(j, "reference", to_value(m, st->reference));
    cJSON_AddNumberToObject(j, "threshold", to_value(m, st->threshold_score));
    cJSON_AddNumberToObject(j, "min_link_frac", o->min_link_frac);
    cJSON_AddStringToObject(j, "status", "pending");
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddNumberToObject(ev, "partners", (double)sp->npartners);
    cJSON_AddNumberToObject(ev, "low_partners", (double)sp->nlow_partners);
    cJSON_AddBoolToObject(ev, "gdr_not_in_effect", sp->gdr_not_in_effect);
    cJSON *cells = cJSON_AddArrayToObject(ev, "cells");
    /* In the order of the cells (client, then server): the node's row and
     * column; a link's two cells. */
    for (size_t q = 0; q < m->ncells; q++) {
        const struct gdr_cell *x = &m->cells[q];
        size_t a = x->c, b = x->s;
        bool mine = sp->kind == GDR_SUSPECT_LINK
                        ? (a == sp->a && b == sp->b) || (a == sp->b && b == sp->a)
                        : a == sp->a || b == sp->a;
        if (mine && x->state == GDR_CELL_OK)
            cJSON_AddItemToArray(cells, cell_json(s, m, a, b, gdr_cell_low(m, st, o, x)));
        if (a > sp->a && a > sp->b && sp->kind == GDR_SUSPECT_LINK)
            break;
    }
    /* Retest: the suspect's low pairs (at most two), serially, and a third
     * node that is no suspect (its link to the suspect for a node, rail or
     * GDR path; its links to both ends, as controls, for a link). */
    cJSON *rt = cJSON_AddArrayToObject(j, "retest");
    size_t nr = 0;
    size_t lim = sp->nlow_partners < 2 ? sp->nlow_partners : 2;
    long t = third_node(d, s->n, sp->a, sp->b, sp, sp->kind == GDR_SUSPECT_LINK ? 0 : lim);
    if (sp->kind == GDR_SUSPECT_LINK) {
        bool fwd = gdr_cell_low(m, st, o, gdr_cell_at(m, sp->a, sp->b));
        size_t c = fwd ? sp->a : sp->b, sv = fwd ? sp->b : sp->a;
        cJSON_AddItemToArray(rt, retest_run(p, m, k, nr, c, sv, "suspect", base_port));
        nr++;
        if (t >= 0) {
            cJSON_AddItemToArray(rt,
                                 retest_run(p, m, k, nr++, sp->a, (size_t)t, "control", base_port));
            cJSON_AddItemToArray(rt,
                                 retest_run(p, m, k, nr++, sp->b, (size_t)t, "control", base_port));
        }
    } else {
        for (size_t q = 0; q < lim; q++) {
            size_t pa = sp->low_partners[q];
            bool fwd = gdr_cell_low(m, st, o, gdr_cell_at(m, sp->a, pa));
            cJSON_AddItemToArray(rt, retest_run(p, m, k, nr++, fwd ? sp->a : pa, fwd ? pa : sp->a,
                                                "suspect", base_port));
        }
        if (t >= 0)
            cJSON_AddItemToArray(rt,
                                 retest_run(p, m, k, nr++, sp->a, (size_t)t, "suspect", base_port));
    }
    cJSON_AddStringToObject(j, "third_node", t >= 0 ? s->nodes[t] : "");
    return j;
}

cJSON *gdr_detection_to_json(const struct gdr_detection *d, const struct gdr_matrix_set *s,
                             const struct gdr_plan *p, const struct gdr_detect_opts *o,
                             unsigned base_port)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "suspects_version", GDR_SUSPECTS_VERSION);
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    cJSON_AddNumberToObject(op, "tolerance", o->tolerance);
    cJSON_AddNumberToObject(op, "mad_k", o->mad_k);
    cJSON_AddNumberToObject(op, "min_link_frac", o->min_link_frac);
    cJSON_AddNumberToObject(op, "min_pct_of_limit", o->min_pct_of_limit);
    cJSON_AddNumberToObject(op, "size", (double)o->size);
    cJSON *ms = cJSON_AddArrayToObject(j, "matrices");
    for (size_t k = 0; k < d->nstats; k++)
        cJSON_AddItemToArray(ms, stats_json(s, &s->m[d->stats[k].matrix], &d->stats[k]));
    cJSON *ss = cJSON_AddArrayToObject(j, "suspects");
    for (size_t k = 0; k < d->nsuspects; k++)
        cJSON_AddItemToArray(ss, suspect_json(d, s, p, o, k, base_port));
    cJSON *sum = cJSON_AddObjectToObject(j, "summary");
    cJSON_AddNumberToObject(sum, "suspects", (double)d->nsuspects);
    cJSON_AddNumberToObject(sum, "confirmed", 0);
    cJSON_AddNumberToObject(sum, "cleared", 0);
    cJSON_AddNumberToObject(sum, "unresolved", 0);
    return j;
}

/* ---- verdicts after the retest ---- */

static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

/* A dead node: its retest run against a healthy partner failed again
 * (confirmed), ran (cleared), or did not run (unresolved). */
static void confirm_dead(cJSON *sp, const char *finding, gdr_retest_lookup lookup, void *ctx,
                         struct gdr_confirm_counts *counts)
{
    size_t ran = 0, failed = 0;
    char why[400] = "", partner[GDR_NODE_NAME_LEN] = "";
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sp, "retest")) {
        struct gdr_retest_value v;
        memset(&v, 0, sizeof(v));
        lookup(r, 0, &v, ctx);
        ran += v.ran;
        failed += v.ran && v.run_failed;
        set_item(r, "failed", v.ran ? cJSON_CreateBool(v.run_failed) : cJSON_CreateNull());
        snprintf(partner, sizeof(partner), "%s",
                 gdr_jstr_or(cJSON_GetObjectItemCaseSensitive(r, "server"), "node", ""));
        if (v.ran && v.run_failed && !why[0])
            snprintf(why, sizeof(why), "%s", v.reason);
    }
    const char *status;
    char verdict[600];
    if (!ran) {
        status = "unresolved";
        snprintf(verdict, sizeof(verdict), "%s; no retest against a healthy partner ran", finding);
        counts->unresolved++;
    } else if (failed) {
        status = "confirmed";
        snprintf(verdict, sizeof(verdict), "%s; the retest against %s failed too (%s)", finding,
                 partner, why);
        counts->confirmed++;
    } else {
        status = "cleared";
        snprintf(verdict, sizeof(verdict), "%s in the rounds, but ran against %s on the retest",
                 finding, partner);
        counts->cleared++;
    }
    set_item(sp, "status", cJSON_CreateString(status));
    set_item(sp, "verdict", cJSON_CreateString(verdict));
}

int gdr_suspects_confirm(cJSON *doc, gdr_retest_lookup lookup, void *ctx,
                         struct gdr_confirm_counts *counts)
{
    memset(counts, 0, sizeof(*counts));
    cJSON *ss = cJSON_GetObjectItemCaseSensitive(doc, "suspects");
    if (!cJSON_IsArray(ss))
        return gdr_fail(GDR_EXIT_USAGE, "suspects: field 'suspects' is %s",
                        ss ? "not an array" : "missing");
    cJSON *sp;
    size_t k = 0;
    cJSON_ArrayForEach(sp, ss) {
        k++;
        if (!cJSON_IsObject(sp))
            return gdr_fail(GDR_EXIT_USAGE, "suspects[%zu]: not an object", k - 1);
        const char *finding = gdr_jstr_or(sp, "finding", "");
        if (!strcmp(finding, "failed") || !strcmp(finding, "unreachable")) {
            confirm_dead(sp, finding, lookup, ctx, counts);
            continue;
        }
        bool latency = !strcmp(gdr_jstr_or(sp, "metric", ""), "latency");
        bool link = !strcmp(gdr_jstr_or(sp, "kind", ""), "link");
        double thr = gdr_jnum_or(sp, "threshold", 0),
               floor_frac = gdr_jnum_or(sp, "min_link_frac", 0);
        uint64_t size = gdr_jcount(sp, "size");
        size_t found = 0, low = 0, ctl_low = 0, gdr_off = 0;
        cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sp, "retest")) {
            struct gdr_retest_value v;
            memset(&v, 0, sizeof(v));
            lookup(r, size, &v, ctx);
            bool is_low =
                v.found && (latency ? v.value > thr
                                    : v.value < thr || (floor_frac > 0 && v.rate_bytes > 0 &&
                                                        v.value < floor_frac * v.rate_bytes));
            set_item(r, "value", v.found ? cJSON_CreateNumber(v.value) : cJSON_CreateNull());
            set_item(r, "low", v.found ? cJSON_CreateBool(is_low) : cJSON_CreateNull());
            if (!strcmp(gdr_jstr_or(r, "role", ""), "control")) {
                ctl_low += is_low;
                continue;
            }
            found += v.found;
            low += is_low;
            gdr_off += v.found && v.gdr_off;
        }
        const char *status, *why;
        if (found == 0) {
            status = "unresolved", why = "no retest result for the suspect's own runs";
            counts->unresolved++;
        } else if (link ? low > 0 : 2 * low > found || gdr_off > 0) {
            status = "confirmed";
            why = gdr_off           ? "GDR still not in effect on the retest"
                  : link && ctl_low ? "low again on the serial retest; a control through the "
                                      "third node is low too: one end may be the cause"
                  : link ? "low again on the serial retest; the controls through a third node "
                           "are fine (or there is no third node)"
                         : "low again on most serial retests";
            counts->confirmed++;
        } else {
            status = "cleared",
            why = "fine on the serial retest (contention in the parallel round?)";
            counts->cleared++;
        }
        set_item(sp, "status", cJSON_CreateString(status));
        set_item(sp, "verdict", cJSON_CreateString(why));
    }
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    if (!cJSON_IsObject(sum)) {
        sum = cJSON_CreateObject();
        set_item(doc, "summary", sum);
    }
    set_item(sum, "suspects", cJSON_CreateNumber((double)k));
    set_item(sum, "confirmed", cJSON_CreateNumber((double)counts->confirmed));
    set_item(sum, "cleared", cJSON_CreateNumber((double)counts->cleared));
    set_item(sum, "unresolved", cJSON_CreateNumber((double)counts->unresolved));
    return 0;
}

/* ---- a soak: flapping links and nodes ---- */

size_t gdr_soak_judge(size_t nnodes, struct gdr_soak_link *links, size_t n, bool *flapping)
{
    /* per node, the first partner of a flapping link: a second, different
     * one makes the node the suspect */
    long *first = malloc((nnodes + 1) * sizeof(*first));
    if (!first)
        return SIZE_MAX;
    size_t nodes = 0;
    for (size_t i = 0; i < nnodes; i++) {
        flapping[i] = false;
        first[i] = -1;
    }
    for (size_t k = 0; k < n; k++) {
        if (!links[k].noutages)
            continue;
        size_t end[2] = {links[k].a, links[k].b};
        for (int e = 0; e < 2; e++) {
            size_t x = end[e], y = end[!e];
            if (first[x] < 0)
                first[x] = (long)y;
            else if ((size_t)first[x] != y && !flapping[x]) {
                flapping[x] = true;
                nodes++;
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        struct gdr_soak_link *l = &links[k];
        l->node = !l->noutages     ? -1
                  : flapping[l->a] ? (long)l->a
                  : flapping[l->b] ? (long)l->b
                                   : -1;
    }
    free(first);
    return nodes;
}
