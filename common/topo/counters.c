/* counters.c - an RDMA port's counters from sysfs (see counters.h). */
#include "counters.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kernel's hw_counters lifespan when its file cannot be read. */
#define KERNEL_DEFAULT_LIFESPAN_MS 10
/* A jiffy at HZ=100, the longest the kernel has. */
#define LONGEST_TICK_MS 10

/* Substrings of counter names, checked in this order. */
static const struct {
    const char *part;
    enum gdr_counter_class cls;
} classes[] = {
    /* congestion first: "np_cnp_sent" and "rp_cnp_ignored" are no errors */
    {"cnp", GDR_COUNTER_CONGESTION},
    {"ecn", GDR_COUNTER_CONGESTION},
    {"xmit_wait", GDR_COUNTER_CONGESTION},
    {"retrans", GDR_COUNTER_RETRANSMIT},
    {"retry", GDR_COUNTER_RETRANSMIT},
    {"retries", GDR_COUNTER_RETRANSMIT}, /* mlx5's req_transport_retries_exceeded */
    {"seq", GDR_COUNTER_RETRANSMIT},     /* out_of_sequence, packet_seq_err, rcvd_seq_err */
    {"duplicate", GDR_COUNTER_RETRANSMIT},
    {"timeout", GDR_COUNTER_RETRANSMIT}, /* local_ack_timeout_err */
    {"rnr", GDR_COUNTER_RETRANSMIT},     /* rnr_nak_retry_err, rcvd_rnr_err */
    {"slow_restart", GDR_COUNTER_RETRANSMIT},
    {"_err", GDR_COUNTER_ERROR}, /* not "ack_deferred" */
    {"error", GDR_COUNTER_ERROR},
    {"discard", GDR_COUNTER_ERROR},
    {"drop", GDR_COUNTER_ERROR},
    {"downed", GDR_COUNTER_ERROR},
    {"recovery", GDR_COUNTER_ERROR},
    {"overrun", GDR_COUNTER_ERROR},
    {"out_of_buffer", GDR_COUNTER_ERROR},
    {"icrc", GDR_COUNTER_ERROR},
    {"invalid", GDR_COUNTER_ERROR},
};

enum gdr_counter_class gdr_counter_class_of(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        if (strstr(base, classes[i].part))
            return classes[i].cls;
    return GDR_COUNTER_TRAFFIC;
}

const char *gdr_counter_class_name(enum gdr_counter_class c)
{
    switch (c) {
    case GDR_COUNTER_CONGESTION: return "congestion";
    case GDR_COUNTER_RETRANSMIT: return "retransmission";
    case GDR_COUNTER_ERROR: return "error";
    case GDR_COUNTER_TRAFFIC: break;
    }
    return "traffic";
}

static int read_u64(const char *path, uint64_t *v)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char buf[32];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -EIO;
    buf[n] = '\0';
    char *end;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf || (*end && *end != '\n'))
        return -EINVAL;
    *v = x;
    return 0;
}

/* The InfiniBand PortCounters error fields, as counters/ names them, and
 * their widths (IBA vol 1, PortCounters). */
static unsigned pma_bits(const char *name)
{
    static const struct {
        const char *name;
        unsigned bits;
    } pma[] = {
        {"symbol_error", 16},
        {"link_error_recovery", 8},
        {"link_downed", 8},
        {"port_rcv_errors", 16},
        {"port_rcv_remote_physical_errors", 16},
        {"port_rcv_switch_relay_errors", 16},
        {"port_xmit_discards", 16},
        {"port_xmit_constraint_errors", 8},
        {"port_rcv_constraint_errors", 8},
        {"local_link_integrity_errors", 4},
        {"excessive_buffer_overrun_errors", 4},
        {"VL15_dropped", 16},
    };
    for (size_t i = 0; i < sizeof(pma) / sizeof(pma[0]); i++)
        if (strcmp(name, pma[i].name) == 0)
            return pma[i].bits;
    return 0;
}

static bool have(const struct gdr_counter_snap *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->c[i].name, name) == 0)
            return true;
    return false;
}

/* hw_counters/lifespan is the cache's setting, not a counter. */
static bool is_setting(const char *name, bool hw)
{
    return hw && strcmp(name, "lifespan") == 0;
}

static void read_dir(const char *dir, bool hw, struct gdr_counter_snap *s)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && s->n < GDR_COUNTERS_MAX) {
        char path[PATH_MAX];
        uint64_t v = 0;
        if (de->d_name[0] == '.' || is_setting(de->d_name, hw) ||
            strlen(de->d_name) >= GDR_COUNTER_NAME - 12 ||
            (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path) ||
            read_u64(path, &v))
            continue;
        struct gdr_counter *c = &s->c[s->n];
        /* The names fit (checked above); the precisions say so to -O0's
         * -Wformat-truncation too. */
        snprintf(c->name, sizeof(c->name), "%.*s", GDR_COUNTER_NAME - 13, de->d_name);
        if (hw && have(s, c->name))
            snprintf(c->name, sizeof(c->name), "hw_counters/%.*s", GDR_COUNTER_NAME - 13,
                     de->d_name);
        c->value = v;
        c->bits = hw ? 0 : pma_bits(de->d_name);
        s->n++;
    }
    closedir(d);
}

/* ROOT/class/infiniband/IBDEV/ports/PORT/SUB into path. */
static int port_path(char *path, size_t len, const char *sysfs_root, const char *ibdev,
                     unsigned port, const char *sub)
{
    const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
    if ((size_t)snprintf(path, len, "%s/class/infiniband/%s/ports/%u/%s", root, ibdev, port, sub) >=
        len)
        return -ENAMETOOLONG;
    return 0;
}

