/* gdr-json - the one JSON reader of the results scripts (no jq, no Python).
 *
 *   gdr-json check FILE...            validate result documents
 *   gdr-json get FILE PATH            print one value (results[2].latency_s.median)
 *   gdr-json table FILE               whitespace table of one document, for gnuplot
 *   gdr-json series [-o DIR] PATH...  one table per series, and an index
 *   gdr-json plot -o DIR [--title T] PATH...  gdr-plot's figures (plot.h)
 *   gdr-json compare [options] BASELINE... -- RUN...
 *   gdr-json manifest init|hosts|add-run|finish MANIFEST ...   a sweep's manifest.json
 *   gdr-json troubleshoot [options] DIR   gdr-troubleshoot's report and verdict
 *
 * Exit codes: 0 ok, 1 regression or failed run, 2 bad input, 3 environment. */
#include "config.h"

#include "collect.h"
#include "compare.h"
#include "doc.h"
#include "error.h"
#include "json.h"
#include "manifest.h"
#include "parse.h"
#include "plot.h"
#include "text.h"
#include "troubleshoot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "gdr-json" /* in usage errors */

static const char usage_text[] =
    "usage: gdr-json COMMAND ARGS\n"
    "  check [-q] FILE...        check result documents (schema gdrbench.result/1);\n"
    "                            prints one line per bad file (and, without -q, one\n"
    "                            per good one); exit 2 if any is bad\n"
    "  get FILE PATH...          print the value at PATH (e.g. ends.client.host,\n"
    "                            results[0].latency_s.median); objects as compact JSON;\n"
    "                            with two or more PATHs a line each, empty if absent\n"
    "  table FILE                rows of one document as a whitespace table (SI units)\n"
    "  brief FILE                the document's result in one line: bandwidth at the\n"
    "                            largest size and its % of the path's limit, or the\n"
    "                            smallest size's median latency; sizes not clean\n"
    "  series [-o DIR] PATH...   group documents (files or directories) into series\n"
    "                            (test, placements, registrations), write DIR/<n>.dat\n"
    "                            per series and print a tab-separated index\n"
    "  plot -o DIR [--title TEXT] PATH...\n"
    "                            the series, index.tsv, figures.tsv, plots.gp and\n"
    "                            the figures it draws (gdr-plot)\n"
    "  compare [--bw-tol PCT] [--lat-tol PCT] [--by-limit] [--subset] [--markdown FILE]\n"
    "          BASELINE... -- RUN...\n"
    "                            compare a run with a baseline (files or directories)\n"
    "  manifest init MANIFEST [--run-id ID] [--git-version V] [--mode MODE] [--resume]\n"
    "           [-- COMMAND LINE...]\n"
    "                            create a sweep manifest (--resume keeps its runs)\n"
    "  manifest hosts MANIFEST SERVER CLIENT SERVER_ADDR\n"
    "                            record the two nodes\n"
    "  manifest add-run MANIFEST --index N --status ok|failed --tool T --placement P\n"
    "           --gdr on|off|n/a [--client-exit N] [--server-exit N] [--reason TEXT]\n"
    "           [--client-error TEXT] [--server-error TEXT] [--duration S] [--port N]\n"
    "           [--simulated true|false] [--resumed]\n"
    "                            record one run (replaces its earlier entry; --resumed\n"
    "                            keeps an earlier ok entry, marked resumed)\n"
    "  manifest finish MANIFEST [--missing REASON] [--] TOOL PLACEMENT GDR...\n"
    "                            runs in plan order, counts; planned runs without an\n"
    "                            entry are failed with REASON (left out without it)\n"
    "  troubleshoot [--local | --server HOST --client HOST] [--sizes TEXT] DIR\n"
    "                            gdr-troubleshoot's analysis of DIR (doctor/, sweep/,\n"
    "                            sweep.rc): writes DIR/report.md and DIR/verdict.txt,\n"
    "                            prints the verdict; exit 0 GDR in effect, 1 not,\n"
    "                            3 not and the doctor found the environment missing\n"
    "exit: 0 ok, 1 regression or failed run, 2 bad input (or a file that cannot be\n"
    "written), 3 troubleshoot: GDR not in effect and the environment missing\n";

static int report_error(int code)
{
    fprintf(stderr, "gdr-json: %s\n", gdr_error_message());
    return code;
}

/* ---- check ---- */

