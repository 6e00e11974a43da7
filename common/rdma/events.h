/* events.h - the device's asynchronous events during a run: a port that
 * goes down, a QP or CQ in error, a device that dies.
 *
 * No thread: the context's async fd is made non-blocking and read where
 * the run already waits or looks around: the loops' watchdog (every 1024
 * idle polls, never per completion), the control channel's waits (the fd
 * is in their poll set) and a failed completion (to name the event that
 * explains it). Every event is acknowledged as soon as it is read: an
 * unacknowledged one would make ibv_destroy_qp wait forever. */
#ifndef GDR_EVENTS_H
#define GDR_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "verbs.h"

/* Start watching v's context (its async fd non-blocking): 0, or -1 with
 * the error recorded. */
int gdr_events_watch(struct gdr_verbs *v);

/* The fd to poll for events (-1 before gdr_events_watch). */
int gdr_events_fd(const struct gdr_verbs *v);

/* Read and acknowledge every pending event. 0 when none of them ends the
 * run; -1 with the error recorded (kind event, the event, where the run
 * was, `iteration` when known) once one does: a port error on the port
 * in use, a QP, CQ, SRQ or WQ in error, a fatal device error. Events that
 * a healthy fabric also sends (port active, LID, GID or SM changes,
 * communication established) are counted and let pass. */
int gdr_events_check(struct gdr_verbs *v, uint64_t iteration);

/* The fatal event seen so far, reading what is pending and waiting up to
 * wait_ms for one (a failed completion can come just before the event
 * that explains it); "" when there is none. Records no error: the event
 * is kept, with when it was read (v->fatal_at_ns), for the next
 * gdr_events_check. */
const char *gdr_events_fatal(struct gdr_verbs *v, int wait_ms);

/* After an outage, once the port is back and the QPs are new: read and
 * acknowledge what is pending and forget the fatal event seen, so the
 * next one is noticed again. */
void gdr_events_forget(struct gdr_verbs *v);

/* Does this event end a run on v (its port, its QPs and CQs)? */
bool gdr_event_is_fatal(const struct gdr_verbs *v, const struct ibv_async_event *e);

/* "IBV_EVENT_PORT_ERR", "IBV_WC_RETRY_EXC_ERR": the names in verbs.h
 * ("IBV_EVENT_UNKNOWN", "IBV_WC_UNKNOWN" for codes it lacks). */
const char *gdr_event_name(enum ibv_event_type t);
const char *gdr_wc_status_name(enum ibv_wc_status s);

#endif
