/* cluster_report.c - report.md for one cluster run (cluster_report.h). */
#include "config.h"

#include "cluster_links.h"
#include "cluster_report.h"
#include "error.h"
#include "escape.h"
#include "json.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A figure in the metric's unit: bits per second for bandwidth (Gb/s, or
 * Mb/s under 1 Gb/s, as in the soft-RoCE lab), microseconds for latency. */
static void show(FILE *f, const struct gdr_matrix *m, double v)
{
    if (v <= 0 || isnan(v))
        fprintf(f, " - |");
    else if (m->latency)
        fprintf(f, " %.2f us |", v * 1e6);
    else if (v * 8 >= 1e9)
        fprintf(f, " %.1f Gb/s |", v * 8 / 1e9);
    else
        fprintf(f, " %.1f Mb/s |", v * 8 / 1e6);
}

/* Median of v[0..n) (sorts v); 0 when empty, which show() prints as "-". */
static double median_of(double *v, size_t n)
{
    return n ? gdr_median_inplace(v, n) : 0;
}

struct node_row {
    size_t node, low, failed;
    double client, server, worst; /* medians as client and server, the worst cell */
};

/* Worst first: the most low or failed cells, then the lowest median. */
static int cmp_row(const void *x, const void *y)
{
    const struct node_row *a = x, *b = y;
    size_t ba = a->low + a->failed, bb = b->low + b->failed;
    if (ba != bb)
        return ba > bb ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Per node: median as client and as server, worst cell, low and failed
 * cells; every node, or the `worst` worst ones (the whole matrix is the
 * CSV). */
static void node_table(FILE *f, const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                       const struct gdr_mstats *st, const struct gdr_detect_opts *o, size_t worst)
{
    size_t most = 0;
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 2; d++)
            if (gdr_matrix_node_count(m, i, d) > most)
                most = gdr_matrix_node_count(m, i, d);
    double *v = calloc(most + 1, sizeof(double));
    struct node_row *rows = calloc(s->n + 1, sizeof(*rows));
    if (!v || !rows) {
        free(v);
        free(rows);
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        struct node_row *r = &rows[i];
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
                if (r->worst == 0 || (m->latency ? c->value > r->worst : c->value < r->worst))
                    r->worst = c->value;
            }
            *(d ? &r->server : &r->client) = median_of(v, k);
        }
    }
    size_t shown = s->n;
    if (worst && s->n > worst) {
        qsort(rows, s->n, sizeof(*rows), cmp_row);
        shown = worst;
        fprintf(f,
                "The %zu nodes with the most low or failed cells, of %zu (every cell: the "
                "CSV).\n\n",
                worst, s->n);
    }
    fprintf(f, "| node | median as client | median as server | worst link | low | failed |\n"
               "|------|-----|-----|-----|-----|-----|\n");
    for (size_t k = 0; k < shown; k++) {
        const struct node_row *r = &rows[k];
        fprintf(f, "| %s |", s->nodes[r->node]);
        show(f, m, r->client);
        show(f, m, r->server);
        show(f, m, r->worst);
        fprintf(f, " %zu | %zu |\n", r->low, r->failed);
    }
    free(v);
    free(rows);
}

/* One column of the node table: its heading, its key in the node's
 * "software" object (or, for hardware, in the node's document) and how to
 * show the value. */
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
    {"PCIe links", "pcie_links", hw_links, true}, /* last: PCIE_COLUMN */
};
#define NSWCOL (sizeof(sw_columns) / sizeof(sw_columns[0]))
#define PCIE_COLUMN (NSWCOL - 1) /* the PCIe links are the last column */
#define SW_CELL 256

/* A known value other than the column's usual one ("?": not reported). */
static bool differs(const char *v, const char *usual)
{
    return strcmp(v, "?") && strcmp(v, usual);
}

/* The software each node reported (rails/NODE.json): one row per node;
 * a value that differs from the most common one in its column is marked,
 * and the columns that differ are listed under the table. */
