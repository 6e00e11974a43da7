/* test_json.c - atomic result files, reading them back, and the strict
 * field getters. Files go to a fresh mkdtemp() directory. */
#include "config.h"

#include "unit.h"
#include "unit_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

static cJSON *sample_doc(int variant)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "tool", "gdr_write_bw");
    cJSON_AddNumberToObject(doc, "variant", variant);
    cJSON_AddStringToObject(doc, "note", "quotes \" backslash \\ tab \t unicode \xc3\xa9");
    cJSON *sizes = cJSON_AddArrayToObject(doc, "results");
    for (int i = 0; i < 5; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "size", 1 << (i * 4));
        cJSON_AddNumberToObject(r, "bw", 1.25e9 * (i + 1));
        cJSON_AddBoolToObject(r, "validated", i % 2);
        cJSON_AddItemToArray(sizes, r);
    }
    gdr_json_add_u64(doc, "big", UINT64_MAX);
    return doc;
}

static void test_write_read_round_trip(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "sweep.json", path, sizeof(path));

    cJSON *doc = sample_doc(1);
    assert_int_equal(gdr_json_write_atomic(doc, path), 0);
    assert_no_error();
    listing(d, names, sizeof(names));
    assert_string_equal(names, "sweep.json"); /* no temporary left behind */

    /* Parsed independently of the harness reader. */
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_true(n > 0 && buf[n - 1] == '\n');
    cJSON *back = cJSON_Parse(buf);
    assert_non_null(back);
    assert_true(cJSON_Compare(doc, back, true));
    cJSON_Delete(back);

    back = gdr_json_read_file(path, 1 << 20);
    assert_non_null(back);
    assert_true(cJSON_Compare(doc, back, true));
    cJSON_Delete(back);

    /* Overwriting replaces the document; still no temporary. */
    cJSON *doc2 = sample_doc(2);
    assert_int_equal(gdr_json_write_atomic(doc2, path), 0);
    back = gdr_json_read_file(path, 1 << 20);
    assert_non_null(back);
    assert_true(cJSON_Compare(doc2, back, true));
    assert_false(cJSON_Compare(doc, back, true));
    listing(d, names, sizeof(names));
    assert_string_equal(names, "sweep.json");

    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);

    cJSON_Delete(back);
    cJSON_Delete(doc2);
    cJSON_Delete(doc);
}

static void test_write_missing_directory(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "no-such-dir/sweep.json", path, sizeof(path));
    cJSON *doc = sample_doc(1);
    assert_int_equal(gdr_json_write_atomic(doc, path), -1);
    assert_error(GDR_EXIT_RUN, path);
    assert_non_null(strstr(gdr_error_message(), strerror(ENOENT)));
    struct stat st;
    assert_int_equal(stat(path, &st), -1);
    listing(d, names, sizeof(names));
    assert_string_equal(names, "");
    cJSON_Delete(doc);
}

/* The rename fails (the target is a directory): the temporary is removed. */
static void test_write_over_directory(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "taken", path, sizeof(path));
    assert_int_equal(mkdir(path, 0755), 0);
    cJSON *doc = sample_doc(1);
    assert_int_equal(gdr_json_write_atomic(doc, path), -1);
    assert_error(GDR_EXIT_RUN, "rename");
    listing(d, names, sizeof(names));
    assert_string_equal(names, "taken");
    cJSON_Delete(doc);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_read_rejects(void **state)
{
    struct dir *d = *state;
    char path[512];

    path_in(d, "bad.json", path, sizeof(path));
    write_text(path, "{\"a\": 1,,}");
    assert_null(gdr_json_read_file(path, 1 << 20));
    assert_error(GDR_EXIT_USAGE, "not valid JSON");
    assert_non_null(strstr(gdr_error_message(), path));

    gdr_error_clear();
    path_in(d, "empty.json", path, sizeof(path));
    write_text(path, "");
    assert_null(gdr_json_read_file(path, 1 << 20));
    assert_error(GDR_EXIT_USAGE, "not valid JSON");

    /* A file of exactly the limit is read; one byte less is refused. */
    gdr_error_clear();
    path_in(d, "big.json", path, sizeof(path));
    const char *text = "{\"k\": \"0123456789abcdefghi\"}\n";
    size_t len = strlen(text);
    write_text(path, text);
    cJSON *ok = gdr_json_read_file(path, len);
    assert_non_null(ok);
    cJSON_Delete(ok);
    assert_no_error();
    assert_null(gdr_json_read_file(path, len - 1));
    char want[64];
    snprintf(want, sizeof(want), "larger than %zu bytes", len - 1);
    assert_error(GDR_EXIT_USAGE, want);
    assert_non_null(strstr(gdr_error_message(), path));

    gdr_error_clear();
    path_in(d, "absent.json", path, sizeof(path));
    assert_null(gdr_json_read_file(path, 1 << 20));
    assert_error(GDR_EXIT_USAGE, strerror(ENOENT));
    assert_non_null(strstr(gdr_error_message(), path));
}

