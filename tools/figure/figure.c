/* figure.c - every figure's look, written as gnuplot (figure.h). */
#include "config.h"

#include "figure.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *gdr_fig_pair_colour(const char *pair)
{
    static const char *const map[][2] = {
        {"host-cuda", GDR_C_BLUE}, {"cuda-host", GDR_C_VERMILLION}, {"cuda-cuda", GDR_C_GREEN}};
    for (size_t i = 0; pair && i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(pair, map[i][0]))
            return map[i][1];
    return GDR_C_BLACK;
}

/* PuOr, five stops: low orange-brown .. white .. purple high. */
/* The frame's line width. */
#define BORDER_LW 1.2

static const double ratio_at[5] = {GDR_RATIO_LO, 0.75, 1.0, 1.25, GDR_RATIO_HI};
static const unsigned char ratio_rgb[5][3] = {{0xb3, 0x58, 0x06},
                                              {0xf1, 0xa3, 0x40},
                                              {0xf7, 0xf7, 0xf7},
                                              {0x99, 0x8e, 0xc3},
                                              {0x54, 0x27, 0x88}};

void gdr_fig_ratio_palette(FILE *gp)
{
    fprintf(gp, "set cbrange [%g:%g]\nset palette defined (", GDR_RATIO_LO, GDR_RATIO_HI);
    for (int i = 0; i < 5; i++)
        fprintf(gp, "%s%g \"#%02x%02x%02x\"", i ? ", " : "", ratio_at[i], ratio_rgb[i][0],
                ratio_rgb[i][1], ratio_rgb[i][2]);
    fprintf(gp, ")\nset cblabel \"ratio to the reference (low = worse)\"\n");
}

size_t gdr_heat_block(size_t nodes)
{
    return nodes > GDR_HEAT_FULL_MAX ? (nodes + GDR_HEAT_FULL_MAX - 1) / GDR_HEAT_FULL_MAX : 1;
}

struct gdr_unit gdr_unit_bw(double max)
{
    return max >= 1e9 ? (struct gdr_unit){"GB/s", 1e-9} : (struct gdr_unit){"MB/s", 1e-6};
}

struct gdr_unit gdr_unit_lat(double max)
{
    return max >= 1e-3 ? (struct gdr_unit){"ms", 1e3} : (struct gdr_unit){"\xc2\xb5s", 1e6};
}

struct gdr_unit gdr_unit_span(double max)
{
    if (max <= 900)
        return (struct gdr_unit){"s", 1};
    return max <= 36000 ? (struct gdr_unit){"min", 1 / 60.0} : (struct gdr_unit){"h", 1 / 3600.0};
}

void gdr_fmt_num(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (a >= 1e7 || a < 1)
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.*f", a >= 100 ? 0 : a >= 10 ? 1 : 2, v);
}

void gdr_fmt_unit(struct gdr_unit u, double v, char *buf, size_t len)
{
    char n[32];
    gdr_fmt_num(v * u.scale, n, sizeof(n));
    if (isfinite(v))
        snprintf(buf, len, "%s %s", n, u.name);
    else
        snprintf(buf, len, "-");
}

void gdr_fmt_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[u]);
}

void gdr_y_range(enum gdr_ykind kind, double lo, double hi, double ref, double frac, double *out_lo,
                 double *out_hi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    if (kind == GDR_Y_LOG) {
        if (lo <= 0)
            lo = hi > 0 ? hi / 10 : 1;
        if (hi <= 0)
            hi = lo * 10;
        *out_lo = pow(10, floor(log10(lo) + 1e-9));
        *out_hi = pow(10, ceil(log10(hi) - 1e-9));
        if (*out_hi <= *out_lo)
            *out_hi = *out_lo * 10;
        return;
    }
    if (kind == GDR_Y_ZERO) {
        *out_lo = lo < 0 ? lo : 0;
        *out_hi = hi > 0 ? hi * 1.05 : 1;
        return;
    }
    if (!(ref > 0) || !isfinite(ref))
        ref = (lo + hi) / 2 > 0 ? (lo + hi) / 2 : 1;
    double a = fmin(lo, ref * (1 - frac)), b = fmax(hi, ref * (1 + frac));
    double pad = (b - a) * 0.04;
    a -= pad;
    b += pad;
    /* A range that nearly reaches zero starts there. */
    if (a < (b - a) * 0.25 && lo >= 0)
        a = 0;
    *out_lo = a;
    *out_hi = b;
}

