/* loops.h - the timed loops, one declaration each: the direct ones
 * (loops.c) and those through host bounce rings when either end runs
 * --gdr=off (staged.c), and what they share. Each checks for a stalled or
 * vanished peer and for interruption. Internal to common/. */
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

/* ---- copy-engine staging (staged.c) ---- */

/* Source side of write/send; measures until the last unit has landed. */
int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Destination side: post the first receives (before READY), then run. */
int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Bidirectional: both at once on the same QPs (prepare as a destination
 * first); measures this end's source. */
int gdr_staged_both(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

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
