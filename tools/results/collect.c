/* collect.c - documents from files and directories, grouped into series. */
#include "config.h"

#include "collect.h"
#include "stats.h"
#include "order.h"
#include "error.h"
#include "json.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct names {
    size_t n, cap;
    char **v;
};

static int names_add(struct names *l, const char *name)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name)))
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    l->n++;
    return 0;
}

static void names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

#define MANIFEST "manifest.json"

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The sweep's manifest.json lies beside its result documents: not one of them. */
static bool is_json_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".json") && strcmp(name, MANIFEST);
}

static int add_dir(struct names *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", dir, strerror(errno));
    size_t first = l->n;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!is_json_name(e->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        rc = names_add(l, path);
    }
    closedir(d);
    if (rc)
        return -1;
    if (l->n == first)
        return gdr_fail(GDR_EXIT_USAGE, "%s: no result documents (*.json) in this directory", dir);
    qsort(l->v + first, l->n - first, sizeof(*l->v), gdr_cmp_strp);
    return 0;
}

static int expand(char *const *paths, size_t npaths, struct names *out)
{
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st))
            return gdr_fail(GDR_EXIT_USAGE, "%s: %s", paths[i], strerror(errno));
        if (!S_ISDIR(st.st_mode) && !strcmp(base_name(paths[i]), MANIFEST))
            continue;
        if (S_ISDIR(st.st_mode) ? add_dir(out, paths[i]) : names_add(out, paths[i]))
            return -1;
    }
    return 0;
}

static bool same_key(const struct gdr_series *s, const struct gdr_doc *d)
{
    return !strcmp(s->test, d->test) && !strcmp(s->pair, d->pair) && !strcmp(s->reg, d->reg);
}

#define NFIELDS (7 + LAT_N)

static double *field_of(struct gdr_row *r, int f)
{
    switch (f) {
    case 0: return &r->bw_avg;
    case 1: return &r->bw_peak;
    case 2: return &r->msg_rate;
    case 3: return &r->cpu_client;
    case 4: return &r->cpu_server;
    case 5: return &r->limit;
    case 6: return &r->pct_of_limit;
    default: return &r->lat[f - 7];
    }
}

/* The sizes of every document, each size's numbers the median over them. */
static int merge_rows(struct gdr_series *s)
{
    size_t cap = 0;
    for (size_t i = 0; i < s->ndocs; i++)
        cap += s->docs[i]->nrows;
    uint64_t *sizes = calloc(cap + 1, sizeof(*sizes));
    double *vals = calloc(s->ndocs + 1, sizeof(*vals));
    s->rows = calloc(cap + 1, sizeof(*s->rows));
    if (!sizes || !vals || !s->rows) {
        free(sizes);
        free(vals);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < s->ndocs; i++)
        for (size_t j = 0; j < s->docs[i]->nrows; j++)
            sizes[n++] = s->docs[i]->rows[j].size;
    qsort(sizes, n, sizeof(*sizes), gdr_cmp_u64);
    s->nsizes = 0;
    for (size_t k = 0; k < n; k++) {
        if (k && sizes[k] == sizes[k - 1])
            continue;
        struct gdr_row *out = &s->rows[s->nsizes++];
        out->size = sizes[k];
        out->clean = -1;
        for (int f = 0; f < NFIELDS; f++) {
            size_t m = 0;
            for (size_t i = 0; i < s->ndocs; i++) {
                const struct gdr_row *r = gdr_doc_row(s->docs[i], sizes[k]);
                if (!r)
                    continue;
                if (!isnan(*field_of((struct gdr_row *)r, f))) /* an unknown limit */
                    vals[m++] = *field_of((struct gdr_row *)r, f);
                if (f == 0) {
                    out->iterations += r->iterations;
                    /* one repeat that counted errors makes the size suspect */
                    if (r->clean == 0 || (r->clean == 1 && out->clean == -1))
                        out->clean = r->clean;
                }
            }
            *field_of(out, f) = gdr_median_inplace(vals, m);
        }
    }
    free(sizes);
    free(vals);
    return 0;
}

static int group(struct gdr_set *set)
{
    set->series = calloc(set->ndocs + 1, sizeof(*set->series));
    if (!set->series)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    for (size_t i = 0; i < set->ndocs; i++) {
        const struct gdr_doc *d = &set->docs[i];
        if (!d->rows)
            continue; /* skipped */
        struct gdr_series *s = NULL;
        for (size_t k = 0; k < set->nseries && !s; k++)
            if (same_key(&set->series[k], d))
                s = &set->series[k];
        if (!s) {
            s = &set->series[set->nseries++];
            snprintf(s->test, sizeof(s->test), "%s", d->test);
            snprintf(s->metric, sizeof(s->metric), "%s", d->metric);
            snprintf(s->pair, sizeof(s->pair), "%s", d->pair);
            snprintf(s->reg, sizeof(s->reg), "%s", d->reg);
            snprintf(s->gdr, sizeof(s->gdr), "%s", d->gdr);
            s->latency = d->latency;
            s->docs = calloc(set->ndocs, sizeof(*s->docs));
            if (!s->docs)
                return gdr_fail(GDR_EXIT_RUN, "out of memory");
        } else if (strcmp(s->metric, d->metric)) {
            return gdr_fail(GDR_EXIT_USAGE, "%s: test %s measures %s, but %s says %s", d->path,
                            d->test, d->metric, s->docs[0]->path, s->metric);
        }
        bool client = !strcmp(d->role, "client");
        bool have_client = s->ndocs && !strcmp(s->docs[0]->role, "client");
        if (client && !have_client)
            s->ndocs = 0; /* the client's documents replace the server's */
        if (client || !have_client)
            s->docs[s->ndocs++] = d;
        s->simulated |= d->simulated;
    }
    for (size_t k = 0; k < set->nseries; k++)
        if (merge_rows(&set->series[k]))
            return -1;
    return 0;
}

