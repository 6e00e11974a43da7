/* size_msg.h - the per-size messages of the control channel and what they
 * carry, encoded and decoded in one place:
 *
 *   SIZE_START  {phase, size, iters, expect_s}        client -> server
 *   SIZE_DONE   {the client's measure}                client -> server
 *   SIZE_RESULT {the server's measure, bad_bytes, prestage_s}
 *
 * protocol.c sends and reads them; the fuzzer (tests/fuzz) feeds a peer's
 * bytes through the same decoders. A decoder checks every field's
 * presence, type and range; what depends on the session (the size this
 * end expects next, the fewest iterations its loop takes) is protocol.c's. */
#ifndef GDR_SIZE_MSG_H
#define GDR_SIZE_MSG_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "counters.h"
#include "nvml.h"
#include "stats.h"

/* The most a loop had in flight at once: sent and not yet known to have
 * landed (direct: completed; staged: credited). */
struct gdr_window {
    uint64_t msgs, bytes;
};
static inline void gdr_window_note(struct gdr_window *w, uint64_t msgs, uint64_t bytes)
{
    if (msgs > w->msgs)
        w->msgs = msgs;
    if (bytes > w->bytes)
        w->bytes = bytes;
}

/* One side's measurement of one timed phase. */
struct gdr_measure {
    uint64_t iters, bytes, elapsed_ns;
    struct gdr_window window;         /* what this end sent: most in flight */
    double bw_avg, bw_peak, msg_rate; /* bytes/s, messages/s */
    struct gdr_lat_stats lat;         /* latency tests only */
    struct gdr_cpu_use cpu;
    struct gdr_steady steady; /* bandwidth over slices of the loop; 0 slices: none */
    uint64_t sleeps;          /* times this end slept on a completion channel */
};

/* What one end saw around its part of a size, outside the timed loop:
 * its port's counter deltas, its GPU's PCIe link as the loop ended (GPUs
 * lower it when idle) and its GPU's NVML state. */
struct gdr_size_seen {
    struct gdr_counter_deltas nic;
    double gpu_gts;     /* 0 unknown or no GPU */
    unsigned gpu_width; /* 0 unknown or no GPU */
    struct gdr_gpu_sample gpu;
};

struct gdr_size_start {
    char phase[16]; /* "warmup" or "timed" */
    uint64_t size, iters;
    double expect_s; /* how long the phase should take; 0 unknown */
};

struct gdr_size_done_msg {
    struct gdr_measure m; /* the client's measure */
    struct gdr_size_seen seen;
};

struct gdr_size_result_msg {
    struct gdr_measure m; /* the server's measure */
    struct gdr_size_seen seen;
    uint64_t bad_bytes; /* what the server's data check found */
    double prestage_s;  /* staged read: the server's copy into its ring */
};

/* Encoders return a new object (the caller deletes it). Decoders return 0,
 * or -1 after gdr_fail naming `what` and the field. */
cJSON *gdr_size_start_encode(const struct gdr_size_start *st);
int gdr_size_start_decode(const cJSON *msg, struct gdr_size_start *st, const char *what);

cJSON *gdr_size_done_encode(const struct gdr_size_done_msg *d);
int gdr_size_done_decode(const cJSON *msg, struct gdr_size_done_msg *d, const char *what);

cJSON *gdr_size_result_encode(const struct gdr_size_result_msg *r);
int gdr_size_result_decode(const cJSON *msg, struct gdr_size_result_msg *r, const char *what);

#endif
