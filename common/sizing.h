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
    uint64_t off;       /* offset in the (GPU or host) buffer */
    uint32_t len;
};
uint64_t gdr_units_per_msg(uint64_t size, uint64_t slot_bytes);
/* Unit u of a run of `size`-byte messages, message m in buffer slot
 * m % buf_slots. */
struct gdr_unit gdr_unit_at(uint64_t size, uint64_t slot_bytes, uint64_t buf_slots, uint64_t u);

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
double gdr_expected_seconds(uint64_t probe_iters, uint64_t probe_ns, uint64_t iters,
                            uint64_t size, double last_bytes_per_s);

/* Send-queue entries each QP must hold: --tx-depth, or twice the bounce
 * slots if more. Staged transfers keep up to --stage-slots units (and as
 * many credits) in flight, every one signalled, whatever --tx-depth says;
 * whether a run is staged depends on the peer too, so the queues allow for
 * it. Twice: data and credit completions may lag each other. */
unsigned gdr_send_depth(unsigned tx_depth, unsigned stage_slots);

/* Receives each QP must hold: recv_per_tx x tx_depth (at least 1), and
 * one per bounce slot plus one, since a staged peer (known only after the
 * QPs exist) signals every slot with an immediate. */
unsigned gdr_recv_depth(const struct gdr_roles *r, unsigned tx_depth, unsigned stage_slots);

#endif
