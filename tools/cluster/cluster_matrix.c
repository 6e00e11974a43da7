/* cluster_matrix.c - node x node matrices from result documents. */
#include "config.h"

#include "cluster_matrix.h"
#include "atomic_file.h"
#include "cluster_status.h"
#include "doc.h"
#include "stats.h"
#include "error.h"
#include "json.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

int gdr_matrix_set_init(struct gdr_matrix_set *s, size_t n, const char (*nodes)[GDR_NODE_NAME_LEN])
{
    memset(s, 0, sizeof(*s));
    s->nodes = calloc(n + 1, sizeof(*s->nodes));
    if (!s->nodes)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", n);
    memcpy(s->nodes, nodes, n * sizeof(*s->nodes));
    s->n = n;
    s->left_out = calloc(n + 1, sizeof(bool));
    if (!s->left_out) {
        free(s->nodes);
        return gdr_fail(GDR_EXIT_RUN, "out of memory for %zu nodes", n);
    }
    return 0;
}

static void matrix_free(struct gdr_matrix *m)
{
    free(m->cells);
    free(m->row);
    free(m->col);
    free(m->byserver);
}

void gdr_matrix_set_free(struct gdr_matrix_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        matrix_free(&s->m[i]);
    free(s->m);
    free(s->nodes);
    free(s->left_out);
    memset(s, 0, sizeof(*s));
}

struct gdr_matrix *gdr_matrix_get(struct gdr_matrix_set *s, const struct gdr_test_mode *t, int rail,
                                  uint64_t size, bool latency)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->m[i].rail == rail && s->m[i].size == size && gdr_test_mode_equal(&s->m[i].test, t))
            return &s->m[i];
    struct gdr_matrix *grown = realloc(s->m, (s->count + 1) * sizeof(*s->m));
    if (!grown)
        return NULL;
    s->m = grown;
    struct gdr_matrix *m = &s->m[s->count];
    memset(m, 0, sizeof(*m));
    m->row = calloc(s->n + 2, sizeof(size_t));
    m->col = calloc(s->n + 2, sizeof(size_t));
    if (!m->row || !m->col) {
        matrix_free(m);
        return NULL;
    }
    m->test = *t;
    m->rail = rail;
    m->size = size;
    m->latency = latency;
    m->n = s->n;
    m->sorted = true;
    s->count++;
    return m;
}

struct gdr_cell *gdr_matrix_put(struct gdr_matrix *m, size_t c, size_t s)
{
    if (m->ncells == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct gdr_cell *g = realloc(m->cells, cap * sizeof(*g));
        if (!g)
            return NULL;
        m->cells = g;
        m->cap = cap;
    }
    struct gdr_cell *x = &m->cells[m->ncells++];
    memset(x, 0, sizeof(*x));
    x->c = (uint32_t)c;
    x->s = (uint32_t)s;
    x->clean = -1;
    m->sorted = false;
    return x;
}

static int cmp_cell(const void *a, const void *b)
{
    const struct gdr_cell *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return 0;
}

/* Counting sort of the cell indices by server (stable: by client within). */
int gdr_matrix_finish(struct gdr_matrix *m)
{
    if (m->sorted)
        return 0;
    /* A cell put twice (a pair listed twice in a pairs file: the same
     * document) keeps a measured or failed copy. */
    qsort(m->cells, m->ncells, sizeof(*m->cells), cmp_cell);
    size_t k = 0;
    for (size_t i = 0; i < m->ncells; i++) {
        if (k && m->cells[k - 1].c == m->cells[i].c && m->cells[k - 1].s == m->cells[i].s) {
            if (m->cells[i].state != GDR_CELL_NONE)
                m->cells[k - 1] = m->cells[i];
            continue;
        }
        m->cells[k++] = m->cells[i];
    }
    m->ncells = k;
    free(m->byserver);
    m->byserver = calloc(k + 1, sizeof(uint32_t));
    if (!m->byserver)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a matrix of %zu cells", k);
    memset(m->row, 0, (m->n + 2) * sizeof(size_t));
    memset(m->col, 0, (m->n + 2) * sizeof(size_t));
    for (size_t i = 0; i < k; i++) {
        m->row[m->cells[i].c + 1]++;
        m->col[m->cells[i].s + 1]++;
    }
    for (size_t i = 0; i < m->n; i++) {
        m->row[i + 1] += m->row[i];
        m->col[i + 1] += m->col[i];
    }
    size_t *fill = calloc(m->n + 1, sizeof(size_t));
    if (!fill)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a matrix of %zu nodes", m->n);
    for (size_t i = 0; i < k; i++) {
        size_t sv = m->cells[i].s;
        m->byserver[m->col[sv] + fill[sv]++] = (uint32_t)i;
    }
    free(fill);
    m->sorted = true;
    return 0;
}

