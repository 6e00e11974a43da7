/* test_figure.c - the figure module: its decisions (colours, ratio scale,
 * blocking, units, axes) and the gnuplot it writes, run through gnuplot
 * where it is installed. */
#include "config.h"

#include "unit.h"

#include "figure.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* noinline: inlined, GCC 12 takes the returned text for open_memstream's
 * local pointer and calls every use of it dangling. */
__attribute__((noinline)) static char *script(void (*write)(FILE *, const void *), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    write(f, arg);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void test_decisions(void **state)
{
    (void)state;
    assert_string_equal(gdr_fig_pair_colour("host-cuda"), GDR_C_BLUE);
    assert_string_equal(gdr_fig_pair_colour("host-host"), GDR_C_BLACK);
    assert_int_equal(gdr_heat_block(64), 1);
    assert_int_equal(gdr_heat_block(65), 2);
    assert_int_equal(gdr_heat_block(1000), 16);
    assert_string_equal(gdr_unit_bw(12.5e9).name, "GB/s");
    assert_string_equal(gdr_unit_bw(0.3e9).name, "MB/s");
    assert_string_equal(gdr_unit_lat(2e-6).name, "\xc2\xb5s");
    assert_string_equal(gdr_unit_lat(2e-3).name, "ms");
    /* a soak's time axis: s to 15 min, min to 10 h, then h */
    assert_string_equal(gdr_unit_span(900).name, "s");
    assert_string_equal(gdr_unit_span(901).name, "min");
    assert_true(fabs(gdr_unit_span(36000).scale * 36000 - 600) < 1e-9);
    assert_string_equal(gdr_unit_span(36001).name, "h");
    char b[32];
    gdr_fmt_unit(gdr_unit_bw(12.5e9), 12.5e9, b, sizeof(b));
    assert_string_equal(b, "12.5 GB/s");
    gdr_fmt_unit(gdr_unit_lat(3.21e-6), NAN, b, sizeof(b));
    assert_string_equal(b, "-");
    /* one number format: 3 significant digits, no exponent 0.001 .. 1e7 */
    gdr_fmt_unit(gdr_unit_bw(0.9e9), 0.85e9, b, sizeof(b));
    assert_string_equal(b, "850 MB/s");
    gdr_fmt_unit(gdr_unit_bw(50e9), 5.9375e9, b, sizeof(b));
    assert_string_equal(b, "5.94 GB/s");
    gdr_fmt_unit(gdr_unit_bw(50e9), 42.7e6, b, sizeof(b));
    assert_string_equal(b, "0.0427 GB/s");
    gdr_fmt_unit(gdr_unit_lat(2e-3), 2.5e-3, b, sizeof(b));
    assert_string_equal(b, "2.50 ms");
    gdr_fmt_num(1234.4, b, sizeof(b));
    assert_string_equal(b, "1234");
    gdr_fmt_num(2.5e7, b, sizeof(b));
    assert_string_equal(b, "2.5e+07");
    double lo, hi;
    gdr_y_range(GDR_Y_AROUND, 99.5, 100.5, 100, 0.10, &lo, &hi);
    assert_true(lo <= 90 && hi >= 110 && lo > 80);
    gdr_y_range(GDR_Y_ZERO, 3, 9, NAN, 0, &lo, &hi);
    assert_true(lo == 0 && hi > 9);
    gdr_y_range(GDR_Y_LOG, 0.03, 40, NAN, 0, &lo, &hi);
    assert_true(fabs(lo - 0.01) < 1e-12 && fabs(hi - 100) < 1e-9);
}

static void write_heat(FILE *f, const void *arg)
{
    gdr_fig_preamble(f);
    gdr_fig_output(f, true, "heat-x", 900, 800);
    gdr_fig_heatmap(f, arg);
}

static void test_heatmap_script(void **state)
{
    (void)state;
    static const char *const names[] = {"n0", "n\"1"};
    struct gdr_fig_heat h = {.title = "t",
                             .xlabel = "server",
                             .ylabel = "client",
                             .side = 2,
                             .nnames = 2,
                             .names = names,
                             .cells = "heat-x.dat",
                             .ratio_col = "3",
                             .failed = "failed-x.dat",
                             .unreachable = "",
                             .key = true};
    char *s = script(write_heat, &h);
    assert_non_null(strstr(s, "set cbrange [0.5:1.5]"));
    assert_non_null(strstr(s, "1 \"#f7f7f7\""));
    /* PuOr's ends: orange-brown at GDR_RATIO_LO, purple at GDR_RATIO_HI */
    assert_non_null(strstr(s, "0.5 \"#b35806\""));
    assert_non_null(strstr(s, "1.5 \"#542788\""));
    assert_non_null(strstr(s, "set output \"heat-x.png\""));
    assert_non_null(strstr(s, "\"n\\\"1\" 1"));
    assert_non_null(strstr(s, "title \"failed run\""));
    assert_null(strstr(s, "unreachable node"));
    assert_non_null(strstr(s, "title \"not run\""));
    free(s);
}

/* Where gnuplot is installed: text drawn in a scratch directory, the SVG
 * NAME and gnuplot's messages read back (each "" when absent); false
 * without gnuplot. */
static bool drawn(const char *text, const char *name, char *svg, size_t svg_len, char *log,
                  size_t log_len)
{
    if (!gdr_fig_have_gnuplot())
        return false;
    char dir[] = "/tmp/test_figure.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/c.gp", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    const char *scripts[] = {"c.gp"};
    assert_int_equal(gdr_fig_draw(dir, scripts, 1, NULL), 0);
    const char *files[2] = {name, "gnuplot.log"};
    char *out[2] = {svg, log};
    size_t len[2] = {svg_len, log_len};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        out[i][0] = '\0';
        if ((f = fopen(path, "r"))) {
            out[i][fread(out[i], 1, len[i] - 1, f)] = '\0';
            fclose(f);
        }
    }
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return true;
}

