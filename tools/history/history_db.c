/* history_db.c - the SQLite side of gdr-history (see history_db.h). */
#include "config.h"

#include "history_db.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hdb {
    sqlite3 *db;
    char path[1024];
};

/* Migrations: migrations[i] takes the schema from version i to i + 1. Add
 * new ones at the end; never edit one that has shipped. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  testbed TEXT NOT NULL, run_id TEXT NOT NULL, date TEXT NOT NULL,"
    "  version TEXT NOT NULL, mode TEXT NOT NULL,"
    "  planned INTEGER, ok INTEGER, failed INTEGER," /* NULL: no manifest */
    "  source TEXT NOT NULL, ingested TEXT NOT NULL,"
    "  UNIQUE (testbed, run_id));"
    "CREATE TABLE series ("
    "  id INTEGER PRIMARY KEY,"
    "  testbed TEXT NOT NULL, test TEXT NOT NULL,"
    "  client_placement TEXT NOT NULL, client_registration TEXT NOT NULL,"
    "  server_placement TEXT NOT NULL, server_registration TEXT NOT NULL,"
    "  bidirectional INTEGER NOT NULL, size INTEGER NOT NULL, metric TEXT NOT NULL,"
    "  UNIQUE (testbed, test, client_placement, client_registration, server_placement,"
    "          server_registration, bidirectional, size, metric));"
    "CREATE TABLE points ("
    "  series INTEGER NOT NULL REFERENCES series (id),"
    "  run INTEGER NOT NULL REFERENCES runs (id),"
    "  value REAL NOT NULL, spread REAL,"
    "  simulated INTEGER NOT NULL, soft_roce INTEGER NOT NULL,"
    "  document TEXT NOT NULL,"
    "  PRIMARY KEY (series, run)) WITHOUT ROWID;"
    "CREATE INDEX points_by_run ON points (run);"
    "CREATE TABLE failures ("
    "  run INTEGER NOT NULL REFERENCES runs (id), name TEXT NOT NULL, reason TEXT NOT NULL,"
    "  PRIMARY KEY (run, name)) WITHOUT ROWID;"
    "CREATE TABLE annotations ("
    "  id INTEGER PRIMARY KEY, testbed TEXT NOT NULL, date TEXT NOT NULL, text TEXT NOT NULL,"
    "  UNIQUE (testbed, date, text));",
    /* 1 -> 2: what the NIC counted during the point's size (clean 1, 0; NULL
     * not known: documents before the counters) and its % of the path's
     * limit (NULL unknown). Older points stay NULL: unknown, not dirty. */
    "ALTER TABLE points ADD COLUMN clean INTEGER;"
    "ALTER TABLE points ADD COLUMN pct_of_limit REAL;",
};
#define NMIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(NMIGRATIONS == HDB_SCHEMA_VERSION, "one migration per schema version");

