/* Unit tests: cluster_agent, the agents' end lines as run status lines:
 * each failure class from its ends, an end its agent never ran (never
 * started, died before it) as unreachable naming the node, and an
 * interrupted run with an end missing as missing. */
#include "config.h"

#include "unit.h"

#include "cluster_agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char names[4][GDR_NODE_NAME_LEN] = {"a", "b", "c", "d"};
static char dir[64];

/* Full pairing of a, b, c, d; one test, one direction: 6 runs. */
static void make_plan(struct gdr_plan *p)
{
    struct gdr_plan_opts o;
    memset(&o, 0, sizeof(o));
    o.nnodes = 4;
    o.nodes = (const char(*)[GDR_NODE_NAME_LEN])names;
    o.ntests = 1;
    snprintf(o.tests[0].tool, 32, "write_bw");
    snprintf(o.tests[0].placement, 8, "H-H");
    snprintf(o.tests[0].gdr, 8, "na");
    o.one_direction = true;
    o.nsizes = 1;
    o.base_port = 18515;
    assert_int_equal(gdr_plan_build(&o, p), 0);
    assert_int_equal(gdr_plan_expand(p), 0);
    assert_int_equal(p->nruns, 6);
}

static void write_ends(const char *node, const char *text)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s.ends", dir, node);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The status line of the run between client c and server s. */
static char *line_of(const struct gdr_plan *p, const struct gdr_agents *a, size_t c, size_t s,
                     bool interrupted, char *buf, size_t len)
{
    for (size_t i = 0; i < p->nruns; i++) {
        if (p->runs[i].client.node != c || p->runs[i].server.node != s)
            continue;
        FILE *f = fmemopen(buf, len, "w");
        bool failed;
        bool have = gdr_agent_status_line(a, p, &p->runs[i], i, interrupted, f, &failed);
        fclose(f);
        return have ? buf : NULL;
    }
    fail_msg("no run %zu -> %zu", c, s);
    return NULL;
}

static void test_status_lines(void **state)
{
    (void)state;
    struct gdr_plan p;
    make_plan(&p);
    snprintf(dir, sizeof(dir), "/tmp/test-agent.XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* run ids: write_bw.H-H.na.r0.X_Y with X the lower node */
    write_ends("a", "# started a 11 0\n"
                    "write_bw.H-H.na.r0.a_b\tclient\t0\t2\tok\t\n"
                    "write_bw.H-H.na.r0.a_c\tclient\t1\t2\texit\tcannot connect to c:18515\n"
                    "write_bw.H-H.na.r0.a_d\tclient\t0\t2\tresult\tgdr-json check: no rows\n"
                    "# done\n");
    write_ends("b", "# started b 12 0\n"
                    "write_bw.H-H.na.r0.a_b\tserver\t0\t2\tok\t\n"
                    "write_bw.H-H.na.r0.b_c\tclient\t124\t9\ttimeout\tno exit within 9 s\n");
    write_ends("c", "# started c 13 0\n"
                    "write_bw.H-H.na.r0.a_c\tserver\t0\t2\tok\t\n"
                    "write_bw.H-H.na.r0.b_c\tserver\t0\t2\tok\t\n"
                    "write_bw.H-H.na.r0.c_d\tclient\t1\t2\texit\tconnection refused\n"
                    "# done\n");
    /* d never started: its agent could not reach the directory */
    struct gdr_agents a;
    assert_int_equal(gdr_agents_read(&p, dir, &a), 0);
    char buf[1024];
    assert_non_null(strstr(line_of(&p, &a, 0, 1, false, buf, sizeof(buf)),
                           "write_bw.H-H.na.r0.a_b\tok\t0\t0\t"));
    assert_non_null(strstr(line_of(&p, &a, 0, 2, false, buf, sizeof(buf)),
                           "\tfailed\t1\t0\t2\tfalse\tclient failed: cannot connect to "
                           "c:18515\texit\tclient\n"));
    assert_non_null(strstr(line_of(&p, &a, 1, 2, false, buf, sizeof(buf)), "\ttimeout\tclient\n"));
    /* a's result and d's missing end: the end never run names the class */
    char *l = line_of(&p, &a, 0, 3, false, buf, sizeof(buf));
    assert_non_null(strstr(l, "d never ran its end: its agent never started"));
    assert_non_null(strstr(l, "\tunreachable\tserver\n"));
    /* b's agent died (no '# done') before its run against d */
    l = line_of(&p, &a, 1, 3, false, buf, sizeof(buf));
    assert_non_null(strstr(l, "neither b nor d ran its end: b: its agent stopped before this run "
                              "(it died, or hung); d: its agent never started"));
    assert_non_null(strstr(l, "\tunreachable\tboth\n"));
    gdr_agents_free(&a);
    /* the reason an agent gave, when it never started (collect
     * --agent-errors) */
    assert_int_equal(gdr_agents_read(&p, dir, &a), 0);
    snprintf(a.why[3], sizeof(a.why[3]), "results directory /x not reachable");
    assert_non_null(strstr(line_of(&p, &a, 2, 3, false, buf, sizeof(buf)),
                           "d never ran its end: results directory /x not reachable; client: "
                           "connection refused\tunreachable\tserver\n"));
    /* interrupted: a run with an end missing did not finish */
    assert_null(line_of(&p, &a, 2, 3, true, buf, sizeof(buf)));
    assert_non_null(line_of(&p, &a, 0, 1, true, buf, sizeof(buf)));
    gdr_agents_free(&a);
    /* a line of another shape is bad input, named */
    write_ends("c", "write_bw.H-H.na.r0.a_c\tboth\t0\n");
    gdr_error_clear();
    assert_int_equal(gdr_agents_read(&p, dir, &a), -1);
    assert_error(GDR_EXIT_USAGE, "c.ends:1: not 'ID ROLE RC SECONDS STATE REASON'");
    snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
    assert_int_equal(system(buf), 0);
    gdr_plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
