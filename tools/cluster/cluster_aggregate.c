/* cluster_aggregate.c - node-pair bandwidth summed over the rails. */
#include "config.h"

#include "cluster_aggregate.h"
#include "error.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool same_test(const struct gdr_test_mode *a, const struct gdr_test_mode *b)
{
    return !strcmp(a->tool, b->tool) && !strcmp(a->placement, b->placement) &&
           !strcmp(a->gdr, b->gdr);
}

/* The plan's run of (test, rail, client, server), or NULL. */
static const struct gdr_plan_run *planned(const struct gdr_plan *p, const struct gdr_test_mode *t,
                                          int rail, size_t c, size_t s)
{
    for (size_t i = 0; i < p->nruns; i++) {
        const struct gdr_plan_run *r = &p->runs[i];
        if (r->rail == rail && r->client.node == c && r->server.node == s && same_test(&r->test, t))
            return r;
    }
    return NULL;
}

static int one(const struct gdr_plan *p, const struct gdr_matrix_set *s, size_t first,
               struct gdr_aggregate *a)
{
    const struct gdr_matrix *m0 = &s->m[first];
    memset(a, 0, sizeof(*a));
    a->test = m0->test;
    a->size = m0->size;
    const struct gdr_matrix *rails[GDR_RAILS_MAX];
    for (size_t k = first; k < s->count && a->nrails < GDR_RAILS_MAX; k++)
        if (same_test(&s->m[k].test, &a->test) && s->m[k].size == a->size) {
            rails[a->nrails] = &s->m[k];
            a->rails[a->nrails++] = s->m[k].rail;
        }
    size_t n = s->n;
    a->pairs = calloc(n * n + 1, sizeof(*a->pairs));
    double *sums = calloc(n * n + 1, sizeof(double));
    if (!a->pairs || !sums) {
        free(sums);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    a->concurrent = true;
    for (size_t c = 0; c < n; c++)
        for (size_t v = 0; v < n; v++) {
            if (c == v)
                continue;
            struct gdr_aggregate_pair *pp = &a->pairs[a->npairs];
            *pp = (struct gdr_aggregate_pair){.client = c, .server = v, .concurrent = true};
            size_t round = 0, step = 0;
            for (size_t r = 0; r < a->nrails; r++) {
                const struct gdr_plan_run *run = planned(p, &a->test, a->rails[r], c, v);
                if (!run)
                    continue;
                if (pp->rails++ == 0) {
                    round = run->round;
                    step = run->step;
                } else if (run->round != round || run->step != step) {
                    pp->concurrent = false;
                }
                const struct gdr_cell *cell = gdr_cell_at(rails[r], c, v);
                if (cell->state == GDR_CELL_OK) {
                    pp->rails_ok++;
                    pp->sum += cell->value;
                }
            }
            if (pp->rails == 0)
                continue;
            a->npairs++;
            if (pp->rails_ok == pp->rails) {
                sums[a->ncomplete++] = pp->sum;
                a->concurrent &= pp->concurrent;
            }
        }
    if (a->ncomplete) {
        a->min = a->max = sums[0];
        for (size_t i = 1; i < a->ncomplete; i++) {
            a->min = fmin(a->min, sums[i]);
            a->max = fmax(a->max, sums[i]);
        }
        a->median = gdr_median_inplace(sums, a->ncomplete);
    } else {
        a->min = a->median = a->max = NAN;
        a->concurrent = false;
    }
    free(sums);
    return 0;
}

int gdr_aggregate_compute(const struct gdr_plan *p, const struct gdr_matrix_set *s,
                          struct gdr_aggregate_set *out)
{
    memset(out, 0, sizeof(*out));
    out->a = calloc(s->count + 1, sizeof(*out->a));
    if (!out->a)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    for (size_t k = 0; k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        if (m->latency)
            continue;
        bool done = false;
        for (size_t j = 0; j < out->count && !done; j++)
            done = same_test(&out->a[j].test, &m->test) && out->a[j].size == m->size;
        if (done)
            continue;
        if (one(p, s, k, &out->a[out->count])) {
            gdr_aggregate_free(out);
            return -1;
        }
        out->count++;
    }
    /* By test, then size. */
    for (size_t i = 1; i < out->count; i++)
        for (size_t j = i; j > 0; j--) {
            struct gdr_aggregate *x = &out->a[j - 1], *y = &out->a[j];
            char nx[64], ny[64];
            gdr_test_mode_name(&x->test, nx, sizeof(nx));
            gdr_test_mode_name(&y->test, ny, sizeof(ny));
            int c = strcmp(nx, ny);
            if (c < 0 || (c == 0 && x->size <= y->size))
                break;
            struct gdr_aggregate t = *x;
            *x = *y;
            *y = t;
        }
    return 0;
}

void gdr_aggregate_free(struct gdr_aggregate_set *a)
{
    for (size_t i = 0; i < a->count; i++)
        free(a->a[i].pairs);
    free(a->a);
    memset(a, 0, sizeof(*a));
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

cJSON *gdr_aggregate_to_json(const struct gdr_aggregate_set *a, const struct gdr_matrix_set *s)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "aggregate_version", GDR_AGGREGATE_VERSION);
    cJSON *arr = cJSON_AddArrayToObject(root, "aggregates");
    for (size_t i = 0; arr && i < a->count; i++) {
        const struct gdr_aggregate *g = &a->a[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        char tn[64];
        gdr_test_mode_name(&g->test, tn, sizeof(tn));
        cJSON_AddStringToObject(o, "test", tn);
        cJSON_AddNumberToObject(o, "size", (double)g->size);
        cJSON *rails = cJSON_AddArrayToObject(o, "rails");
        for (size_t r = 0; rails && r < g->nrails; r++)
            cJSON_AddItemToArray(rails, cJSON_CreateNumber(g->rails[r]));
        cJSON_AddNumberToObject(o, "pairs", (double)g->npairs);
        cJSON_AddNumberToObject(o, "complete_pairs", (double)g->ncomplete);
        add_num(o, "min_bytes_per_s", g->min);
        add_num(o, "median_bytes_per_s", g->median);
        add_num(o, "max_bytes_per_s", g->max);
        cJSON_AddBoolToObject(o, "concurrent", g->concurrent);
        cJSON *pp = cJSON_AddArrayToObject(o, "per_pair");
        for (size_t k = 0; pp && k < g->npairs; k++) {
            const struct gdr_aggregate_pair *x = &g->pairs[k];
            cJSON *po = cJSON_CreateObject();
            if (!po)
                break;
            cJSON_AddItemToArray(pp, po);
            cJSON_AddStringToObject(po, "client", s->nodes[x->client]);
            cJSON_AddStringToObject(po, "server", s->nodes[x->server]);
            cJSON_AddNumberToObject(po, "rails", (double)x->rails);
            cJSON_AddNumberToObject(po, "rails_ok", (double)x->rails_ok);
            cJSON_AddNumberToObject(po, "sum_bytes_per_s", x->sum);
            cJSON_AddBoolToObject(po, "concurrent", x->concurrent);
        }
    }
    return root;
}