static int db_fail(struct hdb *h, const char *what)
{
    return gdr_fail(GDR_EXIT_USAGE, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

static int exec(struct hdb *h, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(h->db, sql, NULL, NULL, &err) != SQLITE_OK) {
        gdr_fail(GDR_EXIT_USAGE, "%s: %s", h->path, err ? err : sqlite3_errmsg(h->db));
        sqlite3_free(err);
        return -1;
    }
    return 0;
}

static int pragma_int(sqlite3 *db, const char *sql, long *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Look at an existing file's header with plain reads, before SQLite opens
 * it (SQLite would make -wal/-shm files beside a WAL database even for a
 * read-only look): is it SQLite, ours, and not newer? *fresh: an empty
 * database that gdr-history may initialise. In a WAL database the header
 * page can be older than the WAL; that only matters for a file being
 * created right now, and the migration looks again under the write lock. */
static int inspect(const char *path, bool *fresh)
{
    *fresh = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    struct stat st;
    unsigned char head[100];
    ssize_t got = fstat(fd, &st) ? -1 : read(fd, head, sizeof(head));
    close(fd);
    if (got < 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: cannot read it", path);
    if (!S_ISREG(st.st_mode))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not a regular file", path);
    if (st.st_size == 0) {
        *fresh = true;
        return 0;
    }
    if (got < (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16))
        return gdr_fail(GDR_EXIT_USAGE, "%s: not an SQLite database (not a gdr-history file)",
                        path);
    /* A file cut short (a copy that stopped, a full disk): SQLite writes
     * whole pages, and the header's page count (offset 28, page size at
     * 16) holds when its change counters (24, 92) agree. */
    unsigned page = (unsigned)head[16] << 8 | head[17];
    page = page == 1 ? 65536 : page;
    uint64_t pages = be32(head + 28), size = (uint64_t)st.st_size;
    if (page < 512 || (page & (page - 1)) || size % page ||
        (pages && be32(head + 24) == be32(head + 92) && size < pages * page))
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: truncated: %llu bytes, the header says %llu pages of %u bytes", path,
                        (unsigned long long)size, (unsigned long long)pages, page);
    /* Offsets of the database header: schema cookie 40, user_version 60,
     * application_id 68 (sqlite.org/fileformat.html). */
    uint32_t cookie = be32(head + 40), version = be32(head + 60), app = be32(head + 68);
    if (app != HDB_APPLICATION_ID) {
        if (app == 0 && cookie == 0) { /* no table was ever made in it */
            *fresh = true;
            return 0;
        }
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: not a gdr-history database (application_id "
                        "0x%x, schema cookie %u)",
                        path, (unsigned)app, (unsigned)cookie);
    }
    if (version > HDB_SCHEMA_VERSION)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: schema version %u is newer than this "
                        "gdr-history's %d",
                        path, (unsigned)version, HDB_SCHEMA_VERSION);
    return 0;
}

/* The busy timeout: HDB_BUSY_TIMEOUT_MS, or GDR_HISTORY_BUSY_MS (tests). */
static int busy_ms(void)
{
    const char *e = getenv("GDR_HISTORY_BUSY_MS");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 && v <= 600000 ? (int)v : HDB_BUSY_TIMEOUT_MS;
}

/* Corruption past the header shows here, before anything is written. */
static int sound(struct hdb *h)
{
    sqlite3_stmt *q = NULL;
    char check[256];
    int rc = sqlite3_prepare_v2(h->db, "PRAGMA quick_check(1)", -1, &q, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
        snprintf(check, sizeof(check), "%s", (const char *)sqlite3_column_text(q, 0));
    else
        snprintf(check, sizeof(check), "%s", sqlite3_errmsg(h->db));
    sqlite3_finalize(q);
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: locked by another process for more than %d s; try again when "
                        "it is done",
                        h->path, busy_ms() / 1000);
    if (strcmp(check, "ok"))
        return gdr_fail(GDR_EXIT_USAGE, "%s: corrupt database: %s", h->path, check);
    return 0;
}

static int migrate(struct hdb *h)
{
    long version;
    if (hdb_begin(h))
        return -1;
    /* Read again under the write lock: another process may have migrated. */
    if (pragma_int(h->db, "PRAGMA user_version", &version)) {
        db_fail(h, "reading the schema version");
        goto fail;
    }
    for (long v = version; v < HDB_SCHEMA_VERSION; v++)
        if (exec(h, migrations[v]))
            goto fail;
    if (version < HDB_SCHEMA_VERSION) {
        char sql[96];
        snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 HDB_APPLICATION_ID, HDB_SCHEMA_VERSION);
        if (exec(h, sql))
            goto fail;
    }
    return hdb_commit(h);
fail:
    hdb_rollback(h);
    return -1;
}

/* Switching to WAL needs the database to itself, and SQLite answers BUSY
 * at once rather than wait (while another process creates the same new
 * file, say): retry for as long as the busy timeout. */