int gdr_matrix_set_finish(struct gdr_matrix_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        if (gdr_matrix_finish(&s->m[i]))
            return -1;
    return 0;
}

struct gdr_cell *gdr_cell_find(const struct gdr_matrix *m, size_t c, size_t s)
{
    if (c >= m->n || !m->sorted)
        return NULL;
    size_t lo = m->row[c], hi = m->row[c + 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->cells[mid].s == s)
            return &m->cells[mid];
        if (m->cells[mid].s < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const struct gdr_cell *gdr_cell_at(const struct gdr_matrix *m, size_t c, size_t s)
{
    static const struct gdr_cell none = {.clean = -1};
    const struct gdr_cell *x = gdr_cell_find(m, c, s);
    return x ? x : &none;
}

static double end_rate(const cJSON *root, const char *role)
{
    const cJSON *ends = cJSON_GetObjectItemCaseSensitive(root, "ends");
    double v = gdr_jnum_or(cJSON_GetObjectItemCaseSensitive(ends, role), "speed_bps", 0);
    return v > 0 ? v / 8 : 0;
}

/* A GPU end asked for GDR whose memory is not registered for the NIC
 * directly (staged, or plain host registration): GDR is not in effect. */
static bool gdr_not_in_effect(const struct gdr_end_info *e, const char *asked)
{
    return !strcmp(asked, "on") && !strcmp(e->placement, "cuda") &&
           strcmp(e->registration, "dmabuf") && strcmp(e->registration, "peermem");
}

void gdr_run_result_read(const char *path, const struct gdr_test_mode *test,
                         struct gdr_run_result *r)
{
    memset(r, 0, sizeof(*r));
    gdr_error_clear();
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root) {
        snprintf(r->error, sizeof(r->error), "%s", gdr_error_message());
        return;
    }
    struct gdr_doc d;
    if (gdr_doc_from_json(root, path, &d)) {
        snprintf(r->error, sizeof(r->error), "%s", gdr_error_message());
        cJSON_Delete(root);
        return;
    }
    if (strcmp(d.status, "complete")) {
        snprintf(r->error, sizeof(r->error), "%s: %.200s", d.status, d.error);
    } else {
        r->ok = true;
        r->latency = d.latency;
        double rc = end_rate(root, "client"), rs = end_rate(root, "server");
        r->rate_bytes = rc && rs ? (rc < rs ? rc : rs) : (rc ? rc : rs);
        r->gdr_off[0] = gdr_not_in_effect(&d.client, test->gdr);
        r->gdr_off[1] = gdr_not_in_effect(&d.server, test->gdr);
        for (size_t i = 0; i < d.nrows && r->nrows < 64; i++) {
            r->sizes[r->nrows] = d.rows[i].size;
            r->limits[r->nrows] = isnan(d.rows[i].limit) ? 0 : d.rows[i].limit;
            r->clean[r->nrows] = d.rows[i].clean;
            r->values[r->nrows++] = d.latency ? d.rows[i].lat[LAT_MEDIAN] : d.rows[i].bw_avg;
        }
    }
    gdr_doc_free(&d);
    cJSON_Delete(root);
}

/* The size each test and rail is judged at: det_size, or the largest
 * (latency: the smallest) seen so far. */
struct analysed {
    size_t test;
    int rail;
    uint64_t size;
};

struct load_ctx {
    const struct gdr_plan *p;
    const char *dir;
    struct gdr_matrix_set *s;
    bool analysed_only;
    uint64_t det_size;
    struct analysed *an; /* per test x rail slot */
    struct failed_run {
        size_t test;
        int rail;
        uint32_t c, s, round;
    } * failed;
    size_t nfailed, capfailed;
    struct batch *batch;
    size_t threads;
    unsigned char *done; /* agents: per ordinal, 1 = its cells came from an agent, 2 = failed */
};

static int add_failed(struct load_ctx *lc, size_t test, int rail, size_t c, size_t sv, size_t round)
{
    if (lc->nfailed == lc->capfailed) {
        size_t cap = lc->capfailed ? 2 * lc->capfailed : 64;
        void *g = realloc(lc->failed, cap * sizeof(*lc->failed));
        if (!g)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        lc->failed = g;
        lc->capfailed = cap;
    }
    lc->failed[lc->nfailed++] =
        (struct failed_run){test, rail, (uint32_t)c, (uint32_t)sv, (uint32_t)round};
    return 0;
}

/* Is size the one to keep for this test and rail? Drops the matrices of a
 * size that a better one replaces. */
static bool keep_size(struct load_ctx *lc, const struct gdr_test_mode *t, size_t ti, int rail,
                      uint64_t size, bool latency)
{
    if (!lc->analysed_only)
        return true;
    if (lc->det_size)
        return size == lc->det_size;
    struct analysed *a = &lc->an[ti * GDR_RAILS_MAX + (size_t)rail];
    if (a->size == size)
        return true;
    if (a->size && (latency ? size > a->size : size < a->size))
        return false;
    /* a better size: forget the old one's matrix */
    for (size_t k = 0; a->size && k < lc->s->count; k++) {
        struct gdr_matrix *m = &lc->s->m[k];
        if (m->rail == rail && m->size == a->size && gdr_test_mode_equal(&m->test, t)) {
            matrix_free(m);
            memmove(m, m + 1, (lc->s->count - k - 1) * sizeof(*m));
            lc->s->count--;
            break;
        }
    }
    a->size = size;
    return true;
}

static int put_result(struct load_ctx *lc, const struct gdr_plan_run *run,
                      const struct gdr_run_result *r)
{
    for (size_t k = 0; k < r->nrows; k++) {
        if (!keep_size(lc, &run->test, run->test_index, run->rail, r->sizes[k], r->latency))
            continue;
        struct gdr_matrix *m =
            gdr_matrix_get(lc->s, &run->test, run->rail, r->sizes[k], r->latency);
        struct gdr_cell *c = m ? gdr_matrix_put(m, run->client.node, run->server.node) : NULL;
        if (!c)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        c->state = GDR_CELL_OK;
        c->value = r->values[k];
        c->round = (uint32_t)run->round;
        /* Rails sharing a NIC in one step each had a share of its rate
         * (and of the path's limit). */
        unsigned share = run->nic_share > 1 ? run->nic_share : 1;
        c->rate_bytes = r->rate_bytes / share;
        c->limit = r->limits[k] / share;
        c->clean = (int8_t)r->clean[k];
        c->gdr_off[0] = r->gdr_off[0];
        c->gdr_off[1] = r->gdr_off[1];
    }
    return 0;
}

/* Documents are read by several threads, a batch of runs at a time, and
 * put in the matrices in plan order by the caller's thread (cJSON's parse
 * is the cost: about 35 us a document on one core). */
#define LOAD_BATCH 2048

struct batch {
    struct gdr_plan_run runs[LOAD_BATCH];
    struct gdr_run_result res[LOAD_BATCH];
    size_t n;
    atomic_size_t next;
    const char *dir;
};

static void *read_batch(void *arg)
{
    struct batch *b = arg;
    for (size_t i; (i = atomic_fetch_add(&b->next, 1)) < b->n;) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.client.json", b->dir, b->runs[i].id);
        gdr_run_result_read(path, &b->runs[i].test, &b->res[i]);
    }
    return NULL;
}

