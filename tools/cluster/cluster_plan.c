/* cluster_plan.c - build, write and read the cluster plan (cluster_plan.h). */
#include "config.h"

#include "cluster_plan.h"
#include "doc.h"
#include "error.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

bool gdr_plan_node_name_ok(const char *s)
{
    if (!*s || strlen(s) >= GDR_NODE_NAME_LEN)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '-'))
            return false;
    return true;
}

int gdr_cluster_input_error(void)
{
    if (gdr_error_code() == GDR_EXIT_RUN) {
        char m[512];
        snprintf(m, sizeof(m), "%s", gdr_error_message());
        gdr_error_clear();
        gdr_fail(GDR_EXIT_USAGE, "%s", m);
    }
    return -1;
}

void gdr_test_mode_name(const struct gdr_test_mode *t, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%s.%s", t->tool, t->placement, t->gdr);
}

void gdr_plan_free(struct gdr_plan *p)
{
    free(p->nodes);
    free(p->runs);
    cJSON_Delete(p->meta);
    memset(p, 0, sizeof(*p));
}

long gdr_plan_node_index(const struct gdr_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nnodes; i++)
        if (!strcmp(p->nodes[i], name))
            return (long)i;
    return -1;
}

static void set_end(struct gdr_plan_end *e, const struct gdr_plan_opts *o, size_t node, int rail)
{
    e->node = node;
    e->device[0] = '\0';
    e->gpu = -1;
    e->gpu_bdf[0] = '\0';
    if (rail >= 0 && o->rails) {
        const struct gdr_rail *r = &o->rails[node].rails[rail];
        snprintf(e->device, sizeof(e->device), "%s", r->device);
        e->gpu = r->gpu;
        snprintf(e->gpu_bdf, sizeof(e->gpu_bdf), "%s", r->gpu_bdf);
    }
}

/* The schedule over the nodes not left out, in node-list indices. */
static int make_schedule(const struct gdr_plan_opts *o, struct gdr_schedule *s)
{
    size_t *idx = calloc(o->nnodes + 1, sizeof(size_t)), m = 0;
    long *back = calloc(o->nnodes + 1, sizeof(long));
    struct gdr_pair *pairs = calloc(o->npairs + 1, sizeof(*pairs));
    size_t np = 0;
    int rc = -1;
    if (!idx || !back || !pairs) {
        gdr_fail(GDR_EXIT_RUN, "out of memory for the schedule");
        goto out;
    }
    for (size_t i = 0; i < o->nnodes; i++) {
        back[i] = -1;
        if (!o->left_out || !o->left_out[i]) {
            back[i] = (long)m;
            idx[m++] = i;
        }
    }
    /* A pairs file's pairs with a node left out are dropped. */
    for (size_t k = 0; k < o->npairs; k++)
        if (o->pairs[k].a < o->nnodes && o->pairs[k].b < o->nnodes && back[o->pairs[k].a] >= 0 &&
            back[o->pairs[k].b] >= 0)
            pairs[np++] =
                (struct gdr_pair){(size_t)back[o->pairs[k].a], (size_t)back[o->pairs[k].b]};
        else if (o->pairs[k].a >= o->nnodes || o->pairs[k].b >= o->nnodes)
            pairs[np++] = o->pairs[k]; /* out of range: gdr_sched_from_pairs names it */
    rc = o->pairing == GDR_PAIRING_FULL    ? gdr_sched_full(m, s)
         : o->pairing == GDR_PAIRING_QUICK ? gdr_sched_quick(m, s)
                                           : gdr_sched_from_pairs(m, pairs, np, s);
    if (rc)
        goto out;
    for (size_t r = 0; r < s->nrounds; r++)
        for (size_t q = 0; q < s->rounds[r].npairs; q++) {
            struct gdr_pair *pr = &s->rounds[r].pairs[q];
            *pr = (struct gdr_pair){idx[pr->a], idx[pr->b]};
        }
    rc = gdr_sched_split(s, o->max_concurrent);
out:
    free(idx);
    free(back);
    free(pairs);
    return rc;
}

static bool left_out(const struct gdr_plan_opts *o, size_t i)
{
    return o->left_out && o->left_out[i];
}

