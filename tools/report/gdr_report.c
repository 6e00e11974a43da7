/* gdr-report - one self-contained HTML page per results directory.
 *
 *   gdr-report [-o FILE] [--title TEXT] [--doctor FILE]... [--pdf FILE] DIR
 *   gdr-report --compare [-o FILE] [--bw-tol PCT] [--lat-tol PCT] [--pdf FILE] BASE RUN
 *
 * DIR is a sweep's or a nightly's run directory, any directory of result
 * documents, or a gdr-cluster results directory (plan.json). The page has
 * no external request of any kind: figures are inline SVG, the style sheet
 * is inline, there is no script, and its Content-Security-Policy says so.
 * --pdf prints the same page with headless Chromium. Exit: 0 ok, 2 bad
 * usage or input (one line, no page written), 3 Chromium missing for --pdf. */
#include "config.h"

#include "report.h"
#include "atomic_file.h"
#include "compare.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "gdr-report" /* in usage errors */

extern char **environ;

static const char usage_text[] =
    "usage: gdr-report [-o FILE] [--title TEXT] [--doctor FILE]... [--pdf FILE] DIR\n"
    "       gdr-report --compare [-o FILE] [--bw-tol PCT] [--lat-tol PCT] [--pdf FILE] BASE RUN\n"
    "\n"
    "One self-contained HTML page (inline SVG figures, no script, no external request,\n"
    "a Content-Security-Policy that forbids any) for a results directory:\n"
    "  a sweep or a nightly run (gdr-sweep, ci/nightly): what was measured on what,\n"
    "    the doctor's verdict (DIR/doctor/*.json or --doctor), the runs, and per test\n"
    "    the GDR on/off curves (bandwidth or latency, speed-up, % of the path's limit\n"
    "    when the documents have it, CPU) each with a table of its numbers;\n"
    "  a soak (--soak documents): its summary, a timeline of every interval with its\n"
    "    outages and dips marked (from its --json-lines file, looked for in DIR first),\n"
    "    and its findings with their times;\n"
    "  a gdr-cluster run (DIR/plan.json): heatmaps, the suspects and their retest\n"
    "    verdicts, the nodes' software and rails, the per-rail panel, and the aggregate\n"
    "    node-pair bandwidth over all rails (gdr-cluster-core aggregate);\n"
    "  --compare BASE RUN: each series of RUN against BASE (directories or files):\n"
    "    both curves on one figure, the change per size and gdr-compare's verdict.\n"
    "Rows that were not clean, simulated or failed are marked in figures and tables.\n"
    "\n"
    "  -o, --output FILE  the page (default DIR/report.html; --compare: RUN/compare.html,\n"
    "                     or compare.html when RUN is a file); written atomically\n"
    "  --title TEXT       the page title (default: from the run)\n"
    "  --doctor FILE      a gdr_doctor --json document to show (repeatable)\n"
    "  --bw-tol PCT, --lat-tol PCT   comparison tolerances (default 5 and 10)\n"
    "  --pdf FILE         also print the page to FILE with headless Chromium\n"
    "                     (chromium, chromium-browser or google-chrome on PATH, or\n"
    "                     GDR_CHROMIUM); exit 3 when there is none; one that has not\n"
    "                     finished within GDR_REPORT_PDF_TIMEOUT s (default 120) is\n"
    "                     ended, exit 1\n"
    "  -h, --help         this text;  --version  print the version\n"
    "exit: 0 ok, 1 the PDF not printed (Chromium failed or timed out), 2 bad usage or\n"
    "input (nothing written), 3 no Chromium for --pdf\n";

static int fail(void)
{
    fprintf(stderr, "gdr-report: %s\n", gdr_error_message());
    int c = gdr_error_code();
    return c == GDR_EXIT_ENV ? GDR_EXIT_ENV : c == GDR_EXIT_RUN ? GDR_EXIT_RUN : GDR_EXIT_USAGE;
}

