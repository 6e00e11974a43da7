/* Unit tests: cluster_aggregate, the node-pair bandwidth summed over the
 * rails, on computed plans (cluster_plan.h) and their sparse matrices:
 * exact sums and min/median/max, a failed rail or a rail without a cell
 * leaving its pair out (counted, not summed as zero), rails run one after
 * the other (--rails-serial) flagged as not concurrent, latency matrices
 * and unplanned pairs left out, one aggregate per size, and a random:15
 * plan of 1,024 nodes with 8 rails (every planned pair once, no other). */
#include "config.h"

#include "unit.h"

#include "cluster_aggregate.h"

#include <stdio.h>
#include <stdlib.h>

static const char names[3][GDR_NODE_NAME_LEN] = {"a", "b", "c"};
static const struct gdr_test_mode HH = {"write_bw", "H-H", "na"};
static const struct gdr_test_mode LAT = {"read_lat", "H-H", "na"};

static struct gdr_rail_map maps[3];
static struct gdr_plan plan;
static struct gdr_matrix_set set;

/* Two rails on their own NICs (one step unless rails_serial), H-H, full
 * pairing of a, b, c. */
static void make(bool one_direction, bool rails_serial)
{
    memset(maps, 0, sizeof(maps));
    for (size_t i = 0; i < 3; i++) {
        maps[i].nrails = 2;
        for (int r = 0; r < 2; r++) {
            maps[i].rails[r].gpu = r;
            snprintf(maps[i].rails[r].gpu_bdf, sizeof(maps[i].rails[r].gpu_bdf), "0000:%02x:00.0",
                     0x1b + r * 0x20);
            snprintf(maps[i].rails[r].device, sizeof(maps[i].rails[r].device), "mlx5_%d", r * 3);
        }
    }
    struct gdr_plan_opts o = {.nnodes = 3,
                              .nodes = names,
                              .rails = maps,
                              .nrail_sel = 2,
                              .rail_sel = {0, 1},
                              .rails_serial = rails_serial,
                              .ntests = 1,
                              .tests = {HH},
                              .one_direction = one_direction,
                              .nsizes = 1,
                              .time_per_size_s = 1,
                              .base_port = 20000};
    assert_int_equal(gdr_plan_build(&o, &plan), 0);
    assert_int_equal(gdr_matrix_set_init(&set, 3, names), 0);
}

struct fill_ctx {
    uint64_t size;
    long skip_c, skip_s, skip_rail; /* a cell left out (its document lacked the size) */
};

/* Rail 0 moves 10 + client, rail 1 20 + server (GB/s), for every planned run. */
static int put_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    const struct fill_ctx *f = ctx;
    if ((long)r->client.node == f->skip_c && (long)r->server.node == f->skip_s &&
        r->rail == f->skip_rail)
        return 0;
    struct gdr_matrix *m = gdr_matrix_get(&set, &r->test, r->rail, f->size, false);
    assert_non_null(m);
    struct gdr_cell *cell = gdr_matrix_put(m, r->client.node, r->server.node);
    assert_non_null(cell);
    cell->state = GDR_CELL_OK;
    cell->round = (uint32_t)r->round;
    cell->value =
        (r->rail == 0 ? 10.0 + (double)r->client.node : 20.0 + (double)r->server.node) * 1e9;
    return 0;
}

static void fill_but(uint64_t size, long c, long s, long rail)
{
    struct fill_ctx f = {size, c, s, rail};
    assert_int_equal(gdr_plan_foreach(&plan, 0, put_run, &f), 0);
    assert_int_equal(gdr_matrix_set_finish(&set), 0);
}

static void fill(uint64_t size)
{
    fill_but(size, -1, -1, -1);
}

static int teardown(void **state)
{
    (void)state;
    gdr_matrix_set_free(&set);
    gdr_plan_free(&plan);
    return 0;
}

