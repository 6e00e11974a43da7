/* doc.c - read and check one result document. Every rule here is written
 * down in docs/results-format.md and results/schema/result.schema.json. */
#include "config.h"

#include "doc.h"
#include "error.h"
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* Name a part of the document in messages ("x.json: results[2].cpu"). */
__attribute__((format(printf, 3, 4))) static void name_part(char *buf, size_t len, const char *fmt,
                                                            ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static const cJSON *object(const cJSON *parent, const char *key, const char *what)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!o) {
        gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' is missing", what, key);
        return NULL;
    }
    if (!cJSON_IsObject(o)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' is not an object", what, key);
        return NULL;
    }
    return o;
}

static const cJSON *array(const cJSON *parent, const char *key, const char *what)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!cJSON_IsArray(a)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' is %s", what, key, a ? "not an array" : "missing");
        return NULL;
    }
    return a;
}

static int one_of(const cJSON *obj, const char *key, const char *const *allowed, char *buf,
                  size_t len, const char *what)
{
    if (gdr_json_str(obj, key, buf, len, what))
        return -1;
    for (size_t i = 0; allowed[i]; i++)
        if (!strcmp(buf, allowed[i]))
            return 0;
    return gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' has unknown value '%s'", what, key, buf);
}

static int nonneg(const cJSON *obj, const char *key, double *out, const char *what)
{
    if (gdr_json_double(obj, key, out, what))
        return -1;
    if (*out < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' is negative (%g)", what, key, *out);
    return 0;
}

static int u64(const cJSON *obj, const char *key, uint64_t *out, const char *what)
{
    return gdr_json_u64(obj, key, UINT64_MAX, out, what);
}

static int str_array(const cJSON *obj, const char *key, const char *what)
{
    const cJSON *a = array(obj, key, what);
    if (!a)
        return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (!cJSON_IsString(it))
            return gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' holds a non-string", what, key);
    return 0;
}

static const char *const placements[] = {"host", "cuda", NULL};
static const char *const registrations[] = {"host", "dmabuf", "peermem", "staged", NULL};

static int end_info(const cJSON *ends, const char *role, struct gdr_end_info *e, bool *present,
                    const char *what)
{
    char w[1200];
    name_part(w, sizeof(w), "%s: ends.%s", what, role);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(ends, role);
    snprintf(e->placement, sizeof(e->placement), "host");
    snprintf(e->registration, sizeof(e->registration), "host");
    *present = o != NULL;
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", w);
    uint64_t v;
    double d;
    if (gdr_json_str(o, "host", e->host, sizeof(e->host), w) ||
        gdr_json_str(o, "device", e->device, sizeof(e->device), w) || u64(o, "port", &v, w) ||
        u64(o, "active_mtu", &v, w) || nonneg(o, "speed_bps", &d, w) ||
        gdr_json_double(o, "gid_index", &d, w) || u64(o, "buffer_bytes", &v, w) ||
        u64(o, "num_qps", &v, w))
        return -1;
    /* Placement and registration came later than the rest: absent means host. */
    if (cJSON_GetObjectItemCaseSensitive(o, "placement") &&
        one_of(o, "placement", placements, e->placement, sizeof(e->placement), w))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(o, "registration") &&
        one_of(o, "registration", registrations, e->registration, sizeof(e->registration), w))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(o, "cuda_name") &&
        gdr_json_str(o, "cuda_name", e->cuda_name, sizeof(e->cuda_name), w))
        return -1;
    return 0;
}

/* GDR is "on" when a CUDA buffer is registered for the NIC directly,
 * "off" when a CUDA buffer goes through a host staging ring, and "n/a"
 * when both buffers are in host memory. */
static const char *end_gdr(const struct gdr_end_info *e)
{
    if (strcmp(e->placement, "cuda"))
        return "n/a";
    return !strcmp(e->registration, "dmabuf") || !strcmp(e->registration, "peermem") ? "on" : "off";
}