static void write_chart(FILE *f, const void *arg)
{
    gdr_fig_preamble(f);
    gdr_fig_block(f, "d", "1024 1.5\n2048 2.5\n");
    gdr_fig_output(f, false, "bw", 960, 640);
    gdr_fig_chart(f, arg);
}

static void test_fmt_size(void **state)
{
    (void)state;
    static const struct {
        uint64_t b;
        const char *want;
    } cases[] = {
        {0, "0 B"},
        {1, "1 B"},
        {1023, "1023 B"},
        {1024, "1 KiB"},
        {1536, "1536 B"},
        {65536, "64 KiB"},
        {1048576, "1 MiB"},
        {1073741824, "1 GiB"},
        {1099511627776ull, "1024 GiB"}, /* GiB is the largest unit */
        {UINT64_MAX, "18446744073709551615 B"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gdr_fmt_size(cases[i].b, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].want);
    }
}

static void test_chart_script(void **state)
{
    (void)state;
    static const double sizes[] = {1024, 2048};
    struct gdr_fig_line l = {
        .data = "$d", .index = -1, .using = "1:2", .title = "H-D GDR on", .colour = GDR_C_BLUE};
    struct gdr_fig_chart c = {.title = "bw",
                              .xlabel = "message size",
                              .ylabel = "bandwidth [GB/s]",
                              .x = GDR_X_LOG2_BYTES,
                              .nsizes = 2,
                              .sizes = sizes,
                              .y = GDR_Y_ZERO,
                              .y_lo = 0,
                              .y_hi = 3,
                              .hline = NAN,
                              .nlines = 1,
                              .lines = &l};
    char *s = script(write_chart, &c);
    assert_non_null(strstr(s, "$d << EOD\n1024 1.5\n2048 2.5\nEOD\n"));
    assert_non_null(strstr(s, "set xtics (\"1 KiB\" 1024, \"2 KiB\" 2048)"));
    assert_non_null(strstr(s, "set yrange [0:3]"));
    /* sizes that are no power of two: the tics in bytes, as the tables
     * write them (the axis had its own rounding: "2.92969 KiB") */
    static const double odd[] = {1536, 3000};
    struct gdr_fig_chart c2 = c;
    c2.sizes = odd;
    char *s2 = script(write_chart, &c2);
    assert_non_null(strstr(s2, "set xtics (\"1536 B\" 1536, \"3000 B\" 3000)"));
    free(s2);
    assert_non_null(strstr(s, "plot $d using 1:2 with linespoints lc rgb \"#0072B2\""));
    /* An SVG to inline: no script, no standalone page. */
    assert_non_null(strstr(s, "set terminal svg size 960,640 dynamic"));
    assert_null(strstr(s, "mouse"));
    assert_null(strstr(s, "standalone"));
    static char svg[65536], log[4096];
    if (drawn(s, "bw.svg", svg, sizeof(svg), log, sizeof(log))) {
        assert_non_null(strstr(svg, "<svg"));
        assert_null(strstr(svg, "<script"));
    }
    free(s);
}

