/* Unit tests: tools/report's library: SHA-256 and base64 against the
 * FIPS 180-4 / RFC 4648 vectors (the CSP hash depends on them), escaping of
 * hostile strings for HTML and SVG (markup, quotes, control characters,
 * invalid UTF-8, cutting), the escaped printf, honest y ranges (at least
 * +-10 % around a baseline; from zero; decades), the heatmap's
 * diverging colours, and the atomic write. */
#include "config.h"

#include "unit.h"

#include "html.h"
#include "sha256.h"
#include "figure.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_sha256(void **state)
{
    (void)state;
    unsigned char d[32];
    char hex[65];
    gdr_sha256("abc", 3, d);
    gdr_hex(d, 32, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    gdr_sha256("", 0, d);
    gdr_hex(d, 32, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gdr_sha256(two, strlen(two), d);
    gdr_hex(d, 32, hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* A million 'a' fed in odd pieces: the block boundaries. */
    struct gdr_sha256 c;
    gdr_sha256_init(&c);
    char chunk[997];
    memset(chunk, 'a', sizeof(chunk));
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
        gdr_sha256_update(&c, chunk, n);
        left -= n;
    }
    gdr_sha256_final(&c, d);
    gdr_hex(d, 32, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_base64(void **state)
{
    (void)state;
    char out[16];
    gdr_base64((const unsigned char *)"f", 1, out);
    assert_string_equal(out, "Zg==");
    gdr_base64((const unsigned char *)"fo", 2, out);
    assert_string_equal(out, "Zm8=");
    gdr_base64((const unsigned char *)"foobar", 6, out);
    assert_string_equal(out, "Zm9vYmFy");
    char h[64];
    gdr_csp_hash("", h, sizeof(h));
    assert_string_equal(h, "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
}

static char *esc(const char *s)
{
    struct gdr_buf b = {0};
    gdr_buf_esc(&b, s);
    char *r = strdup(gdr_buf_text(&b));
    gdr_buf_free(&b);
    return r;
}

static void test_escape(void **state)
{
    (void)state;
    char *e = esc("<script>alert(1)</script>\"onload='x' & </svg>");
    assert_string_equal(e, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;onload=&#39;x&#39; &amp; "
                           "&lt;/svg&gt;");
    free(e);
    /* Control characters become spaces; invalid UTF-8 the replacement
     * character; valid multibyte text passes. */
    e = esc("a\x01\x1b[31mb\x7f\xff\xc0\xafz \xc2\xb5s \xed\xa0\x80");
    assert_string_equal(e, "a  [31mb \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz \xc2\xb5s "
                           "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    free(e);
    struct gdr_buf b = {0};
    gdr_buf_esc_max(&b, "node-with-a-very-long-name", 9);
    assert_string_equal(gdr_buf_text(&b), "node-with\xe2\x80\xa6");
    gdr_buf_free(&b);
    gdr_buf_esc_max(&b, "short", 9);
    assert_string_equal(gdr_buf_text(&b), "short");
    gdr_buf_free(&b);
    /* Nothing in the output can open a tag or end an attribute. */
    char hostile[10240];
    for (size_t i = 0; i < sizeof(hostile) - 1; i++)
        hostile[i] = "<>\"'&x"[i % 6];
    hostile[sizeof(hostile) - 1] = '\0';
    e = esc(hostile);
    assert_null(strpbrk(e, "<>\"'"));
    free(e);
}

static void test_escf(void **state)
{
    (void)state;
    struct gdr_buf b = {0};
    gdr_buf_escf(&b, "<td class=\"x\">%s %d %zu %.2f %5.1f%% %llu %s</td>", "<b>", -3, (size_t)7,
                 1.5, 12.25, 18446744073709551615ull, "a&b");
    assert_string_equal(gdr_buf_text(&b),
                        "<td class=\"x\">&lt;b&gt; -3 7 1.50  12.2% 18446744073709551615 "
                        "a&amp;b</td>");
    gdr_buf_free(&b);
}

static void test_y_range(void **state)
{
    (void)state;
    double lo, hi;
    /* Two nights 1 % apart: the panel spans at least +-10 % of the baseline. */
    gdr_y_range(GDR_Y_AROUND, 99.5, 100.5, 100, 0.10, &lo, &hi);
    assert_true(lo <= 90 && hi >= 110);
    assert_true(hi - lo < 30);
    /* A big drop stays in view. */
    gdr_y_range(GDR_Y_AROUND, 50, 101, 100, 0.10, &lo, &hi);
    assert_true(lo <= 50 && hi >= 110);
    /* No baseline: around the middle of the data. */
    gdr_y_range(GDR_Y_AROUND, 99, 101, NAN, 0.10, &lo, &hi);
    assert_true(lo <= 90 && hi >= 110);
    /* Close to zero anyway: from zero. */
    gdr_y_range(GDR_Y_AROUND, 1, 100, 50, 0.10, &lo, &hi);
    assert_near(lo, 0, 0);
    gdr_y_range(GDR_Y_ZERO, 3, 9, NAN, 0, &lo, &hi);
    assert_near(lo, 0, 0);
    assert_true(hi >= 9);
    gdr_y_range(GDR_Y_LOG, 0.03, 40, NAN, 0, &lo, &hi);
    assert_near(lo, 0.01, 1e-12);
    assert_near(hi, 100, 1e-9);
}

static void test_write_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/gdr-test-report.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/page.html", dir);
    struct gdr_buf b = {0};
    gdr_html_begin(&b, "t <x>");
    gdr_html_end(&b, "footer");
    assert_int_equal(gdr_buf_write_atomic(&b, path), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((size_t)st.st_size, gdr_buf_len(&b));
    assert_non_null(strstr(gdr_buf_text(&b), "<title>t &lt;x&gt;</title>"));
    assert_non_null(strstr(gdr_buf_text(&b), "default-src 'none'"));
    assert_non_null(strstr(gdr_buf_text(&b), "script-src 'none'"));
    /* The style sheet's hash is the one the CSP names. */
    char hash[64], want[128];
    gdr_csp_hash(gdr_html_css(), hash, sizeof(hash));
    snprintf(want, sizeof(want), "style-src '%s'", hash);
    assert_non_null(strstr(gdr_buf_text(&b), want));
    /* An out-of-memory page is refused and leaves nothing. */
    b.oom = true;
    snprintf(path, sizeof(path), "%s/other.html", dir);
    assert_int_equal(gdr_buf_write_atomic(&b, path), -1);
    assert_int_not_equal(stat(path, &st), 0);
    b.oom = false;
    gdr_error_clear();
    /* A directory that does not exist: an error naming the path. */
    snprintf(path, sizeof(path), "%s/no/such/page.html", dir);
    assert_int_equal(gdr_buf_write_atomic(&b, path), -1);
    assert_error(GDR_EXIT_USAGE, "no/such/page.html");
    gdr_buf_free(&b);
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),  cmocka_unit_test(test_base64),
        cmocka_unit_test(test_escape),  cmocka_unit_test(test_escf),
        cmocka_unit_test(test_y_range), cmocka_unit_test(test_write_atomic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
