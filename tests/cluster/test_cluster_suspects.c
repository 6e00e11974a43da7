/* Unit tests: cluster_suspects on synthetic matrices: noise that must not
 * be flagged, a bad node, link, rail and GDR path, a small cluster, the
 * absolute floor, the retest verdicts (confirmed, cleared by a serial
 * retest after contention, unresolved), and the run's one unit. */
#include "config.h"

#include "unit.h"

#include "cluster_digest.h"
#include "cluster_findings.h"
#include "cluster_suspects.h"

#include <stdio.h>
#include <stdlib.h>

#define RATE (100e9 / 8) /* a 100 Gb/s port, bytes/s */
#define GOOD (0.95 * RATE)

static char names[64][GDR_NODE_NAME_LEN];
static struct gdr_matrix_set set;
static struct gdr_detect_opts opts;
static struct gdr_detection det;
static unsigned long long lcg = 42;

/* +-3 % around 1, deterministic. */
static double noise(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return 0.97 + 0.06 * (double)(lcg >> 11) / (double)(1ull << 53);
}

static const struct gdr_test_mode HH = {"write_bw", "H-H", "na"};
static const struct gdr_test_mode DD = {"write_bw", "D-D", "on"};

/* A full matrix of noisy good cells, rounds from the circle method. */
static struct gdr_matrix *fill(const struct gdr_test_mode *t, int rail)
{
    struct gdr_matrix *m = gdr_matrix_get(&set, t, rail, 1 << 20, false);
    assert_non_null(m);
    for (size_t r = 0; r < gdr_sched_circle_rounds(set.n); r++)
        for (size_t i = 0; i < (set.n + 1) / 2; i++) {
            struct gdr_pair q;
            if (!gdr_sched_circle_slot(set.n, r, i, &q))
                continue; /* the bye */
            size_t a = q.a, b = q.b;
            for (int d = 0; d < 2; d++) {
                struct gdr_cell *c = gdr_matrix_put(m, d ? b : a, d ? a : b);
                assert_non_null(c);
                c->state = GDR_CELL_OK;
                c->value = GOOD * noise();
                c->round = r + 1;
                c->rate_bytes = RATE;
            }
        }
    assert_int_equal(gdr_matrix_finish(m), 0);
    return m;
}

/* The cell (c, s), which must be planned. */
static struct gdr_cell *cell(struct gdr_matrix *m, size_t c, size_t s)
{
    struct gdr_cell *x = gdr_cell_find(m, c, s);
    assert_non_null(x);
    return x;
}

static void scale_node(struct gdr_matrix *m, size_t i, double f)
{
    for (size_t p = 0; p < m->n; p++)
        if (p != i) {
            cell(m, i, p)->value *= f;
            cell(m, p, i)->value *= f;
        }
}

static int setup(void **state)
{
    (void)state;
    gdr_detect_opts_default(&opts);
    memset(&det, 0, sizeof(det));
    return 0;
}

static void start(size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(names[i], sizeof(names[i]), "n%zu", i + 1);
    assert_int_equal(gdr_matrix_set_init(&set, n, (const char(*)[GDR_NODE_NAME_LEN])names), 0);
}

static int teardown(void **state)
{
    (void)state;
    gdr_detection_free(&det);
    gdr_matrix_set_free(&set);
    return 0;
}

static void run_detect(void)
{
    gdr_error_clear();
    if (gdr_detect(&set, &opts, &det))
        fail_msg("gdr_detect: %s", gdr_error_message());
}

static const struct gdr_suspect *only_suspect(enum gdr_suspect_kind k)
{
    if (det.nsuspects != 1)
        fail_msg("%zu suspects, expected one (first: %s %zu-%zu)", det.nsuspects,
                 det.nsuspects ? gdr_suspect_kind_name(det.suspects[0].kind) : "-",
                 det.nsuspects ? det.suspects[0].a : 0, det.nsuspects ? det.suspects[0].b : 0);
    assert_int_equal(det.suspects[0].kind, k);
    return &det.suspects[0];
}

