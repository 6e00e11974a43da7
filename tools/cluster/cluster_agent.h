/* cluster_agent.h - agent mode: one process per node runs its own part of
 * the plan (gdr_plan_foreach_node) and writes a line per end it ran to
 * RESULTS/agents/NODE.ends; this module turns those lines into the run
 * status lines of cluster_status.h, with the same failure classes as the
 * per-run mode.
 *
 * An end line, tab-separated:
 *   ID ROLE RC SECONDS STATE REASON
 * ROLE client|server, RC the benchmark's exit code, STATE ok (exit 0; a
 * client's document checked), exit (non-zero), timeout (stopped at
 * --run-timeout), result (exit 0, the client's document missing or
 * invalid). Lines starting with '#' are the agent's own:
 *   # started NODE PID EPOCH       (each start; a later one begins anew)
 *   # done | # interrupted         (its last line, if it lived to write it)
 * A later line for an ID and role wins (a resumed run appends). */
#ifndef GDR_TOOLS_CLUSTER_AGENT_H
#define GDR_TOOLS_CLUSTER_AGENT_H

#include "cluster_plan.h"

#include <stdbool.h>
#include <stdio.h>

enum gdr_agent_state { GDR_AGENT_NONE, GDR_AGENT_RUNNING, GDR_AGENT_DONE, GDR_AGENT_STOPPED };

struct gdr_end_line {
    bool seen;
    int rc;
    double seconds;
    char state[12];
    char reason[300];
};

/* What the agents' files say: per node its agent's state, per run its two
 * ends (indexed by the plan's ordinal). */
struct gdr_agents {
    size_t nnodes, nruns;
    enum gdr_agent_state *agent;    /* per node */
    char (*why)[200];               /* per node: why its agent never started ("" unknown) */
    struct gdr_end_line (*ends)[2]; /* per run: [0] client, [1] server */
};

/* Read dir/NODE.ends for every node of p. A line for an id the plan does
 * not have is ignored; a line of another shape is bad input (named). */
int gdr_agents_read(const struct gdr_plan *p, const char *dir, struct gdr_agents *a);
void gdr_agents_free(struct gdr_agents *a);

/* The status line of one run (cluster_status.h) from its two ends, or
 * false when it has none: interrupted and an end missing (the run did not
 * finish). An end missing otherwise: failed, class unreachable, naming
 * the node and why its agent never ran that end. */
bool gdr_agent_status_line(const struct gdr_agents *a, const struct gdr_plan *p,
                           const struct gdr_plan_run *r, size_t ordinal, bool interrupted,
                           FILE *out, bool *failed);

#endif
