/* cluster_soak.c - a cluster soak's findings per link (cluster_soak.h). */
#include "config.h"

#include "cluster_soak.h"
#include "cluster_suspects.h"
#include "doc.h"
#include "error.h"
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool gdr_soak_doc_complete(const cJSON *doc)
{
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "soak")) &&
           !strcmp(gdr_jstr_or(doc, "status", ""), "complete");
}

/* One link's findings as they are read. */
struct link_acc {
    struct gdr_soak_link l;
    cJSON *events, *spans; /* at most GDR_SOAK_LINK_EVENTS events */
};

struct soak_acc {
    const struct gdr_plan *p;
    const char *dir;
    size_t n, cap, read, unread;
    struct link_acc *v;
};

static void acc_free(struct soak_acc *a)
{
    for (size_t k = 0; k < a->n; k++) {
        cJSON_Delete(a->v[k].events);
        cJSON_Delete(a->v[k].spans);
    }
    free(a->v);
}

/* The link (a, b, rail), added when new; NULL on out of memory. Links
 * with findings are few, so a linear look is enough. */
static struct link_acc *link_of(struct soak_acc *a, size_t x, size_t y, int rail)
{
    size_t lo = x < y ? x : y, hi = x < y ? y : x;
    for (size_t k = 0; k < a->n; k++)
        if (a->v[k].l.a == lo && a->v[k].l.b == hi && a->v[k].l.rail == rail)
            return &a->v[k];
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        void *g = realloc(a->v, cap * sizeof(*a->v));
        if (!g)
            return NULL;
        a->v = g;
        a->cap = cap;
    }
    struct link_acc *l = &a->v[a->n];
    *l = (struct link_acc){{lo, hi, rail, 0, 0, -1}, cJSON_CreateArray(), cJSON_CreateArray()};
    if (!l->events || !l->spans) {
        cJSON_Delete(l->events);
        cJSON_Delete(l->spans);
        return NULL;
    }
    a->n++;
    return l;
}

/* A finding as the timeline's event: when in the whole soak (the run's
 * offset added), what. */
static cJSON *event_json(const cJSON *f, const struct gdr_plan_run *r, double offset, bool outage)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", outage ? "outage" : "dip");
    cJSON_AddStringToObject(e, "run", r->id);
    cJSON_AddNumberToObject(e, "round", (double)r->round);
    cJSON_AddNumberToObject(e, "at_s", offset + gdr_jnum_or(f, "start_s", 0));
    gdr_json_add_number_or_null(e, "until_s", offset + gdr_jnum(f, "end_s"));
    cJSON_AddStringToObject(e, "start_time", gdr_jstr_or(f, "start_time", ""));
    if (outage) {
        const cJSON *cls = cJSON_GetObjectItemCaseSensitive(f, "class");
        cJSON_AddStringToObject(e, "cause", gdr_jstr_or(f, "cause", ""));
        cJSON_AddStringToObject(e, "class", gdr_jstr_or(cls, "kind", ""));
        cJSON_AddStringToObject(e, "ended", gdr_jstr_or(f, "ended", ""));
    } else {
        gdr_json_add_number_or_null(e, "pct_of_median", gdr_jnum(f, "pct_of_median"));
    }
    return e;
}

/* One run's client document: its outages and dips onto its link. */
static int soak_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    struct soak_acc *a = ctx;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.client.json", a->dir, r->id);
    if (access(path, R_OK))
        snprintf(path, sizeof(path), "%s/%s.failed-client.json", a->dir, r->id);
    cJSON *doc = access(path, R_OK) ? NULL : gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    const cJSON *soak = cJSON_GetObjectItemCaseSensitive(doc, "soak");
    if (!cJSON_IsObject(soak)) {
        gdr_error_clear(); /* a run without a soak document: the manifest's failure */
        a->unread++;
        cJSON_Delete(doc);
        return 0;
    }
    a->read++;
    /* where the run sat in the whole soak: its round, then its step */
    double offset = (double)(r->round - 1) * a->p->rotate_s +
                    (double)((r->step - 1) % a->p->steps_per_round) * r->soak_s;
    const cJSON *f;
    struct link_acc *l = NULL;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(soak, "findings")) {
        const char *kind = gdr_jstr_or(f, "kind", "");
        bool outage = !strcmp(kind, "outage");
        if (!outage && strcmp(kind, "dip"))
            continue;
        if (!l) {
            if (!(l = link_of(a, r->client.node, r->server.node, r->rail))) {
                cJSON_Delete(doc);
                return gdr_fail(GDR_EXIT_RUN, "out of memory for the soak's links");
            }
            cJSON *span = cJSON_CreateArray();
            cJSON_AddItemToArray(span, cJSON_CreateNumber(offset));
            cJSON_AddItemToArray(
                span, cJSON_CreateNumber(offset + gdr_jnum_or(soak, "elapsed_s", r->soak_s)));
            cJSON_AddItemToArray(l->spans, span);
        }
        *(outage ? &l->l.noutages : &l->l.ndips) += 1;
        if (cJSON_GetArraySize(l->events) < GDR_SOAK_LINK_EVENTS)
            cJSON_AddItemToArray(l->events, event_json(f, r, offset, outage));
    }
    cJSON_Delete(doc);
    return 0;
}

/* Flapping links first (most outages first), then the dips. */
static int cmp_link(const void *x, const void *y)
{
    const struct gdr_soak_link *a = &((const struct link_acc *)x)->l;
    const struct gdr_soak_link *b = &((const struct link_acc *)y)->l;
    if (a->noutages != b->noutages)
        return a->noutages > b->noutages ? -1 : 1;
    if (a->ndips != b->ndips)
        return a->ndips > b->ndips ? -1 : 1;
    return a->a != b->a ? (a->a < b->a ? -1 : 1) : a->b != b->b ? (a->b < b->b ? -1 : 1) : 0;
}

