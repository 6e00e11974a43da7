/* verbs.h - the verbs lifecycle: device and port choice, GID choice, PD,
 * CQs, RC queue pairs and their walk to RTS, and the post/poll helpers the
 * timed loops use. Resources are created in gdr_verbs_open/_create and
 * released in reverse order by gdr_verbs_close, whatever state they are in. */
#ifndef GDR_VERBS_H
#define GDR_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "endpoint.h"
#include "gid.h"

/* NCCL's local ACK timeout: 4.096 us x 2^20 = 4.3 s per try. 14 (67 ms)
 * gives spurious retry-exceeded errors on a congested fabric. */
#define GDR_QP_TIMEOUT_DEFAULT 20
#define GDR_RETRY_COUNT_DEFAULT 7

struct gdr_verbs {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *send_cq, *recv_cq;
    /* The receive CQ's events, for a loop that sleeps while it waits for
     * arrivals (NULL when the device gave none: such a loop spins). */
    struct ibv_comp_channel *recv_channel;
    struct ibv_qp *qp[GDR_MAX_QPS];
    unsigned num_qps;   /* those that exist now */
    unsigned qps_asked; /* gdr_verbs_create's num_qps: an outage's renewal makes as many */
    struct ibv_device_attr dev_attr;
    struct ibv_port_attr port_attr;
    int port;
    int gid_index;  /* -1: none read (a port without GIDs) */
    bool gid_given; /* --gid-index: used as given, GRH on every link */
    union ibv_gid gid;
    struct gdr_gid_entry gid_facts; /* the chosen GID's type, netdev, VLAN */
    bool grh;                       /* the QPs address the peer with a GRH */
    char dev_name[64];
    uint32_t max_inline; /* what the QPs were created with */
    unsigned recv_depth; /* receives each QP can hold */
    /* What the QPs were created with (gdr_verbs_renew_qps makes them again). */
    unsigned send_depth, inline_size;
    bool qp_dv;
    uint32_t psn;
    /* RDMA reads in flight per QP, as the QPs were connected: as requester
     * (max_rd_atomic) and as responder (max_dest_rd_atomic). */
    unsigned max_rd_atomic, max_dest_rd_atomic;
    uint8_t traffic_class;      /* GRH traffic class of the path (RoCE) */
    uint8_t service_level;      /* SL of the path (InfiniBand) */
    uint8_t qp_timeout;         /* local ACK timeout, 4.096 us x 2^N */
    uint8_t retry_count;        /* transport retries before an error */
    const char *scatter_to_cqe; /* what was done about mlx5's scatter-to-CQE */
    bool ctx_borrowed;          /* rdma_cm owns ctx: do not close it */
    /* Asynchronous events (events.c): watched once the fd is non-blocking;
     * the first fatal one, what it was about and when it was read
     * (gdr_now_ns; 0: none); how many let pass. */
    bool events_watched;
    char fatal_event[32], fatal_where[80];
    uint64_t fatal_at_ns;
    unsigned events_passed;
    /* The NIC flush's loopback QP and CQ (flush.c), NULL until its first
     * read: the benchmark's own, so their errors end the run too. */
    struct ibv_qp *flush_qp;
    struct ibv_cq *flush_cq;
    /* When set, QPs are created through this hook (rdma_cm), not
     * ibv_create_qp, and must be gone before gdr_verbs_close. */
    int (*make_qp)(void *arg, unsigned index, struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
                   struct ibv_qp **qp);
    void *make_qp_arg;
};

/* Open the named device (NULL: the first with an active port) and choose
 * the GID: the requested index (-1: none given); else on Ethernet the best
 * of the table without knowing the peer (gid.h), on InfiniBand the port
 * GID (index 0). The QP timeout and retry count start at their defaults. */
int gdr_verbs_open(struct gdr_verbs *v, const char *dev_name, int port, int gid_index);

/* Once the control channel is up: on Ethernet, unless a GID was given,
 * choose again knowing the path to the peer (local: the channel's own
 * address, peer: the peer's). */
int gdr_verbs_choose_gid(struct gdr_verbs *v, const struct sockaddr *local,
                         const struct sockaddr *peer);

/* Read the facts of the GID in use (type, netdev, VLAN) into v->gid_facts. */
void gdr_verbs_note_gid(struct gdr_verbs *v);

/* Use a context someone else opened (rdma_cm chose the device). */
int gdr_verbs_adopt(struct gdr_verbs *v, struct ibv_context *ctx, int port);

/* Whether ctx's port is ACTIVE (a failed query: not). */
bool gdr_port_is_active(struct ibv_context *ctx, int port);

/* Find the index of a GID in the port's table (-1: not there). */
int gdr_verbs_find_gid(const struct gdr_verbs *v, const union ibv_gid *gid);

/* Before any device is opened: with a GPU receive buffer, tell mlx5 not to
 * scatter small messages into completions (MLX5_SCATTER_TO_CQE=0), for
 * QPs that cannot be created through mlx5dv (rdma_cm's, or builds
 * without mlx5dv). */
void gdr_verbs_prepare_env(bool gpu_receives);

/* PD, CQs and num_qps RC queue pairs in INIT. A recv_depth beyond the
 * device's limit is lowered to it. gpu_receives: create the QPs so no
 * completion carries payload the CPU would copy into GPU memory; what was
 * done is left in v->scatter_to_cqe. */
int gdr_verbs_create(struct gdr_verbs *v, unsigned num_qps, unsigned send_depth,
                     unsigned recv_depth, unsigned inline_size, bool gpu_receives);

