/* escape.h - untrusted text (from a document, a database, a command line)
 * into the text formats the tools write: one escaper per format, and the
 * one UTF-8 decoder they share, so that each writes valid UTF-8 whatever it
 * is given. HTML has its escaper beside the page code (tools/report/html.h)
 * on the same decoder.
 *
 * Every escaper replaces a byte that does not start a valid UTF-8 sequence
 * with U+FFFD and writes no character XML 1.0 forbids (C0 controls but
 * tab, LF and CR; U+FFFE, U+FFFF): a JUnit file, a CSV or a Markdown page
 * that a strict reader refuses for one stray byte is a lost report. */
#ifndef GDR_ESCAPE_H
#define GDR_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GDR_UTF8_REPLACEMENT 0xfffdu

/* The character at s (not at its end): returns its length in bytes, 1 to
 * 4, and sets *cp. A byte that does not start a valid sequence (a stray
 * continuation byte, an overlong form, a surrogate, above U+10FFFF, cut
 * short) is one character, U+FFFD. */
size_t gdr_utf8_next(const char *s, uint32_t *cp);
/* cp in UTF-8 to f (cp a valid scalar value). */
void gdr_utf8_put(FILE *f, uint32_t cp);
/* Whether XML 1.0 allows cp in a document. */
bool gdr_xml_char(uint32_t cp);

/* XML element text and attribute values: & < > " ' as entities; a
 * forbidden character becomes a space. */
void gdr_esc_xml(FILE *f, const char *s);
/* One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or
 * LF, quotes doubled; a forbidden character becomes a space. */
void gdr_esc_csv(FILE *f, const char *s);
/* One Markdown table cell on one line: '|' becomes '/', every control
 * character (tab, CR, LF too) a space. */
void gdr_esc_md_cell(FILE *f, const char *s);

#endif
