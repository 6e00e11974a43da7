/* Unit tests: dead nodes (cluster_health) from a synthetic manifest over a
 * real plan, and their verdicts after the retest (gdr_suspects_confirm). */
#include "config.h"

#include "unit.h"

#include "cluster_health.h"
#include "cluster_suspects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char names[8][GDR_NODE_NAME_LEN];
static struct gdr_plan plan;
static cJSON *man;

/* A full-pairing plan over n nodes, one test, one direction. */
static void make_plan(size_t n, bool quick)
{
    struct gdr_plan_opts o;
    memset(&o, 0, sizeof(o));
    for (size_t i = 0; i < n; i++)
        snprintf(names[i], sizeof(names[i]), "n%zu", i + 1);
    o.nnodes = n;
    o.nodes = (const char(*)[GDR_NODE_NAME_LEN])names;
    o.pairing = quick ? GDR_PAIRING_QUICK : GDR_PAIRING_FULL;
    o.ntests = 1;
    snprintf(o.tests[0].tool, 32, "write_bw");
    snprintf(o.tests[0].placement, 8, "H-H");
    snprintf(o.tests[0].gdr, 8, "na");
    o.one_direction = true;
    o.nsizes = 1;
    o.time_per_size_s = 1;
    o.base_port = 20000;
    assert_int_equal(gdr_plan_build(&o, &plan), 0);
    assert_int_equal(gdr_plan_expand(&plan), 0);
}

/* The manifest: every run ok, except those dead() says failed. */
static void make_manifest(bool (*dead)(const struct gdr_plan_run *r))
{
    man = cJSON_CreateObject();
    cJSON *runs = cJSON_AddArrayToObject(man, "runs");
    for (size_t i = 0; i < plan.nruns; i++) {
        cJSON *r = cJSON_CreateObject();
        bool failed = dead(&plan.runs[i]);
        cJSON_AddStringToObject(r, "id", plan.runs[i].id);
        cJSON_AddStringToObject(r, "status", failed ? "failed" : "ok");
        if (failed) {
            cJSON *f = cJSON_AddObjectToObject(r, "failure");
            cJSON_AddStringToObject(f, "class", plan.runs[i].round == 3 ? "exit" : "unreachable");
            cJSON_AddStringToObject(r, "reason", "boom");
        }
        cJSON_AddItemToArray(runs, r);
    }
}

static int teardown(void **state)
{
    (void)state;
    cJSON_Delete(man);
    man = NULL;
    gdr_plan_free(&plan);
    return 0;
}

static bool involves(const struct gdr_plan_run *r, size_t node)
{
    return r->client.node == node || r->server.node == node;
}

/* n3 works in rounds 1-2 and fails in every round from 3 on. */
static bool n3_dies_at_3(const struct gdr_plan_run *r)
{
    return involves(r, 2) && r->round >= 3;
}

static void test_dies_from_round_3(void **state)
{
    (void)state;
    make_plan(6, false);
    make_manifest(n3_dies_at_3);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_manifest(man, &plan, &h), 0);
    assert_int_equal(h.n, 1); /* its partners in those rounds ran elsewhere too */
    assert_int_equal(h.v[0].node, 2);
    assert_false(h.v[0].unreachable);
    assert_int_equal(h.v[0].since_round, 3);
    assert_int_equal(h.v[0].nfailed, 3); /* rounds 3, 4, 5 */
    assert_int_equal(h.v[0].npartners, 3);
    assert_non_null(strstr(h.v[0].why, "round 3: exit: boom"));
    assert_true(h.dead[2]);
    assert_int_equal(h.nfail[2], 3);
    cJSON *j = gdr_health_suspect_json(&h, 0, &plan, 0, 0, 20000);
    assert_string_equal(cJSON_GetObjectItem(j, "finding")->valuestring, "failed");
    const cJSON *rt = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "retest"), 0);
    assert_string_equal(cJSON_GetObjectItem(rt, "id")->valuestring,
                        "recheck1.1.write_bw.H-H.na.r0.n3_n1");
    cJSON_Delete(j);
    gdr_health_free(&h);
}

/* The same dead node from the manifest's sources: the status lines (in
 * plan order, one run missing) and the probe's file; and a manifest
 * written to a file, read one run at a time. */
