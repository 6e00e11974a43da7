/* bounds.h - every bound on what a command line (or a peer's ENDPOINT and
 * size messages) may ask for, in one place, grouped by the layer that
 * checks it. util is below every layer, so each includes this file and
 * none reaches into another's header for a number. */
#ifndef GDR_BOUNDS_H
#define GDR_BOUNDS_H

/* util: message sizes and sweeps (sizes.c) */
#define GDR_SIZE_MIN 1u
#define GDR_SIZE_MAX (1ull << 30) /* 1 GiB: one message, one buffer slot */
#define GDR_SIZES_MAX_COUNT 64    /* 1 B to 1 GiB in powers of two is 31 */
#define GDR_ALL_MIN 2u            /* -a: perftest's 2 B ... */
#define GDR_ALL_MAX (8u << 20)    /* ... to 8 MiB */

/* util: durations (parse.c: --timeout, --time-per-size, --duration) */
#define GDR_MAX_SECONDS 86400.0
/* harness: a soak (options.c: --soak, --interval) */
#define GDR_SOAK_MAX_SECONDS (30 * 86400.0)
#define GDR_SOAK_INTERVAL_MIN 1.0
#define GDR_SOAK_INTERVAL_MAX 3600.0
/* --reconnect-timeout: how long a soak waits for its port and its peer
 * after an outage (seconds). */
#define GDR_SOAK_RECONNECT_DEFAULT 300.0
#define GDR_SOAK_RECONNECT_MIN 1.0
#define GDR_SOAK_RECONNECT_MAX 86400.0

/* rdma: what a connection may have (verbs.c, cm.c, endpoint.c) */
#define GDR_MAX_QPS 64   /* queue pairs an end may have */
#define GDR_MAX_OUTS 255 /* RDMA reads in flight per QP: max_rd_atomic is 8 bits */

/* mem: the host bounce ring of a --gdr=off end (mem.c, staged.c) */
#define GDR_STAGE_SLOTS_MAX 256

/* harness: the loops' queues and counts (options.c) */
#define GDR_MAX_DEPTH 8192         /* -t: work requests in flight per QP */
#define GDR_MAX_INLINE 4096        /* -I: bytes inline in a work request */
#define GDR_MAX_ITERS 100000000ull /* -n */
#define GDR_MAX_NODES 64           /* NUMA nodes placement reads (placement.c) */
/* A timed loop gets a CPU of its own only where at least this many CPUs of
 * its set stay unclaimed beside the claimed loops (placement.c) */
#define GDR_LOOP_SPARE_MIN 2

#endif
