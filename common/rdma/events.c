/* events.c - asynchronous events, read without a thread (see events.h). */
#include "config.h"

#include "events.h"
#include "clock.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#define NAME(x) [x] = #x
static const char *const event_names[] = {
    NAME(IBV_EVENT_CQ_ERR),
    NAME(IBV_EVENT_QP_FATAL),
    NAME(IBV_EVENT_QP_REQ_ERR),
    NAME(IBV_EVENT_QP_ACCESS_ERR),
    NAME(IBV_EVENT_COMM_EST),
    NAME(IBV_EVENT_SQ_DRAINED),
    NAME(IBV_EVENT_PATH_MIG),
    NAME(IBV_EVENT_PATH_MIG_ERR),
    NAME(IBV_EVENT_DEVICE_FATAL),
    NAME(IBV_EVENT_PORT_ACTIVE),
    NAME(IBV_EVENT_PORT_ERR),
    NAME(IBV_EVENT_LID_CHANGE),
    NAME(IBV_EVENT_PKEY_CHANGE),
    NAME(IBV_EVENT_SM_CHANGE),
    NAME(IBV_EVENT_SRQ_ERR),
    NAME(IBV_EVENT_SRQ_LIMIT_REACHED),
    NAME(IBV_EVENT_QP_LAST_WQE_REACHED),
    NAME(IBV_EVENT_CLIENT_REREGISTER),
    NAME(IBV_EVENT_GID_CHANGE),
    NAME(IBV_EVENT_WQ_FATAL),
};

static const char *const wc_names[] = {
    NAME(IBV_WC_SUCCESS),
    NAME(IBV_WC_LOC_LEN_ERR),
    NAME(IBV_WC_LOC_QP_OP_ERR),
    NAME(IBV_WC_LOC_EEC_OP_ERR),
    NAME(IBV_WC_LOC_PROT_ERR),
    NAME(IBV_WC_WR_FLUSH_ERR),
    NAME(IBV_WC_MW_BIND_ERR),
    NAME(IBV_WC_BAD_RESP_ERR),
    NAME(IBV_WC_LOC_ACCESS_ERR),
    NAME(IBV_WC_REM_INV_REQ_ERR),
    NAME(IBV_WC_REM_ACCESS_ERR),
    NAME(IBV_WC_REM_OP_ERR),
    NAME(IBV_WC_RETRY_EXC_ERR),
    NAME(IBV_WC_RNR_RETRY_EXC_ERR),
    NAME(IBV_WC_LOC_RDD_VIOL_ERR),
    NAME(IBV_WC_REM_INV_RD_REQ_ERR),
    NAME(IBV_WC_REM_ABORT_ERR),
    NAME(IBV_WC_INV_EECN_ERR),
    NAME(IBV_WC_INV_EEC_STATE_ERR),
    NAME(IBV_WC_FATAL_ERR),
    NAME(IBV_WC_RESP_TIMEOUT_ERR),
    NAME(IBV_WC_GENERAL_ERR),
    NAME(IBV_WC_TM_ERR),
    NAME(IBV_WC_TM_RNDV_INCOMPLETE),
};
#undef NAME

const char *gdr_event_name(enum ibv_event_type t)
{
    unsigned i = (unsigned)t;
    return i < sizeof(event_names) / sizeof(event_names[0]) && event_names[i] ? event_names[i]
                                                                              : "IBV_EVENT_UNKNOWN";
}

const char *gdr_wc_status_name(enum ibv_wc_status s)
{
    unsigned i = (unsigned)s;
    return i < sizeof(wc_names) / sizeof(wc_names[0]) && wc_names[i] ? wc_names[i]
                                                                     : "IBV_WC_UNKNOWN";
}

int gdr_events_watch(struct gdr_verbs *v)
{
    int fd = v->ctx ? v->ctx->async_fd : -1;
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
        return gdr_fail(GDR_EXIT_RUN, "%s: cannot watch its asynchronous events: %s", v->dev_name,
                        fd < 0 ? "no event fd" : strerror(errno));
    v->events_watched = true;
    return 0;
}

int gdr_events_fd(const struct gdr_verbs *v)
{
    return v->events_watched ? v->ctx->async_fd : -1;
}

static bool our_qp(const struct gdr_verbs *v, const struct ibv_qp *qp)
{
    if (qp && qp == v->flush_qp)
        return true;
    for (unsigned i = 0; i < v->num_qps; i++)
        if (v->qp[i] == qp)
            return true;
    return false;
}

bool gdr_event_is_fatal(const struct gdr_verbs *v, const struct ibv_async_event *e)
{
    switch (e->event_type) {
    case IBV_EVENT_PORT_ERR: return e->element.port_num == v->port;
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR: return our_qp(v, e->element.qp);
    case IBV_EVENT_CQ_ERR:
        return e->element.cq && (e->element.cq == v->send_cq || e->element.cq == v->recv_cq ||
                                 e->element.cq == v->flush_cq);
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_WQ_FATAL:
    case IBV_EVENT_DEVICE_FATAL: return true;
    default: return false;
    }
}

/* What the event was about: "rxe0 port 1", "QP 17", "rxe0". */
static void describe(const struct gdr_verbs *v, const struct ibv_async_event *e, char *buf,
                     size_t len)
{
    switch (e->event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
        snprintf(buf, len, "%s QP %u", v->dev_name, e->element.qp ? e->element.qp->qp_num : 0);
        break;
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
        snprintf(buf, len, "%s port %d", v->dev_name, e->element.port_num);
        break;
    default: snprintf(buf, len, "%s", v->dev_name); break;
    }
}

/* Read and acknowledge what is pending, keeping the first fatal event. */
static void drain(struct gdr_verbs *v)
{
    if (!v->events_watched)
        return;
    struct ibv_async_event e;
    while (ibv_get_async_event(v->ctx, &e) == 0) {
        bool fatal = gdr_event_is_fatal(v, &e);
        if (fatal && !v->fatal_event[0]) {
            snprintf(v->fatal_event, sizeof(v->fatal_event), "%s", gdr_event_name(e.event_type));
            describe(v, &e, v->fatal_where, sizeof(v->fatal_where));
            v->fatal_at_ns = gdr_now_ns();
        } else if (!fatal) {
            v->events_passed++;
        }
        ibv_ack_async_event(&e);
    }
}

const char *gdr_events_fatal(struct gdr_verbs *v, int wait_ms)
{
    drain(v);
    if (!v->fatal_event[0] && wait_ms > 0 && v->events_watched) {
        struct pollfd p = {.fd = v->ctx->async_fd, .events = POLLIN};
        if (poll(&p, 1, wait_ms) > 0)
            drain(v);
    }
    return v->fatal_event;
}

int gdr_events_check(struct gdr_verbs *v, uint64_t iteration)
{
    if (!gdr_events_fatal(v, 0)[0])
        return 0;
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_EVENT);
    snprintf(c.event, sizeof(c.event), "%s", v->fatal_event);
    c.iteration = iteration;
    char at[96];
    gdr_error_where(at, sizeof(at), iteration);
    return gdr_fail_class(&c, GDR_EXIT_RUN, "asynchronous event %s on %s%s", v->fatal_event,
                          v->fatal_where, at);
}

void gdr_events_forget(struct gdr_verbs *v)
{
    drain(v);
    v->fatal_event[0] = v->fatal_where[0] = '\0';
    v->fatal_at_ns = 0;
}
