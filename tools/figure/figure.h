/* figure.h - every figure of gdrbench, decided here and drawn by gnuplot.
 *
 * What a figure looks like is decided once, here: the palette (Okabe-Ito,
 * colour-blind safe; a placement pair keeps its colour in every figure),
 * the one colour scale of ratios (PuOr, low = bad), the rule that blocks a
 * heatmap of many nodes, the display units of bandwidth and latency, and
 * honest y axes (from zero, whole decades, or at least +-frac around a
 * reference). A figure is a spec (struct gdr_fig_chart, gdr_fig_heat); the
 * module writes it as gnuplot commands into a script, and gdr_fig_draw
 * runs one gnuplot process over every script of a page or a publish.
 * Terminals: PNG (pngcairo, libgd's png where cairo is missing) and SVG
 * without `mouse` or `standalone`, so it can be inlined under a strict CSP.
 * Data reach gnuplot as files beside the script or as datablocks ($NAME,
 * gdr_fig_block); values are in display units, which the caller chose
 * with gdr_unit_bw / gdr_unit_lat. Pure text out; only gdr_fig_draw runs
 * anything (tests/unit/test_figure.c checks the scripts). */
#ifndef GDR_TOOLS_FIGURE_H
#define GDR_TOOLS_FIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "buf.h"
#include "error.h"

/* ---- palette: Okabe-Ito, black first ---- */
#define GDR_C_BLACK "#000000"
#define GDR_C_ORANGE "#E69F00"
#define GDR_C_SKY "#56B4E9"
#define GDR_C_GREEN "#009E73"
#define GDR_C_YELLOW "#F0E442"
#define GDR_C_BLUE "#0072B2"
#define GDR_C_VERMILLION "#D55E00"
#define GDR_C_PURPLE "#CC79A7"
#define GDR_C_GREY "#777777"
/* Behind the data: spans (a soak running), light. */
#define GDR_C_BACKDROP "#c8c8c8"
/* Heatmap cells that are no ratio: failed (crossed), a node that ran
 * nothing (unreachable), not planned. */
#define GDR_C_FAILED "#1a1a1a"
#define GDR_C_UNREACHABLE "#666666"
#define GDR_C_NOTRUN "#d9d9d9"
/* The lab's warnings (simulated GPU, soft-RoCE). */
#define GDR_C_WARN "#a00000"

/* A placement pair's colour ("host-cuda" ...; anything else black). */
const char *gdr_fig_pair_colour(const char *pair);

/* ---- the ratio colour scale (value / reference; latency inverted, so
 * low is bad either way): PuOr from GDR_RATIO_LO (orange) through 1
 * (white) to GDR_RATIO_HI (purple), clamped ---- */
#define GDR_RATIO_LO 0.5
#define GDR_RATIO_HI 1.5
/* set cbrange and set palette for it (the heatmaps). */
void gdr_fig_ratio_palette(FILE *gp);

/* ---- heatmap blocking: every node a cell up to GDR_HEAT_FULL_MAX
 * nodes; above, a cell is B x B nodes holding its worst ratio ---- */
#define GDR_HEAT_FULL_MAX 64
/* B, the nodes on a side of one cell (1 up to GDR_HEAT_FULL_MAX). */
size_t gdr_heat_block(size_t nodes);

/* ---- units: display value = SI value * scale ---- */
struct gdr_unit {
    const char *name; /* "GB/s", "MB/s", "ms", "µs" */
    double scale;
};
/* The only units a person reads (every tool, every output): GB/s from
 * 1 GB/s up, else MB/s (max: the largest value, bytes/s); ms from 1 ms up,
 * else µs (max: seconds). An output chooses each once, from the largest
 * value it shows, and writes all its values of that quantity in it. */
struct gdr_unit gdr_unit_bw(double max_bytes_per_s);
struct gdr_unit gdr_unit_lat(double max_s);
/* A time axis that starts at zero (a soak's seconds since it began): s up
 * to 15 minutes, min up to 10 hours, else h (max: the span, seconds). */
struct gdr_unit gdr_unit_span(double max_s);
/* Human numbers: three significant digits, no exponent for 0.001..999999;
 * "-" for NaN. */
void gdr_fmt_num(double v, char *buf, size_t len);
/* "12.3 GB/s": v (SI) in u by gdr_fmt_num; "-" when not finite. */
void gdr_fmt_unit(struct gdr_unit u, double v, char *buf, size_t len);
/* A message size as a person reads it, in every output (axes, titles,
 * tables, headings): 65536 -> "64 KiB", 1536 -> "1536 B", the largest
 * binary unit (up to GiB) that divides it exactly. Identifiers (file
 * names, JUnit test names) keep the byte count. */
void gdr_fmt_size(uint64_t bytes, char *buf, size_t len);

