/* history_ingest.c - read a run directory, check it all, then write it. */
#include "config.h"

#include "history_ingest.h"
#include "doc.h"
#include "error.h"
#include "json.h"
#include "stats.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_MAX_BYTES (16u << 20)

struct failed_run {
    char name[128], reason[512];
};

struct run_in {
    char run_id[128], date[40], version[64], mode[16];
    long planned, ok, failed;
    bool unfinished; /* the manifest has no end: the sweep was stopped */
    size_t ndocs, nfailed;
    struct gdr_doc *docs;
    bool *bidir;
    struct failed_run *failed_runs;
};

static void run_free(struct run_in *r)
{
    for (size_t i = 0; i < r->ndocs; i++)
        gdr_doc_free(&r->docs[i]);
    free(r->docs);
    free(r->bidir);
    free(r->failed_runs);
}

/* perftest's -b / --bidirectional on the command line; gdrbench has no
 * such mode yet, so its documents are all unidirectional. */
static bool bidirectional(const cJSON *root)
{
    const cJSON *it, *cl = cJSON_GetObjectItemCaseSensitive(root, "command_line");
    cJSON_ArrayForEach(it, cl)
        if (cJSON_IsString(it) &&
            (!strcmp(it->valuestring, "-b") || !strcmp(it->valuestring, "--bidirectional")))
            return true;
    return false;
}

static int add_doc(struct run_in *r, const char *path)
{
    struct gdr_doc *d = realloc(r->docs, (r->ndocs + 1) * sizeof(*d));
    bool *b = realloc(r->bidir, (r->ndocs + 1) * sizeof(*b));
    if (d)
        r->docs = d;
    if (b)
        r->bidir = b;
    if (!d || !b)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root)
        return gdr_fail(GDR_EXIT_USAGE, "%s: unreadable or not JSON", path);
    int rc = gdr_doc_from_json(root, path, &r->docs[r->ndocs]);
    if (rc == 0)
        r->bidir[r->ndocs++] = bidirectional(root);
    cJSON_Delete(root);
    return rc;
}

static int str_or_null(const cJSON *o, const char *key, char *buf, size_t len, const char *what)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    buf[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return 0;
    return gdr_json_str(o, key, buf, len, what);
}

static int count(const cJSON *m, const char *key, long *out, const char *what)
{
    uint64_t v;
    if (gdr_json_u64(m, key, 1000000, &v, what))
        return -1;
    *out = (long)v;
    return 0;
}

static int add_failed(struct run_in *r, const char *name, const char *reason)
{
    struct failed_run *f = realloc(r->failed_runs, (r->nfailed + 1) * sizeof(*f));
    if (!f)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    r->failed_runs = f;
    snprintf(f[r->nfailed].name, sizeof(f->name), "%s", name);
    snprintf(f[r->nfailed].reason, sizeof(f->reason), "%s", reason);
    r->nfailed++;
    return 0;
}

static bool listed(const cJSON *runs, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, runs) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return true;
    }
    return false;
}

static int client_doc(const struct dirent *e)
{
    size_t n = strlen(e->d_name), k = strlen(".client.json");
    return n > k && !strcmp(e->d_name + n - k, ".client.json") && e->d_name[0] != '.';
}

/* An unfinished sweep's runs that have a client document but no entry
 * (the one it stopped in): failed runs, with the document's error if it
 * has one. Read, never judged. */