/* ---- script text ---- */

void gdr_fig_str(FILE *gp, const char *s)
{
    fputc('"', gp);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', gp);
        if (*s == '\n')
            fputs("\\n", gp);
        else
            fputc(*s, gp);
    }
    fputc('"', gp);
}

void gdr_fig_preamble(FILE *gp)
{
    /* pngcairo draws antialiased text; the libgd png terminal is the fallback. */
    fprintf(gp, "set encoding utf8\n"
                "png_term = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? 'pngcairo' : 'png'\n");
}

void gdr_fig_output(FILE *gp, bool png, const char *name, unsigned w, unsigned h)
{
    if (png)
        fprintf(gp,
                "eval sprintf('set terminal %%s size %u,%u noenhanced font \"sans,12\"', "
                "png_term)\n",
                w, h);
    else
        fprintf(gp, "set terminal svg size %u,%u dynamic noenhanced font \"sans,12\"\n", w, h);
    fprintf(gp, "set output ");
    char file[1024];
    snprintf(file, sizeof(file), "%s.%s", name, png ? "png" : "svg");
    gdr_fig_str(gp, file);
    fputc('\n', gp);
}

void gdr_fig_block(FILE *gp, const char *name, const char *rows)
{
    size_t n = strlen(rows);
    fprintf(gp, "$%s << EOD\n%s%sEOD\n", name, rows, n && rows[n - 1] != '\n' ? "\n" : "");
}

static void data_ref(FILE *gp, const struct gdr_fig_line *l)
{
    if (!l->using) {
        fputs(l->data, gp);
        return;
    }
    if (l->data[0] == '$')
        fputs(l->data, gp);
    else
        gdr_fig_str(gp, l->data);
    if (l->index >= 0)
        fprintf(gp, " index %d", l->index);
    fprintf(gp, " using %s", l->using);
}

static void line_style(FILE *gp, const struct gdr_fig_line *l)
{
    double w = l->width > 0 ? l->width : 2;
    const char *c = l->colour ? l->colour : GDR_C_BLACK;
    switch (l->style) {
    case GDR_FIG_BAND:
        fprintf(gp, " with filledcurves fc rgb \"%s\" fs transparent solid 0.25 noborder", c);
        return;
    case GDR_FIG_RING: fprintf(gp, " with points pt 6 ps 1.8 lw 1.5 lc rgb \"%s\"", c); return;
    case GDR_FIG_CROSS: fprintf(gp, " with points pt 2 ps 1.8 lw 2 lc rgb \"%s\"", c); return;
    case GDR_FIG_TIPS:
        /* the border's width: else the SVG terminal changes style (a
         * group) twice for every point */
        fprintf(gp, " with labels hypertext point pt %d ps %g lc rgb \"%s\" lw %g",
                l->colour ? (l->hollow ? 6 : 7) : 5, l->colour ? 1.1 : l->width,
                l->colour ? l->colour : "#FF000000", BORDER_LW);
        return;
    case GDR_FIG_LINES: fprintf(gp, " with lines"); break;
    case GDR_FIG_POINTS: fprintf(gp, " with points"); break;
    case GDR_FIG_ERRORLINES: fprintf(gp, " with yerrorlines"); break;
    case GDR_FIG_LINESPOINTS: fprintf(gp, " with linespoints"); break;
    }
    fprintf(gp, " lc rgb \"%s\" lw %g dt %d", c, w, l->dashed ? 2 : 1);
    if (l->style != GDR_FIG_LINES)
        fprintf(gp, " pt %d ps 1.1", l->hollow ? 6 : 7);
}