static void software_table(FILE *f, const struct gdr_plan *p, const char *rails_dir)
{
    char(*cell)[NSWCOL][SW_CELL] = calloc(p->nnodes + 1, sizeof(*cell));
    char(*shortl)[SW_CELL] = calloc(p->nnodes + 1, sizeof(*shortl));
    size_t *common = calloc(NSWCOL, sizeof(size_t)), known = 0;
    struct gdr_node_links *links = malloc(sizeof(*links));
    if (!cell || !shortl || !common || !links)
        goto out;
    for (size_t i = 0; i < p->nnodes; i++) {
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
        if (gdr_node_links_from_json(cJSON_GetObjectItemCaseSensitive(doc, "pcie_links"), links) ==
            0)
            gdr_node_links_short(links, shortl[i], SW_CELL);
        known += cJSON_IsObject(sw);
        cJSON_Delete(doc);
    }
    fprintf(f, "## Nodes\n\n");
    if (!known) {
        fprintf(f, "No node reported its software (rails/NODE.json).\n\n");
        goto out;
    }
    /* The most common value of each column (first of the ties). */
    for (size_t c = 0; c < NSWCOL; c++) {
        size_t best = 0;
        for (size_t i = 0; i < p->nnodes; i++) {
            if (!strcmp(cell[i][c], "?"))
                continue;
            size_t same = 0;
            for (size_t k = 0; k < p->nnodes; k++)
                same += !strcmp(cell[i][c], cell[k][c]);
            if (same > best) {
                best = same;
                common[c] = i;
            }
        }
    }
    fprintf(f, "| node |");
    for (size_t c = 0; c < NSWCOL; c++)
        fprintf(f, " %s |", sw_columns[c].title);
    fprintf(f, "\n|------|");
    for (size_t c = 0; c < NSWCOL; c++)
        fprintf(f, "-----|");
    fprintf(f, "\n");
    for (size_t i = 0; i < p->nnodes; i++) {
        fprintf(f, "| %s |", p->nodes[i]);
        for (size_t c = 0; c < NSWCOL; c++) {
            bool odd = differs(cell[i][c], cell[common[c]][c]);
            fprintf(f, odd ? " **%s** (differs) |" : " %s |", cell[i][c]);
        }
        fprintf(f, "\n");
    }
    bool any = false;
    for (size_t c = 0; c < NSWCOL; c++) {
        bool first = true;
        for (size_t i = 0; i < p->nnodes && !sw_columns[c].hardware; i++) {
            if (!differs(cell[i][c], cell[common[c]][c]))
                continue;
            fprintf(f, "%s%s%s", any ? (first ? "; " : "") : "\nSoftware differs across nodes: ",
                    first ? sw_columns[c].title : "", first ? " on " : ", ");
            fprintf(f, "%s", p->nodes[i]);
            any = true;
            first = false;
        }
    }
    if (any)
        fprintf(f, ".\n\n");
    else
        fprintf(f, "\nEvery node %sruns the same software.\n\n",
                known < p->nnodes ? "that reported it " : "");
    /* The links: a node unlike the others, and each link short of what
     * its two ends can do (the doctor's rule; a GPU's width only). */
    for (size_t i = 0; i < p->nnodes; i++) {
        const char *usual = cell[common[PCIE_COLUMN]][PCIE_COLUMN];
        if (differs(cell[i][PCIE_COLUMN], usual))
            fprintf(f, "**PCIe links differ** on %s: %s (most nodes: %s).\n\n", p->nodes[i],
                    cell[i][PCIE_COLUMN], usual);
    }
    for (size_t i = 0; i < p->nnodes; i++)
        if (shortl[i][0])
            fprintf(f, "**PCIe links below their maximum** on %s: %s.\n\n", p->nodes[i], shortl[i]);
out:
    free(cell);
    free(shortl);
    free(common);
    free(links);
}

/* " a, b" (" -" when empty) from a JSON array of strings. */
static void names_list(FILE *f, const cJSON *arr)
{
    const cJSON *it;
    bool first = true;
    cJSON_ArrayForEach(it, arr) {
        fprintf(f, "%s%s", first ? " " : ", ", cJSON_IsString(it) ? it->valuestring : "?");
        first = false;
    }
    if (first)
        fprintf(f, " -");
}

