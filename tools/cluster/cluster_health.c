/* cluster_health.c - unreachable and failed nodes (cluster_health.h). */
#include "config.h"

#include "cluster_health.h"
#include "cluster_suspects.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum run_state { RUN_MISSING, RUN_OK, RUN_FAILED };

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

void gdr_health_free(struct gdr_health *h)
{
    free(h->v);
    free(h->nfail);
    free(h->dead);
    memset(h, 0, sizeof(*h));
}

static struct gdr_dead_node *add(struct gdr_health *h, size_t node)
{
    struct gdr_dead_node *g = realloc(h->v, (h->n + 1) * sizeof(*g));
    if (!g)
        return NULL;
    h->v = g;
    g = &h->v[h->n++];
    memset(g, 0, sizeof(*g));
    g->node = node;
    g->last_run = -1;
    return g;
}

static void add_partner(struct gdr_dead_node *d, size_t q)
{
    for (size_t k = 0; k < d->npartners; k++)
        if (d->partners[k] == q)
            return;
    if (d->npartners < GDR_HEALTH_MAX_PARTNERS)
        d->partners[d->npartners++] = q;
}

/* Per node, walking the runs from the last: its tail of failed runs. */
struct walk {
    bool done; /* an ok run seen: the tail is complete */
    long first_fail;
    size_t partner; /* its first partner in the plan */
    bool several;   /* more than one partner in the plan */
    bool any;
    struct gdr_dead_node tail;
};

int gdr_health_from_manifest(const cJSON *man, const struct gdr_plan *p, struct gdr_health *h)
{
    memset(h, 0, sizeof(*h));
    enum run_state *st = calloc(p->nruns + 1, sizeof(*st));
    const cJSON **mr = calloc(p->nruns + 1, sizeof(*mr));
    struct walk *w = calloc(p->nnodes + 1, sizeof(*w));
    bool *cand = calloc(p->nnodes + 1, sizeof(bool));
    h->nfail = calloc(p->nnodes + 1, sizeof(size_t));
    h->dead = calloc(p->nnodes + 1, sizeof(bool));
    if (!st || !mr || !w || !cand || !h->nfail || !h->dead)
        goto oom;
    /* The manifest lists the plan's runs in order (gdr-cluster-core
     * manifest): one walk; an entry that is not the plan's is ignored. */
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(man, "runs");
    it = it ? it->child : NULL;
    for (size_t i = 0; i < p->nruns; i++) {
        if (it && !strcmp(jstr(it, "id"), p->runs[i].id)) {
            mr[i] = it;
            it = it->next;
        }
        const char *s = jstr(mr[i], "status");
        st[i] = !strcmp(s, "ok") ? RUN_OK : !strcmp(s, "failed") ? RUN_FAILED : RUN_MISSING;
        const size_t ends[2] = {p->runs[i].client.node, p->runs[i].server.node};
        for (int e = 0; e < 2; e++) {
            struct walk *x = &w[ends[e]];
            size_t q = ends[!e];
            if (!x->any)
                x->partner = q;
            x->several |= x->any && x->partner != q;
            x->any = true;
            h->nfail[ends[e]] += st[i] == RUN_FAILED;
        }
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(man, "unreachable")) {
        long node = gdr_plan_node_index(p, jstr(it, "node"));
        if (node < 0)
            continue;
        struct gdr_dead_node *d = add(h, (size_t)node);
        if (!d)
            goto oom;
        d->unreachable = true;
        snprintf(d->why, sizeof(d->why), "%s", jstr(it, "reason"));
    }
    /* From the last run back to each node's last one that went well. */
    for (size_t i = p->nruns; i-- > 0;) {
        if (st[i] == RUN_MISSING)
            continue;
        const size_t ends[2] = {p->runs[i].client.node, p->runs[i].server.node};
        for (int e = 0; e < 2; e++) {
            struct walk *x = &w[ends[e]];
            if (x->done)
                continue;
            if (st[i] == RUN_OK) {
                x->done = true;
                continue;
            }
            add_partner(&x->tail, ends[!e]);
            x->tail.nfailed++;
            x->tail.since_round = p->runs[i].round;
            x->first_fail = (long)i;
            if (x->tail.nfailed == 1)
                x->tail.last_run = (long)i;
        }
    }
    /* At least two partners in the tail, or the only partner it has (then
     * the partner is a candidate too: the retest tells them apart). */
    size_t first = h->n;
    for (size_t node = 0; node < p->nnodes; node++) {
        const struct walk *x = &w[node];
        if (!x->tail.nfailed || (x->tail.npartners < 2 && x->several))
            continue;
        struct gdr_dead_node *d = add(h, node);
        if (!d)
            goto oom;
        *d = x->tail;
        d->node = node;
        cand[node] = true;
        /* The first failure says most (a crash; the later ones: refused). */
        const cJSON *fc = cJSON_GetObjectItemCaseSensitive(mr[x->first_fail], "failure");
        snprintf(d->why, sizeof(d->why), "round %zu: %s: %s", x->tail.since_round,
                 *jstr(fc, "class") ? jstr(fc, "class") : "failed",
                 jstr(mr[x->first_fail], "reason"));
    }
    /* A healthy node whose last partners all died fails with each of them:
     * a candidate none of whose failures is with a node outside the
     * candidates (and its only partner counted once) is their victim. */
    size_t kept = first;
    for (size_t k = first; k < h->n; k++) {
        size_t outside = 0;
        for (size_t q = 0; q < h->v[k].npartners; q++)
            outside += !cand[h->v[k].partners[q]];
        if (outside || h->v[k].npartners < 2)
            h->v[kept++] = h->v[k];
    }
    h->n = kept;
    for (size_t k = 0; k < h->n; k++)
        h->dead[h->v[k].node] = true;
    free(st);
    free(mr);
    free(w);
    free(cand);
    return 0;
oom:
    free(st);
    free(mr);
    free(w);
    free(cand);
    gdr_health_free(h);
    return gdr_fail(GDR_EXIT_RUN, "out of memory");
}

