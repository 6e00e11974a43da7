#include "config.h"

#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t gdr_interrupted;

/* Per thread: gdr-cluster-core reads documents on several threads, each
 * failure its own. */
static _Thread_local char message[512];
static _Thread_local enum gdr_exit recorded = GDR_EXIT_OK;
static _Thread_local struct gdr_error_class recorded_class;

static struct {
    char side[8], phase[8];
    uint64_t size;
    int swept; /* 0 before the sweep, 1 in it, 2 after it */
} where = {.size = GDR_ERROR_UNKNOWN};

void gdr_error_class_init(struct gdr_error_class *c, const char *kind)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->kind, sizeof(c->kind), "%s", kind ? kind : "");
    c->size = c->iteration = GDR_ERROR_UNKNOWN;
}

static int record(const struct gdr_error_class *c, enum gdr_exit code, const char *fmt, va_list ap)
{
    if (recorded != GDR_EXIT_OK)
        return -1;
    vsnprintf(message, sizeof(message), fmt, ap);
    /* One line, no terminal controls, whatever a peer put in its fields. */
    for (char *p = message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    recorded = code == GDR_EXIT_OK ? GDR_EXIT_RUN : code;
    if (c)
        recorded_class = *c;
    else
        gdr_error_class_init(&recorded_class, NULL);
    struct gdr_error_class *r = &recorded_class;
    if (!r->kind[0])
        snprintf(r->kind, sizeof(r->kind), "%s", where.swept ? GDR_KIND_OTHER : GDR_KIND_SETUP);
    if (!r->side[0])
        memcpy(r->side, where.side, sizeof(r->side));
    if (!r->phase[0])
        memcpy(r->phase, where.phase, sizeof(r->phase));
    if (r->size == GDR_ERROR_UNKNOWN)
        r->size = where.size;
    return -1;
}

void gdr_print_version(const char *prog)
{
    printf("%s (gdrbench) %s\n", prog, PACKAGE_VERSION);
}

int gdr_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (%s --help)\n", prog);
    va_end(ap);
    return GDR_EXIT_USAGE;
}

int gdr_fail(enum gdr_exit code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(NULL, code, fmt, ap);
    va_end(ap);
    return -1;
}

int gdr_fail_kind(const char *kind, enum gdr_exit code, const char *fmt, ...)
{
    struct gdr_error_class c;
    gdr_error_class_init(&c, kind);
    va_list ap;
    va_start(ap, fmt);
    record(&c, code, fmt, ap);
    va_end(ap);
    return -1;
}

int gdr_fail_class(const struct gdr_error_class *c, enum gdr_exit code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(c, code, fmt, ap);
    va_end(ap);
    return -1;
}

void gdr_error_side(const char *side)
{
    snprintf(where.side, sizeof(where.side), "%s", side ? side : "");
}

void gdr_error_at(const char *phase, uint64_t size)
{
    snprintf(where.phase, sizeof(where.phase), "%s", phase ? phase : "");
    where.size = phase ? size : GDR_ERROR_UNKNOWN;
    where.swept = phase ? 1 : where.swept ? 2 : 0;
}

void gdr_error_where(char *buf, size_t len, uint64_t iteration)
{
    buf[0] = '\0';
    if (where.size == GDR_ERROR_UNKNOWN)
        return;
    int n = snprintf(buf, len, " at size %llu", (unsigned long long)where.size);
    if (iteration != GDR_ERROR_UNKNOWN && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", iteration %llu", (unsigned long long)iteration);
    if (!strcmp(where.phase, "warmup") && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " of the warm-up");
}

const char *gdr_error_phase(void)
{
    return where.phase;
}

const char *gdr_error_message(void)
{
    return recorded == GDR_EXIT_OK ? "" : message;
}

enum gdr_exit gdr_error_code(void)
{
    return recorded;
}

const struct gdr_error_class *gdr_error_class(void)
{
    return &recorded_class;
}

void gdr_error_clear(void)
{
    recorded = GDR_EXIT_OK;
    message[0] = '\0';
    memset(&recorded_class, 0, sizeof(recorded_class));
    where.phase[0] = '\0';
    where.size = GDR_ERROR_UNKNOWN;
    where.swept = 0;
}
