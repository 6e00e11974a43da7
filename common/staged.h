/* staged.h - transfers through host bounce rings (--gdr=off on either
 * end); see staged.c for the protocol. Internal to common/. */
#ifndef GDR_STAGED_H
#define GDR_STAGED_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* Is either end staged (so both must run the staged protocol)? */
bool gdr_staged_run(const struct gdr_session *s);

/* Source side of write/send; measures until the last unit has landed. */
int gdr_staged_source(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);
/* Destination side: post the first receives (before READY), then run. */
int gdr_staged_dest_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
int gdr_staged_dest(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

/* Read responder: copy the first `size` bytes of its GPU buffer into its
 * ring before the reads start (the responder's CPU takes no part in a
 * one-sided read, so this copy is timed apart). */
int gdr_staged_prestage(struct gdr_session *s, uint64_t size, uint64_t *elapsed_ns);

/* Wait for the staging copy at ring slot `slot` to finish, giving up on
 * Ctrl-C, on a vanished peer, or after --timeout without it finishing. */
int gdr_stage_wait(struct gdr_session *s, unsigned slot, uint64_t size);

#endif