/* Threads for the documents: GDR_CLUSTER_THREADS, else the CPUs (at most 16). */
static size_t load_threads(void)
{
    const char *e = getenv("GDR_CLUSTER_THREADS");
    long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (size_t)n;
}

static int flush_batch(struct load_ctx *lc)
{
    struct batch *b = lc->batch;
    atomic_store(&b->next, 0);
    pthread_t th[16];
    size_t nt = lc->threads < b->n / 64 + 1 ? lc->threads : b->n / 64 + 1, started = 0;
    for (size_t t = 1; t < nt; t++)
        if (!pthread_create(&th[started], NULL, read_batch, b))
            started++;
    read_batch(b);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    int rc = 0;
    for (size_t i = 0; i < b->n && !rc; i++) {
        const struct gdr_plan_run *run = &b->runs[i];
        rc = b->res[i].ok ? put_result(lc, run, &b->res[i])
                          : add_failed(lc, run->test_index, run->rail, run->client.node,
                                       run->server.node, run->round);
    }
    b->n = 0;
    return rc;
}

static int load_run(const struct gdr_plan_run *run, size_t ordinal, void *ctx)
{
    struct load_ctx *lc = ctx;
    if (lc->done && lc->done[ordinal]) {
        if (lc->done[ordinal] == 2)
            return add_failed(lc, run->test_index, run->rail, run->client.node, run->server.node,
                              run->round);
        return 0;
    }
    lc->batch->runs[lc->batch->n++] = *run;
    return lc->batch->n == LOAD_BATCH ? flush_batch(lc) : 0;
}