/* At most 8 labels, every k-th size, none closer than gap (a fraction of
 * the axis). */
static void size_tics(FILE *gp, const double *s, size_t n, double gap)
{
    if (!n)
        return;
    double lo = s[0] / 1.3, hi = s[n - 1] * 1.3, last = 0;
    size_t k = (n + 7) / 8;
    fprintf(gp, "set logscale x 2\nset xrange [%g:%g]\nset xtics (", lo, hi);
    bool first = true;
    for (size_t i = 0; i < n; i += k) {
        if (!first && log(s[i] / last) < gap * log(hi / lo))
            continue;
        char lab[32];
        gdr_fmt_size((uint64_t)s[i], lab, sizeof(lab));
        fprintf(gp, "%s\"%s\" %.17g", first ? "" : ", ", lab, s[i]);
        first = false;
        last = s[i];
    }
    fprintf(gp, ")\nset mxtics default\n");
}

static void plot_lines(FILE *gp, const struct gdr_fig_line *lines, size_t n);

static void labels(FILE *gp, const char *title, const char *xlabel, const char *ylabel)
{
    fprintf(gp, "set title ");
    gdr_fig_str(gp, title);
    fprintf(gp, "\nset xlabel ");
    gdr_fig_str(gp, xlabel);
    fprintf(gp, " offset 0,0.3\nset ylabel ");
    gdr_fig_str(gp, ylabel);
    fputc('\n', gp);
}

/* The key below the plot area, rows x cols, above the caption lines. */
static void key_below(FILE *gp, size_t n, unsigned cols, int ncaption)
{
    size_t rows = (n + cols - 1) / cols;
    fprintf(gp, "set bmargin %zu\n", 3 + rows + (size_t)ncaption + 1);
    fprintf(gp,
            "set key at screen 0.5, character %g center top horizontal maxrows %zu reverse Left "
            "width 2 samplen 3 spacing 1.1 box lc rgb \"#a0a0a0\" opaque\n",
            ncaption + (double)rows + 1.2, rows);
}

