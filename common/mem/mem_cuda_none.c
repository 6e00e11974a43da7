/* mem_cuda_none.c - GPU placement in a build without CUDA headers
 * (--without-cuda): --mem=cuda fails with the reason. */
#include "config.h"

#include "error.h"
#include "mem.h"

static int no_cuda(struct gdr_buffer *b, const struct gdr_mem_spec *spec, struct ibv_pd *pd)
{
    (void)b, (void)spec, (void)pd;
    return gdr_fail(GDR_EXIT_ENV, "--mem=cuda: this build has no CUDA support "
                                  "(configure found no cuda.h; see --with-cuda)");
}

static void no_release(struct gdr_buffer *b)
{
    (void)b;
}

const struct gdr_mem_ops gdr_mem_cuda_ops = {
    .placement = "cuda",
    .alloc = no_cuda,
    .release = no_release,
};
