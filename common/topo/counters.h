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
 * sysfs_root NULL means "/sys". */
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
};

/* The deltas from before to after. A value that went down wrapped if the
 * counter fits 32 bits (mlx5's queue counters), else it was reset; an
 * InfiniBand PMA error counter (counters/: 4, 8 or 16 bits wide) stops at
 * its top and never wraps, so one that went down was reset and one stuck
 * at its top is saturated, as is any other error counter stuck at 2^16-1
 * or 2^32-1. */
void gdr_counters_delta(const struct gdr_counter_snap *before, const struct gdr_counter_snap *after,
                        struct gdr_counter_deltas *out);

#endif
