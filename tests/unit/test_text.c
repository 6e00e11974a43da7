/* test_text.c - gdr-json's text helpers: UTF-8 repair of strings from the
 * shell, and the units of the troubleshoot report. */
#include "config.h"

#include "unit.h"

#include "text.h"

#include <stdlib.h>

#define FFFD "\xEF\xBF\xBD"

static void check_clean(const char *in, const char *want)
{
    char *got = gdr_utf8_clean(in);
    assert_non_null(got);
    if (strcmp(got, want))
        fail_msg("'%s' -> '%s', expected '%s'", in, got, want);
    free(got);
}

static void test_utf8_valid_kept(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "",
        "plain ASCII \"quoted\" \\ \t\n\x01\x7f",
        "caf\xC3\xA9",      /* U+00E9 */
        "\xE2\x82\xAC",     /* U+20AC, three bytes */
        "\xED\x9F\xBF",     /* U+D7FF, just below the surrogates */
        "\xEE\x80\x80",     /* U+E000, just above them */
        "\xF0\x9F\x98\x80", /* U+1F600, four bytes */
        "\xF4\x8F\xBF\xBF", /* U+10FFFF, the last code point */
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        check_clean(ok[i], ok[i]);
}

static void test_utf8_invalid_replaced(void **state)
{
    (void)state;
    check_clean("a\xFF"
                "b",
                "a" FFFD "b");                            /* never valid */
    check_clean("\x80", FFFD);                            /* stray continuation */
    check_clean("\xC0\x80", FFFD FFFD);                   /* overlong NUL */
    check_clean("\xC1\xBF", FFFD FFFD);                   /* overlong ASCII */
    check_clean("\xE0\x9F\xBF", FFFD FFFD FFFD);          /* overlong below U+0800 */
    check_clean("\xED\xA0\x80", FFFD FFFD FFFD);          /* surrogate U+D800 */
    check_clean("\xF0\x8F\xBF\xBF", FFFD FFFD FFFD FFFD); /* overlong below U+10000 */
    check_clean("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* above U+10FFFF */
    check_clean("\xF5\x80\x80\x80", FFFD FFFD FFFD FFFD); /* lead byte past F4 */
    check_clean("end\xE2\x82", "end" FFFD FFFD);          /* truncated at the end */
    check_clean("\xC3"
                "A",
                FFFD "A"); /* continuation missing */
}

static void test_fmt_ratio(void **state)
{
    (void)state;
    char buf[64];
    gdr_fmt_ratio(3, 2, buf, sizeof(buf));
    assert_string_equal(buf, "1.50");
    gdr_fmt_ratio(0.996, 1, buf, sizeof(buf));
    assert_string_equal(buf, "1.00");
    gdr_fmt_ratio(1, 0, buf, sizeof(buf));
    assert_string_equal(buf, "n/a");
    gdr_fmt_ratio(1, -1, buf, sizeof(buf));
    assert_string_equal(buf, "n/a");
}

/* The one-line result of a document: the largest size's bandwidth with
 * its % of limit (or "limit unknown"), the smallest size's median latency,
 * and how many sizes were not clean. */
static void test_fmt_brief(void **state)
{
    (void)state;
    char buf[128];
    struct gdr_row bw[3] = {
        {.size = 65536, .bw_avg = 12.34e9, .pct_of_limit = 62.51, .clean = 1},
        {.size = 1024, .bw_avg = 42.7e6, .pct_of_limit = NAN, .clean = 0},
        {.size = 4096, .bw_avg = 1e9, .pct_of_limit = 50, .clean = -1},
    };
    gdr_fmt_brief(bw, 3, false, buf, sizeof(buf));
    assert_string_equal(buf, "64 KiB: 12.3 GB/s, 62.5 % of limit; 1 of 3 sizes not clean");
    bw[0].pct_of_limit = NAN;
    bw[1].clean = 1;
    gdr_fmt_brief(bw, 3, false, buf, sizeof(buf));
    assert_string_equal(buf, "64 KiB: 12.3 GB/s, limit unknown");
    gdr_fmt_brief(bw + 1, 1, false, buf, sizeof(buf));
    assert_string_equal(buf, "1 KiB: 42.7 MB/s, limit unknown");
    struct gdr_row lat[2] = {{.size = 8, .clean = 1}, {.size = 2, .clean = 0}};
    lat[0].lat[LAT_MEDIAN] = 9e-6;
    lat[1].lat[LAT_MEDIAN] = 3.14e-6;
    gdr_fmt_brief(lat, 2, true, buf, sizeof(buf));
    assert_string_equal(buf, "2 B: 3.14 \xc2\xb5s median; 1 of 2 sizes not clean");
    gdr_fmt_brief(lat, 0, true, buf, sizeof(buf));
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_utf8_valid_kept),
        gdr_unit_test(test_utf8_invalid_replaced),
        gdr_unit_test(test_fmt_ratio),
        gdr_unit_test(test_fmt_brief),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
