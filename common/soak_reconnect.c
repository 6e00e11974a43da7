/* soak_reconnect.c - a soak through an outage (soak_reconnect.h). */
#include "config.h"

#include "soak_reconnect.h"
#include "error.h"
#include "events.h"
#include "json.h"
#include "session.h"
#include "soak.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PORT_POLL_US 100000 /* how often the port is asked whether it is back */

bool gdr_soak_outage_error(const struct gdr_session *s)
{
    if (!s->soak || gdr_interrupted || s->oob.peer_gave_up || s->cfg->rdma_cm)
        return false;
    if (s->oob.peer_outage)
        return true;
    const char *kind = gdr_error_class()->kind;
    return !strcmp(kind, GDR_KIND_COMPLETION) || !strcmp(kind, GDR_KIND_EVENT) ||
           !strcmp(kind, GDR_KIND_TIMEOUT);
}

void gdr_soak_note_peer_gone(struct gdr_session *s)
{
    const struct gdr_error_class *c = gdr_error_class();
    if (!s->soak || strcmp(c->kind, GDR_KIND_PEER) || s->oob.peer_gave_up)
        return;
    struct gdr_error_class kept = *c;
    char error[256];
    snprintf(error, sizeof(error), "%s", gdr_error_message());
    gdr_soak_outage_begin(s, &kept, error, false);
    gdr_soak_outage_end(s, "failed");
}

struct outage {
    struct gdr_session *s;
    uint64_t deadline_ns;
    double started_s; /* the soak's seconds, for messages */
};

/* Forget the error recorded, keeping where the soak is (between phases of
 * its size), so a later one is classed as the soak's. */
static void forget_error(const struct gdr_session *s)
{
    gdr_error_clear();
    gdr_error_at("", s->cfg->sizes.size[0]);
}

/* The deadline is past: -1 with what did not come back named. */
static int too_late(const struct outage *o, const char *what)
{
    forget_error(o->s); /* a wait's own timeout says less */
    return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                         "soak: outage since %.1f s: %s within --reconnect-timeout=%g s",
                         o->started_s, what, o->s->cfg->reconnect_timeout_s);
}

static bool past(const struct outage *o)
{
    return gdr_now_ns() >= o->deadline_ns;
}

/* The control channel's next wait ends at the deadline. */
static void channel_until_deadline(const struct outage *o)
{
    uint64_t now = gdr_now_ns();
    double left = now < o->deadline_ns ? (double)(o->deadline_ns - now) * 1e-9 : 0;
    o->s->oob.timeout = left > 0.01 ? left : 0.01;
}

static cJSON *message_of(const struct outage *o, const char *error)
{
    cJSON *m = cJSON_CreateObject();
    gdr_json_add_u64(m, "intervals", gdr_soak_intervals(o->s));
    if (error)
        cJSON_AddStringToObject(m, "message", error);
    return m;
}

/* Step 1: OUTAGE to the peer; then, unless it told us first, its OUTAGE. */
static int exchange_outage(const struct outage *o, const struct gdr_error_class *c,
                           const char *error)
{
    struct gdr_session *s = o->s;
    cJSON *m = message_of(o, error);
    cJSON_AddItemToObject(m, "class", gdr_json_error_class(c));
    int rc = gdr_oob_send(&s->oob, GDR_MSG_OUTAGE, m);
    cJSON_Delete(m);
    while (!rc && !s->oob.peer_outage) {
        unsigned type;
        cJSON *msg;
        channel_until_deadline(o);
        if (gdr_oob_recv_any(&s->oob, 0, &type, &msg) == 0) {
            cJSON_Delete(msg); /* the cut-short interval's own */
            continue;
        }
        if (!s->oob.peer_outage)
            return past(o) ? too_late(o, "the peer did not answer the outage") : -1;
    }
    if (!rc)
        forget_error(s); /* reading the peer's OUTAGE recorded it */
    return rc;
}

/* The port ACTIVE and the GID in use in its table again (on RoCE the
 * kernel may take the link's GIDs out while it is down). */
static bool port_back(struct gdr_verbs *v)
{
    if (!gdr_port_is_active(v->ctx, v->port))
        return false;
    if (v->gid_index < 0)
        return true;
    int at = gdr_verbs_find_gid(v, &v->gid);
    if (at < 0)
        return false;
    v->gid_index = at;
    return true;
}

/* Step 2, watching the channel: a peer that gives up or goes meanwhile
 * ends the wait. */
