/* report_load.c - a results directory read and checked for the pages. */
#include "config.h"

#include "report.h"
#include "order.h"
#include "error.h"
#include "json.h"
#include "schema.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The *.json names of dir, sorted; *names NULL-terminated, one allocation each. */
static int list_json(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || e->d_name[0] == '.')
            continue;
        if (*n + 2 > cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(*names, cap * sizeof(*p));
            if (!p) {
                rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
                break;
            }
            *names = p;
        }
        if (!((*names)[(*n)++] = strdup(e->d_name))) {
            rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
            break;
        }
    }
    closedir(d);
    if (*names) {
        qsort(*names, *n, sizeof(**names), gdr_cmp_strp);
        (*names)[*n] = NULL;
    }
    return rc;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool is_doctor(const cJSON *root)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "tool");
    return cJSON_IsString(t) && !strcmp(t->valuestring, "gdr_doctor");
}

static int add_doctor(struct gdr_rdir *r, cJSON *root, const char *path)
{
    if (!is_doctor(root) || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "checks"))) {
        cJSON_Delete(root);
        return gdr_fail(GDR_EXIT_USAGE, "%s: not a gdr_doctor --json document", path);
    }
    cJSON **p = realloc(r->doctor, (r->ndoctor + 1) * sizeof(*p));
    char(*names)[256] = p ? realloc(r->doctor_names, (r->ndoctor + 1) * sizeof(*names)) : NULL;
    if (p)
        r->doctor = p;
    if (!names) {
        cJSON_Delete(root);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    r->doctor_names = names;
    const char *base = strrchr(path, '/');
    snprintf(names[r->ndoctor], sizeof(names[0]), "%s", base ? base + 1 : path);
    p[r->ndoctor++] = root;
    return 0;
}

/* The JSON files of dir/doctor (dir NULL: none), then the --doctor files. */
static int load_doctors(const char *dir, const struct gdr_report_opts *o, struct gdr_rdir *r)
{
    char sub[4096];
    snprintf(sub, sizeof(sub), "%s/doctor", dir ? dir : "");
    struct stat st;
    if (dir && stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
        char **names;
        size_t n;
        if (list_json(sub, &names, &n))
            return -1;
        for (size_t i = 0; i < n; i++) {
            char path[8192];
            snprintf(path, sizeof(path), "%s/%s", sub, names[i]);
            cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
            if (!root || add_doctor(r, root, path)) {
                free_names(names, n);
                return -1;
            }
        }
        free_names(names, n);
    }
    for (size_t i = 0; o && i < o->ndoctor; i++) {
        cJSON *root = gdr_json_read_file(o->doctor[i], GDR_DOC_MAX_BYTES);
        if (!root || add_doctor(r, root, o->doctor[i]))
            return -1;
    }
    return 0;
}

int gdr_rdir_load(const char *dir, const struct gdr_report_opts *o, size_t min_docs,
                  struct gdr_rdir *r)
{
    memset(r, 0, sizeof(*r));
    r->figs = o->figs;
    struct stat st;
    if (stat(dir, &st))
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", dir, strerror(errno));
    char **names;
    size_t n;
    if (!S_ISDIR(st.st_mode)) {
        /* One document given as a file. */
        names = calloc(2, sizeof(*names));
        if (!names || !(names[0] = strdup(dir)))
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        n = 1;
    } else if (list_json(dir, &names, &n)) {
        return -1;
    }
    r->docs = calloc(n + 1, sizeof(*r->docs));
    char **complete = calloc(n + 1, sizeof(*complete));
    int rc = r->docs && complete ? 0 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    size_t ncomplete = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char path[8192];
        if (S_ISDIR(st.st_mode))
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        else
            snprintf(path, sizeof(path), "%s", names[i]);
        cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
        if (!root) {
            rc = -1;
            break;
        }
        if (!strcmp(names[i], "manifest.json")) {
            if (!cJSON_IsObject(root)) {
                cJSON_Delete(root);
                rc = gdr_fail(GDR_EXIT_USAGE, "%s: not a JSON object", path);
                break;
            }
            r->manifest = root;
            continue;
        }
        if (is_doctor(root)) {
            rc = add_doctor(r, root, path);
            continue;
        }
        struct gdr_rdoc *d = &r->docs[r->ndocs];
        if (gdr_doc_from_json(root, path, &d->d)) {
            cJSON_Delete(root);
            rc = -1;
            break;
        }
        /* gdr_doc_from_json records field errors as run failures: bad input here. */
        d->root = root;
        r->ndocs++;
        if (!strcmp(d->d.status, "complete") && !(complete[ncomplete++] = strdup(path)))
            rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    free_names(names, n);
    if (rc == 0 && r->ndocs < min_docs)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: no result documents (*.json): nothing to report", dir);
    if (rc == 0)
        rc = load_doctors(S_ISDIR(st.st_mode) ? dir : NULL, o, r);
    /* A nightly's gdr-history check --json (ci/nightly). */
    char hpath[4200];
    snprintf(hpath, sizeof(hpath), "%s/history/check.json", dir);
    if (rc == 0 && S_ISDIR(st.st_mode) && access(hpath, F_OK) == 0 &&
        !(r->history = gdr_json_read_file(hpath, GDR_DOC_MAX_BYTES)))
        rc = -1;
    if (rc == 0 && ncomplete) {
        bool failed = false;
        rc = gdr_set_load(&r->set, complete, ncomplete, GDR_INCOMPLETE_SKIP, &failed);
        r->has_set = rc == 0;
    }
    for (size_t i = 0; complete && i < ncomplete; i++)
        free(complete[i]);
    free(complete);
    if (rc) {
        /* Every error here is the input's (exit 2), as gdr-json check says. */
        if (gdr_error_code() == GDR_EXIT_RUN && !strstr(gdr_error_message(), "out of memory")) {
            char msg[1024];
            snprintf(msg, sizeof(msg), "%s", gdr_error_message());
            gdr_error_clear();
            gdr_fail(GDR_EXIT_USAGE, "%s", msg);
        }
        gdr_rdir_free(r);
        return -1;
    }
    return 0;
}

