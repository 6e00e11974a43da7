/* core_cli.h - what the subcommands of gdr-cluster-core share (the program,
 * not libgdrcluster): option parsing over getopt_long, the one-line usage
 * and input errors with their exit codes, writing a JSON document, the
 * options of the analysis commands, reading suspects.json. One file per
 * subcommand or group: core_plan.c (plan, plan-runs), core_rails.c,
 * core_analysis.c (matrix, suspects, retest-runs, confirm), core_report.c
 * (report: the report.md digest, cluster_digest.c), core_manifest.c,
 * core_agent.c (agent-runs, collect, cell), core_aggregate.c; gdr_cluster.c
 * dispatches. */
#ifndef GDR_TOOLS_CLUSTER_CORE_CLI_H
#define GDR_TOOLS_CLUSTER_CORE_CLI_H

#include "cluster_suspects.h"
#include "error.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>

/* The usage error of every subcommand (common/util/error.h). */
#define gdr_core_usage_error(...) gdr_usage_error("gdr-cluster-core", __VA_ARGS__)

/* The recorded error (common/util error) on stderr; returns its exit code:
 * ENV stays ENV, everything else read here is input (USAGE). */
int gdr_core_report_error(void);

/* The next option of a subcommand's arguments (argv[0]: its name), with
 * getopt_long: "--name value", "--name=value", an unambiguous abbreviation,
 * the options letters name (getopt's "o:": -o FILE); "--" ends the
 * options. An argument that is not an option fills the first empty (NULL)
 * slot of pos[0..npos). Returns the option's val; -1 at the end (*rc 0) or
 * after the usage error (*rc GDR_EXIT_USAGE) for an unknown option, an
 * option without its value, or an argument pos has no room for. */
int gdr_core_getopt(int argc, char **argv, const char *letters, const struct option *opts,
                    const char **pos, size_t npos, int *rc);

int gdr_core_parse_count(const char *name, const char *s, unsigned long max, unsigned long *out);
int gdr_core_parse_real(const char *name, const char *s, double max, double *out);

/* To path, atomically; NULL or "-": stdout. */
int gdr_core_write_json(const cJSON *j, const char *path);

/* The options of matrix, suspects, retest-runs, confirm and report. */
struct gdr_core_args {
    const char *plan, *dir, *out, *file, *heat, *suspects, *manifest, *figures, *title, *status;
    const char *cells, *save_cells; /* --cells: read instead of the documents; --save-cells */
    const char *unreachable;        /* suspects --status: the probe's misses */
    const char *agents;             /* matrix: the agents' cells (agents/NODE.cells) */
    bool draw;                      /* matrix --heat: the figures too */
    unsigned long worst;            /* report: the N worst nodes per matrix (0: every node) */
    struct gdr_detect_opts det;
    unsigned long port;
};

/* argv[0] is the subcommand's name; want_file: one argument, the suspects file. */
int gdr_core_parse_common(int argc, char **argv, bool want_file, struct gdr_core_args *a);

/* suspects.json of this version, or NULL with the error recorded. */
cJSON *gdr_core_load_suspects(const char *path);

int gdr_core_cmd_plan(int argc, char **argv);
int gdr_core_cmd_plan_runs(int argc, char **argv);
int gdr_core_cmd_rails(int argc, char **argv);
int gdr_core_cmd_matrix(int argc, char **argv);
int gdr_core_cmd_suspects(int argc, char **argv);
int gdr_core_cmd_retest_runs(int argc, char **argv);
int gdr_core_cmd_confirm(int argc, char **argv);
int gdr_core_cmd_report(int argc, char **argv);
int gdr_core_cmd_manifest(int argc, char **argv);
int gdr_core_cmd_agent_runs(int argc, char **argv);
int gdr_core_cmd_collect(int argc, char **argv);
int gdr_core_cmd_cell(int argc, char **argv);
int gdr_core_cmd_aggregate(int argc, char **argv);
int gdr_core_cmd_soak_end(int argc, char **argv);

#endif
