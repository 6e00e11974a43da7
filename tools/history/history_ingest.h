/* history_ingest.h - a run directory into the history database.
 *
 * A run directory is a sweep's (manifest.json: its run id, date, version
 * and every planned run; the complete runs' client documents are read, the
 * failed ones recorded) or any directory of result documents (run id = the
 * directory's name, date = the earliest start_time). Everything is read and
 * checked before anything is written; then the run row and its failures go
 * in one transaction and each document's points in one more. A sweep that
 * never finished (its manifest has no end: a nightly killed mid-sweep) is
 * recorded with every run failed, those it finished too, and gives no
 * points. A cluster run (gdr-cluster's directory: plan.json) is a night per
 * link, each link (client and server host and device) its own testbed,
 * named as a two-node run between them would be. Unique keys make a second
 * ingest of the same run add nothing. */
#ifndef GDR_TOOLS_HISTORY_INGEST_H
#define GDR_TOOLS_HISTORY_INGEST_H

#include "history_db.h"

struct hist_ingest_result {
    char testbed[256], run_id[128];
    bool run_added;
    bool unfinished; /* the sweep never finished: every run recorded failed, no points */
    size_t points_added, points_present, failures;
    /* a cluster run (its plan.json): a night per link */
    size_t links;      /* its links, each a testbed; 0: not a cluster run */
    size_t runs_added; /* the links whose night is new */
    size_t endless;    /* its client documents without both ends: no link, not taken */
};

/* testbed: a label, or NULL to name it after the documents' hosts, devices
 * and GPUs. Returns 0, or -1 after gdr_fail (2: bad input). */
int hist_ingest_dir(struct hdb *h, const char *dir, const char *testbed,
                    struct hist_ingest_result *res);

#endif
