/* core_aggregate.c - gdr-cluster-core aggregate: the node-pair bandwidth
 * summed over each pair's rails, as JSON. */
#include "config.h"

#include "core_cli.h"
#include "atomic_file.h"
#include "cluster_aggregate.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* To path (NULL or "-": stdout), atomically: a reader never sees half of
 * it. */
static int write_out(const struct gdr_aggregate_set *g, const struct gdr_matrix_set *s,
                     const cJSON *soak, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return gdr_aggregate_write_soak(stdout, g, s, soak) || fflush(stdout)
                   ? gdr_core_usage_error("aggregate: stdout: write failed")
                   : 0;
    struct gdr_atomic_file af;
    if (gdr_atomic_open(&af, path, GDR_EXIT_USAGE))
        return gdr_core_report_error();
    if (gdr_aggregate_write_soak(af.f, g, s, soak)) {
        gdr_atomic_abort(&af);
        return gdr_core_usage_error("aggregate: %s: write failed", path);
    }
    return gdr_atomic_commit(&af) ? gdr_core_report_error() : 0;
}

int gdr_core_cmd_aggregate(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return gdr_core_usage_error("aggregate: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    struct gdr_aggregate_set g;
    if (gdr_plan_load(a.plan, &p))
        return gdr_core_report_error();
    /* --cells: the documents as gdr-cluster read them once (matrix
     * --save-cells); else the documents (and the agents' lines). */
    struct gdr_matrix_source src = {a.dir, a.cells, a.agents, a.status};
    if (gdr_matrix_load(&p, &src, false, 0, &s)) {
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    if (gdr_aggregate_compute(&p, &s, &g)) {
        gdr_matrix_set_free(&s);
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    /* --suspects: a soak's findings carried as they are */
    cJSON *sj = a.suspects ? gdr_core_load_suspects(a.suspects) : NULL;
    if (a.suspects && !sj)
        rc = gdr_core_report_error();
    else
        rc = write_out(&g, &s, cJSON_GetObjectItemCaseSensitive(sj, "soak"), a.out);
    cJSON_Delete(sj);
    gdr_aggregate_free(&g);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}
