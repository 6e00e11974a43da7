#include "config.h"

#include "cm.h"
#include "clock.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

struct gdr_cm {
    struct rdma_event_channel *channel;
    struct rdma_cm_id *listen_id;
    struct rdma_cm_id *id[GDR_MAX_QPS];
    unsigned num_ids;
    char peer[128];
    struct addrinfo *dst; /* client: the server's rdma_cm address */
    double timeout;
};

static struct gdr_cm *cm_new(double timeout)
{
    struct gdr_cm *cm = calloc(1, sizeof(*cm));
    if (!cm) {
        gdr_fail(GDR_EXIT_RUN, "out of memory");
        return NULL;
    }
    cm->timeout = timeout;
    cm->channel = rdma_create_event_channel();
    if (!cm->channel) {
        gdr_fail(GDR_EXIT_ENV, "rdma_cm: cannot open its event channel: %s (is rdma_ucm loaded?)",
                 strerror(errno));
        free(cm);
        return NULL;
    }
    /* Non-blocking, so every wait below has a deadline. */
    int fl = fcntl(cm->channel->fd, F_GETFL);
    fcntl(cm->channel->fd, F_SETFL, fl | O_NONBLOCK);
    return cm;
}

/* Wait for the next event; it must be `want` (for any id). */
static int wait_event(struct gdr_cm *cm, enum rdma_cm_event_type want, struct rdma_cm_id **id,
                      struct rdma_conn_param *param)
{
    uint64_t deadline = gdr_now_ns() + (uint64_t)(cm->timeout * 1e9);
    struct rdma_cm_event *ev;
    while (rdma_get_cm_event(cm->channel, &ev)) {
        if (errno != EAGAIN)
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: %s", strerror(errno));
        uint64_t now = gdr_now_ns();
        if (now >= deadline || gdr_interrupted)
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: %s waiting for %s from %s",
                            gdr_interrupted ? "interrupted" : "timed out", rdma_event_str(want),
                            cm->peer);
        /* At most 100 ms at a time: a signal that lands just before the
         * poll is seen at the next look at the flag, not at the deadline. */
        uint64_t ms = (deadline - now) / 1000000 + 1;
        struct pollfd p = {.fd = cm->channel->fd, .events = POLLIN};
        poll(&p, 1, ms > 100 ? 100 : (int)ms);
    }
    int rc = 0;
    if (ev->event != want)
        rc = gdr_fail(GDR_EXIT_RUN, "rdma_cm: %s from %s while waiting for %s (status %d%s%s)",
                      rdma_event_str(ev->event), cm->peer, rdma_event_str(want), ev->status,
                      ev->status < 0 ? ": " : "", ev->status < 0 ? strerror(-ev->status) : "");
    else {
        if (id)
            *id = ev->id;
        if (param)
            *param = ev->param.conn;
    }
    rdma_ack_cm_event(ev);
    return rc;
}

/* The options each id carries before it is resolved or accepted:
 * --tclass as the ToS rdma_cm puts in the path (RoCE: the GRH traffic
 * class; 0 leaves rdma_cm's own choice alone) and --qp-timeout as the
 * local ACK timeout of its QP. */
static int set_options(struct rdma_cm_id *id, const struct gdr_cm_qps *q)
{
    uint8_t tos = q->traffic_class, timeout = q->qp_timeout;
    if (tos && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
        return gdr_fail(GDR_EXIT_RUN, "rdma_cm: cannot set ToS %u (--tclass): %s", tos,
                        strerror(errno));
    if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof(timeout)))
        return gdr_fail(GDR_EXIT_RUN, "rdma_cm: cannot set the ACK timeout %u (--qp-timeout): %s",
                        timeout, strerror(errno));
    return 0;
}

static int resolve(const char *host, uint16_t port, int flags, struct addrinfo **out)
{
    char serv[8];
    snprintf(serv, sizeof(serv), "%u", (unsigned)port);
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | flags};
    int rc = getaddrinfo(host, serv, &hints, out);
    if (rc)
        return gdr_fail(GDR_EXIT_USAGE, "rdma_cm: '%s': %s", host ? host : "(any)",
                        gai_strerror(rc));
    return 0;
}

