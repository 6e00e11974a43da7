/* cluster_plan.h - the cluster plan: rounds -> steps -> runs, computed.
 *
 * A round is a set of disjoint node pairs (cluster_sched). Within a round,
 * each step runs at the same time; steps run one after the other:
 *   for each test (tool.placement.gdr), for each direction (forward: the
 *   first node of the pair is the client; reverse: the other one),
 *   for each rail group (the selected rails that share no NIC on any node
 *   run at once; rails sharing a NIC go to later groups, since each would
 *   measure a share of it; one rail per step with --rails-serial; all at
 *   once, shared NICs too, with shared_nic_together): one step.
 * Every test of the suite moves data one way (write_bw and send_bw from
 * client to server, read_lat from server to client), so both directions run
 * unless told otherwise; a node is in at most one run per rail in a step.
 *
 * The plan holds the nodes, their rails, the tests and the pairing rule,
 * never the runs: its size grows with the nodes, and a round's runs are
 * computed when asked for (gdr_plan_foreach). The pairing:
 *   full    every pair once, by the circle method (partner in O(1));
 *   random  random:K, K circle rounds over a seeded random order: every
 *           node meets K partners, no pair twice;
 *   quick   one round, first half against second half;
 *   file    the given pairs, packed greedily into rounds (stored);
 * and max_concurrent splits each round into rounds of at most K pairs.
 *
 * Ports: a run uses base_port + 2 x (its step's place in a window of
 * about 64 steps x the rails + its rail's place): on one node no two ends
 * of a step share a port, and an agent running late (gdr-cluster's agent
 * mode, where nodes are not in lock step) meets another step's port only
 * 64 steps on, and then one of the same kind.
 *
 * A soak (soak_s > 0): the pairing's rounds are cycled, each soak round
 * lasting rotate_s (default: soak_s over the pairing's rounds, each once)
 * until soak_s is spent; a round's steps share its seconds, so every run
 * of it soaks gdr_plan_run_soak_s. Run ids then carry the soak round
 * (TEST.rRAIL.sROUND.CLIENT_SERVER): a pair met again in a later cycle is
 * another run. Still O(nodes): the rounds are computed, not stored.
 *
 * On disk, JSON (gdrbench.cluster-plan/2); version 1 plans (every run
 * written out) are refused with one line naming the version. */
#ifndef GDR_TOOLS_CLUSTER_PLAN_H
#define GDR_TOOLS_CLUSTER_PLAN_H

#include "cluster_rails.h"
#include "cluster_sched.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GDR_PLAN_VERSION "gdrbench.cluster-plan/2"
#define GDR_NODE_NAME_LEN 128
#define GDR_PLAN_MAX_TESTS 32
#define GDR_PLAN_PORT_STEPS 64

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
    size_t test_index; /* into the plan's tests (0 for a retest run) */
    int rail;
    unsigned port;
    size_t round, step; /* 1-based */
    struct gdr_plan_end client, server;
    unsigned nic_share; /* rails of the step on this run's busier NIC (1: the NIC alone) */
    unsigned soak_s;    /* a soak's run: its --soak seconds; 0 not a soak */
};

enum gdr_pairing { GDR_PAIRING_FULL, GDR_PAIRING_QUICK, GDR_PAIRING_FILE, GDR_PAIRING_RANDOM };

struct gdr_plan {
    size_t nnodes;
    char (*nodes)[GDR_NODE_NAME_LEN];
    bool *left_out; /* per node: in the node list, in no run (unreachable) */
    size_t ntests;
    struct gdr_test_mode tests[GDR_PLAN_MAX_TESTS];
    bool one_direction;
    size_t nrail_sel; /* 0: the default rail (no -d, no GPU index) */
    int rail_sel[GDR_RAILS_MAX];
    size_t group_of[GDR_RAILS_MAX], ngroups;
    struct gdr_plan_end *ends; /* nnodes x nrail_sel: each node's device and GPU per rail */
    unsigned *share;           /* nnodes x nrail_sel: rails of its group on that NIC */
    unsigned base_port;
    /* the schedule, over the nodes in play (not left out) */
    enum gdr_pairing pairing;
    size_t m, *play; /* play[k]: the node index of the k-th node in play */
    size_t random_k, random_first, *perm;
    uint64_t seed;
    struct gdr_schedule file; /* GDR_PAIRING_FILE, node indices */
    size_t max_concurrent;
    size_t nbase, *split_first; /* base rounds; first split round of each (nbase + 1) */
    size_t *run_first;          /* nrounds + 1: ordinal of each round's first run */
    size_t max_round_pairs, steps_per_round, port_window;
    size_t nrounds, nsteps, nruns;
    double estimated_s, round_s; /* the whole plan; one round (for --budget) */
    double soak_s, rotate_s;     /* a soak (0: none) and its rounds' length */
    size_t cycle;                /* a soak: the pairing's own rounds, cycled (0: no soak) */
    cJSON *meta;                 /* pairing, rails, sizes...: kept as read/written */
    struct gdr_plan_run *runs;   /* gdr_plan_expand only (tests, small plans); else NULL */
};