/* After an outage: destroy the QPs (whatever state they are in), poll
 * what they left out of the CQs, and create as many new ones in INIT with
 * a new PSN, the port's attributes read again (a LID may have changed).
 * PD, CQs and memory registrations stay. Not for rdma_cm's QPs. */
int gdr_verbs_renew_qps(struct gdr_verbs *v);

/* Fill the local facts of an endpoint (not the buffer fields). */
void gdr_verbs_describe(const struct gdr_verbs *v, struct gdr_endpoint *ep);

/* The largest power of two not above n (1 for 0). */
unsigned gdr_pow2_floor(unsigned n);

/* RDMA reads one end may have in flight on a QP: the requester's
 * initiator limit, the responder's resources, and -o/--outs when given
 * (0: none), at most 255 (the attribute is 8 bits), at least 1, rounded
 * down to a power of two (what every kernel keeps as asked). */
unsigned gdr_reads_in_flight(unsigned requester_cap, unsigned responder_cap, unsigned outs);

/* Move every QP to RTR then RTS against the remote endpoint. mtu 0: the
 * smaller of both ports' active MTUs. RoCE paths always carry a GRH; an
 * InfiniBand path only when a GID was given or the two ends' subnet
 * prefixes differ (the peer is behind a router). Reads in flight each way
 * are negotiated from both devices' limits and outs (gdr_reads_in_flight). */
int gdr_verbs_connect(struct gdr_verbs *v, const struct gdr_endpoint *remote, unsigned mtu,
                      unsigned outs);
/* That choice: Ethernet, a given GID, or two InfiniBand subnets. */
bool gdr_verbs_path_needs_grh(const struct gdr_verbs *v, const struct gdr_endpoint *remote);

/* Read back what the connected QPs got (rdma_cm negotiates it itself):
 * v->max_rd_atomic and v->max_dest_rd_atomic from QP 0, unchanged when
 * the provider does not answer. */
void gdr_verbs_query_reads(struct gdr_verbs *v);

void gdr_verbs_close(struct gdr_verbs *v);

/* Walk a QP of this device from RESET to RTS connected to itself (a
 * loopback, for reads of this host's own memory through the NIC). */
int gdr_verbs_loopback(struct gdr_verbs *v, struct ibv_qp *qp);

/* Is the device's provider mlx5? */
bool gdr_verbs_is_mlx5(const struct gdr_verbs *v);

/* One send-queue work request: an RDMA write/read or a send, with or
 * without immediate data. len 0 posts no data at all (a credit). */
struct gdr_wr {
    enum ibv_wr_opcode op;
    uint64_t laddr;
    uint32_t lkey, len;
    uint64_t raddr; /* RDMA write/read: the peer's address and key */
    uint32_t rkey;
    unsigned flags; /* IBV_SEND_SIGNALED, IBV_SEND_INLINE */
    uint64_t wr_id;
    uint32_t imm; /* *_WITH_IMM: immediate data, host order */
};
int gdr_post_send(struct ibv_qp *qp, const struct gdr_wr *wr);
/* Post one receive of len bytes at laddr; len 0: a receive without a
 * buffer (for immediate data only). */
int gdr_post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t lkey, uint32_t len, uint64_t wr_id);

/* Work requests built once and posted again and again (the timed loops;
 * a post sets the id, and a bandwidth post its slot's addresses): building
 * an ibv_send_wr each time cost send_lat ~80 instructions a round trip that
 * perftest does not spend (docs/benchmarking.md). The request points at its
 * own sge: build it in place and never copy it. */
struct gdr_prepared_send {
    struct ibv_send_wr wr;
    struct ibv_sge sge;
};
struct gdr_prepared_recv {
    struct ibv_recv_wr wr;
    struct ibv_sge sge;
};
void gdr_send_prepare(struct gdr_prepared_send *p, const struct gdr_wr *d);
void gdr_recv_prepare(struct gdr_prepared_recv *p, uint64_t laddr, uint32_t lkey, uint32_t len);
/* The run's error for a post the provider refused (rc: its errno). */
int gdr_post_failed(struct ibv_qp *qp, const char *verb, uint32_t len, int rc);

static inline int gdr_post_prepared_send(struct ibv_qp *qp, struct gdr_prepared_send *p,
                                         uint64_t wr_id, uint32_t imm)
{
    struct ibv_send_wr *bad;
    p->wr.wr_id = wr_id;
    p->wr.imm_data = htonl(imm); /* read only by the *_WITH_IMM opcodes */
    int rc = ibv_post_send(qp, &p->wr, &bad);
    return rc ? gdr_post_failed(qp, "ibv_post_send", p->sge.length, rc) : 0;
}

static inline int gdr_post_prepared_recv(struct ibv_qp *qp, struct gdr_prepared_recv *p,
                                         uint64_t wr_id)
{
    struct ibv_recv_wr *bad;
    p->wr.wr_id = wr_id;
    int rc = ibv_post_recv(qp, &p->wr, &bad);
    return rc ? gdr_post_failed(qp, "ibv_post_recv", p->sge.length, rc) : 0;
}

/* Turn a failed work completion into the run's error (kind completion):
 * the operation, its size, the iteration (GDR_ERROR_UNKNOWN: not known),
 * the status by its verbs name, and a fatal async event that came with
 * it (events.h). */
int gdr_wc_fail(struct gdr_verbs *v, const struct ibv_wc *wc, const char *op, uint64_t size,
                uint64_t iteration);

unsigned gdr_mtu_bytes(enum ibv_mtu mtu);
/* Signalling rate in bits/s of a port's width code and speed code
 * (active_speed, or active_speed_ex for XDR); 0 for unknown codes. */
double gdr_port_speed_bps(uint8_t width, uint32_t speed);
const char *gdr_link_layer_name(uint8_t link_layer);

#endif
