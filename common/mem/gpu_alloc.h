/* gpu_alloc.h - GPU memory the two ways NCCL allocates it: cuMemAlloc, or
 * the virtual memory management API (cuMemCreate, made GPUDirect RDMA
 * capable where the device says it can be, rounded to the allocation
 * granularity, reserved, mapped and given access), and the facts about the
 * GPU that decide how the NIC should reach it. Internal to mem/ (and
 * gdr-gpu-check, which drives the same calls on a real GPU). */
#ifndef GDR_GPU_ALLOC_H
#define GDR_GPU_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda_api.h"
#include "spec.h"

struct gdr_gpu_mem {
    enum gdr_gpu_alloc kind;
    CUdeviceptr ptr;
    size_t size; /* what was allocated: the length asked for, rounded up */
    /* VMM: what exists, for the release in reverse order. */
    CUmemGenericAllocationHandle handle;
    bool created, reserved, mapped;
    bool rdma; /* created gpuDirectRDMACapable */
};

/* Allocate at least len bytes on dev (the current context's device),
 * kind as asked. VMM memory is made GPUDirect RDMA capable when
 * for_rdma; a device or driver that cannot is refused in one line naming
 * bus_id (GDR_EXIT_ENV). Returns 0 or -1 with the error recorded. */
int gdr_gpu_mem_alloc(const struct gdr_cuda_api *cu, CUdevice dev, const char *bus_id,
                      enum gdr_gpu_alloc kind, bool for_rdma, size_t len, struct gdr_gpu_mem *m);

/* Undo whatever of the allocation exists. */
void gdr_gpu_mem_free(const struct gdr_cuda_api *cu, struct gdr_gpu_mem *m);

/* Does dev hang off the CPU by a coherent chip-to-chip link (NVLink-C2C
 * on Grace)? The driver says so by native host atomics or by making the
 * GPU's memory a NUMA node; an attribute a driver does not know counts
 * as no. */
bool gdr_gpu_c2c(const struct gdr_cuda_api *cu, CUdevice dev);

#endif