static int check_opts(const struct gdr_plan_opts *o)
{
    size_t in = 0;
    for (size_t i = 0; i < o->nnodes; i++)
        in += !left_out(o, i);
    if (in < 2)
        return gdr_fail(GDR_EXIT_USAGE, "a cluster plan needs at least two nodes, got %zu", in);
    for (size_t i = 0; i < o->nnodes; i++) {
        if (!gdr_plan_node_name_ok(o->nodes[i]))
            return gdr_fail(GDR_EXIT_USAGE, "node name '%s' is not [A-Za-z0-9.-]+", o->nodes[i]);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->nodes[i], o->nodes[j]))
                return gdr_fail(GDR_EXIT_USAGE, "node '%s' is listed twice", o->nodes[i]);
    }
    if (o->ntests == 0)
        return gdr_fail(GDR_EXIT_USAGE, "no test to run");
    for (size_t k = 0; k < o->nrail_sel; k++)
        for (size_t i = 0; i < o->nnodes; i++)
            if (!left_out(o, i) &&
                (!o->rails || o->rail_sel[k] < 0 || (size_t)o->rail_sel[k] >= o->rails[i].nrails))
                return gdr_fail(GDR_EXIT_USAGE, "node '%s' has no rail %d", o->nodes[i],
                                o->rail_sel[k]);
    return 0;
}

/* Do selected rails x and y use one NIC on some node? */
static bool share_nic(const struct gdr_plan_opts *o, size_t x, size_t y)
{
    for (size_t i = 0; o->rails && i < o->nnodes; i++) {
        if (left_out(o, i))
            continue;
        const struct gdr_rail *a = &o->rails[i].rails[o->rail_sel[x]];
        const struct gdr_rail *b = &o->rails[i].rails[o->rail_sel[y]];
        if (a->device[0] && !strcmp(a->device, b->device))
            return true;
    }
    return false;
}

/* Rail groups (one step each): group_of[k] for each selected rail; returns
 * the number of groups. Greedy: a rail joins the first group where it
 * shares no NIC with a member. */
static size_t rail_groups(const struct gdr_plan_opts *o, size_t nrails, size_t *group_of)
{
    size_t ngroups = 0;
    for (size_t k = 0; k < nrails; k++) {
        if (o->rails_serial) {
            group_of[k] = ngroups++;
            continue;
        }
        size_t g = 0;
        for (; g < ngroups; g++) {
            bool clash = false;
            for (size_t j = 0; j < k && !clash; j++)
                clash = group_of[j] == g && !o->shared_nic_together && share_nic(o, j, k);
            if (!clash)
                break;
        }
        group_of[k] = g;
        if (g == ngroups)
            ngroups++;
    }
    return ngroups ? ngroups : 1;
}

/* Rails of group g that share rail k's NIC on one of the run's two nodes. */
static unsigned nic_share(const struct gdr_plan_opts *o, const size_t *group_of, size_t nrails,
                          size_t k, size_t a, size_t b)
{
    unsigned most = 1;
    for (int e = 0; e < 2 && o->rails && o->nrail_sel; e++) {
        const struct gdr_rail_map *m = &o->rails[e ? b : a];
        unsigned n = 0;
        for (size_t j = 0; j < nrails; j++)
            n += group_of[j] == group_of[k] && m->rails[o->rail_sel[j]].device[0] &&
                 !strcmp(m->rails[o->rail_sel[j]].device, m->rails[o->rail_sel[k]].device);
        most = n > most ? n : most;
    }
    return most;
}

