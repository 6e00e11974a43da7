#include "config.h"

#include "clock.h"

#ifdef GDR_HAVE_TSC
#include <cpuid.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t gdr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool gdr_tsc_invariant(void)
{
#ifdef GDR_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return false;
#endif
}

/* RDTSCP (CPUID 0x80000001 EDX bit 27): some hypervisors hide it, and
 * executing it there would be SIGILL. */
static bool has_rdtscp(void)
{
#ifdef GDR_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000001u)
        return false;
    __get_cpuid(0x80000001u, &a, &b, &c, &d);
    return (d >> 27) & 1;
#else
    return false;
#endif
}

bool gdr_tsc_readable(void)
{
    return GDR_TSC_PRESENT && has_rdtscp();
}

bool gdr_clock_choose(const char *force, bool present, bool invariant, const char *clocksource,
                      bool pinned, const char **why)
{
    bool tsc = false;
    if (force && !strcmp(force, "monotonic")) {
        *why = "GDR_CLOCK=monotonic";
    } else if (force && !strcmp(force, "tsc")) {
        tsc = present;
        *why = present ? "GDR_CLOCK=tsc" : "GDR_CLOCK=tsc, but this CPU has no TSC or RDTSCP";
    } else if (!present || !invariant) {
        *why = "the CPU does not flag an invariant TSC";
    } else if (!clocksource || strcmp(clocksource, "tsc")) {
        *why = "the kernel's clocksource is not tsc";
    } else if (!pinned) {
        *why = "the loop is not pinned to one CPU";
    } else {
        tsc = true;
        *why = "invariant TSC, the kernel's clocksource, the loop pinned";
    }
    return tsc;
}

void gdr_kernel_clocksource(char *buf, unsigned long len)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    buf[0] = '\0';
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

void gdr_tick_clock_start(struct gdr_tick_clock *c, bool pinned)
{
    c->invariant = gdr_tsc_invariant();
    c->pinned = pinned;
    gdr_kernel_clocksource(c->clocksource, sizeof(c->clocksource));
    c->tsc = gdr_clock_choose(getenv("GDR_CLOCK"), gdr_tsc_readable(), c->invariant, c->clocksource,
                              pinned, &c->why);
    c->ns_per_tick = 1.0;
    c->dropped = 0;
    c->start_ns = gdr_now_ns();
    c->start_ticks = gdr_ticks(c);
}

double gdr_ns_per_tick(uint64_t ticks0, uint64_t ns0, uint64_t ticks1, uint64_t ns1)
{
    if (ticks1 <= ticks0 || ns1 <= ns0)
        return 1.0;
    return (double)(ns1 - ns0) / (double)(ticks1 - ticks0);
}

void gdr_tick_clock_stop(struct gdr_tick_clock *c)
{
    if (!c->tsc)
        return;
    uint64_t ticks = gdr_ticks(c), ns = gdr_now_ns();
    c->ns_per_tick = gdr_ns_per_tick(c->start_ticks, c->start_ns, ticks, ns);
}

const char *gdr_tick_clock_name(const struct gdr_tick_clock *c)
{
    return c->tsc ? "tsc" : "monotonic_raw";
}

static uint64_t timeval_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

void gdr_cpu_mark(struct gdr_cpu_mark *m)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m->wall_ns = gdr_now_ns();
    m->user_ns = timeval_ns(ru.ru_utime);
    m->system_ns = timeval_ns(ru.ru_stime);
}

struct gdr_cpu_use gdr_cpu_since(const struct gdr_cpu_mark *start)
{
    struct gdr_cpu_mark end;
    struct gdr_cpu_use use = {0, 0};
    gdr_cpu_mark(&end);
    double wall = (double)(end.wall_ns - start->wall_ns);
    if (wall <= 0)
        return use;
    use.user = (double)(end.user_ns - start->user_ns) / wall;
    use.system = (double)(end.system_ns - start->system_ns) / wall;
    return use;
}

void gdr_utc_iso8601(char *buf, unsigned long len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
