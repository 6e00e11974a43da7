/* options.h - the command line, parsed into one struct gdr_config.
 *
 * Flag names follow perftest where the two overlap, so users' habits carry
 * over; everything else is long-only. */
#ifndef GDR_OPTIONS_H
#define GDR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "bounds.h"
#include "endpoint.h"
#include "parse.h"
#include "placement.h"
#include "sizes.h"
#include "spec.h"
#include "test.h"

#define GDR_DEFAULT_PORT 18515
#define GDR_DEFAULT_TIMEOUT 60.0
#define GDR_SOAK_INTERVAL_DEFAULT 10.0

struct gdr_config {
    const char *server; /* client mode: the server's host name; NULL = server */
    const char *ib_dev; /* NULL: the first device with an active port */
    int ib_port;
    int gid_index;         /* -1: pick the RoCEv2 IPv4 GID (Ethernet) */
    unsigned mtu;          /* 0: the port's active MTU */
    uint8_t traffic_class; /* RoCE: GRH traffic class (rdma_cm: ToS) */
    uint8_t service_level; /* InfiniBand: SL of the path */
    uint8_t qp_timeout;    /* local ACK timeout exponent: 4.096 us x 2^N */
    uint8_t retry_count;   /* transport retries before a QP errors out */
    uint16_t tcp_port;
    const char *bind_addr; /* server: address to listen on; NULL = all */

    struct gdr_size_list sizes;
    uint64_t iters;  /* 0: derived from duration or time per size */
    uint64_t warmup; /* 0 with warmup_auto: scaled to the size */
    bool warmup_auto;
    double time_per_size; /* seconds; 0 = fixed iteration count */
    unsigned num_qps;
    unsigned tx_depth;
    unsigned inline_size;
    bool rdma_cm;

    struct gdr_mem_spec mem;
    uint64_t stage_slot;  /* bytes per bounce slot (--gdr=off) */
    unsigned stage_slots; /* bounce slots per end and direction (sized from
                                 * the window unless --stage-slots is given) */
    bool bidirectional;   /* -b: both ends send at once */
    bool events;          /* -e: wait for arrivals on completion events */
    unsigned outs;        /* -o: RDMA reads in flight per QP; 0: as the devices allow */
    bool write_with_imm;  /* write latency: completions from the CQ on host buffers too */

    struct gdr_bind_request bind; /* --cpu, --numa, --no-bind (placement.h) */

    /* --soak: one size, run for soak_s in intervals of interval_s, a JSON
     * line each; 0 no soak. A server without --soak adopts the client's
     * (gdr_options_soak, in HELLO). reconnect_timeout_s: how long an
     * outage may last before the soak gives up (soak_reconnect.h). */
    double soak_s, interval_s, dip_pct, reconnect_timeout_s;
    const char *json_lines_path;

    bool validate;
    bool report_gbits;
    bool quiet;
    const char *json_path;
    double timeout; /* seconds for connect, accept and each exchange */
};

enum gdr_parse_result {
    GDR_PARSE_RUN = 0,    /* go on and run */
    GDR_PARSE_EXIT = 1,   /* --help or --version printed: exit 0 */
    GDR_PARSE_ERROR = -1, /* gdr_fail() has the message */
};

/* Write and send latency: each end answers the other (a ping-pong). */
static inline bool gdr_test_pingpong(const struct gdr_test *t)
{
    return t->metric == GDR_METRIC_LAT && t->verb != GDR_VERB_READ;
}

/* Make cfg a soak of soak_s seconds in intervals of interval_s: each
 * interval is a timed phase calibrated to interval_s. The one place both
 * the command line and a server learning the client's soak go through. */
void gdr_options_soak(struct gdr_config *cfg, double soak_s, double interval_s, double dip_pct,
                      double reconnect_timeout_s);

enum gdr_parse_result gdr_options_parse(struct gdr_config *cfg, const struct gdr_test *test,
                                        int argc, char **argv);

#endif