static int wal(struct hdb *h)
{
    for (int waited_ms = 0;; waited_ms += 20) {
        int rc = sqlite3_exec(h->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) == SQLITE_IOERR)
            return gdr_fail(GDR_EXIT_USAGE,
                            "%s: cannot use WAL here (%s): keep the database "
                            "on a local file system (docs/nightly.md)",
                            h->path, sqlite3_errmsg(h->db));
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            return db_fail(h, "switching to WAL");
        if (waited_ms >= busy_ms())
            return db_fail(h, "switching to WAL");
        sqlite3_sleep(20);
    }
}

struct hdb *hdb_open(const char *path, bool create)
{
    struct hdb *h = calloc(1, sizeof(*h));
    if (!h) {
        gdr_fail(GDR_EXIT_RUN, "out of memory");
        return NULL;
    }
    snprintf(h->path, sizeof(h->path), "%s", path);
    bool fresh = true;
    if (access(path, F_OK) == 0) {
        if (inspect(path, &fresh))
            goto fail;
        if (fresh && !create) {
            gdr_fail(GDR_EXIT_USAGE, "%s: an empty database (gdr-history ingest fills it)", path);
            goto fail;
        }
    } else if (!create) {
        gdr_fail(GDR_EXIT_USAGE, "%s: no history database here (gdr-history ingest makes one)",
                 path);
        goto fail;
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
        gdr_fail(GDR_EXIT_USAGE, "%s: cannot open it: %s", path, sqlite3_errmsg(h->db));
        goto fail;
    }
    sqlite3_busy_timeout(h->db, busy_ms());
    sqlite3_extended_result_codes(h->db, 1);
    if (!fresh && sound(h))
        goto fail;
    if (wal(h) || exec(h, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;") || migrate(h))
        goto fail;
    return h;
fail:
    hdb_close(h);
    return NULL;
}

int hdb_check_db(const char *path, FILE *out)
{
    bool fresh;
    if (access(path, F_OK))
        return gdr_fail(GDR_EXIT_USAGE, "%s: no history database here", path);
    if (inspect(path, &fresh))
        return -1;
    if (fresh)
        return gdr_fail(GDR_EXIT_USAGE, "%s: an empty database", path);
    /* Read-only: checking a file must not change it (no WAL switch, no
     * migration). Without a -wal file beside it no one has it open (the
     * last connection removes it), and immutable=1 reads it without
     * making -wal and -shm files; with one, as a reader among others. */
    struct hdb h = {0};
    snprintf(h.path, sizeof(h.path), "%s", path);
    char wal[1040], uri[3200];
    snprintf(wal, sizeof(wal), "%s-wal", path);
    size_t u = (size_t)snprintf(uri, sizeof(uri), "file:");
    for (const char *p = path; *p && u + 4 < sizeof(uri); p++)
        u += (size_t)(strchr("%?#", *p) ? snprintf(uri + u, sizeof(uri) - u, "%%%02X", *p)
                                        : snprintf(uri + u, sizeof(uri) - u, "%c", *p));
    snprintf(uri + u, sizeof(uri) - u, "%s", access(wal, F_OK) ? "?immutable=1" : "");
    if (sqlite3_open_v2(uri, &h.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        int rc = gdr_fail(GDR_EXIT_USAGE, "%s: cannot open it: %s", path, sqlite3_errmsg(h.db));
        sqlite3_close(h.db);
        return rc;
    }
    sqlite3_busy_timeout(h.db, HDB_BUSY_TIMEOUT_MS);
    sqlite3_stmt *q = NULL;
    char first[256] = "";
    long problems = 0, pages = 0, page_size = 0;
    int rc = sqlite3_prepare_v2(h.db, "PRAGMA integrity_check(100)", -1, &q, NULL);
    int step = SQLITE_DONE;
    while (rc == SQLITE_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(q, 0);
        if (!row || !strcmp(row, "ok"))
            continue;
        /* A row may hold several problems, a line each. */
        for (const char *l = row; *l;) {
            size_t n = strcspn(l, "\n");
            if (strncmp(l, "*** in database", 15)) {
                if (!problems++)
                    snprintf(first, sizeof(first), "%.*s", (int)n, l);
                fprintf(out, "%s: %.*s\n", path, (int)n, l);
            }
            l += n + (l[n] == '\n');
        }
    }
    if ((rc != SQLITE_OK || step != SQLITE_DONE) && !problems++)
        snprintf(first, sizeof(first), "%s", sqlite3_errmsg(h.db));
    sqlite3_finalize(q);
    pragma_int(h.db, "PRAGMA page_count", &pages);
    pragma_int(h.db, "PRAGMA page_size", &page_size);
    sqlite3_close(h.db);
    if (problems)
        return gdr_fail(GDR_EXIT_USAGE, "%s: integrity check failed: %s%s", path, first,
                        problems > 1 ? " (and more, on stdout)" : "");
    fprintf(out, "%s: ok (integrity_check; %ld pages of %ld bytes)\n", path, pages, page_size);
    return 0;
}

void hdb_close(struct hdb *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);
    free(h);
}

int hdb_begin(struct hdb *h)
{
    return exec(h, "BEGIN IMMEDIATE");
}

int hdb_commit(struct hdb *h)
{
    return exec(h, "COMMIT");
}

void hdb_rollback(struct hdb *h)
{
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

static sqlite3_stmt *prepare(struct hdb *h, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(h, "preparing a statement");
        return NULL;
    }
    return st;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void bind_count(sqlite3_stmt *st, int i, long v)
{
    if (v < 0)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

/* Step an INSERT OR IGNORE; *added: a row was inserted. */
static int insert(struct hdb *h, sqlite3_stmt *st, const char *what, bool *added)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        db_fail(h, what);
        sqlite3_finalize(st);
        return -1;
    }
    *added = sqlite3_changes(h->db) > 0;
    sqlite3_finalize(st);
    return 0;
}

int hdb_add_run(struct hdb *h, const struct hdb_run *r, int64_t *id, bool *added)
{
    sqlite3_stmt *st = prepare(h, "INSERT OR IGNORE INTO runs (testbed, run_id, date, version, "
                                  "mode, planned, ok, failed, source, ingested) VALUES "
                                  "(?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ'))");
    if (!st)
        return -1;
    bind_text(st, 1, r->testbed);
    bind_text(st, 2, r->run_id);
    bind_text(st, 3, r->date);
    bind_text(st, 4, r->version);
    bind_text(st, 5, r->mode);
    bind_count(st, 6, r->planned);
    bind_count(st, 7, r->ok);
    bind_count(st, 8, r->failed);
    bind_text(st, 9, r->source);
    if (insert(h, st, "adding a run", added))
        return -1;
    st = prepare(h, "SELECT id FROM runs WHERE testbed = ? AND run_id = ?");
    if (!st)
        return -1;
    bind_text(st, 1, r->testbed);
    bind_text(st, 2, r->run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fail(h, "finding a run");
}

static int series_id(struct hdb *h, const struct hdb_key *k, int64_t *id)
{
    static const char cols[] = "testbed = ?1 AND test = ?2 AND client_placement = ?3 AND "
                               "client_registration = ?4 AND server_placement = ?5 AND "
                               "server_registration = ?6 AND bidirectional = ?7 AND "
                               "size = ?8 AND metric = ?9";
    char sql[512];
    bool added;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            snprintf(sql, sizeof(sql),
                     "INSERT OR IGNORE INTO series (testbed, test, "
                     "client_placement, client_registration, server_placement, "
                     "server_registration, bidirectional, size, metric) VALUES "
                     "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        else
            snprintf(sql, sizeof(sql), "SELECT id FROM series WHERE %s", cols);
        sqlite3_stmt *st = prepare(h, sql);
        if (!st)
            return -1;
        bind_text(st, 1, k->testbed);
        bind_text(st, 2, k->test);
        bind_text(st, 3, k->cplace);
        bind_text(st, 4, k->creg);
        bind_text(st, 5, k->splace);
        bind_text(st, 6, k->sreg);
        sqlite3_bind_int(st, 7, k->bidir);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)k->size);
        bind_text(st, 9, k->metric);
        if (pass == 0) {
            if (insert(h, st, "adding a series", &added))
                return -1;
            continue;
        }
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW)
            return db_fail(h, "finding a series");
    }
    return 0;
}

