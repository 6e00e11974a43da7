/* session.h - one benchmark run between two ends: the state the harness
 * threads through connection, sweep and report. Internal to common/. */
#ifndef GDR_SESSION_H
#define GDR_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "cm.h"
#include "endpoint.h"
#include "mem.h"
#include "oob.h"
#include "options.h"
#include "roles.h"
#include "stats.h"
#include "test.h"
#include "verbs.h"

struct gdr_session {
    const struct gdr_test *test;
    const struct gdr_config *cfg;
    bool is_server;
    struct gdr_oob oob;
    int listen_fd;
    struct gdr_verbs verbs;
    struct gdr_cm *cm; /* -R only */
    struct gdr_buffer buf;
    struct gdr_endpoint local, remote;
    struct gdr_roles roles; /* who does what: final once the ends are known */
    /* Where each direction's data sits in the buffer: an end sends from
     * [0, region) and the peer's data lands at [dest_off, dest_off +
     * region) (the same place one way; the second half bidirectionally). */
    uint64_t region, dest_off;
    /* Staged runs: the word the peer's destination writes its credits
     * into, and the one this end's destination writes them from. */
    uint64_t *credit_page;
    struct ibv_mr *credit_mr;
    struct gdr_oob_refusal refusal;  /* server: other clients are told it is busy */
    uint64_t rx_posted[GDR_MAX_QPS]; /* receives posted this phase, per QP */
    double last_bytes_per_s;         /* client: the last size's rate, for deadlines */
    struct gdr_tick_clock clock;     /* the latency samples' clock (the last size's) */
    char start_time[32];
};

/* The most a loop had in flight at once: sent and not yet known to have
 * landed (direct: completed; staged: credited). */
struct gdr_window {
    uint64_t msgs, bytes;
};
static inline void gdr_window_note(struct gdr_window *w, uint64_t msgs, uint64_t bytes)
{
    if (msgs > w->msgs)
        w->msgs = msgs;
    if (bytes > w->bytes)
        w->bytes = bytes;
}

/* One side's measurement of one timed phase. */
struct gdr_measure {
    uint64_t iters, bytes, elapsed_ns;
    struct gdr_window window;         /* what this end sent: most in flight */
    double bw_avg, bw_peak, msg_rate; /* bytes/s, messages/s */
    struct gdr_lat_stats lat;         /* latency tests only */
    struct gdr_cpu_use cpu;
};

/* One row of the report: a size, measured by the side that counts it. */
struct gdr_size_result {
    uint64_t size;
    struct gdr_measure m;                    /* the counting side's numbers (bidirectional:
                                         * the sum of both directions) */
    struct gdr_measure to_server, to_client; /* bidirectional: each direction */
    struct gdr_window window;                /* the client's sending window (one way) */
    struct gdr_cpu_use cpu_client, cpu_server;
    bool validated; /* --validate ran for this size */
    uint64_t bad_bytes;
    double server_prestage_s; /* staged read: the responder's copy */
};

/* RDMA reads the client may have in flight per QP, as this end's QPs
 * were connected (the client's requester side, the server's responder
 * side: both ends negotiate the same number). */
static inline unsigned gdr_reads_in_flight_of(const struct gdr_session *s)
{
    return s->is_server ? s->verbs.max_dest_rd_atomic : s->verbs.max_rd_atomic;
}

/* Slots of `size` bytes each direction's region holds (at least 1). */
uint64_t gdr_slots_for(const struct gdr_session *s, uint64_t size);

/* The timed loops (loops.c; staged.c for the staged ones). Each checks
 * for a stalled or vanished peer and for interruption. */
int gdr_loop_sender(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* Post a phase's first receives; the caller then tells the sender to go. */
int gdr_loop_receiver_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_loop_receiver(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Bidirectional send: keep receives posted and send at once; measures
 * what arrives. */
int gdr_loop_sender_receiver(struct gdr_session *s, uint64_t size, uint64_t iters,
                             struct gdr_measure *m);
int gdr_loop_latency(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* What the loops share (loops.c). The inline flag for a post of `size`
 * bytes (never from GPU memory); a measure's rates from its count and
 * time. */
unsigned gdr_inline_flag(const struct gdr_session *s, enum ibv_wr_opcode op, uint64_t size);
void gdr_finish_measure(struct gdr_measure *m, uint64_t size, uint64_t counted,
                        uint64_t elapsed_ns);

/* Latency samples, one clock read per iteration: sample i is the time
 * since the previous one (or the start). */
struct gdr_samples {
    uint64_t *ticks;
    uint64_t start, prev;
    struct gdr_tick_clock clk;
};
int gdr_samples_start(struct gdr_samples *sm, uint64_t iters);
static inline void gdr_samples_take(struct gdr_samples *sm, uint64_t i)
{
    uint64_t now = gdr_ticks(&sm->clk);
    sm->ticks[i] = now - sm->prev;
    sm->prev = now;
}
/* Stop the clock (it becomes the session's); unless rc, the statistics
 * of `iters` samples, each divided by per_sample (2: half a round trip),
 * into m. Frees the samples; returns rc. */
int gdr_samples_finish(struct gdr_session *s, struct gdr_samples *sm, uint64_t size, uint64_t iters,
                       unsigned per_sample, int rc, struct gdr_measure *m);

/* The per-size protocol and the sweep (protocol.c). The pattern seed of
 * the data an end sends from slot `slot` (each end has its own). */
uint64_t gdr_source_seed(uint64_t size, uint64_t slot, bool from_server);
int gdr_client_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows);
int gdr_server_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows);

#endif
