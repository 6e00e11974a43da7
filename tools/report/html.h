/* html.h - the pages of gdr-report and the history dashboard: a growing
 * text buffer (util/buf.h), escaping for HTML and SVG text, the page skeleton with its
 * Content-Security-Policy, and the atomic write (temporary file + rename,
 * so a reader never sees half a page and a failure leaves no partial one).
 *
 * Every string that came from a document, a database or a command line goes
 * through gdr_buf_esc (or the %s of gdr_buf_escf): it escapes & < > " '
 * and replaces control characters and invalid UTF-8, so the same call is
 * safe in element text, in attribute values and in inline SVG. */
#ifndef GDR_REPORT_HTML_H
#define GDR_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h" /* gdr_buf_printf: trusted text only (numbers, names we chose) */

/* Untrusted text, escaped. */
void gdr_buf_esc(struct gdr_buf *b, const char *s);
/* At most max characters of s, escaped, with "..." when cut (SVG text does
 * not wrap: a 10 kB host name must not push a figure apart). */
void gdr_buf_esc_max(struct gdr_buf *b, const char *s, size_t max);
/* printf whose %s arguments are escaped (other conversions as printf;
 * only %s, %d, %zu, %u, %g, %f with flags/width/precision are used). */
__attribute__((format(printf, 2, 3))) void gdr_buf_escf(struct gdr_buf *b, const char *fmt, ...);

/* The page's style sheet (one, inline) and its CSP hash. */
const char *gdr_html_css(void);
/* "sha256-BASE64" of s, for a CSP source list. */
void gdr_csp_hash(const char *s, char *out, size_t len);

/* <!DOCTYPE html> ... <body><main>: charset, viewport, a CSP that allows
 * nothing but the inline style sheet (no script, no fetch, no image, no
 * form, no base), the title (escaped). */
void gdr_html_begin(struct gdr_buf *b, const char *title);
/* The footer line (what made the page) and the closing tags. */
void gdr_html_end(struct gdr_buf *b, const char *generator);

/* A <section> with an id and an <h2> (both escaped), and its end. */
void gdr_section_begin(struct gdr_buf *b, const char *id, const char *title);
void gdr_section_end(struct gdr_buf *b);
/* A badge: <span class="badge v-CLASS">text</span>; CLASS keeps letters only
 * (a verdict word), text is escaped. */
void gdr_badge(struct gdr_buf *b, const char *cls, const char *text);
/* The lab's warnings (figure.h's texts) that hold, each a <p class="warn">. */
void gdr_lab_warnings(struct gdr_buf *b, bool simulated, bool soft_roce);

/* Write b to path atomically (common/util/atomic_file.h). Returns 0, or -1
 * after gdr_fail(GDR_EXIT_USAGE) naming the path; the temporary file is
 * removed on failure. An incomplete buffer (oom) is an error. */
int gdr_buf_write_atomic(struct gdr_buf *b, const char *path);

#endif