int hdb_add_point(struct hdb *h, const struct hdb_key *k, int64_t run, const struct hdb_point_in *p,
                  bool *added)
{
    int64_t sid;
    if (series_id(h, k, &sid))
        return -1;
    sqlite3_stmt *st =
        prepare(h, "INSERT OR IGNORE INTO points (series, run, value, spread, simulated, "
                   "soft_roce, document, clean, pct_of_limit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sid);
    sqlite3_bind_int64(st, 2, run);
    sqlite3_bind_double(st, 3, p->value);
    if (isnan(p->spread))
        sqlite3_bind_null(st, 4);
    else
        sqlite3_bind_double(st, 4, p->spread);
    sqlite3_bind_int(st, 5, p->simulated);
    sqlite3_bind_int(st, 6, p->soft_roce);
    bind_text(st, 7, p->document);
    if (p->clean < 0)
        sqlite3_bind_null(st, 8);
    else
        sqlite3_bind_int(st, 8, p->clean > 0);
    if (isnan(p->pct_of_limit))
        sqlite3_bind_null(st, 9);
    else
        sqlite3_bind_double(st, 9, p->pct_of_limit);
    return insert(h, st, "adding a point", added);
}

int hdb_add_failure(struct hdb *h, int64_t run, const char *name, const char *reason, bool *added)
{
    sqlite3_stmt *st = prepare(h, "INSERT OR IGNORE INTO failures (run, name, reason) "
                                  "VALUES (?, ?, ?)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, name);
    bind_text(st, 3, reason);
    return insert(h, st, "adding a failed run", added);
}

int hdb_add_annotation(struct hdb *h, const char *testbed, const char *date, const char *text,
                       bool *added)
{
    sqlite3_stmt *st = prepare(h, "INSERT OR IGNORE INTO annotations (testbed, date, text) "
                                  "VALUES (?, ?, ?)");
    if (!st)
        return -1;
    bind_text(st, 1, testbed);
    bind_text(st, 2, date);
    bind_text(st, 3, text);
    return insert(h, st, "adding an annotation", added);
}

/* ---- reading ---- */

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static long col_count(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, i);
}

/* Grow *arr (of elem bytes) to hold one more than *n. */
static void *grow(void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(arr, c * elem);
    if (!p)
        return NULL;
    memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
    *cap = c;
    return p;
}

int hdb_testbeds(struct hdb *h, char (**names)[256], size_t *n)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st = prepare(h, "SELECT testbed FROM runs GROUP BY testbed "
                                  "ORDER BY max(date) DESC, testbed");
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char(*p)[256] = grow(*names, *n, &cap, sizeof(**names));
        if (!p) {
            sqlite3_finalize(st);
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        }
        *names = p;
        col_text(st, 0, p[(*n)++], sizeof(p[0]));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(h, "listing the testbeds");
}

