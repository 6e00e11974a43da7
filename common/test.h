/* test.h - what a benchmark declares about itself.
 *
 * Each file in bench/ fills one struct gdr_test and calls gdr_main(); the
 * harness derives everything else (who posts, who receives, who checks the
 * data, who counts the bytes) from the verb and the metric (roles.h). */
#ifndef GDR_TEST_H
#define GDR_TEST_H

#include <stdbool.h>

enum gdr_verb { GDR_VERB_WRITE, GDR_VERB_READ, GDR_VERB_SEND };
enum gdr_metric { GDR_METRIC_BW, GDR_METRIC_LAT };

/* The verb as errors name it ("RDMA write of 65536 bytes failed ..."). */
static inline const char *gdr_verb_name(enum gdr_verb verb)
{
    switch (verb) {
    case GDR_VERB_WRITE: return "RDMA write";
    case GDR_VERB_READ: return "RDMA read";
    case GDR_VERB_SEND: break;
    }
    return "send";
}

struct gdr_test {
    const char *name;    /* "write_bw": recorded in the JSON */
    const char *binary;  /* "gdr_write_bw": for --help and errors */
    const char *summary; /* one line for --help */
    enum gdr_verb verb;
    enum gdr_metric metric;
};

/* Run a whole benchmark: options, connection, sweep, report. Returns the
 * process exit code. */
int gdr_main(const struct gdr_test *test, int argc, char **argv);

#endif
