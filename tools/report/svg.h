/* svg.h - the figures of gdr-report and the dashboard, as inline SVG.
 *
 * A chart is lines of points over a log2 size axis (the sweep curves) or a
 * time axis (the trends), with optional error bars, a band, vertical and
 * horizontal reference lines. Values arrive in display units; the caller
 * chose them. Axes are honest: a linear axis starts at zero, or spans at
 * least +-frac around a reference (a baseline), and the caption says which
 * (gdr_chart_axis_note). Colours are Okabe-Ito, and a series differs from
 * the next by its marker and dash too, so colour is never the only cue.
 * Legends are HTML beside the SVG (they wrap; SVG text does not). */
#ifndef GDR_REPORT_SVG_H
#define GDR_REPORT_SVG_H

#include "figure.h"
#include "html.h"

#include <stdbool.h>
#include <stddef.h>

enum gdr_marker { GDR_MK_CIRCLE, GDR_MK_SQUARE, GDR_MK_TRIANGLE, GDR_MK_DIAMOND, GDR_MK_NONE };

#define GDR_PT_UNCLEAN 1u /* the NIC counted errors or retransmissions: crossed */
#define GDR_PT_OUTLIER 2u /* an outlier night: ringed */

struct gdr_pt {
    double x, y;
    double lo, hi;    /* error bar in y, NAN for none */
    unsigned flags;   /* GDR_PT_* */
    const char *href; /* the point links here, or NULL */
    const char *tip;  /* tooltip text (escaped on output), or NULL */
};

struct gdr_line {
    const char *label, *color;
    enum gdr_marker marker;
    bool dashed, dotted, hollow;
    size_t n;
    const struct gdr_pt *pts;
};

struct gdr_band {
    size_t n;
    const double *x, *lo, *hi; /* NAN breaks the band */
    const char *label;
};

struct gdr_vline {
    double x;
    const char *label, *color;
    bool dashed;
};

struct gdr_chart {
    const char *label; /* the SVG's accessible name (escaped) */
    const char *xlabel, *ylabel;
    enum gdr_xkind x;
    enum gdr_ykind y;
    double y_ref, y_frac; /* GDR_Y_AROUND */
    double hline;         /* a horizontal reference (speed-up 1), NAN none */
    size_t nlines;
    const struct gdr_line *lines;
    const struct gdr_band *band; /* drawn first, or NULL */
    size_t nvlines;
    const struct gdr_vline *vlines;
    size_t nfail; /* failed nights: a cross on the x axis */
    const double *fail_x;
    unsigned width, height; /* viewBox; 0: 720 x 380 */
};

void gdr_chart_svg(struct gdr_buf *b, const struct gdr_chart *c);
/* The chart in a scrolling <div class="fig">, its legend, and a
 * <figcaption> of caption (escaped; may be NULL) and the axis note. The
 * caller opens and closes the <figure>. */
void gdr_chart_figure(struct gdr_buf *b, const struct gdr_chart *c, const char *caption);
/* The HTML legend of a chart's lines (label escaped), plus extra items. */
void gdr_chart_legend(struct gdr_buf *b, const struct gdr_chart *c);
/* One sentence on the y axis ("y from zero", "y: at least +-10 % around the
 * baseline", "y: log scale"), for the caption. */
void gdr_chart_axis_note(const struct gdr_chart *c, char *buf, size_t len);

/* ---- axis arithmetic (pure; tests/report/test_report_svg.c) ---- */

/* Up to max round ticks (1, 2, 2.5 or 5 times a power of ten) in [lo, hi];
 * returns the count. */
size_t gdr_ticks_linear(double lo, double hi, size_t max, double *out);

/* ---- heatmap ---- */

enum gdr_heat_state { GDR_HEAT_NONE, GDR_HEAT_OK, GDR_HEAT_FAILED, GDR_HEAT_SELF };

struct gdr_heat {
    const char *label; /* accessible name */
    size_t n;
    const char *const *names;         /* n node names */
    const enum gdr_heat_state *state; /* n * n, [row * n + col] */
    const double *ratio;              /* value / reference (low = bad) */
    const char *const *text;          /* the cell's value as shown, or NULL */
    const bool *low;                  /* the detector called it low */
    const char *row_label, *col_label;
};

/* Diverging orange (low) - white (1) - purple (high), ratios clamped to
 * 0.5 .. 1.5; failed cells black with a cross, not-run cells hatched grey.
 * A legend bar is drawn below. */
void gdr_heatmap_svg(struct gdr_buf *b, const struct gdr_heat *h);
#endif