int hdb_testbed_of_run(struct hdb *h, const char *run_id, char *out, size_t len)
{
    sqlite3_stmt *st = prepare(h, "SELECT testbed FROM runs WHERE run_id = ?");
    if (!st)
        return -1;
    bind_text(st, 1, run_id);
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (found++ == 0)
            col_text(st, 0, out, len);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(h, "finding a run");
    if (found == 0)
        return gdr_fail(GDR_EXIT_USAGE, "%s: no run '%s'", h->path, run_id);
    if (found > 1)
        return gdr_fail(GDR_EXIT_USAGE, "%s: run '%s' is on %d testbeds: name one (--testbed)",
                        h->path, run_id, found);
    return 0;
}

/* Reads every row the query (one parameter: the testbed) returns into a
 * growing array of elem-sized rows, each filled by fill. */
typedef void (*row_fill)(sqlite3_stmt *st, void *row, const struct hdb_testbed *t);

static int load_rows(struct hdb *h, const char *sql, const struct hdb_testbed *t, void **arr,
                     size_t *n, size_t elem, row_fill fill, const char *what)
{
    sqlite3_stmt *st = prepare(h, sql);
    if (!st)
        return -1;
    bind_text(st, 1, t->name);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *p = grow(*arr, *n, &cap, elem);
        if (!p)
            break;
        *arr = p;
        fill(st, p + (*n)++ * elem, t);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    return rc == SQLITE_DONE ? 0 : db_fail(h, what);
}

