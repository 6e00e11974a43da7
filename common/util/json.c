#include "config.h"

#include "json.h"
#include "atomic_file.h"
#include "error.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const cJSON *field(const cJSON *obj, const char *key, const char *what)
{
    const cJSON *item = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (!item)
        gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is missing", what, key);
    return item;
}

int gdr_json_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out, const char *what)
{
    const cJSON *item = field(obj, key, what);
    if (!item)
        return -1;
    if (cJSON_IsString(item)) {
        /* Large values travel as decimal strings (see gdr_json_add_u64). */
        const char *s = item->valuestring;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (*s < '0' || *s > '9' || *end || errno || v > max)
            return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not an integer 0..%" PRIu64, what, key,
                            max);
        *out = v;
        return 0;
    }
    double d = cJSON_IsNumber(item) ? item->valuedouble : -1;
    if (d < 0 || d != floor(d) || d > 9007199254740992.0 || d > (double)max)
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not an integer 0..%" PRIu64, what, key,
                        max);
    *out = (uint64_t)d;
    return 0;
}

int gdr_json_double(const cJSON *obj, const char *key, double *out, const char *what)
{
    const cJSON *item = field(obj, key, what);
    if (!item)
        return -1;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not a number", what, key);
    *out = item->valuedouble;
    return 0;
}

int gdr_json_bool(const cJSON *obj, const char *key, bool *out, const char *what)
{
    const cJSON *item = field(obj, key, what);
    if (!item)
        return -1;
    if (!cJSON_IsBool(item))
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not true/false", what, key);
    *out = cJSON_IsTrue(item);
    return 0;
}

int gdr_json_str(const cJSON *obj, const char *key, char *buf, size_t len, const char *what)
{
    const cJSON *item = field(obj, key, what);
    if (!item)
        return -1;
    if (!cJSON_IsString(item))
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not a string", what, key);
    size_t n = strlen(item->valuestring);
    if (n >= len)
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is longer than %zu bytes", what, key,
                        len - 1);
    memcpy(buf, item->valuestring, n + 1);
    return 0;
}

const char *gdr_jstr_or(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : dflt;
}

double gdr_jnum_or(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? cJSON_GetNumberValue(v) : dflt;
}

uint64_t gdr_jcount(const cJSON *o, const char *key)
{
    double v = gdr_jnum_or(o, key, 0);
    return v >= 0 && v < 9.2e18 ? (uint64_t)v : 0;
}

const char *gdr_jitem_str_or(const cJSON *arr, int i, const char *dflt)
{
    const char *s = cJSON_GetStringValue(cJSON_IsArray(arr) ? cJSON_GetArrayItem(arr, i) : NULL);
    return s ? s : dflt;
}

double gdr_jitem_num_or(const cJSON *arr, int i, double dflt)
{
    const cJSON *v = cJSON_IsArray(arr) ? cJSON_GetArrayItem(arr, i) : NULL;
    return cJSON_IsNumber(v) ? cJSON_GetNumberValue(v) : dflt;
}

const char *gdr_jstr(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

double gdr_jnum(const cJSON *o, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

void gdr_json_add_number_or_null(cJSON *obj, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(obj, key);
    else
        cJSON_AddNumberToObject(obj, key, v);
}

void gdr_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
    /* A double holds integers exactly up to 2^53, but cJSON prints with
     * "%1.15g" whenever that reads back within DBL_EPSILON, which drops
     * the last digits of integers from 10^15 up (2^53 prints as
     * 9.00719925474099e+15). Below 10^15, 15 digits are exact. */
    if (v < 1000000000000000ull) {
        cJSON_AddNumberToObject(obj, key, (double)v);
    } else {
        char s[24];
        snprintf(s, sizeof(s), "%" PRIu64, v);
        cJSON_AddStringToObject(obj, key, s);
    }
}

int gdr_json_write_atomic(const cJSON *doc, const char *path)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory rendering JSON", path);
    size_t len = strlen(text);
    text[len] = '\n'; /* cJSON_Print's buffer ends in NUL: reuse it for the newline */
    int rc = gdr_atomic_write(path, text, len + 1, GDR_EXIT_RUN);
    free(text);
    return rc;
}

