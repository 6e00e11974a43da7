/* text.h - small text helpers of gdr-json's writers: UTF-8 repair for
 * strings that came from the shell, ratios and a document's result in one
 * line (its units and sizes: figure.h). Pure functions (unit-tested in
 * tests/unit/test_text.c). */
#ifndef GDR_TOOLS_TEXT_H
#define GDR_TOOLS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc.h"

/* A malloc'ed copy of s with every byte that does not begin a valid UTF-8
 * sequence (stray continuation bytes, overlong forms, surrogates, code
 * points above U+10FFFF, truncated sequences) replaced by U+FFFD. NULL
 * when out of memory. */
char *gdr_utf8_clean(const char *s);

/* a / b with two decimals ("1.07"), or "n/a" when b is not above 0. */
void gdr_fmt_ratio(double a, double b, char *buf, size_t len);

/* A document's result in one line, for the sweep's and the nightly's
 * summaries: bandwidth at the largest size with its % of the path's limit
 * ("64 KiB: 42.7 MB/s, 62.5 % of limit"; "..., limit unknown"), latency
 * as the smallest size's median ("2 B: 3.14 µs median"), in that value's
 * gdr_unit_bw / gdr_unit_lat; then "; N of M sizes not clean" when a NIC
 * counted errors or retransmissions. "" for no rows. */
void gdr_fmt_brief(const struct gdr_row *rows, size_t n, bool latency, char *buf, size_t len);

#endif