static void test_noise_not_flagged(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 40; n += 3) {
        start(n);
        fill(&HH, 0);
        fill(&HH, 1);
        fill(&DD, 0);
        run_detect();
        if (det.nsuspects)
            fail_msg("n=%zu: %zu suspects in noise (first %s %zu)", n, det.nsuspects,
                     gdr_suspect_kind_name(det.suspects[0].kind), det.suspects[0].a);
        assert_int_equal(det.nstats, 3);
        assert_true(det.stats[0].rounds[0].n > 0);
        gdr_detection_free(&det);
        gdr_matrix_set_free(&set);
    }
}

static void test_bad_node(void **state)
{
    (void)state;
    start(16);
    scale_node(fill(&HH, 0), 5, 0.6);
    scale_node(fill(&DD, 0), 5, 0.6);
    run_detect();
    const struct gdr_suspect *s = only_suspect(GDR_SUSPECT_NODE);
    assert_int_equal(s->a, 5);
    assert_int_equal(s->npartners, 15);
    assert_int_equal(s->nlow_partners, 15);
}

static void test_bad_link(void **state)
{
    (void)state;
    start(16);
    struct gdr_matrix *m = fill(&HH, 0);
    cell(m, 3, 9)->value *= 0.5;
    cell(m, 9, 3)->value *= 0.5;
    run_detect();
    const struct gdr_suspect *s = only_suspect(GDR_SUSPECT_LINK);
    assert_int_equal(s->a, 3);
    assert_int_equal(s->b, 9);
}

static void test_bad_rail(void **state)
{
    (void)state;
    start(8);
    fill(&HH, 0);
    scale_node(fill(&HH, 1), 2, 0.5);
    run_detect();
    const struct gdr_suspect *s = only_suspect(GDR_SUSPECT_RAIL);
    assert_int_equal(s->a, 2);
    assert_int_equal(set.m[det.stats[s->stats].matrix].rail, 1);
}

static void test_gdr_path(void **state)
{
    (void)state;
    start(8);
    fill(&HH, 0);
    scale_node(fill(&DD, 0), 4, 0.5);
    run_detect();
    const struct gdr_suspect *s = only_suspect(GDR_SUSPECT_GDR);
    assert_int_equal(s->a, 4);
    assert_false(s->gdr_not_in_effect);
    gdr_detection_free(&det);
    gdr_matrix_set_free(&set);

    /* Fast enough, but GDR was not in effect on node 7's end (staged). */
    start(8);
    fill(&HH, 0);
    struct gdr_matrix *m = fill(&DD, 0);
    cell(m, 6, 0)->gdr_off[0] = true;
    run_detect();
    s = only_suspect(GDR_SUSPECT_GDR);
    assert_int_equal(s->a, 6);
    assert_true(s->gdr_not_in_effect);
}

/* Three nodes: the bad one is in two of the three links, the median would
 * follow it; the reference is the nodes' best links. */
static void test_small_cluster(void **state)
{
    (void)state;
    start(3);
    scale_node(fill(&HH, 0), 1, 0.5);
    run_detect();
    assert_int_equal(only_suspect(GDR_SUSPECT_NODE)->a, 1);
    gdr_detection_free(&det);
    gdr_matrix_set_free(&set);
    start(2); /* two nodes: cannot tell node from link */
    scale_node(fill(&HH, 0), 0, 0.5);
    opts.min_link_frac = 0.9;
    run_detect();
    only_suspect(GDR_SUSPECT_LINK);
}

static void test_floor(void **state)
{
    (void)state;
    start(8);
    struct gdr_matrix *m = fill(&HH, 0);
    for (size_t i = 0; i < 8; i++)
        scale_node(m, i, 0.95); /* everyone at ~81 % of the port */
    opts.min_link_frac = 0;
    run_detect();
    assert_int_equal(det.nsuspects, 0);
    gdr_detection_free(&det);
    opts.min_link_frac = 0.9;
    run_detect();
    assert_int_equal(det.nsuspects, 8);
    for (size_t k = 0; k < 8; k++)
        assert_int_equal(det.suspects[k].kind, GDR_SUSPECT_NODE);
}

/* --min-pct-of-limit: every cell at ~81 % of its limit passes the
 * statistics (all alike) but not an absolute rule of 90 %; unknown limits
 * are never low by it. */
