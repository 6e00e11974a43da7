/* core_manifest.c - gdr-cluster-core manifest: manifest.json from the
 * plan and the script's run status lines. */
#include "config.h"

#include "core_cli.h"
#include "atomic_file.h"
#include "cluster_plan.h"
#include "cluster_status.h"
#include "error.h"
#include "manifest.h"

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

/* A failed run's class (gdr_manifest_error_class) from its documents in
 * the manifest's directory (a failed run's client document is kept as
 * ID.failed-client.json); null for a run that did not fail. */
static cJSON *run_class(const char *manifest, const char *id, const struct gdr_run_status *s)
{
    if (!s || strcmp(s->status, "failed"))
        return cJSON_CreateNull();
    const char *slash = strrchr(manifest, '/');
    int n = slash ? (int)(slash - manifest) : 1;
    const char *dir = slash ? manifest : ".";
    char client[4096], server[4096];
    snprintf(client, sizeof(client), "%.*s/%s.failed-client.json", n, dir, id);
    snprintf(server, sizeof(server), "%.*s/%s.server.json", n, dir, id);
    return gdr_manifest_error_class(client, server, s->reason);
}

/* One run's entry (s: its status line, or NULL: missing; manifest: the
 * path written, beside the run's documents). */
static cJSON *run_entry(const struct gdr_plan *p, const struct gdr_plan_run *r,
                        const struct gdr_run_status *s, const char *manifest)
{
    cJSON *o = cJSON_CreateObject();
    char tn[64], f[sizeof(r->id) + 16];
    gdr_test_mode_name(&r->test, tn, sizeof(tn));
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "status", s ? s->status : "missing");
    cJSON_AddNumberToObject(o, "round", (double)r->round);
    cJSON_AddNumberToObject(o, "step", (double)r->step);
    cJSON_AddStringToObject(o, "test", tn);
    cJSON_AddNumberToObject(o, "rail", r->rail);
    cJSON_AddStringToObject(o, "client", p->nodes[r->client.node]);
    cJSON_AddStringToObject(o, "server", p->nodes[r->server.node]);
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
    /* What the benchmarks' documents say of it (issue 23's classes). */
    cJSON_AddItemToObject(o, "error_class", run_class(manifest, r->id, s));
    cJSON *files = cJSON_AddObjectToObject(o, "files");
    snprintf(f, sizeof(f), "%s.client.json", r->id);
    cJSON_AddStringToObject(files, "client", f);
    snprintf(f, sizeof(f), "%s.server.json", r->id);
    cJSON_AddStringToObject(files, "server", f);
    return o;
}

/* The status lines, matched to the plan's runs: in plan order (as
 * gdr-cluster writes them) one line at a time, so that a run of any size
 * fits; in any other order, all of them in memory (sorted). */
struct status_src {
    FILE *f;                      /* streaming, or NULL */
    struct gdr_run_status cur[2]; /* the line in hand, the one after */
    bool have, ahead, stray;      /* a line not matched: the file is not in plan order */
    const char *path;
    size_t line;
    struct gdr_run_status *all; /* in memory */
    size_t nall;
};

static bool next_line(struct status_src *ss, struct gdr_run_status *out)
{
    char buf[2048];
    while (fgets(buf, sizeof(buf), ss->f)) {
        ss->line++;
        if (!gdr_run_status_parse(buf, out))
            return true;
        ss->stray = true; /* a bad line: the in-memory reader names it */
    }
    return false;
}

static const struct gdr_run_status *status_for(struct status_src *ss, const char *id)
{
    if (!ss->f)
        return gdr_run_status_find(ss->all, ss->nall, id);
    if (!ss->have)
        ss->have = next_line(ss, &ss->cur[0]);
    if (!ss->have || strcmp(ss->cur[0].id, id))
        return NULL;
    /* a later line for the same id wins */
    while ((ss->ahead = next_line(ss, &ss->cur[1])) && !strcmp(ss->cur[1].id, id))
        ss->cur[0] = ss->cur[1];
    static struct gdr_run_status found;
    found = ss->cur[0];
    ss->have = ss->ahead;
    if (ss->have)
        ss->cur[0] = ss->cur[1];
    return &found;
}

struct write_ctx {
    const struct gdr_plan *p;
    struct status_src *ss;
    FILE *out;
    const char *path;
    size_t ok, failed, missing;
};

static int write_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct write_ctx *w = ctx;
    const struct gdr_run_status *s = status_for(w->ss, r->id);
    cJSON *o = run_entry(w->p, r, s, w->path);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!txt)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    fprintf(w->out, "%s\n  %s", ordinal ? "," : "", txt);
    free(txt);
    if (!s)
        w->missing++;
    else if (!strcmp(s->status, "ok"))
        w->ok++;
    else
        w->failed++;
    return 0;
}

/* One pass over the plan's runs: m's members, then the runs one at a
 * time, then the counts; to out atomically. Returns 1 when the status
 * lines were not in plan order (the caller reads them all and retries). */