int gdr_cm_listen(struct gdr_cm **out, const char *bind_addr, uint16_t port, double timeout)
{
    struct gdr_cm *cm = *out = cm_new(timeout);
    if (!cm)
        return -1;
    snprintf(cm->peer, sizeof(cm->peer), "the client");
    struct addrinfo *ai;
    if (resolve(bind_addr, port + 1, AI_PASSIVE, &ai))
        return -1;
    int rc = rdma_create_id(cm->channel, &cm->listen_id, NULL, RDMA_PS_TCP);
    if (!rc)
        rc = rdma_bind_addr(cm->listen_id, ai->ai_addr);
    if (!rc)
        rc = rdma_listen(cm->listen_id, GDR_MAX_QPS);
    freeaddrinfo(ai);
    if (rc)
        return gdr_fail(GDR_EXIT_ENV, "rdma_cm: cannot listen on port %u%s%s: %s", port + 1,
                        bind_addr ? " of " : "", bind_addr ? bind_addr : "", strerror(errno));
    return 0;
}

int gdr_cm_client(struct gdr_cm **out, const char *host, uint16_t port, double timeout)
{
    struct gdr_cm *cm = *out = cm_new(timeout);
    if (!cm)
        return -1;
    snprintf(cm->peer, sizeof(cm->peer), "%s port %u", host, port + 1);
    return resolve(host, port + 1, 0, &cm->dst);
}

/* The QP creation hook handed to gdr_verbs_create. */
static int make_qp(void *arg, unsigned index, struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
                   struct ibv_qp **qp)
{
    struct gdr_cm *cm = arg;
    if (rdma_create_qp(cm->id[index], pd, attr))
        return gdr_fail(GDR_EXIT_RUN, "rdma_cm: rdma_create_qp failed: %s", strerror(errno));
    *qp = cm->id[index]->qp;
    return 0;
}

/* The device rdma_cm chose for the first id; the rest share it. */
static int adopt_device(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    struct rdma_cm_id *first = cm->id[0];
    if (!first->verbs)
        return gdr_fail(GDR_EXIT_ENV, "rdma_cm: no RDMA device serves the address of %s", cm->peer);
    memset(v, 0, sizeof(*v));
    if (gdr_verbs_adopt(v, first->verbs, first->port_num))
        return -1;
    if (q->ib_dev && strcmp(q->ib_dev, v->dev_name))
        return gdr_fail(GDR_EXIT_USAGE, "--ib-dev %s: rdma_cm routes this connection through %s",
                        q->ib_dev, v->dev_name);
    v->gid_index = gdr_verbs_find_gid(v, &first->route.addr.addr.ibaddr.sgid);
    if (v->gid_index >= 0)
        v->gid = first->route.addr.addr.ibaddr.sgid;
    gdr_verbs_note_gid(v);
    return 0;
}

/* What this end offers: its device's limits, lowered to -o/--outs.
 * rdma_cm settles each way on the smaller of the requester's depth and
 * the responder's resources; gdr_verbs_query_reads reads back what the
 * QPs got. */
static struct rdma_conn_param conn_param(struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    unsigned rd = gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_rd_atom, GDR_MAX_OUTS, q->outs);
    unsigned init =
        gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_init_rd_atom, GDR_MAX_OUTS, q->outs);
    v->max_dest_rd_atomic = rd;
    v->max_rd_atomic = init;
    struct rdma_conn_param p = {
        .responder_resources = (uint8_t)rd,
        .initiator_depth = (uint8_t)init,
        .retry_count = q->retry_count,
        .rnr_retry_count = 7,
    };
    return p;
}