/* ---- the agents' cells: the documents read on their nodes ---- */

void gdr_matrix_cell_line(FILE *f, const char *id, const struct gdr_run_result *r)
{
    fprintf(f, "%s\t%d\t%.9g\t%d\t", id, r->latency, r->rate_bytes,
            r->gdr_off[0] | r->gdr_off[1] << 1);
    for (size_t k = 0; k < r->nrows; k++)
        fprintf(f, "%s%llu:%.9g:%.9g:%d", k ? "," : "", (unsigned long long)r->sizes[k],
                r->values[k], r->limits[k], r->clean[k]);
    fputc('\n', f);
}

/* What the matrices need of each run, by ordinal (agents' lines name runs
 * by id). */
struct run_key {
    uint32_t c, s, round;
    uint16_t test, rail, share;
};

/* Per ordinal, what the matrices need (filled while indexing the ids). */
static int key_run(const struct gdr_plan_run *r, size_t ordinal, void *ctx)
{
    struct run_key *key = ctx;
    key[ordinal] =
        (struct run_key){(uint32_t)r->client.node, (uint32_t)r->server.node,
                         (uint32_t)r->round,       (uint16_t)r->test_index,
                         (uint16_t)r->rail,        (uint16_t)(r->nic_share > 1 ? r->nic_share : 1)};
    return 0;
}

/* The failed runs of status (cluster_status.h): their cells are FAILED
 * whatever an agent measured (the other end failed). */
static int read_failed(const char *status, const struct gdr_plan_index *x, unsigned char *done)
{
    FILE *f = fopen(status, "r");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read the run status lines", status);
    char line[2048];
    struct gdr_run_status st;
    while (fgets(line, sizeof(line), f)) {
        if (gdr_run_status_parse(line, &st) != 0)
            continue;
        long o = gdr_plan_index_find(x, st.id);
        if (o >= 0)
            done[o] = strcmp(st.status, "ok") ? 2 : 0;
    }
    fclose(f);
    return 0;
}

/* One line of gdr-cluster-core cell: ID L RATE GOFF SIZE:VALUE:LIMIT:CLEAN,... */
static int agent_line(struct load_ctx *lc, const struct gdr_plan_index *x,
                      const struct run_key *keys, char *line, const char *where)
{
    char *fld[5] = {NULL};
    size_t k = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line, *t; k < 5 && (t = strsep(&p, "\t"));)
        fld[k++] = t;
    if (k < 5)
        return gdr_fail(GDR_EXIT_USAGE, "%s: not 'ID LATENCY RATE GDR_OFF ROWS'", where);
    long o = gdr_plan_index_find(x, fld[0]);
    if (o < 0 || lc->done[o] == 2)
        return 0; /* not this plan's, or a failed run */
    const struct run_key *key = &keys[o];
    struct gdr_plan_run run;
    memset(&run, 0, sizeof(run));
    run.test = lc->p->tests[key->test];
    run.test_index = key->test;
    run.rail = key->rail;
    run.round = key->round;
    run.client.node = key->c;
    run.server.node = key->s;
    run.nic_share = key->share;
    struct gdr_run_result r;
    memset(&r, 0, sizeof(r));
    r.ok = true;
    r.latency = fld[1][0] == '1';
    r.rate_bytes = strtod(fld[2], NULL);
    unsigned goff = (unsigned)strtoul(fld[3], NULL, 10);
    r.gdr_off[0] = goff & 1;
    r.gdr_off[1] = (goff >> 1) & 1;
    for (char *p = fld[4], *t; r.nrows < 64 && (t = strsep(&p, ","));) {
        unsigned long long size;
        double value, limit;
        int clean;
        if (sscanf(t, "%llu:%lf:%lf:%d", &size, &value, &limit, &clean) != 4)
            return gdr_fail(GDR_EXIT_USAGE, "%s: row '%.40s' is not SIZE:VALUE:LIMIT:CLEAN", where,
                            t);
        r.sizes[r.nrows] = size;
        r.values[r.nrows] = value;
        r.limits[r.nrows] = limit;
        r.clean[r.nrows++] = clean;
    }
    lc->done[o] = 1;
    return put_result(lc, &run, &r);
}