static bool executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* Chromium: GDR_CHROMIUM, else the usual names on PATH. */
static int find_chromium(char *out, size_t len)
{
    const char *env = getenv("GDR_CHROMIUM");
    if (env && env[0]) {
        if (!executable(env))
            return gdr_fail(GDR_EXIT_ENV, "GDR_CHROMIUM=%s is not an executable", env);
        snprintf(out, len, "%s", env);
        return 0;
    }
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome",
                                        "google-chrome-stable"};
    const char *path = getenv("PATH");
    for (size_t i = 0; path && i < sizeof(names) / sizeof(names[0]); i++) {
        for (const char *p = path; *p;) {
            const char *e = strchr(p, ':');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", names[i]);
            if (executable(out))
                return 0;
            p += n + (e ? 1 : 0);
        }
    }
    return gdr_fail(GDR_EXIT_ENV, "--pdf needs headless Chromium and none was found "
                                  "(apt-get install chromium, or set GDR_CHROMIUM)");
}

/* How long Chromium may take to print: GDR_REPORT_PDF_TIMEOUT seconds,
 * default 120 (headless printing is known to hang now and then). */
static double pdf_timeout_s(void)
{
    const char *e = getenv("GDR_REPORT_PDF_TIMEOUT");
    double v = e ? strtod(e, NULL) : 0;
    return v > 0 && v <= 86400 ? v : 120;
}

/* Wait for pid until limit_s; past it, kill its process group and reap
 * it. True when it had to be killed. */
static bool wait_deadline(pid_t pid, int *status, double limit_s)
{
    struct timespec tick = {0, 50 * 1000 * 1000};
    for (double waited = 0;; waited += 0.05) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return false;
        if (waited >= limit_s)
            break;
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return true;
}

/* Chromium headless, printing url to the file in arg out, its profile in
 * arg dataarg; its output to /dev/null and a process group of its own (a
 * deadline ends its renderers too). An errno, ETIMEDOUT when it hung. */
static int run_chromium(const char *chromium, char *dataarg, char *out, char *url, int *status)
{
    char *argv[] = {(char *)chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-pdf-header-footer",
                    "--disable-extensions",
                    "--no-first-run",
                    dataarg,
                    out,
                    url,
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int err = posix_spawn(&pid, chromium, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    *status = 0;
    return !err && wait_deadline(pid, status, pdf_timeout_s()) ? ETIMEDOUT : err;
}

/* The profile is ours alone: remove it with its contents. */
static void remove_tree(const char *dir)
{
    pid_t rp;
    char *rmargv[] = {"rm", "-rf", (char *)dir, NULL};
    if (posix_spawnp(&rp, "rm", NULL, NULL, rmargv, environ) == 0)
        waitpid(rp, NULL, 0);
}

/* from to path through atomic_file: the one way a file is put in place. */
static int copy_atomic(const char *from, const char *path)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return gdr_fail(GDR_EXIT_RUN, "%s: %s", from, strerror(errno));
    struct gdr_atomic_file a;
    if (gdr_atomic_open(&a, path, GDR_EXIT_USAGE)) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && fwrite(buf, 1, n, a.f) == n)
        ;
    int bad = ferror(in);
    fclose(in);
    if (!bad)
        return gdr_atomic_commit(&a);
    gdr_atomic_abort(&a);
    return gdr_fail(GDR_EXIT_RUN, "%s: read error", from);
}

/* chromium --headless --print-to-pdf into a private directory, then that
 * file to pdf atomically. */
