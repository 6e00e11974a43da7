/* svg.c - charts and heatmaps as inline SVG (svg.h). */
#include "config.h"

#include "svg.h"
#include "text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ML 74.0 /* plot area margins in viewBox units */
#define MR 18.0
#define MT 14.0
#define MB 56.0
#define FONT 14

size_t gdr_ticks_linear(double lo, double hi, size_t max, double *out)
{
    if (!(hi > lo) || max < 2)
        return 0;
    double raw = (hi - lo) / (double)(max - 1), mag = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    double step = mag * 10;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * mag >= raw) {
            step = steps[i] * mag;
            break;
        }
    size_t n = 0;
    for (double t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && n < max + 1; t += step)
        out[n++] = fabs(t) < step * 1e-9 ? 0 : t;
    return n;
}

void gdr_chart_axis_note(const struct gdr_chart *c, char *buf, size_t len)
{
    if (c->y == GDR_Y_LOG)
        snprintf(buf, len, "y: log scale.");
    else if (c->y == GDR_Y_ZERO)
        snprintf(buf, len, "y from zero.");
    else
        snprintf(buf, len,
                 "y: at least \xc2\xb1%.0f %% around the baseline (from zero when the "
                 "data reach down there), so a small change looks small.",
                 c->y_frac * 100);
}

/* ---- mapping ---- */

struct frame {
    double x0, x1, y0, y1; /* data ranges (x in axis units: log2 or seconds) */
    double w, h;           /* viewBox */
    bool ylog;
};

static double ax(const struct gdr_chart *c, double x)
{
    return c->x == GDR_X_LOG2_BYTES ? (x > 0 ? log2(x) : NAN) : x;
}

static double px(const struct frame *f, double xa)
{
    double span = f->x1 - f->x0;
    return ML + (span > 0 ? (xa - f->x0) / span : 0.5) * (f->w - ML - MR);
}

static double py(const struct frame *f, double y)
{
    double a = f->y0, b = f->y1;
    if (f->ylog) {
        y = y > 0 ? log10(y) : log10(f->y0) - 1;
        a = log10(a);
        b = log10(b);
    }
    double r = (y - a) / (b - a);
    if (r < -0.02)
        r = -0.02;
    if (r > 1.02)
        r = 1.02;
    return f->h - MB - r * (f->h - MT - MB);
}

static void frame_of(const struct gdr_chart *c, struct frame *f)
{
    f->w = c->width ? c->width : 720;
    f->h = c->height ? c->height : 380;
    f->ylog = c->y == GDR_Y_LOG;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < c->lines[l].n; i++) {
            const struct gdr_pt *p = &c->lines[l].pts[i];
            double xa = ax(c, p->x);
            if (isfinite(xa)) {
                xlo = fmin(xlo, xa);
                xhi = fmax(xhi, xa);
            }
            if (isfinite(p->y) && (!f->ylog || p->y > 0)) {
                ylo = fmin(ylo, p->y);
                yhi = fmax(yhi, p->y);
            }
            if (isfinite(p->hi))
                yhi = fmax(yhi, p->hi);
            if (isfinite(p->lo) && (!f->ylog || p->lo > 0))
                ylo = fmin(ylo, p->lo);
        }
    if (c->band)
        for (size_t i = 0; i < c->band->n; i++) {
            if (isfinite(c->band->lo[i]))
                ylo = fmin(ylo, c->band->lo[i]);
            if (isfinite(c->band->hi[i]))
                yhi = fmax(yhi, c->band->hi[i]);
        }
    if (isfinite(c->hline)) {
        ylo = fmin(ylo, c->hline);
        yhi = fmax(yhi, c->hline);
    }
    for (size_t i = 0; i < c->nvlines; i++)
        if (isfinite(c->vlines[i].x)) {
            xlo = fmin(xlo, c->vlines[i].x);
            xhi = fmax(xhi, c->vlines[i].x);
        }
    if (!isfinite(xlo)) {
        xlo = 0;
        xhi = 1;
    }
    if (xhi == xlo) {
        xlo -= c->x == GDR_X_TIME ? 43200 : 1;
        xhi += c->x == GDR_X_TIME ? 43200 : 1;
    }
    double pad = (xhi - xlo) * 0.03;
    f->x0 = xlo - pad;
    f->x1 = xhi + pad;
    gdr_y_range(c->y, ylo, yhi, c->y_ref, c->y_frac, &f->y0, &f->y1);
}

/* ---- pieces ---- */

