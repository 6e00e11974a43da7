/* unit_dir.h - a fresh mkdtemp() directory per test (cmocka setup and
 * teardown) and what is in it, for the tests that write files. */
#ifndef GDR_UNIT_DIR_H
#define GDR_UNIT_DIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

struct dir {
    char path[256];
};

static int dir_setup(void **state)
{
    gdr_error_clear();
    struct dir *d = calloc(1, sizeof(*d));
    const char *base = getenv("TMPDIR");
    if (!d)
        return -1;
    snprintf(d->path, sizeof(d->path), "%s/gdr-unit.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(d->path))
        return -1;
    *state = d;
    return 0;
}

static int dir_teardown(void **state)
{
    struct dir *d = *state;
    DIR *dp = opendir(d->path);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char p[512];
                snprintf(p, sizeof(p), "%s/%s", d->path, e->d_name);
                if (unlink(p))
                    rmdir(p);
            }
        }
        closedir(dp);
    }
    rmdir(d->path);
    free(d);
    gdr_error_clear();
    return 0;
}

static void path_in(const struct dir *d, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", d->path, name);
}

/* The names in the directory, comma-separated and sorted. */
static void listing(const struct dir *d, char *out, size_t len)
{
    struct dirent **names;
    int n = scandir(d->path, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
            if (out[0])
                strncat(out, ",", len - strlen(out) - 1);
            strncat(out, names[i]->d_name, len - strlen(out) - 1);
        }
        free(names[i]);
    }
    free(names);
}

/* A test that runs in its own fresh directory. */
#define dir_test(f) cmocka_unit_test_setup_teardown(f, dir_setup, dir_teardown)

#endif
