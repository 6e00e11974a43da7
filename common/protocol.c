/* protocol.c - the per-size protocol and the sweep. For every size the
 * client drives two phases, warm-up then timed, each framed by the same
 * four messages:
 *
 *   client SIZE_START {phase, size, iters}  ->  server prepares (fills or
 *   clears slots, posts receives) and answers READY; both run the loop;
 *   client SIZE_DONE {its measurement}      ->  server checks the data and
 *   answers SIZE_RESULT {its measurement, data check}.
 *
 * Both ends then hold the same row. The server walks its own size list and
 * accepts nothing else, so a confused or hostile client cannot steer it.
 * Who fills, checks, counts and which loop runs come from s->roles. */
#include "config.h"

#include "session.h"
#include "error.h"
#include "json.h"
#include "pattern.h"
#include "output.h"
#include "context.h"
#include "events.h"
#include "size_msg.h"
#include "sizing.h"
#include "loops.h"
#include "soak.h"
#include "soak_reconnect.h"

#include <stdio.h>
#include <string.h>

uint64_t gdr_source_seed(uint64_t size, uint64_t slot, bool from_server)
{
    /* The server's data carries another pattern than the client's, so that
     * in a -b run or a ping-pong an end sending from the wrong region
     * fails the check. */
    return gdr_pattern_seed(size, slot) ^ (from_server ? 0x5e7e7ull : 0);
}

/* Fill, clear or check every slot a phase of `iters` messages touches:
 * the slots this end sends from, or those the peer's data lands in. */
enum slot_op { SLOT_FILL, SLOT_ZERO, SLOT_CHECK };

static int for_each_slot(struct gdr_session *s, enum slot_op op, uint64_t size, uint64_t iters,
                         uint64_t *bad_total)
{
    uint64_t nslots = gdr_slots_for(s, size);
    if (op != SLOT_FILL && iters < nslots)
        nslots = iters;
    *bad_total = 0;
    uint64_t base = op == SLOT_FILL ? 0 : s->dest_off;
    bool from_server = (op == SLOT_FILL) == s->is_server;
    for (uint64_t k = 0; k < nslots; k++) {
        size_t off = (size_t)(base + k * size);
        uint64_t seed = gdr_source_seed(size, k, from_server), bad = 0;
        size_t first = 0;
        int rc = op == SLOT_FILL   ? gdr_buffer_fill(&s->buf, off, size, seed)
                 : op == SLOT_ZERO ? gdr_buffer_zero(&s->buf, off, size)
                                   : gdr_buffer_check(&s->buf, off, size, seed, &bad, &first);
        if (rc)
            return -1;
        if (bad && !*bad_total)
            fprintf(stderr, "%s: data check: size %llu slot %llu: first bad byte at offset %zu\n",
                    s->test->binary, (unsigned long long)size, (unsigned long long)k, first - off);
        *bad_total += bad;
    }
    return 0;
}

static int data_check_failed(uint64_t size, uint64_t bad)
{
    return gdr_fail_kind(GDR_KIND_DATA, GDR_EXIT_RUN,
                         "data check failed at size %llu: %llu bytes differ from the "
                         "pattern",
                         (unsigned long long)size, (unsigned long long)bad);
}

/* Both directions of a bidirectional row, and their sum (perftest adds
 * the two directions' rates). Each end's measure carries the window of
 * what it sent. */
static void fill_directions(struct gdr_session *s, struct gdr_size_result *row,
                            const struct gdr_measure *client, const struct gdr_measure *server)
{
    bool arrival = s->roles.counted_on_arrival;
    row->to_server = arrival ? *server : *client;
    row->to_client = arrival ? *client : *server;
    row->to_server.window = client->window;
    row->to_client.window = server->window;
    const struct gdr_measure *a = &row->to_server, *b = &row->to_client;
    struct gdr_measure *m = &row->m;
    m->iters = a->iters + b->iters;
    m->bytes = a->bytes + b->bytes;
    m->elapsed_ns = a->elapsed_ns > b->elapsed_ns ? a->elapsed_ns : b->elapsed_ns;
    m->bw_avg = a->bw_avg + b->bw_avg;
    m->bw_peak = a->bw_peak + b->bw_peak;
    m->msg_rate = a->msg_rate + b->msg_rate;
}