static int wait_port(const struct outage *o)
{
    struct gdr_session *s = o->s;
    for (;;) {
        gdr_events_forget(&s->verbs); /* acknowledged as they come */
        if (port_back(&s->verbs))
            return 0;
        if (gdr_interrupted || gdr_soak_stop)
            return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN,
                                 "soak: interrupted during the outage since %.1f s", o->started_s);
        int words = gdr_oob_readable(&s->oob) ? gdr_oob_peer_last_words(&s->oob) : 0;
        if (words > 0)
            return gdr_fail_kind(GDR_KIND_PEER, GDR_EXIT_RUN,
                                 "peer %s closed the connection during the outage since %.1f s",
                                 s->oob.peer, o->started_s);
        if (words < 0)
            return -1;
        if (past(o)) {
            char what[128];
            snprintf(what, sizeof(what), "%s port %d did not come back", s->verbs.dev_name,
                     s->verbs.port);
            return too_late(o, what);
        }
        usleep(PORT_POLL_US);
    }
}

/* Steps 2 and 3: a renewal that fails (the port gone again before the new
 * QPs exist: a link that flaps twice; a device still busy with the flap)
 * is tried again, the port waited for first, until the deadline, which
 * then names the renewal's error. */
static int port_and_qps(const struct outage *o)
{
    struct gdr_verbs *v = &o->s->verbs;
    for (;;) {
        if (wait_port(o))
            return -1;
        if (gdr_verbs_renew_qps(v) == 0)
            return 0;
        if (past(o)) {
            char what[320];
            snprintf(what, sizeof(what), "the QPs were not rebuilt (%.256s)", gdr_error_message());
            return too_late(o, what);
        }
        forget_error(o->s);
        usleep(PORT_POLL_US);
    }
}

/* Step 4: the new QPs both ways, the resume point agreed, RTS. */
static int rejoin(const struct outage *o)
{
    struct gdr_session *s = o->s;
    gdr_verbs_describe(&s->verbs, &s->local);
    cJSON *mine = message_of(o, NULL), *theirs = NULL;
    cJSON_AddItemToObject(mine, "endpoint", gdr_endpoint_to_json(&s->local));
    channel_until_deadline(o);
    int rc = s->is_server ? gdr_oob_recv(&s->oob, GDR_MSG_REJOIN, 0, &theirs) ||
                                gdr_oob_send(&s->oob, GDR_MSG_REJOIN, mine)
                          : gdr_oob_send(&s->oob, GDR_MSG_REJOIN, mine) ||
                                gdr_oob_recv(&s->oob, GDR_MSG_REJOIN, 0, &theirs);
    cJSON_Delete(mine);
    if (rc) {
        cJSON_Delete(theirs);
        return past(o) && !s->oob.peer_gave_up ? too_late(o, "the peer did not rejoin") : -1;
    }
    char what[160];
    snprintf(what, sizeof(what), "REJOIN from %s", s->oob.peer);
    static struct gdr_endpoint ep; /* large; one session per process */
    uint64_t intervals = 0;
    rc = gdr_json_u64(theirs, "intervals", UINT64_MAX, &intervals, what) ||
         gdr_endpoint_from_json(cJSON_GetObjectItemCaseSensitive(theirs, "endpoint"), &ep, what);
    cJSON_Delete(theirs);
    if (rc)
        return -1;
    if (intervals != gdr_soak_intervals(s))
        return gdr_fail(GDR_EXIT_RUN, "%s: it resumes the soak at interval %llu, this end at %zu",
                        what, (unsigned long long)intervals, gdr_soak_intervals(s));
    s->remote = ep;
    if (gdr_verbs_connect(&s->verbs, &s->remote, s->cfg->mtu, s->cfg->outs))
        return -1;
    s->local.grh = s->remote.grh = s->verbs.grh;
    return 0;
}

int gdr_soak_reconnect(struct gdr_session *s)
{
    struct outage o = {.s = s,
                       .deadline_ns = gdr_now_ns() + (uint64_t)(s->cfg->reconnect_timeout_s * 1e9)};
    struct gdr_error_class c = *gdr_error_class();
    char error[256];
    snprintf(error, sizeof(error), "%s", gdr_error_message());
    bool heard = s->oob.peer_outage != NULL;
    forget_error(s);
    if (gdr_soak_outage_begin(s, &c, error, heard))
        return -1;
    o.started_s = gdr_soak_outage_start(s);
    /* The waits below watch the channel, not the device's events: those
     * are read, acknowledged and forgotten while the port comes back. */
    struct gdr_oob saved = s->oob;
    s->oob.watch = NULL;
    s->oob.watch_fd = -1;
    int rc = exchange_outage(&o, &c, error) || port_and_qps(&o) || rejoin(&o);
    gdr_events_forget(&s->verbs);
    s->oob.timeout = saved.timeout;
    s->oob.watch = saved.watch;
    s->oob.watch_fd = saved.watch_fd;
    cJSON_Delete(s->oob.peer_outage);
    s->oob.peer_outage = NULL;
    if (rc) {
        gdr_soak_outage_end(s, strcmp(gdr_error_class()->kind, GDR_KIND_TIMEOUT) ? "failed"
                                                                                 : "deadline");
        return -1;
    }
    /* The next interval warms up and calibrates again, on the new QPs. */
    s->last_bytes_per_s = 0;
    return gdr_soak_outage_end(s, "reconnected");
}
