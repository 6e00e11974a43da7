/* test_atomic_file.c - the one atomic writer: the content arrives whole,
 * and no temporary file is left behind, whether it succeeded or failed;
 * a failure names the path. Files go to a fresh mkdtemp() directory. */
#include "config.h"

#include "unit.h"
#include "unit_dir.h"

#include <errno.h>
#include <sys/stat.h>

#include "atomic_file.h"

static void assert_content(const char *path, const char *want)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

static void test_write_and_replace(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "out.txt", path, sizeof(path));
    assert_int_equal(gdr_atomic_write(path, "first\n", 6, GDR_EXIT_RUN), 0);
    assert_content(path, "first\n");
    assert_int_equal(gdr_atomic_write(path, "second\n", 7, GDR_EXIT_RUN), 0);
    assert_content(path, "second\n");
    listing(d, names, sizeof(names));
    assert_string_equal(names, "out.txt");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_no_error();
}

/* The stream form: written with stdio, then committed. */
static void test_stream_commit(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "stream.txt", path, sizeof(path));
    struct gdr_atomic_file a;
    assert_int_equal(gdr_atomic_open(&a, path, GDR_EXIT_USAGE), 0);
    fprintf(a.f, "%d %s\n", 42, "lines");
    listing(d, names, sizeof(names));
    assert_non_null(strstr(names, "stream.txt.tmp.")); /* only the temporary so far */
    assert_int_equal(gdr_atomic_commit(&a), 0);
    assert_content(path, "42 lines\n");
    listing(d, names, sizeof(names));
    assert_string_equal(names, "stream.txt");
}

/* Abort leaves the old file as it was and no temporary. */
static void test_abort_keeps_old(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "kept.txt", path, sizeof(path));
    assert_int_equal(gdr_atomic_write(path, "old\n", 4, GDR_EXIT_RUN), 0);
    struct gdr_atomic_file a;
    assert_int_equal(gdr_atomic_open(&a, path, GDR_EXIT_RUN), 0);
    fputs("half a new fi", a.f);
    gdr_atomic_abort(&a);
    assert_content(path, "old\n");
    listing(d, names, sizeof(names));
    assert_string_equal(names, "kept.txt");
    assert_no_error();
}

static void test_missing_directory(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "no-such-dir/out.txt", path, sizeof(path));
    assert_int_equal(gdr_atomic_write(path, "x", 1, GDR_EXIT_USAGE), -1);
    assert_error(GDR_EXIT_USAGE, path);
    assert_non_null(strstr(gdr_error_message(), strerror(ENOENT)));
    listing(d, names, sizeof(names));
    assert_string_equal(names, "");
}

/* The rename fails (the target is a directory): the temporary goes. */
static void test_rename_fails(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "taken", path, sizeof(path));
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(gdr_atomic_write(path, "x", 1, GDR_EXIT_RUN), -1);
    assert_error(GDR_EXIT_RUN, path);
    assert_non_null(strstr(gdr_error_message(), "rename"));
    listing(d, names, sizeof(names));
    assert_string_equal(names, "taken");
}

/* A directory that may not be written (root may write anyway: skipped). */
static void test_directory_not_writable(void **state)
{
    struct dir *d = *state;
    if (geteuid() == 0)
        skip();
    char sub[512], path[600];
    path_in(d, "ro", sub, sizeof(sub));
    assert_int_equal(mkdir(sub, 0555), 0);
    snprintf(path, sizeof(path), "%s/out.txt", sub);
    assert_int_equal(gdr_atomic_write(path, "x", 1, GDR_EXIT_RUN), -1);
    assert_error(GDR_EXIT_RUN, path);
    assert_non_null(strstr(gdr_error_message(), strerror(EACCES)));
    DIR *dp = opendir(sub);
    assert_non_null(dp);
    int entries = 0;
    while (readdir(dp))
        entries++;
    closedir(dp);
    assert_int_equal(entries, 2); /* . and .. */
    chmod(sub, 0755);
}

/* A stream whose error flag is set (a write that failed earlier) is
 * refused at commit, and the temporary goes. */
static void test_write_error_at_commit(void **state)
{
    struct dir *d = *state;
    char path[512], names[512];
    path_in(d, "bad.txt", path, sizeof(path));
    struct gdr_atomic_file a;
    assert_int_equal(gdr_atomic_open(&a, path, GDR_EXIT_RUN), 0);
    fgetc(a.f); /* reading a write-only stream sets its error flag */
    assert_true(ferror(a.f));
    assert_int_equal(gdr_atomic_commit(&a), -1);
    assert_error(GDR_EXIT_RUN, path);
    listing(d, names, sizeof(names));
    assert_string_equal(names, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        dir_test(test_write_and_replace),     dir_test(test_stream_commit),
        dir_test(test_abort_keeps_old),       dir_test(test_missing_directory),
        dir_test(test_rename_fails),          dir_test(test_directory_not_writable),
        dir_test(test_write_error_at_commit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
