#include "config.h"

#include "parse.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gdr_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int gdr_parse_real(const char *text, double min, double max, double *out)
{
    if (!text || !*text || isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || !(v >= min && v <= max))
        return -1;
    *out = v;
    return 0;
}

int gdr_parse_seconds(const char *text, double *out)
{
    if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || v <= 0 || v > GDR_MAX_SECONDS)
        return -1;
    *out = v;
    return 0;
}

int gdr_parse_duration(const char *text, double *out)
{
    if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || !isfinite(v) || !(v >= 0))
        return -1;
    if (*end == ':') {
        unsigned h = 0, mi = 0, se = 0;
        int n = 0;
        if (sscanf(text, "%u:%2u%n:%2u%n", &h, &mi, &n, &se, &n) < 2 || text[n] || mi > 59 ||
            se > 59)
            return -1;
        *out = h * 3600.0 + mi * 60.0 + se;
        return 0;
    }
    double unit = !*end               ? 1
                  : !strcmp(end, "s") ? 1
                  : !strcmp(end, "m") ? 60
                  : !strcmp(end, "h") ? 3600
                  : !strcmp(end, "d") ? 86400
                                      : -1;
    if (unit < 0)
        return -1;
    *out = v * unit;
    return 0;
}

/* One CPU number at *p, below CPU_SETSIZE; advances *p. */
static int cpu_number(const char **p, unsigned long *cpu)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    char *end;
    *cpu = strtoul(*p, &end, 10);
    if (errno || *cpu >= CPU_SETSIZE)
        return -1;
    *p = end;
    return 0;
}

int gdr_parse_cpulist(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!text)
        return -1;
    const char *p = text;
    if (!*p || (p[0] == '\n' && !p[1]))
        return 0;
    for (;;) {
        unsigned long lo, hi;
        if (cpu_number(&p, &lo))
            return -1;
        hi = lo;
        if (*p == '-') {
            p++;
            if (cpu_number(&p, &hi) || hi < lo)
                return -1;
        }
        for (unsigned long c = lo; c <= hi; c++)
            CPU_SET(c, set);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\n')
            p++;
        return *p ? -1 : 0;
    }
}

void gdr_format_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        int n = hi == c ? snprintf(buf + used, len - used, "%s%d", used ? "," : "", c)
                        : snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, hi);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* truncated after the last whole entry */
            return;
        }
        used += (size_t)n;
        c = hi;
    }
}

int gdr_getopt(const char *prog, const char *cmd, int argc, char **argv, const char *shorts,
               const struct option *opts, int *rc)
{
    opterr = 0; /* the message is ours */
    int c = getopt_long(argc, argv, shorts, opts, NULL);
    *rc = 0;
    if (c == ':')
        *rc = gdr_usage_error(prog, "%s: %s needs a value", cmd, argv[optind - 1]);
    else if (c == '?')
        *rc = gdr_usage_error(prog, "%s: unknown argument '%s'", cmd, argv[optind - 1]);
    return *rc ? -1 : c;
}