static void fill_run(sqlite3_stmt *st, void *row, const struct hdb_testbed *t)
{
    struct hdb_run_row *p = row;
    (void)t;
    p->id = sqlite3_column_int64(st, 0);
    col_text(st, 1, p->run_id, sizeof(p->run_id));
    col_text(st, 2, p->date, sizeof(p->date));
    col_text(st, 3, p->version, sizeof(p->version));
    col_text(st, 4, p->mode, sizeof(p->mode));
    p->planned = col_count(st, 5);
    p->ok = col_count(st, 6);
    p->failed = col_count(st, 7);
    col_text(st, 8, p->source, sizeof(p->source));
}

static int load_runs(struct hdb *h, struct hdb_testbed *t)
{
    void *rows = NULL;
    int rc = load_rows(h,
                       "SELECT id, run_id, date, version, mode, planned, ok, failed, source "
                       "FROM runs WHERE testbed = ? ORDER BY date, run_id",
                       t, &rows, &t->nruns, sizeof(*t->runs), fill_run, "reading the runs");
    t->runs = rows;
    return rc;
}

static size_t run_index(const struct hdb_testbed *t, int64_t id)
{
    for (size_t i = 0; i < t->nruns; i++)
        if (t->runs[i].id == id)
            return i;
    return SIZE_MAX;
}

static int load_series(struct hdb *h, struct hdb_testbed *t)
{
    /* Run row ids to their index in date order, for the points. */
    int64_t maxid = 0;
    for (size_t i = 0; i < t->nruns; i++)
        if (t->runs[i].id > maxid)
            maxid = t->runs[i].id;
    size_t *idx = malloc(((size_t)maxid + 1) * sizeof(*idx));
    if (!idx)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    for (int64_t i = 0; i <= maxid; i++)
        idx[i] = SIZE_MAX;
    for (size_t i = 0; i < t->nruns; i++)
        idx[t->runs[i].id] = i;
    sqlite3_stmt *st = prepare(
        h,
        "SELECT s.id, s.test, s.client_placement, s.client_registration, s.server_placement, "
        "s.server_registration, s.bidirectional, s.size, s.metric, p.run, p.value, p.spread, "
        "p.simulated, p.soft_roce, p.clean, p.pct_of_limit FROM series s JOIN points p ON p.series = s.id "
        "JOIN runs r ON r.id = p.run WHERE s.testbed = ? "
        "ORDER BY s.test, s.client_placement, s.client_registration, s.server_placement, "
        "s.server_registration, s.bidirectional, s.metric, s.size, r.date, r.run_id");
    if (!st) {
        free(idx);
        return -1;
    }
    bind_text(st, 1, t->name);
    size_t cap = 0, pcap = 0;
    int64_t last = -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t sid = sqlite3_column_int64(st, 0);
        if (sid != last) {
            struct hdb_series *s = grow(t->series, t->nseries, &cap, sizeof(*s));
            if (!s)
                break;
            t->series = s;
            s += t->nseries++;
            snprintf(s->key.testbed, sizeof(s->key.testbed), "%s", t->name);
            col_text(st, 1, s->key.test, sizeof(s->key.test));
            col_text(st, 2, s->key.cplace, sizeof(s->key.cplace));
            col_text(st, 3, s->key.creg, sizeof(s->key.creg));
            col_text(st, 4, s->key.splace, sizeof(s->key.splace));
            col_text(st, 5, s->key.sreg, sizeof(s->key.sreg));
            s->key.bidir = sqlite3_column_int(st, 6);
            s->key.size = (uint64_t)sqlite3_column_int64(st, 7);
            col_text(st, 8, s->key.metric, sizeof(s->key.metric));
            last = sid;
            pcap = 0;
        }
        struct hdb_series *s = &t->series[t->nseries - 1];
        struct hdb_point *p = grow(s->points, s->npoints, &pcap, sizeof(*p));
        if (!p)
            break;
        s->points = p;
        p += s->npoints++;
        int64_t run = sqlite3_column_int64(st, 9);
        p->run = run >= 0 && run <= maxid ? idx[run] : SIZE_MAX;
        p->value = sqlite3_column_double(st, 10);
        double *most = &t->most[!strcmp(s->key.metric, "latency")];
        *most = fmax(*most, p->value);
        p->spread =
            sqlite3_column_type(st, 11) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 11);
        p->simulated = sqlite3_column_int(st, 12);
        p->soft_roce = sqlite3_column_int(st, 13);
        p->clean = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 14);
        p->pct_of_limit =
            sqlite3_column_type(st, 15) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 15);
    }
    sqlite3_finalize(st);
    free(idx);
    if (rc == SQLITE_ROW)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    return rc == SQLITE_DONE ? 0 : db_fail(h, "reading the series");
}