static cJSON *obj_from(const char *text)
{
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    return o;
}

static void test_u64_bounds(void **state)
{
    (void)state;
    cJSON *o = obj_from("{\"n\": 255, \"big\": 9007199254740992, \"over\": 9007199254740994,"
                        " \"neg\": -1, \"frac\": 2.5, \"s\": \"18446744073709551615\","
                        " \"s_over\": \"18446744073709551616\", \"s_neg\": \"-1\","
                        " \"s_junk\": \"12a\", \"s_space\": \" 12\", \"b\": true}");
    uint64_t v = 0;
    assert_int_equal(gdr_json_u64(o, "n", 255, &v, "doc"), 0);
    assert_int_equal(v, 255);
    assert_int_equal(gdr_json_u64(o, "n", 254, &v, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "doc: field 'n' is not an integer 0..254");

    gdr_error_clear();
    assert_int_equal(gdr_json_u64(o, "big", UINT64_MAX, &v, "doc"), 0);
    assert_int_equal(v, 1ull << 53);
    assert_int_equal(gdr_json_u64(o, "s", UINT64_MAX, &v, "doc"), 0);
    assert_int_equal(v, UINT64_MAX);

    static const char *const bad[] = {"over",  "neg",    "frac",    "s_over",
                                      "s_neg", "s_junk", "s_space", "b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gdr_error_clear();
        v = 777;
        if (gdr_json_u64(o, bad[i], UINT64_MAX, &v, "doc") != -1)
            fail_msg("field '%s' accepted as %llu", bad[i], (unsigned long long)v);
        assert_int_equal(v, 777);
        char want[64];
        snprintf(want, sizeof(want), "field '%s'", bad[i]);
        assert_error(GDR_EXIT_RUN, want);
    }

    gdr_error_clear();
    assert_int_equal(gdr_json_u64(o, "absent", 10, &v, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "doc: field 'absent' is missing");

    /* Not an object at all. */
    gdr_error_clear();
    cJSON *arr = obj_from("[1]");
    assert_int_equal(gdr_json_u64(arr, "n", 10, &v, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 'n' is missing");
    cJSON_Delete(arr);
    cJSON_Delete(o);
}

/* Printed by cJSON and parsed back, every value reads back exactly. */
static void test_add_u64(void **state)
{
    (void)state;
    static const uint64_t values[] = {
        0,
        1,
        4096,
        999999999999999ull,
        1000000000000000ull,
        1000000000000001ull,
        4503599627370497ull,
        9007199254740991ull,
        1ull << 53,
        (1ull << 53) + 1,
        12345678901234567890ull,
        UINT64_MAX,
    };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        cJSON *o = cJSON_CreateObject();
        gdr_json_add_u64(o, "v", values[i]);
        const cJSON *item = cJSON_GetObjectItem(o, "v");
        /* Ordinary counts stay numbers; what a double cannot hold is text. */
        if (values[i] < 1000000 && !cJSON_IsNumber(item))
            fail_msg("%llu is not a number", (unsigned long long)values[i]);
        if (values[i] > (1ull << 53) && !cJSON_IsString(item))
            fail_msg("%llu is not a string", (unsigned long long)values[i]);
        char *text = cJSON_PrintUnformatted(o);
        cJSON *back = cJSON_Parse(text);
        uint64_t v = 0;
        if (gdr_json_u64(back, "v", UINT64_MAX, &v, "doc") || v != values[i])
            fail_msg("%llu printed as %s reads back as %llu (%s)", (unsigned long long)values[i],
                     text, (unsigned long long)v, gdr_error_message());
        cJSON_Delete(back);
        free(text);
        cJSON_Delete(o);
    }
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_u64(o, "max", UINT64_MAX);
    assert_string_equal(cJSON_GetObjectItem(o, "max")->valuestring, "18446744073709551615");
    uint64_t v;
    assert_int_equal(gdr_json_u64(o, "max", UINT64_MAX - 1, &v, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 'max'");
    cJSON_Delete(o);
}

static void test_other_getters(void **state)
{
    (void)state;
    cJSON *o = obj_from("{\"d\": -2.5e-3, \"t\": true, \"f\": false, \"s\": \"abc\", \"n\": 1}");
    double d;
    bool b;
    char buf[4];
    assert_int_equal(gdr_json_double(o, "d", &d, "doc"), 0);
    assert_near(d, -2.5e-3, 0);
    assert_int_equal(gdr_json_bool(o, "t", &b, "doc"), 0);
    assert_true(b);
    assert_int_equal(gdr_json_bool(o, "f", &b, "doc"), 0);
    assert_false(b);
    assert_int_equal(gdr_json_str(o, "s", buf, sizeof(buf), "doc"), 0);
    assert_string_equal(buf, "abc");
    assert_no_error();

    assert_int_equal(gdr_json_str(o, "s", buf, 3, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 's' is longer than 2 bytes");
    gdr_error_clear();
    assert_int_equal(gdr_json_str(o, "n", buf, sizeof(buf), "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 'n' is not a string");
    gdr_error_clear();
    assert_int_equal(gdr_json_double(o, "s", &d, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 's' is not a number");
    gdr_error_clear();
    assert_int_equal(gdr_json_bool(o, "n", &b, "doc"), -1);
    assert_error(GDR_EXIT_RUN, "field 'n' is not true/false");
    cJSON_Delete(o);
}

/* An array's items, leniently: a wrong type, a short array or no array at
 * all gives the default (a hostile suspects.json must not crash a report). */
static void test_item_getters(void **state)
{
    (void)state;
    cJSON *o = obj_from("{\"a\": [\"n1\", 2.5, null], \"s\": \"x\"}");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "a");
    assert_string_equal(gdr_jitem_str_or(a, 0, "?"), "n1");
    assert_string_equal(gdr_jitem_str_or(a, 1, "?"), "?");
    assert_string_equal(gdr_jitem_str_or(a, 7, "?"), "?");
    assert_near(gdr_jitem_num_or(a, 1, -1), 2.5, 0);
    assert_near(gdr_jitem_num_or(a, 0, -1), -1, 0);
    assert_near(gdr_jitem_num_or(a, 2, -1), -1, 0);
    assert_string_equal(gdr_jitem_str_or(cJSON_GetObjectItemCaseSensitive(o, "s"), 0, "?"), "?");
    assert_string_equal(gdr_jitem_str_or(NULL, 0, "?"), "?");
    assert_near(gdr_jitem_num_or(NULL, 0, -1), -1, 0);
    cJSON_Delete(o);
}

/* NAN (a value not known) is written as null, which JSON has; a number stays one. */
static void test_add_number_or_null(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_number_or_null(o, "known", 2.5);
    gdr_json_add_number_or_null(o, "unknown", NAN);
    char *text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"known\":2.5,\"unknown\":null}");
    free(text);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        dir_test(test_write_read_round_trip), dir_test(test_write_missing_directory),
        dir_test(test_write_over_directory),  dir_test(test_read_rejects),
        gdr_unit_test(test_u64_bounds),       gdr_unit_test(test_add_u64),
        gdr_unit_test(test_other_getters),    gdr_unit_test(test_add_number_or_null),
        gdr_unit_test(test_item_getters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
