/* cluster_figures.h - a cluster run's figures, specs of tools/figure drawn
 * by one gnuplot process: per matrix (NAME = TEST-SIZE-rRAIL) NAME.gp draws
 * heat-NAME.png (each cell's ratio to the reference, the one ratio colour
 * scale; failed, unreachable and not-run cells; blocked by gdr_heat_block),
 * hist-NAME.png (the pairs' values in the run's unit) and, when blocked,
 * top-NAME.png (the worst nodes' pairs); per test and size measured on two
 * or more rails panel-TEST-SIZE.gp draws panel-TEST-SIZE.png (every rail
 * against the median of all rails). The data are gdr_matrix_write_heat's. */
#ifndef GDR_TOOLS_CLUSTER_FIGURES_H
#define GDR_TOOLS_CLUSTER_FIGURES_H

#include "cluster_matrix.h"
#include "figure.h"

/* The scripts into dir (beside the data), drawn there (gnuplot's messages
 * in dir/gnuplot.log); unit: the run's bandwidth and latency units
 * (gdr_findings_unit). Returns 0, or -1 after gdr_fail. */
int gdr_cluster_figures(const struct gdr_matrix_set *s, const char *dir,
                        const struct gdr_unit unit[2]);

#endif
