/* slowsysfs.c - an LD_PRELOAD double for the cost of reading an RDMA
 * port's counters on real NICs: mlx5 answers each read of hw_counters/ (and
 * the PMA's counters/) with firmware commands, so a snapshot of a port takes
 * milliseconds, where rxe's in-memory counters take microseconds. Every
 * opendir() of a class/infiniband/.../counters or .../hw_counters directory
 * sleeps GDR_SLOW_COUNTERS_MS (default 0: off) and says so on stderr, so a
 * test sees whether that time lands inside a measurement.
 *
 * With GDR_SLOW_COUNTERS_CACHE=1 it also keeps the kernel's cache of a
 * port's hw_counters: a counter file opened within the lifespan (the
 * directory's lifespan file, in ms) since the last refresh reads the values
 * of that refresh, counted in ticks as the kernel does. See README.md. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

/* ---- the kernel's hw_counters cache ---- */

#define CACHED_DIRS 8
#define CACHED_FILES 256

struct cached_dir {
    char dir[512];
    long long refreshed; /* the tick of the last refresh */
    size_t n;
    char name[CACHED_FILES][64];
    char text[CACHED_FILES][32];
};

static struct cached_dir cache[CACHED_DIRS];
static size_t ncached;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int (*real_open_fn(void))(const char *, int, ...)
{
    static int (*real)(const char *, int, ...);
    if (!real)
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return real;
}

/* A small file's text, through the real open. */
static int read_text(const char *path, char *buf, size_t len)
{
    int fd = real_open_fn()(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static long tick_ms(void)
{
    const char *t = getenv("GDR_SLOW_COUNTERS_TICK_MS");
    long v = t ? strtol(t, NULL, 10) : 0;
    return v > 0 ? v : 4; /* HZ=250, as Debian's kernels */
}

static long long jiffies(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) / tick_ms();
}

/* Every counter of dir as it is now (the lifespan file is no counter). */
static void refresh(struct cached_dir *c, long long now)
{
    static DIR *(*real_opendir)(const char *);
    if (!real_opendir)
        real_opendir = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    DIR *d = real_opendir(c->dir);
    c->n = 0;
    c->refreshed = now;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL && c->n < CACHED_FILES) {
        char path[600];
        if (de->d_name[0] == '.' || strcmp(de->d_name, "lifespan") == 0 ||
            strlen(de->d_name) >= sizeof(c->name[0]))
            continue;
        /* The name fits (checked above); the precisions say so to -O0's
         * -Wformat-truncation, and a path too long is skipped. */
        if ((size_t)snprintf(path, sizeof(path), "%s/%.*s", c->dir, (int)sizeof(c->name[0]) - 1,
                             de->d_name) >= sizeof(path))
            continue;
        if (read_text(path, c->text[c->n], sizeof(c->text[0])) == 0)
            snprintf(c->name[c->n++], sizeof(c->name[0]), "%.*s", (int)sizeof(c->name[0]) - 1,
                     de->d_name);
    }
    if (d)
        closedir(d);
    fprintf(stderr, "slowsysfs: %s refreshed at tick %lld\n", c->dir, now);
}

/* The cache of dir, refreshed when its lifespan has run out. */
static struct cached_dir *cached(const char *dir, long lifespan_ms)
{
    long long now = jiffies();
    long long span = (lifespan_ms + tick_ms() - 1) / tick_ms(); /* msecs_to_jiffies */
    struct cached_dir *c = NULL;
    for (size_t i = 0; i < ncached && !c; i++)
        if (strcmp(cache[i].dir, dir) == 0)
            c = &cache[i];
    if (!c && ncached < CACHED_DIRS) {
        c = &cache[ncached++];
        snprintf(c->dir, sizeof(c->dir), "%s", dir);
        refresh(c, now);
    } else if (c && now > c->refreshed + span) {
        refresh(c, now);
    }
    return c;
}

/* A file descriptor that reads text. */
static int text_fd(const char *text)
{
    int fd = memfd_create("slowsysfs", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (write(fd, text, strlen(text)) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A counter file under hw_counters, served from the cache: the fd, or -2
 * when the path is not one (or the cache is off). */
static int open_cached(const char *path, int flags)
{
    const char *on = getenv("GDR_SLOW_COUNTERS_CACHE");
    const char *slash = strrchr(path, '/');
    char dir[512], lifespan[32];
    if (!on || strcmp(on, "1") || (flags & O_ACCMODE) != O_RDONLY || !slash ||
        !strstr(path, "/class/infiniband/") || (size_t)(slash - path) >= sizeof(dir) ||
        strcmp(slash + 1, "lifespan") == 0)
        return -2;
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    char lpath[600];
    snprintf(lpath, sizeof(lpath), "%s/lifespan", dir);
    if (!ends_with(dir, "/hw_counters") || read_text(lpath, lifespan, sizeof(lifespan)))
        return -2; /* no lifespan: nothing to emulate */
    pthread_mutex_lock(&cache_lock);
    struct cached_dir *c = cached(dir, strtol(lifespan, NULL, 10));
    int fd = -2;
    for (size_t i = 0; c && i < c->n && fd == -2; i++)
        if (strcmp(c->name[i], slash + 1) == 0)
            fd = text_fd(c->text[i]);
    pthread_mutex_unlock(&cache_lock);
    return fd;
}

static int open_either(const char *path, int flags, mode_t mode)
{
    int fd = open_cached(path, flags);
    return fd != -2 ? fd : real_open_fn()(path, flags, mode);
}

__attribute__((visibility("default"))) int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    return open_either(path, flags, mode);
}

/* The same door under its large-file name. */
__attribute__((visibility("default"), alias("open"))) int open64(const char *path, int flags, ...);