int gdr_plan_build(const struct gdr_plan_opts *o, struct gdr_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (check_opts(o))
        return -1;
    struct gdr_schedule s;
    if (make_schedule(o, &s))
        return -1;
    size_t nrails = o->nrail_sel ? o->nrail_sel : 1;
    size_t ndir = o->one_direction ? 1 : 2;
    size_t npairs = 0;
    for (size_t r = 0; r < s.nrounds; r++)
        npairs += s.rounds[r].npairs;
    size_t group_of[GDR_RAILS_MAX] = {0};
    size_t groups = o->nrail_sel ? rail_groups(o, nrails, group_of) : 1;
    p->nnodes = o->nnodes;
    p->nodes = calloc(o->nnodes, sizeof(*p->nodes));
    p->runs = calloc(npairs * nrails * ndir * o->ntests + 1, sizeof(*p->runs));
    if (!p->nodes || !p->runs) {
        gdr_sched_free(&s);
        gdr_plan_free(p);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for the plan");
    }
    memcpy(p->nodes, o->nodes, o->nnodes * sizeof(*p->nodes));
    size_t steps_per_round = o->ntests * ndir * groups;
    for (size_t r = 0; r < s.nrounds; r++) {
        const struct gdr_round *rd = &s.rounds[r];
        if (rd->npairs == 0)
            continue;
        size_t step = 0;
        for (size_t t = 0; t < o->ntests; t++)
            for (size_t d = 0; d < ndir; d++)
                for (size_t g = 0; g < groups; g++) {
                    step++;
                    unsigned k = 0;
                    for (size_t q = 0; q < rd->npairs; q++)
                        for (size_t ri = 0; ri < nrails; ri++) {
                            if (group_of[ri] != g)
                                continue;
                            struct gdr_plan_run *run = &p->runs[p->nruns++];
                            int rail = o->nrail_sel ? o->rail_sel[ri] : -1;
                            size_t c = d ? rd->pairs[q].b : rd->pairs[q].a;
                            size_t sv = d ? rd->pairs[q].a : rd->pairs[q].b;
                            run->test = o->tests[t];
                            run->rail = rail < 0 ? 0 : rail;
                            run->round = p->nrounds + 1;
                            run->step = step;
                            run->port = o->base_port + 2 * k++;
                            run->nic_share = nic_share(o, group_of, nrails, ri, c, sv);
                            set_end(&run->client, o, c, rail);
                            set_end(&run->server, o, sv, rail);
                            char tn[64];
                            gdr_test_mode_name(&run->test, tn, sizeof(tn));
                            snprintf(run->id, sizeof(run->id), "%s.r%d.%s_%s", tn, run->rail,
                                     o->nodes[c], o->nodes[sv]);
                        }
                }
        p->nrounds++;
        p->nsteps += steps_per_round;
    }
    gdr_sched_free(&s);
    p->estimated_s =
        (double)p->nsteps * ((double)o->nsizes * o->time_per_size_s + o->run_overhead_s);
    p->meta = cJSON_CreateObject();
    cJSON_AddStringToObject(p->meta, "pairing",
                            o->pairing == GDR_PAIRING_FULL    ? "full"
                            : o->pairing == GDR_PAIRING_QUICK ? "quick"
                                                              : "file");
    cJSON_AddNumberToObject(p->meta, "max_concurrent", (double)o->max_concurrent);
    cJSON_AddStringToObject(p->meta, "directions", o->one_direction ? "one" : "both");
    cJSON_AddBoolToObject(p->meta, "rails_serial", o->rails_serial);
    cJSON_AddBoolToObject(p->meta, "shared_nic_together", o->shared_nic_together);
    cJSON *rs = cJSON_AddArrayToObject(p->meta, "rails");
    for (size_t k = 0; k < o->nrail_sel; k++)
        cJSON_AddItemToArray(rs, cJSON_CreateNumber(o->rail_sel[k]));
    cJSON *lo = cJSON_AddArrayToObject(p->meta, "left_out");
    for (size_t i = 0; i < o->nnodes; i++)
        if (left_out(o, i))
            cJSON_AddItemToArray(lo, cJSON_CreateString(o->nodes[i]));
    cJSON_AddNumberToObject(p->meta, "sizes", (double)o->nsizes);
    cJSON_AddNumberToObject(p->meta, "time_per_size_s", o->time_per_size_s);
    cJSON_AddNumberToObject(p->meta, "run_overhead_s", o->run_overhead_s);
    return 0;
}

static cJSON *end_json(const struct gdr_plan *p, const struct gdr_plan_end *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "node", p->nodes[e->node]);
    cJSON_AddStringToObject(o, "device", e->device);
    cJSON_AddNumberToObject(o, "gpu", e->gpu);
    cJSON_AddStringToObject(o, "gpu_bdf", e->gpu_bdf);
    return o;
}

static cJSON *run_json(const struct gdr_plan *p, const struct gdr_plan_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "tool", r->test.tool);
    cJSON_AddStringToObject(o, "placement", r->test.placement);
    cJSON_AddStringToObject(o, "gdr", r->test.gdr);
    cJSON_AddNumberToObject(o, "rail", r->rail);
    cJSON_AddNumberToObject(o, "port", r->port);
    cJSON_AddItemToObject(o, "client", end_json(p, &r->client));
    cJSON_AddItemToObject(o, "server", end_json(p, &r->server));
    if (r->nic_share > 1)
        cJSON_AddNumberToObject(o, "nic_share", r->nic_share);
    return o;
}

