/* clock.h - the time base for every measurement, and process CPU use.
 *
 * CLOCK_MONOTONIC_RAW is immune to NTP slewing and needs no CPU-frequency
 * calibration (unlike a raw TSC), and the vDSO makes it cheap enough to
 * read per iteration. */
#ifndef GDR_CLOCK_H
#define GDR_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds on the monotonic raw clock. */
uint64_t gdr_now_ns(void);

/* Per-iteration timestamps (latency samples): the TSC, one rdtscp (no
 * system call), converted to nanoseconds with the rate measured against
 * CLOCK_MONOTONIC_RAW over the same interval, where it cannot lie: the CPU
 * says it is invariant, the kernel trusts it too (its clocksource is tsc:
 * the kernel checked it against other clocks and across CPUs) and the loop
 * is pinned to one CPU. rdtscp also says which CPU it read, and a sample
 * whose two readings come from different CPUs (whose TSCs may differ) is
 * dropped, not turned into a wrapped 1e19. Elsewhere the monotonic raw
 * clock itself. GDR_CLOCK=monotonic forces the fallback; GDR_CLOCK=tsc
 * forces the TSC (a virtual machine that hides the flag; migrations are
 * still dropped). */
struct gdr_tick_clock {
    bool tsc;             /* ticks are TSC cycles, else nanoseconds */
    bool invariant;       /* the CPU says its TSC is invariant */
    bool pinned;          /* the loop runs on one CPU */
    char clocksource[32]; /* the kernel's ("" unknown) */
    const char *why;      /* why this source (gdr_clock_choose) */
    uint64_t start_ticks, start_ns;
    double ns_per_tick; /* set by gdr_tick_clock_stop */
    uint64_t dropped;   /* samples dropped for a CPU change, over the run */
};

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GDR_HAVE_TSC 1
#define GDR_TSC_PRESENT true
#else
#define GDR_TSC_PRESENT false
#endif

static inline uint64_t gdr_ticks(const struct gdr_tick_clock *c)
{
#ifdef GDR_HAVE_TSC
    if (c->tsc)
        return __rdtsc();
#endif
    (void)c;
    return gdr_now_ns();
}

/* A reading and where it was taken: with the TSC, rdtscp's TSC_AUX (Linux
 * puts the CPU and node number there); else 0. */
static inline uint64_t gdr_ticks_on(const struct gdr_tick_clock *c, unsigned *where)
{
#ifdef GDR_HAVE_TSC
    if (c->tsc)
        return __rdtscp(where);
#endif
    *where = 0;
    return gdr_now_ns();
}

/* One sample from two readings: kept (true, *ticks the difference) only
 * when both were taken on the same CPU and the second is not earlier; a
 * difference across two TSCs could be anything, down to a wrapped 1e19. */
static inline bool gdr_tick_sample(uint64_t prev, unsigned prev_where, uint64_t now, unsigned where,
                                   uint64_t *ticks)
{
    if (where != prev_where || now < prev)
        return false;
    *ticks = now - prev;
    return true;
}

/* The latency guard: the TSC only when it cannot lie (see above). force:
 * GDR_CLOCK's value (NULL unset); present: the CPU has a TSC and RDTSCP. *why
 * says what decided, for the JSON. */
bool gdr_clock_choose(const char *force, bool present, bool invariant, const char *clocksource,
                      bool pinned, const char **why);

/* The kernel's current clocksource (sysfs); "" when unreadable. */
void gdr_kernel_clocksource(char *buf, unsigned long len);

/* Does this CPU say its TSC runs at a constant rate in every state
 * (CPUID 0x80000007 EDX bit 8)? */
bool gdr_tsc_invariant(void);
/* Can the loop read the TSC here: a TSC and the RDTSCP instruction (some
 * hypervisors hide RDTSCP; the TSC is then never used, even if forced)? */
bool gdr_tsc_readable(void);
/* Choose the source (pinned: the loop runs on one CPU) and mark the start
 * of the calibration interval. */
void gdr_tick_clock_start(struct gdr_tick_clock *c, bool pinned);
/* Mark its end: the TSC's rate over the interval, in ns per tick. */
void gdr_tick_clock_stop(struct gdr_tick_clock *c);
/* The rate from two readings of both clocks (1.0 when ticks are ns or
 * the interval is empty). */
double gdr_ns_per_tick(uint64_t ticks0, uint64_t ns0, uint64_t ticks1, uint64_t ns1);
static inline uint64_t gdr_ticks_to_ns(const struct gdr_tick_clock *c, uint64_t ticks)
{
    return c->tsc ? (uint64_t)((double)ticks * c->ns_per_tick + 0.5) : ticks;
}
/* "tsc" or "monotonic_raw": recorded in the JSON. */
const char *gdr_tick_clock_name(const struct gdr_tick_clock *c);

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
