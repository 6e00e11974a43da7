/* mem.h - the benchmark buffer: where it lives, how the NIC reaches it,
 * and how the harness fills and checks it without knowing where it lives.
 *
 * A placement (host memory today; GPU memory through mem_cuda.c) provides
 * the ops below. The harness only ever calls gdr_buffer_*; the data checks
 * go through a host view so they work for any placement. */
#ifndef GDR_MEM_H
#define GDR_MEM_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

enum gdr_placement { GDR_MEM_HOST, GDR_MEM_CUDA };

struct gdr_buffer;

struct gdr_mem_ops {
    const char *placement;      /* "host", "cuda" */
    int (*alloc)(struct gdr_buffer *b, struct ibv_pd *pd, size_t len);
    void (*release)(struct gdr_buffer *b);
    /* Copy between the buffer and host memory (for fill and check). */
    int (*to_host)(struct gdr_buffer *b, void *dst, size_t off, size_t len);
    int (*from_host)(struct gdr_buffer *b, size_t off, const void *src, size_t len);
};

struct gdr_buffer {
    const struct gdr_mem_ops *ops;
    const char *registration;   /* "host", "dmabuf", "peermem", "staged" */
    void *addr;                 /* what the NIC addresses (lkey/rkey cover it) */
    size_t len;
    struct ibv_mr *mr;
    void *priv;                 /* the placement's own state */
};

extern const struct gdr_mem_ops gdr_mem_host_ops;

/* Allocate len bytes with the given placement and register them with pd
 * for local write and remote read/write. */
int gdr_buffer_create(struct gdr_buffer *b, const struct gdr_mem_ops *ops, struct ibv_pd *pd,
                      size_t len);
void gdr_buffer_destroy(struct gdr_buffer *b);

/* Validation helpers: fill/zero/check [off, off + len) through a host view. */
int gdr_buffer_fill(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed);
int gdr_buffer_zero(struct gdr_buffer *b, size_t off, size_t len);
/* Mismatched bytes (0: intact); *first_bad = buffer offset of the first. */
int gdr_buffer_check(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed,
                     uint64_t *bad_bytes, size_t *first_bad);

#endif