static void tick_label(double v, char *buf, size_t len)
{
    if (v == 0)
        snprintf(buf, len, "0");
    else if (fabs(v) >= 1e6 || fabs(v) < 1e-3)
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.10g", round(v * 1e6) / 1e6);
}

static void y_axis(struct gdr_buf *b, const struct frame *f)
{
    double t[64];
    size_t n = 0;
    if (f->ylog) {
        int d0 = (int)floor(log10(f->y0) + 1e-9), d1 = (int)ceil(log10(f->y1) - 1e-9);
        bool fine = d1 - d0 <= 2;
        for (int d = d0; d <= d1 && n < 60; d++) {
            t[n++] = pow(10, d);
            if (fine && d < d1) {
                t[n++] = 2 * pow(10, d);
                t[n++] = 5 * pow(10, d);
            }
        }
    } else {
        n = gdr_ticks_linear(f->y0, f->y1, 7, t);
    }
    for (size_t i = 0; i < n; i++) {
        double y = py(f, t[i]);
        char lab[32];
        tick_label(t[i], lab, sizeof(lab));
        gdr_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                       ML, y, f->w - MR, y, ML - 6, y + FONT * 0.35, lab);
    }
}

static void time_label(double t, double step, char *buf, size_t len, char *buf2, size_t len2)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    buf2[0] = '\0';
    if (step >= 300 * 86400) {
        strftime(buf, len, "%Y", &tm);
    } else if (step >= 28 * 86400) {
        strftime(buf, len, "%Y-%m", &tm);
    } else if (step >= 86400) {
        strftime(buf, len, "%m-%d", &tm);
        strftime(buf2, len2, "%Y", &tm);
    } else {
        strftime(buf, len, "%H:%M", &tm);
        strftime(buf2, len2, "%m-%d", &tm);
    }
}

static void x_axis_time(struct gdr_buf *b, const struct frame *f)
{
    static const double steps[] = {60,          300,        900,        3600,       3 * 3600,
                                   6 * 3600,    43200,      86400,      2 * 86400,  7 * 86400,
                                   14 * 86400,  30 * 86400, 61 * 86400, 91 * 86400, 182 * 86400,
                                   365 * 86400, 730 * 86400};
    double span = f->x1 - f->x0, step = steps[sizeof(steps) / sizeof(steps[0]) - 1];
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (span / steps[i] <= 7) {
            step = steps[i];
            break;
        }
    for (double t = ceil(f->x0 / step) * step; t <= f->x1; t += step) {
        double x = px(f, t);
        char a[32], c[32];
        time_label(t, step, a, sizeof(a), c, sizeof(c));
        gdr_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s",
                       x, MT, x, f->h - MB, x, f->h - MB + FONT + 4, a);
        if (c[0])
            gdr_buf_printf(b, "<tspan x=\"%.1f\" dy=\"%d\">%s</tspan>", x, FONT + 1, c);
        gdr_buf_puts(b, "</text>\n");
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void x_axis_sizes(struct gdr_buf *b, const struct gdr_chart *c, const struct frame *f)
{
    size_t n = 0, cap = 0;
    for (size_t l = 0; l < c->nlines; l++)
        cap += c->lines[l].n;
    double *xs = calloc(cap + 1, sizeof(*xs));
    if (!xs)
        return;
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < c->lines[l].n; i++)
            if (c->lines[l].pts[i].x > 0)
                xs[n++] = c->lines[l].pts[i].x;
    qsort(xs, n, sizeof(*xs), cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || xs[i] != xs[u - 1])
            xs[u++] = xs[i];
    /* At most 8 labels, evenly thinned; a grid line at every measured size. */
    size_t every = u > 8 ? (u + 7) / 8 : 1;
    for (size_t i = 0; i < u; i++) {
        double x = px(f, log2(xs[i]));
        gdr_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ececec\"/>",
                       x, MT, x, f->h - MB);
        if (i % every == 0) {
            char lab[32];
            gdr_fmt_size((uint64_t)xs[i], lab, sizeof(lab));
            gdr_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x,
                           f->h - MB + FONT + 4, lab);
        }
        gdr_buf_puts(b, "\n");
    }
    free(xs);
}