static void names_cell(FILE *f, const cJSON *arr)
{
    names_list(f, arr);
    fprintf(f, " |");
}

/* Dead nodes first: a node that never answered, or stopped working, is the
 * finding that matters most (suspects.json, finding failed/unreachable). */
static void dead_nodes(FILE *f, const cJSON *suspects)
{
    const cJSON *sp;
    bool any = false;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(suspects, "suspects")) {
        const char *finding = gdr_jstr_or(sp, "finding", "");
        if (strcmp(finding, "failed") && strcmp(finding, "unreachable"))
            continue;
        if (!any)
            fprintf(f,
                    "## Node failures\n\n"
                    "| node | finding | status | since round | failed runs | partners | why |\n"
                    "|------|---------|--------|-------------|-------------|----------|-----|\n");
        any = true;
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(sp, "evidence");
        fprintf(f, "|");
        names_cell(f, cJSON_GetObjectItemCaseSensitive(sp, "nodes"));
        fprintf(f, " %s | **%s** |", finding, gdr_jstr_or(sp, "status", ""));
        if (cJSON_GetObjectItemCaseSensitive(ev, "since_round"))
            fprintf(f, " %.0f |", gdr_jnum_or(ev, "since_round", 0));
        else
            fprintf(f, " - |");
        fprintf(f, " %.0f |", gdr_jnum_or(ev, "failed_runs", 0));
        names_cell(f, cJSON_GetObjectItemCaseSensitive(ev, "partners"));
        fprintf(f, " ");
        gdr_esc_md_cell(f, gdr_jstr_or(ev, "reason", ""));
        fprintf(f, " |\n");
    }
    if (any)
        fprintf(f, "\nA node failure is confirmed when a retest run from the node to a healthy "
                   "partner fails too; see the suspects below.\n\n");
}

/* What rails/NODE.json says of rail r with device dev: the GPU's BDF and
 * the path class ("" when the file has no such rail). */
static void rail_facts(const cJSON *doc, int r, const char *dev, char *bdf, char *path)
{
    bdf[0] = path[0] = '\0';
    const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "rails"), r);
    if (x && !strcmp(gdr_jstr_or(x, "device", ""), dev)) {
        snprintf(bdf, GDR_BDF_LEN, "%s", gdr_jstr_or(x, "gpu_bdf", ""));
        snprintf(path, 16, "%s", gdr_jstr_or(x, "path", ""));
    }
}

/* Lines "- WHAT: a, b on n1, n2" for a device list of rails/NODE.json
 * ("unused_devices", "down_devices"), nodes with the same list together. */
static void device_list(FILE *f, const struct gdr_plan *p, cJSON **docs, const char *key,
                        const char *what, const struct gdr_plan_end **ends, size_t nsel)
{
    char **text = calloc(p->nnodes + 1, sizeof(char *));
    bool *done = calloc(p->nnodes + 1, sizeof(bool));
    cJSON **lists = calloc(p->nnodes + 1, sizeof(cJSON *));
    for (size_t i = 0; text && done && lists && i < p->nnodes; i++) {
        /* the node's list, less the NICs a selected rail uses (--rails=NAME) */
        lists[i] = cJSON_CreateArray();
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(docs[i], key)) {
            bool used = false;
            for (size_t k = 0; k < nsel && cJSON_IsString(it) && !used; k++)
                used = ends[i * nsel + k] && !strcmp(ends[i * nsel + k]->device, it->valuestring);
            if (!used)
                cJSON_AddItemToArray(lists[i], cJSON_Duplicate(it, false));
        }
        text[i] = cJSON_GetArraySize(lists[i]) ? cJSON_PrintUnformatted(lists[i]) : NULL;
    }
    for (size_t i = 0; text && done && lists && i < p->nnodes; i++) {
        if (done[i] || !text[i])
            continue;
        fprintf(f, "- %s:", what);
        names_list(f, lists[i]);
        fprintf(f, " on");
        for (size_t k = i, n = 0; k < p->nnodes; k++)
            if (text[k] && !strcmp(text[i], text[k])) {
                fprintf(f, "%s %s", n++ ? "," : "", p->nodes[k]);
                done[k] = true;
            }
        fprintf(f, "\n");
    }
    for (size_t i = 0; i < p->nnodes; i++) {
        if (text)
            free(text[i]);
        if (lists)
            cJSON_Delete(lists[i]);
    }
    free(text);
    free(lists);
    free(done);
}

