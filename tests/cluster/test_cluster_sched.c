/* Unit tests: cluster_sched (rounds of disjoint pairs) and cluster_plan
 * (rounds -> steps -> runs, JSON round trip, the shell's lines). */
#include "config.h"

#include "unit.h"

#include "cluster_plan.h"
#include "cluster_sched.h"
#include "cluster_suspects.h"

#include <stdio.h>
#include <stdlib.h>

/* Every round disjoint and at most max_pairs pairs; every unordered pair at
 * most once; returns how many distinct pairs the schedule holds. */
static size_t check_schedule(const struct gdr_schedule *s, size_t n, size_t max_pairs)
{
    unsigned char *seen = calloc(n * n + 1, 1);
    unsigned char *in_round = calloc(n + 1, 1);
    assert_non_null(seen);
    assert_non_null(in_round);
    size_t total = 0;
    for (size_t r = 0; r < s->nrounds; r++) {
        memset(in_round, 0, n);
        if (s->rounds[r].npairs > max_pairs)
            fail_msg("n=%zu round %zu has %zu pairs, limit %zu", n, r, s->rounds[r].npairs,
                     max_pairs);
        for (size_t p = 0; p < s->rounds[r].npairs; p++) {
            size_t a = s->rounds[r].pairs[p].a, b = s->rounds[r].pairs[p].b;
            if (a >= n || b >= n || a == b)
                fail_msg("n=%zu round %zu: bad pair %zu-%zu", n, r, a, b);
            if (in_round[a] || in_round[b])
                fail_msg("n=%zu round %zu: node twice", n, r);
            in_round[a] = in_round[b] = 1;
            size_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (seen[lo * n + hi]++)
                fail_msg("n=%zu: pair %zu-%zu twice", n, lo, hi);
            total++;
        }
    }
    free(seen);
    free(in_round);
    return total;
}

static void test_from_pairs(void **state)
{
    (void)state;
    const struct gdr_pair pairs[] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {0, 2}};
    struct gdr_schedule s;
    assert_int_equal(gdr_sched_from_pairs(4, pairs, 5, &s), 0);
    assert_int_equal(check_schedule(&s, 4, 2), 5);
    assert_int_equal(s.nrounds, 3); /* {0-1, 2-3}, {1-2, 0-3}, {0-2} */
    gdr_sched_free(&s);
    const struct gdr_pair bad[] = {{0, 4}};
    gdr_error_clear();
    assert_int_equal(gdr_sched_from_pairs(4, bad, 1, &s), -1);
    assert_error(GDR_EXIT_USAGE, "pair 1");
}

/* ---- plan ---- */

static const char names4[][GDR_NODE_NAME_LEN] = {"n1", "n2", "n3", "n4"};

static void two_rails(struct gdr_rail_map *maps, size_t n)
{
    memset(maps, 0, n * sizeof(*maps));
    for (size_t i = 0; i < n; i++) {
        maps[i].nrails = 2;
        for (int r = 0; r < 2; r++) {
            maps[i].rails[r].gpu = r;
            snprintf(maps[i].rails[r].gpu_bdf, sizeof(maps[i].rails[r].gpu_bdf), "0000:%02x:00.0",
                     0x1b + r * 0x20);
            snprintf(maps[i].rails[r].device, sizeof(maps[i].rails[r].device), "mlx5_%d", r * 3);
        }
    }
}

static void base_opts(struct gdr_plan_opts *o, struct gdr_rail_map *maps)
{
    memset(o, 0, sizeof(*o));
    o->nnodes = 4;
    o->nodes = names4;
    o->rails = maps;
    o->nrail_sel = 2;
    o->rail_sel[0] = 0;
    o->rail_sel[1] = 1;
    o->ntests = 2;
    snprintf(o->tests[0].tool, 32, "write_bw");
    snprintf(o->tests[0].placement, 8, "H-H");
    snprintf(o->tests[0].gdr, 8, "na");
    snprintf(o->tests[1].tool, 32, "write_bw");
    snprintf(o->tests[1].placement, 8, "D-D");
    snprintf(o->tests[1].gdr, 8, "on");
    o->nsizes = 3;
    o->time_per_size_s = 2;
    o->run_overhead_s = 1;
    o->base_port = 20000;
}