static void fill_row(struct gdr_session *s, struct gdr_size_result *row, uint64_t size,
                     const struct gdr_size_done_msg *client,
                     const struct gdr_size_result_msg *server, uint64_t bad)
{
    memset(row, 0, sizeof(*row));
    row->size = size;
    row->window = client->m.window; /* the client always sends */
    if (s->roles.bidirectional)
        fill_directions(s, row, &client->m, &server->m);
    else
        row->m = s->roles.counter == GDR_SIDE_SERVER ? server->m : client->m;
    row->cpu_client = client->m.cpu;
    row->cpu_server = server->m.cpu;
    row->sleeps_client = client->m.sleeps;
    row->sleeps_server = server->m.sleeps;
    row->validated = s->cfg->validate;
    row->bad_bytes = bad;
    row->server_prestage_s = server->prestage_s;
    row->seen_client = client->seen;
    row->seen_server = server->seen;
    gdr_context_row_limit(s, row);
}

/* ---- client ---- */

/* Run this end's loop for a phase (the server's is prepared first). */
static int run_loop(struct gdr_session *s, enum gdr_loop loop, uint64_t size, uint64_t iters,
                    struct gdr_measure *m)
{
    switch (loop) {
    case GDR_LOOP_SENDER: return gdr_loop_sender(s, size, iters, m);
    case GDR_LOOP_RECEIVER: return gdr_loop_receiver(s, size, iters, m);
    case GDR_LOOP_LATENCY: return gdr_loop_latency(s, size, iters, m);
    case GDR_LOOP_STAGED_SOURCE: return gdr_staged_source(s, size, iters, m);
    case GDR_LOOP_STAGED_DEST: return gdr_staged_dest(s, size, iters, m);
    case GDR_LOOP_SENDER_RECEIVER: return gdr_loop_sender_receiver(s, size, iters, m);
    case GDR_LOOP_STAGED_BOTH: return gdr_staged_both(s, size, iters, m);
    case GDR_LOOP_PINGPONG: return gdr_loop_pingpong(s, size, iters, m);
    case GDR_LOOP_STAGED_READER: return gdr_staged_reader(s, size, iters, m);
    case GDR_LOOP_NONE: break;
    }
    return 0;
}

static int prepare_loop(struct gdr_session *s, enum gdr_loop loop, uint64_t size, uint64_t iters)
{
    switch (loop) {
    case GDR_LOOP_RECEIVER:
    case GDR_LOOP_SENDER_RECEIVER: return gdr_loop_receiver_prepare(s, size, iters);
    case GDR_LOOP_STAGED_DEST:
    case GDR_LOOP_STAGED_BOTH: return gdr_staged_dest_prepare(s, size, iters);
    case GDR_LOOP_PINGPONG: return gdr_pingpong_prepare(s, size, iters);
    default: return 0;
    }
}

static int client_run_loop(struct gdr_session *s, uint64_t size, uint64_t iters,
                           struct gdr_measure *m)
{
    struct gdr_cpu_mark mark;
    gdr_cpu_mark(&mark);
    int rc = run_loop(s, s->roles.client_loop, size, iters, m);
    m->cpu = gdr_cpu_since(&mark);
    return rc;
}

/* A control-channel watch that reads the device's events and keeps a fatal
 * one (with when it came) without ending the wait. */
static int keep_events(void *arg)
{
    struct gdr_session *s = arg;
    gdr_events_fatal(&s->verbs, 0);
    return 0;
}