static int unlisted_runs(const char *dir, const cJSON *m, struct run_in *r)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m, "runs");
    struct dirent **list;
    int n = scandir(dir, &list, client_doc, alphasort);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char name[256], path[2048], why[512];
        snprintf(name, sizeof(name), "%.*s", (int)(strlen(list[i]->d_name) - 12), list[i]->d_name);
        if (!rc && !listed(runs, name)) {
            snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
            enum gdr_exit before = gdr_error_code();
            cJSON *doc = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
            if (before == GDR_EXIT_OK)
                gdr_error_clear();
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
            snprintf(why, sizeof(why), "the sweep stopped during this run%s%.400s",
                     cJSON_IsString(e) ? ": " : " (not in manifest.json)",
                     cJSON_IsString(e) ? e->valuestring : "");
            cJSON_Delete(doc);
            rc = add_failed(r, name, why);
            /* It may name the testbed when no run finished. */
            if (!rc && add_doc(r, path) && before == GDR_EXIT_OK)
                gdr_error_clear();
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

/* A sweep's manifest: the run's facts, its ok runs' client documents and
 * its failed runs; an unfinished sweep's runs all as failed runs. */
static int read_manifest(const char *dir, const char *path, struct run_in *r)
{
    cJSON *m = gdr_json_read_file(path, MANIFEST_MAX_BYTES);
    if (!m)
        return gdr_fail(GDR_EXIT_USAGE, "%s: unreadable or not JSON", path);
    int rc = -1;
    char ver[64];
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m, "runs");
    if (gdr_json_str(m, "manifest_version", ver, sizeof(ver), path))
        goto out;
    if (strcmp(ver, "gdrbench.sweep/1")) {
        gdr_fail(GDR_EXIT_USAGE, "%s: manifest_version '%s' is not gdrbench.sweep/1", path, ver);
        goto out;
    }
    if (gdr_json_str(m, "run_id", r->run_id, sizeof(r->run_id), path) ||
        gdr_json_str(m, "date", r->date, sizeof(r->date), path) ||
        gdr_json_str(m, "git_version", r->version, sizeof(r->version), path) ||
        gdr_json_str(m, "mode", r->mode, sizeof(r->mode), path))
        goto out;
    /* A sweep that was stopped (a nightly killed mid-sweep) never wrote its
     * end: nothing of it is taken as a good point. */
    r->unfinished = !cJSON_GetObjectItemCaseSensitive(m, "end_date") ||
                    !cJSON_GetObjectItemCaseSensitive(m, "planned");
    if (!r->unfinished && (count(m, "planned", &r->planned, path) || count(m, "ok", &r->ok, path) ||
                           count(m, "failed", &r->failed, path)))
        goto out;
    if (!cJSON_IsArray(runs)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: field 'runs' is %s", path, runs ? "not an array" : "missing");
        goto out;
    }
    const cJSON *it;
    size_t i = 0;
    cJSON_ArrayForEach(it, runs) {
        char what[2200], status[16], name[128], reason[512], client[512];
        snprintf(what, sizeof(what), "%s: runs[%zu]", path, i++);
        const cJSON *files = cJSON_GetObjectItemCaseSensitive(it, "files");
        if (!cJSON_IsObject(it) || !cJSON_IsObject(files)) {
            gdr_fail(GDR_EXIT_USAGE, "%s: not an object with 'files'", what);
            goto out;
        }
        if (gdr_json_str(it, "status", status, sizeof(status), what) ||
            gdr_json_str(it, "name", name, sizeof(name), what) ||
            str_or_null(it, "reason", reason, sizeof(reason), what) ||
            str_or_null(files, "client", client, sizeof(client), what))
            goto out;
        if (r->unfinished &&
            add_failed(r, name,
                       strcmp(status, "ok") ? (reason[0] ? reason : status)
                                            : "finished, but the sweep did not (no end_date in "
                                              "manifest.json): not used"))
            goto out;
        /* An unfinished sweep's ok documents are read (and checked) only
         * to name the testbed. */
        if (!strcmp(status, "ok")) {
            char doc[2048];
            if (!client[0] || strchr(client, '/')) {
                gdr_fail(GDR_EXIT_USAGE,
                         "%s: an ok run without a client document in the run "
                         "directory",
                         what);
                goto out;
            }
            snprintf(doc, sizeof(doc), "%s/%s", dir, client);
            if (add_doc(r, doc))
                goto out;
        } else if (!r->unfinished && add_failed(r, name, reason[0] ? reason : status)) {
            goto out;
        }
    }
    rc = r->unfinished ? unlisted_runs(dir, m, r) : 0;
    if (r->unfinished) {
        r->planned = -1;
        r->ok = 0;
        r->failed = (long)r->nfailed;
    }
out:
    cJSON_Delete(m);
    return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int json_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 5 && !strcmp(e->d_name + n - 5, ".json") && e->d_name[0] != '.';
}

