/* cluster_health.c - unreachable and failed nodes (cluster_health.h). */
#include "config.h"

#include "cluster_health.h"
#include "buf.h"
#include "cluster_status.h"
#include "cluster_stream.h"
#include "cluster_suspects.h"
#include "error.h"
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum run_state { RUN_MISSING, RUN_OK, RUN_FAILED };

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

/* What the manifest says of each entry: its id's hash, its state, and a
 * failed run's "round N: CLASS: REASON" text in one arena. */
struct entries {
    struct entry {
        uint64_t id;
        size_t why; /* offset into text + 1; 0: none */
        uint8_t state;
    } * v;
    size_t n, cap;
    struct gdr_buf text;
};

/* One entry: id, "ok"/"failed"/other, and a failed run's class and reason. */
static int add_one(struct entries *e, const char *id, const char *status, const char *cls,
                   const char *reason)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1024;
        void *g = realloc(e->v, cap * sizeof(*e->v));
        if (!g)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        e->v = g;
        e->cap = cap;
    }
    struct entry *x = &e->v[e->n++];
    x->id = gdr_plan_id_hash(id);
    x->state = !strcmp(status, "ok")       ? RUN_OK
               : !strcmp(status, "failed") ? RUN_FAILED
                                           : RUN_MISSING;
    x->why = 0;
    if (x->state != RUN_FAILED)
        return 0;
    char why[440];
    snprintf(why, sizeof(why), "%s: %s", *cls ? cls : "failed", reason);
    x->why = gdr_buf_len(&e->text) + 1;
    gdr_buf_put(&e->text, why, strlen(why) + 1); /* with its NUL: a table of strings */
    return e->text.oom ? gdr_fail(GDR_EXIT_RUN, "out of memory") : 0;
}

static int add_entry(const cJSON *r, void *ctx)
{
    return add_one(ctx, gdr_jstr_or(r, "id", ""), gdr_jstr_or(r, "status", ""),
                   gdr_jstr_or(cJSON_GetObjectItemCaseSensitive(r, "failure"), "class", ""),
                   gdr_jstr_or(r, "reason", ""));
}

/* Per run of the plan, in order: its ends, round, test, rail, state. */
struct run_info {
    uint32_t c, s, round;
    uint16_t test, rail;
    uint8_t state;
    size_t why; /* into the entries' text + 1 */
};

struct match {
    const struct entries *e;
    size_t next; /* the next entry to match */
    struct run_info *runs;
};

/* The manifest lists the plan's runs in order (gdr-cluster-core manifest):
 * one walk; an entry that is not the plan's is ignored. */
static int match_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct match *m = ctx;
    struct run_info *x = &m->runs[ordinal];
    *x = (struct run_info){(uint32_t)r->client.node,
                           (uint32_t)r->server.node,
                           (uint32_t)r->round,
                           (uint16_t)r->test_index,
                           (uint16_t)r->rail,
                           RUN_MISSING,
                           0};
    if (m->next < m->e->n && m->e->v[m->next].id == gdr_plan_id_hash(r->id)) {
        x->state = m->e->v[m->next].state;
        x->why = m->e->v[m->next].why;
        m->next++;
    }
    return 0;
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

static int health(struct entries *e, const cJSON *unreachable, const struct gdr_plan *p,
                  struct gdr_health *h)
{
    memset(h, 0, sizeof(*h));
    const char *text = gdr_buf_text(&e->text);
    struct run_info *runs = calloc(p->nruns + 1, sizeof(*runs));
    struct walk *w = calloc(p->nnodes + 1, sizeof(*w));
    bool *cand = calloc(p->nnodes + 1, sizeof(bool));
    h->nfail = calloc(p->nnodes + 1, sizeof(size_t));
    h->dead = calloc(p->nnodes + 1, sizeof(bool));
    struct match m = {e, 0, runs};
    if (!runs || !w || !cand || !h->nfail || !h->dead || gdr_plan_foreach(p, 0, match_run, &m))
        goto oom;
    for (size_t i = 0; i < p->nruns; i++) {
        const size_t ends[2] = {runs[i].c, runs[i].s};
        for (int k = 0; k < 2; k++) {
            struct walk *x = &w[ends[k]];
            size_t q = ends[!k];
            if (!x->any)
                x->partner = q;
            x->several |= x->any && x->partner != q;
            x->any = true;
            h->nfail[ends[k]] += runs[i].state == RUN_FAILED;
        }
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, unreachable) {
        long node = gdr_plan_node_index(p, gdr_jstr_or(it, "node", ""));
        if (node < 0 || h->dead[node])
            continue;
        struct gdr_dead_node *d = add(h, (size_t)node);
        if (!d)
            goto oom;
        d->unreachable = true;
        d->test = p->tests[0];
        d->rail = p->nrail_sel ? p->rail_sel[0] : 0;
        h->dead[node] = true; /* with agents it is in the plan: not failed as well */
        snprintf(d->why, sizeof(d->why), "%s", gdr_jstr_or(it, "reason", ""));
    }
    /* From the last run back to each node's last one that went well. */
    for (size_t i = p->nruns; i-- > 0;) {
        if (runs[i].state == RUN_MISSING)
            continue;
        const size_t ends[2] = {runs[i].c, runs[i].s};
        for (int k = 0; k < 2; k++) {
            struct walk *x = &w[ends[k]];
            if (x->done)
                continue;
            if (runs[i].state == RUN_OK) {
                x->done = true;
                continue;
            }
            add_partner(&x->tail, ends[!k]);
            x->tail.nfailed++;
            x->tail.since_round = runs[i].round;
            x->first_fail = (long)i;
            if (x->tail.nfailed == 1) {
                x->tail.last_run = (long)i;
                x->tail.test = p->tests[runs[i].test < p->ntests ? runs[i].test : 0];
                x->tail.rail = runs[i].rail;
            }
        }
    }
    /* At least two partners in the tail, or the only partner it has (then
     * the partner is a candidate too: the retest tells them apart). */
    size_t first = h->n;
    for (size_t node = 0; node < p->nnodes; node++) {
        const struct walk *x = &w[node];
        if (!x->tail.nfailed || (x->tail.npartners < 2 && x->several) || h->dead[node])
            continue;
        struct gdr_dead_node *d = add(h, node);
        if (!d)
            goto oom;
        *d = x->tail;
        d->node = node;
        cand[node] = true;
        /* The first failure says most (a crash; the later ones: refused). */
        size_t why = runs[x->first_fail].why;
        snprintf(d->why, sizeof(d->why), "round %zu: %s", x->tail.since_round,
                 why ? text + why - 1 : "failed");
    }
    /* A healthy node whose last partners all died fails with each of them:
     * a candidate none of whose failures is with a node outside the
     * candidates (and its only partner counted once) is their victim. */
    size_t kept = first;
    for (size_t k = first; k < h->n; k++) {
        size_t outside = 0;
        for (size_t q = 0; q < h->v[k].npartners; q++)
            outside += !cand[h->v[k].partners[q]] && !h->dead[h->v[k].partners[q]];
        if (outside || h->v[k].npartners < 2)
            h->v[kept++] = h->v[k];
    }
    h->n = kept;
    for (size_t k = 0; k < h->n; k++)
        h->dead[h->v[k].node] = true;
    free(runs);
    free(w);
    free(cand);
    return 0;
oom:
    free(runs);
    free(w);
    free(cand);
    gdr_health_free(h);
    return gdr_fail(GDR_EXIT_RUN, "out of memory");
}