cJSON *gdr_json_read_file(const char *path, size_t max_bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
        return NULL;
    }
    /* A regular file needs its size, not the limit (a cluster analysis
     * reads hundreds of thousands of small documents): one byte more tells
     * a file that grew past the limit. */
    struct stat st;
    size_t want = max_bytes;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < max_bytes)
        want = (size_t)st.st_size;
    char *buf = malloc(want + 2);
    size_t n = buf ? fread(buf, 1, want + 1, f) : 0;
    if (buf && n > want && want < max_bytes) { /* it grew while we looked: the slow way */
        char *big = realloc(buf, max_bytes + 1);
        if (!big) {
            free(buf);
            buf = NULL;
        } else {
            buf = big;
            n += fread(buf + n, 1, max_bytes + 1 - n, f);
        }
    }
    int read_error = ferror(f);
    fclose(f);
    cJSON *doc = NULL;
    if (!buf)
        gdr_fail(GDR_EXIT_RUN, "%s: out of memory", path);
    else if (read_error)
        gdr_fail(GDR_EXIT_USAGE, "%s: read error", path);
    else if (n > max_bytes)
        gdr_fail(GDR_EXIT_USAGE, "%s: larger than %zu bytes", path, max_bytes);
    else if (!(doc = cJSON_ParseWithLength(buf, n)))
        gdr_fail(GDR_EXIT_USAGE, "%s: not valid JSON (near byte %td)", path,
                 cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - buf : (ptrdiff_t)0);
    free(buf);
    return doc;
}

cJSON *gdr_json_error_class(const struct gdr_error_class *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", c->kind[0] ? c->kind : GDR_KIND_OTHER);
    if (c->side[0])
        cJSON_AddStringToObject(o, "side", c->side);
    if (c->phase[0])
        cJSON_AddStringToObject(o, "phase", c->phase);
    if (c->size != GDR_ERROR_UNKNOWN)
        gdr_json_add_u64(o, "size", c->size);
    if (c->iteration != GDR_ERROR_UNKNOWN)
        gdr_json_add_u64(o, "iteration", c->iteration);
    if (c->wc_status[0])
        cJSON_AddStringToObject(o, "wc_status", c->wc_status);
    if (c->event[0])
        cJSON_AddStringToObject(o, "event", c->event);
    return o;
}

static const char *const kinds[] = {
    GDR_KIND_COMPLETION,  GDR_KIND_EVENT, GDR_KIND_TIMEOUT, GDR_KIND_PEER,
    GDR_KIND_INTERRUPTED, GDR_KIND_DATA,  GDR_KIND_SETUP,   GDR_KIND_OTHER,
};

/* A string field that is one of the n `allowed`, or a verbs
 * name with `prefix` (capitals, digits, '_'); else it stays "". */
static void copy_name(const cJSON *o, const char *key, const char *const *allowed, size_t n,
                      const char *prefix, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    buf[0] = '\0';
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= len)
        return;
    const char *s = v->valuestring;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, allowed[i]))
            snprintf(buf, len, "%s", s);
    if (!prefix || strncmp(s, prefix, strlen(prefix)))
        return;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return;
    snprintf(buf, len, "%s", s);
}

/* An optional count: a whole number, or a decimal string (large values);
 * anything else leaves *out as it is. */
static void opt_u64(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9007199254740992.0 &&
        v->valuedouble == floor(v->valuedouble)) {
        *out = (uint64_t)v->valuedouble;
    } else if (cJSON_IsString(v) && v->valuestring[0] >= '0' && v->valuestring[0] <= '9') {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v->valuestring, &end, 10);
        if (!*end && !errno && x < GDR_ERROR_UNKNOWN)
            *out = x;
    }
}

int gdr_json_read_error_class(const cJSON *o, struct gdr_error_class *c)
{
    static const char *const sides[] = {"client", "server"}, *const phases[] = {"warmup", "timed"};
    gdr_error_class_init(c, NULL);
    if (!cJSON_IsObject(o))
        return -1;
    copy_name(o, "kind", kinds, sizeof(kinds) / sizeof(kinds[0]), NULL, c->kind, sizeof(c->kind));
    if (!c->kind[0])
        return -1;
    copy_name(o, "side", sides, 2, NULL, c->side, sizeof(c->side));
    copy_name(o, "phase", phases, 2, NULL, c->phase, sizeof(c->phase));
    copy_name(o, "wc_status", NULL, 0, "IBV_WC_", c->wc_status, sizeof(c->wc_status));
    copy_name(o, "event", NULL, 0, "IBV_EVENT_", c->event, sizeof(c->event));
    opt_u64(o, "size", &c->size);
    opt_u64(o, "iteration", &c->iteration);
    return 0;
}