/* No node twice on one rail in a step; ids unique; no port twice on a node
 * in a step. */
static void check_plan_steps(const struct gdr_plan *p)
{
    for (size_t i = 0; i < p->nruns; i++)
        for (size_t j = i + 1; j < p->nruns; j++) {
            const struct gdr_plan_run *a = &p->runs[i], *b = &p->runs[j];
            if (!strcmp(a->id, b->id))
                fail_msg("id %s twice", a->id);
            if (a->round != b->round || a->step != b->step)
                continue;
            bool share_node = a->client.node == b->client.node ||
                              a->client.node == b->server.node ||
                              a->server.node == b->client.node || a->server.node == b->server.node;
            if (a->port == b->port && share_node)
                fail_msg("port %u twice on a node in round %zu step %zu", a->port, a->round,
                         a->step);
            if (a->rail != b->rail)
                continue;
            if (a->client.node == b->client.node || a->client.node == b->server.node ||
                a->server.node == b->client.node || a->server.node == b->server.node)
                fail_msg("a node twice on rail %d in round %zu step %zu", a->rail, a->round,
                         a->step);
        }
}

/* A soak cycles the rounds (full pairing of 4 nodes: 3) in rounds of
 * rotate_s until soak_s is spent, a round's 4 steps sharing its seconds;
 * the ids carry the soak round; the JSON round trip keeps it. */
static void test_plan_soak(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p, q;
    two_rails(maps, 4);
    base_opts(&o, maps);
    o.soak_s = 700;
    o.rotate_s = 100; /* 7 rounds: the 3 of the circle, twice, and one more */
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.cycle, 3);
    assert_int_equal(p.nrounds, 7);
    assert_int_equal(p.nruns, 7 * 16);
    check_plan_steps(&p);
    for (size_t i = 0; i < p.nruns; i++) {
        const struct gdr_plan_run *r = &p.runs[i], *again = &p.runs[(i + 3 * 16) % p.nruns];
        assert_int_equal(r->soak_s, 25); /* 100 s over 4 steps */
        char sr[16];
        snprintf(sr, sizeof(sr), ".s%zu.", r->round);
        assert_non_null(strstr(r->id, sr));
        if (i + 3 * 16 < p.nruns) { /* the round 3 on: the same pairs */
            assert_int_equal(again->client.node, r->client.node);
            assert_int_equal(again->server.node, r->server.node);
        }
    }
    assert_int_equal(gdr_plan_run_soak_s(&p, 8), 0);
    cJSON *j = gdr_plan_to_json(&p);
    assert_int_equal(gdr_plan_from_json(j, "test", &q), 0);
    assert_int_equal(q.nrounds, 7);
    assert_int_equal(q.nruns, p.nruns);
    assert_int_equal(gdr_plan_run_soak_s(&q, 7), 25);
    cJSON_Delete(j);
    gdr_plan_free(&q);
    gdr_plan_free(&p);
    /* default rotate: each round once; a rotate over the soak refused */
    o.rotate_s = 0;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(p.nrounds, 3);
    gdr_plan_free(&p);
    o.rotate_s = 701;
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    gdr_error_clear();
}

static void test_plan_counts_and_steps(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p;
    two_rails(maps, 4);
    base_opts(&o, maps);
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    /* 3 rounds x 2 pairs x 2 tests x 2 directions x 2 rails */
    assert_int_equal(p.nrounds, 3);
    assert_int_equal(p.nruns, 48);
    assert_int_equal(p.nsteps, 3 * 2 * 2);
    assert_near(p.estimated_s, 12 * (3 * 2 + 1), 1e-9);
    check_plan_steps(&p);
    /* Both directions of every pair, per test and rail. */
    size_t fwd = 0, rev = 0;
    for (size_t i = 0; i < p.nruns; i++) {
        fwd += p.runs[i].client.node < p.runs[i].server.node;
        rev += p.runs[i].client.node > p.runs[i].server.node;
    }
    assert_int_equal(fwd, 24);
    assert_int_equal(rev, 24);
    assert_string_equal(p.runs[0].id, "write_bw.H-H.na.r0.n1_n4");
    assert_string_equal(p.runs[1].client.device, "mlx5_3");
    assert_int_equal(p.runs[1].client.gpu, 1);
    gdr_plan_free(&p);

    o.rails_serial = true;
    o.one_direction = true;
    o.max_concurrent = 1;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.nrounds, 6);
    assert_int_equal(p.nruns, 6 * 2 * 2);
    assert_int_equal(p.nsteps, 6 * 2 * 2); /* one run per step: fully serial */
    check_plan_steps(&p);
    gdr_plan_free(&p);
}

