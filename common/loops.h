/* loops.h - the timed loops, one declaration each: the direct ones
 * (loops.c), the write/send ping-pong (pingpong.c), those through host
 * bounce rings when either end runs --gdr=off (staged.c, staged_read.c),
 * and what they share. Each checks for a stalled or vanished peer and for
 * interruption. Internal to common/. */
#ifndef GDR_LOOPS_H
#define GDR_LOOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* Slots of `size` bytes each direction's region holds (at least 1). */
uint64_t gdr_slots_for(const struct gdr_session *s, uint64_t size);

/* A loop's totals: `counted` messages of `size` bytes in elapsed_ns; the
 * average rate, the message rate, and the peak at least the average. */
void gdr_measure_finish(struct gdr_measure *m, uint64_t size, uint64_t counted,
                        uint64_t elapsed_ns);

/* The inline flag for a post of `size` bytes (up to -I, never from GPU
 * memory). */
unsigned gdr_inline_flag(const struct gdr_session *s, enum ibv_wr_opcode op, uint64_t size);

/* Latency samples, one clock read per iteration: sample i is the time
 * since the previous reading (or the start). The clock is the TSC where it
 * cannot lie (clock.h), calibrated against CLOCK_MONOTONIC_RAW over the
 * loop; a sample whose two readings come from two CPUs is dropped. */
struct gdr_samples {
    uint64_t *ticks;
    uint64_t kept, prev, start_ns;
    unsigned prev_where;
    struct gdr_tick_clock clk;
};
/* Allocate room for `iters` samples and start the clock (pinned: the
 * session's loop CPU is claimed). */
int gdr_samples_start(struct gdr_samples *sm, const struct gdr_session *s, uint64_t iters);
static inline void gdr_samples_take(struct gdr_samples *sm)
{
    unsigned where;
    uint64_t now = gdr_ticks_on(&sm->clk, &where);
    if (gdr_tick_sample(sm->prev, sm->prev_where, now, where, &sm->ticks[sm->kept]))
        sm->kept++;
    else
        sm->clk.dropped++;
    sm->prev = now;
    sm->prev_where = where;
}
/* Stop the clock (it becomes the session's, its dropped samples added to
 * the run's); unless rc, the statistics of the kept samples, each divided
 * by per_sample (2: half a round trip), and the totals of `iters`
 * messages into m. Frees the samples; returns rc, or -1 when every sample
 * was dropped. */
int gdr_samples_finish(struct gdr_session *s, struct gdr_samples *sm, uint64_t size, uint64_t iters,
                       unsigned per_sample, int rc, struct gdr_measure *m);

/* ---- direct (loops.c) ---- */

int gdr_loop_sender(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Post a phase's first receives; the caller then tells the sender to go. */
int gdr_loop_receiver_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_loop_receiver(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Bidirectional send: keep receives posted and send at once; measures
 * what arrives. */
int gdr_loop_sender_receiver(struct gdr_session *s, uint64_t size, uint64_t iters,
                             struct gdr_measure *m);
int gdr_loop_latency(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* ---- write and send latency, direct and staged (pingpong.c) ---- */

/* Before the peer may send (before SIZE_START or READY): post this end's
 * receives, or arm the byte it polls. */
int gdr_pingpong_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
/* Each end answers the other, one message at a time; the client samples
 * half round trips. */
int gdr_loop_pingpong(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* ---- copy-engine staging (staged.c) ---- */

/* Source side of write/send; measures until the last unit has landed. */
int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Destination side: post the first receives (before READY), then run. */
int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Bidirectional: both at once on the same QPs (prepare as a destination
 * first); measures this end's source. */
int gdr_staged_both(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* RDMA read bandwidth with a staged requester (staged_read.c): reads land
 * in its ring and are copied on into GPU memory; measures until the last
 * message is there. */
int gdr_staged_reader(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* The registered credit page each end has whatever its buffer (either
 * may be the source): the entries the peer's destination writes into,
 * and those this end's destination writes from. */
int gdr_staged_credits_setup(struct gdr_session *s);
void gdr_staged_credits_release(struct gdr_session *s);

/* Read responder: copy the first `size` bytes of its GPU buffer into its
 * ring before the reads start (the responder's CPU takes no part in a
 * one-sided read, so this copy is timed apart). */
int gdr_staged_prestage(struct gdr_session *s, uint64_t size, uint64_t *elapsed_ns);

#endif
