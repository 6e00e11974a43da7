/* roles.h - who does what in a run, decided once.
 *
 * From the verb, the metric, which ends are staged (--gdr=off) and whether
 * the run is bidirectional, gdr_roles_for() says which end posts the timed
 * work requests, which posts receives, where the data starts (filled for
 * --validate) and where it lands (cleared and checked), whose measurement
 * is the row, which loop each end runs, the opcode and the receive depth.
 * The per-size protocol, the loops and the staged transfers read this
 * struct instead of testing the verb themselves. Pure: no I/O. */
#ifndef GDR_ROLES_H
#define GDR_ROLES_H

#include <stdbool.h>

#include <infiniband/verbs.h>

#include "test.h"

/* The ends, as a mask (a bidirectional role would be both). */
enum gdr_side {
    GDR_SIDE_NONE = 0,
    GDR_SIDE_CLIENT = 1,
    GDR_SIDE_SERVER = 2,
    GDR_SIDE_BOTH = 3,
};

/* The loop one end runs for a timed phase. */
enum gdr_loop {
    GDR_LOOP_NONE,            /* one-sided target: waits for SIZE_DONE */
    GDR_LOOP_SENDER,          /* pipelined posts, polls its send CQ */
    GDR_LOOP_RECEIVER,        /* keeps receives posted, times arrivals */
    GDR_LOOP_LATENCY,         /* one message at a time, a sample each */
    GDR_LOOP_STAGED_SOURCE,   /* units through bounce slots, waits for credits */
    GDR_LOOP_STAGED_DEST,     /* copies units out of slots, returns credits */
    GDR_LOOP_SENDER_RECEIVER, /* bidirectional send: both of the above at once */
    GDR_LOOP_STAGED_BOTH,     /* bidirectional staged: source and destination */
    GDR_LOOP_PINGPONG,        /* each end answers the other, one message at a time */
    GDR_LOOP_STAGED_READER,   /* staged read requester: reads into slots, copies on */
};

struct gdr_role_input {
    enum gdr_verb verb;
    enum gdr_metric metric;
    bool client_staged, server_staged; /* that end's buffer is behind a bounce ring */
    bool bidirectional;                /* both ends send at once */
    /* Write latency: the receiving ends learn of each write from a receive
     * completion (write with immediate), not by polling the buffer's last
     * byte. Ignored by the other tests. */
    bool cq_completion;
};

struct gdr_roles {
    unsigned poster;    /* posts the timed work requests (the requester) */
    unsigned receiver;  /* posts receives the data arrives in (sends) */
    unsigned source;    /* the data starts here: filled for --validate */
    unsigned dest;      /* the data lands here: cleared and checked */
    unsigned counter;   /* its measurement is the row */
    unsigned prestager; /* copies its data into its ring before the loop */
    enum gdr_loop client_loop, server_loop;
    enum ibv_wr_opcode opcode; /* what the poster posts */
    bool staged;               /* the staged protocol (units, credits) runs */
    bool dest_recv_has_data;   /* staged: the destination's receives hold the unit */
    bool one_in_flight;        /* latency: one message, one slot */
    bool bidirectional;        /* both ends post, receive and count one direction each */
    bool counted_on_arrival;   /* the row's numbers are the receiving end's (direct
                                 * send): client -> server is the server's measure */
    unsigned recv_per_tx;      /* receives per QP per --tx-depth entry (0: one) */
    unsigned min_iters;        /* fewest messages a phase may have */
    bool pingpong;             /* latency: each end answers the other's message */
    bool polls_memory;         /* ping-pong: arrivals are seen in the buffer's last
                                * byte (the source must hold a known pattern) */
};

/* Does an end's buffer hold two regions, one it sends from and one the
 * peer's data lands in? */
static inline bool gdr_roles_two_regions(const struct gdr_roles *r)
{
    return r->bidirectional || r->pingpong;
}

/* How a ping-pong end learns that a message has arrived (the JSON's
 * completion): "memory", the landing buffer's last byte changes; "cq", a
 * receive completion (send, write with immediate). NULL: no ping-pong. */
static inline const char *gdr_roles_completion(const struct gdr_roles *r)
{
    return !r->pingpong ? NULL : r->polls_memory ? "memory" : "cq";
}

/* 0 with *out filled, or -1 with *why saying which combination is not
 * supported (no end's loop could run it correctly). */
int gdr_roles_for(const struct gdr_role_input *in, struct gdr_roles *out, const char **why);

/* Does `side` (a mask) include this end? */
static inline bool gdr_role_mine(unsigned side, bool is_server)
{
    return (side & (is_server ? GDR_SIDE_SERVER : GDR_SIDE_CLIENT)) != 0;
}

const char *gdr_loop_name(enum gdr_loop loop);

#endif