static void marker(struct gdr_buf *b, enum gdr_marker m, double x, double y, double r,
                   const char *color, bool hollow)
{
    const char *fill = hollow ? "#ffffff" : color;
    switch (m) {
    case GDR_MK_NONE: break;
    case GDR_MK_CIRCLE:
        gdr_buf_printf(b,
                       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
                       "stroke-width=\"1.5\"/>",
                       x, y, r, fill, color);
        break;
    case GDR_MK_SQUARE:
        gdr_buf_printf(b,
                       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                       "stroke=\"%s\" stroke-width=\"1.5\"/>",
                       x - r, y - r, 2 * r, 2 * r, fill, color);
        break;
    case GDR_MK_TRIANGLE:
        gdr_buf_printf(b,
                       "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\" "
                       "stroke-width=\"1.5\"/>",
                       x, y - r * 1.2, x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8, fill,
                       color);
        break;
    case GDR_MK_DIAMOND:
        gdr_buf_printf(b,
                       "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" "
                       "stroke=\"%s\" stroke-width=\"1.5\"/>",
                       x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y, fill, color);
        break;
    }
}

static const char *dash(const struct gdr_line *l)
{
    return l->dotted ? " stroke-dasharray=\"2 4\"" : l->dashed ? " stroke-dasharray=\"7 4\"" : "";
}

static void draw_line(struct gdr_buf *b, const struct gdr_chart *c, const struct frame *f,
                      const struct gdr_line *l)
{
    bool open = false;
    for (size_t i = 0; i < l->n; i++) {
        const struct gdr_pt *p = &l->pts[i];
        double xa = ax(c, p->x);
        bool ok = isfinite(xa) && isfinite(p->y) && (!f->ylog || p->y > 0);
        if (!ok) {
            if (open)
                gdr_buf_puts(b, "\"/>\n");
            open = false;
            continue;
        }
        if (!open)
            gdr_buf_printf(b,
                           "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
                           l->color, l->dotted ? "1.6" : "2", dash(l));
        gdr_buf_printf(b, "%s%.1f,%.1f", open ? " " : "", px(f, xa), py(f, p->y));
        open = true;
    }
    if (open)
        gdr_buf_puts(b, "\"/>\n");
    if (l->marker == GDR_MK_NONE)
        return;
    double r = l->n > 200 ? 2.2 : 4;
    /* Many points: one marker defined once and <use>d, a fifth of the bytes. */
    static unsigned seq;
    unsigned id = 0;
    if (l->n > 60) {
        id = ++seq;
        gdr_buf_printf(b, "<defs><g id=\"mk%u\">", id);
        marker(b, l->marker, 0, 0, r, l->color, l->hollow);
        gdr_buf_puts(b, "</g></defs>");
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct gdr_pt *p = &l->pts[i];
        double xa = ax(c, p->x);
        if (!isfinite(xa) || !isfinite(p->y) || (f->ylog && p->y <= 0))
            continue;
        double x = px(f, xa), y = py(f, p->y);
        if (isfinite(p->lo) && isfinite(p->hi))
            gdr_buf_printf(b,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
                           x, py(f, p->lo), x, py(f, p->hi), l->color);
        gdr_buf_puts(b, p->href ? "<a href=\"" : "<g>");
        if (p->href) {
            gdr_buf_esc(b, p->href);
            gdr_buf_puts(b, "\">");
        }
        if (p->tip) {
            gdr_buf_puts(b, "<title>");
            gdr_buf_esc(b, p->tip);
            gdr_buf_puts(b, "</title>");
        }
        if (id)
            gdr_buf_printf(b, "<use href=\"#mk%u\" x=\"%.1f\" y=\"%.1f\"/>", id, x, y);
        else
            marker(b, l->marker, x, y, r, l->color, l->hollow);
        if (p->flags & GDR_PT_OUTLIER)
            gdr_buf_printf(b,
                           "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" "
                           "stroke=\"" GDR_C_VERMILLION "\" stroke-width=\"2\"/>",
                           x, y, r + 4);
        if (p->flags & GDR_PT_UNCLEAN)
            gdr_buf_printf(b,
                           "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"#000\" "
                           "stroke-width=\"2\"/>",
                           x - r - 3, y - r - 3, x + r + 3, y + r + 3, x - r - 3, y + r + 3,
                           x + r + 3, y - r - 3);
        gdr_buf_puts(b, p->href ? "</a>\n" : "</g>\n");
    }
    gdr_buf_puts(b, "\n");
}