/* agents/NODE.cells of every node of the plan. */
static int load_agents(struct load_ctx *lc, const char *agents, const char *status)
{
    const struct gdr_plan *p = lc->p;
    struct gdr_plan_index x = {0};
    struct run_key *keys = calloc(p->nruns + 1, sizeof(*keys));
    lc->done = calloc(p->nruns + 1, 1);
    int rc = 0;
    if (!keys || !lc->done)
        rc = gdr_fail(GDR_EXIT_RUN, "out of memory for %zu runs", p->nruns);
    if (!rc)
        rc = gdr_plan_index_build(p, &x, key_run, keys);
    if (!rc && status)
        rc = read_failed(status, &x, lc->done);
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; !rc && i < p->nnodes; i++) {
        char path[4096], where[4200];
        snprintf(path, sizeof(path), "%s/%s.cells", agents, p->nodes[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* an agent that measured nothing */
        for (size_t no = 1; !rc && getline(&line, &cap, f) > 0; no++) {
            snprintf(where, sizeof(where), "%s:%zu", path, no);
            rc = agent_line(lc, &x, keys, line, where);
        }
        fclose(f);
    }
    free(line);
    gdr_plan_index_free(&x);
    free(keys);
    return rc;
}

/* ---- the cells file: the documents read once ---- */

#define CELLS_MAGIC "gdrcells"
#define CELLS_VERSION 1u

struct cells_header {
    char magic[8];
    uint32_t version, nnodes, ntests, reserved;
    uint64_t plan_hash, nrecords;
};

/* One record: a cell of one size, or a failed run (state FAILED, size 0). */
struct cells_record {
    uint32_t c, s, round;
    uint16_t test, rail;
    uint8_t state, latency, gdr_off;
    int8_t clean;
    uint32_t pad;
    uint64_t size;
    double value, rate_bytes, limit;
};

/* FNV-1a over the plan's node names and tests: a cells file of another
 * plan is refused. */
static uint64_t plan_hash(const struct gdr_plan *p)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < p->nnodes; i++)
        for (const char *c = p->nodes[i];; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c)
                break;
        }
    for (size_t t = 0; t < p->ntests; t++) {
        char tn[64];
        gdr_test_mode_name(&p->tests[t], tn, sizeof(tn));
        for (const char *c = tn; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    }
    return h;
}

static size_t test_index(const struct gdr_plan *p, const struct gdr_test_mode *t)
{
    for (size_t k = 0; k < p->ntests; k++)
        if (gdr_test_mode_equal(&p->tests[k], t))
            return k;
    return 0;
}

int gdr_matrix_save_cells(const struct gdr_matrix_set *s, const struct gdr_plan *p,
                          const char *path)
{
    struct gdr_atomic_file af;
    if (gdr_atomic_open(&af, path, GDR_EXIT_USAGE))
        return -1;
    FILE *f = af.f;
    struct cells_header h = {.version = CELLS_VERSION,
                             .nnodes = (uint32_t)p->nnodes,
                             .ntests = (uint32_t)p->ntests,
                             .plan_hash = plan_hash(p)};
    memcpy(h.magic, CELLS_MAGIC, 8);
    for (size_t k = 0; k < s->count; k++)
        h.nrecords += s->m[k].ncells;
    bool ok = fwrite(&h, sizeof(h), 1, f) == 1;
    for (size_t k = 0; ok && k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        size_t ti = test_index(p, &m->test);
        for (size_t i = 0; ok && i < m->ncells; i++) {
            const struct gdr_cell *c = &m->cells[i];
            struct cells_record r = {.c = c->c,
                                     .s = c->s,
                                     .round = c->round,
                                     .test = (uint16_t)ti,
                                     .rail = (uint16_t)m->rail,
                                     .state = c->state,
                                     .latency = m->latency,
                                     .gdr_off = (uint8_t)(c->gdr_off[0] | c->gdr_off[1] << 1),
                                     .clean = c->clean,
                                     .size = m->size,
                                     .value = c->value,
                                     .rate_bytes = c->rate_bytes,
                                     .limit = c->limit};
            ok = fwrite(&r, sizeof(r), 1, f) == 1;
        }
    }
    return gdr_atomic_commit(&af); /* a failed fwrite left f's error flag set */
}

