/* history_metrics.h - the history for a monitoring site: each series'
 * latest value, its baseline and its verdict, and the verdict counts, as
 * labelled gauges in the Prometheus text format that node_exporter's
 * textfile collector reads (OpenMetrics readers accept it too: it ends with
 * "# EOF", a comment to the Prometheus parser). Values are in SI base
 * units: bytes per second, seconds. Each family's samples are written
 * together, over every testbed. */
#ifndef GDR_TOOLS_HISTORY_METRICS_H
#define GDR_TOOLS_HISTORY_METRICS_H

#include "history_db.h"
#include "history_stats.h"

#include <stdio.h>

/* Judge the newest run of each testbed and write the families. 0 or -1. */
int hist_metrics_write(FILE *f, const struct hdb_testbed *tbs, size_t n, const struct hist_opts *o);

/* A label value escaped for the text format (backslash, double quote,
 * line feed), cut at len - 1 bytes. */
void hist_metrics_label(const char *s, char *out, size_t len);

#endif
