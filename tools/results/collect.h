/* collect.h - many result documents grouped into series.
 *
 * A series is one test between one pair of buffer placements and
 * registrations (the GDR mode): the key that compare matches and plot draws
 * as one curve. Both ends of a run write the same rows, so a series takes
 * the client's documents and falls back to the server's only when no
 * client document exists. Several documents of one series are repeats:
 * each size's numbers are the median over the repeats that have it. */
#ifndef GDR_TOOLS_COLLECT_H
#define GDR_TOOLS_COLLECT_H

#include "doc.h"
#include "figure.h"

struct gdr_series {
    char test[64], metric[16], pair[40], reg[40], gdr[8];
    bool latency;
    bool simulated; /* some document of it ran on the CUDA test double */
    size_t ndocs;
    const struct gdr_doc **docs; /* the documents used (one role) */
    size_t nsizes;
    struct gdr_row *rows; /* per size, ascending; medians over docs */
};

struct gdr_set {
    size_t ndocs;
    struct gdr_doc *docs;
    size_t nseries;
    struct gdr_series *series;
};

enum gdr_incomplete { GDR_INCOMPLETE_FAIL, GDR_INCOMPLETE_SKIP };

/* Load files and directories (their *.json, not recursing; a sweep's
 * manifest.json is not a result document and is left out). A document is
 * simulated when a GPU end's cuda_name begins with "cudasim" or when the
 * manifest.json beside it marks its run "simulated": true. A document
 * whose status is not "complete" is an error (*failed_run set) or is
 * skipped with a note on stderr. Returns 0 or -1 after gdr_fail. */
int gdr_set_load(struct gdr_set *set, char *const *paths, size_t npaths,
                 enum gdr_incomplete incomplete, bool *failed_run);
void gdr_set_free(struct gdr_set *set);

/* The series with the same key (test, placements, registrations), or NULL. */
const struct gdr_series *gdr_set_find(const struct gdr_set *set, const struct gdr_series *like);

/* The one unit of set's bandwidth (lat: latency) in every page and figure
 * of the run: gdr_unit_bw of its largest bandwidth or limit (gdr_unit_lat
 * of its largest p99). */
struct gdr_unit gdr_set_unit(const struct gdr_set *set, bool lat);

/* "write_bw host-host host/host" */
void gdr_series_name(const struct gdr_series *s, char *buf, size_t len);

#endif
