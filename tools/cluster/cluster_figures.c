/* cluster_figures.c - gdr-cluster's figures (cluster_figures.h), each a
 * spec of tools/figure over gdr_matrix_write_heat's data, drawn by one
 * gnuplot process. */
#include "config.h"

#include "cluster_figures.h"
#include "error.h"
#include "figure.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Matrix m's file name, an identifier with the byte count: TEST-SIZE-rR
 * (rail false: TEST-SIZE, every rail). */
static void fig_name(const struct gdr_matrix *m, bool rail, char *buf, size_t len)
{
    char tn[64];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    if (rail)
        snprintf(buf, len, "%s-%llu-r%d", tn, (unsigned long long)m->size, m->rail);
    else
        snprintf(buf, len, "%s-%llu", tn, (unsigned long long)m->size);
}

/* Its title as a person reads it: "TEST, 1 MiB, rail R". */
static void fig_title(const struct gdr_matrix *m, bool rail, char *buf, size_t len)
{
    char tn[64], sz[32];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    gdr_fmt_size(m->size, sz, sizeof(sz));
    if (rail)
        snprintf(buf, len, "%s, %s, rail %d", tn, sz, m->rail);
    else
        snprintf(buf, len, "%s, %s", tn, sz);
}

/* dir/KIND-NAME.dat when it holds something, else "" (relative to dir). */
static const char *data(const char *dir, const char *kind, const char *name, char *buf, size_t len)
{
    char path[4096];
    struct stat st;
    snprintf(buf, len, "%s-%s.dat", kind, name);
    snprintf(path, sizeof(path), "%s/%s", dir, buf);
    if (stat(path, &st) || st.st_size == 0)
        buf[0] = '\0';
    return buf;
}

/* NAME.gp: the heatmap, the histogram and (blocked) the worst nodes. */
static int matrix_script(const struct gdr_matrix_set *s, const struct gdr_matrix *m,
                         const char *dir, const struct gdr_unit *unit, const char *const *names,
                         const char *gp_name)
{
    char name[128], path[4096], cells[192], failed[192], unreach[192], values[192];
    fig_name(m, true, name, sizeof(name));
    if (!*data(dir, "values", name, values, sizeof(values)))
        return 1;
    snprintf(path, sizeof(path), "%s/%s", dir, gp_name);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
    size_t b = gdr_heat_block(s->n), side = (s->n + b - 1) / b;
    char title[512], what[96], human[128];
    fig_title(m, true, human, sizeof(human));
    if (b > 1)
        snprintf(what, sizeof(what), "blocks of %zu x %zu nodes, each its worst pair", b, b);
    else
        snprintf(what, sizeof(what), "each pair");
    snprintf(title, sizeof(title), "%s: %s against the reference (1 = reference, as judged)", human,
             what);
    gdr_fig_preamble(gp);
    char out[192];
    snprintf(out, sizeof(out), "heat-%s", name);
    gdr_fig_output(gp, true, out, 900, 800);
    fprintf(gp, "set bmargin 6\n");
    struct gdr_fig_heat h = {.title = title,
                             .xlabel = b > 1 ? "server block" : "server",
                             .ylabel = b > 1 ? "client block" : "client",
                             .side = side,
                             .nnames = b > 1 ? 0 : s->n,
                             .names = b > 1 ? NULL : names,
                             .cells = data(dir, "heat", name, cells, sizeof(cells)),
                             .ratio_col = "3",
                             .failed = data(dir, "failed", name, failed, sizeof(failed)),
                             .unreachable =
                                 data(dir, "unreachable", name, unreach, sizeof(unreach)),
                             .key = true};
    gdr_fig_heatmap(gp, &h);
    snprintf(out, sizeof(out), "hist-%s", name);
    gdr_fig_output(gp, true, out, 900, 500);
    struct gdr_unit u = unit[m->latency];
    char col[64], xl[96];
    snprintf(col, sizeof(col), "($1*%.9g)", u.scale);
    snprintf(xl, sizeof(xl), "%s (%s)", m->latency ? "median latency" : "bandwidth", u.name);
    snprintf(title, sizeof(title), "%s: pairs", human);
    gdr_fig_histogram(gp, values, col, title, xl);
    /* The worst nodes at full resolution: each of their pairs. */
    char top[192], tnames[192];
    snprintf(tnames, sizeof(tnames), "%s/topnames-%s.txt", dir, name);
    FILE *tn = b > 1 && *data(dir, "top", name, top, sizeof(top)) ? fopen(tnames, "r") : NULL;
    if (tn) {
        char line[GDR_NODE_NAME_LEN + 2], tl[GDR_HEAT_TOP][GDR_NODE_NAME_LEN + 2];
        const char *tp[GDR_HEAT_TOP];
        size_t nt = 0;
        while (nt < GDR_HEAT_TOP && fgets(line, sizeof(line), tn)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(tl[nt], sizeof(tl[nt]), "%s", line);
            tp[nt] = tl[nt];
            nt++;
        }
        fclose(tn);
        snprintf(out, sizeof(out), "top-%s", name);
        gdr_fig_output(gp, true, out, 1000, 500);
        snprintf(title, sizeof(title), "%s: the worst nodes' pairs, each against the reference",
                 human);
        struct gdr_fig_heat t = {.title = title,
                                 .xlabel = "partner (node number)",
                                 .ylabel = "",
                                 .side = s->n,
                                 .nnames = nt,
                                 .names = tp,
                                 .cells = top,
                                 .ratio_col = "3",
                                 .dots = true,
                                 .rows = nt};
        gdr_fig_heatmap(gp, &t);
    }
    fprintf(gp, "unset output\n");
    return fclose(gp) ? gdr_fail(GDR_EXIT_USAGE, "%s: write error", path) : 0;
}

