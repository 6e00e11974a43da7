/* sha256.h - SHA-256 (FIPS 180-4) and base64 (RFC 4648), for the
 * Content-Security-Policy hash of a page's inline style sheet, and the
 * content hashes of the dashboard's incremental publish. */
#ifndef GDR_REPORT_SHA256_H
#define GDR_REPORT_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct gdr_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
};

void gdr_sha256_init(struct gdr_sha256 *c);
void gdr_sha256_update(struct gdr_sha256 *c, const void *data, size_t n);
void gdr_sha256_final(struct gdr_sha256 *c, unsigned char out[32]);
void gdr_sha256(const void *data, size_t n, unsigned char out[32]);

/* Base64 of n bytes into out (needs 4 * ((n + 2) / 3) + 1 bytes). */
void gdr_base64(const unsigned char *in, size_t n, char *out);
/* Lower-case hex of n bytes into out (2n + 1 bytes). */
void gdr_hex(const unsigned char *in, size_t n, char *out);

#endif
