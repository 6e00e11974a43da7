/* unit.h - what every unit test needs: cmocka with its prerequisite headers,
 * and the two checks cmocka 1.1 lacks (doubles compared to a tolerance, and
 * "the recorded harness error has this code and names this thing"). */
#ifndef GDR_UNIT_H
#define GDR_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "error.h"

/* |actual - expected| <= tol, printing both values when it is not. */
#define assert_near(actual, expected, tol)                                                         \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                         \
        if (!(fabs(a_ - e_) <= t_))                                                                \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #actual, a_, e_, t_);            \
    } while (0)

/* The recorded error has exit code `code` and its message contains `frag`. */
#define assert_error(code, frag)                                                                   \
    do {                                                                                           \
        if (gdr_error_code() != (code))                                                            \
            fail_msg("error code %d, expected %d (message: '%s')", (int)gdr_error_code(),          \
                     (int)(code), gdr_error_message());                                            \
        if (!strstr(gdr_error_message(), (frag)))                                                  \
            fail_msg("error message '%s' does not contain '%s'", gdr_error_message(), (frag));     \
    } while (0)

/* No error is recorded. */
#define assert_no_error()                                                                          \
    do {                                                                                           \
        if (gdr_error_code() != GDR_EXIT_OK)                                                       \
            fail_msg("unexpected error %d: '%s'", (int)gdr_error_code(), gdr_error_message());     \
    } while (0)

/* Every test starts with no recorded error. */
static inline int unit_clear_error(void **state)
{
    (void)state;
    gdr_error_clear();
    return 0;
}

#define gdr_unit_test(f) cmocka_unit_test_setup(f, unit_clear_error)

#endif
