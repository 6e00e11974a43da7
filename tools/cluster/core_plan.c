/* core_plan.c - gdr-cluster-core plan and plan-runs: the node list, the
 * pairs file, the tests and the rails files -> plan.json. */
#include "config.h"

#include "core_cli.h"
#include "cluster_plan.h"
#include "cluster_rails.h"
#include "error.h"
#include "json.h"
#include "parse.h"
#include "sizes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- node lists ---- */

struct names {
    size_t n, cap;
    char (*v)[GDR_NODE_NAME_LEN];
};

static int names_add(struct names *ns, const char *s, size_t len, const char *what)
{
    if (len == 0)
        return 0;
    if (len >= GDR_NODE_NAME_LEN)
        return gdr_core_usage_error("%s: node name '%.40s...' too long", what, s);
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 16;
        void *g = realloc(ns->v, cap * sizeof(*ns->v));
        if (!g)
            return gdr_core_usage_error("%s: out of memory", what);
        ns->v = g;
        ns->cap = cap;
    }
    memcpy(ns->v[ns->n], s, len);
    ns->v[ns->n][len] = '\0';
    if (!gdr_plan_node_name_ok(ns->v[ns->n]))
        return gdr_core_usage_error("%s: node name '%s' is not [A-Za-z0-9.-]+", what, ns->v[ns->n]);
    ns->n++;
    return 0;
}

static int names_from_list(struct names *ns, const char *list)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ", ");
        if (names_add(ns, p, len, "--hosts"))
            return -1;
        p += len;
        p += strspn(p, ", ");
    }
    return 0;
}

/* A file of WORDS per line; '#' starts a comment. Calls fn per line. */
static int read_lines(const char *path,
                      int (*fn)(char **w, size_t nw, void *ctx, const char *where), void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_core_usage_error("%s: %s", path, strerror(errno));
    char line[1024], where[1100];
    int rc = 0;
    for (size_t no = 1; !rc && fgets(line, sizeof(line), f); no++) {
        line[strcspn(line, "#\n")] = '\0';
        char *w[4];
        size_t nw = 0;
        for (char *p = line, *tok; nw < 4 && (tok = strsep(&p, " \t"));)
            if (*tok)
                w[nw++] = tok;
        if (nw == 0)
            continue;
        snprintf(where, sizeof(where), "%s:%zu", path, no);
        rc = fn(w, nw, ctx, where);
    }
    fclose(f);
    return rc;
}

static int hostfile_line(char **w, size_t nw, void *ctx, const char *where)
{
    (void)nw;
    return names_add(ctx, w[0], strlen(w[0]), where);
}

struct pairs_ctx {
    const struct names *ns;
    size_t n, cap;
    struct gdr_pair *v;
};

static int pairs_line(char **w, size_t nw, void *ctx, const char *where)
{
    struct pairs_ctx *pc = ctx;
    if (nw != 2)
        return gdr_core_usage_error("%s: expected two node names", where);
    long ix[2] = {-1, -1};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < pc->ns->n; i++)
            if (!strcmp(pc->ns->v[i], w[k]))
                ix[k] = (long)i;
    if (ix[0] < 0 || ix[1] < 0)
        return gdr_core_usage_error("%s: node '%s' is not in the node list", where,
                                    ix[0] < 0 ? w[0] : w[1]);
    if (ix[0] == ix[1])
        return gdr_core_usage_error("%s: a node cannot pair with itself", where);
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? 2 * pc->cap : 16;
        void *g = realloc(pc->v, pc->cap * sizeof(*pc->v));
        if (!g)
            return gdr_core_usage_error("out of memory");
        pc->v = g;
    }
    pc->v[pc->n++] = (struct gdr_pair){(size_t)ix[0], (size_t)ix[1]};
    return 0;
}

/* ---- plan ---- */