static int cmd_check(int argc, char **argv)
{
    bool quiet = argc > 0 && !strcmp(argv[0], "-q");
    if (quiet) {
        argc--;
        argv++;
    }
    if (argc < 1)
        return gdr_usage_error(PROG, "check: %s", "no file given");
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        struct gdr_doc d;
        gdr_error_clear();
        if (gdr_doc_load(argv[i], &d)) {
            fprintf(stderr, "gdr-json: %s\n", gdr_error_message());
            bad++;
            continue;
        }
        if (!quiet)
            printf("%s: ok (%s %s, %s, %zu sizes, %s)\n", argv[i], d.test, d.role, d.status,
                   d.nrows, d.pair);
        gdr_doc_free(&d);
    }
    return bad ? GDR_EXIT_USAGE : GDR_EXIT_OK;
}

/* ---- get ---- */

static const cJSON *walk(const cJSON *node, const char *path, const char *file, bool *absent)
{
    const char *p = path;
    *absent = false;
    while (*p) {
        if (*p == '[') {
            char *end;
            errno = 0;
            long idx = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || errno || idx < 0) {
                gdr_fail(GDR_EXIT_USAGE, "%s: bad index in path '%s'", file, path);
                return NULL;
            }
            if (!cJSON_IsArray(node) || idx >= cJSON_GetArraySize(node)) {
                *absent = true;
                gdr_fail(GDR_EXIT_USAGE, "%s: '%.*s' has no element %ld", file, (int)(p - path),
                         path, idx);
                return NULL;
            }
            node = cJSON_GetArrayItem(node, (int)idx);
            p = end + 1;
        } else {
            if (*p == '.')
                p++;
            size_t n = strcspn(p, ".[");
            char key[256];
            if (n == 0 || n >= sizeof(key)) {
                gdr_fail(GDR_EXIT_USAGE, "%s: bad path '%s'", file, path);
                return NULL;
            }
            memcpy(key, p, n);
            key[n] = '\0';
            const cJSON *next =
                cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, key) : NULL;
            if (!next) {
                *absent = true;
                gdr_fail(GDR_EXIT_USAGE, "%s: no field '%.*s'", file, (int)(p - path + n), path);
                return NULL;
            }
            node = next;
            p += n;
        }
    }
    return node;
}

/* One value: strings as they are, numbers, objects as compact JSON. With
 * one_line, a newline inside a string becomes a space, so that each of
 * several values stays one line. */
static void print_value(const cJSON *v, bool one_line)
{
    if (cJSON_IsNumber(v)) {
        printf("%.17g\n", v->valuedouble);
        return;
    }
    char *s = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
    const char *text = cJSON_IsString(v) ? v->valuestring : s ? s : "";
    for (const char *c = text; *c; c++)
        putchar(one_line && *c == '\n' ? ' ' : *c);
    putchar('\n');
    free(s);
}

/* get FILE PATH: the value, or an error naming the path. get FILE PATH...
 * (two or more): a line per path, empty where a path is absent (a malformed
 * path is still an error), so that a script reads a document's fields with
 * one process. */
