/* escape.c - the UTF-8 decoder and the XML, CSV and Markdown escapers
 * (escape.h). */
#include "config.h"

#include "escape.h"

#include <string.h>

size_t gdr_utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    size_t n;
    uint32_t v;
    *cp = c;
    if (c < 0x80)
        return 1;
    *cp = GDR_UTF8_REPLACEMENT;
    /* 0xc0, 0xc1 and 0xf5.. never start a valid sequence. */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07;
    else
        return 1;
    /* A NUL ends the string here like any other non-continuation byte. */
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 1;
        v = v << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10ffff ||
        (v >= 0xd800 && v <= 0xdfff))
        return 1;
    *cp = v;
    return n;
}

void gdr_utf8_put(FILE *f, uint32_t cp)
{
    if (cp < 0x80) {
        fputc((int)cp, f);
    } else if (cp < 0x800) {
        fputc((int)(0xc0 | cp >> 6), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    } else if (cp < 0x10000) {
        fputc((int)(0xe0 | cp >> 12), f);
        fputc((int)(0x80 | (cp >> 6 & 0x3f)), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    } else {
        fputc((int)(0xf0 | cp >> 18), f);
        fputc((int)(0x80 | (cp >> 12 & 0x3f)), f);
        fputc((int)(0x80 | (cp >> 6 & 0x3f)), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    }
}

bool gdr_xml_char(uint32_t cp)
{
    return cp == '\t' || cp == '\n' || cp == '\r' || (cp >= 0x20 && cp != 0xfffe && cp != 0xffff);
}

/* Each character of s, decoded, to put(f, cp): the loop every escaper
 * shares, so none of them can let an invalid sequence through. */
static void each_char(FILE *f, const char *s, void (*put)(FILE *f, uint32_t cp))
{
    while (*s) {
        uint32_t cp;
        s += gdr_utf8_next(s, &cp);
        put(f, gdr_xml_char(cp) ? cp : ' ');
    }
}

static void put_xml(FILE *f, uint32_t cp)
{
    switch (cp) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: gdr_utf8_put(f, cp);
    }
}

void gdr_esc_xml(FILE *f, const char *s)
{
    each_char(f, s, put_xml);
}

static void put_csv(FILE *f, uint32_t cp)
{
    if (cp == '"')
        fputc('"', f);
    gdr_utf8_put(f, cp);
}

void gdr_esc_csv(FILE *f, const char *s)
{
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        fputc('"', f);
    each_char(f, s, put_csv);
    if (quote)
        fputc('"', f);
}

static void put_md(FILE *f, uint32_t cp)
{
    gdr_utf8_put(f, cp == '|' ? '/' : cp < 0x20 ? ' ' : cp);
}

void gdr_esc_md_cell(FILE *f, const char *s)
{
    each_char(f, s, put_md);
}
