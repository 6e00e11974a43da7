/* cluster_status.h - the status line scripts/gdr-cluster writes for each
 * run it finished (ok or failed), read back for the manifest and for the
 * retest verdicts:
 *   ID STATUS CRC SRC DURATION RESUMED REASON [CLASS [END]]
 * tab-separated; CRC/SRC the ends' exit codes ('-': none), RESUMED true or
 * false, CLASS the failure class of a failed run and END the end it names.
 * A later line for an ID wins. Failure classes (the manifest's
 * runs[].failure.class; a new class is a new string, readers must take
 * one they do not know as "failed"):
 *   unreachable  an end's command never started on its node (launcher
 *                refused, or no answer within the deadline)
 *   timeout      both ends started, no exit within --run-timeout
 *   exit         an end exited non-zero
 *   result       exit 0, but the client's document is missing or invalid */
#ifndef GDR_TOOLS_CLUSTER_STATUS_H
#define GDR_TOOLS_CLUSTER_STATUS_H

#include "cluster_plan.h"

#include <stddef.h>

struct gdr_run_status {
    char id[3 * GDR_NODE_NAME_LEN], status[16], crc[8], src[8], resumed[8];
    double duration;
    char reason[420];
    char fclass[32], end[16]; /* "" when the line has none (ok, or an older line) */
    size_t order;
};

/* Read every line of path (sorted by ID, then line). Returns 0, or -1 with
 * gdr_fail(USAGE) naming the file and line. *out is freed by the caller. */
int gdr_run_status_read(const char *path, struct gdr_run_status **out, size_t *n);

/* One line (its newline dropped, the line cut at the tabs) into *s:
 * 0, 1 for an empty line, -1 for a line of another shape. */
int gdr_run_status_parse(char *line, struct gdr_run_status *s);

/* The last line for id, or NULL. */
const struct gdr_run_status *gdr_run_status_find(const struct gdr_run_status *v, size_t n,
                                                 const char *id);

#endif
