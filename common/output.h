/* output.h - what a run writes: the text table on stdout, the progress
 * line on stderr, and the result document (JSON) for the whole sweep,
 * which harness.c writes with --json. */
#ifndef GDR_OUTPUT_H
#define GDR_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "schema.h"
#include "session.h"

/* The connection block printed before the table. */
void gdr_output_banner(const struct gdr_session *s);
/* One table row (the header comes before the first). */
void gdr_output_row(const struct gdr_session *s, const struct gdr_size_result *row);

struct gdr_progress {
    bool enabled; /* stderr is a terminal and not --quiet */
    size_t total;
    uint64_t start_ns;
};
void gdr_progress_start(struct gdr_progress *p, const struct gdr_config *cfg, size_t total);
void gdr_progress_show(struct gdr_progress *p, size_t index, uint64_t size);
void gdr_progress_done(struct gdr_progress *p);

/* The run's parameters as the document writes them (also what HELLO compares). */
cJSON *gdr_output_parameters(const struct gdr_config *cfg);

/* One row as the document's results[] hold it (a soak's lines too). */
cJSON *gdr_output_row_json(const struct gdr_session *s, const struct gdr_size_result *r);

/* The whole run as one document. status: "complete", "failed" or
 * "interrupted"; error is NULL when complete. */
cJSON *gdr_output_document(const struct gdr_session *s, int argc, char **argv,
                           const struct gdr_size_result *rows, size_t nrows, const char *status,
                           const char *error);

#endif
