/* cluster_findings.c - the findings of one cluster run (cluster_findings.h). */
#include "config.h"

#include "cluster_findings.h"
#include "cluster_links.h"
#include "cluster_soak.h"
#include "error.h"
#include "json.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number, or null when unknown (0 or NaN: nothing measured). */
static void add_value(cJSON *o, const char *key, double v)
{
    if (v > 0 && !isnan(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* ---- per matrix: the worst nodes and links ---- */

struct node_row {
    size_t node, low, failed;
    double client, server, worst; /* medians as client and server, the worst cell */
};

/* Worst first: the most low or failed cells, then node order. */
static int worse_row(const void *x, const void *y)
{
    const struct node_row *a = x, *b = y;
    size_t ba = a->low + a->failed, bb = b->low + b->failed;
    if (ba != bb)
        return ba > bb ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

static bool worse_value(const struct gdr_matrix *m, double v, double than)
{
    return than == 0 || (m->latency ? v > than : v < than);
}

/* Node i's row: medians over its OK cells as client and as server. */
static void node_row(const struct gdr_matrix *m, const struct gdr_mstats *st,
                     const struct gdr_detect_opts *o, size_t i, double *v, struct node_row *r)
{
    r->node = i;
    for (int d = 0; d < 2; d++) {
        size_t k = 0;
        for (size_t q = 0; q < gdr_matrix_node_count(m, i, d); q++) {
            const struct gdr_cell *c = gdr_matrix_node_cell(m, i, d, q);
            if (c->c == c->s || c->state == GDR_CELL_NONE)
                continue;
            if (c->state == GDR_CELL_FAILED) {
                r->failed++;
                continue;
            }
            r->low += gdr_cell_low(m, st, o, c);
            v[k++] = c->value;
            if (worse_value(m, c->value, r->worst))
                r->worst = c->value;
        }
        *(d ? &r->server : &r->client) = k ? gdr_median_inplace(v, k) : 0;
    }
}

/* Every node's row, or the `worst` worst ones (the whole matrix is the CSV). */
static cJSON *worst_nodes(const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                          const struct gdr_mstats *st, const struct gdr_detect_opts *o,
                          size_t worst)
{
    size_t most = 0;
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 2; d++)
            if (gdr_matrix_node_count(m, i, d) > most)
                most = gdr_matrix_node_count(m, i, d);
    double *v = calloc(most + 1, sizeof(double));
    struct node_row *rows = calloc(s->n + 1, sizeof(*rows));
    cJSON *arr = v && rows ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; arr && i < s->n; i++)
        node_row(m, st, o, i, v, &rows[i]);
    size_t shown = s->n;
    if (arr && worst && s->n > worst) {
        qsort(rows, s->n, sizeof(*rows), worse_row);
        shown = worst;
    }
    for (size_t k = 0; arr && k < shown; k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "node", s->nodes[rows[k].node]);
        add_value(x, "client_median", rows[k].client);
        add_value(x, "server_median", rows[k].server);
        add_value(x, "worst", rows[k].worst);
        cJSON_AddNumberToObject(x, "low", (double)rows[k].low);
        cJSON_AddNumberToObject(x, "failed", (double)rows[k].failed);
        cJSON_AddItemToArray(arr, x);
    }
    free(v);
    free(rows);
    return arr;
}

/* The GDR_WORST_LINKS worst cells: failed ones first, then the lowest. */
static cJSON *worst_links(const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                          const struct gdr_mstats *st, const struct gdr_detect_opts *o)
{
    const struct gdr_cell *top[GDR_WORST_LINKS];
    size_t n = 0;
    for (size_t q = 0; q < m->ncells; q++) {
        const struct gdr_cell *c = &m->cells[q];
        if (c->c == c->s || c->state == GDR_CELL_NONE)
            continue;
        /* insert c in order; a cell no worse than the last full slot stays out */
        size_t at = n;
        while (at > 0 &&
               (top[at - 1]->state != GDR_CELL_FAILED &&
                (c->state == GDR_CELL_FAILED || worse_value(m, c->value, top[at - 1]->value))))
            at--;
        if (at >= GDR_WORST_LINKS)
            continue;
        n += n < GDR_WORST_LINKS;
        memmove(&top[at + 1], &top[at], (n - 1 - at) * sizeof(top[0]));
        top[at] = c;
    }
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr && k < n; k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "client", s->nodes[top[k]->c]);
        cJSON_AddStringToObject(x, "server", s->nodes[top[k]->s]);
        add_value(x, "value", top[k]->state == GDR_CELL_OK ? top[k]->value : 0);
        cJSON_AddBoolToObject(x, "low", gdr_cell_low(m, st, o, top[k]));
        cJSON_AddBoolToObject(x, "failed", top[k]->state == GDR_CELL_FAILED);
        cJSON_AddItemToArray(arr, x);
    }
    return arr;
}