static void draw_band(struct gdr_buf *b, const struct gdr_chart *c, const struct frame *f)
{
    const struct gdr_band *bd = c->band;
    for (size_t a = 0; a < bd->n;) {
        while (a < bd->n && !(isfinite(bd->lo[a]) && isfinite(bd->hi[a])))
            a++;
        size_t e = a;
        while (e < bd->n && isfinite(bd->lo[e]) && isfinite(bd->hi[e]))
            e++;
        if (e > a) {
            gdr_buf_puts(b,
                         "<path fill=\"" GDR_C_SKY "\" fill-opacity=\"0.28\" stroke=\"none\" d=\"");
            for (size_t i = a; i < e; i++)
                gdr_buf_printf(b, "%s%.1f %.1f", i == a ? "M" : "L", px(f, ax(c, bd->x[i])),
                               py(f, bd->hi[i]));
            for (size_t i = e; i-- > a;)
                gdr_buf_printf(b, "L%.1f %.1f", px(f, ax(c, bd->x[i])), py(f, bd->lo[i]));
            gdr_buf_puts(b, "Z\"/>\n");
        }
        a = e;
    }
}

void gdr_chart_svg(struct gdr_buf *b, const struct gdr_chart *c)
{
    struct frame f;
    frame_of(c, &f);
    gdr_buf_printf(
        b,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
        "font-family=\"system-ui, 'DejaVu Sans', sans-serif\" font-size=\"%d\" "
        "fill=\"#1a1a1a\"><title>",
        f.w, f.h, FONT);
    gdr_buf_esc(b, c->label);
    gdr_buf_puts(b, "</title>\n");
    y_axis(b, &f);
    if (c->x == GDR_X_TIME)
        x_axis_time(b, &f);
    else
        x_axis_sizes(b, c, &f);
    if (c->band)
        draw_band(b, c, &f);
    if (isfinite(c->hline)) {
        double y = py(&f, c->hline);
        gdr_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" "
                       "stroke-dasharray=\"2 3\"/>\n",
                       ML, y, f.w - MR, y);
    }
    /* Vertical lines: labels stagger over three rows so neighbours do not overlap. */
    for (size_t i = 0; i < c->nvlines; i++) {
        const struct gdr_vline *v = &c->vlines[i];
        double x = px(&f, v->x);
        gdr_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"2\"%s/>",
                       x, MT, x, f.h - MB, v->color, v->dashed ? " stroke-dasharray=\"5 4\"" : "");
        if (v->label && v->label[0]) {
            bool right = x > f.w * 0.7;
            gdr_buf_printf(b,
                           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"%s\" "
                           "fill=\"%s\">",
                           right ? x - 4 : x + 4, MT + 12 + 14.0 * (double)(i % 3),
                           right ? "end" : "start", v->color);
            gdr_buf_esc_max(b, v->label, 36);
            gdr_buf_puts(b, "</text>");
        }
        gdr_buf_puts(b, "\n");
    }
    for (size_t l = 0; l < c->nlines; l++)
        draw_line(b, c, &f, &c->lines[l]);
    for (size_t i = 0; i < c->nfail; i++) {
        double x = px(&f, c->fail_x[i]), y = f.h - MB;
        gdr_buf_printf(b,
                       "<g><title>failed run</title><path d=\"M%.1f %.1fL%.1f %.1fM%.1f "
                       "%.1fL%.1f %.1f\" stroke=\"" GDR_C_PURPLE "\" stroke-width=\"2.5\"/></g>",
                       x - 5, y - 5, x + 5, y + 5, x - 5, y + 5, x + 5, y - 5);
    }
    /* Frame and axis titles last, over everything. */
    gdr_buf_printf(b,
                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                   "stroke=\"#888\"/>\n",
                   ML, MT, f.w - ML - MR, f.h - MT - MB);
    gdr_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (ML + f.w - MR) / 2,
                   f.h - 8);
    gdr_buf_esc(b, c->xlabel);
    gdr_buf_printf(b,
                   "</text>\n<text transform=\"translate(16 %.1f) rotate(-90)\" "
                   "text-anchor=\"middle\">",
                   (MT + f.h - MB) / 2);
    gdr_buf_esc(b, c->ylabel);
    gdr_buf_puts(b, "</text>\n</svg>\n");
}