static void test_plan_json_round_trip(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p, q;
    two_rails(maps, 4);
    base_opts(&o, maps);
    o.nnodes = 3; /* odd: a bye every round */
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.nrounds, 3);
    cJSON *j = gdr_plan_to_json(&p);
    assert_int_equal(gdr_plan_from_json(j, "plan", &q), 0);
    assert_int_equal(gdr_plan_expand(&q), 0);
    assert_int_equal(q.nruns, p.nruns);
    assert_int_equal(q.nrounds, p.nrounds);
    assert_int_equal(q.nsteps, p.nsteps);
    for (size_t i = 0; i < p.nruns; i++) {
        assert_string_equal(q.runs[i].id, p.runs[i].id);
        assert_int_equal(q.runs[i].round, p.runs[i].round);
        assert_int_equal(q.runs[i].step, p.runs[i].step);
        assert_int_equal(q.runs[i].port, p.runs[i].port);
        assert_string_equal(q.runs[i].server.device, p.runs[i].server.device);
        assert_string_equal(q.runs[i].server.gpu_bdf, p.runs[i].server.gpu_bdf);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gdr_plan_print_round(f, &q, 2), 0);
    fclose(f);
    assert_non_null(strstr(buf, "2\t1\twrite_bw.H-H.na.r0."));
    assert_null(strstr(buf, "\n1\t")); /* round 2 only */
    /* GPUs by bus id (CUDA_VISIBLE_DEVICES may renumber them), as rails
     * gave them; an older plan without one falls back to the index. */
    assert_non_null(strstr(buf, "\tmlx5_0\t0000:1b:00.0\t"));
    assert_null(strstr(buf, "\tmlx5_0\t0\t"));
    free(buf);
    q.runs[0].client.gpu_bdf[0] = '\0';
    f = open_memstream(&buf, &len);
    gdr_plan_print_run(f, &q, &q.runs[0]);
    fclose(f);
    assert_non_null(strstr(buf, "\tmlx5_0\t0\tn"));
    free(buf);
    /* What an end gives the benchmark (plan-runs, the agents' lines and
     * the retests alike): the bus id, else the index, else the default. */
    char gpu[GDR_BDF_LEN];
    assert_string_equal(gdr_plan_end_gpu(&q.runs[1].client, gpu, sizeof(gpu)), "0000:3b:00.0");
    assert_string_equal(gdr_plan_end_gpu(&q.runs[0].client, gpu, sizeof(gpu)), "0");
    q.runs[0].client.gpu = -1;
    assert_string_equal(gdr_plan_end_gpu(&q.runs[0].client, gpu, sizeof(gpu)), "-");
    /* A retest run names its ends' GPUs by bus id as well. */
    cJSON *rt = gdr_retest_run_json(&q, &q.runs[1].test, q.runs[1].rail, "retest", 0, 0,
                                    q.runs[1].client.node, q.runs[1].server.node, "node", 20000);
    struct gdr_plan_run back;
    assert_int_equal(gdr_plan_run_from_json(rt, &q, &back, "retest"), 0);
    assert_string_equal(back.client.gpu_bdf, "0000:3b:00.0");
    assert_string_equal(back.server.gpu_bdf, "0000:3b:00.0");
    cJSON_Delete(rt);
    /* A bus id that is no PCI address is refused (it becomes an argument). */
    cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rail_ends"), 1);
    cJSON_ReplaceItemInArray(cJSON_GetArrayItem(row, 0), 2, cJSON_CreateString("0000:1b:00.0 -x"));
    struct gdr_plan r;
    gdr_error_clear();
    assert_int_equal(gdr_plan_from_json(j, "plan", &r), -1);
    assert_error(GDR_EXIT_USAGE, "rail_ends[1][0]: the GPU's bus id is not a PCI address");
    cJSON_Delete(j);
    gdr_plan_free(&p);
    gdr_plan_free(&q);
}

