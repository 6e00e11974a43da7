/* cluster_plan.h - the cluster plan: rounds -> steps -> runs.
 *
 * A round is a set of disjoint node pairs (cluster_sched). Within a round,
 * each step runs at the same time; steps run one after the other:
 *   for each test (tool.placement.gdr), for each direction (forward: the
 *   lower-listed node of the pair is the client; reverse: the other one),
 *   for each rail group (the selected rails that share no NIC on any node
 *   run at once; rails sharing a NIC go to later groups, since each would
 *   measure a share of it; one rail per step with --rails-serial; all at
 *   once, shared NICs too, with shared_nic_together): one step.
 * Every test of the suite moves data one way (write_bw and send_bw from
 * client to server, read_lat from server to client), so both directions run
 * unless told otherwise; a node is in at most one run per rail in a step.
 *
 * The plan is JSON on disk; the shell reads it one round at a time as
 * tab-separated lines (gdr_plan_print_runs). */
#ifndef GDR_TOOLS_CLUSTER_PLAN_H
#define GDR_TOOLS_CLUSTER_PLAN_H

#include "cluster_rails.h"
#include "cluster_sched.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#define GDR_PLAN_VERSION "gdrbench.cluster-plan/1"
#define GDR_NODE_NAME_LEN 128
#define GDR_PLAN_MAX_TESTS 32

struct gdr_test_mode {
    char tool[32], placement[8], gdr[8]; /* write_bw, H-H|H-D|D-H|D-D, on|off|na */
};

struct gdr_plan_end {
    size_t node;               /* index into the plan's nodes */
    char device[64];           /* "" = the benchmark's default device */
    int gpu;                   /* -1 = the benchmark's default (or host placement) */
    char gpu_bdf[GDR_BDF_LEN]; /* the GPU's PCI bus id; "" unknown (older plans) */
};

struct gdr_plan_run {
    char id[3 * GDR_NODE_NAME_LEN]; /* TEST.rRAIL.CLIENT_SERVER, also the file name */
    struct gdr_test_mode test;
    int rail;
    unsigned port;
    size_t round, step; /* 1-based */
    struct gdr_plan_end client, server;
    unsigned nic_share; /* rails of the step on this run's busier NIC (1: the NIC alone) */
};

struct gdr_plan {
    size_t nnodes;
    char (*nodes)[GDR_NODE_NAME_LEN];
    size_t nruns;
    struct gdr_plan_run *runs;
    size_t nrounds, nsteps;
    double estimated_s;
    cJSON *meta; /* pairing, rails, sizes...: kept as read/written */
};

enum gdr_pairing { GDR_PAIRING_FULL, GDR_PAIRING_QUICK, GDR_PAIRING_FILE };

struct gdr_plan_opts {
    size_t nnodes;
    const char (*nodes)[GDR_NODE_NAME_LEN];
    const bool *left_out; /* per node, or NULL: in the node list, in no run (unreachable) */
    const struct gdr_rail_map *rails; /* per node, or NULL: default rail only */
    enum gdr_pairing pairing;
    const struct gdr_pair *pairs; /* GDR_PAIRING_FILE */
    size_t npairs;
    size_t max_concurrent; /* 0: no limit; 1 = serial */
    size_t nrail_sel;      /* 0: the default rail (no -d, no GPU index) */
    int rail_sel[GDR_RAILS_MAX];
    bool rails_serial;
    bool shared_nic_together; /* rails sharing a NIC in one step (judged on their share) */
    size_t ntests;
    struct gdr_test_mode tests[GDR_PLAN_MAX_TESTS];
    bool one_direction;
    size_t nsizes;
    double time_per_size_s, run_overhead_s;
    unsigned base_port;
};

/* A node name is [A-Za-z0-9.-]+ (so that run ids and tab-separated lines
 * stay unambiguous). */
bool gdr_plan_node_name_ok(const char *name);

/* A field error from common/json (recorded as a run failure, since peers'
 * messages go through it too) turned into bad input: returns -1. */
int gdr_cluster_input_error(void);

/* "write_bw.H-H.na" */
void gdr_test_mode_name(const struct gdr_test_mode *t, char *buf, size_t len);

/* Build the plan. Nodes left out keep their place in the node list (their
 * matrix rows, a retest against them) and get no run; their names are in
 * the plan's options.left_out. Returns 0, or -1 with gdr_fail(USAGE) naming
 * the problem (fewer than two nodes to pair, a rail a node lacks, a bad
 * pair). */
int gdr_plan_build(const struct gdr_plan_opts *o, struct gdr_plan *p);

cJSON *gdr_plan_to_json(const struct gdr_plan *p);
int gdr_plan_from_json(const cJSON *doc, const char *what, struct gdr_plan *p);
/* One run object (a plan's, or a retest list's in suspects.json); its
 * nodes must be p's. round and step are left alone. */
int gdr_plan_run_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_run *r,
                           const char *what);
int gdr_plan_load(const char *path, struct gdr_plan *p);
void gdr_plan_free(struct gdr_plan *p);

/* One line per run of round (1-based; 0 = every round), tab-separated:
 * ROUND STEP ID TOOL PLACEMENT GDR RAIL PORT CNODE CDEV CGPU SNODE SDEV SGPU
 * with "-" for a default device or GPU. */
void gdr_plan_print_runs(FILE *f, const struct gdr_plan *p, const struct gdr_plan_run *runs,
                         size_t nruns, size_t round);

/* Index of node name in p, or -1. */
long gdr_plan_node_index(const struct gdr_plan *p, const char *name);

#endif