static void test_sums(void **state)
{
    (void)state;
    make(false, false);
    fill(1 << 20);
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_int_equal(a.count, 1);
    const struct gdr_aggregate *g = &a.a[0];
    assert_int_equal(g->nrails, 2);
    assert_int_equal(g->npairs, 6);
    assert_int_equal(g->ncomplete, 6);
    /* Sums 30 + c + s over (c, s) in {01, 02, 10, 12, 20, 21}: 31 32 31 33 32 33. */
    assert_near(g->min, 31e9, 1);
    assert_near(g->max, 33e9, 1);
    assert_near(g->median, 32e9, 1);
    assert_true(g->concurrent);
    for (size_t k = 0; k < g->npairs; k++) {
        const struct gdr_aggregate_pair *p = &g->pairs[k];
        assert_near(p->sum, (30.0 + (double)p->client + (double)p->server) * 1e9, 1);
        assert_int_equal(p->rails, 2);
        assert_int_equal(p->rails_ok, 2);
        assert_true(p->concurrent);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(gdr_aggregate_write(f, &a, &set), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "aggregate_version")->valuestring,
                        GDR_AGGREGATE_VERSION);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "aggregates"), 0);
    assert_string_equal(cJSON_GetObjectItem(first, "test")->valuestring, "write_bw.H-H.na");
    assert_near(cJSON_GetObjectItem(first, "median_bytes_per_s")->valuedouble, 32e9, 1);
    const cJSON *pairs = cJSON_GetObjectItem(first, "per_pair");
    assert_int_equal(cJSON_GetArraySize(pairs), 6);
    const cJSON *p0 = cJSON_GetArrayItem(pairs, 0); /* a -> b: 30 + 0 + 1 */
    assert_string_equal(cJSON_GetObjectItem(p0, "client")->valuestring, "a");
    assert_string_equal(cJSON_GetObjectItem(p0, "server")->valuestring, "b");
    assert_near(cJSON_GetObjectItem(p0, "sum_bytes_per_s")->valuedouble, 31e9, 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p0, "concurrent")));
    cJSON_Delete(j);
    gdr_aggregate_free(&a);
}

static void test_failed_rail(void **state)
{
    (void)state;
    make(false, false);
    fill(1 << 20);
    /* b -> c lost rail 1: it is left out, not summed as 22 GB/s short. */
    struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 1, 1 << 20, false);
    gdr_cell_find(m, 1, 2)->state = GDR_CELL_FAILED;
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    const struct gdr_aggregate *g = &a.a[0];
    assert_int_equal(g->npairs, 6);
    assert_int_equal(g->ncomplete, 5);
    assert_near(g->min, 31e9, 1);
    assert_near(g->max, 33e9, 1);
    assert_near(g->median, 32e9, 1); /* 31 31 32 32 33 */
    bool seen = false;
    for (size_t k = 0; k < g->npairs; k++)
        if (g->pairs[k].client == 1 && g->pairs[k].server == 2) {
            assert_int_equal(g->pairs[k].rails_ok, 1);
            assert_near(g->pairs[k].sum, 11e9, 1);
            seen = true;
        }
    assert_true(seen);
    gdr_aggregate_free(&a);
}

static void test_rail_without_cell(void **state)
{
    (void)state;
    make(false, false);
    /* c -> a has no rail 0 cell at this size: a rail not measured. */
    fill_but(1 << 20, 2, 0, 0);
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    const struct gdr_aggregate *g = &a.a[0];
    assert_int_equal(g->npairs, 6);
    assert_int_equal(g->ncomplete, 5);
    for (size_t k = 0; k < g->npairs; k++)
        if (g->pairs[k].client == 2 && g->pairs[k].server == 0) {
            assert_int_equal(g->pairs[k].rails, 2);
            assert_int_equal(g->pairs[k].rails_ok, 1);
        }
    gdr_aggregate_free(&a);
}

static void test_serial_rails(void **state)
{
    (void)state;
    /* --rails-serial: each rail in a step of its own, so no pair's sum is
     * what it moved at once. */
    make(false, true);
    fill(1 << 20);
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_false(a.a[0].concurrent);
    assert_int_equal(a.a[0].ncomplete, 6);
    for (size_t k = 0; k < a.a[0].npairs; k++)
        assert_false(a.a[0].pairs[k].concurrent);
    gdr_aggregate_free(&a);
}

static void test_skips_latency_and_unplanned(void **state)
{
    (void)state;
    make(true, false); /* one direction: three of the six ordered pairs */
    fill(1 << 20);
    fill(1 << 16);
    struct gdr_matrix *l = gdr_matrix_get(&set, &LAT, 0, 8, true);
    struct gdr_cell *c = gdr_matrix_put(l, 0, 1);
    c->state = GDR_CELL_OK;
    c->value = 2e-6;
    assert_int_equal(gdr_matrix_finish(l), 0);
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.a[0].size, 1 << 16);
    assert_int_equal(a.a[1].size, 1 << 20);
    assert_int_equal(a.a[0].npairs, 3);
    for (size_t k = 0; k < 3; k++)
        assert_true(a.a[0].pairs[k].client < 3 && a.a[0].pairs[k].server < 3);
    gdr_aggregate_free(&a);
}

