#include "config.h"

#include "clock.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

uint64_t gdr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
