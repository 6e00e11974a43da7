#include "config.h"

#include "json.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int gdr_json_write_atomic(const cJSON *doc, const char *path)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory rendering JSON", path);
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp) {
        free(text);
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", path);
    }
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    int rc = -1;
    if (fd < 0) {
        gdr_fail(GDR_EXIT_RUN, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        goto out;
    }
    fchmod(fd, 0644);
    size_t len = strlen(text);
    text[len] = '\n'; /* cJSON_Print's buffer ends in NUL: reuse it for the newline */
    if (write_all(fd, text, len + 1) || fsync(fd)) {
        gdr_fail(GDR_EXIT_RUN, "%s: write failed: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (rename(tmp, path)) {
        gdr_fail(GDR_EXIT_RUN, "%s: rename from %s failed: %s", path, tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    free(tmp);
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
