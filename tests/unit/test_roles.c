/* test_roles.c - who does what, for every (verb, metric, staged ends,
 * bidirectional): one row per combination, written out by hand from the
 * protocol (docs/architecture.md), not computed. */
#include "config.h"

#include "unit.h"

#include <stdio.h>

#include "roles.h"

enum { N = GDR_SIDE_NONE, C = GDR_SIDE_CLIENT, S = GDR_SIDE_SERVER, B = GDR_SIDE_BOTH };
enum { W = GDR_VERB_WRITE, R = GDR_VERB_READ, SD = GDR_VERB_SEND };
enum { BW = GDR_METRIC_BW, LAT = GDR_METRIC_LAT };
/* Loops and opcodes, short enough for one row per line. */
#define NONE GDR_LOOP_NONE
#define SNDR GDR_LOOP_SENDER
#define RCVR GDR_LOOP_RECEIVER
#define LTCY GDR_LOOP_LATENCY
#define SSRC GDR_LOOP_STAGED_SOURCE
#define SDST GDR_LOOP_STAGED_DEST
#define SNRC GDR_LOOP_SENDER_RECEIVER
#define SBTH GDR_LOOP_STAGED_BOTH
#define PING GDR_LOOP_PINGPONG
#define SRDR GDR_LOOP_STAGED_READER
#define OW IBV_WR_RDMA_WRITE
#define OWI IBV_WR_RDMA_WRITE_WITH_IMM
#define OR IBV_WR_RDMA_READ
#define OS IBV_WR_SEND
#define OSI IBV_WR_SEND_WITH_IMM

struct row {
    int verb, metric;
    bool cs, ss; /* client staged, server staged */
    bool ok;
    unsigned poster, receiver, source, dest, counter, prestager;
    enum gdr_loop client_loop, server_loop;
    enum ibv_wr_opcode opcode;
    bool staged, recv_has_data, one;
    unsigned recv_per_tx, min_iters;
    bool on_arrival; /* counted where it arrives */
    bool pp, mem;    /* a ping-pong; it polls memory for arrivals */
};

#define REJECT(v, m, c, s)                                                                         \
    {                                                                                              \
        v, m, c, s, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0                       \
    }

