/* verbsim.h - the verbs test double's internal interface: what the
 * interposition core (core.c) offers its layers, and what a layer
 * (reorder.c; more to come, each in its own file) gives the core.
 *
 * rdma-core's ibv_post_send, ibv_poll_cq and ibv_req_notify_cq are inline
 * functions of verbs.h that call through the context's ops table, so
 * interposing the exported symbols would see nothing. The core interposes
 * ibv_open_device instead and replaces those three ops of every context it
 * opens (keeping the provider's), plus ibv_close_device and ibv_destroy_qp
 * to drop its state. Every send work request the program posts becomes a
 * struct vs_wr, kept in the QP's FIFO in posting order until the program
 * has been told it completed. The core posts it to the real QP now, or,
 * when a layer asks, holds it and posts it later with others in an order a
 * layer chooses. Whatever the real QP completes is turned back into the
 * program's completions in posting order, with the program's wr_ids and
 * signalling. One mutex covers all of it; a timer thread lets layers act
 * while the program is busy elsewhere or asleep, as a NIC does. */
#ifndef VERBSIM_H
#define VERBSIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

/* One send work request of the program, from its post to its completion. */
struct vs_wr {
    uint64_t app_wr_id;
    uint64_t app_seq;  /* its number on the QP in posting order, from 1 */
    uint64_t real_seq; /* its number on the real QP, from 1; 0 while held */
    enum ibv_wr_opcode opcode;
    unsigned app_flags; /* the program's send_flags */
    uint32_t byte_len;
    bool held;
    enum ibv_wc_status status; /* set when the real QP failed it */
    bool failed;
    uint64_t held_ns; /* when it was held */
    /* A held request's own copy (the program may reuse its list, and its
     * inline payload, once ibv_post_send returns). */
    struct ibv_send_wr wr;
    struct ibv_sge *sge;
    uint8_t *inline_data;
};

struct vs_cq;
struct vs_ctx;

struct vs_qp {
    struct ibv_qp *qp;
    uint32_t qp_num;
    struct vs_ctx *ctx;
    uint32_t max_send_wr; /* 0: unknown, not checked */
    bool sig_all;
    /* The program's requests not yet completed to it, in posting order:
     * fifo[head .. tail) (indices modulo cap); the held ones are the last
     * `held` of them. */
    struct vs_wr *fifo;
    size_t cap, head, tail, held;
    uint64_t next_app_seq, next_real_seq;
    uint64_t error_seq; /* the first real request the QP failed; 0: none */
    void *layer[4];     /* each layer's own state, by layer index */
};

/* ---- services of the core (core.c) for the layers ---- */

/* Environment, read once at load: a number in [min, max] (a bad value is
 * said on the log and replaced by dflt). */
uint64_t vs_env_u64(const char *name, uint64_t dflt, uint64_t min, uint64_t max);

/* The seeded generator (GDR_VERBSIM_SEED; the seed is logged). */
uint64_t vs_rand(void);
uint64_t vs_rand_below(uint64_t n); /* [0, n); 0 when n is 0 */
uint64_t vs_seed(void);

/* One line on the log (GDR_VERBSIM_LOG=FILE, else stderr), prefixed
 * "verbsim[PID]: "; vs_verbose only with GDR_VERBSIM_VERBOSE=1. */
void vs_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Read the environment and open the log, once (what the first opened
 * device does); for code outside the layers (gid.c) before it logs. */
void vs_start(void);
void vs_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool vs_verbose_on(void);

uint64_t vs_now_ns(void);

/* Post the QP's held requests to the real QP, in the order the layers'
 * permute callbacks choose. Returns 0, or an errno when the real post
 * failed (the requests it did not take complete to the program with an
 * error). */
int vs_flush(struct vs_qp *q);

/* The i-th held request of q (0: the oldest). */
struct vs_wr *vs_held_at(struct vs_qp *q, size_t i);

/* Requests of q posted to the real QP and not yet completed to the
 * program. */
size_t vs_in_flight(const struct vs_qp *q);

/* Of those, the ones the program asked a completion for (the real QP
 * reports them; unsignalled ones are known done only through a later
 * signalled one). */
size_t vs_signalled_in_flight(const struct vs_qp *q);

/* Declare every request in flight on q complete (success): for a layer
 * that knows the real QP has executed them though no real completion
 * will say so (unsignalled ones, and it waited). */
void vs_complete_in_flight(struct vs_qp *q);

/* Complete every held request of q with an error, as a QP that went to
 * the error state does: the oldest with `first`, the rest with
 * IBV_WC_WR_FLUSH_ERR; each reaches the program after the requests
 * posted before it (fault.c). */
void vs_fail_held(struct vs_qp *q, enum ibv_wc_status first);

/* Every QP the core knows, for a layer's tick. */
size_t vs_qp_count(void);
struct vs_qp *vs_qp_at(size_t i);

/* Ask to be ticked at or before `at_ns` even if the program makes no call
 * (the timer thread). */
void vs_wake_at(uint64_t at_ns);

/* ---- what a layer gives the core ---- */

/* A layer's verdict on a request: post it now (after what is held), hold
 * it, or hold it and then post everything held (a full batch). */
enum vs_verdict { VS_POST = 0, VS_HOLD = 1, VS_HOLD_FLUSH = 2 };

struct vs_layer {
    const char *name;
    /* Read the environment: true when this layer is on. */
    bool (*init)(void);
    /* A request the program posts, numbered, before it joins the FIFO:
     * an enum vs_verdict (the largest of the layers' wins; the core
     * flushes what is held before a request it posts at once), or a
     * negative errno that fails the post as the provider would. */
    int (*post_send)(struct vs_qp *q, struct vs_wr *w);
    /* Just before vs_flush posts n held requests: reorder batch[]. */
    void (*permute)(struct vs_qp *q, struct vs_wr **batch, size_t n);
    /* Called with the lock held on every program call into the core and
     * from the timer thread; returns the next time it wants (0: none). */
    uint64_t (*tick)(uint64_t now_ns);
    /* The program arms a CQ: it may sleep next, so nothing it waits for
     * may stay in the double. */
    void (*arming)(struct ibv_cq *cq);
    /* A QP goes away (its held requests are dropped after this). */
    void (*qp_gone)(struct vs_qp *q);
    /* At exit: the summary line(s), on the log. */
    void (*summary)(void);
    /* A context was just wrapped / is about to be closed (lock held). */
    void (*opened)(struct ibv_context *ctx);
    void (*closing)(struct ibv_context *ctx);
};

extern const struct vs_layer vs_reorder_layer;
extern const struct vs_layer vs_fault_layer;

/* For the double's own test, which wraps a fake context without the
 * dynamic loader: take over ctx's ops as ibv_open_device would, and make
 * a QP known with its send-queue size. */
void vs_wrap_context(struct ibv_context *ctx);
void vs_qp_register(struct ibv_qp *qp, uint32_t max_send_wr, bool sig_all);
/* Run the layers' summaries now (the test reads them). */
void vs_summaries(void);

/* ---- rd_atomic.c: reads in flight as a kernel keeps them ---- */

enum vs_rd_mode { VS_RD_ASKED, VS_RD_DOWN, VS_RD_UP, VS_RD_SHORT };

/* n rounded to a power of two (at most 128) down or up; as asked otherwise. */
unsigned vs_rd_round(unsigned n, enum vs_rd_mode m);
/* The attributes in mask, as the mode holds them. */
void vs_rd_hold(struct ibv_qp_attr *a, int mask, enum vs_rd_mode m);

#endif
