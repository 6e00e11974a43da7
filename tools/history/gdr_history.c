/* gdr-history - nightly results kept in SQLite, judged over time.
 *
 *   gdr-history [--db FILE] ingest [--testbed NAME] RUN_DIR...
 *   gdr-history [--db FILE] check [options]
 *   gdr-history [--db FILE] annotate [--testbed T] --from DATE TEXT
 *   gdr-history [--db FILE] trend [options] [-o DIR]
 *   gdr-history [--db FILE] export --csv|--openmetrics [--testbed T] [-o FILE]
 *   gdr-history [--db FILE] publish -o DIR [--testbed T] [--runs-url URL] [--force]
 *   gdr-history [--db FILE] list
 *
 * The statistics are in history_stats.c, the database in history_db.c, the
 * regression check (and the CSV export) in history_check.c, the trend
 * figures in history_trend.c, the OpenMetrics export in history_metrics.c,
 * the dashboard in history_publish.c; this file parses the
 * command line. Exit: 0 ok, 1 regression or failed run, 2 bad usage or
 * input, 3 environment missing (gnuplot). */
#include "config.h"

#include "atomic_file.h"
#include "error.h"
#include "history_db.h"
#include "history_ingest.h"
#include "history_metrics.h"
#include "history_publish.h"
#include "history_check.h"
#include "history_stats.h"
#include "history_trend.h"
#include "parse.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "gdr-history" /* in usage errors */

#define DEFAULT_DB "results/history.sqlite"

static const char usage_text[] =
    "usage: gdr-history [--db FILE] COMMAND [OPTIONS]\n"
    "  --db FILE   the history database (default " DEFAULT_DB ")\n"
    "\n"
    "  ingest [--testbed NAME] RUN_DIR...\n"
    "      add runs: a sweep's directory (manifest.json: its ok runs' client\n"
    "      documents, its failed runs) or a directory of result documents. The\n"
    "      testbed defaults to CLIENT:DEV-SERVER:DEV[+GPU] from the documents.\n"
    "      A soak's document is one night at its median over the intervals.\n"
    "      A gdr-cluster directory (plan.json) is a night per link, each link the\n"
    "      testbed CLIENT:DEV-SERVER:DEV[+GPU] (with --testbed NAME:\n"
    "      NAME/CLIENT:DEV-SERVER:DEV); a cluster soak's link at its soaks' median.\n"
    "      Ingesting a run again adds nothing.\n"
    "  check [--testbed T] [--run ID] [STATS] [--markdown FILE] [--junit FILE] [--json]\n"
    "      judge a run (default: the newest) series by series against the history:\n"
    "      regression / improvement / noise / ok / new series / missing series /\n"
    "      suspect (the NIC counted errors or retransmissions: clean false; never\n"
    "      judged nor in a baseline). Each value with its % of the path's limit.\n"
    "      Text on stdout (--json: JSON instead); also Markdown and JUnit XML files.\n"
    "  annotate [--testbed T] --from DATE TEXT\n"
    "      an intended change (DATE: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC): the\n"
    "      baselines start again from DATE; shown on the trend figures\n"
    "  trend [--testbed T | --run ID] [-o DIR] [--sizes LIST] [STATS]\n"
    "      figures per test and placement (PNG and SVG, default DIR ./trend) of the\n"
    "      testbed (default: that of the newest run); LIST: up to 8 sizes (4K, 65536)\n"
    "  export --csv [--testbed T] [-o FILE]\n"
    "      every point with its baseline and verdict, as CSV (default stdout)\n"
    "  export --openmetrics [--testbed T] [-o FILE]\n"
    "      each series' latest value, baseline and verdict and the verdict counts as\n"
    "      labelled gauges, for node_exporter's textfile collector (written atomically)\n"
    "  publish -o DIR [--testbed T] [--runs-url URL] [--force] [STATS]\n"
    "      a static HTML dashboard: DIR/index.html (testbeds and series, regressions\n"
    "      first) and a trend page per series whose points link to each night's\n"
    "      gdr-report page (RUN_DIR/report.html, or URL/RUN_ID/report.html; {run} in\n"
    "      URL is replaced instead). Only the series that changed are rewritten\n"
    "      (--force: all)\n"
    "  list\n"
    "      testbeds, their runs and series\n"
    "  check-db\n"
    "      PRAGMA integrity_check on the database, read-only: exit 0 when sound, else\n"
    "      each problem on stdout, one line on stderr, exit 2\n"
    "\n"
    "STATS (defaults): --window N (14) good nights in the rolling baseline;\n"
    "  --z Z (4) robust z-score threshold; --rel PCT (5) relative threshold;\n"
    "  --min-seg N (3) nights on each side of a step. A regression is beyond\n"
    "  both thresholds, or a step that large in the last --window nights.\n"
    "-h, --help  this text;  --version  print the version\n"
    "exit: 0 ok, 1 regression or failed run, 2 bad usage or input, 3 no gnuplot\n";

