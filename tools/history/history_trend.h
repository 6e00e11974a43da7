/* history_trend.h - trend figures of one testbed through gnuplot.
 *
 * One figure per test, placement and registration of both ends (and
 * direction): a panel per chosen size with the metric against the night,
 * the rolling baseline (median) and its no-alarm band (the wider of
 * z_min * sigma and rel_min * baseline), outlier nights ringed, steps
 * (vermillion) and annotations (grey) as vertical lines. PNG and SVG like
 * gdr-plot, with the gnuplot data (trend-*.dat), the script (trend.gp) and
 * trend-figures.tsv (name, test, placement, registration, data file). */
#ifndef GDR_TOOLS_HISTORY_TREND_H
#define GDR_TOOLS_HISTORY_TREND_H

#include "history_db.h"
#include "history_check.h"
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

/* One trend panel as the trend figures and the dashboard both draw it:
 * its rows written to the caller's stream (the columns above, in unit u;
 * tip: the tooltip number of point i as column 8, NULL: none), the y
 * range, the step and annotation lines (note_labels: the annotations
 * carry their text), the x format and what the caption must warn of. */
struct hist_panel {
    double y_lo, y_hi;
    bool hours; /* the nights span less than three days: the time of day */
    bool unclean, simulated, soft_roce;
    size_t first_run, last_run; /* the runs drawn, [first, last) */
    size_t nvlines;
    struct gdr_fig_vline *vlines;
    char (*steplab)[32];
};
typedef size_t (*hist_tip_fn)(void *ctx, size_t point);
int hist_panel_build(struct hist_panel *p, FILE *rows, const struct hdb_testbed *t,
                     const struct hist_view *v, const struct hist_opts *o, struct gdr_unit u,
                     bool note_labels, hist_tip_fn tip, void *ctx);
void hist_panel_free(struct hist_panel *p);
/* What the band, the lines and the marks mean, in two sentences. */
void hist_trend_caption(const struct hist_opts *o, char *band, char *marks, size_t len);

/* sizes: the sizes to draw (nsizes 0: the smallest, a middle one and the
 * largest of each figure). Returns 0, or -1 after gdr_fail (3: no gnuplot). */
int hist_trend(const struct hdb_testbed *t, const struct hist_opts *o, const char *outdir,
               const uint64_t *sizes, size_t nsizes);

#endif