void gdr_fig_chart(FILE *gp, const struct gdr_fig_chart *c)
{
    fprintf(gp, "set grid xtics ytics lc rgb \"#d0d0d0\"\nset border lw %g\nunset arrow\n",
            BORDER_LW);
    if (c->x == GDR_X_LOG2_BYTES) {
        fprintf(gp, "unset xdata\n");
        size_tics(gp, c->sizes, c->nsizes, c->narrow ? 0.12 : 0.05);
    } else if (c->x == GDR_X_LINEAR) {
        fprintf(gp, "unset xdata\nunset logscale x\nset autoscale xfix\nset xtics autofreq\n"
                    "set format x '%%g'\n");
    } else {
        fprintf(gp, "unset logscale x\nset xdata time\nset timefmt '%%Y-%%m-%%dT%%H:%%M:%%SZ'\n"
                    "set autoscale xfix\nset xtics autofreq\n");
        fprintf(gp, "set format x %s\n", c->x_hours ? "\"%m-%d\\n%H:%M\"" : "'%m-%d'");
    }
    labels(gp, c->title, c->xlabel, c->ylabel);
    fprintf(gp, c->y == GDR_Y_LOG ? "set logscale y 10\n" : "unset logscale y\n");
    if (c->nynames) {
        /* rows: the first name on top */
        fprintf(gp, "set yrange [%zu.5:0.5]\nset ytics (", c->nynames);
        for (size_t i = 0; i < c->nynames; i++) {
            fputs(i ? ", " : "", gp);
            gdr_fig_str(gp, c->ynames[i]);
            fprintf(gp, " %zu", i + 1);
        }
        fputs(") font \",9\"\n", gp);
    } else if (c->y_lo != 0 || c->y_hi != 0)
        fprintf(gp, "set yrange [%.9g:%.9g]\n", c->y_lo, c->y_hi);
    else
        fprintf(gp, c->y == GDR_Y_LOG ? "set yrange [*:*]\n" : "set yrange [0:*]\n");
    for (size_t i = 0; i < c->nvlines; i++) {
        const struct gdr_fig_vline *v = &c->vlines[i];
        const char *col = v->colour ? v->colour : GDR_C_GREY;
        fprintf(gp,
                "set arrow %zu from '%s', graph 0 to '%s', graph 1 nohead lw %s lc rgb \"%s\"\n",
                i + 1, v->at, v->at, v->dashed ? "1.5 dt 2" : "2", col);
        if (v->label) {
            fprintf(gp, "set label %zu ", 400 + i);
            gdr_fig_str(gp, v->label);
            fprintf(gp, " at '%s', graph %s left offset 0.5,0 font \",9\" tc rgb \"%s\"\n", v->at,
                    v->dashed ? "0.92" : "0.08", col);
        }
    }
    if (c->no_key)
        fprintf(gp, "unset key\n");
    else if (c->key_cols) {
        size_t titled = 0;
        for (size_t i = 0; i < c->nlines; i++)
            titled += c->lines[i].title != NULL;
        key_below(gp, titled, c->key_cols, c->ncaption);
    }
    plot_lines(gp, c->lines, c->nlines);
    if (isfinite(c->hline))
        fprintf(gp, "%s%.9g with lines lc rgb \"#404040\" dt 3 lw 1.5 notitle",
                c->nlines ? ", \\\n    " : "", c->hline);
    fputc('\n', gp);
    if (c->nynames) /* the next figure's tics are its own */
        fputs("set ytics autofreq font \"\"\n", gp);
    for (size_t i = 0; i < c->nvlines; i++)
        if (c->vlines[i].label)
            fprintf(gp, "unset label %zu\n", 400 + i);
}

void gdr_fig_key_panel(FILE *gp, const struct gdr_fig_line *lines, size_t n, unsigned key_cols,
                       int ncaption)
{
    fprintf(gp, "set lmargin at screen 0.08; set rmargin at screen 0.99; unset title; unset "
                "xlabel; unset ylabel; unset tics; unset grid; unset border; unset logscale; set "
                "xrange [0:1]; set yrange [0:1]\n");
    key_below(gp, n, key_cols, ncaption);
    plot_lines(gp, lines, n);
    fputc('\n', gp);
}

static void plot_lines(FILE *gp, const struct gdr_fig_line *lines, size_t n)
{
    fprintf(gp, "plot ");
    for (size_t i = 0; i < n; i++) {
        const struct gdr_fig_line *l = &lines[i];
        if (i)
            fprintf(gp, ", \\\n    ");
        data_ref(gp, l);
        line_style(gp, l);
        if (l->title && l->style == GDR_FIG_TIPS) /* labels have no key entry: a marker */
            fprintf(gp, " notitle, \\\n    NaN with points pt %d ps 1.1 lc rgb \"%s\"",
                    l->hollow ? 6 : 7, l->colour ? l->colour : GDR_C_BLACK);
        if (l->title) {
            fprintf(gp, " title ");
            gdr_fig_str(gp, l->title);
        } else {
            fprintf(gp, " notitle");
        }
    }
}

void gdr_fig_caption(FILE *gp, int line, const char *text, bool warn)
{
    fprintf(gp, "set label %d ", 100 + line);
    gdr_fig_str(gp, text);
    fprintf(gp, " at character 1.5, character %g left font \",9\"", 0.8 + line);
    if (warn)
        fprintf(gp, " tc rgb \"%s\"", GDR_C_WARN);
    fputc('\n', gp);
}