static int client_phase(struct gdr_session *s, const char *phase, uint64_t size, uint64_t iters,
                        double expect_s, struct gdr_size_done_msg *mine,
                        struct gdr_size_result_msg *theirs)
{
    gdr_error_at(phase, size);
    bool timed = strcmp(phase, "timed") == 0;
    struct gdr_size_start st = {.size = size, .iters = iters, .expect_s = expect_s};
    snprintf(st.phase, sizeof(st.phase), "%s", phase);
    cJSON *msg = gdr_size_start_encode(&st);
    /* The port's counters before the server hears of the phase: a server
     * that counts arrivals starts its clock as it answers READY, and a
     * snapshot (milliseconds of firmware reads on mlx5) between READY and
     * the first send would be timed as a stall. Nothing moves in between. */
    if (timed)
        gdr_context_size_begin(s);
    /* A bidirectional client receives too: its receives are up before
     * the server can send. */
    int rc = prepare_loop(s, s->roles.client_loop, size, iters);
    if (!rc)
        rc = gdr_oob_send(&s->oob, GDR_MSG_SIZE_START, msg);
    cJSON_Delete(msg);
    cJSON *reply = NULL;
    if (rc || gdr_oob_recv(&s->oob, GDR_MSG_READY, 0, &reply))
        return -1;
    cJSON_Delete(reply);

    memset(mine, 0, sizeof(*mine));
    if (client_run_loop(s, size, iters, &mine->m))
        return -1;
    if (timed)
        gdr_context_size_end(s, 0, &mine->seen);

    msg = gdr_size_done_encode(mine);
    rc = gdr_oob_send(&s->oob, GDR_MSG_SIZE_DONE, msg);
    cJSON_Delete(msg);
    /* A soak's interval is over once SIZE_DONE is sent: the server records
     * it as it answers. A device event read while the answer is on its way
     * must not cut the interval short here only, or the two ends would
     * resume at different intervals (seen: a QP fatal event in the lab).
     * It is read and kept with its time, and the next interval fails on
     * it: the outage starts when the event came, not seconds later once
     * the answer is in (a link that goes down stalls the answer too: seen
     * with a 4 s flap, an outage said to last 0.13 s). */
    int (*watch)(void *) = s->oob.watch;
    if (s->soak && watch)
        s->oob.watch = keep_events;
    rc = rc || gdr_oob_recv(&s->oob, GDR_MSG_SIZE_RESULT, expect_s, &reply);
    s->oob.watch = watch;
    if (rc)
        return -1;
    char what[160];
    snprintf(what, sizeof(what), "SIZE_RESULT from %s", s->oob.peer);
    rc = gdr_size_result_decode(reply, theirs, what);
    cJSON_Delete(reply);
    return rc ? -1 : 0;
}

static int client_size(struct gdr_session *s, uint64_t size, struct gdr_size_result *row)
{
    const struct gdr_config *cfg = s->cfg;
    const struct gdr_roles *r = &s->roles;
    static struct gdr_size_done_msg mine, probe; /* large; one sweep per process */
    static struct gdr_size_result_msg theirs;
    memset(&probe, 0, sizeof(probe));
    memset(&theirs, 0, sizeof(theirs));
    uint64_t bad = 0, iters = cfg->iters, warm = gdr_warmup_iters(cfg, r, size);
    bool source_here = gdr_role_mine(r->source, false), dest_here = gdr_role_mine(r->dest, false);

    /* A ping-pong that polls memory knows an arrival by the pattern's last
     * byte: the source holds it whether or not --validate checks it. */
    bool fill = cfg->validate || r->polls_memory;
    /* A soak's later intervals: no warm-up, calibrated from the last one. */
    bool again = s->soak && s->last_bytes_per_s > 0;
    const struct gdr_measure *cal = again ? &mine.m : &probe.m;
    if (!again && fill && source_here && for_each_slot(s, SLOT_FILL, size, 0, &bad))
        return -1;
    if (!again && warm && client_phase(s, "warmup", size, warm, 0, &probe, &theirs))
        return -1;
    if (cfg->time_per_size > 0)
        iters = gdr_calibrated_iters(cal->iters, cal->elapsed_ns, cfg->time_per_size, r->min_iters);
    /* How long the timed phase should take, so the server's wait for its end
     * stretches with it: from the warm-up, else from the last size's rate
     * (an overestimate: larger messages move faster); else unknown, and the
     * server waits --timeout. */
    double expect_s =
        gdr_expected_seconds(cal->iters, cal->elapsed_ns, iters, size, s->last_bytes_per_s);
    if (cfg->validate && dest_here && for_each_slot(s, SLOT_ZERO, size, iters, &bad))
        return -1;
    if (client_phase(s, "timed", size, iters, 2 * expect_s, &mine, &theirs))
        return -1;
    bad = theirs.bad_bytes;
    /* Bidirectional: the server checked what landed there, this end what
     * landed here. */
    uint64_t bad_here = 0;
    if (cfg->validate && dest_here && for_each_slot(s, SLOT_CHECK, size, iters, &bad_here))
        return -1;
    bad += bad_here;
    fill_row(s, row, size, &mine, &theirs, bad);
    if (mine.m.elapsed_ns)
        s->last_bytes_per_s = (double)iters * (double)size * 1e9 / (double)mine.m.elapsed_ns;
    return bad ? data_check_failed(size, bad) : 0;
}