static cJSON *link_json(const struct gdr_plan *p, struct link_acc *la)
{
    const struct gdr_soak_link *l = &la->l;
    cJSON *o = cJSON_CreateObject(), *nodes = cJSON_AddArrayToObject(o, "nodes");
    cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[l->a]));
    cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[l->b]));
    cJSON_AddNumberToObject(o, "rail", l->rail);
    cJSON_AddStringToObject(o, "verdict", l->noutages ? "flapping" : "dips");
    if (l->node >= 0)
        cJSON_AddStringToObject(o, "node", p->nodes[l->node]);
    else
        cJSON_AddNullToObject(o, "node");
    cJSON_AddNumberToObject(o, "outages", (double)l->noutages);
    cJSON_AddNumberToObject(o, "dips", (double)l->ndips);
    cJSON_AddItemToObject(o, "spans", la->spans);
    cJSON_AddItemToObject(o, "events", la->events);
    la->spans = la->events = NULL;
    return o;
}

/* A flapping node, its partners over its flapping links and their outages. */
static cJSON *node_json(const struct gdr_plan *p, const struct soak_acc *a, size_t i)
{
    cJSON *o = cJSON_CreateObject(), *partners = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "node", p->nodes[i]);
    size_t outages = 0;
    for (size_t k = 0; k < a->n; k++) {
        const struct gdr_soak_link *l = &a->v[k].l;
        if (!l->noutages || (l->a != i && l->b != i))
            continue;
        outages += l->noutages;
        const char *peer = p->nodes[l->a == i ? l->b : l->a];
        bool seen = false;
        const cJSON *x;
        cJSON_ArrayForEach(x, partners)
            seen |= !strcmp(x->valuestring, peer);
        if (!seen)
            cJSON_AddItemToArray(partners, cJSON_CreateString(peer));
    }
    cJSON_AddItemToObject(o, "partners", partners);
    cJSON_AddNumberToObject(o, "outages", (double)outages);
    return o;
}

cJSON *gdr_soak_findings(const struct gdr_plan *p, const char *dir)
{
    struct soak_acc a = {.p = p, .dir = dir};
    bool *flapping = calloc(p->nnodes + 1, sizeof(bool));
    if (!flapping || gdr_plan_foreach(p, 0, soak_run, &a)) {
        free(flapping);
        acc_free(&a);
        return gdr_error_code() ? NULL : (gdr_fail(GDR_EXIT_RUN, "out of memory"), NULL);
    }
    qsort(a.v, a.n, sizeof(*a.v), cmp_link);
    struct gdr_soak_link *ls = calloc(a.n + 1, sizeof(*ls));
    for (size_t k = 0; ls && k < a.n; k++)
        ls[k] = a.v[k].l;
    size_t nflap = ls ? gdr_soak_judge(p->nnodes, ls, a.n, flapping) : SIZE_MAX;
    if (nflap == SIZE_MAX) { /* a judgment half made is no judgment */
        free(ls);
        free(flapping);
        acc_free(&a);
        return gdr_fail(GDR_EXIT_RUN, "out of memory judging the soak's links"), NULL;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "duration_s", p->soak_s);
    cJSON_AddNumberToObject(o, "rotate_s", p->rotate_s);
    cJSON_AddNumberToObject(o, "rounds", (double)p->nrounds);
    cJSON_AddNumberToObject(o, "cycle_rounds", (double)p->cycle);
    cJSON_AddBoolToObject(o, "retested", false);
    cJSON_AddNumberToObject(o, "runs_read", (double)a.read);
    char text[300]; /* the words both reports show, written once */
    snprintf(text, sizeof(text),
             "%.0f s in %zu rounds of %.0f s (the plan's %zu rounds cycled), %zu runs' findings "
             "read; not retested: a soak's outages happened over its hours, which a short "
             "serial run would not reproduce",
             p->soak_s, p->nrounds, p->rotate_s, p->cycle, a.read);
    cJSON_AddStringToObject(o, "text", text);
    cJSON_AddNumberToObject(o, "runs_without_soak", (double)a.unread);
    struct gdr_soak_counts c = {0, 0, nflap};
    cJSON *links = cJSON_CreateArray(), *nodes = cJSON_CreateArray();
    for (size_t k = 0; k < a.n; k++) {
        a.v[k].l.node = ls[k].node;
        c.flapping_links += ls[k].noutages && ls[k].node < 0;
        c.dipping_links += !ls[k].noutages;
        cJSON_AddItemToArray(links, link_json(p, &a.v[k]));
    }
    for (size_t i = 0; i < p->nnodes; i++)
        if (flapping[i])
            cJSON_AddItemToArray(nodes, node_json(p, &a, i));
    cJSON *cnt = cJSON_AddObjectToObject(o, "counts");
    cJSON_AddNumberToObject(cnt, "flapping_links", (double)c.flapping_links);
    cJSON_AddNumberToObject(cnt, "dipping_links", (double)c.dipping_links);
    cJSON_AddNumberToObject(cnt, "flapping_nodes", (double)c.flapping_nodes);
    cJSON_AddItemToObject(o, "flapping_nodes", nodes);
    cJSON_AddItemToObject(o, "links", links);
    free(ls);
    free(flapping);
    acc_free(&a);
    return o;
}

void gdr_soak_counts(const cJSON *doc, struct gdr_soak_counts *c)
{
    const cJSON *n =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "soak"), "counts");
    c->flapping_links = (size_t)gdr_jcount(n, "flapping_links");
    c->dipping_links = (size_t)gdr_jcount(n, "dipping_links");
    c->flapping_nodes = (size_t)gdr_jcount(n, "flapping_nodes");
}
