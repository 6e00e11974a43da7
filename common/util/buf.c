#include "config.h"

#include "buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void gdr_buf_free(struct gdr_buf *b)
{
    if (b->f)
        fclose(b->f);
    free(b->s);
    memset(b, 0, sizeof(*b));
}

/* The stream, opened on first use; NULL once out of memory. */
static FILE *stream(struct gdr_buf *b)
{
    if (!b->f && !b->oom && !(b->f = open_memstream(&b->s, &b->len)))
        b->oom = true;
    return b->oom ? NULL : b->f;
}

void gdr_buf_put(struct gdr_buf *b, const char *s, size_t n)
{
    FILE *f = stream(b);
    if (f && n && fwrite(s, 1, n, f) != n)
        b->oom = true;
}

void gdr_buf_puts(struct gdr_buf *b, const char *s)
{
    gdr_buf_put(b, s, strlen(s));
}

void gdr_buf_printf(struct gdr_buf *b, const char *fmt, ...)
{
    FILE *f = stream(b);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(f, fmt, ap) < 0)
        b->oom = true;
    va_end(ap);
}

const char *gdr_buf_text(struct gdr_buf *b)
{
    if (b->f && fflush(b->f))
        b->oom = true;
    return b->s ? b->s : "";
}

size_t gdr_buf_len(struct gdr_buf *b)
{
    gdr_buf_text(b);
    return b->len;
}