/* A soak's timeline: plain numbers on x, after a figure of sizes in the
 * same script (its explicit size tics must not carry over), its outage a
 * vertical line at a number; gnuplot draws it without a word. */
static void write_two_charts(FILE *f, const void *arg)
{
    const struct gdr_fig_chart *c = arg;
    gdr_fig_preamble(f);
    gdr_fig_block(f, "d", "1024 1.5\n2048 2.5\n");
    gdr_fig_output(f, false, "sizes", 960, 640);
    gdr_fig_chart(f, &c[0]);
    gdr_fig_block(f, "t", "0 11\n5 11\n\n9 3\n14 3\n");
    gdr_fig_output(f, false, "soak", 960, 360);
    gdr_fig_chart(f, &c[1]);
}

static void test_linear_chart(void **state)
{
    (void)state;
    static const double sizes[] = {1024, 2048};
    struct gdr_fig_line l[2] = {
        {.data = "$d", .index = -1, .using = "1:2", .colour = GDR_C_BLUE},
        {.data = "$t", .index = -1, .using = "1:2", .colour = GDR_C_BLUE, .style = GDR_FIG_LINES}};
    struct gdr_fig_vline v = {"5.5", "outage", GDR_C_VERMILLION, false};
    struct gdr_fig_chart c[2] = {{.title = "",
                                  .xlabel = "message size",
                                  .ylabel = "bandwidth [MB/s]",
                                  .x = GDR_X_LOG2_BYTES,
                                  .nsizes = 2,
                                  .sizes = sizes,
                                  .hline = NAN,
                                  .nlines = 1,
                                  .lines = &l[0]},
                                 {.title = "",
                                  .xlabel = "time since the soak began [s]",
                                  .ylabel = "bandwidth [MB/s]",
                                  .x = GDR_X_LINEAR,
                                  .hline = 11,
                                  .nlines = 1,
                                  .lines = &l[1],
                                  .nvlines = 1,
                                  .vlines = &v,
                                  .no_key = true}};
    char *s = script(write_two_charts, c);
    assert_non_null(strstr(s, "set output \"soak.svg\""));
    size_t at = (size_t)(strstr(s, "set output \"soak.svg\"") - s); /* the second figure's */
    assert_non_null(strstr(s + at, "unset xdata"));
    assert_non_null(strstr(s + at, "set xtics autofreq"));
    assert_null(strstr(s + at, "set xdata time"));
    assert_non_null(strstr(s + at, "set arrow 1 from '5.5', graph 0 to '5.5', graph 1"));
    static char svg[65536], log[4096];
    if (drawn(s, "soak.svg", svg, sizeof(svg), log, sizeof(log))) {
        assert_non_null(strstr(svg, "<svg"));
        assert_string_equal(log, "");
    }
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decisions),    cmocka_unit_test(test_heatmap_script),
        cmocka_unit_test(test_fmt_size),     cmocka_unit_test(test_chart_script),
        cmocka_unit_test(test_linear_chart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
