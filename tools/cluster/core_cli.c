/* core_cli.c - what every gdr-cluster-core subcommand shares: option
 * parsing, usage and input errors, writing JSON (core_cli.h). */
#include "config.h"

#include "core_cli.h"
#include "doc.h"
#include "error.h"
#include "json.h"
#include "sizes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gdr_core_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gdr-cluster-core: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (gdr-cluster-core --help)\n");
    va_end(ap);
    return GDR_EXIT_USAGE;
}

int gdr_core_report_error(void)
{
    fprintf(stderr, "gdr-cluster-core: %s\n", gdr_error_message());
    /* Everything read here is input: only a missing environment differs. */
    return gdr_error_code() == GDR_EXIT_ENV ? GDR_EXIT_ENV : GDR_EXIT_USAGE;
}

const char *gdr_core_missing_value;

bool gdr_core_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return false;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] != '\0')
        return false;
    if (*i + 1 >= argc) {
        *val = NULL;
        gdr_core_missing_value = name;
        return true;
    }
    *val = argv[++*i];
    return true;
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

int gdr_core_parse_common(int argc, char **argv, const char *cmd, bool want_file,
                          struct gdr_core_args *a)
{
    const char *v;
    double pct;
    gdr_detect_opts_default(&a->det);
    a->port = 18515;
    a->worst = 20;
    for (int i = 0; i < argc; i++) {
        int rc = 0;
        if (gdr_core_opt(argc, argv, &i, "--plan", &v))
            a->plan = v;
        else if (gdr_core_opt(argc, argv, &i, "--dir", &v))
            a->dir = v;
        else if (gdr_core_opt(argc, argv, &i, "-o", &v))
            a->out = v;
        else if (gdr_core_opt(argc, argv, &i, "--heat", &v))
            a->heat = v;
        else if (gdr_core_opt(argc, argv, &i, "--suspects", &v))
            a->suspects = v;
        else if (gdr_core_opt(argc, argv, &i, "--manifest", &v))
            a->manifest = v;
        else if (gdr_core_opt(argc, argv, &i, "--status", &v))
            a->status = v;
        else if (gdr_core_opt(argc, argv, &i, "--figures", &v))
            a->figures = v;
        else if (gdr_core_opt(argc, argv, &i, "--title", &v))
            a->title = v;
        else if (gdr_core_opt(argc, argv, &i, "--agents", &v))
            a->agents = v;
        else if (gdr_core_opt(argc, argv, &i, "--unreachable", &v))
            a->unreachable = v;
        else if (gdr_core_opt(argc, argv, &i, "--cells", &v))
            a->cells = v;
        else if (gdr_core_opt(argc, argv, &i, "--save-cells", &v))
            a->save_cells = v;
        else if (gdr_core_opt(argc, argv, &i, "--worst", &v))
            rc = gdr_core_parse_count("--worst", v, 1ul << 30, &a->worst);
        else if (gdr_core_opt(argc, argv, &i, "--min-link-pct", &v)) {
            rc = gdr_core_parse_real("--min-link-pct", v, 100, &pct);
            a->det.min_link_frac = pct / 100;
        } else if (gdr_core_opt(argc, argv, &i, "--min-pct-of-limit", &v)) {
            rc = gdr_core_parse_real("--min-pct-of-limit", v, 100, &a->det.min_pct_of_limit);
        } else if (gdr_core_opt(argc, argv, &i, "--tolerance-pct", &v)) {
            rc = gdr_core_parse_real("--tolerance-pct", v, 100, &pct);
            a->det.tolerance = pct / 100;
        } else if (gdr_core_opt(argc, argv, &i, "--size", &v)) {
            if (!v || gdr_parse_bytes(v, &a->det.size))
                return gdr_core_usage_error("%s: --size wants a size in bytes, not '%s'", cmd,
                                            v ? v : "");
        } else if (gdr_core_opt(argc, argv, &i, "--port", &v))
            rc = gdr_core_parse_count("--port", v, 65000, &a->port);
        else if (want_file && !a->file && argv[i][0] != '-')
            a->file = argv[i];
        else
            return gdr_core_usage_error("%s: unknown argument '%s'", cmd, argv[i]);
        if (rc)
            return rc;
        if (gdr_core_missing_value)
            return gdr_core_usage_error("%s: %s needs a value", cmd, gdr_core_missing_value);
    }
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
