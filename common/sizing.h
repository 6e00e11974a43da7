/* sizing.h - the arithmetic of a run: buffer slots and bytes, the staged
 * units of a message, how messages are dealt to QPs, warm-up and
 * calibrated iteration counts, receive depth. Pure functions of their
 * arguments (no session, no I/O), so each edge case is a unit test. */
#ifndef GDR_SIZING_H
#define GDR_SIZING_H

#include <stdint.h>

#include "options.h"
#include "roles.h"

/* Warm-up traffic per size when --warmup is not given. */
#define GDR_WARMUP_BYTES (16ull << 20)
/* The buffer holds up to this much so bandwidth runs rotate through
 * several slots (as real traffic does) without huge registrations. */
#define GDR_BUFFER_TARGET (64ull << 20)

/* Slots of `size` bytes a run rotates through: 1 for latency, else one
 * per work request in flight (tx_depth x QPs). */
uint64_t gdr_slots_wanted(const struct gdr_roles *r, unsigned tx_depth, unsigned num_qps);
/* How many of `want` slots of `size` bytes fit in len bytes; at least 1. */
uint64_t gdr_slot_count(uint64_t len, uint64_t want, uint64_t size);
/* Bytes to allocate so the largest size gets its slots, up to
 * GDR_BUFFER_TARGET (one slot of max_size always). */
uint64_t gdr_buffer_bytes(const struct gdr_roles *r, uint64_t max_size, unsigned tx_depth,
                          unsigned num_qps);

/* Messages of a run that go to QP q when they are dealt round robin. */
uint64_t gdr_share_of(uint64_t iters, unsigned nqp, unsigned q);

/* Staged runs cut a message into units of at most one bounce slot. */
struct gdr_unit {
    uint64_t off; /* offset in the (GPU or host) buffer */
    uint32_t len;
};
uint64_t gdr_units_per_msg(uint64_t size, uint64_t slot_bytes);
/* Unit u of a run of `size`-byte messages, message m in buffer slot
 * m % buf_slots. */
struct gdr_unit gdr_unit_at(uint64_t size, uint64_t slot_bytes, uint64_t buf_slots, uint64_t u);

/* The bounce ring (--gdr=off) is sized from what will be in flight, up
 * to this much per direction. */
#define GDR_RING_CAP_BYTES (64ull << 20)
/* A ring never has fewer slots than this when sized automatically, so
 * copies and the wire overlap even when one slot would hold the window. */
#define GDR_RING_MIN_SLOTS 8u

/* Ring slots when --stage-slots is not given: enough for window_msgs
 * messages of max_size in flight (several to a slot when they fit, a
 * slot per unit when cut), at least GDR_RING_MIN_SLOTS, at most
 * GDR_RING_CAP_BYTES of slots (and GDR_STAGE_SLOTS_MAX); at least 2. */
unsigned gdr_ring_slots(uint64_t max_size, uint64_t slot_bytes, uint64_t window_msgs);

/* How a staged run of `size`-byte messages uses a ring of `slots` slots
 * of slot_bytes. An item is one work request: a whole message when it
 * fits a slot, else a unit of at most a slot. A group is the items one
 * slot holds at once: they are copied together and credited together. */
struct gdr_stage_plan {
    uint64_t size;
    uint64_t item_bytes;    /* the largest item */
    uint64_t items_per_msg; /* 1, or the units a message is cut into */
    uint64_t per_group;     /* items a slot holds at once */
    unsigned slots;         /* ring slots */
    uint64_t window;        /* most items posted and not yet credited */
    uint64_t direct_window; /* items the direct path keeps in flight */
};
/* window_msgs: messages the direct path keeps in flight (tx_depth x QPs;
 * 1 for latency). Whole messages share a slot, spread over every slot so
 * the copies pipeline. */
void gdr_stage_plan(struct gdr_stage_plan *p, uint64_t size, uint64_t slot_bytes, unsigned slots,
                    uint64_t window_msgs);
/* Does the ring keep fewer items in flight than the direct path would? */
static inline int gdr_stage_window_limited(const struct gdr_stage_plan *p)
{
    return p->window < p->direct_window;
}

/* Groups a staged destination lets land before it credits them: a
 * quarter of the groups the source can have in flight (at least 1), so
 * the source keeps three quarters of its window going meanwhile and can
 * always send a whole batch (no deadlock). */
uint64_t gdr_stage_credit_batch(const struct gdr_stage_plan *p);

/* Item i of a run: where it is in the (GPU or host) buffer of buf_slots
 * message slots, its group, and where it sits in the group's ring slot. */
struct gdr_stage_item {
    uint64_t off; /* buffer offset */
    uint32_t len;
    uint64_t group;
    unsigned slot;     /* ring slot: group % slots */
    uint64_t ring_off; /* offset inside the ring slot */
};
struct gdr_stage_item gdr_stage_item(const struct gdr_stage_plan *p, uint64_t buf_slots,
                                     uint64_t i);
/* Items and groups of a run of `iters` messages; the first item of group
 * g (the total when g is past the end). */
uint64_t gdr_stage_items(const struct gdr_stage_plan *p, uint64_t iters);
uint64_t gdr_stage_groups(const struct gdr_stage_plan *p, uint64_t iters);
uint64_t gdr_stage_group_start(const struct gdr_stage_plan *p, uint64_t iters, uint64_t g);
/* Bytes and messages of the run's first i items (a message counts once
 * its first item is in). */
uint64_t gdr_stage_bytes_before(const struct gdr_stage_plan *p, uint64_t i);
uint64_t gdr_stage_msgs_before(const struct gdr_stage_plan *p, uint64_t i);

/* Untimed iterations before a size: --warmup, or scaled to the size (at
 * most GDR_WARMUP_BYTES of traffic, at most 100 for latency and two
 * rounds of the pipeline for bandwidth); at least the roles' minimum when
 * there is a warm-up or a calibration needs one. */
uint64_t gdr_warmup_iters(const struct gdr_config *cfg, const struct gdr_roles *r, uint64_t size);
/* Iterations that take about `seconds` at the warm-up's pace, in
 * [min_iters, GDR_MAX_ITERS]. */
uint64_t gdr_calibrated_iters(uint64_t probe_iters, uint64_t probe_ns, double seconds,
                              uint64_t min_iters);
/* How long `iters` messages should take: at the warm-up's pace, else at
 * the last size's rate (0: unknown), at most GDR_MAX_SECONDS / 2. */
double gdr_expected_seconds(uint64_t probe_iters, uint64_t probe_ns, uint64_t iters, uint64_t size,
                            double last_bytes_per_s);

/* Send-queue entries each QP must hold. A staged source keeps up to
 * tx_depth items per QP in flight, or a unit per slot when messages are
 * cut; a staged destination has up to a credit per slot outstanding on
 * QP 0; a bidirectional end does both. Whether a run is staged depends on
 * the peer too (known only after the QPs exist), so the queues allow for
 * it. */
unsigned gdr_send_depth(unsigned tx_depth, unsigned stage_slots);

/* Receives each QP must hold: recv_per_tx x tx_depth (at least 1), and
 * for a staged peer, the items of every slot's group ahead: at most
 * tx_depth + slots per QP, plus one. */
unsigned gdr_recv_depth(const struct gdr_roles *r, unsigned tx_depth, unsigned stage_slots);

#endif