/* ---- honest y axes ---- */
enum gdr_ykind {
    GDR_Y_ZERO,   /* linear, from zero */
    GDR_Y_LOG,    /* decades */
    GDR_Y_AROUND, /* linear, at least +-frac around ref (zero when the data reach it) */
};
/* The y range shown: GDR_Y_ZERO [0, max]; GDR_Y_AROUND at least
 * [ref (1 - frac), ref (1 + frac)] and everything in [lo, hi] (a NAN or
 * non-positive ref: the middle of the data), from zero when that range
 * reaches zero anyway; GDR_Y_LOG whole decades around [lo, hi]. */
void gdr_y_range(enum gdr_ykind kind, double lo, double hi, double ref, double frac, double *out_lo,
                 double *out_hi);

/* ---- gnuplot script text ---- */

/* s as a gnuplot double-quoted string. */
void gdr_fig_str(FILE *gp, const char *s);
/* A script's first lines: encoding, and png_term (pngcairo or png). */
void gdr_fig_preamble(FILE *gp);
/* The terminal and output of the next figure: NAME.png (png) or NAME.svg,
 * w x h pixels. */
void gdr_fig_output(FILE *gp, bool png, const char *name, unsigned w, unsigned h);
/* `$name << EOD` ... `EOD`: rows is the datablock's text (lines). */
void gdr_fig_block(FILE *gp, const char *name, const char *rows);

enum gdr_fig_style {
    GDR_FIG_LINESPOINTS,
    GDR_FIG_LINES,
    GDR_FIG_POINTS,     /* marker only */
    GDR_FIG_ERRORLINES, /* using x:y:lo:hi */
    GDR_FIG_BAND,       /* using x:lo:hi, filled */
    GDR_FIG_RING,       /* an open circle around the point (outliers) */
    GDR_FIG_CROSS,      /* a cross (not clean) */
    GDR_FIG_TIPS,       /* using x:y:tip, the marker (colour NULL: unseen, width
                         * its size) a tooltip (gdr_figset_tip) */
};

/* One curve: data ("$block" or a file name relative to the script), its
 * gnuplot index (-1: whole file) and using columns; using NULL: data is
 * an expression ("NaN": a key entry only). */
struct gdr_fig_line {
    const char *data;
    int index;
    const char *using;
    enum gdr_fig_style style;
    const char *title; /* NULL: not in the key */
    const char *colour;
    bool dashed;
    bool hollow;  /* open markers (GDR off) */
    double width; /* 0: 2 */
};

struct gdr_fig_vline {
    const char *at; /* the x coordinate as gnuplot reads it (a date in timefmt, a number) */
    const char *label, *colour;
    bool dashed;
};

enum gdr_xkind {
    GDR_X_LOG2_BYTES,
    GDR_X_TIME,   /* the data's UTC times (ISO 8601) */
    GDR_X_LINEAR, /* plain numbers (a soak's seconds since it began) */
};

/* One chart (a figure, or a panel of a multiplot). */
struct gdr_fig_chart {
    const char *title, *xlabel, *ylabel;
    enum gdr_xkind x;
    /* GDR_X_LOG2_BYTES: the sizes for the x tics (at most 8 labels; narrow:
     * a half-width panel, fewer). */
    size_t nsizes;
    const double *sizes;
    bool narrow;
    /* GDR_X_TIME: the data's time format; multi-day: dates, else hours. */
    bool x_hours;
    enum gdr_ykind y;
    double y_lo, y_hi; /* gdr_y_range's; both 0: gnuplot's autoscale */
    double hline;      /* a horizontal reference (speed-up 1, 100 %), NAN none */
    size_t nlines;
    const struct gdr_fig_line *lines;
    size_t nvlines;
    const struct gdr_fig_vline *vlines;
    bool no_key;
    /* nynames > 0: a row per name (y = 1, 2, ...: a timeline per link),
     * the names as the y tics, top to bottom */
    size_t nynames;
    const char *const *ynames;
    /* key_cols > 0: the key below the plot, in that many columns, above
     * ncaption caption lines (gdr_fig_caption). */
    unsigned key_cols;
    int ncaption;
};
void gdr_fig_chart(FILE *gp, const struct gdr_fig_chart *c);
/* A multiplot's last panel: only the key of lines, below, as wide as the
 * figure (key_cols and ncaption as a chart's). */
void gdr_fig_key_panel(FILE *gp, const struct gdr_fig_line *lines, size_t n, unsigned key_cols,
                       int ncaption);

/* Caption lines at the bottom of a figure (line 0 lowest); warn: dark red. */
void gdr_fig_caption(FILE *gp, int line, const char *text, bool warn);

/* The lab's two warnings, in every figure and page with such rows. */
#define GDR_WARN_SIMULATED                                                                         \
    "GPU rows ran on the CUDA driver test double (simulated): they check the code path, not "      \
    "performance."
#define GDR_WARN_SOFT_ROCE                                                                         \
    "Every end is a soft-RoCE (rxe) device, here under emulation: read ratios and shapes only, "   \
    "never absolute numbers."
/* Those that hold as caption lines from line up (dark red); the next line. */
int gdr_fig_lab_warnings(FILE *gp, int line, bool simulated, bool soft_roce);

/* A heatmap over nodes (or blocks of nodes): cells "column row ratio"
 * (ratio_col may be an expression such as "($4/M)"), failed and
 * unreachable cells "column row" (NULL or "": none). */
