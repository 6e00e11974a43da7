/* core_cli.h - what the subcommands of gdr-cluster-core share (the program,
 * not libgdrcluster): option parsing in the "--name value" / "--name=value"
 * style, the one-line usage and input errors with their exit codes, writing
 * a JSON document, the options of the analysis commands, reading
 * suspects.json. One file per subcommand or group: core_plan.c (plan,
 * plan-runs), core_rails.c, core_analysis.c (matrix, suspects, retest-runs,
 * confirm), core_report.c, core_manifest.c, core_agent.c (agent-runs,
 * collect, cell), core_aggregate.c; gdr_cluster.c dispatches. */
#ifndef GDR_TOOLS_CLUSTER_CORE_CLI_H
#define GDR_TOOLS_CLUSTER_CORE_CLI_H

#include "cluster_suspects.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/* "gdr-cluster-core: MESSAGE (gdr-cluster-core --help)" on stderr; returns
 * GDR_EXIT_USAGE. */
__attribute__((format(printf, 1, 2))) int gdr_core_usage_error(const char *fmt, ...);

/* The recorded error (common/util error) on stderr; returns its exit code:
 * ENV stays ENV, everything else read here is input (USAGE). */
int gdr_core_report_error(void);

/* The option last seen without its value (checked after each argument). */
extern const char *gdr_core_missing_value;

/* "--name=value" or "--name value" at argv[*i]; advances *i past it. */
bool gdr_core_opt(int argc, char **argv, int *i, const char *name, const char **val);

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
    unsigned long worst;            /* report: the N worst nodes per matrix (0: every node) */
    struct gdr_detect_opts det;
    unsigned long port;
};

int gdr_core_parse_common(int argc, char **argv, const char *cmd, bool want_file,
                          struct gdr_core_args *a);

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

#endif
