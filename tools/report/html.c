/* html.c - text buffer, escaping, page skeleton, atomic write (html.h). */
#include "config.h"

#include "html.h"
#include "sha256.h"
#include "atomic_file.h"
#include "error.h"
#include "escape.h"
#include "figure.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Escape up to max characters (code points) of s; returns true when cut. */
static bool esc(struct gdr_buf *b, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0;
    while (*p) {
        /* A run of plain printable ASCII goes in at once. */
        size_t run = 0;
        while (p[run] >= 0x20 && p[run] < 0x7f && p[run] != '&' && p[run] != '<' && p[run] != '>' &&
               p[run] != '"' && p[run] != '\'' && chars + run < max)
            run++;
        if (run) {
            gdr_buf_put(b, (const char *)p, run);
            p += run;
            chars += run;
            continue;
        }
        if (!*p)
            break;
        if (chars++ == max)
            return true;
        uint32_t cp;
        size_t n = gdr_utf8_next((const char *)p, &cp);
        switch (cp) {
        case '&': gdr_buf_puts(b, "&amp;"); break;
        case '<': gdr_buf_puts(b, "&lt;"); break;
        case '>': gdr_buf_puts(b, "&gt;"); break;
        case '"': gdr_buf_puts(b, "&quot;"); break;
        case '\'': gdr_buf_puts(b, "&#39;"); break;
        default:
            if (cp < 0x20 || cp == 0x7f || !gdr_xml_char(cp))
                gdr_buf_puts(b, " ");
            else if (cp == GDR_UTF8_REPLACEMENT) /* an invalid byte is 1 long */
                gdr_buf_puts(b, "\xef\xbf\xbd");
            else
                gdr_buf_put(b, (const char *)p, n);
        }
        p += n;
    }
    return false;
}

void gdr_buf_esc(struct gdr_buf *b, const char *s)
{
    esc(b, s ? s : "", SIZE_MAX);
}

void gdr_buf_esc_max(struct gdr_buf *b, const char *s, size_t max)
{
    if (esc(b, s ? s : "", max))
        gdr_buf_puts(b, "\xe2\x80\xa6"); /* ... */
}

/* The conversions of gdr_buf_escf, one at a time: each spec is cut from a
 * format the compiler checked (the format attribute of gdr_buf_escf). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void gdr_buf_escf(struct gdr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            gdr_buf_puts(b, p);
            break;
        }
        gdr_buf_put(b, p, (size_t)(pct - p));
        if (pct[1] == '%') {
            gdr_buf_puts(b, "%");
            p = pct + 2;
            continue;
        }
        /* One conversion: flags, width, precision, length, then the type. */
        const char *q = pct + 1;
        q += strspn(q, "-+ #0");
        q += strspn(q, "0123456789");
        if (*q == '.') {
            q++;
            q += strspn(q, "0123456789");
        }
        char len[3] = "";
        size_t nl = strspn(q, "hlzj");
        if (nl > 2)
            nl = 2;
        memcpy(len, q, nl);
        q += nl;
        char spec[32];
        size_t sl = (size_t)(q - pct) + 1;
        if (sl >= sizeof(spec))
            sl = sizeof(spec) - 1;
        memcpy(spec, pct, sl);
        spec[sl] = '\0';
        char conv = *q;
        if (conv == 's') {
            gdr_buf_esc(b, va_arg(ap, const char *));
        } else if (conv == 'd' || conv == 'i') {
            if (!strcmp(len, "l"))
                gdr_buf_printf(b, spec, va_arg(ap, long));
            else if (!strcmp(len, "ll"))
                gdr_buf_printf(b, spec, va_arg(ap, long long));
            else
                gdr_buf_printf(b, spec, va_arg(ap, int));
        } else if (conv == 'u' || conv == 'x') {
            if (!strcmp(len, "z"))
                gdr_buf_printf(b, spec, va_arg(ap, size_t));
            else if (!strcmp(len, "l"))
                gdr_buf_printf(b, spec, va_arg(ap, unsigned long));
            else if (!strcmp(len, "ll"))
                gdr_buf_printf(b, spec, va_arg(ap, unsigned long long));
            else
                gdr_buf_printf(b, spec, va_arg(ap, unsigned));
        } else if (conv == 'f' || conv == 'g' || conv == 'e') {
            gdr_buf_printf(b, spec, va_arg(ap, double));
        } else {
            break; /* not a conversion this file uses */
        }
        p = q + (conv ? 1 : 0);
    }
    va_end(ap);
}
#pragma GCC diagnostic pop

/* One style sheet for every page. No inline style attribute anywhere: the
 * CSP allows this sheet by its hash and nothing else. Okabe-Ito colours. */