static int add_tests(struct gdr_plan_opts *o, const char *tools, const char *placements,
                     const char *gdrs)
{
    static const char *const known_tools[] = {"write_bw", "read_bw",  "send_bw", "write_lat",
                                              "read_lat", "send_lat", NULL};
    char tb[256], pb[256], gb[64];
    snprintf(tb, sizeof(tb), "%s", tools);
    for (char *tp = tb, *t; (t = strsep(&tp, ","));) {
        bool ok = false;
        for (size_t k = 0; known_tools[k]; k++)
            ok |= !strcmp(t, known_tools[k]);
        if (!ok)
            return gdr_core_usage_error("unknown tool '%s' (write_bw, read_bw, send_bw, write_lat, "
                                        "read_lat, send_lat)",
                                        t);
        snprintf(pb, sizeof(pb), "%s", placements);
        for (char *pp = pb, *p; (p = strsep(&pp, ","));) {
            if (strcmp(p, "H-H") && strcmp(p, "H-D") && strcmp(p, "D-H") && strcmp(p, "D-D"))
                return gdr_core_usage_error("unknown placement '%s' (H-H, H-D, D-H, D-D)", p);
            snprintf(gb, sizeof(gb), "%s", !strcmp(p, "H-H") ? "na" : gdrs);
            for (char *gp = gb, *g; (g = strsep(&gp, ","));) {
                if (strcmp(g, "on") && strcmp(g, "off") && strcmp(g, "na"))
                    return gdr_core_usage_error("unknown GDR mode '%s' (on, off)", g);
                if (o->ntests == GDR_PLAN_MAX_TESTS)
                    return gdr_core_usage_error("more than %d tests", GDR_PLAN_MAX_TESTS);
                struct gdr_test_mode *m = &o->tests[o->ntests++];
                snprintf(m->tool, sizeof(m->tool), "%s", t);
                snprintf(m->placement, sizeof(m->placement), "%s", p);
                snprintf(m->gdr, sizeof(m->gdr), "%s", g);
            }
        }
    }
    return 0;
}

/* Rails from DIR/NODE.json (gdr-cluster-core rails); nodes without a file
 * get none. *found counts the nodes (not left out) that had one. */
static int load_rails(const char *dir, const struct names *ns, const bool *left_out,
                      struct gdr_rail_map *maps, size_t *found)
{
    *found = 0;
    for (size_t i = 0; i < ns->n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.json", dir, ns->v[i]);
        if (left_out[i] || access(path, F_OK))
            continue;
        cJSON *d = gdr_json_read_file(path, 1 << 20);
        if (!d || gdr_rails_from_json(d, path, &maps[i])) {
            cJSON_Delete(d);
            return gdr_core_report_error();
        }
        cJSON_Delete(d);
        (*found)++;
    }
    return 0;
}

static bool listed(const char (*names)[64], size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(names[k], name))
            return true;
    return false;
}

/* --rails naming a NIC: the rails that use it (the same rail numbers on
 * every node), or, for a NIC that is no GPU's rail on any node (storage),
 * one more rail on it with no GPU. */
static int select_nic(struct gdr_plan_opts *o, const char *nic, const struct names *ns,
                      const bool *left_out, struct gdr_rail_map *maps, size_t common)
{
    long first = -1;
    size_t extra = common, seen = 0;
    for (size_t i = 0; i < ns->n; i++) {
        if (left_out[i])
            continue;
        const struct gdr_rail_map *m = &maps[i];
        bool rail = false;
        for (size_t r = 0; r < m->nrails; r++)
            rail |= !strcmp(m->rails[r].device, nic);
        if (listed((const char(*)[64])m->down, m->ndown, nic))
            return gdr_core_usage_error("--rails: %s on %s has no ACTIVE port", nic, ns->v[i]);
        if (!rail && !listed((const char(*)[64])m->unused, m->nunused, nic))
            return gdr_core_usage_error("--rails: no RDMA device '%s' on %s", nic, ns->v[i]);
        if (first < 0)
            first = rail;
        else if (first != rail)
            return gdr_core_usage_error("--rails: %s is a GPU's rail on some nodes, not on %s", nic,
                                        ns->v[i]);
        if (m->nrails > extra)
            extra = m->nrails;
        seen++;
    }
    if (!seen)
        return 0;
    if (first == 1) {
        /* rail r of the first node; every node must use the NIC on it */
        size_t i0 = 0;
        while (left_out[i0])
            i0++;
        for (size_t r = 0; r < maps[i0].nrails; r++) {
            if (strcmp(maps[i0].rails[r].device, nic))
                continue;
            for (size_t i = 0; i < ns->n; i++)
                if (!left_out[i] && (r >= maps[i].nrails || strcmp(maps[i].rails[r].device, nic)))
                    return gdr_core_usage_error("--rails: %s is rail %zu on %s, not on %s", nic, r,
                                                ns->v[i0], ns->v[i]);
            if (o->nrail_sel == GDR_RAILS_MAX)
                return gdr_core_usage_error("--rails: too many rails");
            o->rail_sel[o->nrail_sel++] = (int)r;
        }
        return 0;
    }
    if (extra >= GDR_RAILS_MAX || o->nrail_sel == GDR_RAILS_MAX)
        return gdr_core_usage_error("--rails: too many rails");
    for (size_t i = 0; i < ns->n; i++) {
        if (left_out[i])
            continue;
        struct gdr_rail *x = &maps[i].rails[extra];
        memset(x, 0, sizeof(*x));
        x->gpu = -1;
        x->path = GDR_PATH_UNKNOWN;
        snprintf(x->device, sizeof(x->device), "%s", nic);
        maps[i].nrails = extra + 1;
    }
    o->rail_sel[o->nrail_sel++] = (int)extra;
    return 0;
}

