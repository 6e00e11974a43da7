/* cluster_aggregate.c - node-pair bandwidth summed over the rails. */
#include "config.h"

#include "cluster_aggregate.h"
#include "error.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Do the plan's selected rails run in one step? Runs of one pair, test
 * and direction share a round and differ only in their rail group
 * (cluster_plan.h), so a pair's rails ran at once exactly when the plan
 * put every rail in one group. */
static bool rails_at_once(const struct gdr_plan *p)
{
    for (size_t k = 1; k < p->nrail_sel; k++)
        if (p->group_of[k] != p->group_of[0])
            return false;
    return true;
}

/* The aggregate of the bandwidth matrices of (test, size), the first of
 * them s->m[first]. The pairs are the planned cells of any rail (the
 * matrices are sparse and sorted by client, then server: one merge); each
 * counts every rail the plan selected, so a rail without a cell (no
 * matrix, or its run's document lacked the size) is a rail not measured. */
static int one(const struct gdr_plan *p, const struct gdr_matrix_set *s, size_t first,
               struct gdr_aggregate *a)
{
    const struct gdr_matrix *m0 = &s->m[first];
    memset(a, 0, sizeof(*a));
    a->test = m0->test;
    a->size = m0->size;
    a->nrails = p->nrail_sel ? p->nrail_sel : 1;
    const struct gdr_matrix *rails[GDR_RAILS_MAX] = {NULL};
    size_t at[GDR_RAILS_MAX] = {0}, total = 0;
    for (size_t r = 0; r < a->nrails; r++) {
        a->rails[r] = p->nrail_sel ? p->rail_sel[r] : 0;
        for (size_t k = first; k < s->count && !rails[r]; k++)
            if (s->m[k].rail == a->rails[r] && s->m[k].size == a->size &&
                gdr_test_mode_equal(&s->m[k].test, &a->test))
                rails[r] = &s->m[k];
        total += rails[r] ? rails[r]->ncells : 0;
    }
    a->pairs = calloc(total + 1, sizeof(*a->pairs));
    double *sums = calloc(total + 1, sizeof(double));
    if (!a->pairs || !sums) {
        free(sums);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu node pairs", total);
    }
    bool at_once = rails_at_once(p);
    a->concurrent = true;
    for (;;) {
        /* the next (client, server) of any rail */
        uint64_t next = UINT64_MAX;
        for (size_t r = 0; r < a->nrails; r++)
            if (rails[r] && at[r] < rails[r]->ncells) {
                const struct gdr_cell *c = &rails[r]->cells[at[r]];
                uint64_t key = (uint64_t)c->c << 32 | c->s;
                next = key < next ? key : next;
            }
        if (next == UINT64_MAX)
            break;
        struct gdr_aggregate_pair *pp = &a->pairs[a->npairs++];
        *pp = (struct gdr_aggregate_pair){.client = (size_t)(next >> 32),
                                          .server = (size_t)(next & 0xffffffffu),
                                          .rails = a->nrails,
                                          .concurrent = at_once};
        for (size_t r = 0; r < a->nrails; r++) {
            if (!rails[r] || at[r] >= rails[r]->ncells)
                continue;
            const struct gdr_cell *c = &rails[r]->cells[at[r]];
            if (((uint64_t)c->c << 32 | c->s) != next)
                continue;
            at[r]++;
            if (c->state == GDR_CELL_OK) {
                pp->rails_ok++;
                pp->sum += c->value;
            }
        }
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
            done = gdr_test_mode_equal(&out->a[j].test, &m->test) && out->a[j].size == m->size;
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

/* A number, or null for NAN. */
static void num(FILE *f, double v)
{
    if (isnan(v))
        fputs("null", f);
    else
        fprintf(f, "%.17g", v);
}

int gdr_aggregate_write(FILE *f, const struct gdr_aggregate_set *a, const struct gdr_matrix_set *s)
{
    return gdr_aggregate_write_soak(f, a, s, NULL);
}

int gdr_aggregate_write_soak(FILE *f, const struct gdr_aggregate_set *a,
                             const struct gdr_matrix_set *s, const cJSON *soak)
{
    /* Node names are [A-Za-z0-9.-]+ and test names ours: nothing to escape. */
    fprintf(f, "{\n\t\"aggregate_version\": \"%s\",\n\t\"aggregates\": [", GDR_AGGREGATE_VERSION);
    for (size_t i = 0; i < a->count; i++) {
        const struct gdr_aggregate *g = &a->a[i];
        char tn[64];
        gdr_test_mode_name(&g->test, tn, sizeof(tn));
        fprintf(f, "%s\n\t\t{\"test\": \"%s\", \"size\": %llu, \"rails\": [", i ? "," : "", tn,
                (unsigned long long)g->size);
        for (size_t r = 0; r < g->nrails; r++)
            fprintf(f, "%s%d", r ? ", " : "", g->rails[r]);
        fprintf(f, "], \"pairs\": %zu, \"complete_pairs\": %zu, \"min_bytes_per_s\": ", g->npairs,
                g->ncomplete);
        num(f, g->min);
        fputs(", \"median_bytes_per_s\": ", f);
        num(f, g->median);
        fputs(", \"max_bytes_per_s\": ", f);
        num(f, g->max);
        fprintf(f, ", \"concurrent\": %s,\n\t\t \"per_pair\": [", g->concurrent ? "true" : "false");
        for (size_t k = 0; k < g->npairs; k++) {
            const struct gdr_aggregate_pair *x = &g->pairs[k];
            fprintf(f,
                    "%s\n\t\t\t{\"client\": \"%s\", \"server\": \"%s\", \"rails\": %zu, "
                    "\"rails_ok\": %zu, \"sum_bytes_per_s\": %.17g, \"concurrent\": %s}",
                    k ? "," : "", s->nodes[x->client], s->nodes[x->server], x->rails, x->rails_ok,
                    x->sum, x->concurrent ? "true" : "false");
        }
        fputs("]}", f);
    }
    fputs("\n\t]", f);
    char *k = soak ? cJSON_PrintUnformatted(soak) : NULL;
    if (k) /* suspects.json's, as it is: one shape */
        fprintf(f, ",\n\t\"soak\": %s", k);
    free(k);
    fputs("\n}\n", f);
    return ferror(f) || (soak && !k) ? -1 : 0;
}