static int load_cells(struct load_ctx *lc, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read the cells file", path);
    struct cells_header h;
    int rc = 0;
    if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, CELLS_MAGIC, 8) ||
        h.version != CELLS_VERSION)
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: not a cells file of this version", path);
    else if (h.nnodes != lc->p->nnodes || h.ntests != lc->p->ntests ||
             h.plan_hash != plan_hash(lc->p))
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: the cells of another plan", path);
    struct cells_record r;
    for (uint64_t i = 0; !rc && i < h.nrecords; i++) {
        if (fread(&r, sizeof(r), 1, f) != 1) {
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: truncated", path);
            break;
        }
        if (r.c >= h.nnodes || r.s >= h.nnodes || r.test >= h.ntests || r.rail >= GDR_RAILS_MAX) {
            rc = gdr_fail(GDR_EXIT_USAGE, "%s: record %llu is out of range", path,
                          (unsigned long long)i);
            break;
        }
        const struct gdr_test_mode *t = &lc->p->tests[r.test];
        if (!keep_size(lc, t, r.test, r.rail, r.size, r.latency))
            continue;
        struct gdr_matrix *m = gdr_matrix_get(lc->s, t, r.rail, r.size, r.latency);
        struct gdr_cell *c = m ? gdr_matrix_put(m, r.c, r.s) : NULL;
        if (!c) {
            rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
            break;
        }
        c->state = r.state;
        c->round = r.round;
        c->clean = r.clean;
        c->gdr_off[0] = r.gdr_off & 1;
        c->gdr_off[1] = (r.gdr_off >> 1) & 1;
        c->value = r.value;
        c->rate_bytes = r.rate_bytes;
        c->limit = r.limit;
    }
    fclose(f);
    return rc;
}

int gdr_matrix_load(const struct gdr_plan *p, const struct gdr_matrix_source *src,
                    bool analysed_only, uint64_t det_size, struct gdr_matrix_set *s)
{
    const char *dir = src->dir, *cells = src->cells;
    if (gdr_matrix_set_init(s, p->nnodes, (const char(*)[GDR_NODE_NAME_LEN])p->nodes))
        return -1;
    memcpy(s->left_out, p->left_out, p->nnodes * sizeof(bool));
    struct load_ctx lc = {.p = p,
                          .dir = dir,
                          .s = s,
                          .analysed_only = analysed_only,
                          .det_size = det_size,
                          .an = calloc(p->ntests * GDR_RAILS_MAX + 1, sizeof(struct analysed))};
    if (!lc.an)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    int rc = 0;
    if (cells) {
        rc = load_cells(&lc, cells);
    } else {
        /* agents' lines first; then the documents of the runs without one */
        if (src->agents)
            rc = load_agents(&lc, src->agents, src->status);
        lc.threads = load_threads();
        lc.batch = rc ? NULL : calloc(1, sizeof(*lc.batch));
        if (!rc && !lc.batch)
            rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
        else if (!rc) {
            lc.batch->dir = dir;
            rc = gdr_plan_foreach(p, 0, load_run, &lc);
            if (!rc && lc.batch->n)
                rc = flush_batch(&lc);
        }
        free(lc.batch);
    }
    /* Failed runs show in every size of their test and rail. */
    for (size_t i = 0; !rc && i < lc.nfailed; i++) {
        const struct failed_run *x = &lc.failed[i];
        for (size_t k = 0; !rc && k < s->count; k++) {
            struct gdr_matrix *m = &s->m[k];
            if (m->rail != x->rail || !gdr_test_mode_equal(&m->test, &p->tests[x->test]))
                continue;
            struct gdr_cell *c = gdr_matrix_put(m, x->c, x->s);
            if (!c)
                rc = gdr_fail(GDR_EXIT_RUN, "out of memory");
            else {
                c->state = GDR_CELL_FAILED;
                c->round = x->round;
            }
        }
    }
    free(lc.an);
    free(lc.failed);
    free(lc.done);
    return rc ? rc : gdr_matrix_set_finish(s);
}

