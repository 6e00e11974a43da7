/* sizes.h - message sizes: parsing "64K"-style values and building the
 * list a sweep walks. */
#ifndef GDR_SIZES_H
#define GDR_SIZES_H

#include <stddef.h>
#include <stdint.h>

#define GDR_SIZE_MIN 1u
#define GDR_SIZE_MAX (1ull << 30) /* 1 GiB: one message, one buffer slot */
#define GDR_SIZES_MAX_COUNT 64    /* 1 B to 1 GiB in powers of two is 31 */
#define GDR_ALL_MIN 2u            /* -a: perftest's 2 B ... */
#define GDR_ALL_MAX (8u << 20)    /* ... to 8 MiB */

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
