/* cluster_report.c - report.md for one cluster run (cluster_report.h). */
#include "config.h"

#include "cluster_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A figure in the metric's unit: Gb/s for bandwidth (Mb/s under 1 Gb/s: a
 * soft-RoCE lab moves a few MB/s), microseconds for latency. */
static void show(FILE *f, const struct gdr_matrix *m, double v)
{
    if (v <= 0 || isnan(v))
        fprintf(f, " - |");
    else if (m->latency)
        fprintf(f, " %.2f us |", v * 1e6);
    else if (v * 8 < 1e9)
        fprintf(f, " %.3g Mb/s |", v * 8 / 1e6);
    else
        fprintf(f, " %.1f Gb/s |", v * 8 / 1e9);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void node_table(FILE *f, const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                       const struct gdr_mstats *st, const struct gdr_detect_opts *o)
{
    double *v = calloc(2 * s->n + 1, sizeof(double));
    if (!v)
        return;
    fprintf(f, "| node | median as client | median as server | worst link | low | failed |\n"
               "|------|-----|-----|-----|-----|-----|\n");
    for (size_t i = 0; i < s->n; i++) {
        size_t nc = 0, ns = 0, low = 0, failed = 0;
        double worst = 0;
        for (size_t p = 0; p < s->n; p++) {
            for (int d = 0; d < 2; d++) {
                const struct gdr_cell *c = d ? gdr_cell_at(m, p, i) : gdr_cell_at(m, i, p);
                if (p == i || c->state == GDR_CELL_NONE)
                    continue;
                if (c->state == GDR_CELL_FAILED) {
                    failed++;
                    continue;
                }
                low += gdr_cell_low(m, st, o, c);
                if (d)
                    v[s->n + ns++] = c->value;
                else
                    v[nc++] = c->value;
                if (worst == 0 || (m->latency ? c->value > worst : c->value < worst))
                    worst = c->value;
            }
        }
        fprintf(f, "| %s |", s->nodes[i]);
        show(f, m, median_of(v, nc));
        show(f, m, median_of(v + s->n, ns));
        show(f, m, worst);
        fprintf(f, " %zu | %zu |\n", low, failed);
    }
    free(v);
}

void gdr_cluster_report(FILE *f, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                        const struct gdr_detection *d, const struct gdr_detect_opts *o,
                        const struct gdr_report_input *in)
{
    fprintf(f, "# gdrbench cluster report%s%s\n\n", *in->title ? ": " : "", in->title);
    if (in->manifest) {
        fprintf(f, "- date: %s\n- gdrbench: %s\n- launcher: %s\n", jstr(in->manifest, "end_date"),
                jstr(in->manifest, "git_version"), jstr(in->manifest, "launcher"));
        fprintf(f, "- runs: %.0f planned, %.0f ok, %.0f failed, %.0f missing\n",
                jnum(in->manifest, "planned"), jnum(in->manifest, "ok"),
                jnum(in->manifest, "failed"), jnum(in->manifest, "missing"));
    }
    fprintf(f, "- nodes (%zu):", p->nnodes);
    for (size_t i = 0; i < p->nnodes; i++)
        fprintf(f, "%s %s", i ? "," : "", p->nodes[i]);
    const cJSON *opt = p->meta;
    fprintf(f, "\n- plan: %s pairing, %zu rounds, %zu steps, %zu runs, directions: %s%s\n",
            jstr(opt, "pairing"), p->nrounds, p->nsteps, p->nruns, jstr(opt, "directions"),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opt, "rails_serial")) ? ", rails one at a time" : "");
    fprintf(f, "- judged: the %s size of each test and rail; low = under the threshold "
               "(reference - max(%.0f MAD, %.0f %%))%s\n\n",
            o->size ? "given" : "largest (latency: smallest)", o->mad_k, o->tolerance * 100,
            o->min_link_frac > 0 ? ", or a link under the port-rate floor" : "");

    fprintf(f, "## Per rail\n\n| test | rail | size | median | reference | threshold | cells | low | failed |\n"
               "|------|------|------|-----|-----|-----|-----|-----|-----|\n");
    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_mstats *st = &d->stats[k];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        fprintf(f, "| %s | %d | %llu |", tn, m->rail, (unsigned long long)m->size);
        show(f, m, gdr_matrix_median(m));
        show(f, m, m->latency ? 1 / st->reference : st->reference);
        show(f, m, m->latency ? 1 / st->threshold_score : st->threshold_score);
        fprintf(f, " %zu | %zu | %zu |\n", st->nvalid, st->nlow, st->nfailed);
    }

    fprintf(f, "\n## Suspects\n\n");
    const cJSON *ss = in->suspects ? cJSON_GetObjectItemCaseSensitive(in->suspects, "suspects") : NULL;
    if (cJSON_GetArraySize(ss) == 0) {
        fprintf(f, "None.\n");
    } else {
        fprintf(f, "| kind | nodes | rail | test | status | verdict |\n"
                   "|------|-------|------|------|--------|---------|\n");
        const cJSON *sp, *nd;
        cJSON_ArrayForEach(sp, ss) {
            fprintf(f, "| %s |", jstr(sp, "kind"));
            cJSON_ArrayForEach(nd, cJSON_GetObjectItemCaseSensitive(sp, "nodes"))
                fprintf(f, " %s", cJSON_IsString(nd) ? nd->valuestring : "?");
            fprintf(f, " | %.0f | %s | %s | %s |\n", jnum(sp, "rail"), jstr(sp, "test"),
                    jstr(sp, "status"), jstr(sp, "verdict"));
        }
    }

    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_mstats *st = &d->stats[k];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64], base[160], path[4096];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        snprintf(base, sizeof(base), "%s-%llu-r%d", tn, (unsigned long long)m->size, m->rail);
        fprintf(f, "\n## %s, %llu B, rail %d\n\n", tn, (unsigned long long)m->size, m->rail);
        for (int h = 0; in->figures_dir && h < 2; h++) {
            snprintf(path, sizeof(path), "%s/%s-%s.png", in->figures_dir, h ? "hist" : "heat", base);
            if (!access(path, F_OK))
                fprintf(f, "![%s %s](%s/%s-%s.png)\n", h ? "histogram" : "heatmap", base,
                        in->figures_rel, h ? "hist" : "heat", base);
        }
        fprintf(f, "\nMatrix: `matrix-%s.csv` (rows: client, columns: server).\n\n", base);
        node_table(f, s, m, st, o);
    }
}
