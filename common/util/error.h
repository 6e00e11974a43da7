/* error.h - the one error message a run ends with, and its exit code.
 *
 * Functions deep in the harness record what failed (naming the device, peer,
 * size, errno string) and return -1; only main() prints the message and exits.
 * The first error recorded wins, so later cleanup failures cannot hide the
 * cause. */
#ifndef GDR_ERROR_H
#define GDR_ERROR_H

/* Exit codes shared by every binary. */
enum gdr_exit {
    GDR_EXIT_OK = 0,
    GDR_EXIT_RUN = 1,   /* the run failed: peer, verbs, data check */
    GDR_EXIT_USAGE = 2, /* bad arguments or bad input */
    GDR_EXIT_ENV = 3,   /* environment missing: no device, no driver */
};

#include <signal.h>

/* Set by SIGINT/SIGTERM: loops and waits stop, and the run ends as
 * "interrupted" with what it measured so far. */
extern volatile sig_atomic_t gdr_interrupted;

/* Record an error (if none is recorded yet) and return -1. */
int gdr_fail(enum gdr_exit code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The recorded message, or "" when none. */
const char *gdr_error_message(void);

/* The recorded exit code, or GDR_EXIT_OK when none. */
enum gdr_exit gdr_error_code(void);

/* Forget the recorded error (tests, retries). */
void gdr_error_clear(void);

#endif