/* A plain directory of result documents: its client documents (a server
 * document only stands in where it is the only one of its run). */
static int read_documents(const char *dir, struct run_in *r)
{
    struct dirent **list;
    int n = scandir(dir, &list, json_file, by_name);
    if (n < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read the directory", dir);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
        rc = add_doc(r, path);
        if (rc == 0 && (strcmp(r->docs[r->ndocs - 1].role, "client") ||
                        strcmp(r->docs[r->ndocs - 1].status, "complete")))
            gdr_doc_free(&r->docs[--r->ndocs]);
    }
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    if (rc)
        return -1;
    if (r->ndocs == 0)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: no manifest.json and no complete client result "
                        "document",
                        dir);
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    snprintf(r->run_id, sizeof(r->run_id), "%s", base);
    snprintf(r->version, sizeof(r->version), "%s", r->docs[0].version);
    snprintf(r->mode, sizeof(r->mode), "documents");
    snprintf(r->date, sizeof(r->date), "%s", r->docs[0].start_time);
    for (size_t i = 1; i < r->ndocs; i++)
        if (strcmp(r->docs[i].start_time, r->date) < 0)
            snprintf(r->date, sizeof(r->date), "%s", r->docs[i].start_time);
    r->planned = r->ok = r->failed = -1;
    return 0;
}

static bool is_rxe(const char *dev)
{
    return !strncmp(dev, "rxe", 3);
}

/* CLIENT:DEV-SERVER:DEV, a link's name: "client-host:dev-server-host:dev". */
#define LINK_NAME_MAX (2 * (sizeof(((struct gdr_end_info *)0)->host) + 64) + 4)
static void link_name(const struct gdr_doc *d, char *out, size_t len)
{
    snprintf(out, len, "%s:%s-%s:%s", d->client.host, d->client.device, d->server.host,
             d->server.device);
}

/* A testbed's name: the link's, with the GPU when one end has one, or
 * under a label (a cluster run's --testbed). A long name is cut. */
static void testbed_name(const char *link, const char *gpu, const char *label, char *out,
                         size_t len)
{
    int n = label ? snprintf(out, len, "%s/%s", label, link)
                  : snprintf(out, len, "%s%s%s", link, gpu[0] ? "+" : "", gpu);
    if (n < 0)
        out[0] = '\0';
}

static const char *gpu_of(const struct gdr_doc *d)
{
    return d->client.cuda_name[0] ? d->client.cuda_name : d->server.cuda_name;
}

/* The documents' testbed; --testbed names a testbed exactly instead. */
static void default_testbed(const struct gdr_doc *docs, size_t ndocs, char *out, size_t len)
{
    const char *gpu = "";
    for (size_t i = 0; i < ndocs && !gpu[0]; i++)
        gpu = gpu_of(&docs[i]);
    char link[LINK_NAME_MAX];
    link_name(&docs[0], link, sizeof(link));
    testbed_name(link, gpu, NULL, out, len);
}

/* A soak is one night: its value the median over its intervals (its one
 * row is the last interval's). Clean is the whole soak's: not clean when
 * the fabric failed in it (an outage, an error counter that rose in any
 * interval: a finding), since its median then mixes two states; unknown
 * stays unknown (no counters) unless an outage says otherwise. */
static void soak_point(const struct gdr_doc *d, struct hdb_point_in *p)
{
    p->value = d->soak.median;
    p->spread = NAN;
    if (p->clean >= 0 || d->soak.fabric)
        p->clean = !d->soak.fabric;
}

