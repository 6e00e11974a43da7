/* cluster_matrix.c - node x node matrices from result documents. */
#include "config.h"

#include "cluster_matrix.h"
#include "doc.h"
#include "stats.h"
#include "error.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

int gdr_matrix_set_init(struct gdr_matrix_set *s, size_t n, const char (*nodes)[GDR_NODE_NAME_LEN])
{
    memset(s, 0, sizeof(*s));
    s->nodes = calloc(n + 1, sizeof(*s->nodes));
    if (!s->nodes)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", n);
    memcpy(s->nodes, nodes, n * sizeof(*s->nodes));
    s->n = n;
    s->left_out = calloc(n + 1, sizeof(bool));
    if (!s->left_out) {
        free(s->nodes);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", n);
    }
    return 0;
}

void gdr_matrix_set_free(struct gdr_matrix_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->m[i].cells);
    free(s->m);
    free(s->nodes);
    free(s->left_out);
    memset(s, 0, sizeof(*s));
}

static bool same_test(const struct gdr_test_mode *a, const struct gdr_test_mode *b)
{
    return !strcmp(a->tool, b->tool) && !strcmp(a->placement, b->placement) &&
           !strcmp(a->gdr, b->gdr);
}

struct gdr_matrix *gdr_matrix_get(struct gdr_matrix_set *s, const struct gdr_test_mode *t, int rail,
                                  uint64_t size, bool latency)
{
    for (size_t i = 0; i < s->count; i++)
        if (same_test(&s->m[i].test, t) && s->m[i].rail == rail && s->m[i].size == size)
            return &s->m[i];
    struct gdr_matrix *grown = realloc(s->m, (s->count + 1) * sizeof(*s->m));
    if (!grown)
        return NULL;
    s->m = grown;
    struct gdr_matrix *m = &s->m[s->count];
    memset(m, 0, sizeof(*m));
    m->cells = calloc(s->n * s->n + 1, sizeof(*m->cells));
    if (!m->cells)
        return NULL;
    m->test = *t;
    m->rail = rail;
    m->size = size;
    m->latency = latency;
    m->n = s->n;
    s->count++;
    return m;
}

static double end_rate(const cJSON *root, const char *role)
{
    const cJSON *ends = cJSON_GetObjectItemCaseSensitive(root, "ends");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(ends, role);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "speed_bps");
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble / 8 : 0;
}

/* A GPU end asked for GDR whose memory is not registered for the NIC
 * directly (staged, or plain host registration): GDR is not in effect. */
static bool gdr_not_in_effect(const struct gdr_end_info *e, const char *asked)
{
    return !strcmp(asked, "on") && !strcmp(e->placement, "cuda") &&
           strcmp(e->registration, "dmabuf") && strcmp(e->registration, "peermem");
}

void gdr_run_result_read(const char *path, const struct gdr_test_mode *test,
                         struct gdr_run_result *r)
{
    memset(r, 0, sizeof(*r));
    gdr_error_clear();
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root) {
        snprintf(r->error, sizeof(r->error), "%s", gdr_error_message());
        return;
    }
    struct gdr_doc d;
    if (gdr_doc_from_json(root, path, &d)) {
        snprintf(r->error, sizeof(r->error), "%s", gdr_error_message());
        cJSON_Delete(root);
        return;
    }
    if (strcmp(d.status, "complete")) {
        snprintf(r->error, sizeof(r->error), "%s: %.200s", d.status, d.error);
    } else {
        r->ok = true;
        r->latency = d.latency;
        double rc = end_rate(root, "client"), rs = end_rate(root, "server");
        r->rate_bytes = rc && rs ? (rc < rs ? rc : rs) : (rc ? rc : rs);
        r->gdr_off[0] = gdr_not_in_effect(&d.client, test->gdr);
        r->gdr_off[1] = gdr_not_in_effect(&d.server, test->gdr);
        for (size_t i = 0; i < d.nrows && r->nrows < 64; i++) {
            r->sizes[r->nrows] = d.rows[i].size;
            r->limits[r->nrows] = isnan(d.rows[i].limit) ? 0 : d.rows[i].limit;
            r->clean[r->nrows] = d.rows[i].clean;
            r->values[r->nrows++] = d.latency ? d.rows[i].lat[LAT_MEDIAN] : d.rows[i].bw_avg;
        }
    }
    gdr_doc_free(&d);
    cJSON_Delete(root);
}