static void test_pct_of_limit(void **state)
{
    (void)state;
    start(8);
    struct gdr_matrix *m = fill(&HH, 0);
    for (size_t i = 0; i < m->ncells; i++)
        m->cells[i].limit = m->cells[i].value / 0.81;
    opts.min_link_frac = 0;
    run_detect();
    assert_int_equal(det.nsuspects, 0);
    gdr_detection_free(&det);
    opts.min_pct_of_limit = 90;
    run_detect();
    assert_int_equal(det.nsuspects, 8);
    gdr_detection_free(&det);
    for (size_t i = 0; i < m->ncells; i++)
        m->cells[i].limit = 0;
    run_detect();
    assert_int_equal(det.nsuspects, 0);
    opts.min_pct_of_limit = 0;
}

/* ---- retest verdicts ---- */

struct fake_retest {
    const char *node_low; /* runs with this node are low */
    bool missing;
};

static void lookup(const cJSON *run, uint64_t size, struct gdr_retest_value *v, void *ctx)
{
    const struct fake_retest *f = ctx;
    (void)size;
    if (f->missing)
        return;
    const char *c = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "client"), "node")->valuestring;
    const char *s = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "server"), "node")->valuestring;
    v->found = true;
    v->rate_bytes = RATE;
    v->value =
        GOOD * ((f->node_low && (!strcmp(c, f->node_low) || !strcmp(s, f->node_low))) ? 0.5 : 1);
}

static cJSON *suspects_json(size_t n)
{
    struct gdr_plan_opts po;
    memset(&po, 0, sizeof(po));
    po.nnodes = n;
    po.nodes = (const char(*)[GDR_NODE_NAME_LEN])names;
    po.ntests = 1;
    po.tests[0] = HH;
    po.nsizes = 1;
    struct gdr_plan p;
    assert_int_equal(gdr_plan_build(&po, &p), 0);
    cJSON *j = gdr_detection_to_json(&det, &set, &p, &opts, 19000);
    gdr_plan_free(&p);
    return j;
}

/* suspects.json lists the cells whose NIC counted errors (clean 0) of a
 * sparse matrix: only those, not an unknown one (-1) nor a failed one. */
static void test_not_clean_listed(void **state)
{
    (void)state;
    start(8);
    struct gdr_matrix *m = fill(&HH, 0);
    for (size_t i = 0; i < m->ncells; i++)
        m->cells[i].clean = 1;
    cell(m, 1, 4)->clean = 0;
    cell(m, 6, 0)->clean = 0;
    cell(m, 2, 3)->clean = -1;
    cell(m, 5, 7)->clean = 0;
    cell(m, 5, 7)->state = GDR_CELL_FAILED;
    run_detect();
    cJSON *j = suspects_json(8);
    const cJSON *nc =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "matrices"), 0), "not_clean");
    assert_int_equal(cJSON_GetArraySize(nc), 2);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(nc, 0), 0)->valuestring, "n2");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(nc, 0), 1)->valuestring, "n5");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(nc, 1), 0)->valuestring, "n7");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(nc, 1), 1)->valuestring, "n1");
    cJSON_Delete(j);
}

static void test_confirm_bad_node(void **state)
{
    (void)state;
    start(8);
    scale_node(fill(&HH, 0), 3, 0.6);
    run_detect();
    cJSON *j = suspects_json(8);
    cJSON *sp = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "suspects"), 0);
    assert_string_equal(cJSON_GetObjectItem(sp, "kind")->valuestring, "node");
    cJSON *rt = cJSON_GetObjectItem(sp, "retest");
    assert_int_equal(cJSON_GetArraySize(rt), 3); /* two low partners and a third node */
    const cJSON *r;
    cJSON_ArrayForEach(r, rt) {
        const char *c = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "client"), "node")->valuestring;
        const char *s = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "server"), "node")->valuestring;
        assert_true(!strcmp(c, "n4") || !strcmp(s, "n4"));
    }
    assert_string_not_equal(cJSON_GetObjectItem(sp, "third_node")->valuestring, "n4");
    struct fake_retest f = {"n4", false};
    struct gdr_confirm_counts c;
    assert_int_equal(gdr_suspects_confirm(j, lookup, &f, &c), 0);
    assert_int_equal(c.confirmed, 1);
    assert_string_equal(cJSON_GetObjectItem(sp, "status")->valuestring, "confirmed");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(rt, 0), "low")));
    /* Judged again with nothing found: unresolved. */
    f.missing = true;
    assert_int_equal(gdr_suspects_confirm(j, lookup, &f, &c), 0);
    assert_int_equal(c.unresolved, 1);
    assert_int_equal(
        (int)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "unresolved")->valuedouble, 1);
    cJSON_Delete(j);
}

