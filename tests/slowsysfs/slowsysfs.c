/* slowsysfs.c - an LD_PRELOAD double for the cost of reading an RDMA
 * port's counters on real NICs: mlx5 answers each read of hw_counters/ (and
 * the PMA's counters/) with firmware commands, so a snapshot of a port takes
 * milliseconds, where rxe's in-memory counters take microseconds. Every
 * opendir() of a class/infiniband/.../counters or .../hw_counters directory
 * sleeps GDR_SLOW_COUNTERS_MS (default 0: off) and says so on stderr, so a
 * test sees whether that time lands inside a measurement. See README.md. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

__attribute__((visibility("default"))) DIR *opendir(const char *name)
{
    static DIR *(*real)(const char *);
    if (!real)
        real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    const char *ms = getenv("GDR_SLOW_COUNTERS_MS");
    long delay = ms ? strtol(ms, NULL, 10) : 0;
    if (delay > 0 && strstr(name, "/class/infiniband/") &&
        (ends_with(name, "/counters") || ends_with(name, "/hw_counters"))) {
        fprintf(stderr, "slowsysfs: opendir(%s): %ld ms\n", name, delay);
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&ts, &ts))
            ;
    }
    return real ? real(name) : NULL;
}