static void legend_item(struct gdr_buf *b, const struct gdr_line *l)
{
    gdr_buf_printf(b,
                   "<li><svg viewBox=\"0 0 34 14\" aria-hidden=\"true\"><line x1=\"1\" y1=\"7\" "
                   "x2=\"33\" y2=\"7\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                   l->color, dash(l));
    marker(b, l->marker, 17, 7, 4, l->color, l->hollow);
    gdr_buf_puts(b, "</svg>");
    gdr_buf_esc(b, l->label);
    gdr_buf_puts(b, "</li>");
}

void gdr_chart_legend(struct gdr_buf *b, const struct gdr_chart *c)
{
    gdr_buf_puts(b, "<ul class=\"legend\">");
    for (size_t l = 0; l < c->nlines; l++)
        if (c->lines[l].label)
            legend_item(b, &c->lines[l]);
    if (c->band && c->band->label)
        gdr_buf_escf(b,
                     "<li><svg viewBox=\"0 0 34 14\" aria-hidden=\"true\"><rect x=\"1\" y=\"2\" "
                     "width=\"32\" height=\"10\" fill=\"" GDR_C_SKY "\" fill-opacity=\"0.28\"/>"
                     "</svg>%s</li>",
                     c->band->label);
    bool unclean = false, outlier = false;
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < c->lines[l].n; i++) {
            unclean |= (c->lines[l].pts[i].flags & GDR_PT_UNCLEAN) != 0;
            outlier |= (c->lines[l].pts[i].flags & GDR_PT_OUTLIER) != 0;
        }
    if (unclean)
        gdr_buf_puts(b, "<li><svg viewBox=\"0 0 34 14\" aria-hidden=\"true\"><path d=\"M11 1L23 "
                        "13M11 13L23 1\" stroke=\"#000\" stroke-width=\"2\"/></svg>not clean (the "
                        "NIC counted errors or retransmissions)</li>");
    if (outlier)
        gdr_buf_puts(b, "<li><svg viewBox=\"0 0 34 14\" aria-hidden=\"true\"><circle cx=\"17\" "
                        "cy=\"7\" r=\"6\" fill=\"none\" stroke=\"" GDR_C_VERMILLION
                        "\" stroke-width=\"2\"/></svg>outlier night</li>");
    if (c->nfail)
        gdr_buf_puts(b, "<li><svg viewBox=\"0 0 34 14\" aria-hidden=\"true\"><path d=\"M12 2L22 "
                        "12M12 12L22 2\" stroke=\"" GDR_C_PURPLE
                        "\" stroke-width=\"2.5\"/></svg>a failed run that night</li>");
    gdr_buf_puts(b, "</ul>\n");
}

void gdr_chart_figure(struct gdr_buf *b, const struct gdr_chart *c, const char *caption)
{
    char note[256];
    gdr_chart_axis_note(c, note, sizeof(note));
    gdr_buf_puts(b, "<div class=\"fig\">");
    gdr_chart_svg(b, c);
    gdr_buf_puts(b, "</div>");
    gdr_chart_legend(b, c);
    gdr_buf_escf(b, "<figcaption>%s%s%s</figcaption>\n", caption ? caption : "", caption ? " " : "",
                 note);
}

/* ---- heatmap ---- */

static bool dark(const char *hex)
{
    unsigned r, g, bl;
    if (sscanf(hex, "#%02x%02x%02x", &r, &g, &bl) != 3)
        return false;
    return 0.299 * r + 0.587 * g + 0.114 * bl < 140;
}

