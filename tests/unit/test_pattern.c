/* test_pattern.c - the --validate data pattern: what it fills it checks,
 * a changed byte is found where it is, and each (size, slot) has its own. */
#include "config.h"

#include "unit.h"

#include <stdlib.h>

#include "pattern.h"
#include "sizes.h"

#define NO_BAD ((size_t)-7)

static void test_fill_check_small(void **state)
{
    (void)state;
    uint8_t buf[100 + 16];
    for (size_t len = 0; len <= 100; len++) {
        uint64_t seed = gdr_pattern_seed(len, 3);
        memset(buf, 0xa5, sizeof(buf));
        gdr_pattern_fill(buf, len, seed);
        /* Nothing past len is touched. */
        for (size_t i = len; i < sizeof(buf); i++)
            if (buf[i] != 0xa5)
                fail_msg("len %zu: byte %zu past the end was written", len, i);
        size_t first = NO_BAD;
        uint64_t bad = gdr_pattern_check(buf, len, seed, &first);
        if (bad != 0 || first != NO_BAD)
            fail_msg("len %zu: %llu bad bytes, first %zu", len, (unsigned long long)bad, first);
    }
}

static void test_fill_check_1mib(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    uint64_t seed = gdr_pattern_seed(len, 0);
    gdr_pattern_fill(buf, len, seed);
    size_t first = NO_BAD;
    assert_int_equal(gdr_pattern_check(buf, len, seed, &first), 0);
    assert_int_equal(first, NO_BAD);

    /* Not a constant: a fill of zeros, or a short repeating cycle, would
     * not catch a message landing at the wrong offset. */
    size_t zeros = 0;
    for (size_t i = 0; i < len; i++)
        zeros += buf[i] == 0;
    assert_true(zeros < len / 128); /* about len / 256 for random bytes */
    assert_true(memcmp(buf, buf + 4096, 4096) != 0);
    assert_true(memcmp(buf, buf + 8, 8) != 0);

    /* The whole buffer shifted by one message slot is detected. */
    memmove(buf, buf + 64, len - 64);
    assert_true(gdr_pattern_check(buf, len - 64, seed, &first) > (len - 64) / 2);
    free(buf);
}

static void test_one_flipped_byte(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    uint64_t seed = gdr_pattern_seed(65536, 7);
    gdr_pattern_fill(buf, len, seed);
    static const size_t offsets[] = {0, 1, 7, 8, 9, 4095, 4096, 524287, (1 << 20) - 1};
    for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        size_t off = offsets[i];
        buf[off] ^= 0x01;
        size_t first = NO_BAD;
        uint64_t bad = gdr_pattern_check(buf, len, seed, &first);
        if (bad != 1 || first != off)
            fail_msg("flip at %zu: %llu bad bytes, first %zu", off, (unsigned long long)bad, first);
        buf[off] ^= 0x01;
    }
    /* Two changed bytes: both counted, the first one reported. */
    buf[1000] ^= 0xff;
    buf[300] ^= 0x80;
    size_t first = NO_BAD;
    assert_int_equal(gdr_pattern_check(buf, len, seed, &first), 2);
    assert_int_equal(first, 300);
    free(buf);

    /* A flip in the short tail (len not a multiple of 8). */
    uint8_t small[13];
    gdr_pattern_fill(small, sizeof(small), seed);
    small[12] ^= 0x40;
    first = NO_BAD;
    assert_int_equal(gdr_pattern_check(small, sizeof(small), seed, &first), 1);
    assert_int_equal(first, 12);
}

static size_t differing(const uint8_t *a, const uint8_t *b, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += a[i] != b[i];
    return n;
}

static void test_seeds_differ(void **state)
{
    (void)state;
    enum { LEN = 4096 };
    static uint8_t a[LEN], b[LEN];
    static const uint64_t pairs[][4] = {
        /* size, slot vs size, slot */
        {4096, 0, 4096, 1}, {4096, 1, 8192, 1}, {2, 0, 4, 0}, {1, 0, 0, 1}, {0, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        uint64_t s1 = gdr_pattern_seed(pairs[i][0], pairs[i][1]);
        uint64_t s2 = gdr_pattern_seed(pairs[i][2], pairs[i][3]);
        assert_true(s1 != s2);
        gdr_pattern_fill(a, LEN, s1);
        gdr_pattern_fill(b, LEN, s2);
        /* Unrelated data: about 255/256 of the bytes differ. */
        size_t n = differing(a, b, LEN);
        if (n < LEN * 9 / 10)
            fail_msg("(%llu,%llu) vs (%llu,%llu): only %zu of %d bytes differ",
                     (unsigned long long)pairs[i][0], (unsigned long long)pairs[i][1],
                     (unsigned long long)pairs[i][2], (unsigned long long)pairs[i][3], n, LEN);
        /* And the check against the other seed says so. */
        size_t first = NO_BAD;
        assert_true(gdr_pattern_check(a, LEN, s2, &first) >= LEN * 9 / 10);
        assert_int_equal(first, 0);
    }
    /* The same seed gives the same data every time. */
    gdr_pattern_fill(a, LEN, gdr_pattern_seed(64, 5));
    gdr_pattern_fill(b, LEN, gdr_pattern_seed(64, 5));
    assert_memory_equal(a, b, LEN);
}

/* The byte a ping-pong polls for is the byte the fill writes there, at
 * every offset of a word and past the first words. */
static void test_pattern_byte(void **state)
{
    (void)state;
    enum { LEN = 77 };
    uint8_t a[LEN];
    uint64_t seed = gdr_pattern_seed(LEN, 0) ^ 0x5e7e7ull;
    gdr_pattern_fill(a, LEN, seed);
    for (size_t i = 0; i < LEN; i++)
        if (gdr_pattern_byte(seed, i) != a[i])
            fail_msg("offset %zu: byte %u, fill wrote %u", i, gdr_pattern_byte(seed, i), a[i]);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Every (size, slot) of a full -a sweep over 512 slots yields a distinct
 * pattern. The fill forces the low bit of the seed on, so two seeds that
 * differ only there would give the same data: compare seeds with it set. */
static void test_sweep_seeds_distinct(void **state)
{
    (void)state;
    struct gdr_size_list l;
    assert_int_equal(gdr_sizes_range(&l, GDR_ALL_MIN, GDR_ALL_MAX, 2), 0);
    enum { SLOTS = 512 };
    size_t n = l.count * SLOTS;
    uint64_t *seeds = malloc(n * sizeof(*seeds));
    assert_non_null(seeds);
    for (size_t i = 0; i < l.count; i++)
        for (size_t s = 0; s < SLOTS; s++)
            seeds[i * SLOTS + s] = gdr_pattern_seed(l.size[i], s) | 1;
    qsort(seeds, n, sizeof(*seeds), cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (seeds[i] == seeds[i - 1])
            fail_msg("two (size, slot) pairs share the pattern seed %llx",
                     (unsigned long long)seeds[i]);
    free(seeds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_fill_check_small),     gdr_unit_test(test_fill_check_1mib),
        gdr_unit_test(test_one_flipped_byte),     gdr_unit_test(test_seeds_differ),
        gdr_unit_test(test_sweep_seeds_distinct), gdr_unit_test(test_pattern_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
