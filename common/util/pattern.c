#include "config.h"

#include "pattern.h"

#include <string.h>

uint64_t gdr_pattern_seed(uint64_t size, uint64_t slot)
{
    /* splitmix64 finaliser: nearby inputs give unrelated seeds. */
    uint64_t z = size * 0x9e3779b97f4a7c15ull + slot + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* xorshift64: 8 pattern bytes per step; never zero for a non-zero seed. */
static uint64_t next_word(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

void gdr_pattern_fill(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t state = seed | 1;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = next_word(&state);
        memcpy(buf + i, &w, 8);
    }
    if (i < len) {
        uint64_t w = next_word(&state);
        memcpy(buf + i, &w, len - i);
    }
}

uint8_t gdr_pattern_byte(uint64_t seed, size_t off)
{
    uint64_t state = seed | 1, w = 0;
    for (size_t i = 0; i <= off / 8; i++)
        w = next_word(&state);
    uint8_t bytes[8];
    memcpy(bytes, &w, 8);
    return bytes[off % 8];
}

uint64_t gdr_pattern_check(const uint8_t *buf, size_t len, uint64_t seed, size_t *first_bad)
{
    uint64_t state = seed | 1, bad = 0;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = next_word(&state);
        size_t n = len - i < 8 ? len - i : 8;
        if (memcmp(buf + i, &w, n) == 0)
            continue;
        const uint8_t *want = (const uint8_t *)&w;
        for (size_t j = 0; j < n; j++) {
            if (buf[i + j] != want[j]) {
                if (!bad)
                    *first_bad = i + j;
                bad++;
            }
        }
    }
    return bad;
}