static void test_plan_rejects(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p;
    two_rails(maps, 4);
    base_opts(&o, maps);
    o.nnodes = 1;
    gdr_error_clear();
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    assert_error(GDR_EXIT_USAGE, "at least two nodes");
    base_opts(&o, maps);
    maps[2].nrails = 1;
    gdr_error_clear();
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    assert_error(GDR_EXIT_USAGE, "node 'n3' has no rail 1");
    const char bad[][GDR_NODE_NAME_LEN] = {"a", "b_c"};
    base_opts(&o, maps);
    o.nnodes = 2;
    o.nodes = bad;
    gdr_error_clear();
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    assert_error(GDR_EXIT_USAGE, "'b_c'");
}

/* A node left out (unreachable) keeps its place in the node list and is in
 * no run; the others pair as if it were not there. */
static void test_plan_left_out(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p;
    const bool left[4] = {false, true, false, false};
    two_rails(maps, 4);
    maps[1].nrails = 0; /* no rails file from it */
    base_opts(&o, maps);
    o.left_out = left;
    o.ntests = 1;
    o.one_direction = true;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.nnodes, 4);
    assert_int_equal(p.nrounds, 3); /* 3 nodes: every pair once, one sits out */
    for (size_t i = 0; i < p.nruns; i++)
        assert_true(p.runs[i].client.node != 1 && p.runs[i].server.node != 1);
    assert_int_equal(p.nruns, 3 * 2);
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(p.meta, "left_out");
    assert_int_equal(cJSON_GetArraySize(lo), 1);
    assert_string_equal(cJSON_GetArrayItem(lo, 0)->valuestring, "n2");
    gdr_plan_free(&p);
    const bool three[4] = {true, true, true, false};
    o.left_out = three;
    gdr_error_clear();
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    assert_error(GDR_EXIT_USAGE, "at least two nodes, got 1");
}

/* Rails that share a NIC on some node run in separate steps (each would
 * measure a share of it), unless together on purpose: then each run knows
 * its share. */
static void test_plan_shared_nic(void **state)
{
    (void)state;
    struct gdr_rail_map maps[4];
    struct gdr_plan_opts o;
    struct gdr_plan p;
    two_rails(maps, 4);
    for (size_t i = 0; i < 4; i++) {
        maps[i].nrails = 3; /* GPUs 0 and 1 on mlx5_0, GPU 2 on mlx5_6 */
        for (int r = 0; r < 3; r++) {
            maps[i].rails[r].gpu = r;
            snprintf(maps[i].rails[r].device, sizeof(maps[i].rails[r].device), "%s",
                     r < 2 ? "mlx5_0" : "mlx5_6");
        }
    }
    base_opts(&o, maps);
    o.ntests = 1;
    o.one_direction = true;
    o.nrail_sel = 3;
    o.rail_sel[2] = 2;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.nsteps, 3 * 2); /* rails {0, 2} then {1}: two steps a round */
    check_plan_steps(&p);
    for (size_t i = 0; i < p.nruns; i++) {
        assert_int_equal(p.runs[i].nic_share, 1);
        assert_int_equal(p.runs[i].step, p.runs[i].rail == 1 ? 2 : 1);
    }
    gdr_plan_free(&p);
    o.shared_nic_together = true;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    assert_int_equal(gdr_plan_expand(&p), 0);
    assert_int_equal(p.nsteps, 3);
    for (size_t i = 0; i < p.nruns; i++)
        assert_int_equal(p.runs[i].nic_share, p.runs[i].rail == 2 ? 1 : 2);
    cJSON *j = gdr_plan_to_json(&p);
    struct gdr_plan back;
    assert_int_equal(gdr_plan_from_json(j, "plan", &back), 0);
    assert_int_equal(gdr_plan_expand(&back), 0);
    for (size_t i = 0; i < back.nruns; i++)
        assert_int_equal(back.runs[i].nic_share, p.runs[i].nic_share);
    gdr_plan_free(&back);
    cJSON_Delete(j);
    gdr_plan_free(&p);
}