static const char css[] =
    ":root{--fg:#1a1a1a;--mute:#555;--line:#d0d0d0;--bad:#a0301e;--warn:#8a5a00;--ok:#1d6b47}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:15px/1.45 system-ui,'DejaVu Sans',sans-serif;color:var(--fg);"
    "background:#fff}"
    "main{max-width:1200px;margin:0 auto;padding:12px 16px 32px}"
    "h1{font-size:1.45em;margin:.4em 0 .2em;overflow-wrap:anywhere}"
    "h2{font-size:1.2em;margin:1.4em 0 .4em;border-bottom:2px solid var(--line);padding-bottom:.15em}"
    "h3{font-size:1.05em;margin:1.1em 0 .3em}"
    "p,li,code{overflow-wrap:anywhere}"
    ".sub{color:var(--mute);margin:.1em 0 .6em}"
    ".facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;margin:.4em 0}"
    ".facts dt{font-weight:600}.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}"
    ".warn{color:var(--bad);font-weight:600}"
    ".badge{display:inline-block;padding:0 .45em;border-radius:.6em;font-size:.85em;"
    "font-weight:600;border:1px solid currentColor;white-space:nowrap}"
    ".v-regression,.v-failed,.v-fail,.v-confirmed,.v-unreachable,.v-REGRESSION{color:var(--bad)}"
    ".v-noise,.v-warn,.v-unresolved,.v-missing,.v-suspect{color:var(--warn)}"
    ".v-ok,.v-pass,.v-cleared,.v-better,.v-improvement{color:var(--ok)}"
    ".v-new,.v-unknown,.v-simulated{color:var(--mute)}"
    ".tbl{overflow-x:auto;max-width:100%;margin:.4em 0 1em}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.93em}"
    "th,td{border:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top;"
    "overflow-wrap:break-word}"
    "td.n{text-align:right;white-space:nowrap}th.n{text-align:right}"
    "tbody th{white-space:nowrap;font-weight:600}thead th{max-width:14em}"
    "thead th{background:#f2f2f2}"
    "tr.flag td{background:#fff3e6}"
    ".fig{overflow-x:auto;max-width:100%;margin:.3em 0}"
    ".fig svg{display:block;width:100%;max-width:940px;min-width:520px;height:auto}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,540px),1fr));gap:0 20px}"
    "figure{margin:.6em 0 1em}figcaption{color:var(--mute);font-size:.9em}"
    ".legend{list-style:none;padding:0;margin:.2em 0;display:flex;flex-wrap:wrap;gap:.2em 1.2em;"
    "font-size:.9em}"
    ".legend li{display:flex;align-items:center;gap:.35em}"
    ".legend svg{width:34px;height:14px;flex:none}"
    "a{color:#0b5394}"
    "footer{color:var(--mute);font-size:.85em;margin-top:2em;overflow-wrap:anywhere}"
    "@media (max-width:600px){body{font-size:14px}main{padding:8px}"
    ".fig svg{min-width:640px}"
    ".facts{grid-template-columns:1fr}.facts dt{margin-top:.3em}}"
    "@page{size:A4;margin:12mm}"
    "@media print{main{max-width:none;padding:0}section{break-before:page}"
    "section:first-of-type{break-before:auto}figure,tr,.facts{break-inside:avoid}"
    ".fig,.tbl{overflow:visible}.fig svg{min-width:0}h2,h3{break-after:avoid}"
    "table{font-size:.8em;max-width:100%}th,td{overflow-wrap:anywhere}th{white-space:nowrap}"
    "td{min-width:3.6em}}";

const char *gdr_html_css(void)
{
    return css;
}

void gdr_csp_hash(const char *s, char *out, size_t len)
{
    unsigned char d[32];
    char b64[48];
    gdr_sha256(s, strlen(s), d);
    gdr_base64(d, sizeof(d), b64);
    snprintf(out, len, "sha256-%s", b64);
}

void gdr_html_begin(struct gdr_buf *b, const char *title)
{
    char hash[64];
    gdr_csp_hash(css, hash, sizeof(hash));
    gdr_buf_printf(b,
                   "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "style-src '%s'; script-src 'none'; img-src 'none'; connect-src 'none'; "
                   "font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta name=\"referrer\" content=\"no-referrer\">\n<title>",
                   hash);
    gdr_buf_esc(b, title);
    gdr_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", css);
}

void gdr_html_end(struct gdr_buf *b, const char *generator)
{
    gdr_buf_puts(b, "<footer>");
    gdr_buf_esc(b, generator);
    gdr_buf_puts(b, "</footer>\n</main>\n</body>\n</html>\n");
}

void gdr_section_begin(struct gdr_buf *b, const char *id, const char *title)
{
    gdr_buf_escf(b, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

void gdr_section_end(struct gdr_buf *b)
{
    gdr_buf_puts(b, "</section>\n");
}

void gdr_badge(struct gdr_buf *b, const char *cls, const char *text)
{
    char c[64];
    size_t n = 0;
    /* The class is a verdict word; anything else becomes '-'. */
    for (const char *p = cls; *p && n + 1 < sizeof(c); p++)
        c[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ? *p : '-');
    c[n] = '\0';
    gdr_buf_escf(b, "<span class=\"badge v-%s\">%s</span>", c, text);
}

int gdr_buf_write_atomic(struct gdr_buf *b, const char *path)
{
    size_t len = gdr_buf_len(b);
    if (b->oom)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory while building the page", path);
    return gdr_atomic_write(path, b->s, len, GDR_EXIT_USAGE);
}

void gdr_lab_warnings(struct gdr_buf *b, bool simulated, bool soft_roce)
{
    if (simulated)
        gdr_buf_puts(b, "<p class=\"warn\">" GDR_WARN_SIMULATED "</p>\n");
    if (soft_roce)
        gdr_buf_puts(b, "<p class=\"warn\">" GDR_WARN_SOFT_ROCE "</p>\n");
}