int gdr_fig_lab_warnings(FILE *gp, int line, bool simulated, bool soft_roce)
{
    if (simulated)
        gdr_fig_caption(gp, line++, GDR_WARN_SIMULATED, true);
    if (soft_roce)
        gdr_fig_caption(gp, line++, GDR_WARN_SOFT_ROCE, true);
    return line;
}

static void tics(FILE *gp, const char *axis, const char *const *names, size_t n)
{
    fprintf(gp, "set %stics (", axis);
    for (size_t i = 0; i < n; i++) {
        fprintf(gp, "%s", i ? ", " : "");
        gdr_fig_str(gp, names[i]);
        fprintf(gp, " %zu", i);
    }
    fprintf(gp, ")%s\n", axis[0] == 'x' ? " rotate by 90 right" : "");
}

static void cells_of(FILE *gp, const char *file, const char *colour, const char *title, bool cross)
{
    if (!file || !*file)
        return;
    fprintf(gp, ", \\\n    ");
    gdr_fig_str(gp, file);
    fprintf(gp, " using 1:2:(0.5):(0.5) with boxxy fs solid fc rgb \"%s\" ", colour);
    if (title) {
        fprintf(gp, "title ");
        gdr_fig_str(gp, title);
    } else {
        fprintf(gp, "notitle");
    }
    if (cross) {
        fprintf(gp, ", \\\n    ");
        gdr_fig_str(gp, file);
        fprintf(gp, " using 1:2 with points pt 2 ps 1.5 lc rgb \"white\" notitle");
    }
}

void gdr_fig_heatmap(FILE *gp, const struct gdr_fig_heat *h)
{
    size_t rows = h->dots ? h->rows : h->side;
    labels(gp, h->title, h->xlabel, h->ylabel);
    fprintf(gp,
            "set datafile missing \"NaN\"\nset style fill solid 1.0 noborder\n"
            "set xrange [-0.5:%zu-0.5]; set yrange [%zu-0.5:-0.5]\n",
            h->side, rows);
    if (!h->dots)
        fprintf(gp,
                "set size ratio -1\nset object 1 rectangle from graph 0,0 to graph 1,1 "
                "behind fillcolor rgb \"%s\" fillstyle solid noborder\n",
                GDR_C_NOTRUN);
    else
        fprintf(gp, "set size noratio\nunset object 1\n");
    gdr_fig_ratio_palette(gp);
    if (h->names && !h->dots && h->nnames == h->side) {
        tics(gp, "x", h->names, h->nnames);
        tics(gp, "y", h->names, h->nnames);
    } else if (h->names && h->dots) {
        fprintf(gp, "set xtics\n");
        tics(gp, "y", h->names, h->nnames);
    } else {
        fprintf(gp, "unset xtics; unset ytics\n");
    }
    fprintf(gp, h->key ? "set key below horizontal\n" : "unset key\n");
    fprintf(gp, "plot ");
    gdr_fig_str(gp, h->cells);
    if (h->dots) {
        fprintf(gp, " using 1:2:%s with points pt 5 ps 0.8 palette notitle\n", h->ratio_col);
        return;
    }
    fprintf(gp, " using 1:2:(0.5):(0.5):%s with boxxy fc palette notitle", h->ratio_col);
    cells_of(gp, h->failed, GDR_C_FAILED, h->key ? "failed run" : NULL, true);
    cells_of(gp, h->unreachable, GDR_C_UNREACHABLE, h->key ? "unreachable node" : NULL, false);
    if (h->values && h->side <= 16) {
        fprintf(gp, ", \\\n    ");
        gdr_fig_str(gp, h->cells);
        fprintf(gp, " using 1:2:(sprintf(\"%%.2f\", %s)) with labels font \",9\" notitle",
                h->ratio_col);
    }
    if (h->low && *h->low) {
        fprintf(gp, ", \\\n    ");
        gdr_fig_str(gp, h->low);
        fprintf(gp,
                " using 1:2:(0.42):(0.42) with boxxy fs empty border lc rgb \"%s\" lw 2.5 "
                "notitle",
                GDR_C_BLACK);
    }
    if (h->tips && *h->tips) {
        /* an unseen square over each cell carries its tooltip */
        fprintf(gp, ", \\\n    ");
        gdr_fig_str(gp, h->tips);
        fprintf(gp, " using 1:2:3");
        line_style(gp,
                   &(struct gdr_fig_line){.style = GDR_FIG_TIPS,
                                          .width = 440.0 / (double)(h->side ? h->side : 1) / 9.0});
        fprintf(gp, " notitle");
    }
    if (h->key)
        fprintf(gp, ", \\\n    NaN with boxes fs solid fc rgb \"%s\" title \"not run\"",
                GDR_C_NOTRUN);
    fputc('\n', gp);
}