struct gdr_plan_opts {
    size_t nnodes;
    const char (*nodes)[GDR_NODE_NAME_LEN];
    const bool *left_out; /* per node, or NULL: in the node list, in no run (unreachable) */
    const struct gdr_rail_map *rails; /* per node, or NULL: default rail only */
    enum gdr_pairing pairing;
    const struct gdr_pair *pairs; /* GDR_PAIRING_FILE */
    size_t npairs;
    size_t random_k; /* GDR_PAIRING_RANDOM */
    uint64_t seed;
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
    double soak_s, rotate_s; /* a soak (0: none); rotate 0: soak_s over the rounds */
};

/* A node name is [A-Za-z0-9.-]+ (so that run ids and tab-separated lines
 * stay unambiguous). */
bool gdr_plan_node_name_ok(const char *name);

/* A field error from common/json (recorded as a run failure, since peers'
 * messages go through it too) turned into bad input: returns -1. */
int gdr_cluster_input_error(void);

/* "write_bw.H-H.na" */
void gdr_test_mode_name(const struct gdr_test_mode *t, char *buf, size_t len);
/* The same tool, placement and GDR mode. */
bool gdr_test_mode_equal(const struct gdr_test_mode *a, const struct gdr_test_mode *b);

/* Build the plan. Nodes left out keep their place in the node list (their
 * matrix rows, a retest against them) and get no run; their names are in
 * the plan's options.left_out. Returns 0, or -1 with gdr_fail(USAGE) naming
 * the problem (fewer than two nodes to pair, a rail a node lacks, a bad
 * pair, K too large for random:K). */
int gdr_plan_build(const struct gdr_plan_opts *o, struct gdr_plan *p);

cJSON *gdr_plan_to_json(const struct gdr_plan *p);
int gdr_plan_from_json(const cJSON *doc, const char *what, struct gdr_plan *p);
/* One run object (a retest list's in suspects.json); its nodes must be
 * p's. round and step are left alone. */
int gdr_plan_run_from_json(const cJSON *o, const struct gdr_plan *p, struct gdr_plan_run *r,
                           const char *what);
int gdr_plan_load(const char *path, struct gdr_plan *p);
void gdr_plan_free(struct gdr_plan *p);

/* The pairs of round (1-based), in node indices, pair.a the forward
 * direction's client; out holds p->max_round_pairs. Returns how many. */
size_t gdr_plan_round_pairs(const struct gdr_plan *p, size_t round, struct gdr_pair *out);

/* Calls fn for every run of round (1-based; 0 = every round) in plan
 * order with its ordinal (0-based, over the whole plan); stops at the
 * first non-zero return and returns it (-1: out of memory, recorded). */
typedef int (*gdr_plan_run_fn)(const struct gdr_plan_run *r, size_t ordinal, void *ctx);
int gdr_plan_foreach(const struct gdr_plan *p, size_t round, gdr_plan_run_fn fn, void *ctx);

/* Calls fn for each run of node's in plan order: the agent's own work.
 * O(rounds) for full and random pairing without a split. */
int gdr_plan_foreach_node(const struct gdr_plan *p, size_t node, gdr_plan_run_fn fn, void *ctx);

/* Fill p->runs with every run (tests and small plans). */
int gdr_plan_expand(struct gdr_plan *p);

/* The device and GPU node uses on rail (the default ones when the plan
 * has no rails or the node is left out). */
void gdr_plan_rail_end(const struct gdr_plan *p, size_t node, int rail, struct gdr_plan_end *e);

/* What an end passes the benchmark as its GPU (--mem=cuda:GPU): the bus
 * id, else the index (a plan without bus ids), else "-" (the default);
 * buf holds GDR_BDF_LEN. */
const char *gdr_plan_end_gpu(const struct gdr_plan_end *e, char *buf, size_t len);

/* One line per run, tab-separated:
 * ROUND STEP ID TOOL PLACEMENT GDR RAIL PORT CNODE CDEV CGPU SNODE SDEV SGPU
 * with "-" for a default device or GPU, a GPU by its bus id. */
void gdr_plan_print_run(FILE *f, const struct gdr_plan *p, const struct gdr_plan_run *r);
/* Every run of round (0 = all). */
int gdr_plan_print_round(FILE *f, const struct gdr_plan *p, size_t round);

/* A run id's 64-bit hash (FNV-1a; never 0): ids matched in one pass. */
uint64_t gdr_plan_id_hash(const char *id);

/* Run ids to ordinals (the agents' lines name runs by id): an open
 * addressing table of id hashes, built in one pass over the plan, which
 * also calls each (when not NULL) for every run. */
struct gdr_plan_index {
    size_t cap;
    uint64_t *hash;
    uint32_t *ordinal;
    gdr_plan_run_fn each;
    void *ctx;
};
int gdr_plan_index_build(const struct gdr_plan *p, struct gdr_plan_index *x, gdr_plan_run_fn each,
                         void *ctx);
/* The ordinal of id, or -1. */
long gdr_plan_index_find(const struct gdr_plan_index *x, const char *id);
void gdr_plan_index_free(struct gdr_plan_index *x);

/* Index of node name in p, or -1. */
long gdr_plan_node_index(const struct gdr_plan *p, const char *name);

/* The estimate: steps x (sizes x time per size + overhead). */
double gdr_plan_step_s(const struct gdr_plan *p);

/* A soak's round (1-based): the --soak seconds of each of its runs (the
 * round's share of the soak over its steps); 0 for a plan that is no
 * soak. gdr-cluster's run deadline is built on the largest of them. */
unsigned gdr_plan_run_soak_s(const struct gdr_plan *p, size_t round);

#endif
