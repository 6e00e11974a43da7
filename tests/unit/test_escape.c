/* test_escape.c - every escaper (XML, CSV, Markdown here, HTML from
 * tools/report/html.c) fed invalid UTF-8, overlong forms, surrogates and
 * control characters: its output must be valid UTF-8 with no character XML
 * 1.0 forbids, and well formed for its format. The checks decode on their
 * own (Unicode's table of well-formed byte sequences), not with the decoder
 * the escapers share. */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "html.h"

static const char *const hostile[] = {
    "\xff",                                      /* never a UTF-8 byte */
    "\x80tail",                                  /* a stray continuation byte */
    "\xc0\xaf",                                  /* overlong '/' */
    "\xe0\x80\xaf",                              /* overlong '/', three bytes */
    "\xf0\x80\x80\xaf",                          /* overlong '/', four bytes */
    "\xed\xa0\x80",                              /* the surrogate U+D800 */
    "\xed\xbf\xbf",                              /* the surrogate U+DFFF */
    "\xf4\x90\x80\x80",                          /* above U+10FFFF */
    "\xe2\x82",                                  /* cut short at the end */
    "\xe2\x82x",                                 /* cut short by an ASCII byte */
    "\x01\x08\x0b\x0c\x1b\x7f",                  /* control characters */
    "\xef\xbf\xbe\xef\xbf\xbf",                  /* U+FFFE, U+FFFF */
    "a|b\nc,d\"e<f>&g'h\tz\r",                   /* every character some format escapes */
    "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80", /* valid: kept as is */
};
#define NHOSTILE (sizeof(hostile) / sizeof(*hostile))

/* Length of the well-formed sequence at p (Unicode 15, table 3-7), 0 when
 * it is not one; its code point in *cp. */
static size_t well_formed(const unsigned char *p, uint32_t *cp)
{
    static const struct {
        unsigned char lo0, hi0, lo1, hi1;
        size_t n;
    } rows[] = {
        {0x00, 0x7f, 0, 0, 1},       {0xc2, 0xdf, 0x80, 0xbf, 2}, {0xe0, 0xe0, 0xa0, 0xbf, 3},
        {0xe1, 0xec, 0x80, 0xbf, 3}, {0xed, 0xed, 0x80, 0x9f, 3}, {0xee, 0xef, 0x80, 0xbf, 3},
        {0xf0, 0xf0, 0x90, 0xbf, 4}, {0xf1, 0xf3, 0x80, 0xbf, 4}, {0xf4, 0xf4, 0x80, 0x8f, 4},
    };
    for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
        if (p[0] < rows[r].lo0 || p[0] > rows[r].hi0)
            continue;
        size_t n = rows[r].n;
        if (n > 1 && (p[1] < rows[r].lo1 || p[1] > rows[r].hi1))
            return 0;
        for (size_t i = 2; i < n; i++)
            if (p[i] < 0x80 || p[i] > 0xbf)
                return 0;
        *cp = n == 1 ? p[0] : p[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++)
            *cp = *cp << 6 | (p[i] & 0x3f);
        return n;
    }
    return 0;
}

/* out is valid UTF-8 and holds only characters XML 1.0 allows. */
static void assert_clean(const char *out, const char *in, const char *what)
{
    const unsigned char *p = (const unsigned char *)out;
    while (*p) {
        uint32_t cp = 0;
        size_t n = well_formed(p, &cp);
        if (!n)
            fail_msg("%s of input %zu bytes gave invalid UTF-8 at offset %zu", what, strlen(in),
                     (size_t)(p - (const unsigned char *)out));
        if (!(cp == '\t' || cp == '\n' || cp == '\r' ||
              (cp >= 0x20 && cp != 0xfffe && cp != 0xffff)))
            fail_msg("%s wrote U+%04X, which XML 1.0 forbids", what, (unsigned)cp);
        p += n;
    }
}

/* Markup escaped: no < > " ' left, and every & starts one of the entities. */
static void assert_markup(const char *out, const char *const *entities)
{
    assert_null(strpbrk(out, "<>\"'"));
    for (const char *a = strchr(out, '&'); a; a = strchr(a + 1, '&')) {
        bool known = false;
        for (size_t i = 0; entities[i]; i++)
            known |= !strncmp(a, entities[i], strlen(entities[i]));
        if (!known)
            fail_msg("a bare '&' in '%s'", out);
    }
}

