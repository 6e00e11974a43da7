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

#include "figure.h"

#define HIST_TREND_MAX_SIZES 8

/* The lines of a trend panel over data, index (columns: date value
 * baseline band_low band_high outlier not_clean [tip]): the band, the
 * baseline, the measured nights (tips: their markers carry column 8's
 * tooltips, gdr_figset_tip; the dashboard's), outliers ringed, not-clean
 * nights crossed. gdr-history trend and publish draw the same panel. */
void hist_trend_lines(struct gdr_fig_line l[5], const char *data, int index, const char *measured,
                      bool tips);

/* sizes: the sizes to draw (nsizes 0: the smallest, a middle one and the
 * largest of each figure). Returns 0, or -1 after gdr_fail (3: no gnuplot). */
int hist_trend(const struct hdb_testbed *t, const struct hist_opts *o, const char *outdir,
               const uint64_t *sizes, size_t nsizes);

#endif