/* A link slow only in its parallel round (contention): flagged, then
 * cleared by the serial retest; its controls go through a third node. */
static void test_contention_clears(void **state)
{
    (void)state;
    start(10);
    struct gdr_matrix *m = fill(&HH, 0);
    size_t r1 = gdr_cell_at(m, 0, 9)->round;
    for (size_t a = 0; a < 10; a++)
        for (size_t b = 0; b < 10; b++)
            if (a != b && gdr_cell_at(m, a, b)->round == r1 && (a == 2 || b == 2))
                cell(m, a, b)->value *= 0.4; /* node 3's pair in round r1 */
    run_detect();
    const struct gdr_suspect *s = only_suspect(GDR_SUSPECT_LINK);
    assert_true(s->a == 2 || s->b == 2);
    cJSON *j = suspects_json(10);
    cJSON *sp = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "suspects"), 0);
    cJSON *rt = cJSON_GetObjectItem(sp, "retest");
    assert_int_equal(cJSON_GetArraySize(rt), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rt, 1), "role")->valuestring,
                        "control");
    struct fake_retest f = {NULL, false};
    struct gdr_confirm_counts c;
    assert_int_equal(gdr_suspects_confirm(j, lookup, &f, &c), 0);
    assert_int_equal(c.cleared, 1);
    assert_int_equal(c.confirmed, 0);
    assert_string_equal(cJSON_GetObjectItem(sp, "status")->valuestring, "cleared");
    cJSON_Delete(j);
}

/* ---- sparse matrices: random:15 on 4,096 nodes ---- */

static char big[4096][GDR_NODE_NAME_LEN];

struct fill_ctx {
    struct gdr_matrix *m;
    size_t bad_node, link_a, link_b;
};

static int put_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    struct fill_ctx *f = ctx;
    struct gdr_cell *c = gdr_matrix_put(f->m, r->client.node, r->server.node);
    assert_non_null(c);
    c->state = GDR_CELL_OK;
    c->round = (uint32_t)r->round;
    c->rate_bytes = RATE;
    c->value = GOOD * noise();
    bool link = (r->client.node == f->link_a && r->server.node == f->link_b) ||
                (r->client.node == f->link_b && r->server.node == f->link_a);
    if (r->client.node == f->bad_node || r->server.node == f->bad_node || link)
        c->value *= 0.5;
    return 0;
}

/* The cells of a random:15 plan (both directions): node 100 at half speed
 * with every partner, and one link (the first pair of round 3) at half
 * speed: a node suspect low against all 15 of its partners, and one link
 * suspect; nothing else. */
