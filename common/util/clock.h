/* clock.h - the time base for every measurement, and process CPU use.
 *
 * CLOCK_MONOTONIC_RAW is immune to NTP slewing and needs no CPU-frequency
 * calibration (unlike a raw TSC), and the vDSO makes it cheap enough to
 * read per iteration. */
#ifndef GDR_CLOCK_H
#define GDR_CLOCK_H

#include <stdint.h>

/* Nanoseconds on the monotonic raw clock. */
uint64_t gdr_now_ns(void);

/* A point in time for CPU accounting: wall clock plus this process's
 * user and system CPU time, all in nanoseconds. */
struct gdr_cpu_mark {
    uint64_t wall_ns, user_ns, system_ns;
};

/* CPU use between two marks, as fractions of one CPU's wall time
 * (a busy-polling single thread reads about 1.0 in total). */
struct gdr_cpu_use {
    double user, system;
};

void gdr_cpu_mark(struct gdr_cpu_mark *m);
struct gdr_cpu_use gdr_cpu_since(const struct gdr_cpu_mark *start);

/* UTC wall-clock time as ISO 8601 ("2026-11-29T17:10:26Z") into buf. */
void gdr_utc_iso8601(char *buf, unsigned long len);

#endif