static int write_doc(struct hdb *h, const struct gdr_doc *d, bool bidir, const char *testbed,
                     int64_t run, struct hist_ingest_result *res)
{
    struct hdb_key k = {.bidir = bidir};
    snprintf(k.testbed, sizeof(k.testbed), "%s", testbed);
    snprintf(k.test, sizeof(k.test), "%s", d->test);
    snprintf(k.cplace, sizeof(k.cplace), "%s", d->client.placement);
    snprintf(k.creg, sizeof(k.creg), "%s", d->client.registration);
    snprintf(k.splace, sizeof(k.splace), "%s", d->server.placement);
    snprintf(k.sreg, sizeof(k.sreg), "%s", d->server.registration);
    snprintf(k.metric, sizeof(k.metric), "%s", d->metric);
    const char *doc = strrchr(d->path, '/');
    if (hdb_begin(h))
        return -1;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct gdr_row *row = &d->rows[i];
        struct hdb_point_in p = {
            .value = d->latency ? row->lat[LAT_MEDIAN] : row->bw_avg,
            .spread = d->latency ? row->lat[LAT_STDEV] : NAN,
            .simulated = d->simulated,
            .soft_roce = is_rxe(d->client.device) && is_rxe(d->server.device),
            .clean = row->clean,
            .pct_of_limit = d->latency ? NAN : row->pct_of_limit,
            .document = doc ? doc + 1 : d->path,
        };
        if (d->soak.present && isnan(d->soak.median))
            continue; /* no interval ran: nothing measured */
        if (d->soak.present)
            soak_point(d, &p);
        bool added;
        k.size = row->size;
        if (hdb_add_point(h, &k, run, &p, &added)) {
            hdb_rollback(h);
            return -1;
        }
        if (added)
            res->points_added++;
        else
            res->points_present++;
    }
    return hdb_commit(h);
}

/* The run row and its failures in one transaction, then each document's
 * points in one more; res's counts add up over calls. */
static int store_run(struct hdb *h, const struct run_in *r, const char *testbed, const char *source,
                     struct hist_ingest_result *res)
{
    struct hdb_run run = {.testbed = testbed,
                          .run_id = r->run_id,
                          .date = r->date,
                          .version = r->version,
                          .mode = r->mode,
                          .source = source,
                          .planned = r->planned,
                          .ok = r->ok,
                          .failed = r->failed};
    int64_t id;
    bool added;
    if (hdb_begin(h))
        return -1;
    if (hdb_add_run(h, &run, &id, &added))
        goto rollback;
    res->run_added = added;
    res->runs_added += added;
    for (size_t i = 0; i < r->nfailed; i++) {
        if (hdb_add_failure(h, id, r->failed_runs[i].name, r->failed_runs[i].reason, &added))
            goto rollback;
        res->failures++;
    }
    if (hdb_commit(h))
        return -1;
    for (size_t i = 0; i < r->ndocs && !r->unfinished; i++)
        if (write_doc(h, &r->docs[i], r->bidir[i], testbed, id, res))
            return -1;
    return 0;
rollback:
    hdb_rollback(h);
    return -1;
}

/* ---- a cluster run (gdr-cluster's directory): a night per link ---- */

/* One client document of a cluster run, as read by the first pass. */
struct link_doc {
    char link[LINK_NAME_MAX]; /* link_name: the testbed, less the GPU */
    char gpu[128];            /* an end's GPU name, "" for none */
    char name[256];           /* the file's name in the directory */
};

static int by_link(const void *a, const void *b)
{
    const struct link_doc *x = a, *y = b;
    int c = strcmp(x->link, y->link);
    return c ? c : strcmp(x->name, y->name);
}

static bool is_cluster_dir(const char *dir, bool *soak)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/plan.json", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    fclose(f);
    enum gdr_exit before = gdr_error_code();
    cJSON *plan = gdr_json_read_file(path, MANIFEST_MAX_BYTES);
    bool yes = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(plan, "plan_version"));
    *soak = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(plan, "soak"));
    cJSON_Delete(plan);
    if (before == GDR_EXIT_OK)
        gdr_error_clear(); /* not a plan: the directory is read as before */
    return yes;
}

/* The first pass: every client document read and checked, its link noted;
 * the documents themselves are read again one link at a time. A document
 * without both ends (a run that failed before the ends met) names no link:
 * counted, not stored (the cluster's own report has it). */
