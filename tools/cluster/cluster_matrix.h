/* cluster_matrix.h - node x node matrices of one cluster run.
 *
 * One matrix per test (tool.placement.gdr), rail and message size; cell
 * [client][server] holds the client's figure for that run: average
 * bandwidth (bytes/s) or median latency (seconds). Read from the results
 * directory of gdr-cluster: RESULTS/<run id>.client.json per planned run. */
#ifndef GDR_TOOLS_CLUSTER_MATRIX_H
#define GDR_TOOLS_CLUSTER_MATRIX_H

#include "cluster_plan.h"
#include "figure.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum gdr_cell_state { GDR_CELL_NONE = 0, GDR_CELL_OK, GDR_CELL_FAILED };

/* One measured (or failed) pair: 40 bytes, so that a matrix of thousands
 * of nodes is numbers, not documents. */
struct gdr_cell {
    uint32_t c, s;     /* client and server node */
    uint32_t round;    /* the plan's round (1-based); 0 unknown */
    uint8_t state;     /* enum gdr_cell_state */
    int8_t clean;      /* 1, 0 (a NIC counted errors or retransmissions), -1 unknown */
    bool gdr_off[2];   /* [0] client, [1] server: GDR asked for, not in effect */
    double value;      /* bytes/s, or seconds for latency tests */
    double rate_bytes; /* slower port of the two ends, bytes/s; 0 unknown */
    double limit;      /* the row's limit (what the path carries at best); 0 unknown */
};

/* Sparse: only the planned cells are stored (random:15 on 4,096 nodes
 * plans 0.4 % of them), sorted by client then server once complete
 * (gdr_matrix_finish), with an index by server. */
