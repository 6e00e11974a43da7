/* manifest.h - a sweep's manifest.json (gdrbench.sweep/1), written by C.
 *
 * gdr-sweep keeps its state in the manifest itself: init writes the header,
 * hosts the two nodes, add-run one run (replacing an earlier entry of the
 * same name), finish puts the runs in plan order, fails the planned runs
 * that never ran when given a reason, and counts. Every step rewrites the
 * whole file atomically (temporary file + rename), so a reader sees the
 * previous manifest or the new one. docs/sweep.md lists the fields. */
#ifndef GDR_TOOLS_MANIFEST_H
#define GDR_TOOLS_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define GDR_MANIFEST_SCHEMA "gdrbench.sweep/1"

struct gdr_manifest_header {
    const char *run_id, *git_version, *mode;
    bool resumed;              /* --resume: keep the runs already recorded */
    char *const *command_line; /* argv of the sweep, as typed */
    size_t ncommand_line;
};

/* One run. Text left NULL or "" is written as null; numbers < 0 as null. */
struct gdr_manifest_run {
    long index;                         /* its place in the plan, from 1 */
    const char *status;                 /* "ok" or "failed" */
    bool resumed;                       /* skipped by --resume: an earlier ok entry stays */
    const char *tool, *placement, *gdr; /* gdr: "on", "off" or "n/a" */
    long client_exit, server_exit;
    const char *reason, *client_error, *server_error;
    long duration_s;
    bool simulated;
    long port;
};

/* One planned run, in plan order. */
struct gdr_manifest_plan_item {
    const char *tool, *placement, *gdr;
};

/* Each returns 0, or -1 after gdr_fail naming the file and the problem. */
int gdr_manifest_init(const char *path, const struct gdr_manifest_header *h);
int gdr_manifest_hosts(const char *path, const char *server, const char *client,
                       const char *server_addr);
int gdr_manifest_add_run(const char *path, const struct gdr_manifest_run *r);
/* missing: the reason recorded for planned runs without an entry, or NULL
 * to leave them out. */
int gdr_manifest_finish(const char *path, const struct gdr_manifest_plan_item *plan, size_t nplan,
                        const char *missing);

/* A failed run's error_class for a manifest (gdr-sweep's and
 * gdr-cluster's): the error_class of its client document, else of its
 * server document (paths; NULL, missing or unreadable: skipped), else
 * {"kind": "stopped"} when the launcher stopped an end (its reason says
 * "stopped"), else {"kind": "no-result"}. NULL only when out of memory. */
cJSON *gdr_manifest_error_class(const char *client_doc, const char *server_doc, const char *reason);

/* "write_bw.H-D.on", "write_bw.H-H.na": the run's file name stem. */
void gdr_manifest_run_name(const char *tool, const char *placement, const char *gdr, char *buf,
                           size_t len);

#endif