static void test_sparse_4096(void **state)
{
    (void)state;
    size_t n = 4096;
    for (size_t i = 0; i < n; i++)
        snprintf(big[i], sizeof(big[i]), "n%zu", i + 1);
    struct gdr_plan_opts po;
    memset(&po, 0, sizeof(po));
    po.nnodes = n;
    po.nodes = (const char(*)[GDR_NODE_NAME_LEN])big;
    po.ntests = 1;
    po.tests[0] = HH;
    po.nsizes = 1;
    po.base_port = 18515;
    po.pairing = GDR_PAIRING_RANDOM;
    po.random_k = 15;
    po.seed = 11;
    struct gdr_plan p;
    assert_int_equal(gdr_plan_build(&po, &p), 0);
    struct gdr_pair *pairs = calloc(p.max_round_pairs + 1, sizeof(*pairs));
    assert_non_null(pairs);
    size_t np = gdr_plan_round_pairs(&p, 3, pairs);
    assert_true(np > 0);
    struct fill_ctx f = {NULL, 100, pairs[0].a, pairs[0].b};
    if (f.link_a == 100 || f.link_b == 100)
        f = (struct fill_ctx){NULL, 100, pairs[1].a, pairs[1].b};
    free(pairs);
    assert_int_equal(gdr_matrix_set_init(&set, n, (const char(*)[GDR_NODE_NAME_LEN])big), 0);
    f.m = gdr_matrix_get(&set, &HH, 0, 1 << 20, false);
    assert_non_null(f.m);
    assert_int_equal(gdr_plan_foreach(&p, 0, put_run, &f), 0);
    assert_int_equal(gdr_matrix_finish(f.m), 0);
    assert_int_equal(f.m->ncells, n * 15);
    run_detect();
    assert_int_equal(det.nsuspects, 2);
    assert_int_equal(det.suspects[0].kind, GDR_SUSPECT_NODE);
    assert_int_equal(det.suspects[0].a, 100);
    assert_int_equal(det.suspects[0].npartners, 15);
    assert_int_equal(det.suspects[0].nlow_partners, 15);
    assert_int_equal(det.suspects[1].kind, GDR_SUSPECT_LINK);
    size_t lo = f.link_a < f.link_b ? f.link_a : f.link_b;
    size_t hi = f.link_a < f.link_b ? f.link_b : f.link_a;
    assert_int_equal(det.suspects[1].a, lo);
    assert_int_equal(det.suspects[1].b, hi);
    assert_int_equal(det.stats[0].nrounds, 15);
    gdr_plan_free(&p);
}

/* The heatmap's ratio column is its cell's value over the reference to
 * six digits, a far slow node's too: at four decimals a node at 2.4 % of
 * the reference read 0.0241 for 0.02405 (0.2 % off; cluster-lab failed
 * on it). */
static void test_heat_ratio_digits(void **state)
{
    (void)state;
    start(3);
    struct gdr_matrix *m = fill(&HH, 0);
    scale_node(m, 2, 0.02405);
    const double ref = GOOD;
    char dir[] = "/tmp/test-heat.XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(gdr_matrix_write_heat(&set, &ref, dir), 0);
    char path[256], line[256];
    snprintf(path, sizeof(path), "%s/heat-write_bw.H-H.na-1048576-r0.dat", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned x, y;
        double ratio, value;
        if (sscanf(line, "%u %u %lf %lf", &x, &y, &ratio, &value) != 4 || isnan(ratio))
            continue;
        n++;
        if (fabs(ratio * ref - value) > 1e-5 * value)
            fail_msg("cell %u %u: ratio %g, value %g, reference %g", x, y, ratio, value, ref);
    }
    fclose(f);
    assert_int_equal(n, 6);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Over GDR_HEAT_FULL_MAX nodes the heatmap is drawn in blocks, each its
 * worst pair, and the worst nodes' own cells come at full resolution. */
static void test_heat_blocks(void **state)
{
    (void)state;
    start(64);
    gdr_matrix_set_free(&set);
    size_t n = 300;
    for (size_t i = 0; i < n; i++)
        snprintf(big[i], sizeof(big[i]), "n%zu", i + 1);
    assert_int_equal(gdr_matrix_set_init(&set, n, (const char(*)[GDR_NODE_NAME_LEN])big), 0);
    struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 0, 1 << 20, false);
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            if (a != b && (a + b) % 7 == 0) {
                struct gdr_cell *c = gdr_matrix_put(m, a, b);
                c->state = GDR_CELL_OK;
                c->value = GOOD * (a == 250 || b == 250 ? 0.5 : 1) * noise();
            }
    assert_int_equal(gdr_matrix_finish(m), 0);
    char dir[] = "/tmp/test-heat.XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(gdr_matrix_write_heat(&set, NULL, dir), 0);
    char path[256], line[256];
    snprintf(path, sizeof(path), "%s/layout-write_bw.H-H.na-1048576-r0.dat", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof(line), f));
    fclose(f);
    assert_string_equal(line, "blocks 60 size 5 nodes 300\n");
    /* blocks (50, y) and (x, 50) hold node 250's cells: its worst is about 0.5 */
    snprintf(path, sizeof(path), "%s/heat-write_bw.H-H.na-1048576-r0.dat", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    size_t lines = 0, low = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned x, y;
        double ratio;
        if (sscanf(line, "%u %u %lf", &x, &y, &ratio) != 3)
            continue;
        lines++;
        if (ratio < 0.7 && x != 50 && y != 50)
            fail_msg("block %u %u: %.2f, none of node 250's", x, y, ratio);
        low += ratio < 0.7;
    }
    fclose(f);
    assert_int_equal(lines, 60 * 60);
    assert_true(low > 0);
    snprintf(path, sizeof(path), "%s/topnames-write_bw.H-H.na-1048576-r0.txt", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof(line), f));
    fclose(f);
    assert_string_equal(line, "n251\n");
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static bool low_below_07(const void *ctx, const struct gdr_cell *c)
{
    return c->state == GDR_CELL_OK && c->value < *(const double *)ctx * 0.7;
}