struct gdr_fig_heat {
    const char *title, *xlabel, *ylabel;
    size_t side; /* cells on a side */
    size_t nnames;
    const char *const *names; /* tic labels, NULL: none */
    const char *cells, *ratio_col;
    const char *failed, *unreachable;
    const char *low;  /* cells "column row" the detector called low: boxed; NULL none */
    const char *tips; /* cells "column row tip" (gdr_figset_tip); NULL none */
    bool values;      /* the ratio written in each cell */
    bool key;         /* the key: failed, unreachable, not run */
    bool dots;        /* cells as points (the worst nodes' rows over all partners) */
    size_t rows;      /* dots: rows (side: the columns) */
};
void gdr_fig_heatmap(FILE *gp, const struct gdr_fig_heat *h);

/* A histogram of column col of data (display units), 20 bins. */
void gdr_fig_histogram(FILE *gp, const char *data, const char *col, const char *title,
                       const char *xlabel);

/* Draw: one gnuplot process in dir over the scripts (names relative to
 * dir), its messages appended to log (a path; NULL: dir/gnuplot.log).
 * Returns 0, or -1 after gdr_fail (exit 3: no gnuplot). */
int gdr_fig_draw(const char *dir, const char *const *scripts, size_t n, const char *log);
/* The same in two steps: gnuplot started (its stdin in, -1: this
 * process's), then waited for. 0, or -1 after gdr_fail. */
int gdr_fig_spawn(const char *dir, const char *const *scripts, size_t n, const char *log, int in,
                  pid_t *pid);
int gdr_fig_wait(pid_t pid, const char *dir, const char *log);
/* gnuplot on PATH. */
bool gdr_fig_have_gnuplot(void);

/* A run's script and its list of figures, dir/SCRIPT and dir/LIST, each
 * written in place (common/util/atomic_file.h): f[0] the script (its
 * preamble written), f[1] the list. 0, or -1 after gdr_fail. */
struct gdr_atomic_file;
int gdr_fig_files_open(const char *dir, const char *script, const char *list,
                       struct gdr_atomic_file *f);
/* Commit both (ok) or abort both. 0, or -1 after gdr_fail. */
int gdr_fig_files_close(struct gdr_atomic_file *f, bool ok);

/* ---- a page's figures (figset.c): gdr-report's pages and gdr-history
 * publish's dashboard inline gnuplot's SVG, every figure of a page (or a
 * publish) drawn by one gnuplot process ---- */
struct gdr_figset {
    char dir[4096]; /* a temporary directory: the script, data, the SVGs */
    FILE *gp;       /* the script: every figure, one after the other */
    pid_t pid;      /* gnuplot reading the script as it comes (0: not yet) */
    size_t n;       /* figures placed */
    char **name, **label;
    FILE *tips; /* text NUL href NUL, per tip */
    char *tip_text;
    size_t tip_len, tip_end, ntips, tip_cap, *tip_at;
};
/* A temporary directory and its script. 0, or -1 after gdr_fail. */
int gdr_figset_open(struct gdr_figset *s);
/* From now on gnuplot draws as the script is written (a second CPU
 * busy while the caller computes the next figure): only for figures
 * whose data are datablocks in the script (gdr_fig_block), never files
 * beside it. 0, or -1 after gdr_fail. */
int gdr_figset_stream(struct gdr_figset *s);
/* The next figure: its SVG output (w x h) set in the script, which is
 * returned to write the figure's spec into, and its mark in page where
 * the SVG goes; label: the SVG's accessible name (its <title>). */
FILE *gdr_figset_add(struct gdr_figset *s, struct gdr_buf *page, const char *label, unsigned w,
                     unsigned h);
/* The mark of a figure the script draws itself into dir/NAME.svg. */
void gdr_figset_place(struct gdr_figset *s, struct gdr_buf *page, const char *name,
                      const char *label);
/* A tooltip (and the link, href NULL or "": none) of a point: plot its
 * number as the point's hypertext (GDR_FIG_TIPS); it becomes a <title>. */
size_t gdr_figset_tip(struct gdr_figset *s, const char *text, const char *href);
/* One gnuplot process over the script. 0, or -1 after gdr_fail. */
int gdr_figset_draw(struct gdr_figset *s);
/* page[0..len) with each mark replaced by its figure's SVG, made fit to
 * inline (gdr_fig_svg_inline), written atomically to path. */
int gdr_figset_write(struct gdr_figset *s, const char *page, size_t len, const char *path,
                     enum gdr_exit code);
/* Remove the directory, free everything. */
void gdr_figset_close(struct gdr_figset *s);
/* The one filter of gnuplot's SVG into a page: no XML prolog, role="img"
 * and the label as its <title>, ids prefixed with the figure's number,
 * hypertext turned into <title> children (<a> when the tip links), and no
 * <script> or on* attribute. */
void gdr_fig_svg_inline(FILE *out, const struct gdr_figset *s, size_t fig, const char *svg,
                        size_t len);

#endif