/* One rail's table rows: its GPU and NIC, the nodes that agree on a row.
 * ends[i]: node i's end on the rail (NULL: in no run). */
static void rail_rows(FILE *f, const struct gdr_plan *p, cJSON **docs, int r,
                      const struct gdr_plan_end **ends)
{
    bool *done = calloc(p->nnodes + 1, sizeof(bool));
    char(*bdf)[GDR_BDF_LEN] = calloc(p->nnodes + 1, GDR_BDF_LEN);
    char(*path)[16] = calloc(p->nnodes + 1, 16);
    for (size_t i = 0; done && bdf && path && i < p->nnodes; i++)
        if (ends[i])
            rail_facts(docs[i], r, ends[i]->device, bdf[i], path[i]);
    for (size_t i = 0; done && bdf && path && i < p->nnodes; i++) {
        const struct gdr_plan_end *e = ends[i];
        if (done[i] || !e)
            continue;
        fprintf(f, "| %d | ", r);
        if (e->gpu >= 0)
            fprintf(f, "GPU %d%s%s%s |", e->gpu, *bdf[i] ? " (" : "", bdf[i], *bdf[i] ? ")" : "");
        else
            fprintf(f, "- |");
        fprintf(f, " %s | %s |", *e->device ? e->device : "(default)", *path[i] ? path[i] : "-");
        for (size_t k = i, n = 0; k < p->nnodes; k++) {
            const struct gdr_plan_end *x = ends[k];
            if (x && x->gpu == e->gpu && !strcmp(x->device, e->device) && !strcmp(bdf[k], bdf[i]) &&
                !strcmp(path[k], path[i])) {
                fprintf(f, "%s %s", n++ ? "," : "", p->nodes[k]);
                done[k] = true;
            }
        }
        fprintf(f, " |\n");
    }
    free(done);
    free(bdf);
    free(path);
}

/* Each rail's GPU and NIC, the rails that share a NIC, the NICs not used
 * and the ports down. */
static void rails_section(FILE *f, const struct gdr_plan *p, const char *rails_dir)
{
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(p->meta, "rails"), *it;
    size_t nsel = (size_t)cJSON_GetArraySize(sel);
    cJSON **docs = calloc(p->nnodes + 1, sizeof(cJSON *));
    const struct gdr_plan_end **ends = calloc(p->nnodes * (nsel ? nsel : 1) + 1, sizeof(*ends));
    if (!docs || !ends)
        goto out;
    for (size_t i = 0; i < p->nnodes; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.json", rails_dir, p->nodes[i]);
        if (!access(path, F_OK) && !(docs[i] = gdr_json_read_file(path, 1 << 20)))
            gdr_error_clear();
    }
    fprintf(f, "## Rails\n\n");
    if (nsel == 0) {
        fprintf(f, "One rail: the benchmarks' default device and GPU on every node (no "
                   "topology from every node, or none asked for).\n\n");
    } else {
        /* Each node's end on each selected rail (none for a node left out). */
        bool shared = false;
        unsigned most = 1;
        for (size_t i = 0; i < p->nnodes; i++)
            for (size_t k = 0; k < nsel && k < p->nrail_sel; k++) {
                if (!p->left_out[i])
                    ends[i * nsel + k] = &p->ends[i * p->nrail_sel + k];
                if (p->share && p->share[i * p->nrail_sel + k] > most)
                    most = p->share[i * p->nrail_sel + k];
            }
        size_t k = 0;
        fprintf(f, "| rail | GPU | NIC | path | nodes |\n|------|-----|-----|------|-------|\n");
        const struct gdr_plan_end **col = calloc(p->nnodes + 1, sizeof(*col));
        cJSON_ArrayForEach(it, sel) {
            for (size_t i = 0; col && i < p->nnodes; i++) {
                col[i] = ends[i * nsel + k];
                for (size_t j = 0; j < k && col[i] && !shared; j++)
                    shared = ends[i * nsel + j] && *col[i]->device &&
                             !strcmp(ends[i * nsel + j]->device, col[i]->device);
            }
            if (col)
                rail_rows(f, p, docs, (int)it->valuedouble, col);
            k++;
        }
        free(col);
        fprintf(f, "\n");
        if (most > 1)
            fprintf(f,
                    "- **Rails sharing a NIC ran together** (--shared-nic-together, up to %u "
                    "on one NIC): each measured a share of it. They are judged against each "
                    "other: each rail's cells against its own reference, the port-rate "
                    "floor divided among them; not against the rails with a NIC of their "
                    "own.\n",
                    most);
        else if (shared)
            fprintf(f, "- Rails sharing a NIC ran in separate steps (together, each would "
                       "measure a share of the NIC and look like a slow rail).\n");
    }
    device_list(f, p, docs, "unused_devices",
                "not used (no GPU's nearest NIC: storage, management; `--rails=NAME` uses one)",
                ends, nsel);
    device_list(f, p, docs, "down_devices", "**port down** (never a rail)", ends, nsel);
    fprintf(f, "\n");
out:
    for (size_t i = 0; docs && i < p->nnodes; i++)
        cJSON_Delete(docs[i]);
    free(docs);
    free(ends);
}