/* A sweep's manifest (gdrbench.sweep/1) marks each run "simulated" when its
 * GPU ends used the CUDA driver test double. The manifest is read from the
 * document's directory; the last one read is kept for the next document. */
struct manifest_cache {
    char dir[4096];
    cJSON *root;
};

static bool manifest_says_simulated(struct manifest_cache *c, const char *path)
{
    const char *file = base_name(path);
    char dir[4096];
    snprintf(dir, sizeof(dir), "%.*s", file == path ? 1 : (int)(file - path - 1),
             file == path ? "." : path);
    if (!c->dir[0] || strcmp(c->dir, dir)) {
        cJSON_Delete(c->root);
        c->root = NULL;
        snprintf(c->dir, sizeof(c->dir), "%s", dir);
        char mpath[4200];
        snprintf(mpath, sizeof(mpath), "%s/%s", dir, MANIFEST);
        if (access(mpath, F_OK))
            return false;
        if (!(c->root = gdr_json_read_file(mpath, GDR_DOC_MAX_BYTES)))
            fprintf(stderr,
                    "gdr-json: note: %s: unreadable, its \"simulated\" flags are "
                    "not used\n",
                    mpath);
    }
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(c->root, "runs"), *r;
    cJSON_ArrayForEach(r, runs) {
        const cJSON *files = cJSON_GetObjectItemCaseSensitive(r, "files");
        const cJSON *fc = cJSON_GetObjectItemCaseSensitive(files, "client");
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(files, "server");
        if ((cJSON_IsString(fc) && !strcmp(fc->valuestring, file)) ||
            (cJSON_IsString(fs) && !strcmp(fs->valuestring, file)))
            return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "simulated"));
    }
    return false;
}

int gdr_set_load(struct gdr_set *set, char *const *paths, size_t npaths,
                 enum gdr_incomplete incomplete, bool *failed_run)
{
    memset(set, 0, sizeof(*set));
    *failed_run = false;
    struct names files = {0};
    int rc = -1;
    if (expand(paths, npaths, &files))
        goto out;
    set->docs = calloc(files.n + 1, sizeof(*set->docs));
    if (!set->docs) {
        gdr_fail(GDR_EXIT_RUN, "out of memory");
        goto out;
    }
    struct manifest_cache mc = {{0}, NULL};
    for (size_t i = 0; i < files.n; i++) {
        struct gdr_doc *d = &set->docs[set->ndocs];
        if (gdr_doc_load(files.v[i], d)) {
            cJSON_Delete(mc.root);
            goto out;
        }
        set->ndocs++;
        if (manifest_says_simulated(&mc, d->path))
            d->simulated = true;
        if (!strcmp(d->status, "complete"))
            continue;
        if (incomplete == GDR_INCOMPLETE_FAIL) {
            *failed_run = true;
            gdr_fail(GDR_EXIT_RUN, "%s: the run is %s: %s", d->path, d->status, d->error);
            goto out;
        }
        fprintf(stderr, "gdr-json: note: %s: skipped, the run is %s: %s\n", d->path, d->status,
                d->error);
        gdr_doc_free(d);
    }
    cJSON_Delete(mc.root);
    rc = group(set);
out:
    names_free(&files);
    return rc;
}

void gdr_set_free(struct gdr_set *set)
{
    for (size_t k = 0; k < set->nseries; k++) {
        free(set->series[k].docs);
        free(set->series[k].rows);
    }
    free(set->series);
    for (size_t i = 0; i < set->ndocs; i++)
        gdr_doc_free(&set->docs[i]);
    free(set->docs);
    memset(set, 0, sizeof(*set));
}

const struct gdr_series *gdr_set_find(const struct gdr_set *set, const struct gdr_series *like)
{
    for (size_t k = 0; k < set->nseries; k++) {
        const struct gdr_series *s = &set->series[k];
        if (!strcmp(s->test, like->test) && !strcmp(s->pair, like->pair) &&
            !strcmp(s->reg, like->reg))
            return s;
    }
    return NULL;
}

struct gdr_unit gdr_set_unit(const struct gdr_set *set, bool lat)
{
    double max = 0;
    for (size_t k = 0; k < set->nseries; k++)
        for (size_t i = 0; set->series[k].latency == lat && i < set->series[k].nsizes; i++) {
            const struct gdr_row *r = &set->series[k].rows[i];
            max = fmax(max, lat ? r->lat[LAT_P99] : fmax(r->bw_avg, r->limit));
        }
    return lat ? gdr_unit_lat(max) : gdr_unit_bw(max);
}

void gdr_series_name(const struct gdr_series *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s", s->test, s->pair, s->reg);
}