int gdr_matrix_load(const struct gdr_plan *p, const char *dir, struct gdr_matrix_set *s)
{
    if (gdr_matrix_set_init(s, p->nnodes, (const char(*)[GDR_NODE_NAME_LEN])p->nodes))
        return -1;
    bool *failed = calloc(p->nruns + 1, sizeof(bool));
    if (!failed)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    const cJSON *lo;
    cJSON_ArrayForEach(lo, cJSON_GetObjectItemCaseSensitive(p->meta, "left_out")) {
        long i = cJSON_IsString(lo) ? gdr_plan_node_index(p, lo->valuestring) : -1;
        if (i >= 0)
            s->left_out[i] = true;
    }
    for (size_t i = 0; i < p->nruns; i++) {
        const struct gdr_plan_run *run = &p->runs[i];
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.client.json", dir, run->id);
        struct gdr_run_result r;
        gdr_run_result_read(path, &run->test, &r);
        failed[i] = !r.ok;
        for (size_t k = 0; k < r.nrows; k++) {
            struct gdr_matrix *m = gdr_matrix_get(s, &run->test, run->rail, r.sizes[k], r.latency);
            if (!m) {
                free(failed);
                return gdr_fail(GDR_EXIT_RUN, "out of memory");
            }
            struct gdr_cell *c = gdr_cell_at(m, run->client.node, run->server.node);
            c->state = GDR_CELL_OK;
            c->value = r.values[k];
            c->round = run->round;
            /* Rails sharing a NIC in one step each had a share of its rate
             * (and of the path's limit). */
            unsigned share = run->nic_share > 1 ? run->nic_share : 1;
            c->rate_bytes = r.rate_bytes / share;
            c->limit = r.limits[k] / share;
            c->clean = r.clean[k];
            c->gdr_off[0] = r.gdr_off[0];
            c->gdr_off[1] = r.gdr_off[1];
        }
    }
    /* Failed runs show in every size of their test and rail. */
    for (size_t i = 0; i < p->nruns; i++) {
        if (!failed[i])
            continue;
        const struct gdr_plan_run *run = &p->runs[i];
        for (size_t k = 0; k < s->count; k++) {
            struct gdr_matrix *m = &s->m[k];
            if (!same_test(&m->test, &run->test) || m->rail != run->rail)
                continue;
            struct gdr_cell *c = gdr_cell_at(m, run->client.node, run->server.node);
            c->state = GDR_CELL_FAILED;
            c->round = run->round;
        }
    }
    free(failed);
    return 0;
}

int gdr_matrix_write_csvs(const struct gdr_matrix_set *s, const char *dir)
{
    for (size_t k = 0; k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        char path[4096], tn[64];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        snprintf(path, sizeof(path), "%s/matrix-%s-%llu-r%d.csv", dir, tn,
                 (unsigned long long)m->size, m->rail);
        FILE *f = fopen(path, "w");
        if (!f)
            return gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
        fprintf(f, "%s",
                m->latency ? "client\\server median_latency_s" : "client\\server bw_bytes_per_s");
        for (size_t j = 0; j < s->n; j++)
            fprintf(f, ",%s", s->nodes[j]);
        fputc('\n', f);
        for (size_t i = 0; i < s->n; i++) {
            fprintf(f, "%s", s->nodes[i]);
            for (size_t j = 0; j < s->n; j++) {
                const struct gdr_cell *c = gdr_cell_at(m, i, j);
                if (c->state == GDR_CELL_OK)
                    fprintf(f, ",%.9g", c->value);
                else
                    fprintf(f, ",%s", c->state == GDR_CELL_FAILED ? "FAILED" : "");
            }
            fputc('\n', f);
        }
        if (fclose(f))
            return gdr_fail(GDR_EXIT_USAGE, "%s: write failed", path);
    }
    return 0;
}

double gdr_matrix_median(const struct gdr_matrix *m)
{
    double *v = calloc(m->n * m->n + 1, sizeof(double));
    size_t k = 0;
    if (!v)
        return 0;
    for (size_t i = 0; i < m->n * m->n; i++)
        if (m->cells[i].state == GDR_CELL_OK)
            v[k++] = m->cells[i].value;
    double med = k == 0 ? 0 : gdr_median_inplace(v, k);
    free(v);
    return med;
}

static FILE *open_fig(const char *dir, const char *kind, const struct gdr_matrix *m)
{
    char path[4096], tn[64];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    snprintf(path, sizeof(path), "%s/%s-%s-%llu-r%d.dat", dir, kind, tn,
             (unsigned long long)m->size, m->rail);
    FILE *f = fopen(path, "w");
    if (!f)
        gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
    return f;
}

int gdr_matrix_write_heat(const struct gdr_matrix_set *s, const double *reference, const char *dir)
{
    for (size_t k = 0; k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        FILE *h = open_fig(dir, "heat", m), *x = open_fig(dir, "failed", m),
             *v = open_fig(dir, "values", m), *u = open_fig(dir, "unreachable", m);
        if (!h || !x || !v || !u) {
            FILE *all[] = {h, x, v, u};
            for (int q = 0; q < 4; q++)
                if (all[q])
                    fclose(all[q]);
            return -1;
        }
        double med = reference && reference[k] > 0 ? reference[k] : gdr_matrix_median(m);
        for (size_t i = 0; i < m->n; i++) {
            for (size_t j = 0; j < m->n; j++) {
                const struct gdr_cell *c = gdr_cell_at(m, i, j);
                /* x y ratio-to-median value (the panels rescale the value) */
                if (c->state == GDR_CELL_OK && med > 0 && c->value > 0)
                    fprintf(h, "%zu %zu %.4f %.9g\n", j, i,
                            m->latency ? med / c->value : c->value / med, c->value);
                else
                    fprintf(h, "%zu %zu NaN NaN\n", j, i);
                if (c->state == GDR_CELL_FAILED)
                    fprintf(x, "%zu %zu\n", j, i);
                if (c->state == GDR_CELL_OK)
                    fprintf(v, "%.9g\n", c->value);
                if (i != j && c->state == GDR_CELL_NONE && s->left_out &&
                    (s->left_out[i] || s->left_out[j]))
                    fprintf(u, "%zu %zu\n", j, i);
            }
            fputc('\n', h);
        }
        int bad = fclose(h) | fclose(x) | fclose(v) | fclose(u);
        if (bad)
            return gdr_fail(GDR_EXIT_USAGE, "%s: write failed", dir);
    }
    return 0;
}