/* Links to the per-rail panels (panel-TEST-SIZE.png: made by gdr-cluster
 * where a test and size ran on two or more rails), each once. */
static void rail_panels(FILE *f, const struct gdr_matrix_set *s, const struct gdr_detection *d,
                        const struct gdr_report_input *in)
{
    if (!in->figures_dir)
        return;
    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_matrix *m = &s->m[d->stats[k].matrix];
        char tn[64], en[64], path[4096];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        bool earlier = false;
        for (size_t j = 0; j < k && !earlier; j++) {
            const struct gdr_matrix *e = &s->m[d->stats[j].matrix];
            gdr_test_mode_name(&e->test, en, sizeof(en));
            earlier = e->size == m->size && !strcmp(en, tn);
        }
        snprintf(path, sizeof(path), "%s/panel-%s-%llu.png", in->figures_dir, tn,
                 (unsigned long long)m->size);
        if (!earlier && !access(path, F_OK))
            fprintf(f, "\n![rails of %s, %llu B](%s/panel-%s-%llu.png)\n", tn,
                    (unsigned long long)m->size, in->figures_rel, tn, (unsigned long long)m->size);
    }
}

void gdr_cluster_report(FILE *f, const struct gdr_plan *p, const struct gdr_matrix_set *s,
                        const struct gdr_detection *d, const struct gdr_detect_opts *o,
                        const struct gdr_report_input *in)
{
    fprintf(f, "# gdrbench cluster report%s%s\n\n", *in->title ? ": " : "", in->title);
    if (in->manifest) {
        fprintf(f, "- date: %s\n- gdrbench: %s\n- launcher: %s\n",
                gdr_jstr_or(in->manifest, "end_date", ""),
                gdr_jstr_or(in->manifest, "git_version", ""),
                gdr_jstr_or(in->manifest, "launcher", ""));
        fprintf(f, "- runs: %.0f planned, %.0f ok, %.0f failed, %.0f missing\n",
                gdr_jnum_or(in->manifest, "planned", 0), gdr_jnum_or(in->manifest, "ok", 0),
                gdr_jnum_or(in->manifest, "failed", 0), gdr_jnum_or(in->manifest, "missing", 0));
        const cJSON *u;
        bool first = true;
        cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(in->manifest, "unreachable")) {
            fprintf(f, "%s%s", first ? "- left out of the plan (unreachable): " : ", ",
                    gdr_jstr_or(u, "node", ""));
            first = false;
        }
        if (!first)
            fprintf(f, "\n");
        if (!strcmp(gdr_jstr_or(in->manifest, "interrupted", ""), "yes"))
            fprintf(f, "- **interrupted**: the runs in flight were stopped (`--resume` reruns "
                       "the missing ones)\n");
    }
    fprintf(f, "- nodes (%zu):", p->nnodes);
    for (size_t i = 0; i < p->nnodes; i++)
        fprintf(f, "%s %s", i ? "," : "", p->nodes[i]);
    const cJSON *opt = p->meta;
    fprintf(f, "\n- plan: %s pairing, %zu rounds, %zu steps, %zu runs, directions: %s%s\n",
            gdr_jstr_or(opt, "pairing", ""), p->nrounds, p->nsteps, p->nruns,
            gdr_jstr_or(opt, "directions", ""),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opt, "rails_serial"))
                ? ", rails one at a time"
                : "");
    fprintf(f,
            "- judged: the %s size of each test and rail; low = under the threshold "
            "(reference - max(%.0f MAD, %.0f %%))%s%s\n\n",
            o->size ? "given" : "largest (latency: smallest)", o->mad_k, o->tolerance * 100,
            o->min_link_frac > 0 ? ", or a link under the port-rate floor" : "",
            o->min_pct_of_limit > 0 ? ", or a cell under --min-pct-of-limit of its row's limit"
                                    : "");

    if (in->suspects)
        dead_nodes(f, in->suspects);

    if (in->rails_dir) {
        software_table(f, p, in->rails_dir);
        rails_section(f, p, in->rails_dir);
    }

    fprintf(
        f,
        "## Per rail\n\n| test | rail | size | median | reference | threshold | cells | low | failed |\n"
        "|------|------|------|-----|-----|-----|-----|-----|-----|\n");
    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_mstats *st = &d->stats[k];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        fprintf(f, "| %s | %d | %llu |", tn, m->rail, (unsigned long long)m->size);
        show(f, m, gdr_matrix_median(m));
        show(f, m, m->latency ? 1 / st->reference : st->reference);
        show(f, m, m->latency ? 1 / st->threshold_score : st->threshold_score);
        fprintf(f, " %zu | %zu | %zu |\n", st->nvalid, st->nlow, st->nfailed);
    }

    rail_panels(f, s, d, in);

    fprintf(f, "\n## Suspects\n\n");
    const cJSON *ss =
        in->suspects ? cJSON_GetObjectItemCaseSensitive(in->suspects, "suspects") : NULL;
    if (cJSON_GetArraySize(ss) == 0) {
        fprintf(f, "None.\n");
    } else {
        fprintf(f, "| kind | nodes | rail | test | status | verdict |\n"
                   "|------|-------|------|------|--------|---------|\n");
        const cJSON *sp, *nd;
        cJSON_ArrayForEach(sp, ss) {
            fprintf(f, "| %s |", gdr_jstr_or(sp, "kind", ""));
            cJSON_ArrayForEach(nd, cJSON_GetObjectItemCaseSensitive(sp, "nodes"))
                fprintf(f, " %s", cJSON_IsString(nd) ? nd->valuestring : "?");
            fprintf(f, " | %.0f | %s | %s | %s |\n", gdr_jnum_or(sp, "rail", 0),
                    gdr_jstr_or(sp, "test", ""), gdr_jstr_or(sp, "status", ""),
                    gdr_jstr_or(sp, "verdict", ""));
        }
    }

    for (size_t k = 0; k < d->nstats; k++) {
        const struct gdr_mstats *st = &d->stats[k];
        const struct gdr_matrix *m = &s->m[st->matrix];
        char tn[64], base[160], path[4096];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        snprintf(base, sizeof(base), "%s-%llu-r%d", tn, (unsigned long long)m->size, m->rail);
        fprintf(f, "\n## %s, %llu B, rail %d\n\n", tn, (unsigned long long)m->size, m->rail);
        for (int h = 0; in->figures_dir && h < 2; h++) {
            snprintf(path, sizeof(path), "%s/%s-%s.png", in->figures_dir, h ? "hist" : "heat",
                     base);
            if (!access(path, F_OK))
                fprintf(f, "![%s %s](%s/%s-%s.png)\n", h ? "histogram" : "heatmap", base,
                        in->figures_rel, h ? "hist" : "heat", base);
        }
        fprintf(f, "\nMatrix: `matrix-%s.csv` (rows: client, columns: server).\n\n", base);
        node_table(f, s, m, st, o, in->worst);
    }
}