static int send_bye(struct gdr_session *s)
{
    cJSON *bye = cJSON_CreateObject();
    int rc = gdr_oob_send(&s->oob, GDR_MSG_BYE, bye);
    cJSON_Delete(bye);
    return rc;
}

/* --soak: the one size, an interval (a timed phase) after another until
 * the duration is over or a signal asks; the row holds the last one. */
static int client_soak(struct gdr_session *s, struct gdr_size_result *row, size_t *nrows)
{
    uint64_t size = s->cfg->sizes.size[0];
    snprintf(s->oob.at, sizeof(s->oob.at), " at size %llu", (unsigned long long)size);
    if (gdr_soak_begin(s))
        return -1;
    while (gdr_soak_more(s)) {
        gdr_error_at("", size);
        int rc = client_size(s, size, row);
        /* An outage: both ends rebuild their QPs and run the interval again. */
        if (rc && gdr_soak_outage_error(s)) {
            if (gdr_soak_reconnect(s))
                return -1;
            continue;
        }
        if (rc)
            gdr_soak_note_peer_gone(s);
        if (rc && row->bad_bytes)
            *nrows = 1;
        if (rc)
            return -1;
        *nrows = 1;
        gdr_output_row(s, row);
        if (gdr_soak_interval(s, row))
            return -1;
    }
    s->oob.at[0] = '\0';
    gdr_error_at(NULL, 0);
    return send_bye(s);
}

int gdr_client_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows)
{
    if (s->cfg->soak_s > 0)
        return client_soak(s, rows, nrows);
    const struct gdr_size_list *sizes = &s->cfg->sizes;
    struct gdr_progress progress;
    gdr_progress_start(&progress, s->cfg, sizes->count);
    for (size_t i = 0; i < sizes->count; i++) {
        gdr_progress_show(&progress, i, sizes->size[i]);
        snprintf(s->oob.at, sizeof(s->oob.at), " at size %llu", (unsigned long long)sizes->size[i]);
        gdr_error_at("", sizes->size[i]);
        int rc = client_size(s, sizes->size[i], &rows[i]);
        if (rc && rows[i].bad_bytes)
            *nrows = i + 1; /* keep the failing row: it shows the damage */
        if (rc)
            return -1;
        *nrows = i + 1;
        gdr_output_row(s, &rows[i]);
    }
    gdr_progress_done(&progress);
    s->oob.at[0] = '\0';
    gdr_error_at(NULL, 0);
    return send_bye(s);
}

/* ---- server ---- */

/* The session's checks of a SIZE_START the codec accepted. */
static int check_start(struct gdr_session *s, const struct gdr_size_start *st, uint64_t want_size,
                       const char *what)
{
    if (st->size != want_size)
        return gdr_fail(GDR_EXIT_RUN, "%s: size %llu, but the next size here is %llu", what,
                        (unsigned long long)st->size, (unsigned long long)want_size);
    if (st->iters < s->roles.min_iters)
        return gdr_fail(GDR_EXIT_RUN, "%s: %llu iterations is too few", what,
                        (unsigned long long)st->iters);
    return 0;
}