static int cmd_get(int argc, char **argv)
{
    if (argc < 2)
        return gdr_usage_error(PROG, "get: %s", "needs FILE and PATH");
    cJSON *root = gdr_json_read_file(argv[0], GDR_DOC_MAX_BYTES);
    if (!root)
        return report_error(GDR_EXIT_USAGE);
    int rc = GDR_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        bool absent;
        const cJSON *v = walk(root, argv[i], argv[0], &absent);
        if (v) {
            print_value(v, argc > 2);
        } else if (argc == 2 || !absent) {
            rc = report_error(GDR_EXIT_USAGE);
            break;
        } else {
            putchar('\n');
        }
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- table and series ---- */

static void print_table(const struct gdr_doc *d)
{
    gdr_plot_rows(stdout, d->latency, d->rows, d->nrows);
}

static void print_brief(const struct gdr_doc *d)
{
    char line[256];
    gdr_fmt_brief(d->rows, d->nrows, d->latency, line, sizeof(line));
    printf("%s\n", line);
}

/* table and brief: one document loaded, checked and printed by show. */
static int cmd_one_doc(const char *cmd, void (*show)(const struct gdr_doc *), int argc, char **argv)
{
    if (argc != 1)
        return gdr_usage_error(PROG, "%s: %s", cmd, "needs one FILE");
    struct gdr_doc d;
    if (gdr_doc_load(argv[0], &d))
        return report_error(GDR_EXIT_USAGE);
    show(&d);
    gdr_doc_free(&d);
    return GDR_EXIT_OK;
}

/* series and plot: -o DIR (series: default .; plot: required), plot's
 * --title TEXT, then the results. */
static int cmd_series(int argc, char **argv, bool plot)
{
    const char *cmd = plot ? "plot" : "series", *dir = plot ? NULL : ".", *title = "gdrbench";
    while (argc >= 2 && (!strcmp(argv[0], "-o") || (plot && !strcmp(argv[0], "--title")))) {
        *(argv[0][1] == 'o' ? &dir : &title) = argv[1];
        argc -= 2;
        argv += 2;
    }
    if (!dir)
        return gdr_usage_error(PROG, "%s: %s", cmd, "needs -o DIR");
    if (argc < 1)
        return gdr_usage_error(PROG, "%s: %s", cmd, "no results given");
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return gdr_usage_error(PROG, "%s: %s is not a directory", cmd, dir);
    struct gdr_set set;
    bool failed;
    if (gdr_set_load(&set, argv, (size_t)argc, GDR_INCOMPLETE_SKIP, &failed))
        return report_error(GDR_EXIT_USAGE);
    int rc = GDR_EXIT_OK;
    if (set.nseries == 0) {
        rc = gdr_usage_error(PROG, "%s: %s", cmd, "no complete result documents");
    } else if (plot) {
        char src[2048] = "";
        for (int i = 0; i < argc; i++)
            snprintf(src + strlen(src), sizeof(src) - strlen(src), "%s%s", i ? " " : "", argv[i]);
        if (gdr_plot(&set, dir, title, src))
            rc = report_error(GDR_EXIT_USAGE);
    } else if (gdr_plot_data(&set, dir, stdout)) {
        rc = report_error(GDR_EXIT_USAGE);
    }
    gdr_set_free(&set);
    return rc;
}

/* ---- compare ---- */

static int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"by-limit", no_argument, NULL, 'l'},       {"subset", no_argument, NULL, 's'},
        {"bw-tol", required_argument, NULL, 'b'},   {"lat-tol", required_argument, NULL, 't'},
        {"markdown", required_argument, NULL, 'm'}, {NULL, 0, NULL, 0},
    };
    struct gdr_compare_opts o = {.bw_tol = 0.05, .lat_tol = 0.10, .markdown = NULL};
    int c, rc;
    /* '+': the options stop at the first baseline, so its "--" stays. */
    while ((c = gdr_getopt(PROG, "compare", argc, argv, "+:", opts, &rc)) != -1) {
        if (c == 'l')
            o.by_limit = true;
        else if (c == 's')
            o.subset = true;
        else if (c == 'm')
            o.markdown = optarg;
        else if ((c == 'b' || c == 't') &&
                 gdr_compare_tolerance(PROG, c == 't', optarg, c == 't' ? &o.lat_tol : &o.bw_tol))
            return GDR_EXIT_USAGE;
    }
    if (rc)
        return rc;
    int i = optind;
    int sep = -1;
    for (int k = i; k < argc; k++)
        if (!strcmp(argv[k], "--") && sep < 0)
            sep = k;
    if (sep < 0 || sep == i || sep == argc - 1)
        return gdr_usage_error(PROG, "compare: %s", "needs BASELINE... -- RUN...");
    struct gdr_set base, run;
    bool failed;
    if (gdr_set_load(&base, argv + i, (size_t)(sep - i), GDR_INCOMPLETE_FAIL, &failed)) {
        fprintf(stderr, "gdr-json: baseline: %s\n", gdr_error_message());
        gdr_set_free(&base);
        return GDR_EXIT_USAGE;
    }
    if (gdr_set_load(&run, argv + sep + 1, (size_t)(argc - sep - 1), GDR_INCOMPLETE_FAIL,
                     &failed)) {
        fprintf(stderr, "gdr-json: run: %s\n", gdr_error_message());
        gdr_set_free(&base);
        gdr_set_free(&run);
        return failed ? GDR_EXIT_RUN : GDR_EXIT_USAGE;
    }
    rc = gdr_compare(&base, &run, &o);
    if (rc == 2)
        fprintf(stderr, "gdr-json: compare: %s\n", gdr_error_message());
    gdr_set_free(&base);
    gdr_set_free(&run);
    return rc;
}

/* ---- manifest ---- */