static int client_resolve(struct gdr_cm *cm, const struct gdr_cm_qps *q)
{
    int ms = (int)(cm->timeout * 1000);
    for (unsigned i = 0; i < q->num_qps; i++) {
        if (rdma_create_id(cm->channel, &cm->id[i], NULL, RDMA_PS_TCP))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: rdma_create_id failed: %s", strerror(errno));
        cm->num_ids = i + 1;
        if (set_options(cm->id[i], q))
            return -1;
        if (rdma_resolve_addr(cm->id[i], NULL, cm->dst->ai_addr, ms) ||
            wait_event(cm, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: cannot resolve %s: %s", cm->peer,
                            strerror(errno));
        if (rdma_resolve_route(cm->id[i], ms) ||
            wait_event(cm, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: no route to %s: %s", cm->peer, strerror(errno));
    }
    return 0;
}

static int server_requests(struct gdr_cm *cm, const struct gdr_cm_qps *q)
{
    for (unsigned i = 0; i < q->num_qps; i++) {
        if (wait_event(cm, RDMA_CM_EVENT_CONNECT_REQUEST, &cm->id[i], NULL))
            return -1;
        cm->num_ids = i + 1;
        if (set_options(cm->id[i], q))
            return -1;
    }
    return 0;
}

int gdr_cm_resolve(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    if (cm->listen_id ? server_requests(cm, q) : client_resolve(cm, q))
        return -1;
    return adopt_device(cm, v, q);
}

int gdr_cm_establish(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    v->make_qp = make_qp;
    v->make_qp_arg = cm;
    if (gdr_verbs_create(v, q->num_qps, q->send_depth, q->recv_depth, q->inline_size,
                         q->gpu_receives))
        return -1;
    /* The client sends every request first: the server accepts once it has
     * them all. */
    struct rdma_conn_param p = conn_param(v, q);
    for (unsigned i = 0; i < cm->num_ids; i++) {
        int rc = cm->listen_id ? rdma_accept(cm->id[i], &p) : rdma_connect(cm->id[i], &p);
        if (rc)
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: %s QP %u %s %s failed: %s",
                            cm->listen_id ? "accepting" : "connecting", i,
                            cm->listen_id ? "from" : "to", cm->peer, strerror(errno));
    }
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (wait_event(cm, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL))
            return -1;
    /* rdma_cm chose the address vector: whether it carries a GRH, and
     * from which GID. On RoCE every address has a v1 and a v2 entry with
     * the same GID; the route's GID matched the first (v1) while rdma_cm
     * connects over v2: the record and the flush's loopback take the
     * index the QP really holds. */
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    bool av = ibv_query_qp(v->qp[0], &a, IBV_QP_AV, &ia) == 0;
    v->grh = v->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET || (av && a.ah_attr.is_global);
    if (av && a.ah_attr.is_global && a.ah_attr.grh.sgid_index != v->gid_index) {
        union ibv_gid g;
        if (ibv_query_gid(v->ctx, (uint8_t)v->port, a.ah_attr.grh.sgid_index, &g) == 0) {
            v->gid_index = a.ah_attr.grh.sgid_index;
            v->gid = g;
            gdr_verbs_note_gid(v);
        }
    }
    return 0;
}

void gdr_cm_release_qps(struct gdr_cm *cm, struct gdr_verbs *v)
{
    if (!cm)
        return;
    for (unsigned i = 0; i < cm->num_ids; i++) {
        if (cm->id[i] && cm->id[i]->qp) {
            rdma_disconnect(cm->id[i]);
            rdma_destroy_qp(cm->id[i]);
        }
        if (i < GDR_MAX_QPS)
            v->qp[i] = NULL;
    }
}

void gdr_cm_destroy(struct gdr_cm *cm)
{
    if (!cm)
        return;
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (cm->id[i])
            rdma_destroy_id(cm->id[i]);
    if (cm->listen_id)
        rdma_destroy_id(cm->listen_id);
    if (cm->dst)
        freeaddrinfo(cm->dst);
    rdma_destroy_event_channel(cm->channel);
    free(cm);
}