void gdr_fig_histogram(FILE *gp, const char *data, const char *col, const char *title,
                       const char *xlabel)
{
    fprintf(gp, "unset object 1; unset xtics; unset ytics; set xtics; set ytics\n"
                "set autoscale; set size noratio; unset key\n");
    labels(gp, title, xlabel, "pairs");
    fprintf(gp, "stats ");
    gdr_fig_str(gp, data);
    fprintf(gp,
            " using %s nooutput\n"
            "bw = (STATS_max - STATS_min) / 20.0\n"
            "if (bw <= 0) bw = (STATS_max > 0 ? STATS_max / 20.0 : 1)\n"
            "bin(x) = bw * floor(x / bw)\nset boxwidth bw * 0.9\nset style fill solid 0.6\n"
            "set yrange [0:*]\nplot ",
            col);
    gdr_fig_str(gp, data);
    fprintf(gp, " using (bin(%s)):(1) smooth frequency with boxes lc rgb \"%s\" notitle\n", col,
            GDR_C_BLUE);
}

/* ---- drawing ---- */

bool gdr_fig_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char dir[4096];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof(dir), "%.*s/gnuplot", (int)n, p);
        if (n && access(dir, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

int gdr_fig_spawn(const char *dir, const char *const *scripts, size_t n, const char *log, int in,
                  pid_t *pid)
{
    if (strchr(dir, '\''))
        return gdr_fail(GDR_EXIT_USAGE, "%s: a quote in the directory name", dir);
    char cd[4200], deflog[4200];
    snprintf(cd, sizeof(cd), "cd '%s'", dir);
    snprintf(deflog, sizeof(deflog), "%s/gnuplot.log", dir);
    char **argv = calloc(n + 4, sizeof(char *));
    if (!argv)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    argv[0] = "gnuplot";
    argv[1] = "-e";
    argv[2] = cd;
    for (size_t i = 0; i < n; i++)
        argv[3 + i] = (char *)scripts[i];
    /* gnuplot's warnings (a range of one night) go to the log. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in >= 0)
        posix_spawn_file_actions_adddup2(&fa, in, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log ? log : deflog, O_WRONLY | O_CREAT | O_APPEND,
                                     0666);
    int err = posix_spawnp(pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (err)
        return gdr_fail(err == ENOENT ? GDR_EXIT_ENV : GDR_EXIT_RUN, "gnuplot: %s%s", strerror(err),
                        err == ENOENT ? " (apt-get install gnuplot-nox)" : "");
    return 0;
}

int gdr_fig_wait(pid_t pid, const char *dir, const char *log)
{
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        return gdr_fail(GDR_EXIT_RUN, "gnuplot failed in %s (see %s%s)", dir, log ? log : dir,
                        log ? "" : "/gnuplot.log");
    return 0;
}

int gdr_fig_draw(const char *dir, const char *const *scripts, size_t n, const char *log)
{
    pid_t pid;
    if (gdr_fig_spawn(dir, scripts, n, log, -1, &pid))
        return -1;
    return gdr_fig_wait(pid, dir, log);
}