/* How long ago the size's traffic ended, as the server sees it: at the
 * later of its own loop's end and the client's, which ended at least
 * after_loop_s before its SIZE_DONE left. Durations only: the two clocks
 * are never compared. The client's wait for its counters thus counts
 * towards the server's. */
static uint64_t traffic_quiet_ns(uint64_t loop_end, uint64_t done_at,
                                 const struct gdr_counter_deltas *client)
{
    uint64_t now = gdr_now_ns();
    uint64_t since_mine = now - loop_end;
    uint64_t since_client = now - done_at + (uint64_t)(client->after_loop_s * 1e9);
    return since_mine < since_client ? since_mine : since_client;
}

static int server_phase(struct gdr_session *s, const struct gdr_size_start *st, bool *filled,
                        struct gdr_size_result *row)
{
    const struct gdr_config *cfg = s->cfg;
    const struct gdr_roles *r = &s->roles;
    bool timed = strcmp(st->phase, "timed") == 0;
    bool source_here = gdr_role_mine(r->source, true), dest_here = gdr_role_mine(r->dest, true);
    uint64_t bad = 0;
    if ((cfg->validate || r->polls_memory) && source_here && !*filled) {
        if (for_each_slot(s, SLOT_FILL, st->size, 0, &bad))
            return -1;
        *filled = true;
    }
    if (cfg->validate && dest_here && timed &&
        for_each_slot(s, SLOT_ZERO, st->size, st->iters, &bad))
        return -1;
    uint64_t prestage_ns = 0;
    /* Every slot the reads will rotate through (one for latency). */
    if (r->prestager == GDR_SIDE_SERVER &&
        gdr_staged_prestage(s, gdr_slots_for(s, st->size) * st->size, &prestage_ns))
        return -1;
    if (prepare_loop(s, r->server_loop, st->size, st->iters))
        return -1;
    /* The port's counters from before the client can send until its done
     * message: this end may have no loop of its own (a write's target). */
    if (timed)
        gdr_context_size_begin(s);
    cJSON *msg = cJSON_CreateObject();
    int rc = gdr_oob_send(&s->oob, GDR_MSG_READY, msg);
    cJSON_Delete(msg);
    if (rc)
        return -1;

    static struct gdr_size_result_msg result; /* large; one sweep per process */
    static struct gdr_size_done_msg theirs;
    memset(&result, 0, sizeof(result));
    struct gdr_measure *mine = &result.m;
    struct gdr_cpu_mark mark;
    gdr_cpu_mark(&mark);
    if (run_loop(s, r->server_loop, st->size, st->iters, mine))
        return -1;
    uint64_t loop_end = gdr_now_ns();
    cJSON *done;
    if (gdr_oob_recv(&s->oob, GDR_MSG_SIZE_DONE, st->expect_s, &done))
        return -1;
    uint64_t done_at = gdr_now_ns();
    mine->cpu = gdr_cpu_since(&mark);
    char what[160];
    snprintf(what, sizeof(what), "SIZE_DONE from %s", s->oob.peer);
    rc = gdr_size_done_decode(done, &theirs, what);
    cJSON_Delete(done);
    if (rc)
        return -1;
    if (timed)
        gdr_context_size_end(s, traffic_quiet_ns(loop_end, done_at, &theirs.seen.nic),
                             &result.seen);
    if (cfg->validate && dest_here && timed &&
        for_each_slot(s, SLOT_CHECK, st->size, st->iters, &bad))
        return -1;

