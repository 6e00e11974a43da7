/* core_analysis.c - gdr-cluster-core matrix, suspects, retest-runs and
 * confirm: from the results directory to the verdicts. */
#include "config.h"

#include "core_cli.h"
#include "cluster_figures.h"
#include "cluster_findings.h"
#include "cluster_health.h"
#include "cluster_stream.h"
#include "cluster_matrix.h"
#include "cluster_soak.h"
#include "cluster_status.h"
#include "cluster_suspects.h"
#include "doc.h"
#include "error.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The heatmaps' data, each cell against the detector's reference for the
 * analysed matrices (the others: their median), and with draw the figures
 * (cluster_figures.h). */
static int write_heat(const struct gdr_matrix_set *s, const struct gdr_detect_opts *o,
                      const char *dir, bool draw)
{
    struct gdr_detection d;
    double *ref = calloc(s->count + 1, sizeof(double));
    if (!ref)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    if (gdr_detect(s, o, &d)) {
        free(ref);
        return -1;
    }
    double most[2] = {0, 0}; /* the largest reference: bandwidth, latency */
    for (size_t k = 0; k < d.nstats; k++) {
        const struct gdr_mstats *st = &d.stats[k];
        bool lat = s->m[st->matrix].latency;
        double r = st->reference;
        ref[st->matrix] = lat && r > 0 ? 1 / r : r;
        most[lat] = fmax(most[lat], ref[st->matrix]);
    }
    gdr_detection_free(&d);
    /* the run's units, as gdr_findings_unit chooses them from suspects.json */
    struct gdr_unit unit[2] = {gdr_unit_bw(most[0]), gdr_unit_lat(most[1])};
    int rc = gdr_matrix_write_heat(s, ref, dir) || (draw && gdr_cluster_figures(s, dir, unit));
    free(ref);
    return rc;
}

int gdr_core_cmd_matrix(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return gdr_core_usage_error("matrix: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    if (gdr_plan_load(a.plan, &p))
        return gdr_core_report_error();
    /* --heat with --cells: the figures only (the CSVs are written). */
    struct gdr_matrix_source src = {a.dir, a.cells, a.agents, a.status};
    rc = gdr_matrix_load(&p, &src, false, 0, &s) ||
                 (a.save_cells && gdr_matrix_save_cells(&s, &p, a.save_cells)) ||
                 (!(a.heat && a.cells) && gdr_matrix_write_csvs(&s, a.out ? a.out : a.dir)) ||
                 (a.heat && write_heat(&s, &a.det, a.heat, a.draw))
             ? gdr_core_report_error()
             : 0;
    if (!rc)
        printf("matrices %zu\n", s.count);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}

/* A healthy partner for a dead node's retest: not dead, not left out, no
 * other suspicion, the fewest failed runs; -1 when there is none. */
static long healthy_partner(const struct gdr_plan *p, const struct gdr_matrix_set *s,
                            const struct gdr_health *h, const struct gdr_detection *d)
{
    long best = -1;
    for (size_t i = 0; i < p->nnodes; i++) {
        bool ok = !h->dead[i] && !s->left_out[i];
        for (size_t k = 0; k < d->nsuspects && ok; k++)
            ok = d->suspects[k].a != i && d->suspects[k].b != i;
        if (ok && (best < 0 || h->nfail[i] < h->nfail[best]))
            best = (long)i;
    }
    return best;
}

/* The dead nodes (--manifest) first in suspects.json: at the top of
 * report.md too. Returns how many. */
static size_t add_dead(cJSON *j, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                       const struct gdr_health *h, const struct gdr_detection *d, unsigned port)
{
    cJSON *ss = cJSON_GetObjectItemCaseSensitive(j, "suspects");
    long partner = healthy_partner(p, s, h, d);
    for (size_t k = h->n; k-- > 0;) {
        cJSON *x = gdr_health_suspect_json(h, k, p, partner, k, port);
        if (cJSON_GetArraySize(ss) > 0)
            cJSON_InsertItemInArray(ss, 0, x);
        else
            cJSON_AddItemToArray(ss, x);
    }
    cJSON *n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "summary"),
                                                "suspects");
    if (cJSON_IsNumber(n))
        cJSON_SetNumberValue(n, (double)cJSON_GetArraySize(ss));
    return h->n;
}