/* ---- per node: software and PCIe links ---- */

/* One column: its heading, its key in the node's "software" object (or,
 * for hardware, in the node's document) and how to show the value. */
struct sw_column {
    const char *title, *key;
    void (*read)(const cJSON *sw, const char *key, char *out, size_t len);
    bool hardware;
};

static void sw_string(const cJSON *sw, const char *key, char *out, size_t len)
{
    const char *v = gdr_jstr_or(sw, key, "");
    snprintf(out, len, "%s", *v ? v : "-");
}

static void sw_loaded(const cJSON *sw, const char *key, char *o, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sw, key);
    snprintf(o, n, "%s", cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? "loaded" : "no") : "-");
}

static const char *fw_text(const cJSON *it)
{
    return cJSON_IsString(it) && *it->valuestring ? it->valuestring : "-";
}

/* "28.39.1002 (8 NICs)" when the rail NICs agree, else each NIC with its
 * firmware: "mlx5_0 28.39.1002, mlx5_3 28.40.1000". */
static void sw_firmware(const cJSON *sw, const char *key, char *o, size_t n)
{
    const cJSON *fw = cJSON_GetObjectItemCaseSensitive(sw, key), *it;
    const char *first = NULL;
    bool same = true;
    size_t used = 0;
    int count = 0;
    cJSON_ArrayForEach(it, fw) {
        const char *v = fw_text(it);
        same = same && (!first || !strcmp(first, v));
        first = first ? first : v;
        count++;
    }
    if (count > 0 && same) {
        snprintf(o, n, count > 1 ? "%s (%d NICs)" : "%s", first, count);
        return;
    }
    o[0] = '\0';
    cJSON_ArrayForEach(it, fw) {
        int k = snprintf(o + used, n - used, "%s%s %s", used ? ", " : "", it->string, fw_text(it));
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
    if (!used)
        snprintf(o, n, "-");
}

/* The rails' PCIe links (cluster_links.h), "?" from a probe that did not
 * read them. */
static void hw_links(const cJSON *doc, const char *key, char *o, size_t n)
{
    struct gdr_node_links *l = malloc(sizeof(*l));
    if (l && gdr_node_links_from_json(cJSON_GetObjectItemCaseSensitive(doc, key), l) == 0)
        gdr_node_links_summary(l, o, n);
    else
        snprintf(o, n, "?");
    free(l);
}

static const struct sw_column sw_columns[] = {
    {"gdrbench", "gdrbench", sw_string, false},
    {"kernel", "kernel", sw_string, false},
    {"NVIDIA driver", "nvidia_driver", sw_string, false},
    {"nvidia_peermem", "nvidia_peermem", sw_loaded, false},
    {"NIC firmware", "nic_firmware", sw_firmware, false},
    {"PCIe links", "pcie_links", hw_links, true},
};
#define NSWCOL (sizeof(sw_columns) / sizeof(sw_columns[0]))
#define SW_CELL 256

static int cmp_text(const void *x, const void *y)
{
    const char *const *a = x, *const *b = y;
    int c = strcmp(*a, *b);
    return c ? c : (*a > *b) - (*a < *b); /* a tie keeps node order */
}

/* The value of most nodes ("?", not reported, never counts); a tie goes
 * to the first node's. by: scratch space for n pointers. */
static const char *usual(char (*cell)[NSWCOL][SW_CELL], size_t n, size_t c, const char **by)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(cell[i][c], "?"))
            by[m++] = cell[i][c];
    qsort(by, m, sizeof(*by), cmp_text);
    const char *best = NULL;
    size_t bc = 0;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && !strcmp(by[i], by[j]); j++)
            ;
        if (j - i > bc || (j - i == bc && by[i] < best)) {
            bc = j - i;
            best = by[i];
        }
    }
    return best ? best : "?";
}

/* "software": each node's values (rails/NODE.json), the ones that differ
 * from most nodes' marked, the links below their maximum named. */