static void identity(struct gdr_doc *d)
{
    const char *c = end_gdr(&d->client), *s = end_gdr(&d->server);
    const char *g = !strcmp(c, "on") || !strcmp(s, "on")     ? "on"
                    : !strcmp(c, "off") || !strcmp(s, "off") ? "off"
                                                             : "n/a";
    snprintf(d->gdr, sizeof(d->gdr), "%s", g);
    snprintf(d->pair, sizeof(d->pair), "%s-%s", d->client.placement, d->server.placement);
    snprintf(d->reg, sizeof(d->reg), "%s/%s", d->client.registration, d->server.registration);
    /* The CUDA driver test double (tests/cudasim) names its devices "cudasim ...". */
    d->simulated =
        (!strcmp(d->client.placement, "cuda") && !strncmp(d->client.cuda_name, "cudasim", 7)) ||
        (!strcmp(d->server.placement, "cuda") && !strncmp(d->server.cuda_name, "cudasim", 7));
}

static int cpu_side(const cJSON *cpu, const char *side, double *out, const char *what)
{
    char w[1200];
    name_part(w, sizeof(w), "%s.cpu", what);
    const cJSON *o = object(cpu, side, w);
    name_part(w, sizeof(w), "%s.cpu.%s", what, side);
    double u, s;
    if (!o || nonneg(o, "user", &u, w) || nonneg(o, "system", &s, w))
        return -1;
    *out = u + s;
    return 0;
}

static const char *const lat_names[LAT_N] = {"min", "median", "mean", "stdev",
                                             "p99", "p999",   "max"};

static int latency_block(const cJSON *row, struct gdr_row *r, const char *what)
{
    const cJSON *l = object(row, "latency_s", what);
    if (!l)
        return -1;
    char w[1200];
    name_part(w, sizeof(w), "%s.latency_s", what);
    uint64_t count;
    if (u64(l, "count", &count, w))
        return -1;
    if (count == 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'count' is 0", w);
    for (int i = 0; i < LAT_N; i++)
        if (nonneg(l, lat_names[i], &r->lat[i], w))
            return -1;
    /* The order a consumer may rely on. */
    static const int chain[] = {LAT_MIN, LAT_MEDIAN, LAT_P99, LAT_P999, LAT_MAX};
    for (size_t i = 0; i + 1 < sizeof(chain) / sizeof(chain[0]); i++)
        if (r->lat[chain[i]] > r->lat[chain[i + 1]])
            return gdr_fail(GDR_EXIT_USAGE, "%s: %s (%g) > %s (%g)", w, lat_names[chain[i]],
                            r->lat[chain[i]], lat_names[chain[i + 1]], r->lat[chain[i + 1]]);
    if (r->lat[LAT_MEAN] < r->lat[LAT_MIN] || r->lat[LAT_MEAN] > r->lat[LAT_MAX])
        return gdr_fail(GDR_EXIT_USAGE, "%s: mean (%g) outside min..max", w, r->lat[LAT_MEAN]);
    return 0;
}

/* The optional context of a row (absent in older documents): clean,
 * limit.bytes_per_s and pct_of_limit, null when unknown. */
static int optional_number(const cJSON *obj, const char *key, double *out, const char *what)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NAN;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field '%s' is not a number >= 0 or null", what, key);
    *out = v->valuedouble;
    return 0;
}

static int row_context(const cJSON *row, struct gdr_row *r, const char *what)
{
    const cJSON *clean = cJSON_GetObjectItemCaseSensitive(row, "clean");
    if (clean && !cJSON_IsBool(clean))
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'clean' is not true or false", what);
    r->clean = clean ? cJSON_IsTrue(clean) : -1;
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(row, "limit");
    if (limit && !cJSON_IsObject(limit))
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'limit' is not an object", what);
    if (optional_number(row, "pct_of_limit", &r->pct_of_limit, what) ||
        optional_number(limit, "bytes_per_s", &r->limit, what))
        return -1;
    if (isnan(r->limit) != isnan(r->pct_of_limit))
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: pct_of_limit and limit.bytes_per_s disagree on "
                        "whether the limit is known",
                        what);
    return 0;
}