void gdr_heatmap_svg(struct gdr_buf *b, const struct gdr_heat *h)
{
    size_t n = h->n;
    bool text = n <= 16;
    double cell = n <= 8 ? 64 : n <= 16 ? 40 : n <= 64 ? 14 : 6;
    double left = 130, top = 40, gw = cell * (double)n;
    double w = left + gw + 20, hh = top + gw + 86;
    if (w < 540)
        w = 540;
    static unsigned seq; /* pattern ids unique within a page */
    unsigned id = ++seq;
    gdr_buf_printf(
        b,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
        "font-family=\"system-ui, 'DejaVu Sans', sans-serif\" font-size=\"13\" "
        "fill=\"#1a1a1a\"><title>",
        w, hh);
    gdr_buf_esc(b, h->label);
    gdr_buf_printf(b,
                   "</title><defs><pattern id=\"hatch%u\" width=\"6\" height=\"6\" "
                   "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect "
                   "width=\"6\" height=\"6\" fill=\"#d9d9d9\"/><line x1=\"0\" y1=\"0\" "
                   "x2=\"0\" y2=\"6\" stroke=\"#9a9a9a\" stroke-width=\"2\"/></pattern></defs>\n",
                   id);
    gdr_buf_printf(b, "<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">", left + gw / 2);
    gdr_buf_esc(b, h->col_label);
    gdr_buf_printf(b, "</text><text x=\"4\" y=\"%.1f\">", top - 8);
    gdr_buf_esc(b, h->row_label);
    gdr_buf_puts(b, "</text>\n");
    size_t every = n <= 16 ? 1 : (n + 15) / 16;
    for (size_t i = 0; i < n; i += every) {
        gdr_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">",
                       left + cell * ((double)i + 0.5), top - 6);
        gdr_buf_esc_max(b, h->names[i], n <= 8 ? 9 : 5);
        gdr_buf_printf(b,
                       "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">",
                       left - 6, top + cell * ((double)i + 0.5) + 4);
        gdr_buf_esc_max(b, h->names[i], 16);
        gdr_buf_puts(b, "</text>\n");
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            size_t k = i * n + j;
            double x = left + cell * (double)j, y = top + cell * (double)i;
            char fill[8] = "#ffffff", hatch[24];
            snprintf(hatch, sizeof(hatch), "url(#hatch%u)", id);
            const char *f = fill;
            if (h->state[k] == GDR_HEAT_OK)
                gdr_ratio_colour(h->ratio[k], fill);
            else if (h->state[k] == GDR_HEAT_FAILED)
                f = "#1a1a1a";
            else if (h->state[k] == GDR_HEAT_NONE)
                f = hatch;
            gdr_buf_puts(b, "<g>");
            if (h->state[k] != GDR_HEAT_SELF) {
                gdr_buf_puts(b, "<title>");
                gdr_buf_esc(b, h->names[i]);
                gdr_buf_puts(b, " \xe2\x86\x92 ");
                gdr_buf_esc(b, h->names[j]);
                gdr_buf_puts(b, ": ");
                if (h->state[k] == GDR_HEAT_OK)
                    gdr_buf_escf(b, "%s (%.2f of the reference)%s", h->text ? h->text[k] : "",
                                 h->ratio[k], h->low && h->low[k] ? ", low" : "");
                else
                    gdr_buf_puts(b, h->state[k] == GDR_HEAT_FAILED ? "failed" : "not run");
                gdr_buf_puts(b, "</title>");
            }
            gdr_buf_printf(b,
                           "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                           "fill=\"%s\" stroke=\"#ffffff\"/>",
                           x, y, cell, cell, f);
            if (h->low && h->low[k] && cell >= 14)
                gdr_buf_printf(b,
                               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                               "fill=\"none\" stroke=\"#000\" stroke-width=\"2.5\"/>",
                               x + 2, y + 2, cell - 4, cell - 4);
            if (h->state[k] == GDR_HEAT_FAILED)
                gdr_buf_printf(b,
                               "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" "
                               "stroke=\"#ffffff\" stroke-width=\"2\"/>",
                               x + cell * 0.3, y + cell * 0.3, x + cell * 0.7, y + cell * 0.7,
                               x + cell * 0.3, y + cell * 0.7, x + cell * 0.7, y + cell * 0.3);
            else if (text && h->state[k] == GDR_HEAT_OK) {
                gdr_buf_printf(b,
                               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                               "font-size=\"%d\" fill=\"%s\">%.2f</text>",
                               x + cell / 2, y + cell / 2 + 4, n <= 8 ? 13 : 10,
                               dark(fill) ? "#ffffff" : "#000000", h->ratio[k]);
            }
            gdr_buf_puts(b, "</g>");
        }
    gdr_buf_puts(b, "\n");
    /* The scale: 0.5 .. 1.5, then the failed and not-run keys. */
    double ly = top + gw + 22, lx = left, lw = 240;
    for (int s = 0; s < 40; s++) {
        char c[8];
        gdr_ratio_colour(0.5 + s / 39.0, c);
        gdr_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"12\" fill=\"%s\"/>",
                       lx + lw * s / 40.0, ly, lw / 40.0 + 0.3, c);
    }
    gdr_buf_printf(b,
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">\xe2\x89\xa4 0.5</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">1</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">\xe2\x89\xa5 "
                   "1.5</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">of the reference (low is bad; "
                   "boxed: called low)</text>\n",
                   lx, ly + 26, lx + lw / 2, ly + 26, lx + lw, ly + 26, lx, ly + 44);
    double kx = lx + lw + 20;
    gdr_buf_printf(b,
                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#1a1a1a\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">failed</text>"
                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"url(#hatch%u)\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">not run</text>\n</svg>\n",
                   kx, ly, kx + 16, ly + 11, kx, ly + 18, id, kx + 16, ly + 29);
}