/* A count or exit status: "" is null (-1), else digits up to INT_MAX. */
static int count_arg(const char *opt, const char *val, long *out)
{
    if (!*val) {
        *out = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (val[0] < '0' || val[0] > '9' || *end || errno || v > INT_MAX)
        return gdr_usage_error(PROG, "manifest: %s wants a number, not '%s'", opt, val);
    *out = v;
    return 0;
}

static int bool_arg(const char *opt, const char *val, bool *out)
{
    if (strcmp(val, "true") && strcmp(val, "false"))
        return gdr_usage_error(PROG, "manifest: %s wants true or false, not '%s'", opt, val);
    *out = !strcmp(val, "true");
    return 0;
}

static int manifest_add_run(const char *path, int argc, char **argv)
{
    struct gdr_manifest_run r = {
        .client_exit = -1, .server_exit = -1, .duration_s = 0, .port = -1, .index = -1};
    /* Where each option's value goes: text as is, a count, a boolean. */
    struct {
        const char *opt;
        const char **text;
        long *num;
        bool *flag;
    } dest[] = {
        {"--status", &r.status, NULL, NULL},
        {"--tool", &r.tool, NULL, NULL},
        {"--placement", &r.placement, NULL, NULL},
        {"--gdr", &r.gdr, NULL, NULL},
        {"--reason", &r.reason, NULL, NULL},
        {"--client-error", &r.client_error, NULL, NULL},
        {"--server-error", &r.server_error, NULL, NULL},
        {"--index", NULL, &r.index, NULL},
        {"--client-exit", NULL, &r.client_exit, NULL},
        {"--server-exit", NULL, &r.server_exit, NULL},
        {"--duration", NULL, &r.duration_s, NULL},
        {"--port", NULL, &r.port, NULL},
        {"--simulated", NULL, NULL, &r.simulated},
    };
    enum { N = sizeof(dest) / sizeof(dest[0]), RESUMED = 256 + N };
    struct option opts[N + 2];
    for (int k = 0; k < N; k++)
        opts[k] = (struct option){dest[k].opt + 2, required_argument, NULL, 256 + k};
    opts[N] = (struct option){"resumed", no_argument, NULL, RESUMED};
    opts[N + 1] = (struct option){NULL, 0, NULL, 0};
    int c, rc;
    /* '-': an argument that is not an option comes back (1), and is refused. */
    while ((c = gdr_getopt(PROG, "manifest add-run", argc, argv, "-:", opts, &rc)) != -1) {
        if (c == 1)
            return gdr_usage_error(PROG, "manifest add-run: unknown argument '%s'", optarg);
        if (c == RESUMED) {
            r.resumed = true;
            continue;
        }
        int k = c - 256;
        if (dest[k].text)
            *dest[k].text = optarg;
        else if (dest[k].num ? count_arg(dest[k].opt, optarg, dest[k].num)
                             : bool_arg(dest[k].opt, optarg, dest[k].flag))
            return GDR_EXIT_USAGE;
    }
    if (rc || optind < argc) /* after "--": nothing is taken */
        return rc ? rc
                  : gdr_usage_error(PROG, "manifest add-run: unknown argument '%s'", argv[optind]);
    if (!r.status || !r.tool || !r.placement || !r.gdr || r.index < 0)
        return gdr_usage_error(PROG, "manifest add-run: %s",
                               "needs --index, --status, --tool, --placement and --gdr");
    return gdr_manifest_add_run(path, &r) ? report_error(GDR_EXIT_USAGE) : GDR_EXIT_OK;
}

static int manifest_init(const char *path, int argc, char **argv)
{
    static const struct option opts[] = {
        {"run-id", required_argument, NULL, 'i'},
        {"git-version", required_argument, NULL, 'g'},
        {"mode", required_argument, NULL, 'm'},
        {"resume", no_argument, NULL, 'r'},
        {NULL, 0, NULL, 0},
    };
    struct gdr_manifest_header h = {0};
    int c, rc;
    /* '-': an argument before "--" comes back (1), and is refused; after
     * it, the rest is the command line. */
    while ((c = gdr_getopt(PROG, "manifest init", argc, argv, "-:", opts, &rc)) != -1) {
        switch (c) {
        case 'i': h.run_id = optarg; break;
        case 'g': h.git_version = optarg; break;
        case 'm': h.mode = optarg; break;
        case 'r': h.resumed = true; break;
        default: return gdr_usage_error(PROG, "manifest init: unknown argument '%s'", optarg);
        }
    }
    if (rc)
        return rc;
    h.command_line = argv + optind;
    h.ncommand_line = (size_t)(argc - optind);
    return gdr_manifest_init(path, &h) ? report_error(GDR_EXIT_USAGE) : GDR_EXIT_OK;
}

static int manifest_finish(const char *path, int argc, char **argv)
{
    static const struct option opts[] = {{"missing", required_argument, NULL, 'm'},
                                         {NULL, 0, NULL, 0}};
    const char *missing = NULL;
    int rc;
    /* '+': the options stop at the plan's first word (or at "--"). */
    while (gdr_getopt(PROG, "manifest finish", argc, argv, "+:", opts, &rc) != -1)
        missing = optarg; /* the one option */
    if (rc)
        return rc;
    argc -= optind;
    argv += optind;
    if (argc == 0 || argc % 3)
        return gdr_usage_error(PROG, "manifest finish: %s",
                               "the plan is TOOL PLACEMENT GDR triples");
    size_t n = (size_t)argc / 3;
    struct gdr_manifest_plan_item *plan = calloc(n, sizeof(*plan));
    if (!plan)
        return gdr_usage_error(PROG, "manifest finish: %s", "out of memory");
    for (size_t k = 0; k < n; k++)
        plan[k] = (struct gdr_manifest_plan_item){argv[3 * k], argv[3 * k + 1], argv[3 * k + 2]};
    rc = gdr_manifest_finish(path, plan, n, missing) ? report_error(GDR_EXIT_USAGE) : GDR_EXIT_OK;
    free(plan);
    return rc;
}

static int cmd_manifest(int argc, char **argv)
{
    if (argc < 2)
        return gdr_usage_error(PROG, "manifest: %s",
                               "needs init|hosts|add-run|finish and MANIFEST");
    const char *sub = argv[0], *path = argv[1];
    /* From here argv[0] is MANIFEST: getopt reads the options from argv[1]. */
    argc -= 1;
    argv += 1;
    if (!strcmp(sub, "init"))
        return manifest_init(path, argc, argv);
    if (!strcmp(sub, "add-run"))
        return manifest_add_run(path, argc, argv);
    if (!strcmp(sub, "finish"))
        return manifest_finish(path, argc, argv);
    if (!strcmp(sub, "hosts")) {
        if (argc != 4)
            return gdr_usage_error(PROG, "manifest hosts: %s", "needs SERVER CLIENT SERVER_ADDR");
        return gdr_manifest_hosts(path, argv[1], argv[2], argv[3]) ? report_error(GDR_EXIT_USAGE)
                                                                   : GDR_EXIT_OK;
    }
    return gdr_usage_error(PROG, "manifest: unknown subcommand '%s'", sub);
}

/* ---- troubleshoot ---- */

static int cmd_troubleshoot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"server", required_argument, NULL, 's'},
        {"client", required_argument, NULL, 'c'},
        {"sizes", required_argument, NULL, 'z'},
        {"local", no_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    struct gdr_ts_opts o = {0};
    int c, rc;
    /* '-': DIR comes back (1) where it stands among the options. */
    while ((c = gdr_getopt(PROG, "troubleshoot", argc, argv, "-:", opts, &rc)) != -1) {
        switch (c) {
        case 's': o.server = optarg; break;
        case 'c': o.client = optarg; break;
        case 'z': o.sizes = optarg; break;
        case 'l': o.local = true; break;
        default:
            if (o.dir)
                return gdr_usage_error(PROG, "troubleshoot: unknown argument '%s'", optarg);
            o.dir = optarg;
        }
    }
    if (rc || optind < argc) /* after "--": only DIR, once */
        return rc ? rc : gdr_usage_error(PROG, "troubleshoot: unknown argument '%s'", argv[optind]);
    if (!o.dir)
        return gdr_usage_error(PROG, "troubleshoot: %s",
                               "needs the directory gdr-troubleshoot collected");
    if (o.local == (o.server != NULL))
        return gdr_usage_error(PROG, "troubleshoot: %s", "say --local or --server HOST");
    int code = gdr_troubleshoot(&o);
    return code < 0 ? report_error(GDR_EXIT_USAGE) : code;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return gdr_usage_error(PROG, "%s", "no command given");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return GDR_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        gdr_print_version("gdr-json");
        return GDR_EXIT_OK;
    }
    argc -= 2;
    argv += 2;
    /* The commands with options get the command as argv[0]: getopt reads
     * from argv[1]. */
    if (!strcmp(cmd, "check"))
        return cmd_check(argc, argv);
    if (!strcmp(cmd, "get"))
        return cmd_get(argc, argv);
    if (!strcmp(cmd, "table"))
        return cmd_one_doc("table", print_table, argc, argv);
    if (!strcmp(cmd, "brief"))
        return cmd_one_doc("brief", print_brief, argc, argv);
    if (!strcmp(cmd, "series") || !strcmp(cmd, "plot"))
        return cmd_series(argc, argv, !strcmp(cmd, "plot"));
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc + 1, argv - 1);
    if (!strcmp(cmd, "manifest"))
        return cmd_manifest(argc, argv);
    if (!strcmp(cmd, "troubleshoot"))
        return cmd_troubleshoot(argc + 1, argv - 1);
    return gdr_usage_error(PROG, "unknown command '%s'", cmd);
}