static void fill_note(sqlite3_stmt *st, void *row, const struct hdb_testbed *t)
{
    struct hdb_note *p = row;
    (void)t;
    col_text(st, 0, p->date, sizeof(p->date));
    col_text(st, 1, p->text, sizeof(p->text));
}

static void fill_failure(sqlite3_stmt *st, void *row, const struct hdb_testbed *t)
{
    struct hdb_failure *p = row;
    p->run = run_index(t, sqlite3_column_int64(st, 0));
    col_text(st, 1, p->name, sizeof(p->name));
    col_text(st, 2, p->reason, sizeof(p->reason));
}

/* The annotations, and the failed runs (each with its run's index). */
static int load_notes(struct hdb *h, struct hdb_testbed *t)
{
    void *notes = NULL, *failures = NULL;
    int rc =
        load_rows(h, "SELECT date, text FROM annotations WHERE testbed = ? ORDER BY date, id", t,
                  &notes, &t->nnotes, sizeof(*t->notes), fill_note, "reading the annotations");
    t->notes = notes;
    if (rc)
        return rc;
    rc = load_rows(h,
                   "SELECT f.run, f.name, f.reason FROM failures f JOIN runs r "
                   "ON r.id = f.run WHERE r.testbed = ? ORDER BY r.date, f.name",
                   t, &failures, &t->nfailures, sizeof(*t->failures), fill_failure,
                   "reading the failed runs");
    t->failures = failures;
    return rc;
}

int hdb_load(struct hdb *h, const char *testbed, struct hdb_testbed *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", testbed);
    /* One read transaction: a consistent snapshot while writers go on. */
    if (exec(h, "BEGIN"))
        return -1;
    int rc = load_runs(h, out) || load_series(h, out) || load_notes(h, out) ? -1 : 0;
    exec(h, "COMMIT");
    if (rc)
        hdb_testbed_free(out);
    return rc;
}

void hdb_testbed_free(struct hdb_testbed *t)
{
    for (size_t i = 0; i < t->nseries; i++)
        free(t->series[i].points);
    free(t->series);
    free(t->runs);
    free(t->notes);
    free(t->failures);
    memset(t, 0, sizeof(*t));
}

void hdb_key_pair(const struct hdb_key *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s%s", k->cplace, k->splace, k->bidir ? " bidir" : "");
}

void hdb_key_reg(const struct hdb_key *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", k->creg, k->sreg);
}

void hdb_key_name(const struct hdb_key *k, char *buf, size_t len)
{
    char pair[48], reg[40];
    hdb_key_pair(k, pair, sizeof(pair));
    hdb_key_reg(k, reg, sizeof(reg));
    snprintf(buf, len, "%s %s %s", k->test, pair, reg);
}
