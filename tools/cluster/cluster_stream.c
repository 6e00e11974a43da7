/* cluster_stream.c - one array element at a time (cluster_stream.h). */
#include "config.h"

#include "cluster_stream.h"
#include "error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scan {
    FILE *f;
    const char *path;
    long off;
    char *buf; /* the value being captured */
    size_t len, cap;
};

static int next(struct scan *s)
{
    int c = getc_unlocked(s->f);
    s->off += c != EOF;
    return c;
}

static int skip_ws(struct scan *s)
{
    int c;
    do
        c = next(s);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    return c;
}

static int bad(struct scan *s, const char *what)
{
    return gdr_fail(GDR_EXIT_USAGE, "%s: not JSON at byte %ld: %s", s->path, s->off, what);
}

static int put(struct scan *s, int c, bool keep)
{
    if (!keep)
        return 0;
    if (s->len + 2 > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        char *g = realloc(s->buf, cap);
        if (!g)
            return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", s->path);
        s->buf = g;
        s->cap = cap;
    }
    s->buf[s->len++] = (char)c;
    return 0;
}

/* The value starting with c (its first character), into s->buf when
 * keep; *after gets the character that ended a scalar (else -2). */
static int value(struct scan *s, int c, bool keep, int *after)
{
    s->len = 0;
    *after = -2;
    if (c == '{' || c == '[' || c == '"') {
        int depth = 0;
        bool str = false, esc = false;
        for (;; c = next(s)) {
            if (c == EOF)
                return bad(s, "unexpected end");
            if (put(s, c, keep))
                return -1;
            if (str) {
                if (esc)
                    esc = false;
                else if (c == '\\')
                    esc = true;
                else if (c == '"') {
                    str = false;
                    if (depth == 0)
                        break;
                }
            } else if (c == '"')
                str = true;
            else if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                break;
        }
    } else {
        for (; c != EOF && c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\t' &&
               c != '\r';
             c = next(s))
            if (put(s, c, keep))
                return -1;
        *after = c;
    }
    if (keep)
        s->buf[s->len] = '\0';
    return 0;
}

/* The character after a value: skip blanks (or take the scalar's end). */
static int after_value(struct scan *s, int after)
{
    if (after == -2 || after == ' ' || after == '\n' || after == '\t' || after == '\r')
        return skip_ws(s);
    return after;
}

static int array(struct scan *s, int (*fn)(const cJSON *, void *), void *ctx)
{
    int c = skip_ws(s), after;
    if (c == ']')
        return 0;
    for (;;) {
        if (value(s, c, fn != NULL, &after))
            return -1;
        if (fn) {
            cJSON *el = cJSON_ParseWithLength(s->buf, s->len);
            if (!el)
                return bad(s, "an array element");
            int rc = fn(el, ctx);
            cJSON_Delete(el);
            if (rc)
                return rc;
        }
        c = after_value(s, after);
        if (c == ']')
            return 0;
        if (c != ',')
            return bad(s, "',' or ']' expected");
        c = skip_ws(s);
    }
}

int gdr_json_stream(const char *path, const char *key, int (*fn)(const cJSON *el, void *ctx),
                    void *ctx, cJSON **rest)
{
    struct scan s = {.path = path};
    *rest = NULL;
    s.f = fopen(path, "r");
    if (!s.f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    cJSON *obj = cJSON_CreateObject();
    int rc = 0, c = skip_ws(&s), after;
    if (c != '{')
        rc = bad(&s, "an object expected");
    c = rc ? EOF : skip_ws(&s);
    while (!rc && c != '}') {
        if (c != '"' || value(&s, c, true, &after)) {
            rc = rc ? rc : bad(&s, "a member name expected");
            break;
        }
        cJSON *name = cJSON_ParseWithLength(s.buf, s.len);
        if (!cJSON_IsString(name) || skip_ws(&s) != ':') {
            cJSON_Delete(name);
            rc = bad(&s, "a member name and ':' expected");
            break;
        }
        c = skip_ws(&s);
        if (!strcmp(name->valuestring, key) && c == '[') {
            rc = array(&s, fn, ctx);
            after = -2;
        } else if (!(rc = value(&s, c, true, &after))) {
            cJSON *v = cJSON_ParseWithLength(s.buf, s.len);
            if (!v)
                rc = bad(&s, "a member's value");
            else
                cJSON_AddItemToObject(obj, name->valuestring, v);
        }
        cJSON_Delete(name);
        if (rc)
            break;
        c = after_value(&s, after);
        if (c == ',')
            c = skip_ws(&s);
        else if (c != '}')
            rc = bad(&s, "',' or '}' expected");
    }
    fclose(s.f);
    free(s.buf);
    if (rc) {
        cJSON_Delete(obj);
        return rc;
    }
    *rest = obj;
    return 0;
}
