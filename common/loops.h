/* staged.h - transfers through host bounce rings (--gdr=off on either
 * end); see staged.c for the protocol. Internal to common/. */
#ifndef GDR_STAGED_H
#define GDR_STAGED_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* Source side of write/send; measures until the last unit has landed. */
int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Destination side: post the first receives (before READY), then run. */
int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Bidirectional: both at once on the same QPs (prepare as a destination
 * first); measures this end's source. */
int gdr_staged_both(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* The registered word each end's credits are written into (both ends
 * have one whatever their buffer, so either may be the source). */
int gdr_staged_credits_setup(struct gdr_session *s);
void gdr_staged_credits_release(struct gdr_session *s);

/* Read responder: copy the first `size` bytes of its GPU buffer into its
 * ring before the reads start (the responder's CPU takes no part in a
 * one-sided read, so this copy is timed apart). */
int gdr_staged_prestage(struct gdr_session *s, uint64_t size, uint64_t *elapsed_ns);

#endif
