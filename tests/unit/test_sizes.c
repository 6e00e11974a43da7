/* test_sizes.c - byte counts with suffixes, and the size lists sweeps walk. */
#include "config.h"

#include "unit.h"

#include "sizes.h"

static void test_parse_bytes_accepts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t want;
    } ok[] = {
        {"0", 0},
        {"7", 7},
        {"64K", 65536},
        {"64k", 65536},
        {"1M", 1048576},
        {"1G", 1073741824},
        {"4KiB", 4096},
        {"8kb", 8192},
        {"2MB", 2097152},
        {"3gib", 3221225472ull},
        {"18446744073709551615", UINT64_MAX},
        {"17179869183G", 17179869183ull << 30}, /* the largest G value that fits */
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint64_t v = 12345;
        if (gdr_parse_bytes(ok[i].text, &v))
            fail_msg("'%s' rejected", ok[i].text);
        if (v != ok[i].want)
            fail_msg("'%s' -> %llu, expected %llu", ok[i].text, (unsigned long long)v,
                     (unsigned long long)ok[i].want);
    }
}

static void test_parse_bytes_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "K",
        "1X",
        "1KB2",
        "-1",
        "+1",
        " 1",
        "1 K",
        "1Ki",
        "1KiBB",
        "1T",
        "0x10",
        "1.5K",
        "17179869184G",
        "18446744073709551616",
        "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t v = 12345;
        if (gdr_parse_bytes(bad[i], &v) != -1)
            fail_msg("'%s' accepted as %llu", bad[i], (unsigned long long)v);
        if (v != 12345)
            fail_msg("'%s' rejected but the output was written", bad[i]);
    }
    uint64_t v;
    assert_int_equal(gdr_parse_bytes(NULL, &v), -1);
}

static void test_range_powers_of_two(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, 2, 8u << 20, 2), 0);
    assert_int_equal(l.count, 23);
    for (size_t i = 0; i < l.count; i++)
        assert_int_equal(l.size[i], 2ull << i);
    assert_int_equal(l.size[0], 2);
    assert_int_equal(l.size[22], 8388608);
    assert_int_equal(gdr_sizes_max(&l), 8388608);
}

static void test_range_non_power_max_is_last(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, 1, 1000, 2), 0);
    static const uint64_t want[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000};
    assert_int_equal(l.count, 11);
    for (size_t i = 0; i < l.count; i++)
        assert_int_equal(l.size[i], want[i]);
}

static void test_range_factor_three(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, 1, 100, 3), 0);
    static const uint64_t want[] = {1, 3, 9, 27, 81, 100};
    assert_int_equal(l.count, 6);
    for (size_t i = 0; i < l.count; i++)
        assert_int_equal(l.size[i], want[i]);

    /* Steps that land exactly on MAX do not repeat it. */
    assert_int_equal(gdr_sizes_range(&l, 1, 81, 3), 0);
    assert_int_equal(l.count, 5);
    assert_int_equal(l.size[4], 81);
}

static void test_range_edges(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, 4096, 4096, 2), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.size[0], 4096);

    /* The longest list: 1 B .. 1 GiB in powers of two. */
    assert_int_equal(gdr_sizes_range(&l, 1, 1ull << 30, 2), 0);
    assert_int_equal(l.count, 31);
    assert_int_equal(l.size[30], 1ull << 30);

    /* A huge factor: MIN then MAX. */
    assert_int_equal(gdr_sizes_range(&l, 1, 1ull << 30, 1024), 0);
    assert_int_equal(l.count, 4);
    assert_int_equal(l.size[3], 1ull << 30);
}

static void test_range_rejects(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, 0, 8, 2), -1);
    assert_error(GDR_EXIT_USAGE, "0..8");
    gdr_error_clear();
    assert_int_equal(gdr_sizes_range(&l, 1, (1ull << 30) + 1, 2), -1);
    assert_error(GDR_EXIT_USAGE, "1..1073741825");
    gdr_error_clear();
    assert_int_equal(gdr_sizes_range(&l, 16, 8, 2), -1);
    assert_error(GDR_EXIT_USAGE, "16..8");
    gdr_error_clear();
    assert_int_equal(gdr_sizes_range(&l, 1, 8, 1), -1);
    assert_error(GDR_EXIT_USAGE, "factor 1");
    gdr_error_clear();
    assert_int_equal(gdr_sizes_range(&l, 1, 8, 0), -1);
    assert_error(GDR_EXIT_USAGE, "factor 0");
}

static void test_sizes_parse(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_parse(&l, "1K:16K"), 0);
    assert_int_equal(l.count, 5);
    assert_int_equal(l.size[0], 1024);
    assert_int_equal(l.size[4], 16384);

    assert_int_equal(gdr_sizes_parse(&l, "2:8M:4"), 0);
    /* 2 * 4^k is below 8M for k = 0..10; 2 * 4^11 is 8M itself, the last entry. */
    assert_int_equal(l.count, 12);
    assert_int_equal(l.size[10], 2ull << 20);
    assert_int_equal(l.size[11], 8ull << 20);
    assert_no_error();
}

static void test_sizes_parse_rejects(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *fragment;
    } bad[] = {
        {"", "expected MIN:MAX"},
        {"8", "expected MIN:MAX"},
        {"1:2:3:4", "expected MIN:MAX"},
        {":8", "bad MIN ''"},
        {"8:", "bad MAX ''"},
        {"a:b", "bad MIN 'a'"},
        {"1:b", "bad MAX 'b'"},
        {"1:8:x", "bad FACTOR 'x'"},
        {"1:8:2x", "bad FACTOR '2x'"},
        {"1:8:-2", "bad FACTOR '-2'"},
        {"1:8:1025", "bad FACTOR '1025'"},
        {"1:8:99999999999999999999", "bad FACTOR"},
        {"8:2", "--sizes '8:2'"},
        {"1:2:1", "--sizes '1:2:1'"},
        {"0:2", "--sizes '0:2'"},
        {"1:2G", "--sizes '1:2G'"},
        {"1111111111111111111111111111111111111111111111111111111111111111:"
         "2222222222222222222222222222222222222222222222222222222222222222",
         "too long"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gdr_size_list l;
        gdr_error_clear();
        if (gdr_sizes_parse(&l, bad[i].spec) != -1)
            fail_msg("'%s' accepted", bad[i].spec);
        if (gdr_error_code() != GDR_EXIT_USAGE || !strstr(gdr_error_message(), bad[i].fragment))
            fail_msg("'%s': code %d message '%s', expected code 2 and '%s'", bad[i].spec,
                     (int)gdr_error_code(), gdr_error_message(), bad[i].fragment);
    }
    gdr_error_clear();
}

static void test_sizes_max(void **state)
{
    (void)state;
    struct gdr_size_list l = {.count = 3, .size = {64, 4096, 8}};
    assert_int_equal(gdr_sizes_max(&l), 4096);
    l.count = 0;
    assert_int_equal(gdr_sizes_max(&l), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_parse_bytes_accepts), gdr_unit_test(test_parse_bytes_rejects),
        gdr_unit_test(test_range_powers_of_two), gdr_unit_test(test_range_non_power_max_is_last),
        gdr_unit_test(test_range_factor_three),  gdr_unit_test(test_range_edges),
        gdr_unit_test(test_range_rejects),       gdr_unit_test(test_sizes_parse),
        gdr_unit_test(test_sizes_parse_rejects), gdr_unit_test(test_sizes_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