static cJSON *software(const struct gdr_plan *p, const char *rails_dir)
{
    char(*cell)[NSWCOL][SW_CELL] = calloc(p->nnodes + 1, sizeof(*cell));
    char(*shortl)[SW_CELL] = calloc(p->nnodes + 1, sizeof(*shortl));
    const char **by = calloc(p->nnodes + 1, sizeof(*by));
    struct gdr_node_links *links = malloc(sizeof(*links));
    cJSON *out = cell && shortl && by && links ? cJSON_CreateObject() : NULL;
    size_t known = 0;
    for (size_t i = 0; out && i < p->nnodes; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.json", rails_dir, p->nodes[i]);
        cJSON *doc = gdr_json_read_file(path, 1 << 20);
        if (!doc)
            gdr_error_clear(); /* a node without the file: "?" in its row */
        const cJSON *sw = cJSON_GetObjectItemCaseSensitive(doc, "software");
        for (size_t c = 0; c < NSWCOL; c++) {
            const cJSON *src = sw_columns[c].hardware ? doc : sw;
            if (cJSON_IsObject(src))
                sw_columns[c].read(src, sw_columns[c].key, cell[i][c], SW_CELL);
            else
                snprintf(cell[i][c], SW_CELL, "?");
        }
        if (!gdr_node_links_from_json(cJSON_GetObjectItemCaseSensitive(doc, "pcie_links"), links))
            gdr_node_links_short(links, shortl[i], SW_CELL);
        known += cJSON_IsObject(sw);
        cJSON_Delete(doc);
    }
    if (out) {
        cJSON_AddNumberToObject(out, "reported", (double)known);
        cJSON *cols = cJSON_AddArrayToObject(out, "columns"),
              *most = cJSON_AddArrayToObject(out, "usual");
        for (size_t c = 0; c < NSWCOL; c++) {
            cJSON_AddItemToArray(cols, cJSON_CreateString(sw_columns[c].title));
            cJSON_AddItemToArray(most, cJSON_CreateString(usual(cell, p->nnodes, c, by)));
        }
        cJSON *nodes = cJSON_AddArrayToObject(out, "nodes");
        for (size_t i = 0; i < p->nnodes; i++) {
            cJSON *x = cJSON_CreateObject(), *vals = cJSON_AddArrayToObject(x, "values"),
                  *differs = cJSON_AddArrayToObject(x, "differs");
            cJSON_AddStringToObject(x, "node", p->nodes[i]);
            for (size_t c = 0; c < NSWCOL; c++) {
                const char *u = cJSON_GetArrayItem(most, (int)c)->valuestring;
                cJSON_AddItemToArray(vals, cJSON_CreateString(cell[i][c]));
                if (strcmp(cell[i][c], "?") && strcmp(cell[i][c], u))
                    cJSON_AddItemToArray(differs, cJSON_CreateString(sw_columns[c].title));
            }
            cJSON_AddStringToObject(x, "links_below_max", shortl[i]);
            cJSON_AddItemToArray(nodes, x);
        }
    }
    free(cell);
    free(shortl);
    free(by);
    free(links);
    return out;
}

/* ---- the verdict ---- */

static void reason(cJSON *reasons, size_t n, const char *what)
{
    char line[200];
    if (n) {
        snprintf(line, sizeof(line), "%zu %s", n, what);
        cJSON_AddItemToArray(reasons, cJSON_CreateString(line));
    }
}

void gdr_findings_verdict(cJSON *doc)
{
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary"), *reasons = cJSON_CreateArray();
    const cJSON *sp, *runs = cJSON_GetObjectItemCaseSensitive(sum, "runs");
    size_t dead = 0, confirmed = 0, unresolved = 0, pending = 0;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(doc, "suspects")) {
        const char *st = gdr_jstr_or(sp, "status", ""), *f = gdr_jstr_or(sp, "finding", "");
        if (!strcmp(f, "failed") || !strcmp(f, "unreachable"))
            dead++;
        else
            confirmed += !strcmp(st, "confirmed"), unresolved += !strcmp(st, "unresolved"),
                pending += !strcmp(st, "pending");
    }
    reason(reasons, dead, "dead nodes (failed or unreachable)");
    reason(reasons, confirmed, "suspects confirmed by their retests");
    reason(reasons, unresolved, "suspects unresolved (no retest result)");
    reason(reasons, pending, "suspects not retested");
    reason(reasons, (size_t)gdr_jcount(runs, "failed"), "runs failed");
    reason(reasons, (size_t)gdr_jcount(runs, "missing"), "runs missing");
    reason(reasons, (size_t)gdr_jcount(runs, "unreachable"), "nodes unreachable");
    struct gdr_soak_counts soak;
    gdr_soak_counts(doc, &soak);
    reason(reasons, soak.flapping_nodes,
           "nodes flapped (a soak's outages with two or more partners)");
    reason(reasons, soak.flapping_links, "links flapped (a soak's outages)");
    reason(reasons, soak.dipping_links, "links dipped (a soak's dips, no outage)");
    cJSON_DeleteItemFromObjectCaseSensitive(sum, "verdict");
    cJSON_DeleteItemFromObjectCaseSensitive(sum, "reasons");
    cJSON_AddStringToObject(sum, "verdict", cJSON_GetArraySize(reasons) ? "fail" : "pass");
    cJSON_AddItemToObject(sum, "reasons", reasons);
}