int gdr_core_cmd_suspects(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return gdr_core_usage_error("suspects: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    struct gdr_detection d;
    struct gdr_health h = {0};
    if (gdr_plan_load(a.plan, &p))
        return gdr_core_report_error();
    if ((a.status && gdr_health_from_status(a.status, a.unreachable, &p, &h)) ||
        (!a.status && a.manifest && gdr_health_from_manifest_file(a.manifest, &p, &h)) ||
        gdr_matrix_load(&p, &(struct gdr_matrix_source){a.dir, a.cells, NULL, NULL}, true,
                        a.det.size, &s)) {
        gdr_health_free(&h);
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    if (gdr_detect(&s, &a.det, &d)) {
        gdr_health_free(&h);
        gdr_matrix_set_free(&s);
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    /* never the healthy third node of a retest: dead or left out */
    bool *avoid = calloc(p.nnodes + 1, sizeof(bool));
    for (size_t i = 0; avoid && i < p.nnodes; i++)
        avoid[i] = s.left_out[i] || (h.dead && h.dead[i]);
    d.avoid = avoid;
    cJSON *j = gdr_detection_to_json(&d, &s, &p, &a.det, (unsigned)a.port);
    size_t ndead = h.n ? add_dead(j, &p, &s, &h, &d, (unsigned)a.port) : 0;
    /* The findings, judged here once for report.md and report.html. */
    char rails_dir[4096];
    snprintf(rails_dir, sizeof(rails_dir), "%s/rails", a.dir);
    cJSON *man = NULL, *soak = p.cycle ? gdr_soak_findings(&p, a.dir) : NULL;
    if (soak) /* before the findings: the verdict counts it */
        cJSON_AddItemToObject(j, "soak", soak);
    if ((p.cycle && !soak) ||
        (a.manifest && gdr_json_stream(a.manifest, "runs", NULL, NULL, &man)) ||
        gdr_findings_add(j, &p, &s, &d, &a.det, man, rails_dir, a.worst))
        rc = gdr_core_report_error();
    cJSON_Delete(man);
    size_t nretest = 0;
    const cJSON *sp;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(j, "suspects"))
        nretest += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sp, "retest"));
    rc = rc ? rc : gdr_core_write_json(j, a.out);
    if (!rc && a.out && strcmp(a.out, "-"))
        printf("suspects %zu retest %zu\n", d.nsuspects + ndead, nretest);
    cJSON_Delete(j);
    d.avoid = NULL;
    free(avoid);
    gdr_detection_free(&d);
    gdr_health_free(&h);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}

int gdr_core_cmd_retest_runs(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, true, &a);
    if (rc)
        return rc;
    struct gdr_plan p;
    if (gdr_plan_load(a.plan, &p))
        return gdr_core_report_error();
    cJSON *j = gdr_core_load_suspects(a.file);
    if (!j) {
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    const cJSON *sp, *r;
    size_t k = 0;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(j, "suspects")) {
        k++;
        size_t q = 0;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sp, "retest")) {
            struct gdr_plan_run run;
            char w[200];
            snprintf(w, sizeof(w), "%s: suspects[%zu].retest[%zu]", a.file, k - 1, q);
            memset(&run, 0, sizeof(run));
            if (gdr_plan_run_from_json(r, &p, &run, w)) {
                rc = gdr_core_report_error();
                break;
            }
            run.round = k;
            run.step = ++q;
            gdr_plan_print_run(stdout, &p, &run);
        }
        if (rc)
            break;
    }
    cJSON_Delete(j);
    gdr_plan_free(&p);
    return rc;
}

struct lookup_ctx {
    const char *dir;
    const struct gdr_run_status *st; /* the retests' status lines (--status) */
    size_t nst;
};

static void retest_lookup(const cJSON *run, uint64_t size, struct gdr_retest_value *v, void *ctx)
{
    const struct lookup_ctx *lc = ctx;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
    struct gdr_test_mode t;
    memset(&t, 0, sizeof(t));
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(run, "gdr");
    snprintf(t.gdr, sizeof(t.gdr), "%s", cJSON_IsString(g) ? g->valuestring : "na");
    if (!cJSON_IsString(id) || strchr(id->valuestring, '/'))
        return;
    const struct gdr_run_status *s = gdr_run_status_find(lc->st, lc->nst, id->valuestring);
    if (s) {
        v->ran = true;
        v->run_failed = !strcmp(s->status, "failed");
        snprintf(v->reason, sizeof(v->reason), "%s%s%.160s", s->fclass, *s->fclass ? ": " : "",
                 s->reason);
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.client.json", lc->dir, id->valuestring);
    struct gdr_run_result r;
    gdr_run_result_read(path, &t, &r);
    for (size_t k = 0; r.ok && k < r.nrows; k++)
        if (r.sizes[k] == size) {
            v->found = true;
            v->value = r.values[k];
            v->rate_bytes = r.rate_bytes;
            v->gdr_off = r.gdr_off[0] || r.gdr_off[1];
        }
}

int gdr_core_cmd_confirm(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, true, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return gdr_core_usage_error("confirm: --dir RETEST_RESULTS is required");
    cJSON *j = gdr_core_load_suspects(a.file);
    if (!j)
        return gdr_core_report_error();
    struct lookup_ctx lc = {a.dir, NULL, 0};
    struct gdr_run_status *st = NULL;
    struct gdr_confirm_counts c;
    if ((a.status && access(a.status, F_OK) == 0 && gdr_run_status_read(a.status, &st, &lc.nst)) ||
        (lc.st = st, gdr_suspects_confirm(j, retest_lookup, &lc, &c))) {
        free(st);
        cJSON_Delete(j);
        return gdr_core_report_error();
    }
    free(st);
    gdr_findings_verdict(j);
    rc = gdr_core_write_json(j, a.out ? a.out : a.file);
    cJSON_Delete(j);
    if (rc)
        return rc;
    printf("confirmed %zu cleared %zu unresolved %zu\n", c.confirmed, c.cleared, c.unresolved);
    return c.confirmed + c.unresolved ? GDR_EXIT_RUN : GDR_EXIT_OK;
}
