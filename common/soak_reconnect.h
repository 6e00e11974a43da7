/* soak_reconnect.h - a soak through an outage (issue 35 item 2): the port
 * went down or the QPs failed (an error completion, a flushed queue, a
 * fatal asynchronous event, a stall), and the soak waits for the port,
 * rebuilds its QPs on both ends through the control channel and runs the
 * interval that was cut short again.
 *
 * The control channel (TCP) is assumed to survive: it does across a flap
 * of seconds to minutes (TCP retransmits for about 15 minutes), and a
 * channel that closes is a peer that has gone, which ends the soak as
 * before. The handshake, the same at both ends:
 *
 *   1. OUTAGE {intervals, message, class} to the peer, once; unless the
 *      peer's OUTAGE was what this end failed on, read until it comes
 *      (messages of the interval cut short are dropped on the way).
 *   2. Wait for the port: ACTIVE, and the GID in use back in the table.
 *   3. Destroy the QPs, poll their flushes out of the CQs, create new ones
 *      (new QPNs, a new PSN); memory, registrations, CQs stay.
 *   4. REJOIN {intervals, endpoint}: the client sends first, the server
 *      answers; both must hold the same number of intervals (where the
 *      soak resumes), then each moves its new QPs to RTS against the
 *      peer's. The client's next SIZE_START only follows its own RTS and
 *      the server's READY only its own, so no request meets a QP that is
 *      not ready.
 *
 * Every step has the same deadline, --reconnect-timeout from the outage's
 * start. An end that misses it says why (ERROR) and ends with exit 1; the
 * other learns it from that ERROR. Internal to common/. */
#ifndef GDR_SOAK_RECONNECT_H
#define GDR_SOAK_RECONNECT_H

#include <stdbool.h>

struct gdr_session;

/* Is the error just recorded one a soak outlives (a failed or flushed
 * completion, a fatal asynchronous event, a stall, the peer's OUTAGE),
 * rather than the peer giving up or going, a data check, a signal? */
bool gdr_soak_outage_error(const struct gdr_session *s);

/* Go through the outage: 0 with the error forgotten, the QPs rebuilt and
 * the outage recorded as over; -1 with the error recorded (the deadline,
 * the peer's ERROR, a signal) and the outage recorded as what ended the
 * soak. */
int gdr_soak_reconnect(struct gdr_session *s);

/* The control channel closed (the peer's process or host went): nothing
 * to wait for, the soak ends; the moment is recorded as an outage that
 * ended it ("failed"), so the lines and the findings say when. Does
 * nothing for any other error. */
void gdr_soak_note_peer_gone(struct gdr_session *s);

#endif