/* Exit 1 means a regression or a failed run, so every error but a missing
 * program (3) is bad input or usage (2): the JSON readers record theirs
 * with the run-failure code. */
static int report_error(void)
{
    fprintf(stderr, "gdr-history: %s\n", gdr_error_message());
    return gdr_error_code() == GDR_EXIT_ENV ? GDR_EXIT_ENV : GDR_EXIT_USAGE;
}

static int parse_size(const char *s, size_t min, size_t *out)
{
    uint64_t v;
    if (gdr_parse_uint(s, min, 100000, &v))
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Options every judging command shares. */
struct common {
    const char *db, *testbed, *run, *out, *markdown, *junit, *from, *sizes, *runs_url;
    bool json, csv, openmetrics, force;
    struct hist_opts stats;
};

enum {
    O_TESTBED = 256,
    O_RUN,
    O_WINDOW,
    O_Z,
    O_REL,
    O_MINSEG,
    O_MARKDOWN,
    O_JUNIT,
    O_JSON,
    O_FROM,
    O_SIZES,
    O_CSV,
    O_DB,
    O_OPENMETRICS,
    O_RUNS_URL,
    O_FORCE
};

static const struct option long_opts[] = {
    {"db", required_argument, NULL, O_DB},
    {"testbed", required_argument, NULL, O_TESTBED},
    {"run", required_argument, NULL, O_RUN},
    {"window", required_argument, NULL, O_WINDOW},
    {"z", required_argument, NULL, O_Z},
    {"rel", required_argument, NULL, O_REL},
    {"min-seg", required_argument, NULL, O_MINSEG},
    {"markdown", required_argument, NULL, O_MARKDOWN},
    {"junit", required_argument, NULL, O_JUNIT},
    {"json", no_argument, NULL, O_JSON},
    {"from", required_argument, NULL, O_FROM},
    {"sizes", required_argument, NULL, O_SIZES},
    {"csv", no_argument, NULL, O_CSV},
    {"openmetrics", no_argument, NULL, O_OPENMETRICS},
    {"runs-url", required_argument, NULL, O_RUNS_URL},
    {"force", no_argument, NULL, O_FORCE},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* allowed: the option codes this command takes. Returns the index of the
 * first operand, or -1 after printing a usage error. */
static int parse(const char *cmd, int argc, char **argv, const int *allowed, struct common *c)
{
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+o:h", long_opts, NULL)) != -1) {
        bool ok = ch == 'h' || ch == O_DB;
        for (size_t i = 0; allowed[i]; i++)
            ok |= allowed[i] == ch;
        if (ch == '?' || ch == ':' || !ok) {
            gdr_usage_error(PROG, "%s: unknown option or missing value: '%s'", cmd,
                            argv[optind - 1]);
            return -1;
        }
        const char *a = optarg;
        switch (ch) {
        case 'h': fputs(usage_text, stdout); exit(GDR_EXIT_OK);
        case O_DB: c->db = a; break;
        case O_TESTBED: c->testbed = a; break;
        case O_RUN: c->run = a; break;
        case 'o': c->out = a; break;
        case O_MARKDOWN: c->markdown = a; break;
        case O_JUNIT: c->junit = a; break;
        case O_JSON: c->json = true; break;
        case O_FROM: c->from = a; break;
        case O_SIZES: c->sizes = a; break;
        case O_CSV: c->csv = true; break;
        case O_OPENMETRICS: c->openmetrics = true; break;
        case O_RUNS_URL: c->runs_url = a; break;
        case O_FORCE: c->force = true; break;
        case O_WINDOW:
            if (parse_size(a, 3, &c->stats.window)) {
                gdr_usage_error(PROG, "--window '%s': want an integer of 3 or more", a);
                return -1;
            }
            break;
        case O_MINSEG:
            if (parse_size(a, 1, &c->stats.min_seg)) {
                gdr_usage_error(PROG, "--min-seg '%s': want a positive integer", a);
                return -1;
            }
            break;
        case O_Z:
            if (gdr_parse_real(a, 0.5, 100, &c->stats.z_min)) {
                gdr_usage_error(PROG, "--z '%s': want a number from 0.5 to 100", a);
                return -1;
            }
            break;
        case O_REL:
            if (gdr_parse_real(a, 0, 1000, &c->stats.rel_min)) {
                gdr_usage_error(PROG, "--rel '%s': want a percentage from 0 to 1000", a);
                return -1;
            }
            c->stats.rel_min /= 100;
            break;
        }
    }
    return optind;
}

/* The testbed to work on: --testbed, the testbed of --run, or the one with
 * the newest run. */
static int pick_testbed(struct hdb *h, const struct common *c, char *out, size_t len)
{
    if (c->testbed) {
        snprintf(out, len, "%s", c->testbed);
        return 0;
    }
    if (c->run)
        return hdb_testbed_of_run(h, c->run, out, len);
    char(*names)[256];
    size_t n;
    if (hdb_testbeds(h, &names, &n))
        return -1;
    if (n == 0) {
        free(names);
        return gdr_fail(GDR_EXIT_USAGE, "%s: no runs yet (gdr-history ingest RUN_DIR)", c->db);
    }
    snprintf(out, len, "%s", names[0]);
    free(names);
    return 0;
}

static int load_testbed(struct hdb *h, const struct common *c, struct hdb_testbed *t)
{
    char name[256];
    if (pick_testbed(h, c, name, sizeof(name)) || hdb_load(h, name, t))
        return -1;
    if (t->nruns == 0) {
        hdb_testbed_free(t);
        return gdr_fail(GDR_EXIT_USAGE, "%s: no testbed '%s'", c->db, name);
    }
    return 0;
}

/* ---- ingest ---- */

static int cmd_ingest(struct common *c, int argc, char **argv)
{
    if (argc < 1)
        return gdr_usage_error(PROG, "ingest: %s", "no run directory given");
    struct hdb *h = hdb_open(c->db, true);
    if (!h)
        return report_error();
    for (int i = 0; i < argc; i++) {
        struct hist_ingest_result r;
        if (hist_ingest_dir(h, argv[i], c->testbed, &r)) {
            hdb_close(h);
            return report_error();
        }
        if (r.links)
            printf("gdr-history: %s: cluster run %s: %zu link%s (a testbed each), %zu new, "
                   "%zu points added, %zu already there, %zu failed run%s%s\n",
                   argv[i], r.run_id, r.links, r.links == 1 ? "" : "s", r.runs_added,
                   r.points_added, r.points_present, r.failures, r.failures == 1 ? "" : "s",
                   r.endless ? "; runs that never met their peer are not taken (the "
                               "cluster's report has them)"
                             : "");
        else
            printf("gdr-history: %s: run %s on %s: %s, %zu points added, %zu already there, "
                   "%zu failed run%s%s\n",
                   argv[i], r.run_id, r.testbed, r.run_added ? "new run" : "run already there",
                   r.points_added, r.points_present, r.failures, r.failures == 1 ? "" : "s",
                   r.unfinished ? " (the sweep did not finish: no points taken)" : "");
    }
    hdb_close(h);
    return GDR_EXIT_OK;
}

/* ---- check ---- */

static int write_file(const char *path, void (*fn)(FILE *, const struct check_result *),
                      const struct check_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    fn(f, r);
    if (fclose(f))
        return gdr_fail(GDR_EXIT_USAGE, "%s: write error", path);
    return 0;
}

static int cmd_check(struct common *c, int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return gdr_usage_error(PROG, "check: unexpected argument '%s'", argv[0]);
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    struct hdb_testbed t;
    if (load_testbed(h, c, &t)) {
        hdb_close(h);
        return report_error();
    }
    hdb_close(h);
    size_t run = t.nruns - 1;
    if (c->run) {
        for (run = 0; run < t.nruns && strcmp(t.runs[run].run_id, c->run); run++)
            ;
        if (run == t.nruns) {
            gdr_fail(GDR_EXIT_USAGE, "%s: no run '%s' on testbed %s", c->db, c->run, t.name);
            hdb_testbed_free(&t);
            return report_error();
        }
    }
    struct check_result r;
    int rc = hist_check(&t, run, &c->stats, &r);
    if (rc == 0 && c->markdown)
        rc = write_file(c->markdown, hist_check_markdown, &r);
    if (rc == 0 && c->junit)
        rc = write_file(c->junit, hist_check_junit, &r);
    if (rc == 0) {
        if (c->json) {
            char *s = hist_check_json(&r);
            if (s)
                printf("%s\n", s);
            else
                rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
            free(s);
        } else {
            hist_check_text(stdout, &r);
        }
    }
    int status = rc ? report_error() : hist_check_status(&r);
    hist_check_free(&r);
    hdb_testbed_free(&t);
    return status;
}

/* ---- annotate ---- */

/* YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, a real date; out: the full form. */
static int parse_date(const char *s, char *out, size_t len)
{
    struct tm tm = {0};
    const char *end = strptime(s, "%Y-%m-%d", &tm);
    if (end && *end == 'T')
        end = strptime(end, "T%H:%M:%SZ", &tm);
    if (!end || *end || strlen(s) < 10)
        return -1;
    struct tm check = tm;
    if (timegm(&check) == (time_t)-1 || check.tm_mday != tm.tm_mday)
        return -1;
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return 0;
}

static int cmd_annotate(struct common *c, int argc, char **argv)
{
    char date[40];
    if (!c->from)
        return gdr_usage_error(PROG, "annotate: %s", "--from DATE is required");
    if (parse_date(c->from, date, sizeof(date)))
        return gdr_usage_error(
            PROG, "annotate: --from '%s': want YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", c->from);
    if (argc != 1 || !argv[0][0])
        return gdr_usage_error(PROG, "annotate: %s", "want one TEXT (quote it)");
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    char testbed[256];
    int rc = 0;
    if (c->testbed) {
        snprintf(testbed, sizeof(testbed), "%s", c->testbed);
    } else {
        char(*names)[256];
        size_t n;
        rc = hdb_testbeds(h, &names, &n);
        if (rc == 0 && n != 1)
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: %zu testbeds: name one (--testbed)", c->db, n);
        if (rc == 0)
            snprintf(testbed, sizeof(testbed), "%s", names[0]);
        free(names);
    }
    bool added = false;
    if (rc == 0 && (rc = hdb_begin(h)) == 0) {
        rc = hdb_add_annotation(h, testbed, date, argv[0], &added);
        if (rc == 0)
            rc = hdb_commit(h);
        else
            hdb_rollback(h);
    }
    hdb_close(h);
    if (rc)
        return report_error();
    printf("gdr-history: %s %s: %s\n", testbed, date,
           added ? "annotation added" : "annotation already there");
    return GDR_EXIT_OK;
}

/* ---- trend ---- */

static int parse_sizes(const char *s, uint64_t *out, size_t max, size_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || end == s || v == 0 || *n == max || s[0] == '-')
            return -1;
        if (*end == 'K' || *end == 'M') {
            v <<= *end == 'K' ? 10 : 20;
            end++;
        }
        out[(*n)++] = v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return *n ? 0 : -1;
}

