/* plot.h - a sweep's figures (gdr-plot), specs of tools/figure.
 *
 * gdr_plot_data writes the gnuplot data of a set of series into dir:
 * series-NN-TEST-PAIR.dat per series (SI units, the columns in its
 * header line) and speedup-NN-MM.dat per test and placement pair with GDR
 * on and off (bandwidth on/off, latency off/on: above 1 = GDR helps, the
 * one place the speed-up is computed, gdr_speedup), and prints one index
 * line per file to index (kind file test metric pair gdr reg repeats
 * client_host server_host client_device server_device start_time version
 * simulated client_gpu server_gpu).
 *
 * gdr_plot adds, per test: bandwidth-TEST or latency-TEST, limit-TEST
 * (some row's limit known), speedup-TEST (GDR on and off) and cpu-TEST,
 * each as .png and .svg, drawn by one gnuplot process from dir/plots.gp;
 * dir/index.tsv, dir/figures.tsv (name kind test data-files) and one
 * "DIR/NAME.png DIR/NAME.svg" line per figure on stdout. */
#ifndef GDR_TOOLS_PLOT_H
#define GDR_TOOLS_PLOT_H

#include "collect.h"

#include <stdio.h>

/* on over off at the same size (NAN when a side is missing or zero). */
double gdr_speedup(const struct gdr_series *on, const struct gdr_series *off, uint64_t size);

/* The rows as a data table (gdr-json table; a series' file). */
void gdr_plot_rows(FILE *f, bool latency, const struct gdr_row *rows, size_t n);
/* Returns 0, or -1 after gdr_fail. */
int gdr_plot_data(const struct gdr_set *set, const char *dir, FILE *index);
/* title: every figure's ("gdrbench"); src: what the script was made from. */
int gdr_plot(const struct gdr_set *set, const char *dir, const char *title, const char *src);
/* The same figures, SVG only, written into gp (a page's script, run in
 * dir, where the data files go): gdr-report's sweep page inlines them. */
int gdr_plot_svg(const struct gdr_set *set, const char *dir, FILE *gp, const char *title);

#endif
