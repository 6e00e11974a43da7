/* buf.h - a growing text buffer over glibc's open_memstream: the pages of
 * gdr-report and the dashboard (tools/report/html.h escapes into it), the
 * troubleshooting report, a string table.
 *
 * s and len are current only after gdr_buf_text or gdr_buf_len (the stream
 * writes them at a flush); a buffer must not move while it is open. */
#ifndef GDR_BUF_H
#define GDR_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gdr_buf {
    FILE *f; /* opened on the first write */
    char *s;
    size_t len;
    bool oom; /* an allocation failed: the text is incomplete */
};

void gdr_buf_free(struct gdr_buf *b);
/* n bytes of s (NUL bytes too: a string table). */
void gdr_buf_put(struct gdr_buf *b, const char *s, size_t n);
void gdr_buf_puts(struct gdr_buf *b, const char *s);
__attribute__((format(printf, 2, 3))) void gdr_buf_printf(struct gdr_buf *b, const char *fmt, ...);
/* The text so far, NUL-terminated; "" when nothing was written. */
const char *gdr_buf_text(struct gdr_buf *b);
size_t gdr_buf_len(struct gdr_buf *b);

#endif
