/* cuda_api.h - the CUDA driver API, loaded at run time.
 *
 * The binaries never link libcuda: one build serves GPU and GPU-less hosts,
 * and a missing driver is an ordinary "environment missing" error, not a
 * loader failure. Only this module and mem_cuda.c know the driver exists. */
#ifndef GDR_CUDA_API_H
#define GDR_CUDA_API_H

#include <cuda.h>

/* The entry points used, by their header names; cuda.h maps several to
 * versioned symbols (cuMemAlloc -> cuMemAlloc_v2), and the table follows. */
/* An X-macro list, kept as written (the formatter would staircase it). */
/* clang-format off */
#define GDR_CUDA_FUNCTIONS(X) \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorString) \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetByPCIBusId) X(cuDeviceGetPCIBusId) \
    X(cuDeviceGetName) X(cuDeviceGetAttribute) \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) \
    X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemHostAlloc) X(cuMemFreeHost) \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) \
    X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventDestroy) \
    X(cuPointerSetAttribute) X(cuMemGetHandleForAddressRange) X(cuFlushGPUDirectRDMAWrites)
/* clang-format on */

struct gdr_cuda_api {
#define GDR_CUDA_MEMBER(f) __typeof__(f) *f;
    GDR_CUDA_FUNCTIONS(GDR_CUDA_MEMBER)
#undef GDR_CUDA_MEMBER
    int driver_version;
};

/* Load libcuda.so.1 and cuInit it, once. NULL (with the error recorded,
 * GDR_EXIT_ENV) when there is no driver or no device. */
const struct gdr_cuda_api *gdr_cuda_load(void);

/* 0 for CUDA_SUCCESS, else record "<what>: <driver's message>" and -1. */
int gdr_cuda_check(CUresult rc, const char *what);

#endif
