/* session.h - one benchmark run between two ends: the state the harness
 * threads through connection, sweep and report. Internal to common/. */
#ifndef GDR_SESSION_H
#define GDR_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "cm.h"
#include "context.h"
#include "endpoint.h"
#include "flush.h"
#include "mem.h"
#include "oob.h"
#include "options.h"
#include "placement.h"
#include "roles.h"
#include "size_msg.h"
#include "stats.h"
#include "test.h"
#include "verbs.h"

struct gdr_soak;

struct gdr_session {
    const struct gdr_test *test;
    struct gdr_config *cfg; /* read-only but for a server adopting the client's --soak */
    bool is_server;
    struct gdr_oob oob;
    int listen_fd;
    struct gdr_verbs verbs;
    struct gdr_cm *cm; /* -R only */
    struct gdr_buffer buf;
    struct gdr_nic_flush nic_flush; /* reads through the NIC (C2C: writes_flush "nic-read") */
    struct gdr_endpoint local, remote;
    struct gdr_roles roles;     /* who does what: final once the ends are known */
    struct gdr_placement place; /* this end's CPUs, memory node, loop CPU */
    /* Where each direction's data sits in the buffer: an end sends from
     * [0, region) and the peer's data lands at [dest_off, dest_off +
     * region) (the same place one way; the second half bidirectionally). */
    uint64_t region, dest_off;
    /* Staged runs: the word the peer's destination writes its credits
     * into, and the one this end's destination writes them from. */
    uint64_t *credit_page;
    struct ibv_mr *credit_mr;
    struct gdr_oob_refusal refusal;  /* server: other clients are told it is busy */
    uint64_t rx_posted[GDR_MAX_QPS]; /* receives posted this phase, per QP */
    double last_bytes_per_s;         /* client: the last size's rate, for deadlines */
    struct gdr_tick_clock clock;     /* the latency samples' clock (the last size's) */
    struct gdr_context ctx;          /* limits, counters, PCIe and GPU state */
    struct gdr_soak *soak;           /* --soak: its intervals (soak.h); NULL otherwise */
    char start_time[32];
};

/* One row of the report: a size, measured by the side that counts it. */
struct gdr_size_result {
    uint64_t size;
    struct gdr_measure m;                    /* the counting side's numbers (bidirectional:
                                         * the sum of both directions) */
    struct gdr_measure to_server, to_client; /* bidirectional: each direction */
    struct gdr_window window;                /* the client's sending window (one way) */
    struct gdr_cpu_use cpu_client, cpu_server;
    uint64_t sleeps_client, sleeps_server; /* each end's sleeps on its completion channel */
    bool validated;                        /* --validate ran for this size */
    uint64_t bad_bytes;
    double server_prestage_s;                      /* staged read: the responder's copy */
    struct gdr_size_seen seen_client, seen_server; /* NIC counters, GPU state */
    struct gdr_row_limit limit;                    /* what the path carries at best */
};

/* RDMA reads the client may have in flight per QP, as this end's QPs
 * were connected (the client's requester side, the server's responder
 * side: both ends negotiate the same number). */
static inline unsigned gdr_reads_in_flight_of(const struct gdr_session *s)
{
    return s->is_server ? s->verbs.max_dest_rd_atomic : s->verbs.max_rd_atomic;
}

/* The per-size protocol and the sweep (protocol.c). The pattern seed of
 * the data an end sends from slot `slot` (each end has its own). */
uint64_t gdr_source_seed(uint64_t size, uint64_t slot, bool from_server);
int gdr_client_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows);
int gdr_server_sweep(struct gdr_session *s, struct gdr_size_result *rows, size_t *nrows);

#endif
