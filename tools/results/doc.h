/* doc.h - one result document (schema gdrbench.result/1), read and checked.
 *
 * gdr_doc_load parses a file, checks every structural rule and invariant
 * that docs/results-format.md promises, and keeps what the tools need:
 * the identity of the run (test, ends, GDR mode) and one row per size. */
#ifndef GDR_TOOLS_DOC_H
#define GDR_TOOLS_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"

#include "schema.h"

#define GDR_DOC_MAX_BYTES (64u << 20)

enum gdr_lat_field { LAT_MIN, LAT_MEDIAN, LAT_MEAN, LAT_STDEV, LAT_P99, LAT_P999, LAT_MAX, LAT_N };

struct gdr_row {
    uint64_t size, iterations;
    double bw_avg, bw_peak, msg_rate; /* bytes/s, bytes/s, messages/s */
    double lat[LAT_N];                /* seconds (latency tests only) */
    double cpu_client, cpu_server;    /* user + system, fractions of one CPU */
    double limit, pct_of_limit;       /* bytes/s, %; NAN unknown (or an older document) */
    int clean; /* 1 no error or retransmission counted, 0 some, -1 not known */
};

struct gdr_end_info {
    char host[256], device[64];
    char placement[16], registration[16]; /* "host" when absent */
    char cuda_name[128];                  /* the GPU's name; "" when absent */
};

/* Appended to the test name of a bidirectional document ("write_bw-bidir"). */
#define GDR_BIDI_SUFFIX "-bidir"

/* A soak's summary (--soak; docs/results-format.md "A soak"): its rows are
 * the last interval's, its value the median over every interval. */
struct gdr_soak_info {
    bool present;
    double median; /* soak.value.median; NAN when no interval ran */
    bool fabric;   /* its findings hold an outage or a rising error counter */
};

struct gdr_doc {
    char path[1024];
    char test[64], metric[16], role[16], status[16];
    char version[64], start_time[40];
    char error[512];
    struct gdr_error_class error_class; /* kind "" when the document has none */
    bool latency;
    bool has_client, has_server;
    struct gdr_end_info client, server;
    char pair[40];  /* "host-host", "cuda-host", ... (client-server) */
    char reg[40];   /* "host/host": client and server registration */
    char gdr[8];    /* "on", "off" or "n/a" */
    bool simulated; /* a GPU end is the CUDA driver test double (see collect.h) */
    size_t nrows;
    struct gdr_row *rows;
    struct gdr_soak_info soak;
};

/* Load and check path. Returns 0, or -1 after gdr_fail(GDR_EXIT_USAGE,
 * "<path>: <field>: <problem>"). On success *out owns rows (gdr_doc_free). */
int gdr_doc_load(const char *path, struct gdr_doc *out);
/* The same checks on a parsed document; `what` names it in messages. */
int gdr_doc_from_json(const cJSON *root, const char *what, struct gdr_doc *out);
/* A document of a newer schema (gdrbench.result/N, N > 1) is no bad
 * input but one this build cannot read: -1 after "WHAT: schema X is newer
 * than this PROG reads (gdrbench.result/1): update gdrbench", PROG the
 * running program; else 0. gdr_doc_from_json and gdr_doc_load check it
 * first. */
int gdr_doc_newer_schema(const cJSON *root, const char *what);
void gdr_doc_free(struct gdr_doc *d);

/* The row for size, or NULL. */
const struct gdr_row *gdr_doc_row(const struct gdr_doc *d, uint64_t size);

#endif
