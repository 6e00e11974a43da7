/* gpu_alloc.c - cuMemAlloc or VMM memory; see gpu_alloc.h. */
#include "config.h"

#include "error.h"
#include "gpu_alloc.h"
#include "mem.h"

#include <stdio.h>
#include <string.h>

static int attribute(const struct gdr_cuda_api *cu, CUdevice dev, CUdevice_attribute a)
{
    int v = 0;
    return cu->cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
}

bool gdr_gpu_c2c(const struct gdr_cuda_api *cu, CUdevice dev)
{
    return attribute(cu, dev, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED) == 1 ||
           attribute(cu, dev, CU_DEVICE_ATTRIBUTE_NUMA_CONFIG) == CU_DEVICE_NUMA_CONFIG_NUMA_NODE;
}

static int vmm_alloc(const struct gdr_cuda_api *cu, CUdevice dev, const char *bus_id, bool for_rdma,
                     size_t len, struct gdr_gpu_mem *m)
{
    if (!cu->cuMemCreate || !cu->cuMemGetAllocationGranularity || !cu->cuMemAddressReserve ||
        !cu->cuMemMap || !cu->cuMemSetAccess || !cu->cuMemUnmap || !cu->cuMemRelease ||
        !cu->cuMemAddressFree)
        return gdr_fail(GDR_EXIT_ENV,
                        "--gpu-alloc=vmm on GPU %s: the CUDA driver (%s) lacks the virtual memory "
                        "management calls (cuMemCreate, cuMemMap: CUDA 10.2)",
                        bus_id, gdr_cuda_version_text(cu));
    if (!attribute(cu, dev, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED))
        return gdr_fail(GDR_EXIT_ENV,
                        "--gpu-alloc=vmm on GPU %s: the device does not support virtual memory "
                        "management (CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=0)",
                        bus_id);
    /* As NCCL: RDMA capable only where the device says it can be; a NIC
     * cannot register VMM memory that is not. Staged buffers need not be. */
    if (for_rdma &&
        !attribute(cu, dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED))
        return gdr_fail(GDR_EXIT_ENV,
                        "--gpu-alloc=vmm on GPU %s: the driver cannot make VMM memory GPUDirect "
                        "RDMA capable (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED"
                        "=0); use --gpu-alloc=malloc, or --gdr=off",
                        bus_id);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)dev;
    prop.allocFlags.gpuDirectRDMACapable = for_rdma;
    size_t gran = 0;
    char what[128];
    snprintf(what, sizeof(what), "cuMemGetAllocationGranularity on GPU %s", bus_id);
    if (gdr_cuda_check(
            cu->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            what))
        return -1;
    if (gran == 0 || (gran & (gran - 1)))
        return gdr_fail(GDR_EXIT_RUN, "%s: granularity %zu is not a power of two", what, gran);
    m->size = (len + gran - 1) & ~(gran - 1);
    m->rdma = for_rdma;
    snprintf(what, sizeof(what), "cuMemCreate of %zu bytes on GPU %s", m->size, bus_id);
    if (gdr_cuda_check(cu->cuMemCreate(&m->handle, m->size, &prop, 0), what))
        return -1;
    m->created = true;
    snprintf(what, sizeof(what), "cuMemAddressReserve of %zu bytes for GPU %s", m->size, bus_id);
    if (gdr_cuda_check(cu->cuMemAddressReserve(&m->ptr, m->size, gran, 0, 0), what))
        return -1;
    m->reserved = true;
    snprintf(what, sizeof(what), "cuMemMap of %zu bytes on GPU %s", m->size, bus_id);
    if (gdr_cuda_check(cu->cuMemMap(m->ptr, m->size, 0, m->handle, 0), what))
        return -1;
    m->mapped = true;
    CUmemAccessDesc access = {.location = prop.location,
                              .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    snprintf(what, sizeof(what), "cuMemSetAccess on GPU %s", bus_id);
    return gdr_cuda_check(cu->cuMemSetAccess(m->ptr, m->size, &access, 1), what);
}

int gdr_gpu_mem_alloc(const struct gdr_cuda_api *cu, CUdevice dev, const char *bus_id,
                      enum gdr_gpu_alloc kind, bool for_rdma, size_t len, struct gdr_gpu_mem *m)
{
    memset(m, 0, sizeof(*m));
    m->kind = kind;
    if (kind == GDR_ALLOC_VMM)
        return vmm_alloc(cu, dev, bus_id, for_rdma, len, m);
    m->size = (len + GDR_GPU_PAGE - 1) & ~(size_t)(GDR_GPU_PAGE - 1);
    char what[96];
    snprintf(what, sizeof(what), "cuMemAlloc of %zu bytes on GPU %s", m->size, bus_id);
    return gdr_cuda_check(cu->cuMemAlloc(&m->ptr, m->size), what);
}

void gdr_gpu_mem_free(const struct gdr_cuda_api *cu, struct gdr_gpu_mem *m)
{
    if (m->kind == GDR_ALLOC_MALLOC) {
        if (m->ptr)
            cu->cuMemFree(m->ptr);
    } else {
        if (m->mapped)
            cu->cuMemUnmap(m->ptr, m->size);
        if (m->created)
            cu->cuMemRelease(m->handle);
        if (m->reserved)
            cu->cuMemAddressFree(m->ptr, m->size);
    }
    memset(m, 0, sizeof(*m));
}