static void test_nothing_complete(void **state)
{
    (void)state;
    make(true, false);
    fill(1 << 20);
    struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 0, 1 << 20, false);
    for (size_t i = 0; i < m->ncells; i++)
        m->cells[i].state = GDR_CELL_FAILED;
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_int_equal(a.a[0].npairs, 3);
    assert_int_equal(a.a[0].ncomplete, 0);
    assert_true(isnan(a.a[0].median));
    assert_false(a.a[0].concurrent);
    /* no complete pair: null, not NaN (which is no JSON) */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gdr_aggregate_write(f, &a, &set), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    assert_non_null(j);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "aggregates"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(first, "median_bytes_per_s")));
    cJSON_Delete(j);
    gdr_aggregate_free(&a);
}

/* random:15 over 1,024 nodes, 8 rails: every planned ordered pair once
 * (15 partners x 2 directions per node), each with its 8 rails. */
static int put_big(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    (void)ordinal;
    struct gdr_matrix_set *s = ctx;
    struct gdr_matrix *m = gdr_matrix_get(s, &r->test, r->rail, 1 << 20, false);
    struct gdr_cell *c = m ? gdr_matrix_put(m, r->client.node, r->server.node) : NULL;
    if (!c)
        return -1;
    c->state = GDR_CELL_OK;
    c->value = 40e9;
    return 0;
}

static void test_sparse_at_scale(void **state)
{
    (void)state;
    enum { N = 1024, R = 8 };
    char(*nodes)[GDR_NODE_NAME_LEN] = calloc(N, sizeof(*nodes));
    struct gdr_rail_map *big = calloc(N, sizeof(*big));
    assert_non_null(nodes);
    assert_non_null(big);
    for (size_t i = 0; i < N; i++) {
        snprintf(nodes[i], GDR_NODE_NAME_LEN, "n%04zu", i);
        big[i].nrails = R;
        for (int r = 0; r < R; r++) {
            big[i].rails[r].gpu = r;
            snprintf(big[i].rails[r].device, sizeof(big[i].rails[r].device), "mlx5_%d", r);
        }
    }
    struct gdr_plan_opts o = {.nnodes = N,
                              .nodes = (const char(*)[GDR_NODE_NAME_LEN])nodes,
                              .rails = big,
                              .pairing = GDR_PAIRING_RANDOM,
                              .random_k = 15,
                              .seed = 3,
                              .nrail_sel = R,
                              .rail_sel = {0, 1, 2, 3, 4, 5, 6, 7},
                              .ntests = 1,
                              .tests = {HH},
                              .nsizes = 1,
                              .time_per_size_s = 1,
                              .base_port = 20000};
    struct gdr_plan p;
    struct gdr_matrix_set s;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_matrix_set_init(&s, N, (const char(*)[GDR_NODE_NAME_LEN])nodes), 0);
    assert_int_equal(gdr_plan_foreach(&p, 0, put_big, &s), 0);
    assert_int_equal(gdr_matrix_set_finish(&s), 0);
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&p, &s, &a), 0);
    assert_int_equal(a.count, 1);
    assert_int_equal(a.a[0].npairs, N * 15);
    assert_int_equal(a.a[0].ncomplete, N * 15);
    assert_near(a.a[0].median, R * 40e9, 1);
    assert_true(a.a[0].concurrent);
    gdr_aggregate_free(&a);
    gdr_matrix_set_free(&s);
    gdr_plan_free(&p);
    free(nodes);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_sums, teardown),
        cmocka_unit_test_teardown(test_failed_rail, teardown),
        cmocka_unit_test_teardown(test_rail_without_cell, teardown),
        cmocka_unit_test_teardown(test_serial_rails, teardown),
        cmocka_unit_test_teardown(test_skips_latency_and_unplanned, teardown),
        cmocka_unit_test_teardown(test_nothing_complete, teardown),
        cmocka_unit_test(test_sparse_at_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