void gdr_rdir_free(struct gdr_rdir *r)
{
    for (size_t i = 0; i < r->ndocs; i++) {
        gdr_doc_free(&r->docs[i].d);
        cJSON_Delete(r->docs[i].root);
    }
    free(r->docs);
    cJSON_Delete(r->manifest);
    cJSON_Delete(r->history);
    for (size_t i = 0; i < r->ndoctor; i++)
        cJSON_Delete(r->doctor[i]);
    free(r->doctor);
    free(r->doctor_names);
    if (r->has_set)
        gdr_set_free(&r->set);
    memset(r, 0, sizeof(*r));
}

const struct gdr_rdoc *gdr_rdir_find(const struct gdr_rdir *r, const char *path)
{
    for (size_t i = 0; i < r->ndocs; i++)
        if (!strcmp(r->docs[i].d.path, path))
            return &r->docs[i];
    return NULL;
}

static const cJSON *row_of(const cJSON *root, uint64_t size)
{
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(root, "results")) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(row, "size");
        if (cJSON_IsNumber(s) && (uint64_t)s->valuedouble == size)
            return row;
    }
    return NULL;
}

void gdr_row_extra(const struct gdr_rdir *r, const struct gdr_series *s, uint64_t size,
                   struct gdr_row_extra *x)
{
    memset(x, 0, sizeof(*x));
    x->limit = x->pct = NAN;
    x->clean = true;
    double pcts[64];
    size_t np = 0;
    for (size_t k = 0; k < s->ndocs; k++) {
        const struct gdr_rdoc *d = gdr_rdir_find(r, s->docs[k]->path);
        const cJSON *row = d ? row_of(d->root, size) : NULL;
        if (!row)
            continue;
        const cJSON *clean = cJSON_GetObjectItemCaseSensitive(row, "clean");
        if (cJSON_IsBool(clean)) {
            x->clean_known = true;
            x->clean &= cJSON_IsTrue(clean);
        }
        const cJSON *lim = cJSON_GetObjectItemCaseSensitive(row, "limit");
        const cJSON *bps = cJSON_GetObjectItemCaseSensitive(lim, "bytes_per_s");
        if (cJSON_IsNumber(lim) && lim->valuedouble > 0 && isnan(x->limit))
            x->limit = lim->valuedouble;
        if (cJSON_IsNumber(bps) && bps->valuedouble > 0 && isnan(x->limit)) {
            x->limit = bps->valuedouble;
            const cJSON *by = cJSON_GetObjectItemCaseSensitive(lim, "bound_by");
            if (cJSON_IsString(by))
                snprintf(x->bound_by, sizeof(x->bound_by), "%s", by->valuestring);
        }
        const cJSON *pct = cJSON_GetObjectItemCaseSensitive(row, "pct_of_limit");
        if (cJSON_IsNumber(pct) && pct->valuedouble >= 0 && np < 64)
            pcts[np++] = pct->valuedouble;
    }
    if (np)
        x->pct = gdr_median_inplace(pcts, np);
    if (!x->clean_known)
        x->clean = true;
}
