/* context.h - every number with its context: what the path can carry at
 * best (the limit of each row and its % reached), what each end's NIC
 * counted during each size (clean or not), the PCIe state of the path and
 * the GPU's state. The formula is util/limit.c's, the PCIe and counter
 * reading topo's, NVML mem/nvml.c's; this module gathers them for a
 * session, around each size, and into each row. Nothing here fails a
 * run: what cannot be read is recorded as unknown. */
#ifndef GDR_CONTEXT_H
#define GDR_CONTEXT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "counters.h"
#include "nvml.h"
#include "stats.h"
#include "topo.h"

struct gdr_session;
struct gdr_size_result;
struct gdr_size_seen;

/* This end's context (a member of the session). */
struct gdr_context {
    char gpu_bdf[GDR_BDF_LEN]; /* sysfs form; "" without a GPU buffer */
    struct gdr_nvml nvml;
    struct gdr_counter_watch nic; /* the port's counters around each size */
};

/* One path's limit: the least of its parts, each in payload bytes/s. */
struct gdr_path_limit {
    double bytes_per_s;              /* 0 unknown */
    const char *bound_by;            /* "port", "nic_pcie", "gpu_pcie"; NULL unknown */
    double port, nic_pcie, gpu_pcie; /* 0 unknown; -1 not on this path */
    char unknown[192];               /* the first part not known, and why */
};
struct gdr_row_limit {
    bool set;                     /* a bandwidth row */
    struct gdr_path_limit total;  /* one way; bidirectional: the sum */
    struct gdr_path_limit dir[2]; /* bidirectional: client->server, server->client */
};

/* "0000:3B:00.0" (CUDA) or "00000000:3b:00.0" -> "0000:3b:00.0" (sysfs);
 * "" when it is not a bus id. */
void gdr_context_gpu_bdf(const char *cuda_bus_id, char *bdf, size_t len);

/* Once the device and the buffer are set up: this end's port rate, PCIe
 * links and GPU state into s->local (they travel in ENDPOINT). */
void gdr_context_describe(struct gdr_session *s);
/* Around this end's part of each size, outside the timed loop. The
 * traffic of the size ended quiet_ns ago (0: just now); the counters are
 * read once the kernel must have refreshed them since (counters.h). */
void gdr_context_size_begin(struct gdr_session *s);
void gdr_context_size_end(struct gdr_session *s, uint64_t quiet_ns, struct gdr_size_seen *seen);
/* The row's limit, from both ends' facts (both ends compute the same). */
void gdr_context_row_limit(const struct gdr_session *s, struct gdr_size_result *row);
/* Add limit, pct_of_limit, clean, nic_counters, gpu and steadiness. */
void gdr_context_row_json(const struct gdr_session *s, const struct gdr_size_result *row, cJSON *o);
/* "steadiness" into o, when the loop measured slices. */
void gdr_context_steadiness_json(const struct gdr_steady *st, cJSON *o);
void gdr_context_release(struct gdr_session *s);

#endif
