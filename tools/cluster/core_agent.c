/* core_agent.c - gdr-cluster-core agent-runs and collect: the agent mode's
 * share of the plan for one node, and the agents' end lines back to run
 * status lines (cluster_agent.h). */
#include "config.h"

#include "core_cli.h"
#include "order.h"
#include "atomic_file.h"
#include "cluster_agent.h"
#include "cluster_matrix.h"
#include "cluster_soak.h"
#include "doc.h"
#include "json.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- agent-runs ---- */

struct node_ctx {
    const struct gdr_plan *p;
    size_t node;
    char **skip; /* sorted ids not to run again (--skip) */
    size_t nskip;
};

static void print_end(const struct gdr_plan_end *e)
{
    char gpu[GDR_BDF_LEN];
    printf("\t%s\t%s", e->device[0] ? e->device : "-", gdr_plan_end_gpu(e, gpu, sizeof(gpu)));
}

static int node_line(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    const struct node_ctx *nc = ctx;
    const char *id = r->id;
    if (nc->nskip && bsearch(&id, nc->skip, nc->nskip, sizeof(char *), gdr_cmp_strp))
        return 0;
    bool client = r->client.node == nc->node;
    const struct gdr_plan_end *me = client ? &r->client : &r->server;
    const struct gdr_plan_end *peer = client ? &r->server : &r->client;
    printf("%zu\t%zu\t%s\t%s\t%s\t%s\t%d\t%u\t%s\t%s", r->round, r->step, r->id, r->test.tool,
           r->test.placement, r->test.gdr, r->rail, r->port, client ? "client" : "server",
           nc->p->nodes[peer->node]);
    print_end(me);
    if (r->soak_s) /* a soak's run: its --soak seconds, as plan-runs */
        printf("\t%u", r->soak_s);
    printf("\n");
    return 0;
}

/* --skip FILE: run ids, one a line. */
static int read_skip(const char *path, struct node_ctx *nc)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_core_usage_error("agent-runs: %s: %s", path, strerror(errno));
    char line[1024];
    size_t cap = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\t\n")] = '\0';
        if (!*line)
            continue;
        if (nc->nskip == cap) {
            cap = cap ? 2 * cap : 1024;
            char **g = realloc(nc->skip, cap * sizeof(*g));
            if (!g) {
                rc = gdr_core_usage_error("out of memory");
                break;
            }
            nc->skip = g;
        }
        if (!(nc->skip[nc->nskip] = strdup(line)))
            rc = gdr_core_usage_error("out of memory");
        else
            nc->nskip++;
    }
    fclose(f);
    if (nc->nskip)
        qsort(nc->skip, nc->nskip, sizeof(char *), gdr_cmp_strp);
    return rc;
}

int gdr_core_cmd_agent_runs(int argc, char **argv)
{
    static const struct option opts[] = {{"skip", required_argument, NULL, 's'},
                                         {NULL, 0, NULL, 0}};
    const char *arg[2] = {NULL, NULL}, *skip = NULL;
    int rc;
    while (gdr_core_getopt(argc, argv, "", opts, arg, 2, &rc) != -1)
        skip = optarg; /* the one option */
    if (rc)
        return rc;
    const char *plan = arg[0], *node = arg[1];
    if (!plan || !node)
        return gdr_core_usage_error("agent-runs: needs PLAN and NODE");
    struct gdr_plan p;
    if (gdr_plan_load(plan, &p))
        return gdr_core_report_error();
    long i = gdr_plan_node_index(&p, node);
    struct node_ctx nc = {&p, (size_t)i, NULL, 0};
    if (i < 0)
        rc = gdr_core_usage_error("agent-runs: node '%s' is not in %s", node, plan);
    else if (skip)
        rc = read_skip(skip, &nc);
    if (!rc && gdr_plan_foreach_node(&p, (size_t)i, node_line, &nc))
        rc = gdr_core_report_error();
    for (size_t k = 0; k < nc.nskip; k++)
        free(nc.skip[k]);
    free(nc.skip);
    gdr_plan_free(&p);
    return rc;
}

/* ---- cell ---- */

/* cell DOC [--gdr on|off|na]: the client document of a run as one line of
 * numbers (gdr_matrix_cell_line), for the agent to append to
 * agents/NODE.cells: the documents are read where they were written.
 * Exit 2 with the reason when the document is not a complete run's. */
int gdr_core_cmd_cell(int argc, char **argv)
{
    static const struct option opts[] = {{"gdr", required_argument, NULL, 'g'}, {NULL, 0, NULL, 0}};
    const char *doc = NULL, *gdr = "na";
    int rc;
    while (gdr_core_getopt(argc, argv, "", opts, &doc, 1, &rc) != -1)
        gdr = optarg; /* the one option */
    if (rc)
        return rc;
    const char *base = doc ? strrchr(doc, '/') : NULL, *suffix = ".client.json";
    base = base ? base + 1 : doc;
    size_t n = base ? strlen(base) : 0, sl = strlen(suffix);
    if (!doc || n <= sl || strcmp(base + n - sl, suffix))
        return gdr_core_usage_error("cell: needs a client document, ID.client.json");
    struct gdr_test_mode t;
    memset(&t, 0, sizeof(t));
    snprintf(t.gdr, sizeof(t.gdr), "%s", gdr);
    struct gdr_run_result r;
    gdr_run_result_read(doc, &t, &r);
    if (!r.ok) {
        fprintf(stderr, "gdr-cluster-core: %s\n", r.error);
        return GDR_EXIT_USAGE;
    }
    char id[3 * GDR_NODE_NAME_LEN];
    snprintf(id, sizeof(id), "%.*s", (int)(n - sl), base);
    gdr_matrix_cell_line(stdout, id, &r);
    return 0;
}