struct gdr_matrix {
    struct gdr_test_mode test;
    int rail;
    uint64_t size;
    bool latency;
    size_t n; /* nodes */
    size_t ncells, cap;
    struct gdr_cell *cells;
    size_t *row; /* n + 1: node i's cells as client are cells[row[i] .. row[i+1]) */
    size_t *col; /* n + 1: as server, cells[byserver[col[i] .. col[i+1])] */
    uint32_t *byserver;
    bool sorted;
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
/* The matrix for (test, rail, size), created (no cells) when absent; NULL
 * on out of memory. */
struct gdr_matrix *gdr_matrix_get(struct gdr_matrix_set *s, const struct gdr_test_mode *t, int rail,
                                  uint64_t size, bool latency);
void gdr_matrix_set_free(struct gdr_matrix_set *s);

/* The cell (c, s), added (state NONE) when absent; NULL on out of memory.
 * The matrix is unsorted again until gdr_matrix_finish. */
struct gdr_cell *gdr_matrix_put(struct gdr_matrix *m, size_t c, size_t s);
/* Sort the cells and index them (a cell put twice: the last one stays).
 * Returns 0 or -1 (memory). Every reader below wants finished matrices. */
int gdr_matrix_finish(struct gdr_matrix *m);
int gdr_matrix_set_finish(struct gdr_matrix_set *s);

/* The cell (c, s) of a finished matrix: NULL when not planned. */
struct gdr_cell *gdr_cell_find(const struct gdr_matrix *m, size_t c, size_t s);
/* The same, never NULL: a cell in state NONE stands for a cell not planned. */
const struct gdr_cell *gdr_cell_at(const struct gdr_matrix *m, size_t c, size_t s);

/* Node i's cells as client (d = 0) or server (d = 1): k-th of count. */
static inline size_t gdr_matrix_node_count(const struct gdr_matrix *m, size_t i, int d)
{
    return d ? m->col[i + 1] - m->col[i] : m->row[i + 1] - m->row[i];
}
static inline const struct gdr_cell *gdr_matrix_node_cell(const struct gdr_matrix *m, size_t i,
                                                          int d, size_t k)
{
    return d ? &m->cells[m->byserver[m->col[i] + k]] : &m->cells[m->row[i] + k];
}

/* Where the cells come from: dir/<id>.client.json per run of the plan; or
 * cells, a file of gdr_matrix_save_cells for this plan; or first agents,
 * the agents' lines (agents/NODE.cells: gdr-cluster-core cell, run on the
 * node that wrote the document), with status the run status lines (a
 * failed run's cells are FAILED whatever its client measured), then the
 * documents of the runs no agent line covers. */
struct gdr_matrix_source {
    const char *dir, *cells, *agents, *status;
};

/* Per run of the plan, its client's result: each row fills its size's
 * matrix; a missing, unreadable or failed document marks the run's cell
 * FAILED in every matrix of its test and rail. With analysed_only, only
 * each test and rail's analysed size is kept (det_size: the given size,
 * or 0: the largest, for latency the smallest): what suspects and report
 * need. Documents are read a batch at a time on several threads.
 * Returns 0 or -1 (memory, a bad cells file or agent line). */
int gdr_matrix_load(const struct gdr_plan *p, const struct gdr_matrix_source *src,
                    bool analysed_only, uint64_t det_size, struct gdr_matrix_set *s);

/* Every cell of s to path: the documents read once for the commands
 * after (suspects, report, the heatmaps): a binary file of fixed records,
 * tied to the plan's nodes and tests. */
int gdr_matrix_save_cells(const struct gdr_matrix_set *s, const struct gdr_plan *p,
                          const char *path);

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

/* The line gdr-cluster-core cell writes for a run's client result r:
 * ID LATENCY RATE GDR_OFF SIZE:VALUE:LIMIT:CLEAN,... (tab-separated). */
void gdr_matrix_cell_line(FILE *f, const char *id, const struct gdr_run_result *r);

/* matrix-<test>-<size>-r<rail>.csv in dir for every matrix: a header row
 * of server nodes, one row per client node; empty = not planned, FAILED. */
int gdr_matrix_write_csvs(const struct gdr_matrix_set *s, const char *dir);

/* One heatmap's grid, the rule of every heatmap (the figures' data and
 * the cluster page): a cell is gdr_heat_block(nodes) nodes on a side; it
 * holds the worst measured ratio to ref of its pairs (value / ref,
 * latency ref / value: low is bad either way) and that pair's value; it
 * is failed when any of its pairs failed, unreachable when none of its
 * pairs ran and one of its nodes was left out, low when the detector
 * called any of its pairs low (low: NULL, none). */
struct gdr_heat_cell {
    double ratio, value; /* NaN: no pair measured */
    bool failed, unreachable, low;
};
struct gdr_heat_grid {
    size_t block, side;
    struct gdr_heat_cell *cell; /* side x side, a row per client block */
};
typedef bool (*gdr_heat_low_fn)(const void *ctx, const struct gdr_cell *c);
/* 0, or -1 after gdr_fail (out of memory). */
int gdr_heat_grid(const struct gdr_matrix_set *s, const struct gdr_matrix *m, double ref,
                  gdr_heat_low_fn low, const void *ctx, struct gdr_heat_grid *g);
void gdr_heat_grid_free(struct gdr_heat_grid *g);

/* For gnuplot, in dir, per matrix (NAME = <test>-<size>-r<rail>), the
 * grid above against reference[k]:
 * heat-NAME.dat "column row ratio value" for every cell (NaN: none
 * measured), a blank line after each row; failed-NAME.dat and
 * unreachable-NAME.dat "column row" of those cells; values-NAME.dat the
 * values (bytes/s or seconds) of the good pairs; layout-NAME.dat "blocks
 * NB size B nodes N" (NB = 0: every node a cell). Blocked, top-NAME.dat
 * lists the GDR_HEAT_TOP worst nodes' (lowest median ratio) own pairs at
 * full resolution, "partner rank ratio" (rank 0 the worst), and
 * topnames-NAME.txt their names.
 * reference[k] is matrix k's reference in its own unit (the detector's:
 * with few nodes the median would be one of a slow node's links); 0 or a
 * NULL array means the matrix's median. */
#define GDR_HEAT_TOP 16
int gdr_matrix_write_heat(const struct gdr_matrix_set *s, const double *reference, const char *dir);

/* Median of the good cells of the n matrices m (0 when none): one
 * matrix's reference, or every rail's of a test and size together. */
double gdr_matrices_median(const struct gdr_matrix *const *m, size_t n);

#endif