static void entries_free(struct entries *e)
{
    free(e->v);
    gdr_buf_free(&e->text);
}

int gdr_health_from_manifest(const cJSON *man, const struct gdr_plan *p, struct gdr_health *h)
{
    struct entries e = {0};
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(man, "runs")) {
        if (add_entry(it, &e)) {
            entries_free(&e);
            return -1;
        }
    }
    int rc = health(&e, cJSON_GetObjectItemCaseSensitive(man, "unreachable"), p, h);
    entries_free(&e);
    return rc;
}

int gdr_health_from_status(const char *status, const char *unreachable, const struct gdr_plan *p,
                           struct gdr_health *h)
{
    struct entries e = {0};
    memset(h, 0, sizeof(*h));
    FILE *f = fopen(status, "r");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", status, strerror(errno));
    char line[2048];
    struct gdr_run_status st;
    int rc = 0;
    for (size_t no = 1; !rc && fgets(line, sizeof(line), f); no++) {
        int k = gdr_run_status_parse(line, &st);
        if (k < 0)
            rc = gdr_fail(GDR_EXIT_USAGE, "%s:%zu: not a run status line", status, no);
        else if (k == 0)
            rc = add_one(&e, st.id, st.status, st.fclass, st.reason);
    }
    fclose(f);
    /* the probe's misses: NODE<TAB>REASON lines, as in the manifest */
    cJSON *un = cJSON_CreateArray();
    f = rc || !unreachable ? NULL : fopen(unreachable, "r");
    if (!rc && unreachable && !f)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: %s", unreachable, strerror(errno));
    while (f && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (tab)
            *tab++ = '\0';
        if (!*line)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", line);
        cJSON_AddStringToObject(o, "reason", tab ? tab : "");
        cJSON_AddItemToArray(un, o);
    }
    if (f)
        fclose(f);
    if (!rc)
        rc = health(&e, un, p, h);
    cJSON_Delete(un);
    entries_free(&e);
    return rc;
}

int gdr_health_from_manifest_file(const char *path, const struct gdr_plan *p, struct gdr_health *h)
{
    struct entries e = {0};
    cJSON *rest = NULL;
    memset(h, 0, sizeof(*h));
    int rc = gdr_json_stream(path, "runs", add_entry, &e, &rest);
    if (!rc)
        rc = health(&e, cJSON_GetObjectItemCaseSensitive(rest, "unreachable"), p, h);
    cJSON_Delete(rest);
    entries_free(&e);
    return rc;
}

cJSON *gdr_health_suspect_json(const struct gdr_health *h, size_t k, const struct gdr_plan *p,
                               long partner, size_t number, unsigned base_port)
{
    const struct gdr_dead_node *d = &h->v[k];
    cJSON *j = cJSON_CreateObject();
    char tn[64];
    gdr_test_mode_name(&d->test, tn, sizeof(tn));
    cJSON_AddStringToObject(j, "kind", "node");
    cJSON_AddStringToObject(j, "finding", d->unreachable ? "unreachable" : "failed");
    cJSON *nodes = cJSON_AddArrayToObject(j, "nodes");
    cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[d->node]));
    cJSON_AddNumberToObject(j, "rail", d->rail);
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
                             gdr_retest_run_json(p, &d->test, d->rail, "recheck", number, 0,
                                                 d->node, (size_t)partner, "suspect", base_port));
    cJSON_AddStringToObject(j, "third_node", partner >= 0 ? p->nodes[partner] : "");
    return j;
}