/* A plan over n generated nodes, one test (write_bw H-H). */
static char many[4096][GDR_NODE_NAME_LEN];
static void many_opts(struct gdr_plan_opts *o, size_t n)
{
    memset(o, 0, sizeof(*o));
    for (size_t i = 0; i < n; i++)
        snprintf(many[i], sizeof(many[i]), "n%zu", i + 1);
    o->nnodes = n;
    o->nodes = (const char(*)[GDR_NODE_NAME_LEN])many;
    o->ntests = 1;
    snprintf(o->tests[0].tool, 32, "write_bw");
    snprintf(o->tests[0].placement, 8, "H-H");
    snprintf(o->tests[0].gdr, 8, "na");
    o->nsizes = 2;
    o->time_per_size_s = 2;
    o->run_overhead_s = 3;
    o->base_port = 18515;
}

/* The rounds of a plan over n nodes (one test), as a schedule: what
 * gdr_plan_round_pairs computes on demand for every round. */
static void plan_rounds(size_t n, enum gdr_pairing pairing, size_t max_concurrent,
                        struct gdr_schedule *s)
{
    struct gdr_plan_opts o;
    struct gdr_plan p;
    many_opts(&o, n);
    o.pairing = pairing;
    o.max_concurrent = max_concurrent;
    assert_int_equal(gdr_plan_build(&o, &p), 0);
    s->nrounds = p.nrounds;
    s->rounds = calloc(p.nrounds + 1, sizeof(*s->rounds));
    assert_non_null(s->rounds);
    for (size_t r = 0; r < p.nrounds; r++) {
        s->rounds[r].pairs = calloc(p.max_round_pairs + 1, sizeof(struct gdr_pair));
        assert_non_null(s->rounds[r].pairs);
        s->rounds[r].npairs = gdr_plan_round_pairs(&p, r + 1, s->rounds[r].pairs);
    }
    gdr_plan_free(&p);
}

/* Full pairing, the circle method: n-1 rounds (n for odd n) of n/2 pairs,
 * every pair exactly once. */
static void test_plan_full_2_to_512(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 512; n += n < 70 ? 1 : 31) {
        struct gdr_schedule s;
        plan_rounds(n, GDR_PAIRING_FULL, 0, &s);
        size_t want_rounds = n % 2 ? n : n - 1;
        if (s.nrounds != want_rounds)
            fail_msg("n=%zu: %zu rounds, expected %zu", n, s.nrounds, want_rounds);
        for (size_t r = 0; r < s.nrounds; r++)
            if (s.rounds[r].npairs != n / 2)
                fail_msg("n=%zu round %zu: %zu pairs, expected %zu", n, r, s.rounds[r].npairs,
                         n / 2);
        if (check_schedule(&s, n, n / 2) != n * (n - 1) / 2)
            fail_msg("n=%zu: not every pair", n);
        gdr_sched_free(&s);
    }
}

/* --max-concurrent k: each round cut into rounds of at most k pairs, no
 * pair lost or doubled. */
static void test_plan_split_keeps_pairs(void **state)
{
    (void)state;
    static const size_t ks[] = {1, 2, 3, 7, 64};
    for (size_t n = 2; n <= 200; n += (n < 40 ? 1 : 37)) {
        for (size_t k = 0; k < sizeof(ks) / sizeof(ks[0]); k++) {
            struct gdr_schedule s;
            plan_rounds(n, GDR_PAIRING_FULL, ks[k], &s);
            size_t per = n / 2 < ks[k] ? n / 2 : ks[k], base = n % 2 ? n : n - 1;
            if (s.nrounds != base * ((n / 2 + per - 1) / per))
                fail_msg("n=%zu k=%zu: %zu rounds after the split", n, ks[k], s.nrounds);
            if (check_schedule(&s, n, ks[k]) != n * (n - 1) / 2)
                fail_msg("n=%zu k=%zu: pairs lost in the split", n, ks[k]);
            gdr_sched_free(&s);
        }
    }
}