static int cmd_trend(struct common *c, int argc, char **argv)
{
    if (argc > 0)
        return gdr_usage_error(PROG, "trend: unexpected argument '%s'", argv[0]);
    uint64_t sizes[HIST_TREND_MAX_SIZES];
    size_t nsizes = 0;
    if (c->sizes && parse_sizes(c->sizes, sizes, HIST_TREND_MAX_SIZES, &nsizes))
        return gdr_usage_error(PROG, "trend: --sizes '%s': want up to %d sizes (1K, 65536, ...)",
                               c->sizes, HIST_TREND_MAX_SIZES);
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    struct hdb_testbed t;
    int rc = load_testbed(h, c, &t);
    hdb_close(h);
    if (rc)
        return report_error();
    const char *out = c->out ? c->out : "trend";
    rc = hist_trend(&t, &c->stats, out, sizes, nsizes);
    if (rc == 0)
        printf("gdr-history: trend figures of %s (%zu runs) in %s (index: "
               "trend-figures.tsv)\n",
               t.name, t.nruns, out);
    hdb_testbed_free(&t);
    return rc ? report_error() : GDR_EXIT_OK;
}

/* ---- export ---- */

static int export_openmetrics(struct common *c, struct hdb *h, char (*names)[256], size_t n);

static int cmd_export(struct common *c, int argc, char **argv)
{
    if (c->csv == c->openmetrics)
        return gdr_usage_error(PROG, "export: %s", "say the format: --csv or --openmetrics");
    if (argc > 0)
        return gdr_usage_error(PROG, "export: unexpected argument '%s'", argv[0]);
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    char(*names)[256] = NULL;
    size_t n = 0;
    int rc = 0;
    if (c->testbed) {
        names = malloc(sizeof(*names));
        if (names) {
            snprintf(names[0], sizeof(names[0]), "%s", c->testbed);
            n = 1;
        }
    } else {
        rc = hdb_testbeds(h, &names, &n);
    }
    if (c->openmetrics) {
        rc = rc ? rc : export_openmetrics(c, h, names, n);
        free(names);
        hdb_close(h);
        return rc ? report_error() : GDR_EXIT_OK;
    }
    FILE *f = c->out ? fopen(c->out, "w") : stdout;
    if (!f)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: %s", c->out, strerror(errno));
    if (rc == 0)
        hist_export_csv_header(f);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct hdb_testbed t;
        rc = hdb_load(h, names[i], &t);
        if (rc == 0 && t.nruns == 0)
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: no testbed '%s'", c->db, names[i]);
        if (rc == 0)
            rc = hist_export_csv(f, &t, &c->stats);
        hdb_testbed_free(&t);
    }
    if (f && f != stdout && fclose(f) && rc == 0)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: write error", c->out);
    free(names);
    hdb_close(h);
    return rc ? report_error() : GDR_EXIT_OK;
}

