/* cluster_agent.c - the agents' end lines as run status lines
 * (cluster_agent.h). */
#include "config.h"

#include "cluster_agent.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void gdr_agents_free(struct gdr_agents *a)
{
    free(a->agent);
    free(a->why);
    free(a->ends);
    memset(a, 0, sizeof(*a));
}

static int read_node(struct gdr_agents *a, const struct gdr_plan_index *t, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0; /* no agent wrote here */
    char line[1024];
    int rc = 0;
    for (size_t no = 1; !rc && fgets(line, sizeof(line), f); no++) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#')
            continue;
        char *fld[6] = {NULL};
        size_t k = 0;
        for (char *p = line, *tok; k < 6 && (tok = strsep(&p, "\t"));)
            fld[k++] = tok;
        if (k < 5 || (strcmp(fld[1], "client") && strcmp(fld[1], "server")))
            rc =
                gdr_fail(GDR_EXIT_USAGE, "%s:%zu: not 'ID ROLE RC SECONDS STATE REASON'", path, no);
        long o = rc ? -1 : gdr_plan_index_find(t, fld[0]);
        if (o < 0)
            continue;
        struct gdr_end_line *e = &a->ends[o][strcmp(fld[1], "client") ? 1 : 0];
        e->seen = true;
        e->rc = atoi(fld[2]);
        e->seconds = strtod(fld[3], NULL);
        snprintf(e->state, sizeof(e->state), "%s", fld[4]);
        snprintf(e->reason, sizeof(e->reason), "%s", fld[5] ? fld[5] : "");
    }
    fclose(f);
    return rc;
}

/* The agent's state from its '#' lines: the last start, then done or
 * interrupted after it. */
static enum gdr_agent_state agent_state(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return GDR_AGENT_NONE;
    enum gdr_agent_state st = GDR_AGENT_NONE;
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "# started", 9))
            st = GDR_AGENT_RUNNING;
        else if (!strncmp(line, "# done", 6) && st == GDR_AGENT_RUNNING)
            st = GDR_AGENT_DONE;
        else if (!strncmp(line, "# interrupted", 13) && st == GDR_AGENT_RUNNING)
            st = GDR_AGENT_STOPPED;
    }
    fclose(f);
    return st;
}

int gdr_agents_read(const struct gdr_plan *p, const char *dir, struct gdr_agents *a)
{
    memset(a, 0, sizeof(*a));
    a->nnodes = p->nnodes;
    a->nruns = p->nruns;
    a->agent = calloc(p->nnodes + 1, sizeof(*a->agent));
    a->why = calloc(p->nnodes + 1, sizeof(*a->why));
    a->ends = calloc(p->nruns + 1, sizeof(*a->ends));
    struct gdr_plan_index t = {0};
    int rc = 0;
    if (!a->agent || !a->why || !a->ends)
        rc = gdr_fail(GDR_EXIT_RUN, "out of memory for %zu runs", p->nruns);
    if (!rc)
        rc = gdr_plan_index_build(p, &t, NULL, NULL);
    for (size_t i = 0; !rc && i < p->nnodes; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.ends", dir, p->nodes[i]);
        a->agent[i] = agent_state(path);
        rc = read_node(a, &t, path);
    }
    gdr_plan_index_free(&t);
    if (rc)
        gdr_agents_free(a);
    return rc;
}

static const char *agent_why(enum gdr_agent_state s)
{
    switch (s) {
    case GDR_AGENT_NONE:
        return "its agent never started (unreachable, or the results "
               "directory not reachable from it)";
    case GDR_AGENT_RUNNING: return "its agent stopped before this run (it died, or hung)";
    case GDR_AGENT_STOPPED: return "its agent was interrupted before this run";
    case GDR_AGENT_DONE: break;
    }
    return "its agent finished without this run";
}

/* A reason without tabs or newlines, at most 400 characters. */
static void flat(FILE *out, const char *s)
{
    for (size_t k = 0; *s && k < 400; s++, k++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

bool gdr_agent_status_line(const struct gdr_agents *a, const struct gdr_plan *p,
                           const struct gdr_plan_run *r, size_t ordinal, bool interrupted,
                           FILE *out, bool *failed)
{
    const struct gdr_end_line *c = &a->ends[ordinal][0], *s = &a->ends[ordinal][1];
    const size_t node[2] = {r->client.node, r->server.node};
    const struct gdr_end_line *e[2] = {c, s};
    static const char *const role[2] = {"client", "server"};
    *failed = false;
    if (interrupted && (!c->seen || !s->seen))
        return false; /* missing: --resume runs it */
    double dur = c->seconds > s->seconds ? c->seconds : s->seconds;
    fprintf(out, "%s\t", r->id);
    /* the end(s) the failure names, and its class */
    bool bad[2] = {false, false};
    const char *cls = NULL;
    for (int k = 0; k < 2 && !cls; k++)
        if (!e[k]->seen)
            cls = "unreachable";
    if (cls) {
        for (int k = 0; k < 2; k++)
            bad[k] = !e[k]->seen;
    } else {
        static const char *const order[] = {"timeout", "exit", "result"};
        for (size_t q = 0; q < 3 && !cls; q++)
            for (int k = 0; k < 2; k++)
                if (!strcmp(e[k]->state, order[q])) {
                    bad[k] = true;
                    cls = order[q];
                }
        /* any other state than ok is a failure too (a newer agent's) */
        for (int k = 0; k < 2 && !cls; k++)
            if (strcmp(e[k]->state, "ok")) {
                bad[k] = true;
                cls = "exit";
            }
    }
    if (!cls) {
        fprintf(out, "ok\t%d\t%d\t%.0f\tfalse\t\t-\t-\n", c->rc, s->rc, dur);
        return true;
    }
    *failed = true;
    fprintf(out, "failed\t");
    for (int k = 0; k < 2; k++)
        if (e[k]->seen)
            fprintf(out, "%d\t", e[k]->rc);
        else
            fprintf(out, "-\t");
    fprintf(out, "%.0f\tfalse\t", dur);
    int k = bad[0] ? 0 : 1;
    if (!strcmp(cls, "unreachable")) {
        if (bad[0] && bad[1])
            fprintf(out, "neither %s nor %s ran its end: ", p->nodes[node[0]], p->nodes[node[1]]);
        for (int q = 0; q < 2; q++) {
            if (!bad[q])
                continue;
            const char *why = a->agent[node[q]] == GDR_AGENT_NONE && a->why[node[q]][0]
                                  ? a->why[node[q]]
                                  : agent_why(a->agent[node[q]]);
            if (bad[0] && bad[1])
                fprintf(out, "%s%s: ", q ? "; " : "", p->nodes[node[q]]);
            else
                fprintf(out, "%s never ran its end: ", p->nodes[node[q]]);
            flat(out, why);
        }
        if (e[!k]->seen && *e[!k]->reason) {
            fprintf(out, "; %s: ", role[!k]);
            flat(out, e[!k]->reason);
        }
    } else {
        fprintf(out, "%s %s: ", role[k],
                !strcmp(cls, "timeout")  ? "stopped at --run-timeout"
                : !strcmp(cls, "result") ? "no valid document"
                                         : "failed");
        flat(out, *e[k]->reason ? e[k]->reason : "(no message)");
    }
    fprintf(out, "\t%s\t%s\n", cls, bad[0] && bad[1] ? "both" : role[k]);
    return true;
}
