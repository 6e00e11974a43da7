/* gdr-cluster-core - the C behind scripts/gdr-cluster: it schedules and
 * analyses; the script only launches.
 *
 *   plan         nodes, pairing, rails, tests -> plan.json (rounds -> steps -> runs)
 *   plan-runs    one round of a plan as tab-separated lines for the shell
 *   rails        this node's GPU <-> nearest NIC rails as JSON
 *   matrix       node x node CSV per test, size and rail from a results directory
 *   suspects     robust statistics over the matrices -> suspects.json with retests
 *   retest-runs  the retest list of suspects.json as tab-separated lines
 *   confirm      judge the suspects from the retest results
 *   manifest     manifest.json from the plan and the script's run status lines
 *   report       report.md: what ran, per-rail and per-node tables, suspects
 *
 * Exit codes: 0 ok, 1 suspects confirmed or unresolved (confirm), 2 bad
 * input, 3 environment (sysfs unreadable). */
#include "config.h"

#include "cluster_matrix.h"
#include "cluster_plan.h"
#include "cluster_rails.h"
#include "cluster_software.h"
#include "cluster_report.h"
#include "cluster_suspects.h"
#include "doc.h"
#include "error.h"
#include "json.h"
#include "sizes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: gdr-cluster-core COMMAND ARGS\n"
    "  plan (--hosts A,B,.. | --hostfile FILE) [-o PLAN] [--pairing full|quick]\n"
    "       [--pairs FILE] [--max-concurrent K] [--serial] [--rails auto|all|LIST]\n"
    "       [--rails-dir DIR] [--rails-serial] [--tools LIST] [--placements LIST]\n"
    "       [--gdr LIST] [--one-direction] [--sizes MIN:MAX[:F]] [--time-per-size SEC]\n"
    "       [--run-overhead SEC] [--port N]\n"
    "                      write the plan; print 'nodes N rounds R steps S runs M\n"
    "                      estimated_s E' on stdout\n"
    "  plan-runs PLAN ROUND|all\n"
    "                      ROUND STEP ID TOOL PLACEMENT GDR RAIL PORT CNODE CDEV CGPU\n"
    "                      SNODE SDEV SGPU, tab-separated, '-' for a default\n"
    "  rails [--sysfs-root DIR] [--procfs-root DIR] [--node NAME]\n"
    "                      this node's rails (GPU i with its nearest NIC) and its\n"
    "                      software (gdrbench, kernel, NVIDIA driver, NIC firmware)\n"
    "                      as JSON\n"
    "  matrix --plan PLAN --dir RESULTS [-o DIR] [--heat DIR]\n"
    "                      matrix-TEST-SIZE-rRAIL.csv (rows: client, columns: server);\n"
    "                      --heat: {heat,failed,values}-TEST-SIZE-rRAIL.dat for gnuplot\n"
    "  suspects --plan PLAN --dir RESULTS [-o FILE] [--min-link-pct P]\n"
    "       [--tolerance-pct P] [--size BYTES] [--port N]\n"
    "                      write suspects.json; print 'suspects N retest M'\n"
    "  retest-runs SUSPECTS --plan PLAN\n"
    "                      the retest runs, as plan-runs prints them (ROUND = suspect)\n"
    "  confirm SUSPECTS --plan PLAN --dir RETEST_RESULTS [-o FILE]\n"
    "                      mark each suspect confirmed, cleared or unresolved; print\n"
    "                      'confirmed C cleared K unresolved U'; exit 1 if C + U > 0\n"
    "  manifest --plan PLAN --status TSV -o FILE [--set KEY=VALUE]... [--arg A]...\n"
    "       [--args-file FILE]\n"
    "                      manifest.json from the plan and the run status lines (ID\n"
    "                      STATUS CRC SRC DURATION RESUMED REASON, tab-separated; a\n"
    "                      later line for an ID wins); print 'planned N ok N failed N\n"
    "                      missing N'\n"
    "  report --plan PLAN --dir RESULTS [-o FILE] [--suspects FILE] [--manifest FILE]\n"
    "       [--figures DIR] [--title TEXT] [--min-link-pct P] [--tolerance-pct P] [--size B]\n"
    "                      report.md (figures linked relative to -o's directory)\n"
    "  --help, --version\n"
    "exit: 0 ok, 1 suspects confirmed or unresolved, 2 bad input, 3 environment\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gdr-cluster-core: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (gdr-cluster-core --help)\n");
    va_end(ap);
    return GDR_EXIT_USAGE;
}