/* Every testbed judged, all families written; to -o through a temporary
 * file and a rename (the textfile collector must never read half a file). */
static int export_openmetrics(struct common *c, struct hdb *h, char (*names)[256], size_t n)
{
    struct hdb_testbed *tbs = calloc(n + 1, sizeof(*tbs));
    if (!tbs)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    int rc = 0;
    size_t loaded = 0;
    for (; rc == 0 && loaded < n; loaded++) {
        rc = hdb_load(h, names[loaded], &tbs[loaded]);
        if (rc == 0 && tbs[loaded].nruns == 0)
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: no testbed '%s'", c->db, names[loaded]);
    }
    FILE *f = stdout;
    struct gdr_atomic_file a = {0};
    if (rc == 0 && c->out && (rc = gdr_atomic_open(&a, c->out, GDR_EXIT_USAGE)) == 0)
        f = a.f;
    if (rc == 0)
        rc = hist_metrics_write(f, tbs, n, &c->stats);
    if (a.f && rc == 0)
        rc = gdr_atomic_commit(&a);
    else
        gdr_atomic_abort(&a);
    for (size_t i = 0; i < loaded; i++)
        hdb_testbed_free(&tbs[i]);
    free(tbs);
    return rc;
}

/* ---- publish ---- */

static int cmd_publish(struct common *c, int argc, char **argv)
{
    if (argc > 0)
        return gdr_usage_error(PROG, "publish: unexpected argument '%s'", argv[0]);
    if (!c->out)
        return gdr_usage_error(PROG, "publish: %s", "-o DIR is required");
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    struct hist_publish_opts o = {.outdir = c->out,
                                  .testbed = c->testbed,
                                  .runs_url = c->runs_url,
                                  .force = c->force,
                                  .stats = c->stats};
    struct hist_publish_result r;
    int rc = hist_publish(h, &o, &r);
    hdb_close(h);
    if (rc)
        return report_error();
    printf("gdr-history: published %zu series of %zu testbed%s in %s/index.html: %zu pages "
           "written, %zu unchanged, %zu removed\n",
           r.series, r.testbeds, r.testbeds == 1 ? "" : "s", c->out, r.written, r.unchanged,
           r.removed);
    return GDR_EXIT_OK;
}

