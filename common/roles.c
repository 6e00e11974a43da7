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
    out->min_iters = send ? 2 : 1;
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

int gdr_roles_for(const struct gdr_role_input *in, struct gdr_roles *out, const char **why)
{
    bool staged = in->client_staged || in->server_staged;
    bool lat = in->metric == GDR_METRIC_LAT, send = in->verb == GDR_VERB_SEND;
    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (in->bidirectional && (lat || in->verb == GDR_VERB_READ)) {
        *why = "bidirectional runs are for write and send bandwidth";
        return -1;
    }
    /* A staged read is one-sided: the requester copies each message on, the
     * responder pre-stages. Bandwidth would need a unit pipeline on the
     * requester; writes and sends with a staged end need credits, which the
     * latency loop does not return. */
    if (staged && in->verb == GDR_VERB_READ && !lat) {
        *why = "RDMA read bandwidth with a staged end (--gdr=off) is not implemented";
        return -1;
    }
    if (staged && in->verb != GDR_VERB_READ && lat) {
        *why = "a latency test with a staged end (--gdr=off) is implemented for RDMA read only";
        return -1;
    }

    /* The client always requests; the data lands on the server for write
     * and send, on the client for read. */
    out->poster = GDR_SIDE_CLIENT;
    out->source = in->verb == GDR_VERB_READ ? GDR_SIDE_SERVER : GDR_SIDE_CLIENT;
    out->dest = in->verb == GDR_VERB_READ ? GDR_SIDE_CLIENT : GDR_SIDE_SERVER;
    out->receiver = send ? GDR_SIDE_SERVER : GDR_SIDE_NONE;
    out->one_in_flight = lat;
    /* The receiver lags the sender's view of completions; four receives
     * per send in flight keep it from running dry (an RNR NAK each time). */
    out->recv_per_tx = send ? 4 : 0;
    /* A receiver times the gaps between arrivals: it needs two. */
    out->min_iters = send ? 2 : 1;

    if (in->bidirectional)
        return bidirectional(in, staged, out);
    if (staged && !lat) {
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
    out->client_loop = lat ? GDR_LOOP_LATENCY : GDR_LOOP_SENDER;
    out->server_loop = send ? GDR_LOOP_RECEIVER : GDR_LOOP_NONE;
    /* A direct send's bandwidth is what arrived, timed by the receiver;
     * everything else by the requester (latency samples live there). */
    out->counter = send && !lat ? GDR_SIDE_SERVER : GDR_SIDE_CLIENT;
    out->counted_on_arrival = send && !lat;
    /* A staged read responder copies its data into its ring before the
     * reads start: the NIC reads the ring, and its CPU takes no part. */
    out->prestager =
        in->server_staged && in->verb == GDR_VERB_READ ? GDR_SIDE_SERVER : GDR_SIDE_NONE;
    return 0;
}
