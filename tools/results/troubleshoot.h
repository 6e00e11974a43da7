/* troubleshoot.h - gdr-troubleshoot's analysis: the step documents in, the
 * report and the verdict out.
 *
 * DIR holds what scripts/gdr-troubleshoot collected: doctor/NODE.{json,err,
 * rc,host} (NODE: local, or server and client), sweep/ (a gdr-sweep of
 * write_bw H-H, D-D GDR on and off, with its manifest.json) and sweep.rc.
 * Any of them may be missing (the lab died, the doctor crashed): the report
 * says so. gdr_troubleshoot writes DIR/report.md (the four steps) and
 * DIR/verdict.txt (one paragraph), and prints the verdict on stdout. */
#ifndef GDR_TOOLS_TROUBLESHOOT_H
#define GDR_TOOLS_TROUBLESHOOT_H

#include <stdbool.h>

struct gdr_ts_opts {
    const char *dir;
    bool local;                  /* the soft-RoCE lab: one node, simulated GPU */
    const char *server, *client; /* host names for the report (two nodes) */
    const char *sizes;           /* the sweep's --sizes, for the report */
};

/* The verdict's exit code: 0 GDR is in effect (D-D registered dmabuf or
 * peermem on both ends), 1 it is not, 3 it is not and a doctor said the
 * environment is missing (real nodes only). -1 after gdr_fail when DIR
 * cannot be read or written, or the sweep's manifest is not one. */
int gdr_troubleshoot(const struct gdr_ts_opts *o);

#endif