static int write_pass(const cJSON *m, const struct gdr_plan *p, struct status_src *ss,
                      const char *out)
{
    struct gdr_atomic_file af;
    if (gdr_atomic_open(&af, out, GDR_EXIT_USAGE))
        return gdr_core_report_error();
    struct write_ctx w = {p, ss, af.f, out, 0, 0, 0};
    char *head = cJSON_Print(m);
    if (!head) {
        gdr_atomic_abort(&af);
        return gdr_core_usage_error("out of memory");
    }
    /* the closing brace (and the newline before it): more members follow */
    size_t hl = strlen(head);
    while (hl > 0 && head[hl - 1] == '\n')
        hl--;
    if (hl > 0 && head[hl - 1] == '}')
        hl--;
    while (hl > 0 && head[hl - 1] == '\n')
        hl--;
    head[hl] = '\0';
    fprintf(w.out, "%s,\n\t\"runs\": [", head);
    free(head);
    int rc = gdr_plan_foreach(p, 0, write_run, &w) ? gdr_core_report_error() : 0;
    fprintf(w.out,
            "\n\t],\n\t\"planned\": %zu,\n\t\"ok\": %zu,\n\t\"failed\": %zu,\n"
            "\t\"missing\": %zu\n}\n",
            p->nruns, w.ok, w.failed, w.missing);
    if (!rc && ss->f && (ss->have || ss->stray))
        rc = 1;
    if (rc)
        gdr_atomic_abort(&af);
    else if (gdr_atomic_commit(&af))
        rc = gdr_core_report_error();
    else
        printf("planned %zu ok %zu failed %zu missing %zu\n", p->nruns, w.ok, w.failed, w.missing);
    return rc;
}

static int write_manifest(const cJSON *m, const struct gdr_plan *p, const char *status,
                          const char *out)
{
    struct status_src ss = {.f = fopen(status, "r"), .path = status};
    if (!ss.f)
        return gdr_core_usage_error("manifest: %s: %s", status, strerror(errno));
    int rc = write_pass(m, p, &ss, out);
    fclose(ss.f);
    if (rc != 1)
        return rc;
    memset(&ss, 0, sizeof(ss));
    if (gdr_run_status_read(status, &ss.all, &ss.nall))
        return gdr_core_report_error();
    rc = write_pass(m, p, &ss, out);
    free(ss.all);
    return rc;
}

int gdr_core_cmd_manifest(int argc, char **argv)
{
    static const struct option opts[] = {
        {"plan", required_argument, NULL, 'p'},
        {"status", required_argument, NULL, 's'},
        {"args-file", required_argument, NULL, 'f'},
        {"unreachable", required_argument, NULL, 'u'},
        {"arg", required_argument, NULL, 'a'},
        {"set", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    const char *plan = NULL, *status = NULL, *out = NULL, *args_file = NULL, *eq;
    const char *unreachable = NULL;
    cJSON *m = cJSON_CreateObject(), *cmd = cJSON_CreateArray();
    cJSON_AddStringToObject(m, "manifest_version", "gdrbench.cluster/1");
    int c, rc = 0;
    while (!rc && (c = gdr_core_getopt(argc, argv, "o:", opts, NULL, 0, &rc)) != -1) {
        switch (c) {
        case 'p': plan = optarg; break;
        case 's': status = optarg; break;
        case 'o': out = optarg; break;
        case 'f': args_file = optarg; break;
        case 'u': unreachable = optarg; break;
        case 'a': cJSON_AddItemToArray(cmd, cJSON_CreateString(optarg)); break;
        case 'S':
            eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                rc = gdr_core_usage_error("manifest: --set wants KEY=VALUE, not '%s'", optarg);
                break;
            }
            char key[64];
            snprintf(key, sizeof(key), "%.*s", (int)(eq - optarg), optarg);
            cJSON_AddStringToObject(m, key, eq + 1);
            break;
        }
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
    if (!rc && gdr_plan_load(plan, &p))
        rc = gdr_core_report_error();
    if (!rc && unreachable)
        rc = add_unreachable(m, unreachable);
    if (!rc) {
        cJSON *nodes = cJSON_AddArrayToObject(m, "nodes");
        for (size_t i = 0; i < p.nnodes; i++)
            cJSON_AddItemToArray(nodes, cJSON_CreateString(p.nodes[i]));
        cJSON *pl = cJSON_AddObjectToObject(m, "plan");
        cJSON_AddStringToObject(pl, "file", "plan.json");
        cJSON_AddNumberToObject(pl, "rounds", (double)p.nrounds);
        cJSON_AddNumberToObject(pl, "steps", (double)p.nsteps);
        cJSON_AddNumberToObject(pl, "estimated_s", p.estimated_s);
        rc = write_manifest(m, &p, status, out);
    }
    cJSON_Delete(m);
    gdr_plan_free(&p);
    return rc;
}