static const struct row rows[] = {
    /* verb, metric, client/server staged, ok,
     * posts, receives, source, dest, counts, pre-stages, client loop, server loop, opcode,
     * staged protocol, receive holds data, one in flight, receives per tx, least iters,
     * counted on arrival, ping-pong, polls memory */
    {W, BW, 0, 0, true, C, N, C, S, C, N, SNDR, NONE, OW, 0, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 1, 0, true, C, N, C, S, C, N, SSRC, SDST, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 0, 1, true, C, N, C, S, C, N, SSRC, SDST, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 1, 1, true, C, N, C, S, C, N, SSRC, SDST, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    /* Write latency: a ping-pong, each end writing back; staged ends copy
     * inside the loop. Arrivals in host memory: the last byte is polled. */
    {W, LAT, 0, 0, true, B, N, B, B, C, N, PING, PING, OW, 0, 0, 1, 0, 1, 0, 1, 1},
    {W, LAT, 1, 0, true, B, N, B, B, C, N, PING, PING, OW, 0, 0, 1, 0, 1, 0, 1, 1},
    {W, LAT, 0, 1, true, B, N, B, B, C, N, PING, PING, OW, 0, 0, 1, 0, 1, 0, 1, 1},
    {W, LAT, 1, 1, true, B, N, B, B, C, N, PING, PING, OW, 0, 0, 1, 0, 1, 0, 1, 1},

    {R, BW, 0, 0, true, C, N, S, C, C, N, SNDR, NONE, OR, 0, 0, 0, 0, 1, 0, 0, 0},
    /* A staged requester reads into its ring and copies on (the staged
     * reader); a staged responder pre-stages every slot the reads use. */
    {R, BW, 1, 0, true, C, N, S, C, C, N, SRDR, NONE, OR, 0, 0, 0, 0, 1, 0, 0, 0},
    {R, BW, 0, 1, true, C, N, S, C, C, S, SNDR, NONE, OR, 0, 0, 0, 0, 1, 0, 0, 0},
    {R, BW, 1, 1, true, C, N, S, C, C, S, SRDR, NONE, OR, 0, 0, 0, 0, 1, 0, 0, 0},
    {R, LAT, 0, 0, true, C, N, S, C, C, N, LTCY, NONE, OR, 0, 0, 1, 0, 1, 0, 0, 0},
    /* A staged requester copies each message on inside its sample; a
     * staged responder pre-stages its data before the reads. */
    {R, LAT, 1, 0, true, C, N, S, C, C, N, LTCY, NONE, OR, 0, 0, 1, 0, 1, 0, 0, 0},
    {R, LAT, 0, 1, true, C, N, S, C, C, S, LTCY, NONE, OR, 0, 0, 1, 0, 1, 0, 0, 0},
    {R, LAT, 1, 1, true, C, N, S, C, C, S, LTCY, NONE, OR, 0, 0, 1, 0, 1, 0, 0, 0},

    /* A direct send is counted where it arrives; a staged one at the
     * source, whose clock stops at the last credit. */
    {SD, BW, 0, 0, true, C, S, C, S, S, N, SNDR, RCVR, OS, 0, 0, 0, 4, 1, 1, 0, 0},
    {SD, BW, 1, 0, true, C, S, C, S, C, N, SSRC, SDST, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    {SD, BW, 0, 1, true, C, S, C, S, C, N, SSRC, SDST, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    {SD, BW, 1, 1, true, C, S, C, S, C, N, SSRC, SDST, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    /* Send latency: a ping-pong, both ends keep receives posted. */
    {SD, LAT, 0, 0, true, B, B, B, B, C, N, PING, PING, OS, 0, 0, 1, 4, 1, 0, 1, 0},
    {SD, LAT, 1, 0, true, B, B, B, B, C, N, PING, PING, OS, 0, 0, 1, 4, 1, 0, 1, 0},
    {SD, LAT, 0, 1, true, B, B, B, B, C, N, PING, PING, OS, 0, 0, 1, 4, 1, 0, 1, 0},
    {SD, LAT, 1, 1, true, B, B, B, B, C, N, PING, PING, OS, 0, 0, 1, 4, 1, 0, 1, 0},
};

/* Bidirectional (-b): both ends post, receive, fill, check and count one
 * direction each; read and latency runs are refused. */
static const struct row bi_rows[] = {
    {W, BW, 0, 0, true, B, N, B, B, B, N, SNDR, SNDR, OW, 0, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 1, 0, true, B, N, B, B, B, N, SBTH, SBTH, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 0, 1, true, B, N, B, B, B, N, SBTH, SBTH, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    {W, BW, 1, 1, true, B, N, B, B, B, N, SBTH, SBTH, OWI, 1, 0, 0, 0, 1, 0, 0, 0},
    {SD, BW, 0, 0, true, B, B, B, B, B, N, SNRC, SNRC, OS, 0, 0, 0, 4, 1, 1, 0, 0},
    {SD, BW, 1, 0, true, B, B, B, B, B, N, SBTH, SBTH, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    {SD, BW, 0, 1, true, B, B, B, B, B, N, SBTH, SBTH, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    {SD, BW, 1, 1, true, B, B, B, B, B, N, SBTH, SBTH, OSI, 1, 1, 0, 4, 1, 0, 0, 0},
    REJECT(W, LAT, 0, 0),
    REJECT(W, LAT, 1, 0),
    REJECT(W, LAT, 0, 1),
    REJECT(W, LAT, 1, 1),
    REJECT(R, BW, 0, 0),
    REJECT(R, BW, 1, 0),
    REJECT(R, BW, 0, 1),
    REJECT(R, BW, 1, 1),
    REJECT(R, LAT, 0, 0),
    REJECT(R, LAT, 1, 0),
    REJECT(R, LAT, 0, 1),
    REJECT(R, LAT, 1, 1),
    REJECT(SD, LAT, 0, 0),
    REJECT(SD, LAT, 1, 0),
    REJECT(SD, LAT, 0, 1),
    REJECT(SD, LAT, 1, 1),
};

/* Write latency where an end's CPU cannot poll its landing buffer (GPU
 * memory) or --write_with_imm: the write carries an immediate, both ends
 * keep receives posted for it. Every other test is the same with or
 * without the flag (its rows above, run again with it). */
static const struct row cq_rows[] = {
    {W, LAT, 0, 0, true, B, B, B, B, C, N, PING, PING, OWI, 0, 0, 1, 0, 1, 0, 1, 0},
    {W, LAT, 1, 0, true, B, B, B, B, C, N, PING, PING, OWI, 0, 0, 1, 0, 1, 0, 1, 0},
    {W, LAT, 0, 1, true, B, B, B, B, C, N, PING, PING, OWI, 0, 0, 1, 0, 1, 0, 1, 0},
    {W, LAT, 1, 1, true, B, B, B, B, C, N, PING, PING, OWI, 0, 0, 1, 0, 1, 0, 1, 0},
};

static void check_row(const struct row *w, bool bi, bool cq)
{
    struct gdr_role_input in = {.verb = w->verb,
                                .metric = w->metric,
                                .client_staged = w->cs,
                                .server_staged = w->ss,
                                .bidirectional = bi,
                                .cq_completion = cq};
    struct gdr_roles r;
    const char *why = "unset";
    char name[64];
    snprintf(name, sizeof(name), "%s/%s%s%s staged %d%d", gdr_verb_name(w->verb),
             w->metric == LAT ? "lat" : "bw", bi ? " -b" : "", cq ? " cq" : "", w->cs, w->ss);
    int rc = gdr_roles_for(&in, &r, &why);
    if (!w->ok) {
        if (rc != -1 || !why ||
            (!strstr(why, "not implemented") && !strstr(why, "only") &&
             !(bi && strstr(why, "bidirectional"))))
            fail_msg("%s: accepted (rc %d), expected a rejection", name, rc);
        return;
    }
    if (rc != 0)
        fail_msg("%s: rejected: %s", name, why);
#define SAME(field, want)                                                                          \
    if ((long)r.field != (long)(want))                                                             \
    fail_msg("%s: " #field " = %ld, expected %ld", name, (long)r.field, (long)(want))
    SAME(poster, w->poster);
    SAME(receiver, w->receiver);
    SAME(source, w->source);
    SAME(dest, w->dest);
    SAME(counter, w->counter);
    SAME(prestager, w->prestager);
    SAME(client_loop, w->client_loop);
    SAME(server_loop, w->server_loop);
    SAME(opcode, w->opcode);
    SAME(staged, w->staged);
    SAME(dest_recv_has_data, w->recv_has_data);
    SAME(one_in_flight, w->one);
    SAME(recv_per_tx, w->recv_per_tx);
    SAME(min_iters, w->min_iters);
    SAME(counted_on_arrival, w->on_arrival);
    SAME(bidirectional, bi);
    SAME(pingpong, w->pp);
    SAME(polls_memory, w->mem);
    if (gdr_roles_two_regions(&r) != (bi || w->pp))
        fail_msg("%s: two regions %d", name, gdr_roles_two_regions(&r));
#undef SAME
}

/* Every unidirectional combination has a row, and each row holds. */
static void test_every_combination(void **state)
{
    (void)state;
    size_t n = sizeof(rows) / sizeof(rows[0]);
    assert_int_equal(n, 3 * 2 * 2 * 2);
    for (int v = W; v <= SD; v++)
        for (int m = BW; m <= LAT; m++)
            for (int cs = 0; cs < 2; cs++)
                for (int ss = 0; ss < 2; ss++) {
                    size_t found = 0;
                    for (size_t i = 0; i < n; i++)
                        found += rows[i].verb == v && rows[i].metric == m && rows[i].cs == cs &&
                                 rows[i].ss == ss;
                    if (found != 1)
                        fail_msg("verb %d metric %d staged %d%d: %zu rows", v, m, cs, ss, found);
                }
    for (size_t i = 0; i < n; i++)
        check_row(&rows[i], false, false);
}

/* Write latency with completions from the CQ; the other tests ignore it. */
static void test_cq_completion(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cq_rows) / sizeof(cq_rows[0]); i++)
        check_row(&cq_rows[i], false, true);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (!(rows[i].verb == W && rows[i].metric == LAT))
            check_row(&rows[i], false, true);
}

/* Every bidirectional combination has a row, and each row holds. */
static void test_bidirectional(void **state)
{
    (void)state;
    size_t n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    assert_int_equal(n, 3 * 2 * 2 * 2);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (bi_rows[i].verb == bi_rows[j].verb && bi_rows[i].metric == bi_rows[j].metric &&
                bi_rows[i].cs == bi_rows[j].cs && bi_rows[i].ss == bi_rows[j].ss)
                fail_msg("bidirectional row %zu repeats row %zu", i, j);
        check_row(&bi_rows[i], true, false);
    }
}

/* The loops a row names always come in pairs that talk to each other. */
static void test_loops_pair_up(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct row *w = &rows[i];
        if (!w->ok)
            continue;
        bool staged_pair = w->client_loop == SSRC;
        assert_int_equal(staged_pair, w->server_loop == SDST);
        assert_int_equal(w->server_loop == RCVR, w->receiver == S && !staged_pair);
        /* A ping-pong is the same loop at both ends, each posting and each
         * a destination; everything else moves data one way. */
        assert_int_equal(w->client_loop == PING, w->server_loop == PING);
        assert_int_equal(w->client_loop == PING, w->poster == B && w->pp);
        assert_true(w->pp ? w->source == B && w->dest == B : w->source != w->dest);
        /* Only a requester runs the staged reader, and only for reads. */
        assert_true(w->client_loop != SRDR || (w->verb == R && w->cs && w->server_loop == NONE));
        assert_true(gdr_role_mine(w->counter, true) != gdr_role_mine(w->counter, false));
    }
    assert_true(gdr_role_mine(GDR_SIDE_BOTH, true) && gdr_role_mine(GDR_SIDE_BOTH, false));
    assert_false(gdr_role_mine(GDR_SIDE_NONE, true) || gdr_role_mine(GDR_SIDE_NONE, false));
    assert_string_equal(gdr_loop_name(GDR_LOOP_STAGED_DEST), "staged destination");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_every_combination),
        gdr_unit_test(test_cq_completion),
        gdr_unit_test(test_bidirectional),
        gdr_unit_test(test_loops_pair_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