/* ---- list ---- */

static int cmd_list(struct common *c, int argc, char **argv)
{
    if (argc > 0)
        return gdr_usage_error(PROG, "list: unexpected argument '%s'", argv[0]);
    struct hdb *h = hdb_open(c->db, false);
    if (!h)
        return report_error();
    char(*names)[256];
    size_t n;
    int rc = hdb_testbeds(h, &names, &n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct hdb_testbed t;
        rc = hdb_load(h, names[i], &t);
        if (rc == 0 && t.nruns)
            printf("%s\t%zu runs (%s .. %s)\t%zu series\t%zu annotations\n", t.name, t.nruns,
                   t.runs[0].date, t.runs[t.nruns - 1].date, t.nseries, t.nnotes);
        hdb_testbed_free(&t);
    }
    free(names);
    hdb_close(h);
    return rc ? report_error() : GDR_EXIT_OK;
}

/* ---- check-db ---- */

static int cmd_check_db(struct common *c, int argc, char **argv)
{
    if (argc > 0)
        return gdr_usage_error(PROG, "check-db: unexpected argument '%s'", argv[0]);
    return hdb_check_db(c->db, stdout) ? report_error() : GDR_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct common c = {.db = DEFAULT_DB};
    hist_opts_default(&c.stats);
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return GDR_EXIT_OK;
        }
        if (!strcmp(argv[i], "--version")) {
            gdr_print_version("gdr-history");
            return GDR_EXIT_OK;
        }
        if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            c.db = argv[i + 1];
            i += 2;
        } else if (!strncmp(argv[i], "--db=", 5)) {
            c.db = argv[i] + 5;
            i++;
        } else {
            return gdr_usage_error(PROG, "unknown option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        return gdr_usage_error(PROG, "%s", "no command given");
    static const int ingest_opts[] = {O_TESTBED, 0};
    static const int check_opts[] = {O_TESTBED, O_RUN,      O_WINDOW, O_Z,    O_REL,
                                     O_MINSEG,  O_MARKDOWN, O_JUNIT,  O_JSON, 0};
    static const int annotate_opts[] = {O_TESTBED, O_FROM, 0};
    static const int trend_opts[] = {O_TESTBED, O_RUN,   O_WINDOW, O_Z, O_REL,
                                     O_MINSEG,  O_SIZES, 'o',      0};
    static const int export_opts[] = {O_TESTBED, O_CSV,    O_OPENMETRICS, O_WINDOW, O_Z,
                                      O_REL,     O_MINSEG, 'o',           0};
    static const int publish_opts[] = {O_TESTBED, O_RUNS_URL, O_FORCE, O_WINDOW, O_Z,
                                       O_REL,     O_MINSEG,   'o',     0};
    static const int list_opts[] = {0};
    static const struct {
        const char *name;
        const int *opts;
        int (*fn)(struct common *, int, char **);
    } cmds[] = {
        {"ingest", ingest_opts, cmd_ingest},       {"check", check_opts, cmd_check},
        {"annotate", annotate_opts, cmd_annotate}, {"trend", trend_opts, cmd_trend},
        {"export", export_opts, cmd_export},       {"list", list_opts, cmd_list},
        {"check-db", list_opts, cmd_check_db},     {"publish", publish_opts, cmd_publish},
    };
    const char *cmd = argv[i];
    for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
        if (strcmp(cmd, cmds[k].name))
            continue;
        int first = parse(cmd, argc - i, argv + i, cmds[k].opts, &c);
        if (first < 0)
            return GDR_EXIT_USAGE;
        return cmds[k].fn(&c, argc - i - first, argv + i + first);
    }
    return gdr_usage_error(PROG, "unknown command '%s'", cmd);
}