int gdr_matrix_write_csvs(const struct gdr_matrix_set *s, const char *dir)
{
    for (size_t k = 0; k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        char path[4096], tn[64];
        gdr_test_mode_name(&m->test, tn, sizeof(tn));
        snprintf(path, sizeof(path), "%s/matrix-%s-%llu-r%d.csv", dir, tn,
                 (unsigned long long)m->size, m->rail);
        FILE *f = fopen(path, "w");
        if (!f)
            return gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
        fprintf(f, "%s",
                m->latency ? "client\\server median_latency_s" : "client\\server bw_bytes_per_s");
        for (size_t j = 0; j < s->n; j++)
            fprintf(f, ",%s", s->nodes[j]);
        fputc('\n', f);
        for (size_t i = 0; i < s->n; i++) {
            fputs(s->nodes[i], f);
            size_t j = 0;
            for (size_t q = m->row[i]; q < m->row[i + 1]; q++) {
                const struct gdr_cell *c = &m->cells[q];
                for (; j < c->s; j++)
                    fputc(',', f);
                if (c->state == GDR_CELL_OK)
                    fprintf(f, ",%.9g", c->value);
                else
                    fprintf(f, ",%s", c->state == GDR_CELL_FAILED ? "FAILED" : "");
                j++;
            }
            for (; j < s->n; j++)
                fputc(',', f);
            fputc('\n', f);
        }
        if (fclose(f))
            return gdr_fail(GDR_EXIT_USAGE, "%s: write failed", path);
    }
    return 0;
}

double gdr_matrices_median(const struct gdr_matrix *const *m, size_t n)
{
    size_t total = 0, k = 0;
    for (size_t j = 0; j < n; j++)
        total += m[j]->ncells;
    double *v = calloc(total + 1, sizeof(double));
    if (!v)
        return 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m[j]->ncells; i++)
            if (m[j]->cells[i].state == GDR_CELL_OK)
                v[k++] = m[j]->cells[i].value;
    double med = k == 0 ? 0 : gdr_median_inplace(v, k);
    free(v);
    return med;
}

static FILE *open_fig(const char *dir, const char *kind, const struct gdr_matrix *m)
{
    char path[4096], tn[64];
    gdr_test_mode_name(&m->test, tn, sizeof(tn));
    snprintf(path, sizeof(path), "%s/%s-%s-%llu-r%d.%s", dir, kind, tn, (unsigned long long)m->size,
             m->rail, strcmp(kind, "topnames") ? "dat" : "txt");
    FILE *f = fopen(path, "w");
    if (!f)
        gdr_fail(GDR_EXIT_USAGE, "%s: cannot write", path);
    return f;
}

static double ratio(const struct gdr_matrix *m, const struct gdr_cell *c, double ref)
{
    return m->latency ? ref / c->value : c->value / ref;
}

void gdr_heat_grid_free(struct gdr_heat_grid *g)
{
    free(g->cell);
    g->cell = NULL;
}

int gdr_heat_grid(const struct gdr_matrix_set *s, const struct gdr_matrix *m, double ref,
                  gdr_heat_low_fn low, const void *ctx, struct gdr_heat_grid *g)
{
    size_t b = gdr_heat_block(s->n), nb = (s->n + b - 1) / b;
    *g = (struct gdr_heat_grid){
        .block = b, .side = nb, .cell = calloc(nb * nb + 1, sizeof(*g->cell))};
    bool *left = calloc(nb + 1, sizeof(bool)); /* a block with a node left out */
    if (!g->cell || !left) {
        free(left);
        gdr_heat_grid_free(g);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    for (size_t i = 0; i < nb * nb; i++)
        g->cell[i].ratio = g->cell[i].value = NAN;
    for (size_t i = 0; i < m->ncells; i++) {
        const struct gdr_cell *c = &m->cells[i];
        struct gdr_heat_cell *h = &g->cell[(c->c / b) * nb + c->s / b];
        h->failed |= c->state == GDR_CELL_FAILED;
        h->low |= low && low(ctx, c);
        if (c->state == GDR_CELL_OK && ref > 0 && c->value > 0) {
            double r = ratio(m, c, ref);
            if (isnan(h->ratio) || r < h->ratio) {
                h->ratio = r;
                h->value = c->value;
            }
        }
    }
    for (size_t i = 0; s->left_out && i < s->n; i++)
        left[i / b] |= s->left_out[i];
    for (size_t i = 0; i < nb * nb; i++) {
        struct gdr_heat_cell *h = &g->cell[i];
        size_t row = i / nb, col = i % nb;
        h->unreachable =
            (left[row] || left[col]) && isnan(h->ratio) && !h->failed && (b > 1 || row != col);
    }
    free(left);
    return 0;
}

struct node_rank {
    size_t node;
    double median;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct node_rank *x = a, *y = b;
    return x->median < y->median ? -1 : x->median > y->median ? 1 : 0;
}

/* The worst GDR_HEAT_TOP nodes (lowest median ratio over their cells),
 * each cell of theirs at full resolution. */
static int heat_top(const struct gdr_matrix_set *s, const struct gdr_matrix *m, double ref,
                    const char *dir)
{
    struct node_rank *rk = calloc(s->n + 1, sizeof(*rk));
    double *v = calloc(2 * s->n + 2, sizeof(double));
    if (!rk || !v) {
        free(rk);
        free(v);
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    }
    size_t nr = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = 0;
        for (int d = 0; d < 2; d++)
            for (size_t q = 0; q < gdr_matrix_node_count(m, i, d); q++) {
                const struct gdr_cell *c = gdr_matrix_node_cell(m, i, d, q);
                if (c->state == GDR_CELL_OK && c->value > 0)
                    v[k++] = ratio(m, c, ref);
            }
        if (k)
            rk[nr++] = (struct node_rank){i, gdr_median_inplace(v, k)};
    }
    qsort(rk, nr, sizeof(*rk), cmp_rank);
    FILE *t = open_fig(dir, "top", m), *names = open_fig(dir, "topnames", m);
    int rc = t && names ? 0 : -1;
    for (size_t r = 0; !rc && r < nr && r < GDR_HEAT_TOP; r++) {
        size_t i = rk[r].node;
        fprintf(names, "%s\n", s->nodes[i]);
        for (int d = 0; d < 2; d++)
            for (size_t q = 0; q < gdr_matrix_node_count(m, i, d); q++) {
                const struct gdr_cell *c = gdr_matrix_node_cell(m, i, d, q);
                if (c->state == GDR_CELL_OK && c->value > 0)
                    fprintf(t, "%u %zu %.6g\n", d ? c->c : c->s, r, ratio(m, c, ref));
            }
    }
    if ((t && fclose(t)) | (names && fclose(names)))
        rc = gdr_fail(GDR_EXIT_USAGE, "%s: write failed", dir);
    free(rk);
    free(v);
    return rc;
}