static int report_error(void)
{
    fprintf(stderr, "gdr-cluster-core: %s\n", gdr_error_message());
    /* Everything read here is input: only a missing environment differs. */
    return gdr_error_code() == GDR_EXIT_ENV ? GDR_EXIT_ENV : GDR_EXIT_USAGE;
}

/* The option last seen without its value (checked after each argument). */
static const char *missing_value;

/* "--name=value" or "--name value" at argv[*i]; advances *i past it. */
static bool opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return false;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] != '\0')
        return false;
    if (*i + 1 >= argc) {
        *val = NULL;
        missing_value = name;
        return true;
    }
    *val = argv[++*i];
    return true;
}

static int parse_count(const char *name, const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v > max || s[0] == '-')
        return usage_error("%s wants a whole number up to %lu, not '%s'", name, max, s ? s : "");
    *out = v;
    return 0;
}

static int parse_real(const char *name, const char *s, double max, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v >= 0) || v > max)
        return usage_error("%s wants a number from 0 to %g, not '%s'", name, max, s ? s : "");
    *out = v;
    return 0;
}

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
        return usage_error("%s: node name '%.40s...' too long", what, s);
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 16;
        void *g = realloc(ns->v, cap * sizeof(*ns->v));
        if (!g)
            return usage_error("%s: out of memory", what);
        ns->v = g;
        ns->cap = cap;
    }
    memcpy(ns->v[ns->n], s, len);
    ns->v[ns->n][len] = '\0';
    if (!gdr_plan_node_name_ok(ns->v[ns->n]))
        return usage_error("%s: node name '%s' is not [A-Za-z0-9.-]+", what, ns->v[ns->n]);
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
        return usage_error("%s: %s", path, strerror(errno));
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
        return usage_error("%s: expected two node names", where);
    long ix[2] = {-1, -1};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < pc->ns->n; i++)
            if (!strcmp(pc->ns->v[i], w[k]))
                ix[k] = (long)i;
    if (ix[0] < 0 || ix[1] < 0)
        return usage_error("%s: node '%s' is not in the node list", where, ix[0] < 0 ? w[0] : w[1]);
    if (ix[0] == ix[1])
        return usage_error("%s: a node cannot pair with itself", where);
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? 2 * pc->cap : 16;
        void *g = realloc(pc->v, pc->cap * sizeof(*pc->v));
        if (!g)
            return usage_error("out of memory");
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
            return usage_error("unknown tool '%s' (write_bw, read_bw, send_bw, write_lat, "
                               "read_lat, send_lat)",
                               t);
        snprintf(pb, sizeof(pb), "%s", placements);
        for (char *pp = pb, *p; (p = strsep(&pp, ","));) {
            if (strcmp(p, "H-H") && strcmp(p, "H-D") && strcmp(p, "D-H") && strcmp(p, "D-D"))
                return usage_error("unknown placement '%s' (H-H, H-D, D-H, D-D)", p);
            snprintf(gb, sizeof(gb), "%s", !strcmp(p, "H-H") ? "na" : gdrs);
            for (char *gp = gb, *g; (g = strsep(&gp, ","));) {
                if (strcmp(g, "on") && strcmp(g, "off") && strcmp(g, "na"))
                    return usage_error("unknown GDR mode '%s' (on, off)", g);
                if (o->ntests == GDR_PLAN_MAX_TESTS)
                    return usage_error("more than %d tests", GDR_PLAN_MAX_TESTS);
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
 * get none. Returns how many nodes had one. */
static int load_rails(const char *dir, const struct names *ns, struct gdr_rail_map *maps,
                      size_t *found)
{
    *found = 0;
    for (size_t i = 0; i < ns->n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.json", dir, ns->v[i]);
        if (access(path, F_OK))
            continue;
        cJSON *d = gdr_json_read_file(path, 1 << 20);
        if (!d || gdr_rails_from_json(d, path, &maps[i])) {
            cJSON_Delete(d);
            return report_error();
        }
        cJSON_Delete(d);
        (*found)++;
    }
    return 0;
}

static int select_rails(struct gdr_plan_opts *o, const char *spec, const char *dir,
                        const struct names *ns, struct gdr_rail_map *maps)
{
    size_t found = 0;
    if (dir && load_rails(dir, ns, maps, &found))
        return GDR_EXIT_USAGE;
    size_t common = GDR_RAILS_MAX;
    for (size_t i = 0; i < ns->n; i++)
        if (maps[i].nrails < common)
            common = maps[i].nrails;
    bool known = dir && found == ns->n && common > 0;
    if (!strcmp(spec, "auto") || !strcmp(spec, "all")) {
        if (!known && !strcmp(spec, "all"))
            return usage_error("--rails=all needs a rails file for every node (--rails-dir) "
                               "with at least one rail each");
        if (known) {
            for (size_t r = 0; r < common; r++)
                o->rail_sel[o->nrail_sel++] = (int)r;
            o->rails = maps;
        }
        return 0;
    }
    if (!known)
        return usage_error("--rails=%s needs a rails file for every node (--rails-dir)", spec);
    char b[256];
    snprintf(b, sizeof(b), "%s", spec);
    for (char *bp = b, *t; (t = strsep(&bp, ","));) {
        unsigned long v;
        if (parse_count("--rails", t, GDR_RAILS_MAX - 1, &v))
            return GDR_EXIT_USAGE;
        if (o->nrail_sel == GDR_RAILS_MAX)
            return usage_error("--rails: too many rails");
        o->rail_sel[o->nrail_sel++] = (int)v;
    }
    o->rails = maps;
    return 0;
}

static int write_json(const cJSON *j, const char *path)
{
    if (!path || !strcmp(path, "-")) {
        char *s = cJSON_Print(j);
        if (!s)
            return usage_error("out of memory");
        printf("%s\n", s);
        free(s);
        return 0;
    }
    if (gdr_json_write_atomic(j, path))
        return report_error();
    return 0;
}

static int cmd_plan(int argc, char **argv)
{
    const char *hosts = NULL, *hostfile = NULL, *out = NULL, *pairing = "full", *pairs = NULL;
    const char *rails = "auto", *rails_dir = NULL, *tools = "write_bw";
    const char *placements = "H-H,D-D", *gdrs = "on", *sizes = NULL, *v;
    unsigned long maxc = 0, port = 18515;
    double tps = 0, overhead = 3;
    bool tps_given = false;
    static struct gdr_plan_opts o;
    memset(&o, 0, sizeof(o));
    for (int i = 0; i < argc; i++) {
        int rc = 0;
        if (opt(argc, argv, &i, "--hosts", &v))
            hosts = v;
        else if (opt(argc, argv, &i, "--hostfile", &v))
            hostfile = v;
        else if (opt(argc, argv, &i, "-o", &v))
            out = v;
        else if (opt(argc, argv, &i, "--pairing", &v))
            pairing = v;
        else if (opt(argc, argv, &i, "--pairs", &v))
            pairs = v;
        else if (opt(argc, argv, &i, "--max-concurrent", &v))
            rc = parse_count("--max-concurrent", v, 1u << 20, &maxc);
        else if (!strcmp(argv[i], "--serial"))
            maxc = 1;
        else if (opt(argc, argv, &i, "--rails-dir", &v))
            rails_dir = v;
        else if (!strcmp(argv[i], "--rails-serial"))
            o.rails_serial = true;
        else if (opt(argc, argv, &i, "--rails", &v))
            rails = v;
        else if (opt(argc, argv, &i, "--tools", &v))
            tools = v;
        else if (opt(argc, argv, &i, "--placements", &v))
            placements = v;
        else if (opt(argc, argv, &i, "--gdr", &v))
            gdrs = v;
        else if (!strcmp(argv[i], "--one-direction"))
            o.one_direction = true;
        else if (opt(argc, argv, &i, "--sizes", &v))
            sizes = v;
        else if (opt(argc, argv, &i, "--time-per-size", &v)) {
            rc = parse_real("--time-per-size", v, 3600, &tps);
            tps_given = true;
        } else if (opt(argc, argv, &i, "--run-overhead", &v))
            rc = parse_real("--run-overhead", v, 3600, &overhead);
        else if (opt(argc, argv, &i, "--port", &v))
            rc = parse_count("--port", v, 65000, &port);
        else
            return usage_error("plan: unknown argument '%s'", argv[i]);
        if (rc)
            return rc;
        if (missing_value)
            return usage_error("plan: %s needs a value", missing_value);
    }
    struct names ns = {0};
    struct pairs_ctx pc = {.ns = &ns};
    struct gdr_rail_map *maps = NULL;
    struct gdr_plan p = {0};
    cJSON *j = NULL;
    int rc = 0;
    if (!hosts == !hostfile) {
        rc = usage_error("plan: give the nodes with --hosts or --hostfile (one of them)");
        goto done;
    }
    if (hosts ? names_from_list(&ns, hosts) : read_lines(hostfile, hostfile_line, &ns)) {
        rc = GDR_EXIT_USAGE;
        goto done;
    }
    if (!strcmp(pairing, "full"))
        o.pairing = GDR_PAIRING_FULL;
    else if (!strcmp(pairing, "quick"))
        o.pairing = GDR_PAIRING_QUICK;
    else {
        rc = usage_error("plan: --pairing '%s' (full, quick; or --pairs FILE)", pairing);
        goto done;
    }
    if (pairs) {
        if (read_lines(pairs, pairs_line, &pc)) {
            rc = GDR_EXIT_USAGE;
            goto done;
        }
        o.pairing = GDR_PAIRING_FILE;
        o.pairs = pc.v;
        o.npairs = pc.n;
        if (pc.n == 0) {
            rc = usage_error("plan: %s holds no pair", pairs);
            goto done;
        }
    }
    struct gdr_size_list sl = {.count = 1};
    if (sizes && gdr_sizes_parse(&sl, sizes)) {
        rc = report_error();
        goto done;
    }
    if (add_tests(&o, tools, placements, gdrs)) {
        rc = GDR_EXIT_USAGE;
        goto done;
    }
    maps = calloc(ns.n + 1, sizeof(*maps));
    if (!maps) {
        rc = usage_error("out of memory");
        goto done;
    }
    o.nnodes = ns.n;
    o.nodes = (const char(*)[GDR_NODE_NAME_LEN])ns.v;
    o.max_concurrent = maxc;
    o.nsizes = sl.count;
    o.time_per_size_s = tps_given ? tps : 1;
    o.run_overhead_s = overhead;
    o.base_port = (unsigned)port;
    if ((rc = select_rails(&o, rails, rails_dir, &ns, maps)))
        goto done;
    if (gdr_plan_build(&o, &p)) {
        rc = report_error();
        goto done;
    }
    j = gdr_plan_to_json(&p);
    cJSON_AddBoolToObject(cJSON_GetObjectItemCaseSensitive(j, "options"), "time_per_size_assumed",
                          !tps_given);
    rc = write_json(j, out);
    if (!rc && out && strcmp(out, "-"))
        printf("nodes %zu rounds %zu steps %zu runs %zu estimated_s %.0f\n", p.nnodes, p.nrounds,
               p.nsteps, p.nruns, p.estimated_s);
done:
    cJSON_Delete(j);
    gdr_plan_free(&p);
    free(maps);
    free(ns.v);
    free(pc.v);
    return rc;
}

static int cmd_plan_runs(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("plan-runs: needs PLAN and ROUND (or all)");
    unsigned long round = 0;
    if (strcmp(argv[1], "all") && parse_count("plan-runs ROUND", argv[1], 1ul << 30, &round))
        return GDR_EXIT_USAGE;
    struct gdr_plan p;
    if (gdr_plan_load(argv[0], &p))
        return report_error();
    if (round > p.nrounds) {
        size_t have = p.nrounds;
        gdr_plan_free(&p);
        return usage_error("plan-runs: %s has %zu rounds, not %lu", argv[0], have, round);
    }
    gdr_plan_print_runs(stdout, &p, p.runs, p.nruns, round);
    gdr_plan_free(&p);
    return 0;
}

/* ---- rails ---- */

static int cmd_rails(int argc, char **argv)
{
    const char *root = NULL, *proc = NULL, *node = NULL, *v;
    char host[256];
    for (int i = 0; i < argc; i++) {
        if (opt(argc, argv, &i, "--sysfs-root", &v))
            root = v;
        else if (opt(argc, argv, &i, "--procfs-root", &v))
            proc = v;
        else if (opt(argc, argv, &i, "--node", &v))
            node = v;
        else
            return usage_error("rails: unknown argument '%s'", argv[i]);
        if (missing_value)
            return usage_error("rails: %s needs a value", missing_value);
    }
    if (root && access(root, F_OK))
        return usage_error("rails: --sysfs-root %s: %s", root, strerror(errno));
    if (proc && access(proc, F_OK))
        return usage_error("rails: --procfs-root %s: %s", proc, strerror(errno));
    if (!node) {
        if (gethostname(host, sizeof(host)))
            snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        node = host;
    }
    struct gdr_rail_map *m = calloc(1, sizeof(*m));
    if (!m)
        return usage_error("out of memory");
    if (gdr_rails_detect(root, m)) {
        free(m);
        return report_error();
    }
    for (size_t i = 0; i < m->nwarnings; i++)
        fprintf(stderr, "gdr-cluster-core: warning: %s: %s\n", node, m->warnings[i]);
    cJSON *j = gdr_rails_to_json(node, m);
    struct gdr_node_software *sw = malloc(sizeof(*sw));
    if (sw) {
        gdr_node_software_detect(root, proc, m, sw);
        cJSON_AddItemToObject(j, "software", gdr_node_software_to_json(sw));
        free(sw);
    }
    int rc = write_json(j, NULL);
    cJSON_Delete(j);
    free(m);
    return rc;
}

/* ---- matrix, suspects, retest ---- */

struct common_args {
    const char *plan, *dir, *out, *file, *heat, *suspects, *manifest, *figures, *title;
    struct gdr_detect_opts det;
    unsigned long port;
};

static int parse_common(int argc, char **argv, const char *cmd, bool want_file,
                        struct common_args *a)
{
    const char *v;
    double pct;
    gdr_detect_opts_default(&a->det);
    a->port = 18515;
    for (int i = 0; i < argc; i++) {
        int rc = 0;
        if (opt(argc, argv, &i, "--plan", &v))
            a->plan = v;
        else if (opt(argc, argv, &i, "--dir", &v))
            a->dir = v;
        else if (opt(argc, argv, &i, "-o", &v))
            a->out = v;
        else if (opt(argc, argv, &i, "--heat", &v))
            a->heat = v;
        else if (opt(argc, argv, &i, "--suspects", &v))
            a->suspects = v;
        else if (opt(argc, argv, &i, "--manifest", &v))
            a->manifest = v;
        else if (opt(argc, argv, &i, "--figures", &v))
            a->figures = v;
        else if (opt(argc, argv, &i, "--title", &v))
            a->title = v;
        else if (opt(argc, argv, &i, "--min-link-pct", &v)) {
            rc = parse_real("--min-link-pct", v, 100, &pct);
            a->det.min_link_frac = pct / 100;
        } else if (opt(argc, argv, &i, "--tolerance-pct", &v)) {
            rc = parse_real("--tolerance-pct", v, 100, &pct);
            a->det.tolerance = pct / 100;
        } else if (opt(argc, argv, &i, "--size", &v)) {
            if (!v || gdr_parse_bytes(v, &a->det.size))
                return usage_error("%s: --size wants a size in bytes, not '%s'", cmd, v ? v : "");
        } else if (opt(argc, argv, &i, "--port", &v))
            rc = parse_count("--port", v, 65000, &a->port);
        else if (want_file && !a->file && argv[i][0] != '-')
            a->file = argv[i];
        else
            return usage_error("%s: unknown argument '%s'", cmd, argv[i]);
        if (rc)
            return rc;
        if (missing_value)
            return usage_error("%s: %s needs a value", cmd, missing_value);
    }
    if (!a->plan)
        return usage_error("%s: --plan PLAN is required", cmd);
    if (want_file && !a->file)
        return usage_error("%s: needs the suspects file", cmd);
    return 0;
}

/* The heatmaps' data, each cell against the detector's reference for the
 * analysed matrices (the others: their median). */
static int write_heat(const struct gdr_matrix_set *s, const struct gdr_detect_opts *o,
                      const char *dir)
{
    struct gdr_detection d;
    double *ref = calloc(s->count + 1, sizeof(double));
    if (!ref)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    if (gdr_detect(s, o, &d)) {
        free(ref);
        return -1;
    }
    for (size_t k = 0; k < d.nstats; k++) {
        const struct gdr_mstats *st = &d.stats[k];
        double r = st->reference;
        ref[st->matrix] = s->m[st->matrix].latency && r > 0 ? 1 / r : r;
    }
    gdr_detection_free(&d);
    int rc = gdr_matrix_write_heat(s, ref, dir);
    free(ref);
    return rc;
}

static int cmd_matrix(int argc, char **argv)
{
    struct common_args a = {0};
    int rc = parse_common(argc, argv, "matrix", false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return usage_error("matrix: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    if (gdr_plan_load(a.plan, &p))
        return report_error();
    rc = gdr_matrix_load(&p, a.dir, &s) || gdr_matrix_write_csvs(&s, a.out ? a.out : a.dir) ||
                 (a.heat && write_heat(&s, &a.det, a.heat))
             ? report_error()
             : 0;
    if (!rc)
        printf("matrices %zu\n", s.count);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}

static int cmd_suspects(int argc, char **argv)
{
    struct common_args a = {0};
    int rc = parse_common(argc, argv, "suspects", false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return usage_error("suspects: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    struct gdr_detection d;
    if (gdr_plan_load(a.plan, &p))
        return report_error();
    if (gdr_matrix_load(&p, a.dir, &s) || gdr_detect(&s, &a.det, &d)) {
        gdr_plan_free(&p);
        return report_error();
    }
    cJSON *j = gdr_detection_to_json(&d, &s, &p, &a.det, (unsigned)a.port);
    size_t nretest = 0;
    const cJSON *sp;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(j, "suspects"))
        nretest += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sp, "retest"));
    rc = write_json(j, a.out);
    if (!rc && a.out && strcmp(a.out, "-"))
        printf("suspects %zu retest %zu\n", d.nsuspects, nretest);
    cJSON_Delete(j);
    gdr_detection_free(&d);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}

static cJSON *load_suspects(const char *path)
{
    cJSON *j = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!j)
        return NULL;
    char v[64];
    if (gdr_json_str(j, "suspects_version", v, sizeof(v), path)) {
        gdr_cluster_input_error();
        cJSON_Delete(j);
        return NULL;
    }
    if (strcmp(v, GDR_SUSPECTS_VERSION)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: suspects_version '%s', expected '%s'", path, v,
                 GDR_SUSPECTS_VERSION);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static int cmd_retest_runs(int argc, char **argv)
{
    struct common_args a = {0};
    int rc = parse_common(argc, argv, "retest-runs", true, &a);
    if (rc)
        return rc;
    struct gdr_plan p;
    if (gdr_plan_load(a.plan, &p))
        return report_error();
    cJSON *j = load_suspects(a.file);
    if (!j) {
        gdr_plan_free(&p);
        return report_error();
    }
    const cJSON *sp, *r;
    size_t k = 0;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(j, "suspects")) {
        k++;
        size_t q = 0;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(sp, "retest")) {
            struct gdr_plan_run run;
            char w[200];
            snprintf(w, sizeof(w), "%s: suspects[%zu].retest[%zu]", a.file, k - 1, q);
            memset(&run, 0, sizeof(run));
            if (gdr_plan_run_from_json(r, &p, &run, w)) {
                rc = report_error();
                break;
            }
            run.round = k;
            run.step = ++q;
            gdr_plan_print_runs(stdout, &p, &run, 1, 0);
        }
        if (rc)
            break;
    }
    cJSON_Delete(j);
    gdr_plan_free(&p);
    return rc;
}

struct lookup_ctx {
    const char *dir;
};

static void retest_lookup(const cJSON *run, uint64_t size, struct gdr_retest_value *v, void *ctx)
{
    const struct lookup_ctx *lc = ctx;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
    struct gdr_test_mode t;
    memset(&t, 0, sizeof(t));
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(run, "gdr");
    snprintf(t.gdr, sizeof(t.gdr), "%s", cJSON_IsString(g) ? g->valuestring : "na");
    if (!cJSON_IsString(id) || strchr(id->valuestring, '/'))
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.client.json", lc->dir, id->valuestring);
    struct gdr_run_result r;
    gdr_run_result_read(path, &t, &r);
    for (size_t k = 0; r.ok && k < r.nrows; k++)
        if (r.sizes[k] == size) {
            v->found = true;
            v->value = r.values[k];
            v->rate_bytes = r.rate_bytes;
            v->gdr_off = r.gdr_off[0] || r.gdr_off[1];
        }
}

static int cmd_confirm(int argc, char **argv)
{
    struct common_args a = {0};
    int rc = parse_common(argc, argv, "confirm", true, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return usage_error("confirm: --dir RETEST_RESULTS is required");
    cJSON *j = load_suspects(a.file);
    if (!j)
        return report_error();
    struct lookup_ctx lc = {a.dir};
    struct gdr_confirm_counts c;
    if (gdr_suspects_confirm(j, retest_lookup, &lc, &c)) {
        cJSON_Delete(j);
        return report_error();
    }
    rc = write_json(j, a.out ? a.out : a.file);
    cJSON_Delete(j);
    if (rc)
        return rc;
    printf("confirmed %zu cleared %zu unresolved %zu\n", c.confirmed, c.cleared, c.unresolved);
    return c.confirmed + c.unresolved ? GDR_EXIT_RUN : GDR_EXIT_OK;
}

/* ---- report ---- */

static int cmd_report(int argc, char **argv)
{
    struct common_args a = {0};
    int rc = parse_common(argc, argv, "report", false, &a);
    if (rc)
        return rc;
    if (!a.dir)
        return usage_error("report: --dir RESULTS is required");
    struct gdr_plan p;
    struct gdr_matrix_set s;
    struct gdr_detection d;
    cJSON *sus = NULL, *man = NULL;
    if (gdr_plan_load(a.plan, &p))
        return report_error();
    if ((a.suspects && !(sus = load_suspects(a.suspects))) ||
        (a.manifest && !(man = gdr_json_read_file(a.manifest, GDR_DOC_MAX_BYTES))) ||
        gdr_matrix_load(&p, a.dir, &s)) {
        cJSON_Delete(sus);
        gdr_plan_free(&p);
        return report_error();
    }
    if (gdr_detect(&s, &a.det, &d)) {
        rc = report_error();
    } else {
        FILE *f = a.out && strcmp(a.out, "-") ? fopen(a.out, "w") : stdout;
        if (!f) {
            rc = usage_error("report: %s: %s", a.out, strerror(errno));
        } else {
            /* Figures are linked relative to the report's directory. */
            const char *rel = a.figures ? strrchr(a.figures, '/') : NULL;
            char rails_dir[4096];
            snprintf(rails_dir, sizeof(rails_dir), "%s/rails", a.dir);
            struct gdr_report_input in = {a.title ? a.title : "",    man,      sus, a.figures,
                                          rel ? rel + 1 : a.figures, rails_dir};
            gdr_cluster_report(f, &p, &s, &d, &a.det, &in);
            if (f != stdout && fclose(f))
                rc = usage_error("report: %s: write failed", a.out);
        }
        gdr_detection_free(&d);
    }
    cJSON_Delete(sus);
    cJSON_Delete(man);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    return rc;
}

/* ---- manifest ---- */

struct status_line {
    char id[3 * GDR_NODE_NAME_LEN], status[16], crc[8], src[8], resumed[8];
    double duration;
    char reason[420];
    size_t order;
};

static int cmp_status(const void *a, const void *b)
{
    const struct status_line *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int read_status(const char *path, struct status_line **out, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return usage_error("manifest: %s: %s", path, strerror(errno));
    size_t cap = 0;
    char line[2048];
    *out = NULL;
    *n = 0;
    for (size_t no = 1; fgets(line, sizeof(line), f); no++) {
        line[strcspn(line, "\n")] = '\0';
        if (!*line)
            continue;
        char *fld[7];
        size_t k = 0;
        for (char *p = line, *t; k < 7 && (t = strsep(&p, "\t"));)
            fld[k++] = t;
        if (k != 7 || (strcmp(fld[1], "ok") && strcmp(fld[1], "failed"))) {
            fclose(f);
            return usage_error("manifest: %s:%zu: not 'ID STATUS CRC SRC DURATION RESUMED REASON'",
                               path, no);
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            void *g = realloc(*out, cap * sizeof(**out));
            if (!g) {
                fclose(f);
                return usage_error("out of memory");
            }
            *out = g;
        }
        struct status_line *s = &(*out)[(*n)++];
        snprintf(s->id, sizeof(s->id), "%s", fld[0]);
        snprintf(s->status, sizeof(s->status), "%s", fld[1]);
        snprintf(s->crc, sizeof(s->crc), "%s", fld[2]);
        snprintf(s->src, sizeof(s->src), "%s", fld[3]);
        s->duration = strtod(fld[4], NULL);
        snprintf(s->resumed, sizeof(s->resumed), "%s", fld[5]);
        snprintf(s->reason, sizeof(s->reason), "%s", fld[6]);
        s->order = no;
    }
    fclose(f);
    qsort(*out, *n, sizeof(**out), cmp_status);
    return 0;
}

/* The last line for id, or NULL. */
static const struct status_line *find_status(const struct status_line *v, size_t n, const char *id)
{
    const struct status_line *hit = NULL;
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first line with this id */
        size_t mid = (lo + hi) / 2;
        if (strcmp(v[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !strcmp(v[lo].id, id); lo++)
        hit = &v[lo];
    return hit;
}

static cJSON *exit_code(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

static int cmd_manifest(int argc, char **argv)
{
    const char *plan = NULL, *status = NULL, *out = NULL, *args_file = NULL, *v;
    cJSON *m = cJSON_CreateObject(), *cmd = cJSON_CreateArray();
    cJSON_AddStringToObject(m, "manifest_version", "gdrbench.cluster/1");
    int rc = 0;
    for (int i = 0; i < argc && !rc; i++) {
        if (opt(argc, argv, &i, "--plan", &v))
            plan = v;
        else if (opt(argc, argv, &i, "--status", &v))
            status = v;
        else if (opt(argc, argv, &i, "-o", &v))
            out = v;
        else if (opt(argc, argv, &i, "--args-file", &v))
            args_file = v;
        else if (opt(argc, argv, &i, "--arg", &v)) {
            if (v)
                cJSON_AddItemToArray(cmd, cJSON_CreateString(v));
        } else if (opt(argc, argv, &i, "--set", &v)) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (v && (!eq || eq == v))
                rc = usage_error("manifest: --set wants KEY=VALUE, not '%s'", v);
            else if (v) {
                char key[64];
                snprintf(key, sizeof(key), "%.*s", (int)(eq - v), v);
                cJSON_AddStringToObject(m, key, eq + 1);
            }
        } else
            rc = usage_error("manifest: unknown argument '%s'", argv[i]);
        if (!rc && missing_value)
            rc = usage_error("manifest: %s needs a value", missing_value);
    }
    if (!rc && (!plan || !status || !out))
        rc = usage_error("manifest: --plan, --status and -o are required");
    if (!rc && args_file) {
        FILE *f = fopen(args_file, "r");
        char line[4096];
        if (!f)
            rc = usage_error("manifest: %s: %s", args_file, strerror(errno));
        while (f && fgets(line, sizeof(line), f)) {
            line[strcspn(line, "\n")] = '\0';
            cJSON_AddItemToArray(cmd, cJSON_CreateString(line));
        }
        if (f)
            fclose(f);
    }
    cJSON_AddItemToObject(m, "command_line", cmd);
    struct gdr_plan p = {0};
    struct status_line *st = NULL;
    size_t nst = 0;
    if (!rc && gdr_plan_load(plan, &p))
        rc = report_error();
    if (!rc)
        rc = read_status(status, &st, &nst);
    if (rc) {
        cJSON_Delete(m);
        gdr_plan_free(&p);
        free(st);
        return rc;
    }
    cJSON *nodes = cJSON_AddArrayToObject(m, "nodes");
    for (size_t i = 0; i < p.nnodes; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(p.nodes[i]));
    cJSON *pl = cJSON_AddObjectToObject(m, "plan");
    cJSON_AddStringToObject(pl, "file", "plan.json");
    cJSON_AddNumberToObject(pl, "rounds", (double)p.nrounds);
    cJSON_AddNumberToObject(pl, "steps", (double)p.nsteps);
    cJSON_AddNumberToObject(pl, "estimated_s", p.estimated_s);
    cJSON *runs = cJSON_AddArrayToObject(m, "runs");
    size_t ok = 0, failed = 0, missing = 0;
    for (size_t i = 0; i < p.nruns; i++) {
        const struct gdr_plan_run *r = &p.runs[i];
        const struct status_line *s = find_status(st, nst, r->id);
        cJSON *o = cJSON_CreateObject();
        char tn[64], f[sizeof(r->id) + 16];
        gdr_test_mode_name(&r->test, tn, sizeof(tn));
        cJSON_AddStringToObject(o, "id", r->id);
        cJSON_AddStringToObject(o, "status", s ? s->status : "missing");
        cJSON_AddNumberToObject(o, "round", (double)r->round);
        cJSON_AddNumberToObject(o, "step", (double)r->step);
        cJSON_AddStringToObject(o, "test", tn);
        cJSON_AddNumberToObject(o, "rail", r->rail);
        cJSON_AddStringToObject(o, "client", p.nodes[r->client.node]);
        cJSON_AddStringToObject(o, "server", p.nodes[r->server.node]);
        cJSON_AddBoolToObject(o, "resumed", s && !strcmp(s->resumed, "true"));
        cJSON *ec = cJSON_AddObjectToObject(o, "exit_codes");
        cJSON_AddItemToObject(ec, "client", exit_code(s ? s->crc : ""));
        cJSON_AddItemToObject(ec, "server", exit_code(s ? s->src : ""));
        cJSON_AddNumberToObject(o, "duration_s", s ? s->duration : 0);
        if (s && *s->reason)
            cJSON_AddStringToObject(o, "reason", s->reason);
        else
            cJSON_AddNullToObject(o, "reason");
        cJSON *files = cJSON_AddObjectToObject(o, "files");
        snprintf(f, sizeof(f), "%s.client.json", r->id);
        cJSON_AddStringToObject(files, "client", f);
        snprintf(f, sizeof(f), "%s.server.json", r->id);
        cJSON_AddStringToObject(files, "server", f);
        cJSON_AddItemToArray(runs, o);
        if (!s)
            missing++;
        else if (!strcmp(s->status, "ok"))
            ok++;
        else
            failed++;
    }
    cJSON_AddNumberToObject(m, "planned", (double)p.nruns);
    cJSON_AddNumberToObject(m, "ok", (double)ok);
    cJSON_AddNumberToObject(m, "failed", (double)failed);
    cJSON_AddNumberToObject(m, "missing", (double)missing);
    rc = write_json(m, out);
    if (!rc)
        printf("planned %zu ok %zu failed %zu missing %zu\n", p.nruns, ok, failed, missing);
    cJSON_Delete(m);
    gdr_plan_free(&p);
    free(st);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("no command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("gdr-cluster-core (gdrbench) %s\n", PACKAGE_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"plan", cmd_plan},       {"plan-runs", cmd_plan_runs}, {"rails", cmd_rails},
        {"matrix", cmd_matrix},   {"suspects", cmd_suspects},   {"retest-runs", cmd_retest_runs},
        {"confirm", cmd_confirm}, {"manifest", cmd_manifest},   {"report", cmd_report},
    };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