/* The one heatmap grid (the figures' data and the cluster page): a cell
 * holds its worst measured pair, failed and low when any pair is,
 * unreachable only where nothing ran and a node was left out. */
static void test_heat_grid(void **state)
{
    (void)state;
    for (int blocked = 0; blocked < 2; blocked++) {
        /* blocked: 3 nodes a block side (GDR_HEAT_FULL_MAX 64 < 130) */
        size_t n = blocked ? 130 : 4, b = blocked ? 3 : 1;
        for (size_t i = 0; i < n; i++)
            snprintf(big[i], sizeof(big[i]), "n%zu", i + 1);
        assert_int_equal(gdr_matrix_set_init(&set, n, (const char(*)[GDR_NODE_NAME_LEN])big), 0);
        struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 0, 1 << 20, false);
        /* nodes 0..2 measure each other; 1 -> 2 at half speed; 0 -> 1
         * failed; node 3 was left out and ran nothing */
        for (size_t a = 0; a < 3; a++)
            for (size_t c = 0; c < 3; c++)
                if (a != c) {
                    struct gdr_cell *x = gdr_matrix_put(m, a, c);
                    x->state = a == 0 && c == 1 ? GDR_CELL_FAILED : GDR_CELL_OK;
                    x->value = a == 1 && c == 2 ? GOOD / 2 : GOOD;
                }
        set.left_out[3] = true;
        if (blocked) { /* node 4, in node 3's block, measured node 0 */
            struct gdr_cell *x = gdr_matrix_put(m, 4, 0);
            x->state = GDR_CELL_OK;
            x->value = GOOD;
        }
        assert_int_equal(gdr_matrix_finish(m), 0);
        const double ref = GOOD;
        struct gdr_heat_grid g;
        assert_int_equal(gdr_heat_grid(&set, m, ref, low_below_07, &ref, &g), 0);
        assert_int_equal(g.block, b);
        assert_int_equal(g.side, (n + b - 1) / b);
        const struct gdr_heat_cell *c12 = &g.cell[(1 / b) * g.side + 2 / b];
        assert_true(fabs(c12->ratio - 0.5) < 1e-9 && c12->value == GOOD / 2 && c12->low);
        const struct gdr_heat_cell *c01 = &g.cell[(0 / b) * g.side + 1 / b];
        assert_true(c01->failed);
        /* full: the failed pair alone, nothing measured; blocked: its
         * block's worst measured pair is the slow one */
        assert_true(blocked ? c01->ratio == 0.5 : isnan(c01->ratio));
        const struct gdr_heat_cell *c03 = &g.cell[(0 / b) * g.side + 3 / b];
        const struct gdr_heat_cell *c30 = &g.cell[(3 / b) * g.side + 0 / b];
        /* node 3 ran nothing: its cells are unreachable, not "not run";
         * blocked, a block where node 4 ran shows that pair instead */
        assert_true(c03->unreachable && isnan(c03->ratio));
        assert_true(blocked ? !c30->unreachable && c30->ratio == 1 : c30->unreachable);
        size_t unreachable = 0;
        for (size_t i = 0; i < g.side * g.side; i++)
            unreachable += g.cell[i].unreachable;
        /* full: row and column of node 3, not its diagonal (a node with
         * itself); blocked: block 1's row and column less the one where
         * node 4 ran */
        assert_false(!blocked && g.cell[3 * g.side + 3].unreachable);
        assert_int_equal(unreachable, blocked ? 2 * g.side - 2 : 6);
        gdr_heat_grid_free(&g);
        gdr_matrix_set_free(&set);
    }
}