int gdr_matrix_write_heat(const struct gdr_matrix_set *s, const double *reference, const char *dir)
{
    for (size_t k = 0; k < s->count; k++) {
        const struct gdr_matrix *m = &s->m[k];
        double med = reference && reference[k] > 0 ? reference[k] : gdr_matrices_median(&m, 1);
        struct gdr_heat_grid g;
        if (gdr_heat_grid(s, m, med, NULL, NULL, &g))
            return -1;
        FILE *h = open_fig(dir, "heat", m), *x = open_fig(dir, "failed", m),
             *v = open_fig(dir, "values", m), *u = open_fig(dir, "unreachable", m),
             *meta = open_fig(dir, "layout", m);
        if (!h || !x || !v || !u || !meta) {
            FILE *all[] = {h, x, v, u, meta};
            for (int q = 0; q < 5; q++)
                if (all[q])
                    fclose(all[q]);
            gdr_heat_grid_free(&g);
            return -1;
        }
        fprintf(meta, "blocks %zu size %zu nodes %zu\n", g.block > 1 ? g.side : 0, g.block, s->n);
        for (size_t i = 0; i < m->ncells; i++)
            if (m->cells[i].state == GDR_CELL_OK)
                fprintf(v, "%.9g\n", m->cells[i].value);
        for (size_t row = 0; row < g.side; row++) {
            for (size_t col = 0; col < g.side; col++) {
                const struct gdr_heat_cell *c = &g.cell[row * g.side + col];
                /* x y ratio value (the rail panels rescale the value); the
                 * ratio to six digits: four decimals put a node at 2 % of
                 * the reference 0.2 % off its own value */
                if (isnan(c->ratio))
                    fprintf(h, "%zu %zu NaN NaN\n", col, row);
                else
                    fprintf(h, "%zu %zu %.6g %.9g\n", col, row, c->ratio, c->value);
                if (c->failed)
                    fprintf(x, "%zu %zu\n", col, row);
                if (c->unreachable)
                    fprintf(u, "%zu %zu\n", col, row);
            }
            fputc('\n', h);
        }
        gdr_heat_grid_free(&g);
        int bad = fclose(h) | fclose(x) | fclose(v) | fclose(u) | fclose(meta);
        if (bad)
            return gdr_fail(GDR_EXIT_USAGE, "%s: write failed", dir);
        if (gdr_heat_block(s->n) > 1 && heat_top(s, m, med, dir))
            return -1;
    }
    return 0;
}
