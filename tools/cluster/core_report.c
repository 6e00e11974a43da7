/* core_report.c - gdr-cluster-core report: report.md, the digest of
 * suspects.json's findings (cluster_digest.c writes it). */
#include "config.h"

#include "core_cli.h"
#include "cluster_findings.h"
#include "cluster_digest.h"
#include "cluster_stream.h"
#include "doc.h"
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int gdr_core_cmd_report(int argc, char **argv)
{
    struct gdr_core_args a = {0};
    int rc = gdr_core_parse_common(argc, argv, false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return gdr_core_usage_error("report: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    cJSON *sus = NULL, *man = NULL;
    if (gdr_plan_load(a.plan, &p))
        return gdr_core_report_error();
    if ((a.suspects && !(sus = gdr_core_load_suspects(a.suspects))) ||
        (a.manifest && gdr_json_stream(a.manifest, "runs", NULL, NULL, &man)) ||
        gdr_matrix_load(&p, &(struct gdr_matrix_source){a.dir, a.cells, NULL, NULL}, true,
                        a.det.size, &s)) {
        cJSON_Delete(sus);
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    /* The findings as the analysis wrote them (suspects.json), or, without
     * them, the same analysis run here. */
    char rails_dir[4096];
    snprintf(rails_dir, sizeof(rails_dir), "%s/rails", a.dir);
    sus = gdr_findings_ensure(sus, &p, &s, &a.det, man, rails_dir, a.worst);
    FILE *f = !sus ? NULL : a.out && strcmp(a.out, "-") ? fopen(a.out, "w") : stdout;
    if (!sus) {
        rc = gdr_core_report_error();
    } else if (!f) {
        rc = gdr_core_usage_error("report: %s: %s", a.out, strerror(errno));
    } else {
        /* Figures are linked relative to the report's directory. */
        const char *rel = a.figures ? strrchr(a.figures, '/') : NULL;
        struct gdr_digest_input in = {a.title ? a.title : "", man, a.figures,
                                      rel ? rel + 1 : a.figures, rails_dir};
        gdr_cluster_digest(f, &p, sus, &in);
        if (f != stdout && fclose(f))
            rc = gdr_core_usage_error("report: %s: write failed", a.out);
    }
    cJSON_Delete(sus);
    cJSON_Delete(man);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}
