/* pattern.h - the data pattern --validate writes and checks.
 *
 * Each (size, slot) pair gets its own seed, so a message that lands in the
 * wrong slot, a stale slot from an earlier size, or a torn message are all
 * caught, not only missing bytes. */
#ifndef GDR_PATTERN_H
#define GDR_PATTERN_H

#include <stddef.h>
#include <stdint.h>

uint64_t gdr_pattern_seed(uint64_t size, uint64_t slot);
void gdr_pattern_fill(uint8_t *buf, size_t len, uint64_t seed);
/* The byte at offset off of the pattern gdr_pattern_fill writes. */
uint8_t gdr_pattern_byte(uint64_t seed, size_t off);
/* Number of bytes that differ from the pattern; *first_bad gets the offset
 * of the first (unchanged when all match). */
uint64_t gdr_pattern_check(const uint8_t *buf, size_t len, uint64_t seed, size_t *first_bad);

#endif
