/* cluster_digest.c - report.md for one cluster run (cluster_digest.h). */
#include "config.h"

#include "cluster_findings.h"
#include "cluster_digest.h"
#include "error.h"
#include "escape.h"
#include "figure.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A value of matrix m (suspects.json) in the run's unit. */
static void show(FILE *f, const cJSON *doc, const cJSON *m, double v)
{
    char t[48];
    gdr_findings_fmt(doc, !strcmp(gdr_jstr_or(m, "metric", ""), "latency"), v, t, sizeof(t));
    fprintf(f, " %s |", t);
}

/* The analysis' rows of matrix m's nodes (every node, or the worst). */
static void node_table(FILE *f, const cJSON *doc, const cJSON *m, size_t nnodes)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(m, "nodes"), *r;
    size_t shown = (size_t)cJSON_GetArraySize(rows);
    if (shown < nnodes)
        fprintf(f,
                "The %zu nodes with the most low or failed cells, of %zu (every cell: the "
                "CSV).\n\n",
                shown, nnodes);
    fprintf(f, "| node | median as client | median as server | worst link | low | failed |\n"
               "|------|-----|-----|-----|-----|-----|\n");
    cJSON_ArrayForEach(r, rows) {
        fprintf(f, "| %s |", gdr_jstr_or(r, "node", "?"));
        show(f, doc, m, gdr_jnum(r, "client_median"));
        show(f, doc, m, gdr_jnum(r, "server_median"));
        show(f, doc, m, gdr_jnum(r, "worst"));
        fprintf(f, " %.0f | %.0f |\n", gdr_jnum_or(r, "low", 0), gdr_jnum_or(r, "failed", 0));
    }
    fprintf(f, "\nWorst links:");
    bool first = true;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(m, "worst_links")) {
        fprintf(f, "%s %s -> %s", first ? "" : ",", gdr_jstr_or(r, "client", "?"),
                gdr_jstr_or(r, "server", "?"));
        char t[48];
        gdr_findings_fmt(doc, !strcmp(gdr_jstr_or(m, "metric", ""), "latency"),
                         gdr_jnum(r, "value"), t, sizeof(t));
        fprintf(f, " %s%s",
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "failed")) ? "failed" : t,
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "low")) ? " (low)" : "");
        first = false;
    }
    fprintf(f, "%s.\n", first ? " none" : "");
}

/* The nodes whose software or PCIe links differ from most nodes', as the
 * analysis marked them (suspects.json "software"; the page shows every
 * value). */
static void differing_nodes(FILE *f, const cJSON *sw)
{
    const cJSON *x, *c;
    bool any = false;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sw, "nodes")) {
        const cJSON *differs = cJSON_GetObjectItemCaseSensitive(x, "differs");
        const char *below = gdr_jstr_or(x, "links_below_max", "");
        if (!cJSON_GetArraySize(differs) && !*below)
            continue;
        fprintf(f, "%s%s:", any ? "; " : "- **nodes that differ** (report.html: Nodes): ",
                gdr_jstr_or(x, "node", "?"));
        cJSON_ArrayForEach(c, differs)
            fprintf(f, "%s %s", c == differs->child ? "" : ",", cJSON_GetStringValue(c));
        if (*below)
            fprintf(f, "%s PCIe links below their maximum (%s)",
                    cJSON_GetArraySize(differs) ? "," : "", below);
        any = true;
    }
    if (any)
        fprintf(f, "\n");
    else if (gdr_jnum_or(sw, "reported", 0) > 0)
        fprintf(f, "- every node %sruns the same software and PCIe links\n",
                gdr_jnum_or(sw, "reported", 0) <
                        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sw, "nodes"))
                    ? "that reported it "
                    : "");
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
static void rail_panels(FILE *f, const cJSON *ms, const struct gdr_digest_input *in)
{
    const cJSON *m, *e;
    cJSON_ArrayForEach(m, ms) {
        const char *tn = gdr_jstr_or(m, "test", "");
        unsigned long long size = gdr_jcount(m, "size");
        bool earlier = false;
        for (e = ms->child; e != m && !earlier; e = e->next)
            earlier = !strcmp(gdr_jstr_or(e, "test", ""), tn) && gdr_jnum_or(e, "size", 0) == size;
        char path[4096];
        snprintf(path, sizeof(path), "%s/panel-%s-%llu.png", in->figures_dir, tn, size);
        char sz[32];
        gdr_fmt_size(size, sz, sizeof(sz));
        if (!earlier && !access(path, F_OK))
            fprintf(f, "\n![rails of %s, %s](%s/panel-%s-%llu.png)\n", tn, sz, in->figures_rel, tn,
                    size);
    }
}

