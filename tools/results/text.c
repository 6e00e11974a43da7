/* text.c - UTF-8 repair and report units (see text.h). */
#include "config.h"

#include "text.h"
#include "figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when s does not
 * begin one (RFC 3629: shortest form, no surrogates, at most U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong below U+0800 */
        else if (c == 0xED)
            hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong below U+10000 */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

char *gdr_utf8_clean(const char *s)
{
    size_t len = strlen(s);
    /* Each bad byte (1) becomes U+FFFD (3 bytes). */
    char *out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        size_t n = utf8_seq(p);
        if (n) {
            memcpy(out + o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
        }
    }
    out[o] = '\0';
    return out;
}

void gdr_fmt_brief(const struct gdr_row *rows, size_t n, bool latency, char *buf, size_t len)
{
    if (n == 0 || len == 0) {
        if (len)
            buf[0] = '\0';
        return;
    }
    /* Rows are in sweep order: find the largest and smallest sizes. */
    const struct gdr_row *big = &rows[0], *small = &rows[0];
    size_t dirty = 0;
    for (size_t i = 0; i < n; i++) {
        big = rows[i].size > big->size ? &rows[i] : big;
        small = rows[i].size < small->size ? &rows[i] : small;
        dirty += rows[i].clean == 0;
    }
    const struct gdr_row *r = latency ? small : big;
    char size[32], tail[64] = "";
    gdr_fmt_size(r->size, size, sizeof(size));
    if (dirty)
        snprintf(tail, sizeof(tail), "; %zu of %zu sizes not clean", dirty, n);
    char v[32];
    if (latency) {
        gdr_fmt_unit(gdr_unit_lat(r->lat[LAT_MEDIAN]), r->lat[LAT_MEDIAN], v, sizeof(v));
        snprintf(buf, len, "%s: %s median%s", size, v, tail);
        return;
    }
    char pct[48];
    if (isnan(r->pct_of_limit))
        snprintf(pct, sizeof(pct), "limit unknown");
    else
        snprintf(pct, sizeof(pct), "%.1f %% of limit", r->pct_of_limit);
    gdr_fmt_unit(gdr_unit_bw(r->bw_avg), r->bw_avg, v, sizeof(v));
    snprintf(buf, len, "%s: %s, %s%s", size, v, pct, tail);
}

void gdr_fmt_ratio(double a, double b, char *buf, size_t len)
{
    if (b > 0)
        snprintf(buf, len, "%.2f", a / b);
    else
        snprintf(buf, len, "n/a");
}