static int row_from_json(const cJSON *row, bool latency, bool complete, struct gdr_row *r,
                         const char *what)
{
    if (!cJSON_IsObject(row))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", what);
    uint64_t bytes, bad;
    double elapsed;
    bool validated;
    if (u64(row, "size", &r->size, what) || u64(row, "iterations", &r->iterations, what) ||
        u64(row, "bytes", &bytes, what) || nonneg(row, "elapsed_s", &elapsed, what) ||
        nonneg(row, "msg_rate_per_s", &r->msg_rate, what) ||
        gdr_json_bool(row, "validated", &validated, what) || u64(row, "bad_bytes", &bad, what))
        return -1;
    if (r->size == 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'size' is 0", what);
    if (r->iterations == 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'iterations' is 0", what);
    if (complete && bad)
        return gdr_fail(GDR_EXIT_USAGE, "%s: bad_bytes %llu in a complete run", what,
                        (unsigned long long)bad);
    if (latency) {
        if (latency_block(row, r, what))
            return -1;
    } else {
        if (nonneg(row, "bw_avg_bytes_per_s", &r->bw_avg, what) ||
            nonneg(row, "bw_peak_bytes_per_s", &r->bw_peak, what))
            return -1;
        if (r->bw_peak < r->bw_avg * (1 - 1e-9))
            return gdr_fail(GDR_EXIT_USAGE,
                            "%s: bw_peak_bytes_per_s (%g) < bw_avg_bytes_per_s "
                            "(%g)",
                            what, r->bw_peak, r->bw_avg);
    }
    const cJSON *cpu = object(row, "cpu", what);
    if (!cpu || cpu_side(cpu, "client", &r->cpu_client, what) ||
        cpu_side(cpu, "server", &r->cpu_server, what))
        return -1;
    return row_context(row, r, what);
}

static int parameters(const cJSON *root, const char *what, uint64_t **sizes, size_t *nsizes)
{
    const cJSON *p = object(root, "parameters", what);
    if (!p)
        return -1;
    char w[1200];
    name_part(w, sizeof(w), "%s: parameters", what);
    const cJSON *a = array(p, "sizes", w);
    if (!a)
        return -1;
    uint64_t v;
    double d;
    bool b;
    if (u64(p, "iters", &v, w) || nonneg(p, "time_per_size_s", &d, w) || u64(p, "num_qps", &v, w) ||
        u64(p, "tx_depth", &v, w) || u64(p, "inline_size", &v, w) || u64(p, "mtu", &v, w) ||
        gdr_json_bool(p, "validate", &b, w) || gdr_json_bool(p, "rdma_cm", &b, w) ||
        u64(p, "tcp_port", &v, w) || nonneg(p, "timeout_s", &d, w))
        return -1;
    const cJSON *warm = cJSON_GetObjectItemCaseSensitive(p, "warmup");
    if (!(cJSON_IsString(warm) && !strcmp(warm->valuestring, "auto")) && u64(p, "warmup", &v, w))
        return -1;
    *nsizes = (size_t)cJSON_GetArraySize(a);
    *sizes = calloc(*nsizes + 1, sizeof(**sizes));
    if (!*sizes)
        return gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
    for (size_t i = 0; i < *nsizes; i++) {
        const cJSON *it = cJSON_GetArrayItem(a, (int)i);
        if (!cJSON_IsNumber(it) || it->valuedouble < 1 ||
            it->valuedouble != (double)(uint64_t)it->valuedouble)
            return gdr_fail(GDR_EXIT_USAGE, "%s: sizes[%zu] is not a positive integer", w, i);
        (*sizes)[i] = (uint64_t)it->valuedouble;
        for (size_t j = 0; j < i; j++)
            if ((*sizes)[j] == (*sizes)[i])
                return gdr_fail(GDR_EXIT_USAGE, "%s: size %llu is listed twice", w,
                                (unsigned long long)(*sizes)[i]);
    }
    return 0;
}

static const char *const metrics[] = {"bandwidth", "latency", NULL};
static const char *const roles[] = {"client", "server", NULL};
static const char *const statuses[] = {"complete", "failed", "interrupted", NULL};

int gdr_doc_newer_schema(const cJSON *root, const char *what)
{
    const char *sv = gdr_jstr(root, "schema_version");
    int v;
    /* the program that reads it: gdr-json, gdr-report, gdr-history, ... */
    if (sv && sscanf(sv, "gdrbench.result/%d", &v) == 1 && v > 1)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: schema %s is newer than this %s reads (" GDR_RESULT_SCHEMA
                        "): update gdrbench",
                        what, sv, program_invocation_short_name);
    return 0;
}

static int header(const cJSON *root, const char *what, struct gdr_doc *d)
{
    char version[64];
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    if (gdr_doc_newer_schema(root, what))
        return -1;
    if (!sv)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'schema_version' is missing", what);
    if (!cJSON_IsString(sv) || strcmp(sv->valuestring, GDR_RESULT_SCHEMA))
        return gdr_fail(GDR_EXIT_USAGE, "%s: schema_version %s%s%s is not %s", what,
                        cJSON_IsString(sv) ? "'" : "",
                        cJSON_IsString(sv) ? sv->valuestring : "(not a string)",
                        cJSON_IsString(sv) ? "'" : "", GDR_RESULT_SCHEMA);
    const cJSON *tool = object(root, "tool", what);
    char w[1200], name[64], binary[64];
    name_part(w, sizeof(w), "%s: tool", what);
    if (!tool || gdr_json_str(tool, "name", name, sizeof(name), w) ||
        gdr_json_str(tool, "version", d->version, sizeof(d->version), w) ||
        gdr_json_str(tool, "binary", binary, sizeof(binary), w))
        return -1;
    name_part(w, sizeof(w), "%s", what);
    if (gdr_json_str(root, "test", d->test, sizeof(d->test), w) ||
        gdr_json_str(root, "verb", version, sizeof(version), w) ||
        one_of(root, "metric", metrics, d->metric, sizeof(d->metric), w) ||
        one_of(root, "role", roles, d->role, sizeof(d->role), w) ||
        str_array(root, "command_line", w) ||
        gdr_json_str(root, "start_time", d->start_time, sizeof(d->start_time), w) ||
        gdr_json_str(root, "end_time", version, sizeof(version), w) ||
        one_of(root, "status", statuses, d->status, sizeof(d->status), w))
        return -1;
    d->latency = !strcmp(d->metric, "latency");
    bool complete = !strcmp(d->status, "complete");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
    if (err && !cJSON_IsString(err))
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'error' is not a string", what);
    if (!complete && !err)
        return gdr_fail(GDR_EXIT_USAGE, "%s: status '%s' without an 'error' field", what,
                        d->status);
    if (complete && err)
        return gdr_fail(GDR_EXIT_USAGE, "%s: status 'complete' with an 'error' field", what);
    if (err)
        snprintf(d->error, sizeof(d->error), "%s", err->valuestring);
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(root, "error_class");
    gdr_error_class_init(&d->error_class, NULL);
    if (cls && !err)
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'error_class' without an 'error' field", what);
    if (cls && gdr_json_read_error_class(cls, &d->error_class))
        return gdr_fail(GDR_EXIT_USAGE, "%s: field 'error_class' has no known 'kind'", what);
    return 0;
}

static int soak_info(const cJSON *root, const char *what, struct gdr_soak_info *k)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "soak");
    k->median = NAN;
    if (!o)
        return 0;
    char w[1200], wv[1300];
    name_part(w, sizeof(w), "%s: soak", what);
    name_part(wv, sizeof(wv), "%s.value", w);
    if (!cJSON_IsObject(o))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an object", w);
    k->present = true;
    const cJSON *v = object(o, "value", w);
    if (!v)
        return -1;
    if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v, "median")) &&
        nonneg(v, "median", &k->median, wv))
        return -1;
    const cJSON *findings = array(o, "findings", w);
    if (!findings)
        return -1;
    const cJSON *f;
    cJSON_ArrayForEach(f, findings) {
        const char *kind = gdr_jstr(f, "kind");
        if (!kind)
            return gdr_fail(GDR_EXIT_USAGE, "%s: a finding without a 'kind'", w);
        k->fabric |= !strcmp(kind, "outage") || !strcmp(kind, "counter");
    }
    return 0;
}