static void test_from_status_and_file(void **state)
{
    (void)state;
    make_plan(6, false);
    make_manifest(n3_dies_at_3);
    char dir[] = "/tmp/test-health.XXXXXX", path[64], un[64], mf[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/status.tsv", dir);
    snprintf(un, sizeof(un), "%s/unreachable", dir);
    snprintf(mf, sizeof(mf), "%s/manifest.json", dir);
    FILE *f = fopen(path, "w");
    for (size_t i = 1; i < plan.nruns; i++) { /* the first run: missing */
        bool bad = n3_dies_at_3(&plan.runs[i]);
        fprintf(f, "%s\t%s\t%s\t0\t1\tfalse\t%s\t%s\t%s\n", plan.runs[i].id, bad ? "failed" : "ok",
                bad ? "1" : "0", bad ? "boom" : "",
                bad ? (plan.runs[i].round == 3 ? "exit" : "unreachable") : "-",
                bad ? "client" : "-");
    }
    fclose(f);
    f = fopen(un, "w");
    fputs("n6\trails probe: no answer\n", f);
    fclose(f);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_status(path, un, &plan, &h), 0);
    assert_int_equal(h.n, 2);
    assert_true(h.v[0].unreachable);
    assert_int_equal(h.v[0].node, 5);
    assert_int_equal(h.v[1].node, 2);
    assert_int_equal(h.v[1].since_round, 3);
    assert_non_null(strstr(h.v[1].why, "round 3: exit: boom"));
    gdr_health_free(&h);
    /* the manifest, from a file */
    char *txt = cJSON_Print(man);
    f = fopen(mf, "w");
    fputs(txt, f);
    fclose(f);
    free(txt);
    assert_int_equal(gdr_health_from_manifest_file(mf, &plan, &h), 0);
    assert_int_equal(h.n, 1);
    assert_int_equal(h.v[0].node, 2);
    assert_non_null(strstr(h.v[0].why, "round 3: exit: boom"));
    gdr_health_free(&h);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A node that fails once in the middle and works again is not dead. */
static bool n2_flaky(const struct gdr_plan_run *r)
{
    return involves(r, 1) && r->round == 2;
}

static void test_recovers(void **state)
{
    (void)state;
    make_plan(6, false);
    make_manifest(n2_flaky);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_manifest(man, &plan, &h), 0);
    assert_int_equal(h.n, 0);
    assert_int_equal(h.nfail[1], 1);
    gdr_health_free(&h);
}

/* Quick pairing: n2's only run fails; n2 and its only partner are both
 * candidates (the retest tells them apart). */
static bool n2_any(const struct gdr_plan_run *r)
{
    return involves(r, 1);
}

static void test_only_partner(void **state)
{
    (void)state;
    make_plan(4, true);
    make_manifest(n2_any);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_manifest(man, &plan, &h), 0);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.v[0].node, 1);
    assert_int_equal(h.v[1].node, 3); /* n4, n2's partner */
    gdr_health_free(&h);
}

/* Two dead nodes out of four: the healthy ones fail against both of them
 * at the end, and are their victims, not dead themselves. */
static bool two_dead(const struct gdr_plan_run *r)
{
    return involves(r, 2) || involves(r, 3);
}

static void test_victims(void **state)
{
    (void)state;
    make_plan(4, false);
    make_manifest(two_dead);
    cJSON *u = cJSON_AddArrayToObject(man, "unreachable");
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "node", "n1");
    cJSON_AddStringToObject(x, "reason", "rails probe: no answer");
    cJSON_AddItemToArray(u, x);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_manifest(man, &plan, &h), 0);
    assert_int_equal(h.n, 3);
    assert_true(h.v[0].unreachable);
    assert_int_equal(h.v[0].node, 0);
    assert_string_equal(h.v[0].why, "rails probe: no answer");
    assert_true(h.dead[2] && h.dead[3]);
    assert_false(h.dead[1]);
    gdr_health_free(&h);
}

/* The verdicts: the retest failed too, ran, or did not run. */
static void lookup(const cJSON *run, uint64_t size, struct gdr_retest_value *v, void *ctx)
{
    (void)size;
    const char *client =
        cJSON_GetObjectItem(cJSON_GetObjectItem(run, "client"), "node")->valuestring;
    const char *how = strstr((const char *)ctx, client) + strlen(client) + 1;
    if (*how == 'n')
        return; /* not run */
    v->ran = true;
    v->run_failed = *how == 'f';
    snprintf(v->reason, sizeof(v->reason), "unreachable: refused");
}

static void test_confirm(void **state)
{
    (void)state;
    make_plan(6, false);
    make_manifest(n3_dies_at_3);
    struct gdr_health h;
    assert_int_equal(gdr_health_from_manifest(man, &plan, &h), 0);
    cJSON *doc = cJSON_CreateObject();
    cJSON *ss = cJSON_AddArrayToObject(doc, "suspects");
    for (int k = 0; k < 3; k++)
        cJSON_AddItemToArray(ss, gdr_health_suspect_json(&h, 0, &plan, 0, (size_t)k, 20000));
    struct gdr_confirm_counts c;
    /* the same node three times: failed again, ran, not run */
    const char *plans[] = {"n3:f", "n3:o", "n3:n"};
    for (int k = 0; k < 3; k++) {
        cJSON *one = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(one, "suspects");
        cJSON_AddItemToArray(arr, cJSON_Duplicate(cJSON_GetArrayItem(ss, k), true));
        assert_int_equal(gdr_suspects_confirm(one, lookup, (void *)plans[k], &c), 0);
        const cJSON *sp = cJSON_GetArrayItem(arr, 0);
        const char *want[] = {"confirmed", "cleared", "unresolved"};
        assert_string_equal(cJSON_GetObjectItem(sp, "status")->valuestring, want[k]);
        if (k == 0)
            assert_non_null(strstr(cJSON_GetObjectItem(sp, "verdict")->valuestring,
                                   "failed; the retest against n1 failed too (unreachable"));
        cJSON_Delete(one);
    }
    cJSON_Delete(doc);
    gdr_health_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_dies_from_round_3, teardown),
        cmocka_unit_test_teardown(test_from_status_and_file, teardown),
        cmocka_unit_test_teardown(test_recovers, teardown),
        cmocka_unit_test_teardown(test_only_partner, teardown),
        cmocka_unit_test_teardown(test_victims, teardown),
        cmocka_unit_test_teardown(test_confirm, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
