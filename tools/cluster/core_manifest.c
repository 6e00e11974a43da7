/* core_manifest.c - gdr-cluster-core manifest: manifest.json from the
 * plan and the script's run status lines. */
#include "config.h"

#include "core_cli.h"
#include "cluster_plan.h"
#include "cluster_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --unreachable FILE: "NODE<TAB>REASON" lines (the rails probe's misses)
 * -> "unreachable": [{"node", "reason"}]. */
static int add_unreachable(cJSON *m, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_core_usage_error("manifest: %s: %s", path, strerror(errno));
    cJSON *u = cJSON_AddArrayToObject(m, "unreachable");
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!*line)
            continue;
        if (tab)
            *tab++ = '\0';
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", line);
        cJSON_AddStringToObject(o, "reason", tab ? tab : "");
        cJSON_AddItemToArray(u, o);
    }
    fclose(f);
    return 0;
}

static cJSON *exit_code(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

int gdr_core_cmd_manifest(int argc, char **argv)
{
    const char *plan = NULL, *status = NULL, *out = NULL, *args_file = NULL, *v;
    const char *unreachable = NULL;
    cJSON *m = cJSON_CreateObject(), *cmd = cJSON_CreateArray();
    cJSON_AddStringToObject(m, "manifest_version", "gdrbench.cluster/1");
    int rc = 0;
    for (int i = 0; i < argc && !rc; i++) {
        if (gdr_core_opt(argc, argv, &i, "--plan", &v))
            plan = v;
        else if (gdr_core_opt(argc, argv, &i, "--status", &v))
            status = v;
        else if (gdr_core_opt(argc, argv, &i, "-o", &v))
            out = v;
        else if (gdr_core_opt(argc, argv, &i, "--args-file", &v))
            args_file = v;
        else if (gdr_core_opt(argc, argv, &i, "--unreachable", &v))
            unreachable = v;
        else if (gdr_core_opt(argc, argv, &i, "--arg", &v)) {
            if (v)
                cJSON_AddItemToArray(cmd, cJSON_CreateString(v));
        } else if (gdr_core_opt(argc, argv, &i, "--set", &v)) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (v && (!eq || eq == v))
                rc = gdr_core_usage_error("manifest: --set wants KEY=VALUE, not '%s'", v);
            else if (v) {
                char key[64];
                snprintf(key, sizeof(key), "%.*s", (int)(eq - v), v);
                cJSON_AddStringToObject(m, key, eq + 1);
            }
        } else
            rc = gdr_core_usage_error("manifest: unknown argument '%s'", argv[i]);
        if (!rc && gdr_core_missing_value)
            rc = gdr_core_usage_error("manifest: %s needs a value", gdr_core_missing_value);
    }
    if (!rc && (!plan || !status || !out))
        rc = gdr_core_usage_error("manifest: --plan, --status and -o are required");
    if (!rc && args_file) {
        FILE *f = fopen(args_file, "r");
        char line[4096];
        if (!f)
            rc = gdr_core_usage_error("manifest: %s: %s", args_file, strerror(errno));
        while (f && fgets(line, sizeof(line), f)) {
            line[strcspn(line, "\n")] = '\0';
            cJSON_AddItemToArray(cmd, cJSON_CreateString(line));
        }
        if (f)
            fclose(f);
    }
    cJSON_AddItemToObject(m, "command_line", cmd);
    struct gdr_plan p = {0};
    struct gdr_run_status *st = NULL;
    size_t nst = 0;
    if (!rc && gdr_plan_load(plan, &p))
        rc = gdr_core_report_error();
    if (!rc && gdr_run_status_read(status, &st, &nst))
        rc = gdr_core_report_error();
    if (!rc && unreachable)
        rc = add_unreachable(m, unreachable);
    if (rc) {
        cJSON_Delete(m);
        gdr_plan_free(&p);
        free(st);
        return rc;
    }
    cJSON *nodes = cJSON_AddArrayToObject(m, "nodes");
    for (size_t i = 0; i < p.nnodes; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(p.nodes[i]));
    cJSON *pl = cJSON_AddObjectToObject(m, "plan");
    cJSON_AddStringToObject(pl, "file", "plan.json");
    cJSON_AddNumberToObject(pl, "rounds", (double)p.nrounds);
    cJSON_AddNumberToObject(pl, "steps", (double)p.nsteps);
    cJSON_AddNumberToObject(pl, "estimated_s", p.estimated_s);
    cJSON *runs = cJSON_AddArrayToObject(m, "runs");
    size_t ok = 0, failed = 0, missing = 0;
    for (size_t i = 0; i < p.nruns; i++) {
        const struct gdr_plan_run *r = &p.runs[i];
        const struct gdr_run_status *s = gdr_run_status_find(st, nst, r->id);
        cJSON *o = cJSON_CreateObject();
        char tn[64], f[sizeof(r->id) + 16];
        gdr_test_mode_name(&r->test, tn, sizeof(tn));
        cJSON_AddStringToObject(o, "id", r->id);
        cJSON_AddStringToObject(o, "status", s ? s->status : "missing");
        cJSON_AddNumberToObject(o, "round", (double)r->round);
        cJSON_AddNumberToObject(o, "step", (double)r->step);
        cJSON_AddStringToObject(o, "test", tn);
        cJSON_AddNumberToObject(o, "rail", r->rail);
        cJSON_AddStringToObject(o, "client", p.nodes[r->client.node]);
        cJSON_AddStringToObject(o, "server", p.nodes[r->server.node]);
        cJSON_AddBoolToObject(o, "resumed", s && !strcmp(s->resumed, "true"));
        cJSON *ec = cJSON_AddObjectToObject(o, "exit_codes");
        cJSON_AddItemToObject(ec, "client", exit_code(s ? s->crc : ""));
        cJSON_AddItemToObject(ec, "server", exit_code(s ? s->src : ""));
        cJSON_AddNumberToObject(o, "duration_s", s ? s->duration : 0);
        if (s && *s->reason)
            cJSON_AddStringToObject(o, "reason", s->reason);
        else
            cJSON_AddNullToObject(o, "reason");
        /* An object, so that a class can carry its details (issue 23's
         * error.kind from the benchmarks' documents goes here too). */
        if (s && !strcmp(s->status, "failed")) {
            cJSON *fc = cJSON_AddObjectToObject(o, "failure");
            cJSON_AddStringToObject(fc, "class", *s->fclass ? s->fclass : "unknown");
            cJSON_AddStringToObject(fc, "end", *s->end ? s->end : "unknown");
        } else {
            cJSON_AddNullToObject(o, "failure");
        }
        cJSON *files = cJSON_AddObjectToObject(o, "files");
        snprintf(f, sizeof(f), "%s.client.json", r->id);
        cJSON_AddStringToObject(files, "client", f);
        snprintf(f, sizeof(f), "%s.server.json", r->id);
        cJSON_AddStringToObject(files, "server", f);
        cJSON_AddItemToArray(runs, o);
        if (!s)
            missing++;
        else if (!strcmp(s->status, "ok"))
            ok++;
        else
            failed++;
    }
    cJSON_AddNumberToObject(m, "planned", (double)p.nruns);
    cJSON_AddNumberToObject(m, "ok", (double)ok);
    cJSON_AddNumberToObject(m, "failed", (double)failed);
    cJSON_AddNumberToObject(m, "missing", (double)missing);
    rc = gdr_core_write_json(m, out);
    if (!rc)
        printf("planned %zu ok %zu failed %zu missing %zu\n", p.nruns, ok, failed, missing);
    cJSON_Delete(m);
    gdr_plan_free(&p);
    free(st);
    return rc;
}