int gdr_doc_from_json(const cJSON *root, const char *what, struct gdr_doc *d)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->path, sizeof(d->path), "%s", what);
    if (!cJSON_IsObject(root))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not a JSON object", what);
    if (header(root, what, d))
        return -1;
    bool complete = !strcmp(d->status, "complete");
    uint64_t *sizes = NULL;
    size_t nsizes = 0;
    int rc = -1;
    if (parameters(root, what, &sizes, &nsizes))
        goto out;
    /* A bidirectional run (-b) is its own series and figure: its rows are
     * the sum of two directions, not comparable with one-way rows. */
    const cJSON *bidi = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "parameters"), "bidirectional");
    if (cJSON_IsTrue(bidi) && strlen(d->test) + sizeof(GDR_BIDI_SUFFIX) <= sizeof(d->test))
        strcat(d->test, GDR_BIDI_SUFFIX);
    const cJSON *ends = object(root, "ends", what);
    if (!ends || end_info(ends, "client", &d->client, &d->has_client, what) ||
        end_info(ends, "server", &d->server, &d->has_server, what))
        goto out;
    if (complete && !(d->has_client && d->has_server)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: ends.%s is missing in a complete run", what,
                 d->has_client ? "server" : "client");
        goto out;
    }
    identity(d);
    if (soak_info(root, what, &d->soak))
        goto out;
    const cJSON *results = array(root, "results", what);
    if (!results)
        goto out;
    d->nrows = (size_t)cJSON_GetArraySize(results);
    if (complete && d->nrows != nsizes) {
        gdr_fail(GDR_EXIT_USAGE, "%s: results has %zu rows for %zu sizes in a complete run", what,
                 d->nrows, nsizes);
        goto out;
    }
    d->rows = calloc(d->nrows + 1, sizeof(*d->rows));
    if (!d->rows) {
        gdr_fail(GDR_EXIT_RUN, "%s: out of memory", what);
        goto out;
    }
    for (size_t i = 0; i < d->nrows; i++) {
        char w[1200];
        name_part(w, sizeof(w), "%s: results[%zu]", what, i);
        if (row_from_json(cJSON_GetArrayItem(results, (int)i), d->latency, complete, &d->rows[i],
                          w))
            goto out;
        if (i < nsizes && d->rows[i].size != sizes[i]) {
            gdr_fail(GDR_EXIT_USAGE, "%s: size %llu, but parameters.sizes[%zu] is %llu", w,
                     (unsigned long long)d->rows[i].size, i, (unsigned long long)sizes[i]);
            goto out;
        }
        if (i >= nsizes) {
            gdr_fail(GDR_EXIT_USAGE, "%s: more rows than parameters.sizes", w);
            goto out;
        }
    }
    rc = 0;
out:
    free(sizes);
    if (rc) {
        free(d->rows);
        d->rows = NULL;
    }
    return rc;
}

int gdr_doc_load(const char *path, struct gdr_doc *d)
{
    memset(d, 0, sizeof(*d));
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root)
        return -1;
    int rc = gdr_doc_from_json(root, path, d);
    cJSON_Delete(root);
    return rc;
}

void gdr_doc_free(struct gdr_doc *d)
{
    free(d->rows);
    d->rows = NULL;
    d->nrows = 0;
}

const struct gdr_row *gdr_doc_row(const struct gdr_doc *d, uint64_t size)
{
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].size == size)
            return &d->rows[i];
    return NULL;
}