static int select_rails(struct gdr_plan_opts *o, const char *spec, const char *dir,
                        const struct names *ns, const bool *left_out, struct gdr_rail_map *maps)
{
    size_t found = 0, in = 0;
    if (dir && load_rails(dir, ns, left_out, maps, &found))
        return GDR_EXIT_USAGE;
    size_t common = GDR_RAILS_MAX;
    for (size_t i = 0; i < ns->n; i++) {
        if (left_out[i])
            continue;
        in++;
        if (maps[i].nrails < common)
            common = maps[i].nrails;
    }
    bool known = dir && found == in && common > 0;
    if (!strcmp(spec, "auto") || !strcmp(spec, "all")) {
        if (!known && !strcmp(spec, "all"))
            return gdr_core_usage_error("--rails=all needs a rails file for every node "
                                        "(--rails-dir) with at least one rail each");
        if (known) {
            for (size_t r = 0; r < common; r++)
                o->rail_sel[o->nrail_sel++] = (int)r;
            o->rails = maps;
        }
        return 0;
    }
    if (!dir || found != in)
        return gdr_core_usage_error("--rails=%s needs a rails file for every node (--rails-dir)",
                                    spec);
    char b[256];
    snprintf(b, sizeof(b), "%s", spec);
    for (char *bp = b, *t; (t = strsep(&bp, ","));) {
        unsigned long v;
        if (*t < '0' || *t > '9') {
            if (select_nic(o, t, ns, left_out, maps, common))
                return GDR_EXIT_USAGE;
            continue;
        }
        if (gdr_core_parse_count("--rails", t, GDR_RAILS_MAX - 1, &v))
            return GDR_EXIT_USAGE;
        if (o->nrail_sel == GDR_RAILS_MAX)
            return gdr_core_usage_error("--rails: too many rails");
        o->rail_sel[o->nrail_sel++] = (int)v;
    }
    o->rails = maps;
    return 0;
}

/* --leave-out A,B: names of the node list, each once. */
static int leave_out(const struct names *ns, const char *list, bool *out)
{
    char *b = strdup(list); /* hundreds of names at thousands of nodes */
    int rc = b ? 0 : gdr_core_usage_error("out of memory");
    for (char *bp = b, *t; !rc && (t = strsep(&bp, ","));) {
        if (!*t)
            continue;
        size_t i = 0;
        while (i < ns->n && strcmp(ns->v[i], t))
            i++;
        if (i == ns->n)
            rc = gdr_core_usage_error("plan: --leave-out: '%s' is not in the node list", t);
        else
            out[i] = true;
    }
    free(b);
    return rc;
}

/* H:MM:SS */
static const char *hms(double s, char *buf, size_t len)
{
    unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;
    snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    return buf;
}

/* --budget: a plan over it is refused, naming the random pairing that
 * fits (a nightly job must end before the morning); a plan within it
 * says what full pairing would have taken. */
