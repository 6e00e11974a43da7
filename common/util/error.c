#include "config.h"

#include "error.h"

#include <stdarg.h>
#include <stdio.h>

volatile sig_atomic_t gdr_interrupted;

/* Per thread: gdr-cluster-core reads documents on several threads, each
 * failure its own. */
static _Thread_local char message[512];
static _Thread_local enum gdr_exit recorded = GDR_EXIT_OK;

int gdr_fail(enum gdr_exit code, const char *fmt, ...)
{
    if (recorded != GDR_EXIT_OK)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    /* One line, no terminal controls, whatever a peer put in its fields. */
    for (char *p = message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    recorded = code == GDR_EXIT_OK ? GDR_EXIT_RUN : code;
    return -1;
}

const char *gdr_error_message(void)
{
    return recorded == GDR_EXIT_OK ? "" : message;
}

enum gdr_exit gdr_error_code(void)
{
    return recorded;
}

void gdr_error_clear(void)
{
    recorded = GDR_EXIT_OK;
    message[0] = '\0';
}