cJSON *gdr_plan_to_json(const struct gdr_plan *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plan_version", GDR_PLAN_VERSION);
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (size_t i = 0; i < p->nnodes; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(p->nodes[i]));
    if (p->meta)
        cJSON_AddItemToObject(o, "options", cJSON_Duplicate(p->meta, true));
    cJSON_AddNumberToObject(o, "rounds_count", (double)p->nrounds);
    cJSON_AddNumberToObject(o, "steps_count", (double)p->nsteps);
    cJSON_AddNumberToObject(o, "runs_count", (double)p->nruns);
    cJSON_AddNumberToObject(o, "estimated_s", p->estimated_s);
    cJSON *rounds = cJSON_AddArrayToObject(o, "rounds");
    cJSON *round = NULL, *steps = NULL, *runs = NULL;
    size_t cur_round = 0, cur_step = 0;
    for (size_t i = 0; i < p->nruns; i++) {
        const struct gdr_plan_run *r = &p->runs[i];
        if (r->round != cur_round) {
            round = cJSON_CreateObject();
            cJSON_AddNumberToObject(round, "round", (double)r->round);
            steps = cJSON_AddArrayToObject(round, "steps");
            cJSON_AddItemToArray(rounds, round);
            cur_round = r->round;
            cur_step = 0;
        }
        if (r->step != cur_step) {
            cJSON *st = cJSON_CreateObject();
            cJSON_AddNumberToObject(st, "step", (double)r->step);
            runs = cJSON_AddArrayToObject(st, "runs");
            cJSON_AddItemToArray(steps, st);
            cur_step = r->step;
        }
        cJSON_AddItemToArray(runs, run_json(p, r));
    }
    return o;
}

static int end_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_end *e,
                         const char *what)
{
    char node[GDR_NODE_NAME_LEN];
    double gpu;
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", what);
    if (gdr_json_str(o, "node", node, sizeof(node), what) ||
        gdr_json_str(o, "device", e->device, sizeof(e->device), what) ||
        gdr_json_double(o, "gpu", &gpu, what))
        return gdr_cluster_input_error();
    long n = gdr_plan_node_index(p, node);
    if (n < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: node '%s' is not in the plan's nodes", what, node);
    e->node = (size_t)n;
    e->gpu = gpu < 0 ? -1 : (int)gpu;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "gpu_bdf"); /* optional */
    snprintf(e->gpu_bdf, sizeof(e->gpu_bdf), "%s", cJSON_IsString(b) ? b->valuestring : "");
    return 0;
}

int gdr_plan_run_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_run *r,
                           const char *what)
{
    char w[300];
    uint64_t rail, port;
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", what);
    if (gdr_json_str(o, "id", r->id, sizeof(r->id), what) ||
        gdr_json_str(o, "tool", r->test.tool, sizeof(r->test.tool), what) ||
        gdr_json_str(o, "placement", r->test.placement, sizeof(r->test.placement), what) ||
        gdr_json_str(o, "gdr", r->test.gdr, sizeof(r->test.gdr), what) ||
        gdr_json_u64(o, "rail", GDR_RAILS_MAX - 1, &rail, what) ||
        gdr_json_u64(o, "port", 65535, &port, what))
        return gdr_cluster_input_error();
    if (strchr(r->id, '/') || strchr(r->id, '\t') || !strcmp(r->id, "..") || !strcmp(r->id, "."))
        return gdr_fail(GDR_EXIT_USAGE, "%s: id '%s' is not a file name", what, r->id);
    r->rail = (int)rail;
    r->port = (unsigned)port;
    const cJSON *share = cJSON_GetObjectItemCaseSensitive(o, "nic_share");
    r->nic_share = cJSON_IsNumber(share) && share->valuedouble >= 1 && share->valuedouble <= 64
                       ? (unsigned)share->valuedouble
                       : 1;
    snprintf(w, sizeof(w), "%s.client", what);
    if (end_from_json(cJSON_GetObjectItemCaseSensitive(o, "client"), p, &r->client, w))
        return -1;
    snprintf(w, sizeof(w), "%s.server", what);
    return end_from_json(cJSON_GetObjectItemCaseSensitive(o, "server"), p, &r->server, w);
}