/* A link's outages: "start (class cause, ended)", the first few. */
static void outage_list(FILE *f, const cJSON *link)
{
    const cJSON *e;
    size_t n = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(link, "events")) {
        if (strcmp(gdr_jstr_or(e, "kind", ""), "outage") || n++ == 4)
            continue;
        /* the cause and its words come from the nodes' documents: escaped */
        fprintf(f, "%s", n > 1 ? "; " : " ");
        gdr_esc_md_cell(f, gdr_jstr_or(e, "start_time", ""));
        fprintf(f, " (");
        gdr_esc_md_cell(f, gdr_jstr_or(e, "class", ""));
        fprintf(f, " ");
        gdr_esc_md_cell(f, gdr_jstr_or(e, "cause", ""));
        fprintf(f, ", ");
        gdr_esc_md_cell(f, gdr_jstr_or(e, "ended", ""));
        fprintf(f, ")");
    }
    if (n > 4)
        fprintf(f, "; ...");
}

#define SOAK_LINKS_SHOWN 50

/* A soak (suspects.json "soak"): the flapping nodes, then every link with
 * an outage or a dip (the first SOAK_LINKS_SHOWN). */
static void soak_section(FILE *f, const cJSON *doc)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "soak"), *x, *n;
    if (!k)
        return;
    fprintf(f, "## Soak\n\n- %s\n", gdr_jstr_or(k, "text", ""));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(k, "flapping_nodes")) {
        fprintf(f, "- **flapping node %s**: %.0f outages with", gdr_jstr_or(x, "node", ""),
                gdr_jnum_or(x, "outages", 0));
        names_list(f, cJSON_GetObjectItemCaseSensitive(x, "partners"));
        fprintf(f, "\n");
    }
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(k, "links");
    if (!cJSON_GetArraySize(links)) {
        fprintf(f, "- no link had an outage or a dip\n\n");
        return;
    }
    fprintf(f, "\n| link | rail | verdict | outages | dips | outages at (class cause, ended) |\n"
               "|------|------|---------|---------|------|------|\n");
    size_t shown = 0;
    cJSON_ArrayForEach(x, links) {
        if (shown++ == SOAK_LINKS_SHOWN)
            break;
        n = cJSON_GetObjectItemCaseSensitive(x, "nodes");
        fprintf(f, "| %s - %s", gdr_jitem_str_or(n, 0, "?"), gdr_jitem_str_or(n, 1, "?"));
        const char *node = gdr_jstr(x, "node");
        fprintf(f, " | %.0f | %s%s%s | %.0f | %.0f |", gdr_jnum_or(x, "rail", 0),
                gdr_jstr_or(x, "verdict", ""), node ? ": node " : "", node ? node : "",
                gdr_jnum_or(x, "outages", 0), gdr_jnum_or(x, "dips", 0));
        outage_list(f, x);
        fprintf(f, " |\n");
    }
    if ((size_t)cJSON_GetArraySize(links) > SOAK_LINKS_SHOWN)
        fprintf(f, "\n... and %d more links (suspects.json `soak.links`)\n",
                cJSON_GetArraySize(links) - SOAK_LINKS_SHOWN);
    fprintf(f, "\n");
}

