/* cluster_matrix.h - node x node matrices of one cluster run.
 *
 * One matrix per test (tool.placement.gdr), rail and message size; cell
 * [client][server] holds the client's figure for that run: average
 * bandwidth (bytes/s) or median latency (seconds). Read from the results
 * directory of gdr-cluster: RESULTS/<run id>.client.json per planned run. */
#ifndef GDR_TOOLS_CLUSTER_MATRIX_H
#define GDR_TOOLS_CLUSTER_MATRIX_H

#include "cluster_plan.h"

#include <stdbool.h>
#include <stdint.h>

enum gdr_cell_state { GDR_CELL_NONE = 0, GDR_CELL_OK, GDR_CELL_FAILED };

struct gdr_cell {
    enum gdr_cell_state state;
    double value;      /* bytes/s, or seconds for latency tests */
    size_t round;      /* the plan's round (1-based); 0 unknown */
    double rate_bytes; /* slower port of the two ends, bytes/s; 0 unknown */
    bool gdr_off[2];   /* [0] client, [1] server: GDR asked for, not in effect */
    double limit;      /* the row's limit (what the path carries at best); 0 unknown */
    int clean;         /* 1, 0 (a NIC counted errors or retransmissions), -1 unknown */
};

struct gdr_matrix {
    struct gdr_test_mode test;
    int rail;
    uint64_t size;
    bool latency;
    size_t n;
    struct gdr_cell *cells; /* n * n, [client * n + server] */
};

struct gdr_matrix_set {
    size_t n; /* nodes */
    char (*nodes)[GDR_NODE_NAME_LEN];
    bool *left_out; /* per node: in no run (the plan's options.left_out) */
    size_t count;
    struct gdr_matrix *m;
};

/* An empty set over the plan's nodes. */
int gdr_matrix_set_init(struct gdr_matrix_set *s, size_t n, const char (*nodes)[GDR_NODE_NAME_LEN]);
/* The matrix for (test, rail, size), created (all cells NONE) when absent;
 * NULL on out of memory. */
struct gdr_matrix *gdr_matrix_get(struct gdr_matrix_set *s, const struct gdr_test_mode *t, int rail,
                                  uint64_t size, bool latency);
void gdr_matrix_set_free(struct gdr_matrix_set *s);

static inline struct gdr_cell *gdr_cell_at(const struct gdr_matrix *m, size_t c, size_t s)
{
    return &m->cells[c * m->n + s];
}

/* Per run of the plan, read dir/<id>.client.json: each row fills its size's
 * matrix; a missing, unreadable or failed document marks the run's cell
 * FAILED in every matrix of its test and rail. Returns 0 or -1 (memory). */
int gdr_matrix_load(const struct gdr_plan *p, const char *dir, struct gdr_matrix_set *s);

/* What one client document says, for the matrix and for retests. */
struct gdr_run_result {
    bool ok; /* a readable, complete document */
    bool latency;
    size_t nrows;
    uint64_t sizes[64];
    double values[64];
    double limits[64]; /* 0 unknown */
    int clean[64];
    double rate_bytes;
    bool gdr_off[2];
    char error[256];
};
/* Read path; the GDR check uses test (gdr "on" asked). Never fails hard:
 * a bad document comes back with ok = false and the reason in error. */
void gdr_run_result_read(const char *path, const struct gdr_test_mode *test,
                         struct gdr_run_result *r);

/* matrix-<test>-<size>-r<rail>.csv in dir for every matrix: a header row
 * of server nodes, one row per client node; empty = not planned, FAILED. */
int gdr_matrix_write_csvs(const struct gdr_matrix_set *s, const char *dir);

/* For gnuplot, in dir, per matrix (NAME = <test>-<size>-r<rail>):
 * heat-NAME.dat "column row ratio value" for every cell, ratio = value /
 * reference (latency: reference / value, so low is bad either way), NaN
 * when not planned or failed; failed-NAME.dat "column row" of the failed
 * cells; values-NAME.dat the values (bytes/s or seconds) of the good cells;
 * unreachable-NAME.dat "column row" of the cells of nodes left out.
 * reference[k] is matrix k's reference in its own unit (the detector's:
 * with few nodes the median would be one of a slow node's links); 0 or a
 * NULL array means the matrix's median. */
int gdr_matrix_write_heat(const struct gdr_matrix_set *s, const double *reference, const char *dir);

/* Median of the OK cells of m (0 when none). */
double gdr_matrix_median(const struct gdr_matrix *m);

#endif
