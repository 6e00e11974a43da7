/* pingpong.h - write and send latency: each end answers the other's
 * message, one at a time, and the client's samples are half round trips.
 * Direct and staged ends alike (a staged end copies through its bounce
 * ring inside the loop). Internal to common/. */
#ifndef GDR_PINGPONG_H
#define GDR_PINGPONG_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* How the receiving end learns that a message has arrived. */
enum gdr_completion {
    GDR_COMPLETION_NONE,   /* not a ping-pong */
    GDR_COMPLETION_MEMORY, /* the last byte of the landing buffer changes */
    GDR_COMPLETION_CQ,     /* a receive completion (send, write with immediate) */
};
const char *gdr_completion_name(enum gdr_completion c);
enum gdr_completion gdr_completion_of(const struct gdr_roles *r);

/* Before the peer may send (before SIZE_START or READY): post this end's
 * receives, or arm the byte it polls. */
int gdr_pingpong_prepare(struct gdr_session *s, uint64_t size, uint64_t iters);
/* The loop: the client sends first and samples each answer; the server
 * answers. */
int gdr_loop_pingpong(struct gdr_session *s, uint64_t size, uint64_t iters, struct gdr_measure *m);

#endif
