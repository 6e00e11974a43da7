/* roles.c - who does what, from (verb, metric, staged ends, bidirectional).
 * The table this computes is in docs/architecture.md and, row by row, in
 * tests/unit/test_roles.c. */
#include "config.h"

#include "roles.h"

#include <string.h>

const char *gdr_loop_name(enum gdr_loop loop)
{
    switch (loop) {
    case GDR_LOOP_NONE: return "none";
    case GDR_LOOP_SENDER: return "sender";
    case GDR_LOOP_RECEIVER: return "receiver";
    case GDR_LOOP_LATENCY: return "latency";
    case GDR_LOOP_STAGED_SOURCE: return "staged source";
    case GDR_LOOP_STAGED_DEST: return "staged destination";
    case GDR_LOOP_SENDER_RECEIVER: return "sender and receiver";
    case GDR_LOOP_STAGED_BOTH: return "staged source and destination";
    case GDR_LOOP_PINGPONG: return "ping-pong";
    case GDR_LOOP_STAGED_READER: return "staged reader";
    }
    return "?";
}

static enum ibv_wr_opcode direct_opcode(enum gdr_verb verb)
{
    switch (verb) {
    case GDR_VERB_WRITE: return IBV_WR_RDMA_WRITE;
    case GDR_VERB_READ: return IBV_WR_RDMA_READ;
    case GDR_VERB_SEND: break;
    }
    return IBV_WR_SEND;
}

/* Both ends do what the client does one way, and receive what the server
 * receives; each counts one direction (the one it sends, or for a direct
 * send the one it receives, as one way). */
static int bidirectional(const struct gdr_role_input *in, bool staged, struct gdr_roles *out)
{
    bool send = in->verb == GDR_VERB_SEND;
    out->bidirectional = true;
    out->poster = out->source = out->dest = out->counter = GDR_SIDE_BOTH;
    out->receiver = send ? GDR_SIDE_BOTH : GDR_SIDE_NONE;
    out->min_iters = 1;
    out->recv_per_tx = send ? 4 : 0;
    if (staged) {
        out->staged = true;
        out->opcode = send ? IBV_WR_SEND_WITH_IMM : IBV_WR_RDMA_WRITE_WITH_IMM;
        out->dest_recv_has_data = send;
        out->client_loop = out->server_loop = GDR_LOOP_STAGED_BOTH;
        return 0;
    }
    out->opcode = direct_opcode(in->verb);
    out->counted_on_arrival = send;
    out->client_loop = out->server_loop = send ? GDR_LOOP_SENDER_RECEIVER : GDR_LOOP_SENDER;
    return 0;
}

/* Write and send latency: a ping-pong. Each end sends from its first
 * region and is answered into its second; the client's half round trips
 * are the samples. Staged ends copy inside the loop (pingpong.c), so the
 * roles are those of the direct path. */
static int pingpong(const struct gdr_role_input *in, struct gdr_roles *out)
{
    bool send = in->verb == GDR_VERB_SEND;
    out->pingpong = true;
    out->poster = out->source = out->dest = GDR_SIDE_BOTH;
    out->counter = GDR_SIDE_CLIENT;
    out->client_loop = out->server_loop = GDR_LOOP_PINGPONG;
    out->min_iters = 1;
    if (send) {
        out->receiver = GDR_SIDE_BOTH;
        out->opcode = IBV_WR_SEND;
    } else if (in->cq_completion) {
        /* The CPU cannot poll GPU memory: the write carries an immediate
         * and the receiving end polls its CQ, as perftest's --write_with_imm. */
        out->receiver = GDR_SIDE_BOTH;
        out->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    } else {
        out->opcode = IBV_WR_RDMA_WRITE;
        out->polls_memory = true;
    }
    return 0;
}

int gdr_roles_for(const struct gdr_role_input *in, struct gdr_roles *out, const char **why)
{
    bool staged = in->client_staged || in->server_staged;
    bool lat = in->metric == GDR_METRIC_LAT, send = in->verb == GDR_VERB_SEND;
    bool read = in->verb == GDR_VERB_READ;
    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (in->bidirectional && (lat || read)) {
        *why = "bidirectional runs are for write and send bandwidth";
        return -1;
    }

    /* The client always requests; the data lands on the server for write
     * and send, on the client for read. */
    out->poster = GDR_SIDE_CLIENT;
    out->source = read ? GDR_SIDE_SERVER : GDR_SIDE_CLIENT;
    out->dest = read ? GDR_SIDE_CLIENT : GDR_SIDE_SERVER;
    out->receiver = send ? GDR_SIDE_SERVER : GDR_SIDE_NONE;
    out->one_in_flight = lat;
    /* The receiver lags the sender's view of completions; four receives
     * per send in flight keep it from running dry (an RNR NAK each time). */
    out->recv_per_tx = send ? 4 : 0;
    /* A receiver times from its go signal, so one message makes a row. */
    out->min_iters = 1;

    if (in->bidirectional)
        return bidirectional(in, staged, out);
    if (lat && !read)
        return pingpong(in, out);
    if (staged && !read) {
        /* Units cross the bounce slots with their number as immediate data;
         * the source's clock stops at the last credit, so it counts. */
        out->staged = true;
        out->opcode = send ? IBV_WR_SEND_WITH_IMM : IBV_WR_RDMA_WRITE_WITH_IMM;
        out->dest_recv_has_data = send;
        out->client_loop = GDR_LOOP_STAGED_SOURCE;
        out->server_loop = GDR_LOOP_STAGED_DEST;
        out->counter = GDR_SIDE_CLIENT;
        return 0;
    }
    out->opcode = direct_opcode(in->verb);
    /* A staged read requester lands its reads in its ring and copies them
     * on into GPU memory, one at a time for latency, pipelined over ring
     * slots for bandwidth. */
    out->client_loop = lat                         ? GDR_LOOP_LATENCY
                       : read && in->client_staged ? GDR_LOOP_STAGED_READER
                                                   : GDR_LOOP_SENDER;
    out->server_loop = send ? GDR_LOOP_RECEIVER : GDR_LOOP_NONE;
    /* A direct send's bandwidth is what arrived, timed by the receiver;
     * everything else by the requester (latency samples live there). */
    out->counter = send ? GDR_SIDE_SERVER : GDR_SIDE_CLIENT;
    out->counted_on_arrival = send;
    /* A staged read responder copies its data into its ring before the
     * reads start: the NIC reads the ring, and its CPU takes no part. */
    out->prestager = in->server_staged && read ? GDR_SIDE_SERVER : GDR_SIDE_NONE;
    return 0;
}
