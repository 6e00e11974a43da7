#include "config.h"

#include "mem.h"
#include "error.h"
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

const char *gdr_mode_name(enum gdr_mode mode)
{
    switch (mode) {
    case GDR_MODE_AUTO: return "auto";
    case GDR_MODE_DMABUF: return "dmabuf";
    case GDR_MODE_PEERMEM: return "peermem";
    case GDR_MODE_OFF: break;
    }
    return "off";
}

const char *gdr_gpu_alloc_name(enum gdr_gpu_alloc a)
{
    return a == GDR_ALLOC_VMM ? "vmm" : "malloc";
}

const char *gdr_dmabuf_mapping_name(enum gdr_dmabuf_mapping m)
{
    switch (m) {
    case GDR_MAPPING_PCIE: return "pcie";
    case GDR_MAPPING_DEFAULT: return "default";
    case GDR_MAPPING_AUTO: break;
    }
    return "auto";
}

const char *gdr_data_direct_name(enum gdr_data_direct d)
{
    switch (d) {
    case GDR_DD_ON: return "on";
    case GDR_DD_OFF: return "off";
    case GDR_DD_AUTO: break;
    }
    return "auto";
}

int gdr_buffer_create(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd,
                      size_t len, size_t slot_size, unsigned nslots)
{
    memset(b, 0, sizeof(*b));
    b->ops = spec->cuda ? &gdr_mem_cuda_ops : &gdr_mem_host_ops;
    b->len = len;
    b->slot_size = slot_size;
    b->nslots = nslots;
    b->cuda_device = -1;
    b->relaxed_ordering = spec->relaxed_ordering;
    b->writes_ordering = "";
    b->writes_flush = "not-applicable";
    b->gpu_alloc = "";
    b->dmabuf_mapping = "";
    if (b->ops->alloc(b, spec, pd)) {
        gdr_buffer_destroy(b);
        return -1;
    }
    return 0;
}

const char *gdr_writes_flush_choice(const struct gdr_flush_facts *f)
{
    if (f->data_direct || (f->c2c && (f->pcie_mapping || f->nic_near)))
        return "nic-read";
    if (f->owner_ordered)
        return "not-needed";
    return f->can_flush ? "flush" : "unsupported";
}

struct gdr_dmabuf_span gdr_dmabuf_span_of(uint64_t addr, uint64_t len, uint64_t page)
{
    struct gdr_dmabuf_span d;
    d.base = addr & ~(page - 1);
    d.offset = addr - d.base;
    d.length = (d.offset + len + page - 1) & ~(page - 1);
    return d;
}

void gdr_buffer_destroy(struct gdr_buffer *b)
{
    if (b->ops)
        b->ops->release(b);
    memset(b, 0, sizeof(*b));
}

/* Clearing goes through a bounded zero page so clearing a large GPU buffer
 * does not need as much host memory again. */
#define ZERO_CHUNK (4u << 20)

int gdr_buffer_fill(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed)
{
    if (b->ops == &gdr_mem_host_ops) {
        gdr_pattern_fill((uint8_t *)b->addr + off, len, seed);
        return 0;
    }
    uint8_t *view = malloc(len);
    if (!view)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a %zu-byte fill", len);
    gdr_pattern_fill(view, len, seed);
    int rc = b->ops->from_host(b, off, view, len);
    free(view);
    return rc;
}

int gdr_buffer_zero(struct gdr_buffer *b, size_t off, size_t len)
{
    if (b->ops == &gdr_mem_host_ops) {
        memset((uint8_t *)b->addr + off, 0, len);
        return 0;
    }
    uint8_t *zero = calloc(1, len < ZERO_CHUNK ? len : ZERO_CHUNK);
    if (!zero)
        return gdr_fail(GDR_EXIT_RUN, "out of memory clearing %zu bytes", len);
    int rc = 0;
    for (size_t done = 0; done < len && !rc; done += ZERO_CHUNK) {
        size_t n = len - done < ZERO_CHUNK ? len - done : ZERO_CHUNK;
        rc = b->ops->from_host(b, off + done, zero, n);
    }
    free(zero);
    return rc;
}

int gdr_buffer_check(struct gdr_buffer *b, size_t off, size_t len, uint64_t seed,
                     uint64_t *bad_bytes, size_t *first_bad)
{
    size_t first = 0;
    if (b->ops->nic_writes_visible && b->ops->nic_writes_visible(b))
        return -1;
    if (b->ops == &gdr_mem_host_ops) {
        *bad_bytes = gdr_pattern_check((uint8_t *)b->addr + off, len, seed, &first);
    } else {
        uint8_t *view = malloc(len);
        if (!view)
            return gdr_fail(GDR_EXIT_RUN, "out of memory checking %zu bytes", len);
        int rc = b->ops->to_host(b, view, off, len);
        if (!rc)
            *bad_bytes = gdr_pattern_check(view, len, seed, &first);
        free(view);
        if (rc)
            return -1;
    }
    *first_bad = off + first;
    return 0;
}