static int print_pdf(const char *chromium, const char *html, const char *pdf)
{
    char *abs = realpath(html, NULL);
    if (!abs)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", html, strerror(errno));
    char url[4200], out[4300], printed[200], profile[] = "/tmp/gdr-report-chromium.XXXXXX",
                                             dataarg[200];
    snprintf(url, sizeof(url), "file://%s", abs);
    free(abs);
    if (!mkdtemp(profile))
        return gdr_fail(GDR_EXIT_RUN, "a temporary profile directory: %s", strerror(errno));
    snprintf(dataarg, sizeof(dataarg), "--user-data-dir=%s", profile);
    snprintf(printed, sizeof(printed), "%s/page.pdf", profile);
    snprintf(out, sizeof(out), "--print-to-pdf=%s", printed);
    int status, err = run_chromium(chromium, dataarg, out, url, &status), rc;
    struct stat st;
    if (err == ETIMEDOUT)
        rc = gdr_fail(GDR_EXIT_RUN, "%s did not print %s to PDF within %g s (ended it)", chromium,
                      html, pdf_timeout_s());
    else if (err || !WIFEXITED(status) || WEXITSTATUS(status) || stat(printed, &st) ||
             st.st_size == 0)
        rc = gdr_fail(GDR_EXIT_RUN, "%s could not print %s to PDF", chromium, html);
    else
        rc = copy_atomic(printed, pdf);
    remove_tree(profile);
    return rc;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

enum { O_TITLE = 256, O_DOCTOR, O_PDF, O_COMPARE, O_BWTOL, O_LATTOL, O_VERSION };

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"title", required_argument, NULL, O_TITLE},
                                         {"doctor", required_argument, NULL, O_DOCTOR},
                                         {"pdf", required_argument, NULL, O_PDF},
                                         {"compare", no_argument, NULL, O_COMPARE},
                                         {"bw-tol", required_argument, NULL, O_BWTOL},
                                         {"lat-tol", required_argument, NULL, O_LATTOL},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, O_VERSION},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *pdf = NULL;
    bool compare = false;
    char *doctors[32];
    struct gdr_report_opts o = {.bw_tol = 0.05,
                                .lat_tol = 0.10,
                                .doctor = doctors,
                                .generator = "made by gdr-report (gdrbench " PACKAGE_VERSION ")"};
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case O_TITLE: o.title = optarg; break;
        case O_DOCTOR:
            if (o.ndoctor == sizeof(doctors) / sizeof(doctors[0]))
                return gdr_usage_error(PROG, "too many --doctor files (at most %zu)",
                                       sizeof(doctors) / sizeof(doctors[0]));
            doctors[o.ndoctor++] = optarg;
            break;
        case O_PDF: pdf = optarg; break;
        case O_COMPARE: compare = true; break;
        case O_BWTOL:
        case O_LATTOL:
            if (gdr_compare_tolerance(PROG, ch == O_LATTOL, optarg,
                                      ch == O_LATTOL ? &o.lat_tol : &o.bw_tol))
                return GDR_EXIT_USAGE;
            break;
        case 'h': fputs(usage_text, stdout); return GDR_EXIT_OK;
        case O_VERSION: gdr_print_version("gdr-report"); return GDR_EXIT_OK;
        default:
            return gdr_usage_error(PROG, "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    int nargs = argc - optind;
    if (compare ? nargs != 2 : nargs != 1)
        return gdr_usage_error(PROG, "%s",
                               compare ? "--compare wants BASE and RUN" : "want one DIR");
    char chromium[4096];
    if (pdf && find_chromium(chromium, sizeof(chromium)))
        return fail();
    const char *dir = argv[optind];
    char def[4200];
    if (!out) {
        const char *where = compare ? argv[optind + 1] : dir;
        if (is_dir(where))
            snprintf(def, sizeof(def), "%s/%s", where, compare ? "compare.html" : "report.html");
        else
            snprintf(def, sizeof(def), "%s", compare ? "compare.html" : "report.html");
        out = def;
    }
    struct gdr_buf b = {0};
    struct gdr_figset figs;
    if (gdr_figset_open(&figs))
        return fail();
    o.figs = &figs;
    int rc;
    char plan[4200];
    snprintf(plan, sizeof(plan), "%s/plan.json", dir);
    if (compare)
        rc = gdr_report_compare(&b, dir, argv[optind + 1], &o);
    else if (is_dir(dir) && access(plan, F_OK) == 0)
        rc = gdr_report_cluster(&b, dir, &o);
    else
        rc = gdr_report_sweep(&b, dir, &o);
    if (rc == 0 && b.oom)
        rc = gdr_fail(GDR_EXIT_RUN, "%s: out of memory while building the page", out);
    if (rc == 0)
        rc = gdr_figset_draw(&figs);
    if (rc == 0)
        rc = gdr_figset_write(&figs, gdr_buf_text(&b), gdr_buf_len(&b), out, GDR_EXIT_USAGE);
    gdr_figset_close(&figs);
    gdr_buf_free(&b);
    if (rc)
        return fail();
    if (pdf && print_pdf(chromium, out, pdf))
        return fail();
    printf("gdr-report: %s%s%s\n", out, pdf ? ", " : "", pdf ? pdf : "");
    return GDR_EXIT_OK;
}