static int check_budget(const struct gdr_plan *p, double budget, size_t maxc)
{
    char a[32], b[32], c[32];
    size_t half = p->m / 2, split = maxc && half > maxc ? (half + maxc - 1) / maxc : 1;
    double per = p->round_s * (double)split; /* one circle round, split */
    double full = per * (double)gdr_sched_circle_rounds(p->m);
    size_t k = per > 0 ? (size_t)(budget / per) : p->m;
    if (k > p->m - 1)
        k = p->m - 1;
    if (p->estimated_s <= budget) {
        if (p->pairing != GDR_PAIRING_FULL && full > budget)
            fprintf(stderr,
                    "gdr-cluster-core: plan: full pairing would take %s, over --budget %s; this "
                    "plan takes %s\n",
                    hms(full, a, sizeof(a)), hms(budget, b, sizeof(b)),
                    hms(p->estimated_s, c, sizeof(c)));
        return 0;
    }
    if (k == 0)
        return gdr_core_usage_error("plan: estimated %s, over --budget %s, and one round alone "
                                    "takes %s: a larger budget, fewer sizes or tests, or "
                                    "--one-direction",
                                    hms(p->estimated_s, a, sizeof(a)), hms(budget, b, sizeof(b)),
                                    hms(per, c, sizeof(c)));
    return gdr_core_usage_error("plan: estimated %s (%zu rounds), over --budget %s; "
                                "--pairing=random:%zu fits (%s)",
                                hms(p->estimated_s, a, sizeof(a)), p->nrounds,
                                hms(budget, b, sizeof(b)), k, hms(per * (double)k, c, sizeof(c)));
}

/* --soak, --rotate: a duration of whole seconds, 1 s to 30 days (the
 * benchmarks' --soak takes whole seconds from gdr-cluster). */
static int parse_soak_duration(const char *name, const char *v, double *out)
{
    if (gdr_parse_duration(v, out) || *out < 1 || *out > 30 * 86400.0 || *out != floor(*out))
        return gdr_core_usage_error("%s wants a duration of whole seconds from 1 s to 30 days "
                                    "(90s, 45m, 8h, 1:30:00), not '%s'",
                                    name, v);
    return 0;
}

/* --pairing full|quick|random:K */
static int parse_pairing(const char *v, struct gdr_plan_opts *o)
{
    unsigned long k;
    if (!strcmp(v, "full"))
        o->pairing = GDR_PAIRING_FULL;
    else if (!strcmp(v, "quick"))
        o->pairing = GDR_PAIRING_QUICK;
    else if (!strncmp(v, "random:", 7)) {
        if (gdr_core_parse_count("--pairing=random:K", v + 7, 1ul << 30, &k))
            return GDR_EXIT_USAGE;
        if (k == 0)
            return gdr_core_usage_error("plan: --pairing=random:K wants K of 1 or more");
        o->pairing = GDR_PAIRING_RANDOM;
        o->random_k = k;
    } else
        return gdr_core_usage_error("plan: --pairing '%s' (full, quick, random:K; or --pairs FILE)",
                                    v);
    return 0;
}

