/* cuda_api.h - the CUDA driver API, loaded at run time.
 *
 * The binaries never link libcuda: one build serves GPU and GPU-less hosts,
 * and a missing driver is an ordinary "environment missing" error, not a
 * loader failure. Only this module and mem_cuda.c know the driver exists. */
#ifndef GDR_CUDA_API_H
#define GDR_CUDA_API_H

#include <cuda.h>

/* The entry points used, by their header names; cuda.h maps several to
 * versioned symbols (cuMemAlloc -> cuMemAlloc_v2), and the table follows.
 * GDR_CUDA_FUNCTIONS: every driver since CUDA 11.0 has them (the _v2
 * primary-context release is 11.0's), and a driver without one cannot run
 * anything. GDR_CUDA_OPTIONAL: newer, or only for one feature; NULL when
 * the driver lacks them, and only what needs one is refused. */
/* An X-macro list, kept as written (the formatter would staircase it). */
/* clang-format off */
#define GDR_CUDA_FUNCTIONS(X) \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorString) X(cuGetErrorName) \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetByPCIBusId) X(cuDeviceGetPCIBusId) \
    X(cuDeviceGetName) X(cuDeviceGetAttribute) \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) \
    X(cuCtxSynchronize) \
    X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemHostAlloc) X(cuMemFreeHost) \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) \
    X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventDestroy) \
    X(cuPointerSetAttribute)
#define GDR_CUDA_OPTIONAL(X) \
    X(cuFlushGPUDirectRDMAWrites)    /* 11.3: flush before reading NIC writes */ \
    X(cuMemGetHandleForAddressRange) /* 11.7: dma-buf export */ \
    X(cuMemGetAllocationGranularity) X(cuMemCreate) X(cuMemRelease) \
    X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemMap) X(cuMemUnmap) \
    X(cuMemSetAccess)                /* 10.2: virtual memory management */
/* clang-format on */

struct gdr_cuda_api {
#define GDR_CUDA_MEMBER(f) __typeof__(f) *f;
    GDR_CUDA_FUNCTIONS(GDR_CUDA_MEMBER)
    GDR_CUDA_OPTIONAL(GDR_CUDA_MEMBER)
#undef GDR_CUDA_MEMBER
    int driver_version;
};

/* Load libcuda.so.1 and cuInit it, once. NULL (with the error recorded,
 * GDR_EXIT_ENV) when there is no driver or no device. */
const struct gdr_cuda_api *gdr_cuda_load(void);

/* "CUDA 12.4" style text of the loaded driver's version, for messages. */
const char *gdr_cuda_version_text(const struct gdr_cuda_api *cu);

/* 0 for CUDA_SUCCESS, else record "<what>: <driver's message>" and -1. */
int gdr_cuda_check(CUresult rc, const char *what);

#endif
