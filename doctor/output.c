/* output: the check registry and its text and JSON renderings. */
#include "config.h"

#include "doctor.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gdr_doctor_status_name(enum gdr_doctor_status s)
{
    switch (s) {
    case GDR_DOCTOR_PASS: return "PASS";
    case GDR_DOCTOR_WARN: return "WARN";
    case GDR_DOCTOR_FAIL: return "FAIL";
    case GDR_DOCTOR_UNKNOWN: break;
    }
    return "UNKNOWN";
}

int gdr_doctor_add(struct gdr_doctor_ctx *ctx, const char *name, const char *subject,
                   enum gdr_doctor_status st, const char *fix, const char *fmt, ...)
{
    struct gdr_doctor_check *c;
    va_list ap;

    if (ctx->n_checks == ctx->cap_checks) {
        size_t cap = ctx->cap_checks ? ctx->cap_checks * 2 : 32;
        void *p = realloc(ctx->checks, cap * sizeof(*ctx->checks));
        if (!p)
            return -ENOMEM;
        ctx->checks = p;
        ctx->cap_checks = cap;
    }
    c = &ctx->checks[ctx->n_checks++];
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->subject, sizeof(c->subject), "%s", subject);
    c->status = st;
    snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
    va_end(ap);
    return 0;
}

int gdr_doctor_read_line(const char *root, const char *rel, char *buf, size_t len)
{
    char path[PATH_MAX];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    buf[0] = '\0';
    f = fopen(path, "r");
    if (!f)
        return -errno;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static void count(const struct gdr_doctor_ctx *ctx, size_t n[4])
{
    memset(n, 0, 4 * sizeof(n[0]));
    for (size_t i = 0; i < ctx->n_checks; i++)
        n[ctx->checks[i].status]++;
}

void gdr_doctor_print_text(const struct gdr_doctor_ctx *ctx, const char *env_missing)
{
    size_t n[4];

    printf("gdr_doctor %s: sysfs %s, procfs %s%s\n", PACKAGE_VERSION, ctx->sysfs, ctx->procfs,
           ctx->live ? "" : " (captured tree)");
    printf("NCCL_NET_GDR_LEVEL: %s (%s)\n", gdr_path_class_name(ctx->level), ctx->level_source);
    printf("RDMA devices:");
    for (size_t i = 0; i < ctx->n_ibdevs; i++)
        printf(" %s", ctx->ibdevs[i]);
    printf("%s\nGPUs:", ctx->n_ibdevs ? "" : " none");
    for (size_t i = 0; i < ctx->n_gpus; i++)
        printf(" %s", ctx->gpus[i]);
    printf("%s\n\n", ctx->n_gpus ? "" : " none");

    for (size_t i = 0; i < ctx->n_checks; i++) {
        const struct gdr_doctor_check *c = &ctx->checks[i];
        printf("%-7s %-12s %s: %s\n", gdr_doctor_status_name(c->status), c->name, c->subject,
               c->msg);
        if (c->fix[0])
            printf("%-7s %-12s fix: %s\n", "", "", c->fix);
    }
    count(ctx, n);
    printf("\nsummary: %zu PASS, %zu WARN, %zu FAIL, %zu UNKNOWN\n", n[GDR_DOCTOR_PASS],
           n[GDR_DOCTOR_WARN], n[GDR_DOCTOR_FAIL], n[GDR_DOCTOR_UNKNOWN]);
    if (env_missing)
        printf("environment missing: %s\n", env_missing);
}

int gdr_doctor_print_json(struct gdr_doctor_ctx *ctx, const char *env_missing, int exit_code)
{
    cJSON *doc = ctx->facts, *arr, *sum;
    size_t n[4];
    char *s;

    arr = cJSON_AddArrayToObject(doc, "checks");
    for (size_t i = 0; arr && i < ctx->n_checks; i++) {
        const struct gdr_doctor_check *c = &ctx->checks[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddStringToObject(o, "check", c->name);
        cJSON_AddStringToObject(o, "subject", c->subject);
        cJSON_AddStringToObject(o, "status", gdr_doctor_status_name(c->status));
        cJSON_AddStringToObject(o, "message", c->msg);
        if (c->fix[0])
            cJSON_AddStringToObject(o, "fix", c->fix);
        else
            cJSON_AddNullToObject(o, "fix");
        cJSON_AddItemToArray(arr, o);
    }
    count(ctx, n);
    sum = cJSON_AddObjectToObject(doc, "summary");
    if (!arr || !sum)
        return -ENOMEM;
    cJSON_AddNumberToObject(sum, "pass", (double)n[GDR_DOCTOR_PASS]);
    cJSON_AddNumberToObject(sum, "warn", (double)n[GDR_DOCTOR_WARN]);
    cJSON_AddNumberToObject(sum, "fail", (double)n[GDR_DOCTOR_FAIL]);
    cJSON_AddNumberToObject(sum, "unknown", (double)n[GDR_DOCTOR_UNKNOWN]);
    if (env_missing)
        cJSON_AddStringToObject(doc, "environment_missing", env_missing);
    else
        cJSON_AddNullToObject(doc, "environment_missing");
    cJSON_AddNumberToObject(doc, "exit_code", exit_code);

    s = cJSON_Print(doc);
    if (!s)
        return -ENOMEM;
    puts(s);
    free(s);
    return 0;
}