/* Quick pairing: one round, node i of the first half with i + n/2. */
static void test_plan_quick_halves(void **state)
{
    (void)state;
    for (size_t n = 2; n <= 65; n++) {
        struct gdr_schedule s;
        plan_rounds(n, GDR_PAIRING_QUICK, 0, &s);
        assert_int_equal(s.nrounds, 1);
        assert_int_equal(s.rounds[0].npairs, n / 2);
        assert_int_equal(check_schedule(&s, n, n / 2), n / 2);
        for (size_t i = 0; i < n / 2; i++) {
            const struct gdr_pair *q = &s.rounds[0].pairs[i];
            if ((q->a < q->b ? q->a : q->b) + n / 2 != (q->a < q->b ? q->b : q->a))
                fail_msg("n=%zu: pair %zu-%zu is not i with i + n/2", n, q->a, q->b);
        }
        gdr_sched_free(&s);
    }
}

/* random:15 on 4,096 nodes (and 4,095: a bye a round): every node meets 15
 * different partners (14 in the round it sits out), no pair twice, no node
 * twice in a round; with one direction each node is the client in about
 * half of its pairs; both directions: exactly half. */
static void test_random_coverage(void **state)
{
    (void)state;
    static const size_t ns[] = {4096, 4095, 16, 3};
    for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
        size_t n = ns[t], k = n > 16 ? 15 : n - 1;
        for (int dir = 0; dir < 2; dir++) {
            struct gdr_plan_opts o;
            struct gdr_plan p;
            many_opts(&o, n);
            o.pairing = GDR_PAIRING_RANDOM;
            o.random_k = k;
            o.seed = 42 + n;
            o.one_direction = dir == 0;
            assert_int_equal(gdr_plan_build(&o, &p), 0);
            assert_int_equal(gdr_plan_expand(&p), 0);
            assert_int_equal(p.nrounds, k);
            size_t *clients = calloc(n, sizeof(size_t)), *partners = calloc(n, sizeof(size_t));
            unsigned char *seen = calloc(n * n, 1), *in_round = calloc(n * (k + 1), 1);
            assert_true(clients && partners && seen && in_round);
            for (size_t i = 0; i < p.nruns; i++) {
                size_t c = p.runs[i].client.node, sv = p.runs[i].server.node, r = p.runs[i].round;
                clients[c]++;
                size_t lo = c < sv ? c : sv, hi = c < sv ? sv : c;
                if (!(seen[lo * n + hi] & (1 << (c > sv)))) {
                    if (!seen[lo * n + hi]) {
                        partners[lo]++;
                        partners[hi]++;
                    }
                    seen[lo * n + hi] |= (unsigned char)(1 << (c > sv));
                } else {
                    fail_msg("n=%zu: the run %zu -> %zu twice", n, c, sv);
                }
                if (dir == 1 && p.runs[i].step == 2)
                    continue; /* the reverse step of the round */
                if (in_round[c * (k + 1) + r] || in_round[sv * (k + 1) + r])
                    fail_msg("n=%zu round %zu: a node twice", n, r);
                in_round[c * (k + 1) + r] = in_round[sv * (k + 1) + r] = 1;
            }
            for (size_t v = 0; v < n; v++) {
                size_t want = n % 2 ? k - 1 : k;
                if (partners[v] != k && partners[v] != want)
                    fail_msg("n=%zu: node %zu met %zu partners, not %zu", n, v, partners[v], k);
                size_t half = partners[v] / 2;
                if (dir == 1 ? clients[v] != partners[v]
                             : clients[v] + 2 < half || clients[v] > partners[v] - half + 2)
                    fail_msg("n=%zu %s: node %zu is the client of %zu of its %zu pairs", n,
                             dir ? "both directions" : "one direction", v, clients[v], partners[v]);
            }
            free(clients);
            free(partners);
            free(seen);
            free(in_round);
            gdr_plan_free(&p);
        }
    }
    /* K larger than the nodes allow */
    struct gdr_plan_opts o;
    struct gdr_plan p;
    many_opts(&o, 8);
    o.pairing = GDR_PAIRING_RANDOM;
    o.random_k = 8;
    gdr_error_clear();
    assert_int_equal(gdr_plan_build(&o, &p), -1);
    assert_error(GDR_EXIT_USAGE, "8 nodes allow 1 to 7 partners");
}