static size_t count_runs(const cJSON *rounds)
{
    size_t n = 0;
    const cJSON *rd, *st;
    cJSON_ArrayForEach(rd, rounds) {
        cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(rd, "steps"))
            n += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(st, "runs"));
    }
    return n;
}

int gdr_plan_from_json(const cJSON *doc, const char *what, struct gdr_plan *p)
{
    memset(p, 0, sizeof(*p));
    char v[64];
    if (gdr_json_str(doc, "plan_version", v, sizeof(v), what))
        return gdr_cluster_input_error();
    if (strcmp(v, GDR_PLAN_VERSION))
        return gdr_fail(GDR_EXIT_USAGE, "%s: plan_version '%s', expected '%s'", what, v,
                        GDR_PLAN_VERSION);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds");
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(rounds))
        return gdr_fail(GDR_EXIT_USAGE, "%s: 'nodes' and 'rounds' must be arrays", what);
    size_t nn = (size_t)cJSON_GetArraySize(nodes), nr = count_runs(rounds);
    p->nodes = calloc(nn + 1, sizeof(*p->nodes));
    p->runs = calloc(nr + 1, sizeof(*p->runs));
    if (!p->nodes || !p->runs) {
        gdr_plan_free(p);
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, nodes) {
        if (!cJSON_IsString(it) || !gdr_plan_node_name_ok(it->valuestring)) {
            gdr_plan_free(p);
            return gdr_fail(GDR_EXIT_USAGE, "%s: nodes[%zu] is not a node name", what, p->nnodes);
        }
        snprintf(p->nodes[p->nnodes++], GDR_NODE_NAME_LEN, "%s", it->valuestring);
    }
    const cJSON *rd, *st, *rn;
    size_t ri = 0;
    cJSON_ArrayForEach(rd, rounds) {
        ri++;
        size_t si = 0;
        cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(rd, "steps")) {
            si++;
            cJSON_ArrayForEach(rn, cJSON_GetObjectItemCaseSensitive(st, "runs")) {
                char w[200];
                snprintf(w, sizeof(w), "%s: round %zu step %zu run %zu", what, ri, si,
                         p->nruns + 1);
                struct gdr_plan_run *r = &p->runs[p->nruns];
                if (gdr_plan_run_from_json(rn, p, r, w)) {
                    gdr_plan_free(p);
                    return -1;
                }
                r->round = ri;
                r->step = si;
                p->nruns++;
            }
            p->nsteps++;
        }
    }
    p->nrounds = ri;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "estimated_s");
    p->estimated_s = cJSON_IsNumber(e) ? e->valuedouble : 0;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "options");
    p->meta = m ? cJSON_Duplicate(m, true) : NULL;
    return 0;
}

int gdr_plan_load(const char *path, struct gdr_plan *p)
{
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root)
        return -1;
    int rc = gdr_plan_from_json(root, path, p);
    cJSON_Delete(root);
    return rc;
}

static void print_end(FILE *f, const struct gdr_plan *p, const struct gdr_plan_end *e)
{
    fprintf(f, "\t%s\t%s\t", p->nodes[e->node], e->device[0] ? e->device : "-");
    /* The bus id, not the index: CUDA_VISIBLE_DEVICES can hide or reorder
     * GPUs, and the benchmark takes --mem=cuda:BUS_ID as well. */
    if (e->gpu >= 0 && e->gpu_bdf[0])
        fputs(e->gpu_bdf, f);
    else if (e->gpu >= 0)
        fprintf(f, "%d", e->gpu);
    else
        fputc('-', f);
}

void gdr_plan_print_runs(FILE *f, const struct gdr_plan *p, const struct gdr_plan_run *runs,
                         size_t nruns, size_t round)
{
    for (size_t i = 0; i < nruns; i++) {
        const struct gdr_plan_run *r = &runs[i];
        if (round && r->round != round)
            continue;
        fprintf(f, "%zu\t%zu\t%s\t%s\t%s\t%s\t%d\t%u", r->round, r->step, r->id, r->test.tool,
                r->test.placement, r->test.gdr, r->rail, r->port);
        print_end(f, p, &r->client);
        print_end(f, p, &r->server);
        fputc('\n', f);
    }
}
