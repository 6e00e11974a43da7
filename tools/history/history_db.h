/* history_db.h - the SQLite file of gdr-history: opening it safely, the
 * versioned schema, and the rows the commands read and write.
 *
 * Opening checks before it writes: a file that is not SQLite, a corrupt
 * one, another application's database (application_id and tables), or one
 * of a newer schema is refused with one message (exit 2) and left as it
 * was. A gdr-history file is then opened read-write with WAL and a busy
 * timeout, and migrated to the current schema (PRAGMA user_version) in
 * one write transaction. */
#ifndef GDR_TOOLS_HISTORY_DB_H
#define GDR_TOOLS_HISTORY_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HDB_APPLICATION_ID 0x47445248 /* "GDRH" */
#define HDB_SCHEMA_VERSION 2
#define HDB_BUSY_TIMEOUT_MS 30000

struct hdb;

/* Open (create: make the file when it does not exist) and migrate.
 * Returns NULL after gdr_fail. */
struct hdb *hdb_open(const char *path, bool create);
void hdb_close(struct hdb *h);

/* gdr-history check-db: the same checks as opening (SQLite, ours, not
 * newer, not cut short), then PRAGMA integrity_check on a read-only
 * connection; each problem found on out, a line "PATH: ok (...)" when
 * there is none. 0, or -1 after gdr_fail(GDR_EXIT_USAGE) naming the first
 * problem. The file is not written. */
int hdb_check_db(const char *path, FILE *out);

/* One write transaction (BEGIN IMMEDIATE: the write lock is taken at
 * once, so a second writer waits in the busy handler, never deadlocks). */
int hdb_begin(struct hdb *h);
int hdb_commit(struct hdb *h);
void hdb_rollback(struct hdb *h);

struct hdb_run {
    const char *testbed, *run_id, *date, *version, *mode, *source;
    long planned, ok, failed; /* -1: not known (no manifest) */
};
/* Insert the run unless (testbed, run_id) is there; *id is its row. */
int hdb_add_run(struct hdb *h, const struct hdb_run *r, int64_t *id, bool *added);

struct hdb_key {
    char testbed[256], test[64];
    char cplace[16], creg[16], splace[16], sreg[16];
    int bidir;
    uint64_t size;
    char metric[16];
};
/* A series key as a person reads it, in every output (check's columns,
 * the dashboard, the trend's titles): the placement pair "cuda-cuda"
 * (" bidir" after it), the registrations "dmabuf/dmabuf", and the two
 * after the test: "write_bw cuda-cuda dmabuf/dmabuf". */
void hdb_key_pair(const struct hdb_key *k, char *buf, size_t len);
void hdb_key_reg(const struct hdb_key *k, char *buf, size_t len);
void hdb_key_name(const struct hdb_key *k, char *buf, size_t len);
struct hdb_point_in {
    double value, spread; /* spread: NAN when the run has none */
    bool simulated, soft_roce;
    int clean;           /* 1 the NIC counted no error or retransmission, 0 it did, -1 unknown */
    double pct_of_limit; /* % of the path's limit; NAN unknown */
    const char *document;
};
int hdb_add_point(struct hdb *h, const struct hdb_key *k, int64_t run, const struct hdb_point_in *p,
                  bool *added);
int hdb_add_failure(struct hdb *h, int64_t run, const char *name, const char *reason, bool *added);
int hdb_add_annotation(struct hdb *h, const char *testbed, const char *date, const char *text,
                       bool *added);

/* ---- reading one testbed ---- */

struct hdb_run_row {
    int64_t id;
    char run_id[128], date[40], version[64], mode[16];
    long planned, ok, failed;
    char source[1024]; /* the run directory as ingested */
};
struct hdb_point {
    size_t run; /* index into hdb_testbed.runs */
    double value, spread;
    bool simulated, soft_roce;
    int clean;           /* 1, 0 (not clean: never a good measurement), -1 unknown */
    double pct_of_limit; /* NAN unknown */
};
struct hdb_series {
    struct hdb_key key;
    size_t npoints;
    struct hdb_point *points; /* by run date */
};
struct hdb_note {
    char date[40], text[512];
};
struct hdb_failure {
    size_t run;
    char name[128], reason[512];
};
struct hdb_testbed {
    char name[256];
    size_t nruns, nseries, nnotes, nfailures;
    double most[2];           /* the largest point: bandwidth, latency (their units: hist_unit) */
    struct hdb_run_row *runs; /* oldest first (date, then run id) */
    struct hdb_series *series;
    struct hdb_note *notes; /* oldest first */
    struct hdb_failure *failures;
};

/* The testbed names, newest run first; *names is one allocation. */
int hdb_testbeds(struct hdb *h, char (**names)[256], size_t *n);
/* The testbed of a run id (error when none or more than one has it). */
int hdb_testbed_of_run(struct hdb *h, const char *run_id, char *out, size_t len);
int hdb_load(struct hdb *h, const char *testbed, struct hdb_testbed *out);
void hdb_testbed_free(struct hdb_testbed *t);

#endif
