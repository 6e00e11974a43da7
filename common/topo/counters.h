/* counters.h - what an RDMA port counted while a size ran: the files under
 * sysfs class/infiniband/DEV/ports/N/counters (the InfiniBand port
 * counters every provider has) and hw_counters (the provider's own:
 * mlx5's retransmission, sequence-error and congestion counters, rxe's
 * retries and duplicates), read before and after, and their deltas.
 *
 * A delta is classed by the counter's name: an error or a retransmission
 * (a lost, repeated or refused packet) makes the size not clean;
 * congestion (CNPs, ECN marks, port_xmit_wait) and traffic do not.
 * Counters are the port's, shared with whatever else uses it. libc only;
 * sysfs_root NULL means "/sys".
 *
 * The kernel refreshes a port's hw_counters at most once per lifespan
 * (hw_counters/lifespan, ms; 10 by default on mlx5 and rxe): a read
 * within it returns the values of the last refresh. A watch (below) takes
 * its "after" snapshot only once the kernel must refresh. */
#ifndef GDR_COUNTERS_H
#define GDR_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GDR_COUNTERS_MAX 192
#define GDR_COUNTER_NAME 48

struct gdr_counter {
    char name[GDR_COUNTER_NAME]; /* the file name; "hw_counters/NAME" when
                                    counters/ has a file of the same name */
    uint64_t value;
    unsigned bits; /* an InfiniBand PMA error counter's width (it stops at its
                      top, never wraps); 0 not one of those */
};

struct gdr_counter_snap {
    bool ok; /* at least one counter was read */
    size_t n;
    struct gdr_counter c[GDR_COUNTERS_MAX];
};

enum gdr_counter_class {
    GDR_COUNTER_TRAFFIC,
    GDR_COUNTER_CONGESTION,
    GDR_COUNTER_RETRANSMIT,
    GDR_COUNTER_ERROR,
};
enum gdr_counter_class gdr_counter_class_of(const char *name);
const char *gdr_counter_class_name(enum gdr_counter_class c);

/* Read every counter of ibdev's port. Returns 0 (snap->ok false when the
 * port has no readable counter: a container without sysfs, say). */
int gdr_counters_read(const char *sysfs_root, const char *ibdev, unsigned port,
                      struct gdr_counter_snap *snap);

#define GDR_COUNTERS_LOST_MAX 8
struct gdr_counter_deltas {
    bool available; /* both snapshots were read */
    bool clean;     /* no error or retransmission counter moved, and none
                       that could have moved unseen (lost or saturated) */
    size_t n;       /* the counters that moved */
    struct {
        char name[GDR_COUNTER_NAME];
        uint64_t delta;
        enum gdr_counter_class cls;
    } d[GDR_COUNTERS_MAX];
    size_t nlost; /* read before, gone after, reset, or stuck at their top */
    struct {
        char name[GDR_COUNTER_NAME];
        char why[16]; /* "vanished", "reset", "saturated" */
    } lost[GDR_COUNTERS_LOST_MAX];
    /* When the snapshots were taken (a watch's; gdr_counters_delta leaves
     * them 0), in seconds. */
    double lifespan_s;   /* the port's hw_counters lifespan; -1 none or unread */
    double between_s;    /* from the end of the "before" read to the "after" one */
    double after_loop_s; /* from the end of the traffic to the "after" read */
    double waited_s;     /* slept so that the kernel would refresh */
};

/* The deltas from before to after. A value that went down wrapped if the
 * counter fits 32 bits (mlx5's queue counters), else it was reset; an
 * InfiniBand PMA error counter (counters/: 4, 8 or 16 bits wide) stops at
 * its top and never wraps, so one that went down was reset and one stuck
 * at its top is saturated, as is any other error counter stuck at 2^16-1
 * or 2^32-1. */
void gdr_counters_delta(const struct gdr_counter_snap *before, const struct gdr_counter_snap *after,
                        struct gdr_counter_deltas *out);

/* The port's hw_counters lifespan in ms: -1 when the port has no
 * hw_counters (nothing cached), the kernel's default (10) when its
 * lifespan file cannot be read. */
int gdr_counters_lifespan_ms(const char *sysfs_root, const char *ibdev, unsigned port);

/* How long after the last refresh a read is sure to refresh again. The
 * kernel counts the lifespan in jiffies and serves its cache while
 * jiffies <= refresh + lifespan, so a wait of exactly the lifespan can
 * land in the last cached tick: it takes one tick more. A tick is at most
 * 10 ms (HZ >= 100) and at most the lifespan (a whole number of ticks,
 * at least one). 0 for -1 (no hw_counters). */
uint64_t gdr_counters_settle_ns(int lifespan_ms);

/* One port's counters around a row: the lifespan read once at setup, the
 * "before" snapshot, the "after" one taken once the kernel must refresh. */
struct gdr_counter_watch {
    const char *sysfs_root; /* NULL: "/sys" */
    char ibdev[64];
    unsigned port;
    int lifespan_ms;     /* gdr_counters_lifespan_ms */
    uint64_t before_end; /* CLOCK_MONOTONIC ns, as the "before" read ended */
    struct gdr_counter_snap before;
};
void gdr_counters_watch_init(struct gdr_counter_watch *w, const char *sysfs_root, const char *ibdev,
                             unsigned port);
void gdr_counters_watch_begin(struct gdr_counter_watch *w);
/* The deltas since begin, once more than the settle time has passed since
 * both the "before" read and the end of the traffic, which ended quiet_ns
 * ago (0: just now). Sleeps the remainder: call it outside the timed loop. */
void gdr_counters_watch_end(struct gdr_counter_watch *w, uint64_t quiet_ns,
                            struct gdr_counter_deltas *out);

#endif
