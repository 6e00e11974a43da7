/* Unit tests: cluster_aggregate, the node-pair bandwidth summed over the
 * rails, on hand-made plans and matrices: exact sums and min/median/max,
 * a failed rail leaving its pair out (counted, not summed as zero), rails
 * run one after the other flagged as not concurrent, latency matrices and
 * unplanned pairs left out, one aggregate per size. */
#include "config.h"

#include "unit.h"

#include "cluster_aggregate.h"

#include <stdio.h>
#include <stdlib.h>

static char names[3][GDR_NODE_NAME_LEN] = {"a", "b", "c"};
static const struct gdr_test_mode HH = {"write_bw", "H-H", "na"};
static const struct gdr_test_mode LAT = {"read_lat", "H-H", "na"};

static struct gdr_plan plan;
static struct gdr_plan_run runs[64];
static struct gdr_matrix_set set;

/* Every ordered pair on rails 0 and 1, both rails in one step. */
static void make(bool one_direction)
{
    size_t n = 0;
    for (size_t c = 0; c < 3; c++)
        for (size_t s = 0; s < 3; s++) {
            if (c == s || (one_direction && c > s))
                continue;
            for (int rail = 0; rail < 2; rail++) {
                struct gdr_plan_run *r = &runs[n++];
                memset(r, 0, sizeof(*r));
                r->test = HH;
                r->rail = rail;
                r->client.node = c;
                r->server.node = s;
                r->round = 1 + c;
                r->step = 1 + s;
            }
        }
    memset(&plan, 0, sizeof(plan));
    plan.nnodes = 3;
    plan.nodes = names;
    plan.runs = runs;
    plan.nruns = n;
    assert_int_equal(gdr_matrix_set_init(&set, 3, (const char(*)[GDR_NODE_NAME_LEN])names), 0);
}

/* Rail 0 moves 10 + client, rail 1 20 + server (GB/s), for every planned pair. */
static void fill(uint64_t size)
{
    for (int rail = 0; rail < 2; rail++) {
        struct gdr_matrix *m = gdr_matrix_get(&set, &HH, rail, size, false);
        assert_non_null(m);
        for (size_t i = 0; i < plan.nruns; i++) {
            if (plan.runs[i].rail != rail)
                continue;
            size_t c = plan.runs[i].client.node, s = plan.runs[i].server.node;
            struct gdr_cell *cell = gdr_cell_at(m, c, s);
            cell->state = GDR_CELL_OK;
            cell->value = (rail == 0 ? 10.0 + (double)c : 20.0 + (double)s) * 1e9;
        }
    }
}

static int teardown(void **state)
{
    (void)state;
    gdr_matrix_set_free(&set);
    return 0;
}

static void test_sums(void **state)
{
    (void)state;
    make(false);
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
    }
    cJSON *j = gdr_aggregate_to_json(&a, &set);
    assert_non_null(j);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "aggregates"), 0);
    assert_string_equal(cJSON_GetObjectItem(first, "test")->valuestring, "write_bw.H-H.na");
    assert_near(cJSON_GetObjectItem(first, "median_bytes_per_s")->valuedouble, 32e9, 1);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(first, "per_pair")), 6);
    cJSON_Delete(j);
    gdr_aggregate_free(&a);
}

static void test_failed_rail(void **state)
{
    (void)state;
    make(false);
    fill(1 << 20);
    /* b -> c lost rail 1: it is left out, not summed as 22 GB/s short. */
    struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 1, 1 << 20, false);
    gdr_cell_at(m, 1, 2)->state = GDR_CELL_FAILED;
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

static void test_serial_rails(void **state)
{
    (void)state;
    make(false);
    fill(1 << 20);
    /* Rail 1 of c -> a ran a step later: that pair is not concurrent. */
    for (size_t i = 0; i < plan.nruns; i++)
        if (runs[i].client.node == 2 && runs[i].server.node == 0 && runs[i].rail == 1)
            runs[i].step++;
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_false(a.a[0].concurrent);
    size_t serial = 0;
    for (size_t k = 0; k < a.a[0].npairs; k++)
        serial += !a.a[0].pairs[k].concurrent;
    assert_int_equal(serial, 1);
    gdr_aggregate_free(&a);
}

static void test_skips_latency_and_unplanned(void **state)
{
    (void)state;
    make(true); /* a -> b, a -> c, b -> c only */
    fill(1 << 20);
    fill(1 << 16);
    struct gdr_matrix *l = gdr_matrix_get(&set, &LAT, 0, 8, true);
    gdr_cell_at(l, 0, 1)->state = GDR_CELL_OK;
    gdr_cell_at(l, 0, 1)->value = 2e-6;
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.a[0].size, 1 << 16);
    assert_int_equal(a.a[1].size, 1 << 20);
    assert_int_equal(a.a[0].npairs, 3);
    assert_near(a.a[0].min, 31e9, 1);
    assert_near(a.a[0].max, 33e9, 1);
    gdr_aggregate_free(&a);
}

static void test_nothing_complete(void **state)
{
    (void)state;
    make(true);
    fill(1 << 20);
    struct gdr_matrix *m = gdr_matrix_get(&set, &HH, 0, 1 << 20, false);
    for (size_t i = 0; i < 9; i++)
        m->cells[i].state = GDR_CELL_FAILED;
    struct gdr_aggregate_set a;
    assert_int_equal(gdr_aggregate_compute(&plan, &set, &a), 0);
    assert_int_equal(a.a[0].ncomplete, 0);
    assert_true(isnan(a.a[0].median));
    assert_false(a.a[0].concurrent);
    gdr_aggregate_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_sums, teardown),
        cmocka_unit_test_teardown(test_failed_rail, teardown),
        cmocka_unit_test_teardown(test_serial_rails, teardown),
        cmocka_unit_test_teardown(test_skips_latency_and_unplanned, teardown),
        cmocka_unit_test_teardown(test_nothing_complete, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