static int cluster_links(const char *dir, struct link_doc **out, size_t *n, size_t *endless,
                         char first[40])
{
    struct dirent **list;
    int nl = scandir(dir, &list, client_doc, alphasort);
    if (nl < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read the directory", dir);
    struct link_doc *v = calloc(nl > 0 ? (size_t)nl : 1, sizeof(*v));
    int rc = v ? 0 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    *n = *endless = 0;
    first[0] = '\0';
    for (int i = 0; i < nl; i++) {
        char path[2048];
        struct gdr_doc d;
        snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
        cJSON *root = rc ? NULL : gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
        if (!rc && !root)
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: unreadable or not JSON", path);
        if (root && !(rc = gdr_doc_from_json(root, path, &d))) {
            if (d.start_time[0] && (!first[0] || strcmp(d.start_time, first) < 0))
                snprintf(first, 40, "%s", d.start_time);
            if (strcmp(d.role, "client"))
                rc = gdr_fail(GDR_EXIT_USAGE, "%s: role '%s', not client", path, d.role);
            else if (!d.has_client || !d.has_server)
                (*endless)++;
            else {
                struct link_doc *l = &v[(*n)++];
                link_name(&d, l->link, sizeof(l->link));
                snprintf(l->gpu, sizeof(l->gpu), "%s", gpu_of(&d));
                snprintf(l->name, sizeof(l->name), "%s", list[i]->d_name);
            }
            gdr_doc_free(&d);
        }
        cJSON_Delete(root);
        free(list[i]);
    }
    free(list);
    if (rc) {
        free(v);
        return -1;
    }
    if (*n == 0) {
        free(v);
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: a cluster run without a client document that names both "
                        "ends: nothing to take",
                        dir);
    }
    qsort(v, *n, sizeof(*v), by_link);
    *out = v;
    return 0;
}

static bool same_series(const struct gdr_doc *a, bool abidir, const struct gdr_doc *b, bool bbidir)
{
    return abidir == bbidir && a->nrows == 1 && b->nrows == 1 &&
           a->rows[0].size == b->rows[0].size && !strcmp(a->test, b->test) &&
           !strcmp(a->metric, b->metric) && !strcmp(a->client.placement, b->client.placement) &&
           !strcmp(a->client.registration, b->client.registration) &&
           !strcmp(a->server.placement, b->server.placement) &&
           !strcmp(a->server.registration, b->server.registration);
}

/* A link that soaked in several rounds of one cluster soak (the pairing
 * rotated back to it) gives its night one point per series: the median of
 * its soaks' medians, clean only where every one of them was. */
static int merge_soaks(struct run_in *r)
{
    double *m = malloc((r->ndocs ? r->ndocs : 1) * sizeof(*m));
    if (!m)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    for (size_t i = 0; i < r->ndocs; i++) {
        struct gdr_doc *a = &r->docs[i];
        if (!a->soak.present || a->nrows != 1)
            continue;
        size_t n = 0;
        if (!isnan(a->soak.median))
            m[n++] = a->soak.median;
        for (size_t j = i + 1; j < r->ndocs;) {
            struct gdr_doc *b = &r->docs[j];
            if (!b->soak.present || !same_series(a, r->bidir[i], b, r->bidir[j])) {
                j++;
                continue;
            }
            if (!isnan(b->soak.median))
                m[n++] = b->soak.median;
            a->soak.fabric |= b->soak.fabric;
            int *ac = &a->rows[0].clean, bc = b->rows[0].clean;
            *ac = *ac == 0 || bc == 0 ? 0 : *ac < 0 || bc < 0 ? -1 : 1;
            gdr_doc_free(b);
            r->ndocs--;
            r->docs[j] = r->docs[r->ndocs];
            r->bidir[j] = r->bidir[r->ndocs];
        }
        a->soak.median = gdr_median_inplace(m, n);
    }
    free(m);
    return 0;
}

/* What every link's night of a cluster run shares. */
struct cluster_run {
    const char *dir, *label, *source, *mode;
    char run_id[128];
    char first[40]; /* the earliest start_time of its documents */
};