void gdr_cluster_digest(FILE *f, const struct gdr_plan *p, const cJSON *doc,
                        const struct gdr_digest_input *in)
{
    fprintf(f, "# gdrbench cluster report%s%s\n\n", *in->title ? ": " : "", in->title);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary"), *r;
    fprintf(f, "- **verdict: %s**", gdr_jstr_or(sum, "verdict", "?"));
    bool lead = true;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sum, "reasons")) {
        fprintf(f, "%s%s", lead ? ": " : ", ", cJSON_GetStringValue(r));
        lead = false;
    }
    fprintf(f, "\n- the web page: report.html (heatmaps, aggregate bandwidth, every node)\n");
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
    const cJSON *opt = p->meta, *o = cJSON_GetObjectItemCaseSensitive(doc, "options");
    fprintf(f, "\n- plan: %s pairing, %zu rounds, %zu steps, %zu runs, directions: %s%s\n",
            gdr_jstr_or(opt, "pairing", ""), p->nrounds, p->nsteps, p->nruns,
            gdr_jstr_or(opt, "directions", ""),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opt, "rails_serial"))
                ? ", rails one at a time"
                : "");
    fprintf(f,
            "- judged: the %s size of each test and rail; low = under the threshold "
            "(reference - max(%.0f MAD, %.0f %%))%s%s\n",
            gdr_jnum_or(o, "size", 0) > 0 ? "given" : "largest (latency: smallest)",
            gdr_jnum_or(o, "mad_k", 0), gdr_jnum_or(o, "tolerance", 0) * 100,
            gdr_jnum_or(o, "min_link_frac", 0) > 0 ? ", or a link under the port-rate floor" : "",
            gdr_jnum_or(o, "min_pct_of_limit", 0) > 0
                ? ", or a cell under --min-pct-of-limit of its row's limit"
                : "");
    differing_nodes(f, cJSON_GetObjectItemCaseSensitive(doc, "software"));
    fprintf(f, "\n");

    dead_nodes(f, doc);
    soak_section(f, doc);
    if (in->rails_dir)
        rails_section(f, p, in->rails_dir);

    fprintf(
        f,
        "## Per rail\n\n| test | rail | size | median | reference | threshold | cells | low | failed |\n"
        "|------|------|------|-----|-----|-----|-----|-----|-----|\n");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(doc, "matrices"), *m;
    cJSON_ArrayForEach(m, ms) {
        char sz[32];
        gdr_fmt_size(gdr_jcount(m, "size"), sz, sizeof(sz));
        fprintf(f, "| %s | %.0f | %s |", gdr_jstr_or(m, "test", ""), gdr_jnum_or(m, "rail", 0), sz);
        show(f, doc, m, gdr_jnum(m, "median"));
        show(f, doc, m, gdr_jnum(m, "reference"));
        show(f, doc, m, gdr_jnum(m, "threshold"));
        fprintf(f, " %.0f | %.0f | %.0f |\n", gdr_jnum_or(m, "cells", 0),
                gdr_jnum_or(m, "low_cells", 0), gdr_jnum_or(m, "failed_cells", 0));
    }
    if (in->figures_dir)
        rail_panels(f, ms, in);

    fprintf(f, "\n## Suspects\n\n");
    const cJSON *ss = cJSON_GetObjectItemCaseSensitive(doc, "suspects");
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

    cJSON_ArrayForEach(m, ms) {
        char base[160], path[4096];
        const char *tn = gdr_jstr_or(m, "test", "");
        unsigned long long size = gdr_jcount(m, "size");
        int rail = (int)gdr_jnum_or(m, "rail", 0);
        char sz[32];
        gdr_fmt_size(size, sz, sizeof(sz));
        snprintf(base, sizeof(base), "%s-%llu-r%d", tn, size, rail);
        fprintf(f, "\n## %s, %s, rail %d\n\n", tn, sz, rail);
        for (int h = 0; in->figures_dir && h < 2; h++) {
            snprintf(path, sizeof(path), "%s/%s-%s.png", in->figures_dir, h ? "hist" : "heat",
                     base);
            if (!access(path, F_OK))
                fprintf(f, "![%s %s](%s/%s-%s.png)\n", h ? "histogram" : "heatmap", base,
                        in->figures_rel, h ? "hist" : "heat", base);
        }
        fprintf(f, "\nMatrix: `matrix-%s.csv` (rows: client, columns: server).\n\n", base);
        node_table(f, doc, m, p->nnodes);
    }
}
