/* core_cli.c - what every gdr-cluster-core subcommand shares: option
 * parsing, usage and input errors, writing JSON (core_cli.h). */
#include "config.h"

#include "core_cli.h"
#include "doc.h"
#include "error.h"
#include "json.h"
#include "parse.h"
#include "sizes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gdr_core_report_error(void)
{
    fprintf(stderr, "gdr-cluster-core: %s\n", gdr_error_message());
    /* Everything read here is input: only a missing environment differs. */
    return gdr_error_code() == GDR_EXIT_ENV ? GDR_EXIT_ENV : GDR_EXIT_USAGE;
}

int gdr_core_getopt(int argc, char **argv, const char *letters, const struct option *opts,
                    const char **pos, size_t npos, int *rc)
{
    /* '-': arguments that are not options come back in order (as 1); ':':
     * a missing value is told apart from an unknown option. */
    char shorts[16];
    snprintf(shorts, sizeof(shorts), "-:%s", letters);
    for (;;) {
        int c = gdr_getopt("gdr-cluster-core", argv[0], argc, argv, shorts, opts, rc);
        if (*rc || (c != 1 && !(c == -1 && optind < argc))) /* an error, an option, the end */
            return c;
        /* Not an option: one before the end, or the rest after "--". */
        const char *arg = c == 1 ? optarg : argv[optind++];
        size_t k = 0;
        while (k < npos && pos[k])
            k++;
        if (k == npos) {
            *rc = gdr_core_usage_error("%s: unknown argument '%s'", argv[0], arg);
            return -1;
        }
        pos[k] = arg;
    }
}

int gdr_core_parse_count(const char *name, const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v > max || s[0] == '-')
        return gdr_core_usage_error("%s wants a whole number up to %lu, not '%s'", name, max,
                                    s ? s : "");
    *out = v;
    return 0;
}

int gdr_core_parse_real(const char *name, const char *s, double max, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v >= 0) || v > max)
        return gdr_core_usage_error("%s wants a number from 0 to %g, not '%s'", name, max,
                                    s ? s : "");
    *out = v;
    return 0;
}

int gdr_core_write_json(const cJSON *j, const char *path)
{
    if (!path || !strcmp(path, "-")) {
        char *s = cJSON_Print(j);
        if (!s)
            return gdr_core_usage_error("out of memory");
        printf("%s\n", s);
        free(s);
        return 0;
    }
    if (gdr_json_write_atomic(j, path))
        return gdr_core_report_error();
    return 0;
}

int gdr_core_parse_common(int argc, char **argv, bool want_file, struct gdr_core_args *a)
{
    enum {
        O_PLAN = 256,
        O_DIR,
        O_HEAT,
        O_SUSPECTS,
        O_MANIFEST,
        O_STATUS,
        O_FIGURES,
        O_TITLE,
        O_AGENTS,
        O_UNREACHABLE,
        O_CELLS,
        O_SAVE_CELLS,
        O_WORST,
        O_MIN_LINK,
        O_MIN_LIMIT,
        O_TOLERANCE,
        O_SIZE,
        O_PORT,
        O_DRAW,
    };
    static const struct option opts[] = {
        {"plan", required_argument, NULL, O_PLAN},
        {"dir", required_argument, NULL, O_DIR},
        {"heat", required_argument, NULL, O_HEAT},
        {"suspects", required_argument, NULL, O_SUSPECTS},
        {"manifest", required_argument, NULL, O_MANIFEST},
        {"status", required_argument, NULL, O_STATUS},
        {"figures", required_argument, NULL, O_FIGURES},
        {"title", required_argument, NULL, O_TITLE},
        {"agents", required_argument, NULL, O_AGENTS},
        {"unreachable", required_argument, NULL, O_UNREACHABLE},
        {"cells", required_argument, NULL, O_CELLS},
        {"save-cells", required_argument, NULL, O_SAVE_CELLS},
        {"worst", required_argument, NULL, O_WORST},
        {"min-link-pct", required_argument, NULL, O_MIN_LINK},
        {"min-pct-of-limit", required_argument, NULL, O_MIN_LIMIT},
        {"tolerance-pct", required_argument, NULL, O_TOLERANCE},
        {"size", required_argument, NULL, O_SIZE},
        {"port", required_argument, NULL, O_PORT},
        {"draw", no_argument, NULL, O_DRAW},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = argv[0];
    double pct;
    int c, rc = 0;
    gdr_detect_opts_default(&a->det);
    a->port = 18515;
    a->worst = 20;
    while (!rc &&
           (c = gdr_core_getopt(argc, argv, "o:", opts, &a->file, want_file ? 1 : 0, &rc)) != -1) {
        switch (c) {
        case O_PLAN: a->plan = optarg; break;
        case O_DIR: a->dir = optarg; break;
        case 'o': a->out = optarg; break;
        case O_HEAT: a->heat = optarg; break;
        case O_DRAW: a->draw = true; break;
        case O_SUSPECTS: a->suspects = optarg; break;
        case O_MANIFEST: a->manifest = optarg; break;
        case O_STATUS: a->status = optarg; break;
        case O_FIGURES: a->figures = optarg; break;
        case O_TITLE: a->title = optarg; break;
        case O_AGENTS: a->agents = optarg; break;
        case O_UNREACHABLE: a->unreachable = optarg; break;
        case O_CELLS: a->cells = optarg; break;
        case O_SAVE_CELLS: a->save_cells = optarg; break;
        case O_WORST: rc = gdr_core_parse_count("--worst", optarg, 1ul << 30, &a->worst); break;
        case O_MIN_LINK:
            rc = gdr_core_parse_real("--min-link-pct", optarg, 100, &pct);
            a->det.min_link_frac = pct / 100;
            break;
        case O_MIN_LIMIT:
            rc = gdr_core_parse_real("--min-pct-of-limit", optarg, 100, &a->det.min_pct_of_limit);
            break;
        case O_TOLERANCE:
            rc = gdr_core_parse_real("--tolerance-pct", optarg, 100, &pct);
            a->det.tolerance = pct / 100;
            break;
        case O_SIZE:
            if (gdr_parse_bytes(optarg, &a->det.size))
                rc =
                    gdr_core_usage_error("%s: --size wants a size in bytes, not '%s'", cmd, optarg);
            break;
        case O_PORT: rc = gdr_core_parse_count("--port", optarg, 65000, &a->port); break;
        }
    }
    if (rc)
        return rc;
    if (!a->plan)
        return gdr_core_usage_error("%s: --plan PLAN is required", cmd);
    if (want_file && !a->file)
        return gdr_core_usage_error("%s: needs the suspects file", cmd);
    return 0;
}

cJSON *gdr_core_load_suspects(const char *path)
{
    cJSON *j = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!j)
        return NULL;
    char v[64];
    if (gdr_json_str(j, "suspects_version", v, sizeof(v), path)) {
        gdr_cluster_input_error();
        cJSON_Delete(j);
        return NULL;
    }
    if (strcmp(v, GDR_SUSPECTS_VERSION)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: suspects_version '%s', expected '%s'", path, v,
                 GDR_SUSPECTS_VERSION);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}