/* One link's documents (v[0..n)): its night, a run of the cluster's id. */
static int store_link(struct hdb *h, const struct cluster_run *c, const struct link_doc *v,
                      size_t n, struct hist_ingest_result *res)
{
    struct run_in r = {.planned = (long)n};
    char testbed[sizeof(res->testbed)];
    const char *gpu = "";
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char path[2048], name[256];
        snprintf(path, sizeof(path), "%s/%s", c->dir, v[i].name);
        snprintf(name, sizeof(name), "%.*s", (int)(strlen(v[i].name) - 12), v[i].name);
        if (!gpu[0])
            gpu = v[i].gpu;
        rc = add_doc(&r, path);
        struct gdr_doc *d = rc ? NULL : &r.docs[r.ndocs - 1];
        if (d && strcmp(d->status, "complete")) {
            rc = add_failed(&r, name, d->error[0] ? d->error : d->status);
            gdr_doc_free(&r.docs[--r.ndocs]);
        }
    }
    if (!rc) {
        r.ok = (long)r.ndocs;
        rc = merge_soaks(&r);
    }
    if (!rc) {
        r.failed = (long)r.nfailed;
        snprintf(r.run_id, sizeof(r.run_id), "%s", c->run_id);
        snprintf(r.mode, sizeof(r.mode), "%s", c->mode);
        for (size_t i = 0; i < r.ndocs; i++)
            if (!r.date[0] || strcmp(r.docs[i].start_time, r.date) < 0)
                snprintf(r.date, sizeof(r.date), "%s", r.docs[i].start_time);
        if (r.ndocs)
            snprintf(r.version, sizeof(r.version), "%s", r.docs[0].version);
        if (!r.date[0]) /* every run of the link failed: its date is unknown */
            snprintf(r.date, sizeof(r.date), "%s", c->first);
        testbed_name(v[0].link, gpu, c->label, testbed, sizeof(testbed));
        rc = store_run(h, &r, testbed, c->source, res);
    }
    run_free(&r);
    return rc;
}

/* A cluster run: each link (client and server host and device) is its
 * testbed's night, named as a two-node run between them would be, so a
 * link's nights from cluster soaks and from its own nightlies are one
 * series. label (--testbed) prefixes each link's name instead. */
static int ingest_cluster(struct hdb *h, const char *dir, bool soak, const char *label,
                          const char *source, struct hist_ingest_result *res)
{
    struct cluster_run c = {
        .dir = dir, .label = label, .source = source, .mode = soak ? "cluster-soak" : "cluster"};
    struct link_doc *v = NULL;
    size_t n = 0;
    if (cluster_links(dir, &v, &n, &res->endless, c.first))
        return -1;
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    snprintf(c.run_id, sizeof(c.run_id), "%s", base);
    snprintf(res->run_id, sizeof(res->run_id), "%s", c.run_id);
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i;
        while (j < n && !strcmp(v[j].link, v[i].link))
            j++;
        rc = store_link(h, &c, v + i, j - i, res);
        res->links++;
        i = j;
    }
    free(v);
    return rc;
}

int hist_ingest_dir(struct hdb *h, const char *dir, const char *testbed,
                    struct hist_ingest_result *res)
{
    memset(res, 0, sizeof(*res));
    struct run_in r = {0};
    /* The directory's absolute path, so the dashboard can link its report. */
    char *abs = realpath(dir, NULL);
    const char *source = abs ? abs : dir;
    char manifest[2048];
    snprintf(manifest, sizeof(manifest), "%s/manifest.json", dir);
    int rc = -1;
    bool soak;
    if (is_cluster_dir(dir, &soak)) {
        rc = ingest_cluster(h, dir, soak, testbed, source, res);
        goto out;
    }
    FILE *f = fopen(manifest, "r");
    if (f) {
        fclose(f);
        if (read_manifest(dir, manifest, &r))
            goto out;
    } else if (read_documents(dir, &r)) {
        goto out;
    }
    if (testbed)
        snprintf(res->testbed, sizeof(res->testbed), "%s", testbed);
    else if (r.ndocs)
        default_testbed(r.docs, r.ndocs, res->testbed, sizeof(res->testbed));
    else {
        gdr_fail(GDR_EXIT_USAGE,
                 "%s: no complete run to name the testbed after: give "
                 "--testbed",
                 dir);
        goto out;
    }
    snprintf(res->run_id, sizeof(res->run_id), "%s", r.run_id);
    res->unfinished = r.unfinished;
    rc = store_run(h, &r, res->testbed, source, res);
out:
    free(abs);
    run_free(&r);
    return rc;
}