/* panel-TEST-SIZE.gp: the rails of one test and size side by side, every
 * cell against the median of all rails together. */
static int panel_script(const struct gdr_matrix_set *s, const size_t *rails, size_t nr,
                        const char *dir, const char *gp_name)
{
    const struct gdr_matrix *m0 = &s->m[rails[0]], *rm[GDR_RAILS_MAX];
    char ts[128], path[4096], name[128], buf[192], human[128];
    fig_name(m0, false, ts, sizeof(ts));
    fig_title(m0, false, human, sizeof(human));
    for (size_t r = 0; r < nr; r++)
        rm[r] = &s->m[rails[r]];
    double med = gdr_matrices_median(rm, nr);
    if (med <= 0)
        return 1;
    snprintf(path, sizeof(path), "%s/%s", dir, gp_name);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
    size_t cols = nr <= 4 ? nr : 4, rows = (nr + 3) / 4;
    size_t b = gdr_heat_block(s->n), side = (s->n + b - 1) / b;
    gdr_fig_preamble(gp);
    snprintf(buf, sizeof(buf), "panel-%s", ts);
    gdr_fig_output(gp, true, buf, (unsigned)(cols * 360 + 80), (unsigned)(rows * 380 + 40));
    fprintf(gp, "M = %.9g\n", med);
    fprintf(gp, "set multiplot layout %zu,%zu title ", rows, cols);
    snprintf(path, sizeof(path),
             "%s: every rail against the median of all rails (1 = median; black x = failed; dark "
             "grey = unreachable; light grey = not run)",
             human);
    gdr_fig_str(gp, path);
    fputc('\n', gp);
    for (size_t r = 0; r < nr; r++) {
        const struct gdr_matrix *m = &s->m[rails[r]];
        char title[32], cells[192], failed[192], unreach[192];
        fig_name(m, true, name, sizeof(name));
        snprintf(title, sizeof(title), "rail %d", m->rail);
        struct gdr_fig_heat h = {.title = title,
                                 .side = side,
                                 .cells = data(dir, "heat", name, cells, sizeof(cells)),
                                 .ratio_col = m->latency ? "(M/$4)" : "($4/M)",
                                 .failed = data(dir, "failed", name, failed, sizeof(failed)),
                                 .unreachable =
                                     data(dir, "unreachable", name, unreach, sizeof(unreach))};
        gdr_fig_heatmap(gp, &h);
    }
    fprintf(gp, "unset multiplot\nunset output\n");
    return fclose(gp) ? gdr_fail(GDR_EXIT_USAGE, "%s: write error", path) : 0;
}

static bool same_panel(const struct gdr_matrix *a, const struct gdr_matrix *b)
{
    return a->size == b->size && gdr_test_mode_equal(&a->test, &b->test);
}

int gdr_cluster_figures(const struct gdr_matrix_set *s, const char *dir,
                        const struct gdr_unit unit[2])
{
    const char **names = calloc(s->n + 1, sizeof(char *));
    char(*gps)[160] = calloc(2 * s->count + 1, sizeof(*gps));
    const char **argv = calloc(2 * s->count + 1, sizeof(char *));
    size_t *rails = calloc(s->count + 1, sizeof(size_t));
    int rc = 0;
    size_t n = 0;
    if (!names || !gps || !argv || !rails) {
        rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s->n; i++)
        names[i] = s->nodes[i];
    for (size_t k = 0; k < s->count && rc >= 0; k++) {
        char name[128];
        fig_name(&s->m[k], true, name, sizeof(name));
        snprintf(gps[n], sizeof(gps[n]), "%s.gp", name);
        rc = matrix_script(s, &s->m[k], dir, unit, names, gps[n]);
        if (rc == 0)
            argv[n] = gps[n], n++;
        /* The first rail of a test and size gathers the others. */
        size_t nr = 0;
        for (size_t j = 0; j < s->count && rc >= 0 && nr < GDR_RAILS_MAX; j++)
            if (same_panel(&s->m[k], &s->m[j]))
                rails[nr++] = j;
        if (rc < 0 || nr < 2 || rails[0] != k)
            continue;
        fig_name(&s->m[k], false, name, sizeof(name));
        snprintf(gps[n], sizeof(gps[n]), "panel-%s.gp", name);
        rc = panel_script(s, rails, nr, dir, gps[n]);
        if (rc == 0)
            argv[n] = gps[n], n++;
    }
    if (rc >= 0 && n)
        rc = gdr_fig_draw(dir, argv, n, NULL);
out:
    free(names);
    free(gps);
    free(argv);
    free(rails);
    return rc < 0 ? -1 : 0;
}