int gdr_counters_read(const char *sysfs_root, const char *ibdev, unsigned port,
                      struct gdr_counter_snap *snap)
{
    char dir[PATH_MAX];
    snap->n = 0;
    snap->ok = false;
    const char *sub[] = {"counters", "hw_counters"};
    for (int k = 0; k < 2; k++) {
        if (port_path(dir, sizeof(dir), sysfs_root, ibdev, port, sub[k]))
            return -ENAMETOOLONG;
        read_dir(dir, k == 1, snap);
    }
    snap->ok = snap->n > 0;
    return 0;
}

int gdr_counters_lifespan_ms(const char *sysfs_root, const char *ibdev, unsigned port)
{
    char path[PATH_MAX];
    uint64_t ms;
    if (port_path(path, sizeof(path), sysfs_root, ibdev, port, "hw_counters"))
        return -1;
    if (access(path, F_OK))
        return -1;
    if (port_path(path, sizeof(path), sysfs_root, ibdev, port, "hw_counters/lifespan") ||
        read_u64(path, &ms) || ms > INT_MAX)
        return KERNEL_DEFAULT_LIFESPAN_MS;
    return (int)ms;
}

uint64_t gdr_counters_settle_ns(int lifespan_ms)
{
    if (lifespan_ms < 0)
        return 0;
    uint64_t tick =
        lifespan_ms > 0 && lifespan_ms < LONGEST_TICK_MS ? (uint64_t)lifespan_ms : LONGEST_TICK_MS;
    return ((uint64_t)lifespan_ms + tick) * 1000000u;
}

/* The clock the kernel's ticks follow. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline_ns)
{
    struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void gdr_counters_watch_init(struct gdr_counter_watch *w, const char *sysfs_root, const char *ibdev,
                             unsigned port)
{
    memset(w, 0, sizeof(*w));
    w->sysfs_root = sysfs_root;
    snprintf(w->ibdev, sizeof(w->ibdev), "%s", ibdev);
    w->port = port;
    w->lifespan_ms = gdr_counters_lifespan_ms(sysfs_root, ibdev, port);
}

void gdr_counters_watch_begin(struct gdr_counter_watch *w)
{
    gdr_counters_read(w->sysfs_root, w->ibdev, w->port, &w->before);
    w->before_end = mono_ns();
}

void gdr_counters_watch_end(struct gdr_counter_watch *w, uint64_t quiet_ns,
                            struct gdr_counter_deltas *out)
{
    static struct gdr_counter_snap after; /* large; one watch at a time */
    uint64_t now = mono_ns();
    uint64_t traffic_end = quiet_ns < now ? now - quiet_ns : 0;
    uint64_t last = traffic_end > w->before_end ? traffic_end : w->before_end;
    uint64_t deadline = last + gdr_counters_settle_ns(w->lifespan_ms);
    if (deadline > now)
        sleep_until(deadline);
    uint64_t after_start = mono_ns();
    gdr_counters_read(w->sysfs_root, w->ibdev, w->port, &after);
    gdr_counters_delta(&w->before, &after, out);
    out->lifespan_s = w->lifespan_ms < 0 ? -1 : w->lifespan_ms * 1e-3;
    out->between_s = (double)(after_start - w->before_end) * 1e-9;
    out->after_loop_s = (double)(after_start - traffic_end) * 1e-9;
    out->waited_s = deadline > now ? (double)(deadline - now) * 1e-9 : 0;
}

static void note_lost(struct gdr_counter_deltas *out, const char *name, const char *why)
{
    if (out->nlost < GDR_COUNTERS_LOST_MAX) {
        snprintf(out->lost[out->nlost].name, GDR_COUNTER_NAME, "%s", name);
        snprintf(out->lost[out->nlost].why, sizeof(out->lost[0].why), "%s", why);
    }
    out->nlost++;
}

void gdr_counters_delta(const struct gdr_counter_snap *before, const struct gdr_counter_snap *after,
                        struct gdr_counter_deltas *out)
{
    memset(out, 0, sizeof(*out));
    out->available = before->ok && after->ok;
    out->clean = out->available;
    if (!out->available)
        return;
    for (size_t i = 0; i < before->n; i++) {
        const struct gdr_counter *b = &before->c[i], *a = NULL;
        for (size_t k = 0; k < after->n && !a; k++)
            if (strcmp(after->c[k].name, b->name) == 0)
                a = &after->c[k];
        enum gdr_counter_class cls = gdr_counter_class_of(b->name);
        bool matters = cls == GDR_COUNTER_ERROR || cls == GDR_COUNTER_RETRANSMIT;
        const char *lost = NULL;
        uint64_t delta = 0;
        uint64_t top = b->bits ? (1ull << b->bits) - 1 : 0;
        if (!a)
            lost = "vanished";
        else if (a->value >= b->value)
            delta = a->value - b->value;
        else if (b->value <= UINT32_MAX && !b->bits)
            delta = a->value + (1ull << 32) - b->value; /* a 32-bit counter wrapped */
        else
            lost = "reset";
        if (!lost && !delta && matters &&
            (b->bits ? b->value >= top : b->value == 0xffff || b->value == UINT32_MAX))
            lost = "saturated";
        if (lost) {
            note_lost(out, b->name, lost);
            if (matters)
                out->clean = false;
            continue;
        }
        if (!delta)
            continue;
        snprintf(out->d[out->n].name, GDR_COUNTER_NAME, "%s", b->name);
        out->d[out->n].delta = delta;
        out->d[out->n].cls = cls;
        out->n++;
        if (matters)
            out->clean = false;
    }
}