static char *run_file(void (*esc)(FILE *, const char *), const char *in)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    esc(f, in);
    assert_int_equal(fclose(f), 0);
    return s;
}

static void test_xml(void **state)
{
    (void)state;
    static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", NULL};
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *out = run_file(gdr_esc_xml, hostile[i]);
        assert_clean(out, hostile[i], "gdr_esc_xml");
        assert_markup(out, ent);
        free(out);
    }
    char *out = run_file(gdr_esc_xml, "\xc0\xaf<a\x01\xed\xa0\x80\t");
    assert_string_equal(out,
                        "\xef\xbf\xbd\xef\xbf\xbd&lt;a \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\t");
    free(out);
}

/* One CSV field: bare (no comma, quote, CR, LF) or quoted with the quotes
 * inside doubled. */
static void assert_csv_field(const char *out)
{
    size_t n = strlen(out);
    if (out[0] != '"') {
        assert_null(strpbrk(out, ",\"\r\n"));
        return;
    }
    assert_true(n >= 2 && out[n - 1] == '"');
    for (size_t i = 1; i + 1 < n; i++)
        if (out[i] == '"')
            assert_true(out[++i] == '"' && i + 1 < n);
}

static void test_csv(void **state)
{
    (void)state;
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *out = run_file(gdr_esc_csv, hostile[i]);
        assert_clean(out, hostile[i], "gdr_esc_csv");
        assert_csv_field(out);
        free(out);
    }
    char *out = run_file(gdr_esc_csv, "a\"b,\xff");
    assert_string_equal(out, "\"a\"\"b,\xef\xbf\xbd\"");
    free(out);
}

static void test_md(void **state)
{
    (void)state;
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *out = run_file(gdr_esc_md_cell, hostile[i]);
        assert_clean(out, hostile[i], "gdr_esc_md_cell");
        for (const char *p = out; *p; p++)
            assert_true(*p == ' ' || (unsigned char)*p >= 0x20);
        assert_null(strchr(out, '|'));
        free(out);
    }
}

static void test_html(void **state)
{
    (void)state;
    static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", NULL};
    for (size_t i = 0; i < NHOSTILE; i++) {
        for (size_t max = 1; max <= 64; max *= 4) {
            struct gdr_buf b = {0};
            gdr_buf_esc_max(&b, hostile[i], max);
            const char *out = gdr_buf_text(&b);
            assert_clean(out, hostile[i], "gdr_buf_esc_max");
            assert_markup(out, ent);
            assert_null(strpbrk(out, "\t\r\n\x7f"));
            gdr_buf_free(&b);
        }
    }
    struct gdr_buf b = {0};
    gdr_buf_escf(&b, "<p>%s</p>", "\xe0\x80\xaf&\xf0\x9f\x98\x80");
    assert_string_equal(gdr_buf_text(&b),
                        "<p>\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd&amp;\xf0\x9f\x98\x80</p>");
    gdr_buf_free(&b);
}

/* The shared decoder: one character of each kind, and its length. */
static void test_decoder(void **state)
{
    (void)state;
    uint32_t cp;
    assert_int_equal(gdr_utf8_next("A", &cp), 1);
    assert_int_equal(cp, 'A');
    assert_int_equal(gdr_utf8_next("\xc3\xa9", &cp), 2);
    assert_int_equal(cp, 0xe9);
    assert_int_equal(gdr_utf8_next("\xf0\x9f\x98\x80", &cp), 4);
    assert_int_equal(cp, 0x1f600);
    static const char *const bad[] = {"\xc0\xaf",         "\xe0\x80\xaf", "\xed\xa0\x80",
                                      "\xf4\x90\x80\x80", "\xe2\x82",     "\x80"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        assert_int_equal(gdr_utf8_next(bad[i], &cp), 1);
        assert_int_equal(cp, GDR_UTF8_REPLACEMENT);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder), cmocka_unit_test(test_xml),  cmocka_unit_test(test_csv),
        cmocka_unit_test(test_md),      cmocka_unit_test(test_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
