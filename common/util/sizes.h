/* sizes.h - message sizes: parsing "64K"-style values and building the
 * list a sweep walks. */
#ifndef GDR_SIZES_H
#define GDR_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct gdr_size_list {
    size_t count;
    uint64_t size[GDR_SIZES_MAX_COUNT];
};

/* Parse a byte count: decimal digits with an optional binary suffix
 * K, M or G (KiB, MiB, GiB; "KB"/"KiB" spellings accepted). Rejects empty,
 * negative, non-numeric and overflowing input. */
int gdr_parse_bytes(const char *text, uint64_t *out);

/* Geometric list MIN, MIN*FACTOR, ... up to and including MAX when the
 * steps land on it (MAX is always the last entry). */
int gdr_sizes_range(struct gdr_size_list *list, uint64_t min, uint64_t max, unsigned factor);

/* Parse "MIN:MAX[:FACTOR]" (FACTOR defaults to 2). Errors go through
 * gdr_fail with GDR_EXIT_USAGE. */
int gdr_sizes_parse(struct gdr_size_list *list, const char *spec);

uint64_t gdr_sizes_max(const struct gdr_size_list *list);

#endif
