/* history_trend.h - trend figures of one testbed through gnuplot.
 *
 * One figure per test, placement and registration of both ends (and
 * direction): a panel per chosen size with the metric against the night,
 * the rolling baseline (median) and its no-alarm band (the wider of
 * z_min * sigma and rel_min * baseline), outlier nights circled, steps
 * (red) and annotations (grey) as vertical lines. PNG and SVG like
 * gdr-plot, with the gnuplot data (trend-*.dat), the script (trend.gp) and
 * trend-figures.tsv (name, test, placement, registration, data file). */
#ifndef GDR_TOOLS_HISTORY_TREND_H
#define GDR_TOOLS_HISTORY_TREND_H

#include "history_db.h"
#include "history_stats.h"

#define HIST_TREND_MAX_SIZES 8

/* sizes: the sizes to draw (nsizes 0: the smallest, a middle one and the
 * largest of each figure). Returns 0, or -1 after gdr_fail (3: no gnuplot). */
int hist_trend(const struct hdb_testbed *t, const struct hist_opts *o, const char *outdir,
               const uint64_t *sizes, size_t nsizes);

#endif
