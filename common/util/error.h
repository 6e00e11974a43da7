/* error.h - the one error message a run ends with, its exit code and its
 * class.
 *
 * Functions deep in the harness record what failed (naming the device, peer,
 * size, errno string) and return -1; only main() prints the message and exits.
 * The first error recorded wins, so later cleanup failures cannot hide the
 * cause. The class says what kind of failure it was, for the tools that
 * count failures per run (the JSON's error_class, docs/results-format.md). */
#ifndef GDR_ERROR_H
#define GDR_ERROR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes shared by every binary. */
enum gdr_exit {
    GDR_EXIT_OK = 0,
    GDR_EXIT_RUN = 1,   /* the run failed: peer, verbs, data check */
    GDR_EXIT_USAGE = 2, /* bad arguments or bad input */
    GDR_EXIT_ENV = 3,   /* environment missing: no device, no driver */
};

/* Set by SIGINT/SIGTERM: loops and waits stop, and the run ends as
 * "interrupted" with what it measured so far. */
extern volatile sig_atomic_t gdr_interrupted;

/* Kinds of failure (error_class.kind). */
#define GDR_KIND_COMPLETION "completion"   /* a work completion with an error status */
#define GDR_KIND_EVENT "event"             /* a fatal asynchronous event of the device */
#define GDR_KIND_TIMEOUT "timeout"         /* no progress or no message within --timeout */
#define GDR_KIND_PEER "peer"               /* the peer closed the connection or gave up */
#define GDR_KIND_INTERRUPTED "interrupted" /* SIGINT or SIGTERM */
#define GDR_KIND_DATA "data"               /* --validate found bytes that differ */
#define GDR_KIND_SETUP "setup"             /* before the sweep: device, connection, options */
#define GDR_KIND_OTHER "other"             /* during the sweep, none of the above */

#define GDR_ERROR_UNKNOWN UINT64_MAX /* a size or iteration not known */

/* Strings are "" when they do not apply; the verbs names are spelled out
 * (IBV_WC_*, IBV_EVENT_*) so that util needs no verbs header. */
struct gdr_error_class {
    char kind[16];
    char wc_status[32]; /* the failed completion's status */
    char event[32];     /* the fatal async event (with a completion: the one seen with it) */
    char side[8];       /* client | server: the end that saw it first */
    char phase[8];      /* warmup | timed; "" outside a size */
    uint64_t size, iteration;
};

/* A command line the program cannot take, said at once: "PROG: MESSAGE
 * (PROG --help)" on stderr. Returns GDR_EXIT_USAGE, for main() to exit with. */
int gdr_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --version of every program: "PROG (gdrbench) VERSION" on stdout, VERSION
 * the package's (configure's, from git describe or the tarball). The
 * scripts' is version() of scripts/lib.sh, the same line. */
void gdr_print_version(const char *prog);

/* Record an error of kind GDR_KIND_OTHER (GDR_KIND_SETUP outside the
 * sweep) if none is recorded yet, and return -1. */
int gdr_fail(enum gdr_exit code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a kind. */
int gdr_fail_kind(const char *kind, enum gdr_exit code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a whole class; its empty phase, unknown size and side are
 * filled in from where the run is. */
int gdr_fail_class(const struct gdr_error_class *c, enum gdr_exit code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Where the run is, for the class of any error recorded meanwhile: this
 * end's side once known, and the phase ("warmup", "timed", "" between
 * phases) and size being run; phase NULL: the sweep is over (or has not
 * begun: errors until the first call are of kind setup). */
void gdr_error_side(const char *side);
void gdr_error_at(const char *phase, uint64_t size);
/* Where the run is, for a message: " at size N" (when a size is being
 * run), ", iteration I" (when iteration is not GDR_ERROR_UNKNOWN), " of
 * the warm-up" (in it); "" outside the sweep. */
void gdr_error_where(char *buf, size_t len, uint64_t iteration);
/* The phase being run: "warmup", "timed" or "". */
const char *gdr_error_phase(void);

/* A class of `kind` with nothing else known. */
void gdr_error_class_init(struct gdr_error_class *c, const char *kind);

/* The recorded message, or "" when none. */
const char *gdr_error_message(void);

/* The recorded exit code, or GDR_EXIT_OK when none. */
enum gdr_exit gdr_error_code(void);

/* The recorded error's class (kind "" when none is recorded). */
const struct gdr_error_class *gdr_error_class(void);

/* Forget the recorded error and where the sweep was (tests, retries);
 * the side stays. */
void gdr_error_clear(void);

#endif