/* soak-end DOC: exit 0 when DOC is a complete soak's document (the
 * benchmark exits 1 for a soak's findings: the run completed all the
 * same), 1 when not. One rule for the agent and gdr-cluster's runs. */
int gdr_core_cmd_soak_end(int argc, char **argv)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    const char *doc = NULL;
    int rc;
    gdr_core_getopt(argc, argv, "", none, &doc, 1, &rc);
    if (rc)
        return rc;
    if (!doc)
        return gdr_core_usage_error("soak-end: needs a document");
    cJSON *d = access(doc, R_OK) ? NULL : gdr_json_read_file(doc, GDR_DOC_MAX_BYTES);
    bool done = gdr_soak_doc_complete(d);
    cJSON_Delete(d);
    return done ? 0 : GDR_EXIT_RUN;
}

/* ---- collect ---- */

struct collect_ctx {
    const struct gdr_plan *p;
    const struct gdr_agents *a;
    const char *dir;
    bool interrupted;
    FILE *out;
    size_t ok, failed, missing;
};

static int collect_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct collect_ctx *cc = ctx;
    bool failed;
    if (!gdr_agent_status_line(cc->a, cc->p, r, ordinal, cc->interrupted, cc->out, &failed)) {
        cc->missing++;
        return 0;
    }
    if (!failed) {
        cc->ok++;
        return 0;
    }
    cc->failed++;
    /* A failed run's client document must count neither in the matrix
     * nor for --resume. */
    char from[4200], to[4200];
    snprintf(from, sizeof(from), "%s/%s.client.json", cc->dir, r->id);
    snprintf(to, sizeof(to), "%s/%s.failed-client.json", cc->dir, r->id);
    if (rename(from, to) && errno != ENOENT)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", from, strerror(errno));
    return 0;
}

/* --agent-errors FILE: "NODE<TAB>REASON" for agents that never started. */
static int read_why(const char *path, const struct gdr_plan *p, struct gdr_agents *a)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_core_usage_error("collect: %s: %s", path, strerror(errno));
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        long i = gdr_plan_node_index(p, line);
        if (i >= 0)
            snprintf(a->why[i], sizeof(a->why[i]), "%s", tab + 1);
    }
    fclose(f);
    return 0;
}

int gdr_core_cmd_collect(int argc, char **argv)
{
    static const struct option opts[] = {
        {"plan", required_argument, NULL, 'p'},
        {"dir", required_argument, NULL, 'd'},
        {"agent-errors", required_argument, NULL, 'e'},
        {"interrupted", no_argument, NULL, 'i'},
        {NULL, 0, NULL, 0},
    };
    const char *plan = NULL, *dir = NULL, *out = NULL, *why = NULL;
    bool interrupted = false;
    int c, rc;
    while ((c = gdr_core_getopt(argc, argv, "o:", opts, NULL, 0, &rc)) != -1) {
        switch (c) {
        case 'p': plan = optarg; break;
        case 'd': dir = optarg; break;
        case 'o': out = optarg; break;
        case 'e': why = optarg; break;
        case 'i': interrupted = true; break;
        }
    }
    if (rc)
        return rc;
    if (!plan || !dir || !out)
        return gdr_core_usage_error("collect: --plan, --dir and -o are required");
    struct gdr_plan p;
    struct gdr_agents a;
    char agents[4200];
    snprintf(agents, sizeof(agents), "%s/agents", dir);
    if (gdr_plan_load(plan, &p))
        return gdr_core_report_error();
    if (gdr_agents_read(&p, agents, &a)) {
        gdr_plan_free(&p);
        return gdr_core_report_error();
    }
    rc = why ? read_why(why, &p, &a) : 0;
    struct gdr_atomic_file af = {0};
    if (!rc && gdr_atomic_open(&af, out, GDR_EXIT_USAGE))
        rc = gdr_core_report_error();
    struct collect_ctx cc = {&p, &a, dir, interrupted, af.f, 0, 0, 0};
    if (!rc && gdr_plan_foreach(&p, 0, collect_run, &cc))
        rc = gdr_core_report_error();
    if (rc)
        gdr_atomic_abort(&af);
    else if (gdr_atomic_commit(&af))
        rc = gdr_core_report_error();
    if (!rc) {
        size_t started = 0, done = 0;
        for (size_t i = 0; i < p.nnodes; i++) {
            started += a.agent[i] != GDR_AGENT_NONE;
            done += a.agent[i] == GDR_AGENT_DONE;
        }
        printf("ok %zu failed %zu missing %zu agents_started %zu agents_done %zu\n", cc.ok,
               cc.failed, cc.missing, started, done);
    }
    gdr_agents_free(&a);
    gdr_plan_free(&p);
    return rc;
}