/* ---- the whole ---- */

struct gdr_unit gdr_findings_unit(const cJSON *doc, bool latency)
{
    const cJSON *m;
    double most = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "matrices"))
        if (!strcmp(gdr_jstr_or(m, "metric", ""), "latency") == latency)
            most = fmax(most, gdr_jnum_or(m, "reference", 0));
    return latency ? gdr_unit_lat(most) : gdr_unit_bw(most);
}

void gdr_findings_fmt(const cJSON *doc, bool latency, double v, char *buf, size_t len)
{
    gdr_fmt_unit(gdr_findings_unit(doc, latency), v > 0 ? v : NAN, buf, len);
}

static void add_units(cJSON *doc)
{
    cJSON *u = cJSON_AddObjectToObject(doc, "units");
    cJSON_AddStringToObject(u, "bandwidth", gdr_findings_unit(doc, false).name);
    cJSON_AddStringToObject(u, "latency", gdr_findings_unit(doc, true).name);
}

int gdr_findings_add(cJSON *doc, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                     const struct gdr_detection *d, const struct gdr_detect_opts *o,
                     const cJSON *manifest, const char *rails_dir, size_t worst)
{
    cJSON *ms = cJSON_GetObjectItemCaseSensitive(doc, "matrices");
    for (size_t k = 0; k < d->nstats && k < (size_t)cJSON_GetArraySize(ms); k++) {
        const struct gdr_mstats *st = &d->stats[k];
        cJSON *x = cJSON_GetArrayItem(ms, (int)k),
              *n = worst_nodes(s, &s->m[st->matrix], st, o, worst);
        if (!n)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        cJSON_AddItemToObject(x, "nodes", n);
        cJSON_AddItemToObject(x, "worst_links", worst_links(s, &s->m[st->matrix], st, o));
    }
    add_units(doc);
    cJSON_AddNumberToObject(doc, "heat_block", (double)gdr_heat_block(s->n));
    cJSON *sw = software(p, rails_dir);
    if (!sw)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    cJSON_AddItemToObject(doc, "software", sw);
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    if (manifest && cJSON_IsObject(sum)) {
        cJSON *runs = cJSON_AddObjectToObject(sum, "runs");
        static const char *const keys[] = {"planned", "ok", "failed", "missing"};
        for (size_t k = 0; k < 4; k++)
            cJSON_AddNumberToObject(runs, keys[k], gdr_jnum_or(manifest, keys[k], 0));
        cJSON_AddNumberToObject(
            runs, "unreachable",
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(manifest, "unreachable")));
    }
    gdr_findings_verdict(doc);
    return 0;
}

cJSON *gdr_findings_ensure(cJSON *doc, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                           const struct gdr_detect_opts *o, const cJSON *manifest,
                           const char *rails_dir, size_t worst)
{
    if (cJSON_GetObjectItemCaseSensitive(doc, "units"))
        return doc;
    struct gdr_detection d;
    if (gdr_detect(s, o, &d)) {
        cJSON_Delete(doc);
        return NULL;
    }
    if (!doc)
        doc = gdr_detection_to_json(&d, s, p, o, 0);
    if (gdr_findings_add(doc, p, s, &d, o, manifest, rails_dir, worst)) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    gdr_detection_free(&d);
    return doc;
}

void gdr_detect_opts_from_json(const cJSON *doc, struct gdr_detect_opts *o)
{
    gdr_detect_opts_default(o);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(doc, "options");
    o->tolerance = gdr_jnum_or(op, "tolerance", o->tolerance);
    o->mad_k = gdr_jnum_or(op, "mad_k", o->mad_k);
    o->min_link_frac = gdr_jnum_or(op, "min_link_frac", o->min_link_frac);
    o->min_pct_of_limit = gdr_jnum_or(op, "min_pct_of_limit", o->min_pct_of_limit);
    double size = gdr_jnum_or(op, "size", 0);
    o->size = size > 0 ? (uint64_t)size : 0;
}