int gdr_core_cmd_plan(int argc, char **argv)
{
    const char *hosts = NULL, *hostfile = NULL, *out = NULL, *pairing = "full", *pairs = NULL;
    const char *rails = "auto", *rails_dir = NULL, *tools = "write_bw";
    const char *placements = "H-H,D-D", *gdrs = "on", *sizes = NULL, *leave = NULL;
    const char *seed_arg = NULL, *budget_arg = NULL, *rotate_arg = NULL;
    unsigned long maxc = 0, port = 18515, seed = 0;
    double tps = 0, overhead = 3, budget = 0;
    bool tps_given = false;
    static struct gdr_plan_opts o;
    memset(&o, 0, sizeof(o));
    enum {
        O_HOSTS = 256,
        O_HOSTFILE,
        O_PAIRING,
        O_PAIRS,
        O_SEED,
        O_BUDGET,
        O_MAXC,
        O_SERIAL,
        O_RAILS_DIR,
        O_RAILS_SERIAL,
        O_SHARED_NIC,
        O_LEAVE,
        O_RAILS,
        O_TOOLS,
        O_PLACEMENTS,
        O_GDR,
        O_ONE_DIR,
        O_SIZES,
        O_TPS,
        O_OVERHEAD,
        O_PORT,
        O_SOAK,
        O_ROTATE,
    };
    static const struct option opts[] = {
        {"hosts", required_argument, NULL, O_HOSTS},
        {"hostfile", required_argument, NULL, O_HOSTFILE},
        {"pairing", required_argument, NULL, O_PAIRING},
        {"pairs", required_argument, NULL, O_PAIRS},
        {"seed", required_argument, NULL, O_SEED},
        {"budget", required_argument, NULL, O_BUDGET},
        {"max-concurrent", required_argument, NULL, O_MAXC},
        {"serial", no_argument, NULL, O_SERIAL},
        {"rails-dir", required_argument, NULL, O_RAILS_DIR},
        {"rails-serial", no_argument, NULL, O_RAILS_SERIAL},
        {"shared-nic-together", no_argument, NULL, O_SHARED_NIC},
        {"leave-out", required_argument, NULL, O_LEAVE},
        {"rails", required_argument, NULL, O_RAILS},
        {"tools", required_argument, NULL, O_TOOLS},
        {"placements", required_argument, NULL, O_PLACEMENTS},
        {"gdr", required_argument, NULL, O_GDR},
        {"one-direction", no_argument, NULL, O_ONE_DIR},
        {"sizes", required_argument, NULL, O_SIZES},
        {"time-per-size", required_argument, NULL, O_TPS},
        {"run-overhead", required_argument, NULL, O_OVERHEAD},
        {"port", required_argument, NULL, O_PORT},
        {"soak", required_argument, NULL, O_SOAK},
        {"rotate", required_argument, NULL, O_ROTATE},
        {NULL, 0, NULL, 0},
    };
    int c, rc = 0;
    while (!rc && (c = gdr_core_getopt(argc, argv, "o:", opts, NULL, 0, &rc)) != -1) {
        const char *v = optarg;
        switch (c) {
        case O_HOSTS: hosts = v; break;
        case O_HOSTFILE: hostfile = v; break;
        case 'o': out = v; break;
        case O_PAIRING: pairing = v; break;
        case O_PAIRS: pairs = v; break;
        case O_SEED:
            seed_arg = v;
            rc = gdr_core_parse_count("--seed", v, (1ul << 53) - 1, &seed);
            break;
        case O_BUDGET:
            budget_arg = v;
            if (gdr_parse_duration(v, &budget))
                rc = gdr_core_usage_error(
                    "--budget wants a duration (7200, 90m, 2h, 1:30:00), not '%s'", v);
            break;
        case O_MAXC: rc = gdr_core_parse_count("--max-concurrent", v, 1u << 20, &maxc); break;
        case O_SERIAL: maxc = 1; break;
        case O_RAILS_DIR: rails_dir = v; break;
        case O_RAILS_SERIAL: o.rails_serial = true; break;
        case O_SHARED_NIC: o.shared_nic_together = true; break;
        case O_LEAVE: leave = v; break;
        case O_RAILS: rails = v; break;
        case O_TOOLS: tools = v; break;
        case O_PLACEMENTS: placements = v; break;
        case O_GDR: gdrs = v; break;
        case O_ONE_DIR: o.one_direction = true; break;
        case O_SIZES: sizes = v; break;
        case O_TPS:
            rc = gdr_core_parse_real("--time-per-size", v, 3600, &tps);
            tps_given = true;
            break;
        case O_OVERHEAD: rc = gdr_core_parse_real("--run-overhead", v, 3600, &overhead); break;
        case O_PORT: rc = gdr_core_parse_count("--port", v, 65000, &port); break;
        case O_SOAK: rc = parse_soak_duration("--soak", v, &o.soak_s); break;
        case O_ROTATE:
            rotate_arg = v;
            rc = parse_soak_duration("--rotate", v, &o.rotate_s);
            break;
        }
    }
    if (rc)
        return rc;
    struct names ns = {0};
    struct pairs_ctx pc = {.ns = &ns};
    struct gdr_rail_map *maps = NULL;
    bool *left = NULL;
    struct gdr_plan p = {0};
    cJSON *j = NULL;
    if (!hosts == !hostfile) {
        rc = gdr_core_usage_error("plan: give the nodes with --hosts or --hostfile (one of them)");
        goto done;
    }
    if (hosts ? names_from_list(&ns, hosts) : read_lines(hostfile, hostfile_line, &ns)) {
        rc = GDR_EXIT_USAGE;
        goto done;
    }
    if ((rc = parse_pairing(pairing, &o)))
        goto done;
    if (rotate_arg && !(o.soak_s > 0)) {
        rc = gdr_core_usage_error("--rotate needs --soak=DURATION");
        goto done;
    }
    if (seed_arg && o.pairing != GDR_PAIRING_RANDOM) {
        rc = gdr_core_usage_error("plan: --seed needs --pairing=random:K");
        goto done;
    }
    if (pairs && o.pairing == GDR_PAIRING_RANDOM) {
        rc = gdr_core_usage_error("plan: --pairs or --pairing=random:K, not both");
        goto done;
    }
    /* Without --seed, a new pairing each time (a nightly meets other
     * partners each night); the plan records the seed, which replays it. */
    o.seed =
        seed_arg ? seed : (((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid()) & ((1ull << 53) - 1);
    if (pairs) {
        if (read_lines(pairs, pairs_line, &pc)) {
            rc = GDR_EXIT_USAGE;
            goto done;
        }
        o.pairing = GDR_PAIRING_FILE;
        o.pairs = pc.v;
        o.npairs = pc.n;
        if (pc.n == 0) {
            rc = gdr_core_usage_error("plan: %s holds no pair", pairs);
            goto done;
        }
    }
    struct gdr_size_list sl = {.count = 1};
    if (sizes && gdr_sizes_parse(&sl, sizes)) {
        rc = gdr_core_report_error();
        goto done;
    }
    if (add_tests(&o, tools, placements, gdrs)) {
        rc = GDR_EXIT_USAGE;
        goto done;
    }
    maps = calloc(ns.n + 1, sizeof(*maps));
    left = calloc(ns.n + 1, sizeof(bool));
    if (!maps || !left) {
        rc = gdr_core_usage_error("out of memory");
        goto done;
    }
    if (leave && (rc = leave_out(&ns, leave, left)))
        goto done;
    o.nnodes = ns.n;
    o.nodes = (const char(*)[GDR_NODE_NAME_LEN])ns.v;
    o.left_out = left;
    o.max_concurrent = maxc;
    o.nsizes = o.soak_s > 0 ? 1 : sl.count; /* a soak runs one size */
    o.time_per_size_s = tps_given ? tps : 1;
    o.run_overhead_s = overhead;
    o.base_port = (unsigned)port;
    if ((rc = select_rails(&o, rails, rails_dir, &ns, left, maps)))
        goto done;
    if (gdr_plan_build(&o, &p)) {
        rc = gdr_core_report_error();
        goto done;
    }
    if (budget_arg && (rc = check_budget(&p, budget, maxc)))
        goto done;
    j = gdr_plan_to_json(&p);
    cJSON_AddBoolToObject(cJSON_GetObjectItemCaseSensitive(j, "options"), "time_per_size_assumed",
                          !tps_given);
    rc = gdr_core_write_json(j, out);
    if (!rc && out && strcmp(out, "-")) {
        printf("nodes %zu rounds %zu steps %zu runs %zu estimated_s %.0f", p.nnodes, p.nrounds,
               p.nsteps, p.nruns, p.estimated_s);
        if (o.pairing == GDR_PAIRING_RANDOM)
            printf(" seed %llu", (unsigned long long)o.seed);
        printf("\n");
    }
done:
    cJSON_Delete(j);
    gdr_plan_free(&p);
    free(maps);
    free(left);
    free(ns.v);
    free(pc.v);
    return rc;
}

int gdr_core_cmd_plan_runs(int argc, char **argv)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    const char *arg[2] = {NULL, NULL}; /* PLAN ROUND */
    int rc;
    gdr_core_getopt(argc, argv, "", none, arg, 2, &rc); /* no options: only the arguments */
    if (rc)
        return rc;
    if (!arg[1])
        return gdr_core_usage_error("plan-runs: needs PLAN and ROUND (or all)");
    unsigned long round = 0;
    if (strcmp(arg[1], "all") && gdr_core_parse_count("plan-runs ROUND", arg[1], 1ul << 30, &round))
        return GDR_EXIT_USAGE;
    struct gdr_plan p;
    if (gdr_plan_load(arg[0], &p))
        return gdr_core_report_error();
    if (round > p.nrounds) {
        size_t have = p.nrounds;
        gdr_plan_free(&p);
        return gdr_core_usage_error("plan-runs: %s has %zu rounds, not %lu", arg[0], have, round);
    }
    rc = gdr_plan_print_round(stdout, &p, round) ? gdr_core_report_error() : 0;
    gdr_plan_free(&p);
    return rc;
}