/* One bandwidth unit a run, from its largest reference (figure.h): a
 * 100 Gb/s fabric reads GB/s, the lab's few MB/s read MB/s, in
 * suspects.json's "units" and in every number of report.md. */
static void test_run_unit(void **state)
{
    (void)state;
    static const struct {
        double scale;
        const char *unit, *other, *ref;
    } runs[] = {{1, "GB/s", "MB/s", "11.9 GB/s"}, {3e6 / GOOD, "MB/s", "GB/s", "3.00 MB/s"}};
    for (size_t r = 0; r < 2; r++) {
        start(8);
        struct gdr_matrix *m = fill(&HH, 0);
        for (size_t i = 0; i < m->ncells; i++) {
            m->cells[i].value = GOOD * runs[r].scale;
            m->cells[i].rate_bytes = RATE * runs[r].scale;
        }
        struct gdr_plan_opts po = {.nnodes = 8,
                                   .nodes = (const char(*)[GDR_NODE_NAME_LEN])names,
                                   .ntests = 1,
                                   .tests = {HH},
                                   .nsizes = 1,
                                   .base_port = 18515};
        struct gdr_plan p;
        assert_int_equal(gdr_plan_build(&po, &p), 0);
        cJSON *doc = gdr_findings_ensure(NULL, &p, &set, &opts, NULL, NULL, 8);
        assert_non_null(doc);
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(doc, "units");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(u, "bandwidth")),
                            runs[r].unit);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(u, "latency")), "\xc2\xb5s");
        char *md = NULL, row[64];
        size_t len = 0;
        FILE *f = open_memstream(&md, &len);
        assert_non_null(f);
        gdr_cluster_digest(f, &p, doc, &(struct gdr_digest_input){.title = ""});
        assert_int_equal(fclose(f), 0);
        snprintf(row, sizeof(row), "| n1 | %s |", runs[r].ref);
        if (!strstr(md, row) || strstr(md, runs[r].other) || strstr(md, "Gb/s"))
            fail_msg("want %s, no %s:\n%s", row, runs[r].other, md);
        free(md);
        cJSON_Delete(doc);
        gdr_plan_free(&p);
        gdr_matrix_set_free(&set);
    }
}

/* A soak: a link with an outage flaps; a node whose links flapped with two
 * partners is the node (its links put down to it), one with a single
 * partner is not; dips alone flap nothing; the same partner on two rails
 * is one partner. */
static void test_soak_judge(void **state)
{
    (void)state;
    struct gdr_soak_link l[] = {
        {0, 1, 0, 1, 0, -1},                      /* 0-1: a link alone */
        {2, 3, 0, 2, 0, -1},                      /* node 3, with 2 and 4 */
        {3, 4, 0, 1, 1, -1}, {4, 5, 0, 0, 3, -1}, /* dips only */
        {5, 6, 0, 1, 0, -1},                      /* 6 with 5 on two rails: one partner */
        {5, 6, 1, 1, 0, -1},
    };
    bool flap[8];
    assert_int_equal(gdr_soak_judge(8, l, 6, flap), 1);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(flap[i], i == 3);
    assert_int_equal(l[0].node, -1);
    assert_int_equal(l[1].node, 3);
    assert_int_equal(l[2].node, 3);
    assert_int_equal(l[3].node, -1);
    assert_int_equal(l[4].node, -1);
    assert_int_equal(l[5].node, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_noise_not_flagged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_rail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gdr_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_cluster, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pct_of_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_clean_listed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_confirm_bad_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contention_clears, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_4096, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heat_ratio_digits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heat_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heat_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_unit, setup, teardown),
        cmocka_unit_test(test_soak_judge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