cJSON *gdr_health_suspect_json(const struct gdr_health *h, size_t k, const struct gdr_plan *p,
                               long partner, size_t number, unsigned base_port)
{
    const struct gdr_dead_node *d = &h->v[k];
    const struct gdr_plan_run *run = d->last_run >= 0 ? &p->runs[d->last_run] : &p->runs[0];
    cJSON *j = cJSON_CreateObject();
    char tn[64];
    gdr_test_mode_name(&run->test, tn, sizeof(tn));
    cJSON_AddStringToObject(j, "kind", "node");
    cJSON_AddStringToObject(j, "finding", d->unreachable ? "unreachable" : "failed");
    cJSON *nodes = cJSON_AddArrayToObject(j, "nodes");
    cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[d->node]));
    cJSON_AddNumberToObject(j, "rail", run->rail);
    cJSON_AddStringToObject(j, "test", tn);
    cJSON_AddStringToObject(j, "status", "pending");
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddNumberToObject(ev, "failed_runs", (double)d->nfailed);
    if (!d->unreachable)
        cJSON_AddNumberToObject(ev, "since_round", (double)d->since_round);
    cJSON *pa = cJSON_AddArrayToObject(ev, "partners");
    for (size_t q = 0; q < d->npartners; q++)
        cJSON_AddItemToArray(pa, cJSON_CreateString(p->nodes[d->partners[q]]));
    cJSON_AddStringToObject(ev, "reason", d->why);
    cJSON *rt = cJSON_AddArrayToObject(j, "retest");
    if (partner >= 0 && p->nruns > 0)
        cJSON_AddItemToArray(rt,
                             gdr_retest_run_json(p, &run->test, run->rail, "recheck", number, 0,
                                                 d->node, (size_t)partner, "suspect", base_port));
    cJSON_AddStringToObject(j, "third_node", partner >= 0 ? p->nodes[partner] : "");
    return j;
}