struct node_walk {
    const struct gdr_plan *p;
    size_t node, count;
};

static int check_node_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct node_walk *w = ctx;
    const struct gdr_plan_run *x = &w->p->runs[ordinal];
    if (ordinal >= w->p->nruns || strcmp(x->id, r->id) || x->port != r->port ||
        x->step != r->step || x->round != r->round)
        fail_msg("node %zu: run %s at ordinal %zu is %s", w->node, r->id, ordinal, x->id);
    if (r->client.node != w->node && r->server.node != w->node)
        fail_msg("node %zu: run %s is not its", w->node, r->id);
    w->count++;
    return 0;
}

/* A node's own runs (the agent's) are the plan's, with their ordinals:
 * every pairing, split or not, odd and even. */
static void test_foreach_node(void **state)
{
    (void)state;
    const struct gdr_pair pairs[] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {0, 2}, {4, 6}};
    for (int kind = 0; kind < 4; kind++)
        for (size_t n = 7; n <= 8; n++)
            for (size_t maxc = 0; maxc <= 2; maxc += 2) {
                struct gdr_plan_opts o;
                struct gdr_plan p;
                many_opts(&o, n);
                o.pairing = kind == 0   ? GDR_PAIRING_FULL
                            : kind == 1 ? GDR_PAIRING_RANDOM
                            : kind == 2 ? GDR_PAIRING_QUICK
                                        : GDR_PAIRING_FILE;
                o.random_k = 4;
                o.seed = 9;
                o.pairs = pairs;
                o.npairs = 6;
                o.max_concurrent = maxc;
                assert_int_equal(gdr_plan_build(&o, &p), 0);
                assert_int_equal(gdr_plan_expand(&p), 0);
                check_plan_steps(&p);
                size_t total = 0;
                for (size_t v = 0; v < n; v++) {
                    struct node_walk w = {&p, v, 0};
                    assert_int_equal(gdr_plan_foreach_node(&p, v, check_node_run, &w), 0);
                    total += w.count;
                }
                if (total != 2 * p.nruns)
                    fail_msg("pairing %d n=%zu split %zu: %zu node runs for %zu runs", kind, n,
                             maxc, total, p.nruns);
                gdr_plan_free(&p);
            }
}

/* A plan file of the previous version: one line naming it. */
static void test_plan_v1_refused(void **state)
{
    (void)state;
    cJSON *j = cJSON_Parse("{\"plan_version\": \"gdrbench.cluster-plan/1\", \"nodes\": [\"a\"], "
                           "\"rounds\": []}");
    struct gdr_plan p;
    gdr_error_clear();
    assert_int_equal(gdr_plan_from_json(j, "old.json", &p), -1);
    assert_error(GDR_EXIT_USAGE, "old.json: plan_version 'gdrbench.cluster-plan/1'");
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_full_2_to_512),
        cmocka_unit_test(test_plan_split_keeps_pairs),
        cmocka_unit_test(test_plan_quick_halves),
        cmocka_unit_test(test_from_pairs),
        cmocka_unit_test(test_plan_counts_and_steps),
        cmocka_unit_test(test_plan_json_round_trip),
        cmocka_unit_test(test_plan_soak),
        cmocka_unit_test(test_plan_rejects),
        cmocka_unit_test(test_plan_left_out),
        cmocka_unit_test(test_plan_shared_nic),
        cmocka_unit_test(test_random_coverage),
        cmocka_unit_test(test_foreach_node),
        cmocka_unit_test(test_plan_v1_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
