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
        struct pollfd p = {.fd = cm->channel->fd, .events = POLLIN};
        poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
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

/* --tclass: the ToS rdma_cm puts in the path (RoCE: the GRH traffic
 * class). The default 0 leaves rdma_cm's own choice alone. */
static int set_tos(struct rdma_cm_id *id, uint8_t tos)
{
    if (tos && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
        return gdr_fail(GDR_EXIT_RUN, "rdma_cm: cannot set ToS %u (--tclass): %s", tos,
                        strerror(errno));
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

static int create_resources(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_config *cfg,
                            unsigned send_depth, unsigned recv_depth)
{
    struct rdma_cm_id *first = cm->id[0];
    if (!first->verbs)
        return gdr_fail(GDR_EXIT_ENV, "rdma_cm: no RDMA device serves the address of %s", cm->peer);
    memset(v, 0, sizeof(*v));
    if (gdr_verbs_adopt(v, first->verbs, first->port_num))
        return -1;
    if (cfg->ib_dev && strcmp(cfg->ib_dev, v->dev_name))
        return gdr_fail(GDR_EXIT_USAGE, "--ib-dev %s: rdma_cm routes this connection through %s",
                        cfg->ib_dev, v->dev_name);
    v->gid_index = gdr_verbs_find_gid(v, &first->route.addr.addr.ibaddr.sgid);
    if (v->gid_index >= 0)
        v->gid = first->route.addr.addr.ibaddr.sgid;
    v->make_qp = make_qp;
    v->make_qp_arg = cm;
    return gdr_verbs_create(v, cfg->num_qps, send_depth, recv_depth, cfg->inline_size,
                            gdr_verbs_gpu_receives(&cfg->mem));
}

/* What this end offers; rdma_cm settles each way on the smaller of the
 * requester's depth and the responder's resources. */
static struct rdma_conn_param conn_param(struct gdr_verbs *v, unsigned outs)
{
    unsigned rd = gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_rd_atom, GDR_MAX_OUTS, outs);
    unsigned init =
        gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_init_rd_atom, GDR_MAX_OUTS, outs);
    v->max_dest_rd_atomic = rd;
    v->max_rd_atomic = init;
    struct rdma_conn_param p = {
        .responder_resources = (uint8_t)rd,
        .initiator_depth = (uint8_t)init,
        .retry_count = 7,
        .rnr_retry_count = 7,
    };
    return p;
}

static int client_connect(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_config *cfg,
                          unsigned send_depth, unsigned recv_depth)
{
    int ms = (int)(cm->timeout * 1000);
    for (unsigned i = 0; i < cfg->num_qps; i++) {
        if (rdma_create_id(cm->channel, &cm->id[i], NULL, RDMA_PS_TCP))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: rdma_create_id failed: %s", strerror(errno));
        cm->num_ids = i + 1;
        if (set_tos(cm->id[i], cfg->traffic_class))
            return -1;
        if (rdma_resolve_addr(cm->id[i], NULL, cm->dst->ai_addr, ms) ||
            wait_event(cm, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: cannot resolve %s: %s", cm->peer,
                            strerror(errno));
        if (rdma_resolve_route(cm->id[i], ms) ||
            wait_event(cm, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: no route to %s: %s", cm->peer, strerror(errno));
    }
    if (create_resources(cm, v, cfg, send_depth, recv_depth))
        return -1;
    /* All requests first: the server accepts once it has them all. */
    struct rdma_conn_param p = conn_param(v, cfg->outs);
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (rdma_connect(cm->id[i], &p))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: connecting QP %u to %s failed: %s", i, cm->peer,
                            strerror(errno));
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (wait_event(cm, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL))
            return -1;
    return 0;
}

static int server_accept(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_config *cfg,
                         unsigned send_depth, unsigned recv_depth)
{
    for (unsigned i = 0; i < cfg->num_qps; i++) {
        if (wait_event(cm, RDMA_CM_EVENT_CONNECT_REQUEST, &cm->id[i], NULL))
            return -1;
        cm->num_ids = i + 1;
        if (set_tos(cm->id[i], cfg->traffic_class))
            return -1;
    }
    if (create_resources(cm, v, cfg, send_depth, recv_depth))
        return -1;
    struct rdma_conn_param p = conn_param(v, cfg->outs);
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (rdma_accept(cm->id[i], &p))
            return gdr_fail(GDR_EXIT_RUN, "rdma_cm: accepting QP %u from %s failed: %s", i,
                            cm->peer, strerror(errno));
    for (unsigned i = 0; i < cm->num_ids; i++)
        if (wait_event(cm, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL))
            return -1;
    return 0;
}

int gdr_cm_connect(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_config *cfg,
                   unsigned send_depth, unsigned recv_depth)
{
    return cm->listen_id ? server_accept(cm, v, cfg, send_depth, recv_depth)
                         : client_connect(cm, v, cfg, send_depth, recv_depth);
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