    result.bad_bytes = bad;
    result.prestage_s = (double)prestage_ns * 1e-9;
    msg = gdr_size_result_encode(&result);
    rc = gdr_oob_send(&s->oob, GDR_MSG_SIZE_RESULT, msg);
    cJSON_Delete(msg);
    if (rc)
        return -1;
    if (timed)
        fill_row(s, row, st->size, &theirs, &result, bad);
    return bad ? data_check_failed(st->size, bad) : 0;
}

/* The next SIZE_START of size `want` (decoded and checked), or with
 * bye set the client's BYE where one may come. */
static int server_next(struct gdr_session *s, uint64_t want, bool bye_ok, bool *bye,
                       struct gdr_size_start *st)
{
    unsigned type;
    cJSON *msg;
    *bye = false;
    /* Between sizes the client may be validating or calibrating. */
    if (gdr_oob_recv_any(&s->oob, 0, &type, &msg))
        return -1;
    if (bye_ok && type == GDR_MSG_BYE) {
        cJSON_Delete(msg);
        *bye = true;
        return 0;
    }
    if (type != GDR_MSG_SIZE_START) {
        cJSON_Delete(msg);
        return gdr_fail(GDR_EXIT_RUN, "peer %s: expected SIZE_START for size %llu, got %s",
                        s->oob.peer, (unsigned long long)want, gdr_msg_type_name(type));
    }
    char what[160];
    snprintf(what, sizeof(what), "SIZE_START from %s", s->oob.peer);
    int rc = gdr_size_start_decode(msg, st, what) || check_start(s, st, want, what);
    cJSON_Delete(msg);
    if (!rc)
        gdr_error_at(st->phase, st->size);
    return rc ? -1 : 0;
}

/* --soak (learnt from the client): its phases until its BYE. */
static int server_soak(struct gdr_session *s, struct gdr_size_result *row, size_t *nrows)
{
    uint64_t size = s->cfg->sizes.size[0];
    bool filled = false, bye = false;
    snprintf(s->oob.at, sizeof(s->oob.at), " at size %llu", (unsigned long long)size);
    if (gdr_soak_begin(s))
        return -1;
    for (;;) {
        gdr_error_at("", size);
        struct gdr_size_start st;
        int rc = server_next(s, size, true, &bye, &st);
        if (!rc && bye)
            break;
        rc = rc || server_phase(s, &st, &filled, row);
        if (rc && gdr_soak_outage_error(s)) {
            if (gdr_soak_reconnect(s))
                return -1;
            continue;
        }
        if (rc) {
            gdr_soak_note_peer_gone(s);
            if (row->bad_bytes)
                *nrows = 1;
            return -1;
        }
        if (strcmp(st.phase, "timed"))
            continue;
        *nrows = 1;
        gdr_output_row(s, row);
        if (gdr_soak_interval(s, row))
            return -1;
    }
    s->oob.at[0] = '\0';
    gdr_error_at(NULL, 0);
    return 0;
}

int gdr_server_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows)
{
    if (s->cfg->soak_s > 0)
        return server_soak(s, rows, nrows);
    const struct gdr_size_list *sizes = &s->cfg->sizes;
    for (size_t i = 0; i < sizes->count; i++) {
        bool filled = false, timed = false;
        snprintf(s->oob.at, sizeof(s->oob.at), " at size %llu", (unsigned long long)sizes->size[i]);
        gdr_error_at("", sizes->size[i]);
        while (!timed) {
            struct gdr_size_start st;
            bool bye;
            int rc = server_next(s, sizes->size[i], false, &bye, &st);
            if (rc || server_phase(s, &st, &filled, &rows[i])) {
                if (rows[i].bad_bytes)
                    *nrows = i + 1;
                return -1;
            }
            timed = strcmp(st.phase, "timed") == 0;
            gdr_error_at("", sizes->size[i]);
        }
        *nrows = i + 1;
        gdr_output_row(s, &rows[i]);
    }
    s->oob.at[0] = '\0';
    gdr_error_at(NULL, 0);
    cJSON *bye;
    if (gdr_oob_recv(&s->oob, GDR_MSG_BYE, 0, &bye))
        return -1;
    cJSON_Delete(bye);
    return 0;
}
