/* json.h - strict getters over cJSON objects that come from outside
 * (a peer's message, a results file): every field is checked for presence,
 * type and range, and a failure names the field. */
#ifndef GDR_JSON_H
#define GDR_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Each returns 0, or -1 after gdr_fail(GDR_EXIT_RUN, "<what>: field ...").
 * `what` names the document ("message from 198.18.0.1", "results.json"). */
int gdr_json_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out, const char *what);
int gdr_json_double(const cJSON *obj, const char *key, double *out, const char *what);
int gdr_json_bool(const cJSON *obj, const char *key, bool *out, const char *what);
/* Copies into buf (NUL-terminated); a string that does not fit is an error. */
int gdr_json_str(const cJSON *obj, const char *key, char *buf, size_t len, const char *what);

/* Lenient reads, for optional members and documents already checked: the
 * value at key, or dflt when it is missing or of another type (cJSON's own
 * getters, which take the item, not the key). gdr_jstr and gdr_jnum: NULL
 * and NAN, "not known". */
const char *gdr_jstr_or(const cJSON *o, const char *key, const char *dflt);
double gdr_jnum_or(const cJSON *o, const char *key, double dflt);
const char *gdr_jstr(const cJSON *o, const char *key);
double gdr_jnum(const cJSON *o, const char *key);
/* A count (a message size in bytes): 0 when missing, negative or past
 * 2^63, so a hostile document cannot make the cast undefined. */
uint64_t gdr_jcount(const cJSON *o, const char *key);
/* The same for an array's item i (a pair of names, a [from, to] span). */
const char *gdr_jitem_str_or(const cJSON *arr, int i, const char *dflt);
double gdr_jitem_num_or(const cJSON *arr, int i, double dflt);

/* Add an unsigned integer exactly: values below 10^15 are JSON numbers
 * (cJSON prints only 15 significant digits when they read back within
 * DBL_EPSILON, so larger integers would lose their last digits); larger
 * values (addresses, byte totals) are written as decimal strings. */
void gdr_json_add_u64(cJSON *obj, const char *key, uint64_t v);

/* Add a number, or null when it is NAN (not known): NAN is not JSON. */
void gdr_json_add_number_or_null(cJSON *obj, const char *key, double v);

/* Write a document to path atomically: a temporary file in the same
 * directory, fsync, then rename, so readers see the old file or the new
 * one, never a torn one. */
int gdr_json_write_atomic(const cJSON *doc, const char *path);

/* An error class as JSON: its kind and the fields that are known (the
 * result document's error_class; a peer's ERROR message). */
struct gdr_error_class;
cJSON *gdr_json_error_class(const struct gdr_error_class *c);
/* Read one leniently (it comes from a peer or a file): a field that is
 * missing or not what it may be is left out. -1 when o is not an object
 * with a known kind; nothing is recorded as an error either way. */
int gdr_json_read_error_class(const cJSON *o, struct gdr_error_class *c);

/* Read and parse a whole file (at most max_bytes). */
cJSON *gdr_json_read_file(const char *path, size_t max_bytes);

#endif
