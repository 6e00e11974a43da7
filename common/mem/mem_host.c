/* mem_host.c - page-aligned host memory, registered directly. Fresh pages
 * from mmap, not the heap: the heap's may have been touched before the
 * process chose its memory node, and a page stays where it was first
 * touched (the lab showed a small latency buffer on the far node). */
#include "config.h"

#include "mem.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int host_alloc(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd)
{
    size_t len = b->len;
    long page = sysconf(_SC_PAGESIZE);
    size_t rounded = (len + (size_t)page - 1) & ~((size_t)page - 1);
    b->addr = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->addr == MAP_FAILED) {
        b->addr = NULL;
        return gdr_fail(GDR_EXIT_RUN, "cannot allocate %zu bytes of host memory: %s", len,
                        strerror(errno));
    }
    memset(b->addr, 0, rounded); /* touch every page before registration */
    b->registration = "host";
    b->mr = ibv_reg_mr(pd, b->addr, len, gdr_mr_access(spec->relaxed_ordering));
    if (!b->mr)
        return gdr_fail(errno == ENOMEM ? GDR_EXIT_ENV : GDR_EXIT_RUN,
                        "ibv_reg_mr of %zu bytes of host memory failed: %s%s", len, strerror(errno),
                        errno == ENOMEM ? " (check ulimit -l)" : "");
    return 0;
}

static void host_release(struct gdr_buffer *b)
{
    if (b->mr)
        ibv_dereg_mr(b->mr);
    if (b->addr) {
        long page = sysconf(_SC_PAGESIZE);
        munmap(b->addr, (b->len + (size_t)page - 1) & ~((size_t)page - 1));
    }
}

static int host_to_host(struct gdr_buffer *b, void *dst, size_t off, size_t len)
{
    memcpy(dst, (uint8_t *)b->addr + off, len);
    return 0;
}

static int host_from_host(struct gdr_buffer *b, size_t off, const void *src, size_t len)
{
    memcpy((uint8_t *)b->addr + off, src, len);
    return 0;
}

const struct gdr_mem_ops gdr_mem_host_ops = {
    .placement = "host",
    .alloc = host_alloc,
    .release = host_release,
    .to_host = host_to_host,
    .from_host = host_from_host,
};
