/* soak.h - a soak (--soak): one size run in intervals for a duration.
 * protocol.c drives the intervals (each a timed phase calibrated to
 * --interval, both ends holding the same row); this module keeps what each
 * interval left: one JSON line (--json-lines, flushed as the interval
 * ends), a point for the findings (util/soak_findings.c), and at the end
 * the summary on stderr and in the document. Internal to common/. */
#ifndef GDR_SOAK_H
#define GDR_SOAK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define GDR_SOAK_LINE_SCHEMA "gdrbench.soak-interval/1"

struct gdr_session;
struct gdr_size_result;

/* Set by the first SIGTERM or SIGINT of a client's soak (harness.c): the
 * soak ends once the interval under way is over. A second one interrupts. */
extern volatile sig_atomic_t gdr_soak_stop;
/* When the signal that set gdr_soak_stop came (gdr_now_ns; written by the
 * handler before the flag, read once the flag is seen): the document's
 * signal_s, so a test judges "ended after the interval under way" from the
 * tool's own clock, not from its own view of when it sent the signal. */
extern volatile uint64_t gdr_soak_signal_ns;
/* The client soaks: a signal asks for the end of the soak, not of the run. */
extern volatile sig_atomic_t gdr_soak_graceful;

/* Start the soak's record (opens --json-lines). -1 after gdr_fail. */
int gdr_soak_begin(struct gdr_session *s);
/* Client: should another interval run (time left, no signal)? */
bool gdr_soak_more(const struct gdr_session *s);
/* An interval ended with this row: its line and its point. -1 after
 * gdr_fail (the line could not be written). */
int gdr_soak_interval(struct gdr_session *s, const struct gdr_size_result *row);
/* An outage began (soak_reconnect.c): the class and message of what
 * failed here, or of the peer's OUTAGE (heard); a line on stderr and a
 * "down" line. -1 after gdr_fail (the line could not be written). */
struct gdr_error_class;
int gdr_soak_outage_begin(struct gdr_session *s, const struct gdr_error_class *c,
                          const char *message, bool heard);
/* It ended: "reconnected" (the interval it cut short runs again; the next
 * interval starts now), "deadline" or "failed"; its line. Once. */
int gdr_soak_outage_end(struct gdr_session *s, const char *ended);
/* When the outage under way began, in the soak's seconds. */
double gdr_soak_outage_start(const struct gdr_session *s);
/* Intervals recorded so far: where the soak resumes. */
size_t gdr_soak_intervals(const struct gdr_session *s);
/* The findings (outages first), the summary line and a line per finding on stderr.
 * Returns how many findings there are. */
size_t gdr_soak_finish(struct gdr_session *s);
/* The document's "soak" block. */
cJSON *gdr_soak_json(const struct gdr_session *s);
void gdr_soak_release(struct gdr_session *s);

#endif
