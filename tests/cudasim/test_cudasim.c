/* test_cudasim.c - tests for the cudasim libcuda.so.1 test double.
 *
 * Each scenario runs in a child process with its own GDR_CUDASIM_*
 * environment and dlopens the library afresh (the library reads its
 * environment when loaded).  The library is the libcuda.so.1 next to this
 * executable, or $CUDASIM_LIB.  One scenario re-executes this program
 * with that directory on LD_LIBRARY_PATH and dlopens "libcuda.so.1" by
 * name, as the benchmarks do. */
#include "config.h"

#include <cuda.h>

#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static char lib_path[PATH_MAX];
static char self_path[PATH_MAX];
static void *lib;
static int failures;
static int checks;
static bool skipped;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                      \
        }                                                                                          \
    } while (0)

/* r must equal want; names both on failure */
#define CHECK_RC(call, want)                                                                       \
    do {                                                                                           \
        CUresult got_ = (call);                                                                    \
        checks++;                                                                                  \
        if (got_ != (want)) {                                                                      \
            failures++;                                                                            \
            fprintf(stderr, "  FAIL %s:%d: %s = %d, want %s (%d)\n", __FILE__, __LINE__, #call,    \
                    (int)got_, #want, (int)(want));                                                \
        }                                                                                          \
    } while (0)
#define OK(call) CHECK_RC(call, CUDA_SUCCESS)

/* Entry points, typed from cuda.h (the macros give the versioned ones). */
static struct {
    __typeof__(&cuInit) Init;
    __typeof__(&cuDriverGetVersion) DriverGetVersion;
    __typeof__(&cuGetErrorString) GetErrorString;
    __typeof__(&cuGetErrorName) GetErrorName;
    __typeof__(&cuDeviceGetCount) DeviceGetCount;
    __typeof__(&cuDeviceGet) DeviceGet;
    __typeof__(&cuDeviceGetName) DeviceGetName;
    __typeof__(&cuDeviceGetPCIBusId) DeviceGetPCIBusId;
    __typeof__(&cuDeviceGetByPCIBusId) DeviceGetByPCIBusId;
    __typeof__(&cuDeviceGetAttribute) DeviceGetAttribute;
    __typeof__(&cuDeviceTotalMem) DeviceTotalMem;
    __typeof__(&cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain;
    __typeof__(&cuDevicePrimaryCtxRelease) DevicePrimaryCtxRelease;
    __typeof__(&cuCtxSetCurrent) CtxSetCurrent;
    __typeof__(&cuCtxGetCurrent) CtxGetCurrent;
    __typeof__(&cuCtxGetDevice) CtxGetDevice;
    __typeof__(&cuCtxSynchronize) CtxSynchronize;
    __typeof__(&cuMemAlloc) MemAlloc;
    __typeof__(&cuMemFree) MemFree;
    __typeof__(&cuMemGetInfo) MemGetInfo;
    __typeof__(&cuMemGetAddressRange) MemGetAddressRange;
    __typeof__(&cuMemsetD8) MemsetD8;
    __typeof__(&cuMemsetD32) MemsetD32;
    __typeof__(&cuMemsetD8Async) MemsetD8Async;
    __typeof__(&cuMemcpyHtoD) MemcpyHtoD;
    __typeof__(&cuMemcpyDtoH) MemcpyDtoH;
    __typeof__(&cuMemcpyDtoD) MemcpyDtoD;
    __typeof__(&cuMemcpyHtoDAsync) MemcpyHtoDAsync;
    __typeof__(&cuMemcpyDtoHAsync) MemcpyDtoHAsync;
    __typeof__(&cuMemHostAlloc) MemHostAlloc;
    __typeof__(&cuMemFreeHost) MemFreeHost;
    __typeof__(&cuMemHostRegister) MemHostRegister;
    __typeof__(&cuMemHostUnregister) MemHostUnregister;
    __typeof__(&cuStreamCreate) StreamCreate;
    __typeof__(&cuStreamDestroy) StreamDestroy;
    __typeof__(&cuStreamSynchronize) StreamSynchronize;
    __typeof__(&cuStreamQuery) StreamQuery;
    __typeof__(&cuEventCreate) EventCreate;
    __typeof__(&cuEventRecord) EventRecord;
    __typeof__(&cuEventQuery) EventQuery;
    __typeof__(&cuEventSynchronize) EventSynchronize;
    __typeof__(&cuEventDestroy) EventDestroy;
    __typeof__(&cuEventElapsedTime) EventElapsedTime;
    __typeof__(&cuPointerSetAttribute) PointerSetAttribute;
    __typeof__(&cuPointerGetAttribute) PointerGetAttribute;
    __typeof__(&cuMemGetHandleForAddressRange) MemGetHandleForAddressRange;
    __typeof__(&cuFlushGPUDirectRDMAWrites) FlushGPUDirectRDMAWrites;
    __typeof__(&cuMemGetAllocationGranularity) MemGetAllocationGranularity;
    __typeof__(&cuMemCreate) MemCreate;
    __typeof__(&cuMemRelease) MemRelease;
    __typeof__(&cuMemAddressReserve) MemAddressReserve;
    __typeof__(&cuMemAddressFree) MemAddressFree;
    __typeof__(&cuMemMap) MemMap;
    __typeof__(&cuMemUnmap) MemUnmap;
    __typeof__(&cuMemSetAccess) MemSetAccess;
} cu;

static __typeof__(&cuGetProcAddress) get_proc; /* cuGetProcAddress_v2 */

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);

    if (!p)
        fprintf(stderr, "  dlsym(%s): %s\n", name, dlerror());
    return p;
}

static void load(const char *path)
{
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "  dlopen(%s): %s\n", path, dlerror());
        exit(1);
    }
    get_proc = (__typeof__(get_proc))sym("cuGetProcAddress_v2");
    if (!get_proc)
        exit(1);
#define R(field, name)                                                                             \
    do {                                                                                           \
        CUdriverProcAddressQueryResult st_;                                                        \
        CUresult r_ =                                                                              \
            get_proc(name, (void **)&cu.field, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &st_);          \
        if (r_ != CUDA_SUCCESS || !cu.field) {                                                     \
            fprintf(stderr, "  cuGetProcAddress(%s): %d\n", name, (int)r_);                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
    R(Init, "cuInit");
    R(DriverGetVersion, "cuDriverGetVersion");
    R(GetErrorString, "cuGetErrorString");
    R(GetErrorName, "cuGetErrorName");
    R(DeviceGetCount, "cuDeviceGetCount");
    R(DeviceGet, "cuDeviceGet");
    R(DeviceGetName, "cuDeviceGetName");
    R(DeviceGetPCIBusId, "cuDeviceGetPCIBusId");
    R(DeviceGetByPCIBusId, "cuDeviceGetByPCIBusId");
    R(DeviceGetAttribute, "cuDeviceGetAttribute");
    R(DeviceTotalMem, "cuDeviceTotalMem");
    R(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    R(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
    R(CtxSetCurrent, "cuCtxSetCurrent");
    R(CtxGetCurrent, "cuCtxGetCurrent");
    R(CtxGetDevice, "cuCtxGetDevice");
    R(CtxSynchronize, "cuCtxSynchronize");
    R(MemAlloc, "cuMemAlloc");
    R(MemFree, "cuMemFree");
    R(MemGetInfo, "cuMemGetInfo");
    R(MemGetAddressRange, "cuMemGetAddressRange");
    R(MemsetD8, "cuMemsetD8");
    R(MemsetD32, "cuMemsetD32");
    R(MemsetD8Async, "cuMemsetD8Async");
    R(MemcpyHtoD, "cuMemcpyHtoD");
    R(MemcpyDtoH, "cuMemcpyDtoH");
    R(MemcpyDtoD, "cuMemcpyDtoD");
    R(MemcpyHtoDAsync, "cuMemcpyHtoDAsync");
    R(MemcpyDtoHAsync, "cuMemcpyDtoHAsync");
    R(MemHostAlloc, "cuMemHostAlloc");
    R(MemFreeHost, "cuMemFreeHost");
    R(MemHostRegister, "cuMemHostRegister");
    R(MemHostUnregister, "cuMemHostUnregister");
    R(StreamCreate, "cuStreamCreate");
    R(StreamDestroy, "cuStreamDestroy");
    R(StreamSynchronize, "cuStreamSynchronize");
    R(StreamQuery, "cuStreamQuery");
    R(EventCreate, "cuEventCreate");
    R(EventRecord, "cuEventRecord");
    R(EventQuery, "cuEventQuery");
    R(EventSynchronize, "cuEventSynchronize");
    R(EventDestroy, "cuEventDestroy");
    R(EventElapsedTime, "cuEventElapsedTime");
    R(PointerSetAttribute, "cuPointerSetAttribute");
    R(PointerGetAttribute, "cuPointerGetAttribute");
    R(MemGetHandleForAddressRange, "cuMemGetHandleForAddressRange");
    R(FlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites");
    R(MemGetAllocationGranularity, "cuMemGetAllocationGranularity");
    R(MemCreate, "cuMemCreate");
    R(MemRelease, "cuMemRelease");
    R(MemAddressReserve, "cuMemAddressReserve");
    R(MemAddressFree, "cuMemAddressFree");
    R(MemMap, "cuMemMap");
    R(MemUnmap, "cuMemUnmap");
    R(MemSetAccess, "cuMemSetAccess");
#undef R
}

/* cuInit, retain device 0's primary context, make it current. */
static CUcontext setup(void)
{
    CUcontext ctx = NULL;

    OK(cu.Init(0));
    OK(cu.DevicePrimaryCtxRetain(&ctx, 0));
    OK(cu.CtxSetCurrent(ctx));
    return ctx;
}

static void teardown(void)
{
    OK(cu.CtxSetCurrent(NULL));
    OK(cu.DevicePrimaryCtxRelease(0));
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31u + seed);
}

static bool filled(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 31u + seed))
            return false;
    return true;
}

static bool all(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

/* ------------------------------------------------------------------ */

static void t_init(void)
{
    int n = -1, v = 0;
    const char *s = NULL;
    CUcontext ctx = NULL;
    CUdeviceptr d;

    /* before cuInit: version, error strings and cuGetProcAddress work */
    OK(cu.DriverGetVersion(&v));
    CHECK(v == 12040);
    OK(cu.GetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    CHECK(s && !strcmp(s, "CUDA_ERROR_INVALID_VALUE"));
    OK(cu.GetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    CHECK(s && *s);
    CHECK_RC(cu.GetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    /* the rest is not initialized */
    CHECK_RC(cu.DeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_RC(cu.DevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_RC(cu.MemAlloc(&d, 4096), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_RC(cu.Init(1), CUDA_ERROR_INVALID_VALUE);
    OK(cu.Init(0));
    OK(cu.Init(0));
    OK(cu.DeviceGetCount(&n));
    CHECK(n == 1);
}

static void t_devices(void) /* GDR_CUDASIM_DEVICES=3, MEM_MB=64 */
{
    int n = 0, v = -1;
    CUdevice dev = -1;
    char buf[64];
    size_t total = 0;

    OK(cu.Init(0));
    OK(cu.DeviceGetCount(&n));
    CHECK(n == 3);
    CHECK_RC(cu.DeviceGet(&dev, 3), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RC(cu.DeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    for (int i = 0; i < 3; i++) {
        char want[32];

        OK(cu.DeviceGet(&dev, i));
        CHECK(dev == i);
        OK(cu.DeviceGetName(buf, sizeof buf, dev));
        snprintf(want, sizeof want, "cudasim GPU %d", i);
        CHECK(!strcmp(buf, want));
        OK(cu.DeviceGetPCIBusId(buf, sizeof buf, dev));
        snprintf(want, sizeof want, "0000:%02x:00.0", 0x3b + i);
        CHECK(!strcmp(buf, want));
        OK(cu.DeviceGetByPCIBusId(&dev, buf));
        CHECK(dev == i);
        OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i));
        CHECK(v == 0x3b + i);
        OK(cu.DeviceTotalMem(&total, i));
        CHECK(total == 64u << 20);
    }
    /* other spellings of a bus id */
    OK(cu.DeviceGetByPCIBusId(&dev, "0000:3C:00.0"));
    CHECK(dev == 1);
    OK(cu.DeviceGetByPCIBusId(&dev, "3d:00.0"));
    CHECK(dev == 2);
    OK(cu.DeviceGetByPCIBusId(&dev, "00000000:3b:00.0"));
    CHECK(dev == 0);
    CHECK_RC(cu.DeviceGetByPCIBusId(&dev, "0000:81:00.0"), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RC(cu.DeviceGetByPCIBusId(&dev, "not a bus id"), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.DeviceGetName(buf, sizeof buf, 7), CUDA_ERROR_INVALID_DEVICE);

    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0));
    CHECK(v == 0);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0));
    CHECK(v == 0);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0));
    CHECK(v == 0);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0));
    CHECK(v == 1);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    CHECK(v == 1);
    CHECK_RC(cu.DeviceGetAttribute(&v, (CUdevice_attribute)9999, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 3),
             CUDA_ERROR_INVALID_DEVICE);
}

static void t_context(void)
{
    CUcontext ctx = NULL, cur = (CUcontext)1;
    CUdevice dev = -1;
    CUdeviceptr d;
    size_t freeb, total;

    OK(cu.Init(0));
    OK(cu.CtxGetCurrent(&cur));
    CHECK(cur == NULL);
    CHECK_RC(cu.MemAlloc(&d, 4096), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RC(cu.MemGetInfo(&freeb, &total), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RC(cu.CtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RC(cu.DevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RC(cu.DevicePrimaryCtxRetain(&ctx, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RC(cu.CtxSetCurrent((CUcontext)&ctx), CUDA_ERROR_INVALID_CONTEXT);
    OK(cu.DevicePrimaryCtxRetain(&ctx, 0));
    CHECK(ctx != NULL);
    OK(cu.CtxSetCurrent(ctx));
    OK(cu.CtxGetCurrent(&cur));
    CHECK(cur == ctx);
    OK(cu.CtxGetDevice(&dev));
    CHECK(dev == 0);
    OK(cu.MemAlloc(&d, 4096));
    OK(cu.CtxSynchronize());
    /* the last release destroys what the context owned */
    OK(cu.DevicePrimaryCtxRelease(0));
    CHECK_RC(cu.MemAlloc(&d, 4096), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK_RC(cu.MemFree(d), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    OK(cu.DevicePrimaryCtxRetain(&ctx, 0));
    CHECK_RC(cu.MemFree(d), CUDA_ERROR_INVALID_VALUE);
    teardown();
}

static void t_memory(void)
{
    enum { N = 1 << 20 };
    unsigned char *h = malloc(N), *g = malloc(N);
    CUdeviceptr a = 0, b = 0, base = 0;
    size_t free0, free1, total, size = 0;
    unsigned int mt = 0, one = 1;
    uint32_t w[4];

    setup();
    OK(cu.MemGetInfo(&free0, &total));
    CHECK(total == 1024u << 20 && free0 == total);
    OK(cu.MemAlloc(&a, N));
    OK(cu.MemAlloc(&b, N));
    CHECK(a && b && a != b);
    fprintf(stderr, "  device pointers %#llx %#llx\n", (unsigned long long)a,
            (unsigned long long)b);
    OK(cu.MemGetInfo(&free1, &total));
    CHECK(free1 == free0 - 2 * N);
    CHECK_RC(cu.MemAlloc(&a, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemAlloc(&base, total + 1), CUDA_ERROR_OUT_OF_MEMORY);

    /* H2D, D2D, D2H round trip */
    fill(h, N, 7);
    OK(cu.MemcpyHtoD(a, h, N));
    OK(cu.MemcpyDtoD(b, a, N));
    memset(g, 0, N);
    OK(cu.MemcpyDtoH(g, b, N));
    CHECK(filled(g, N, 7));
    /* a piece at an offset */
    OK(cu.MemcpyDtoH(g, a + 1000, 24));
    CHECK(filled(g, 24, 7 + 1000 * 31));
    /* memset */
    OK(cu.MemsetD8(b + 16, 0xab, 100));
    OK(cu.MemcpyDtoH(g, b, 200));
    CHECK(filled(g, 16, 7) && all(g + 16, 100, 0xab) && g[116] == (unsigned char)(116 * 31u + 7));
    OK(cu.MemsetD32(b, 0xdeadbeef, 4));
    OK(cu.MemcpyDtoH(w, b, sizeof w));
    CHECK(w[0] == 0xdeadbeef && w[3] == 0xdeadbeef);
    CHECK_RC(cu.MemsetD32(b + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);

    /* pointer attributes */
    OK(cu.PointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a + 5));
    CHECK(mt == CU_MEMORYTYPE_DEVICE);
    OK(cu.PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a));
    CHECK_RC(
        cu.PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)h),
        CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(
        cu.PointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h),
        CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemGetAddressRange(&base, &size, a + 77));
    CHECK(base == a && size == N);

    /* free, double free, use after free */
    OK(cu.MemFree(a));
    CHECK_RC(cu.MemFree(a), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemFree(b + 8), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyHtoD(a, h, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.PointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a),
             CUDA_ERROR_INVALID_VALUE);
    /* first fit reuses the hole */
    OK(cu.MemAlloc(&base, 4096));
    CHECK(base == a);
    OK(cu.MemFree(base));
    OK(cu.MemFree(b));
    OK(cu.MemGetInfo(&free1, &total));
    CHECK(free1 == free0);
    teardown();
    free(h);
    free(g);
}

static void t_mixups(void)
{
    unsigned char h[256], g[256];
    CUdeviceptr d = 0, e = 0;

    setup();
    OK(cu.MemAlloc(&d, 4096));
    OK(cu.MemAlloc(&e, 4096));
    /* a host pointer where a device pointer belongs, and vice versa */
    CHECK_RC(cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)g, h, sizeof h), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyHtoD(d, (const void *)(uintptr_t)e, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoH((void *)(uintptr_t)e, d, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoH(g, (CUdeviceptr)(uintptr_t)h, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoD(d, (CUdeviceptr)(uintptr_t)h, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemsetD8((CUdeviceptr)(uintptr_t)h, 0, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)g, h, 64, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoHAsync((void *)(uintptr_t)d, e, 64, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyHtoD(d, NULL, 64), CUDA_ERROR_INVALID_VALUE);
    /* out of bounds */
    CHECK_RC(cu.MemcpyHtoD(d, h, 4097), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyHtoD(d + 4000, h, 97), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoH(g, e + 4090, 7), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoD(d, e, 4097), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemsetD8(d + 1, 0, 4096), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoH(g, d + 8192, 1), CUDA_ERROR_INVALID_VALUE);
    /* exact fits are fine, and so is a 0-byte copy at the end */
    OK(cu.MemcpyHtoD(d + 4096 - 256, h, 256));
    OK(cu.MemcpyDtoH(g, d + 4096, 0));
    OK(cu.MemFree(d));
    OK(cu.MemFree(e));
    teardown();
}

static void t_hostmem(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *p = NULL, *q;
    unsigned int mt = 0;
    CUdeviceptr d;

    setup();
    OK(cu.MemHostAlloc((void **)&p, 3 * pg, CU_MEMHOSTALLOC_PORTABLE));
    CHECK(p != NULL);
    memset(p, 1, 3 * pg);
    OK(cu.PointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              (CUdeviceptr)(uintptr_t)(p + 10)));
    CHECK(mt == CU_MEMORYTYPE_HOST);
    CHECK_RC(cu.MemHostRegister(p, pg, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK_RC(cu.MemFreeHost(p + 1), CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemFreeHost(p));

    q = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(q != MAP_FAILED);
    OK(cu.MemHostRegister(q, 4 * pg, 0));
    CHECK_RC(cu.MemHostRegister(q + pg, pg, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    OK(cu.PointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)q));
    CHECK(mt == CU_MEMORYTYPE_HOST);
    CHECK_RC(cu.MemFreeHost(q), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemHostUnregister(q + pg), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(cu.MemHostUnregister(q));
    CHECK_RC(cu.MemHostUnregister(q), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    munmap(q + 2 * pg, 2 * pg);
    CHECK_RC(cu.MemHostRegister(q, 4 * pg, 0), CUDA_ERROR_INVALID_VALUE); /* half unmapped */
    munmap(q, 2 * pg);
    /* device memory cannot be host-registered */
    OK(cu.MemAlloc(&d, 1 << 16));
    CHECK_RC(cu.MemHostRegister((void *)(uintptr_t)d, 4096, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemFree(d));
    teardown();
}

static void t_async(void)
{
    enum { N = 256 << 10 };
    unsigned char *h = malloc(N), *g = calloc(1, N);
    CUdeviceptr d;
    CUstream s, gone;
    CUevent e0, e1, nt;
    float ms = -1;

    setup();
    OK(cu.MemAlloc(&d, N));
    OK(cu.StreamCreate(&s, 0));
    CHECK_RC(cu.StreamCreate(&gone, 0x10), CUDA_ERROR_INVALID_VALUE);
    OK(cu.EventCreate(&e0, CU_EVENT_DEFAULT));
    OK(cu.EventCreate(&e1, CU_EVENT_DEFAULT));
    OK(cu.EventCreate(&nt, CU_EVENT_DISABLE_TIMING));
    OK(cu.EventQuery(e1)); /* never recorded: complete */
    fill(h, N, 3);
    OK(cu.EventRecord(e0, s));
    OK(cu.MemcpyHtoDAsync(d, h, N, s));
    OK(cu.MemcpyDtoHAsync(g, d, N, s));
    OK(cu.EventRecord(e1, s));
    OK(cu.EventRecord(nt, s));
    OK(cu.EventSynchronize(e1));
    OK(cu.EventQuery(e1));
    OK(cu.StreamQuery(s));
    CHECK(filled(g, N, 3));
    OK(cu.EventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0);
    CHECK_RC(cu.EventElapsedTime(&ms, e0, nt), CUDA_ERROR_INVALID_HANDLE);
    /* the NULL stream */
    OK(cu.MemcpyHtoDAsync(d, h, 100, NULL));
    OK(cu.StreamSynchronize(NULL));
    OK(cu.StreamSynchronize(s));
    OK(cu.StreamDestroy(s));
    CHECK_RC(cu.StreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RC(cu.MemcpyHtoDAsync(d, h, 100, s), CUDA_ERROR_INVALID_HANDLE);
    OK(cu.EventDestroy(e0));
    CHECK_RC(cu.EventQuery(e0), CUDA_ERROR_INVALID_HANDLE);
    OK(cu.EventDestroy(e1));
    OK(cu.EventDestroy(nt));
    OK(cu.MemFree(d));
    teardown();
    free(h);
    free(g);
}

static void t_async_delay(void) /* GDR_CUDASIM_COPY_DELAY_US=20000 */
{
    enum { N = 64 << 10 };
    unsigned char *pin = NULL, *pageable = malloc(N);
    CUdeviceptr d;
    CUstream s;
    CUevent e0, e1;
    float ms = 0;
    CUresult q;

    setup();
    OK(cu.MemAlloc(&d, N));
    OK(cu.MemsetD8(d, 0, N));
    OK(cu.MemHostAlloc((void **)&pin, N, 0));
    OK(cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cu.EventCreate(&e0, 0));
    OK(cu.EventCreate(&e1, 0));

    /* pinned: the copies run later, the destination is stale until then */
    fill(pin, N, 9);
    OK(cu.EventRecord(e0, s));
    OK(cu.MemcpyHtoDAsync(d, pin, N, s));
    memset(pin, 0x55, N); /* too early: the copy reads this */
    OK(cu.MemcpyDtoHAsync(pin, d, N, s));
    OK(cu.EventRecord(e1, s));
    CHECK_RC(cu.EventQuery(e1), CUDA_ERROR_NOT_READY);
    CHECK_RC(cu.StreamQuery(s), CUDA_ERROR_NOT_READY);
    CHECK_RC(cu.EventElapsedTime(&ms, e0, e1), CUDA_ERROR_NOT_READY);
    CHECK(all(pin, N, 0x55));
    OK(cu.EventSynchronize(e1));
    OK(cu.EventQuery(e1));
    OK(cu.StreamQuery(s));
    CHECK(all(pin, N, 0x55)); /* it copied what was there when it ran */
    OK(cu.EventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 39.0f);
    fprintf(stderr, "  2 copies with 20 ms delay: %.3f ms\n", ms);

    /* pageable: H2D stages the source at the call, D2H completes before returning */
    fill(pageable, N, 4);
    OK(cu.MemcpyHtoDAsync(d, pageable, N, s));
    memset(pageable, 0, N);
    OK(cu.MemcpyDtoHAsync(pageable, d, N, s));
    CHECK(filled(pageable, N, 4));

    /* polling an event until it completes */
    OK(cu.MemsetD8Async(d, 0x11, N, NULL));
    OK(cu.EventRecord(e1, NULL));
    int polls = 0;
    while ((q = cu.EventQuery(e1)) == CUDA_ERROR_NOT_READY)
        polls++, usleep(1000);
    CHECK_RC(q, CUDA_SUCCESS);
    CHECK(polls > 0);
    OK(cu.MemcpyDtoH(pageable, d, N));
    CHECK(all(pageable, N, 0x11));
    OK(cu.StreamDestroy(s));
    OK(cu.EventDestroy(e0));
    OK(cu.EventDestroy(e1));
    OK(cu.MemFreeHost(pin));
    OK(cu.MemFree(d));
    teardown();
    free(pageable);
}

static void t_dmabuf(void)
{
    CUdeviceptr d;
    int fd = -1;

    setup();
    OK(cu.MemAlloc(&d, 1 << 21));
    CHECK_RC(
        cu.MemGetHandleForAddressRange(&fd, d, 1 << 21, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
        CUDA_ERROR_NOT_SUPPORTED);
    CHECK(fd == -1);
    CHECK_RC(cu.MemGetHandleForAddressRange(&fd, d, 1 << 21, (CUmemRangeHandleType)7, 0),
             CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemFree(d));
    teardown();
}

/* The write-ordering attributes follow the knobs; the flush checks its
 * arguments and context, and works only where the options say it does. */
static void rdma_ordering(int want_ordering, int want_options)
{
    int v = -1;

    CHECK_RC(cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                         CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
             CUDA_ERROR_NOT_INITIALIZED);
    OK(cu.Init(0));
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 0));
    CHECK(v == want_ordering);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0));
    CHECK(v == want_options);
    CHECK_RC(cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                         CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
             CUDA_ERROR_INVALID_CONTEXT);
    setup();
    CHECK_RC(cu.FlushGPUDirectRDMAWrites((CUflushGPUDirectRDMAWritesTarget)1,
                                         CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
             CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                         (CUflushGPUDirectRDMAWritesScope)0),
             CUDA_ERROR_INVALID_VALUE);
    CUresult want = want_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST
                        ? CUDA_SUCCESS
                        : CUDA_ERROR_NOT_SUPPORTED;
    CHECK_RC(cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                         CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
             want);
    CHECK_RC(cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                         CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES),
             want);
    teardown();
}

static void t_rdma_ordering_default(void)
{
    rdma_ordering(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE,
                  CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
}

static void t_rdma_ordering_owner(void) /* ..._ORDERING=owner, FLUSH_OPTIONS=2 */
{
    rdma_ordering(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER,
                  CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS);
}

static void t_rdma_ordering_all(void) /* ..._ORDERING=all_devices, FLUSH_OPTIONS=0 */
{
    rdma_ordering(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES, 0);
}

static void t_fail_alloc(void) /* GDR_CUDASIM_FAIL=cuMemAlloc,cuMemcpyHtoD@2 */
{
    CUdeviceptr d;
    void *p;
    char h[16] = {0};

    setup();
    CHECK_RC(cu.MemAlloc(&d, 4096), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_RC(cu.MemAlloc(&d, 4096), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cu.MemHostAlloc(&p, 4096, 0));
    CHECK_RC(cu.MemcpyHtoD((CUdeviceptr)0, h, 0), CUDA_ERROR_INVALID_VALUE); /* 1st: a real error */
    CHECK_RC(cu.MemcpyHtoD((CUdeviceptr)0, h, 0), CUDA_ERROR_UNKNOWN); /* 2nd call: injected */
    CHECK_RC(cu.MemcpyHtoD((CUdeviceptr)0, h, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemFreeHost(p));
    teardown();
}

static void t_fail_init(void) /* GDR_CUDASIM_FAIL=cuInit */
{
    int n;

    CHECK_RC(cu.Init(0), CUDA_ERROR_NO_DEVICE);
    CHECK_RC(cu.DeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
}

static void t_fail_code(void) /* GDR_CUDASIM_FAIL=cuStreamSynchronize=CUDA_ERROR_ILLEGAL_ADDRESS */
{
    setup();
    CHECK_RC(cu.StreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    teardown();
}

static void t_no_device(void) /* GDR_CUDASIM_NO_DEVICE=1 */
{
    int n;

    CHECK_RC(cu.Init(0), CUDA_ERROR_NO_DEVICE);
    CHECK_RC(cu.DeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
}

static const char *const exported[] = {
    "cuInit",
    "cuDriverGetVersion",
    "cuGetErrorString",
    "cuGetErrorName",
    "cuGetProcAddress",
    "cuGetProcAddress_v2",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetUuid",
    "cuDeviceGetUuid_v2",
    "cuDeviceGetPCIBusId",
    "cuDeviceGetByPCIBusId",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxRelease_v2",
    "cuDevicePrimaryCtxGetState",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxGetDevice",
    "cuCtxSynchronize",
    "cuMemAlloc",
    "cuMemAlloc_v2",
    "cuMemFree",
    "cuMemFree_v2",
    "cuMemGetInfo",
    "cuMemGetInfo_v2",
    "cuMemGetAddressRange",
    "cuMemGetAddressRange_v2",
    "cuMemsetD8",
    "cuMemsetD8_v2",
    "cuMemsetD32",
    "cuMemsetD32_v2",
    "cuMemsetD8Async",
    "cuMemcpy",
    "cuMemcpyAsync",
    "cuMemcpyHtoD",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH",
    "cuMemcpyDtoH_v2",
    "cuMemcpyDtoD",
    "cuMemcpyDtoD_v2",
    "cuMemcpyHtoDAsync",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync",
    "cuMemcpyDtoDAsync_v2",
    "cuMemHostAlloc",
    "cuMemAllocHost",
    "cuMemAllocHost_v2",
    "cuMemFreeHost",
    "cuMemHostGetDevicePointer",
    "cuMemHostGetDevicePointer_v2",
    "cuMemHostRegister",
    "cuMemHostRegister_v2",
    "cuMemHostUnregister",
    "cuStreamCreate",
    "cuStreamDestroy",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventQuery",
    "cuEventSynchronize",
    "cuEventDestroy",
    "cuEventDestroy_v2",
    "cuEventElapsedTime",
    "cuEventElapsedTime_v2",
    "cuPointerSetAttribute",
    "cuPointerGetAttribute",
    "cuPointerGetAttributes",
    "cuMemGetHandleForAddressRange",
    "cuFlushGPUDirectRDMAWrites",
    "cuMemGetAllocationGranularity",
    "cuMemCreate",
    "cuMemRelease",
    "cuMemAddressReserve",
    "cuMemAddressFree",
    "cuMemMap",
    "cuMemUnmap",
    "cuMemSetAccess",
};

static void t_procaddress(void)
{
    CUdriverProcAddressQueryResult st;
    void *p = NULL;
    __typeof__(CUresult(*)(const char *, void **, int, cuuint64_t)) v1 =
        (__typeof__(v1))sym("cuGetProcAddress");

    for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++) {
        checks++;
        if (!dlsym(lib, exported[i])) {
            failures++;
            fprintf(stderr, "  FAIL: %s is not exported\n", exported[i]);
        }
        if (!strstr(exported[i], "_v")) {
            p = NULL;
            CHECK_RC(get_proc(exported[i], &p, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &st),
                     CUDA_SUCCESS);
            CHECK(p != NULL && st == CU_GET_PROC_ADDRESS_SUCCESS);
        }
    }
    /* base names give the versioned implementation */
    OK(get_proc("cuMemAlloc", &p, 12040, 0, &st));
    CHECK(p == sym("cuMemAlloc_v2") && p != sym("cuMemAlloc"));
    OK(get_proc("cuMemcpyHtoD", &p, 12040, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    CHECK(p == sym("cuMemcpyHtoD_v2"));
    OK(get_proc("cuGetProcAddress", &p, 12040, 0, &st));
    CHECK(p == (void *)get_proc);
    OK(get_proc("cuGetProcAddress", &p, 11080, 0, &st));
    CHECK(p == (void *)v1);
    OK(get_proc("cuDevicePrimaryCtxRelease", &p, 12040, 0, &st));
    CHECK(p == sym("cuDevicePrimaryCtxRelease_v2"));
    OK(get_proc("cuInit", &p, 12040, 0, &st));
    CHECK(p == sym("cuInit") && p == (void *)cu.Init);
    /* older versions, unknown names, versioned names */
    OK(get_proc("cuMemAlloc", &p, 3010, 0, &st));
    CHECK(p == sym("cuMemAlloc"));
    CHECK_RC(get_proc("cuMemGetHandleForAddressRange", &p, 11000, 0, &st), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CHECK_RC(get_proc("cuNoSuchThing", &p, 12040, 0, &st), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK_RC(get_proc("cuMemAlloc_v2", &p, 12040, 0, &st), CUDA_ERROR_NOT_FOUND);
    CHECK_RC(get_proc("cuMemAlloc", &p, 12040, 0x100, &st), CUDA_ERROR_INVALID_VALUE);
    /* the 4-argument original */
    CHECK(v1 != NULL);
    if (v1) {
        OK(v1("cuMemFree", &p, 12040, 0));
        CHECK(p == sym("cuMemFree_v2"));
    }

    /* the plain exports work too (versioned ABI unless GDR_CUDASIM_STRICT_ABI) */
    __typeof__(&cuMemAlloc) plain_alloc = (__typeof__(plain_alloc))sym("cuMemAlloc");
    __typeof__(&cuMemFree) plain_free = (__typeof__(plain_free))sym("cuMemFree");
    CUdeviceptr d = 0;
    setup();
    OK(plain_alloc(&d, 100));
    CHECK(d != 0);
    OK(plain_free(d));
    teardown();
}

static void t_strict_abi(void) /* GDR_CUDASIM_STRICT_ABI=1 */
{
    __typeof__(&cuMemAlloc) plain_alloc = (__typeof__(plain_alloc))sym("cuMemAlloc");
    __typeof__(&cuMemAlloc) v2_alloc = (__typeof__(v2_alloc))sym("cuMemAlloc_v2");
    CUdeviceptr d = 0;

    setup();
    CHECK_RC(plain_alloc(&d, 100), CUDA_ERROR_NOT_SUPPORTED);
    OK(v2_alloc(&d, 100));
    OK(cu.MemFree(d));
    teardown();
}

static void t_trace(void) /* GDR_CUDASIM_TRACE=1 */
{
    char path[] = "/tmp/cudasim-trace-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    char buf[4096] = {0};
    unsigned char h[64];
    CUdeviceptr d;

    CHECK(fd >= 0 && saved >= 0);
    setup();
    OK(cu.MemAlloc(&d, 4096));
    fflush(stderr);
    dup2(fd, 2);
    CHECK_RC(cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)h, h, sizeof h), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemcpyDtoH(h, d + 4090, sizeof h), CUDA_ERROR_INVALID_VALUE);
    fflush(stderr);
    dup2(saved, 2);
    CHECK(pread(fd, buf, sizeof buf - 1, 0) > 0);
    CHECK(strstr(buf, "cuMemcpyHtoD") && strstr(buf, "not a device pointer"));
    CHECK(strstr(buf, "cuMemcpyDtoH") && strstr(buf, "overrun"));
    close(fd);
    unlink(path);
    OK(cu.MemFree(d));
    teardown();
}

struct thread_arg {
    CUcontext ctx;
    int seed;
    int bad;
};

static void *worker(void *p)
{
    struct thread_arg *a = p;
    unsigned char h[4096], g[4096];
    CUdeviceptr d;

    if (cu.CtxSetCurrent(a->ctx) != CUDA_SUCCESS)
        a->bad++;
    for (int i = 0; i < 200; i++) {
        fill(h, sizeof h, (unsigned)(a->seed + i));
        if (cu.MemAlloc(&d, sizeof h) || cu.MemcpyHtoD(d, h, sizeof h) ||
            cu.MemcpyDtoH(g, d, sizeof g) || cu.MemFree(d) ||
            !filled(g, sizeof g, (unsigned)(a->seed + i)))
            a->bad++;
    }
    return NULL;
}

static void t_threads(void)
{
    struct thread_arg a[4];
    pthread_t t[4];
    CUcontext ctx = setup(), cur = NULL;

    for (int i = 0; i < 4; i++) {
        a[i] = (struct thread_arg){.ctx = ctx, .seed = i * 1000};
        CHECK(pthread_create(&t[i], NULL, worker, &a[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(a[i].bad == 0);
    }
    OK(cu.CtxGetCurrent(&cur));
    CHECK(cur == ctx);
    teardown();
}

/* Registering device memory with a verbs device (soft-RoCE) when the
 * double is only dlopen'ed, not preloaded: as on a host without
 * nvidia_peermem, EFAULT in strict mode.  Skipped where there is no verbs
 * device (the lab's gpu-matrix test covers the preloaded path). */
static void t_ibv_reg_mr(void)
{
    enum { N = 4 << 20 };
    struct ibv_device **list;
    struct ibv_context *vctx = NULL;
    struct ibv_pd *pd = NULL;
    struct ibv_mr *mr = NULL;
    CUdeviceptr d;
    int n = 0;

    list = ibv_get_device_list(&n);
    if (!list || n == 0) {
        fprintf(stderr, "  no verbs device: skipped\n");
        if (list)
            ibv_free_device_list(list);
        skipped = true;
        return;
    }
    vctx = ibv_open_device(list[0]);
    CHECK(vctx != NULL);
    if (vctx)
        pd = ibv_alloc_pd(vctx);
    CHECK(pd != NULL);
    setup();
    OK(cu.MemAlloc(&d, N));
    OK(cu.MemsetD8(d, 0x5a, N));
    if (pd) {
        errno = 0;
        mr = ibv_reg_mr(pd, (void *)(uintptr_t)d, N,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
        fprintf(stderr, "  ibv_reg_mr on %s: %s\n", ibv_get_device_name(list[0]),
                mr ? "registered" : strerror(errno));
        CHECK(mr == NULL && errno == EFAULT);
    }
    if (mr)
        CHECK(ibv_dereg_mr(mr) == 0);
    OK(cu.MemFree(d));
    teardown();
    if (pd)
        ibv_dealloc_pd(pd);
    if (vctx)
        ibv_close_device(vctx);
    ibv_free_device_list(list);
}

/* In a child: load or store one byte at device address d.  Returns the
 * signal that ended the child (0 if it exited normally). */
static int touch_in_child(CUdeviceptr d, bool store)
{
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        volatile unsigned char *p = (volatile unsigned char *)(uintptr_t)d;

        signal(SIGSEGV, SIG_DFL);
        if (store)
            *p = 1;
        else
            fprintf(stderr, "  read %u through a device pointer\n", *p);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* Strict mode (the default): the CPU faults on device memory at once,
 * while the double's copies and memsets still reach it. */
static void t_strict(void)
{
    enum { N = 1 << 16 };
    unsigned char *h = malloc(N), *g = malloc(N);
    CUdeviceptr a = 0, b = 0;
    CUstream s = NULL;

    setup();
    OK(cu.MemAlloc(&a, N));
    OK(cu.MemAlloc(&b, N));
    fill(h, N, 3);
    OK(cu.MemcpyHtoD(a, h, N));
    CHECK(touch_in_child(a, false) == SIGSEGV);
    CHECK(touch_in_child(a + N - 1, true) == SIGSEGV);
    /* the bytes are intact and every copy path still works */
    OK(cu.MemcpyDtoD(b, a, N));
    memset(g, 0, N);
    OK(cu.MemcpyDtoH(g, b, N));
    CHECK(filled(g, N, 3));
    OK(cu.MemsetD8(b + 8, 0x77, 8));
    OK(cu.StreamCreate(&s, 0));
    OK(cu.MemcpyDtoHAsync(g, b, 32, s));
    OK(cu.StreamSynchronize(s));
    CHECK(filled(g, 8, 3) && all(g + 8, 8, 0x77) && filled(g + 16, 16, 3 + 16 * 31));
    OK(cu.StreamDestroy(s));
    OK(cu.MemFree(a));
    OK(cu.MemFree(b));
    teardown();
    free(h);
    free(g);
}

/* GDR_CUDASIM_STRICT=0: device memory is readable and writable by the
 * CPU, and it is the same memory the copies reach. */
static void t_strict_off(void)
{
    unsigned char h[64], g[64];
    CUdeviceptr d = 0;
    volatile unsigned char *p;

    setup();
    OK(cu.MemAlloc(&d, sizeof h));
    fill(h, sizeof h, 9);
    OK(cu.MemcpyHtoD(d, h, sizeof h));
    CHECK(touch_in_child(d, false) == 0);
    p = (volatile unsigned char *)(uintptr_t)d;
    CHECK(p[5] == h[5]);
    p[6] = 0xee;
    OK(cu.MemcpyDtoH(g, d, sizeof g));
    CHECK(g[6] == 0xee && g[5] == h[5]);
    OK(cu.MemFree(d));
    teardown();
}

/* VMM: the properties NCCL's allocations use, on device 0. */
static CUmemAllocationProp vmm_prop(bool rdma)
{
    CUmemAllocationProp prop;

    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.allocFlags.gpuDirectRDMACapable = rdma;
    return prop;
}

/* Reserve, create, map size bytes; access set when `access`. */
static CUdeviceptr vmm_map(size_t size, bool rdma, bool access, CUmemGenericAllocationHandle *h)
{
    CUmemAllocationProp prop = vmm_prop(rdma);
    CUmemAccessDesc desc = {.location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CUdeviceptr d = 0;

    OK(cu.MemCreate(h, size, &prop, 0));
    OK(cu.MemAddressReserve(&d, size, 0, 0, 0));
    OK(cu.MemMap(d, size, 0, *h, 0));
    if (access)
        OK(cu.MemSetAccess(d, size, &desc, 1));
    return d;
}

static void vmm_unmap(CUdeviceptr d, size_t size, CUmemGenericAllocationHandle h)
{
    OK(cu.MemUnmap(d, size));
    OK(cu.MemRelease(h));
    OK(cu.MemAddressFree(d, size));
}

/* cuMemCreate + cuMemMap + cuMemSetAccess: the granularity is enforced,
 * nothing reaches a mapping before access is set, then the copies do and
 * the CPU still faults; VMM memory takes no SYNC_MEMOPS; the order of
 * unmap, release and free is checked. */
static void t_vmm(void)
{
    enum { G = 2 << 20 };
    CUmemAllocationProp prop = vmm_prop(true);
    CUmemAccessDesc desc = {.location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CUmemGenericAllocationHandle h = 0, h2 = 0;
    unsigned char *buf = malloc(G), *back = malloc(G);
    CUdeviceptr d = 0, d2 = 0, other = 0;
    size_t gran = 0;
    unsigned one = 1;
    int v = -1;

    setup();
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    CHECK(v == 1);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 0));
    CHECK(v == 1);
    OK(cu.MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(gran == G);
    CHECK_RC(cu.MemCreate(&h, G + 4096, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    prop.location.id = 5;
    CHECK_RC(cu.MemCreate(&h, G, &prop, 0), CUDA_ERROR_INVALID_DEVICE);
    prop.location.id = 0;
    OK(cu.MemCreate(&h, G, &prop, 0));
    CHECK_RC(cu.MemAddressReserve(&d, G + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemAddressReserve(&d, 2 * G, 0, 0, 0));
    CHECK(d % G == 0);
    CHECK_RC(cu.MemMap(d + 4096, G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemMap(d, G, 4096, h, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemMap(d, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* more than the handle */
    OK(cu.MemMap(d, G, 0, h, 0));
    CHECK_RC(cu.MemMap(d, G, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* mapped already */
    fill(buf, G, 5);
    CHECK_RC(cu.MemcpyHtoD(d, buf, G), CUDA_ERROR_INVALID_VALUE);            /* no access yet */
    CHECK_RC(cu.MemSetAccess(d, 2 * G, &desc, 1), CUDA_ERROR_INVALID_VALUE); /* half unmapped */
    OK(cu.MemSetAccess(d, G, &desc, 1));
    OK(cu.MemcpyHtoD(d, buf, G));
    OK(cu.MemAlloc(&other, G));
    OK(cu.MemcpyDtoD(other, d, G));
    memset(back, 0, G);
    OK(cu.MemcpyDtoH(back, other, G));
    CHECK(filled(back, G, 5));
    CHECK_RC(cu.MemcpyDtoH(back, d + G - 8, 16), CUDA_ERROR_INVALID_VALUE); /* past the mapping */
    CHECK(touch_in_child(d, false) == SIGSEGV);
    CHECK(touch_in_child(d + G - 1, true) == SIGSEGV);
    CHECK_RC(cu.PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
             CUDA_ERROR_NOT_SUPPORTED);
    CHECK_RC(cu.MemFree(d), CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(cu.MemAddressFree(d, 2 * G), CUDA_ERROR_INVALID_VALUE); /* still mapped */
    OK(cu.MemRelease(h));                                            /* lives while mapped */
    OK(cu.MemcpyDtoH(back, d, 64));
    CHECK(filled(back, 64, 5));
    CHECK_RC(cu.MemRelease(h), CUDA_ERROR_INVALID_VALUE);
    OK(cu.MemUnmap(d, G));
    CHECK_RC(cu.MemcpyDtoH(back, d, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK(touch_in_child(d, false) == SIGSEGV);
    OK(cu.MemAddressFree(d, 2 * G));
    /* a second mapping reuses nothing of the first */
    d2 = vmm_map(G, false, true, &h2);
    OK(cu.MemcpyHtoD(d2, buf, 4096));
    vmm_unmap(d2, G, h2);
    OK(cu.MemFree(other));
    teardown();
    free(buf);
    free(back);
}

/* GDR_CUDASIM_VMM=nogdr: VMM without GPUDirect RDMA; =off: no VMM. */
static void t_vmm_nogdr(void)
{
    CUmemAllocationProp prop = vmm_prop(true);
    CUmemGenericAllocationHandle h = 0;
    int v = -1;

    setup();
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 0));
    CHECK(v == 0);
    CHECK_RC(cu.MemCreate(&h, 2 << 20, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
    prop.allocFlags.gpuDirectRDMACapable = 0;
    OK(cu.MemCreate(&h, 2 << 20, &prop, 0));
    OK(cu.MemRelease(h));
    teardown();
}

static void t_vmm_off(void)
{
    CUmemAllocationProp prop = vmm_prop(false);
    CUmemGenericAllocationHandle h = 0;
    int v = -1;

    setup();
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    CHECK(v == 0);
    CHECK_RC(cu.MemCreate(&h, 2 << 20, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
    teardown();
}

/* GDR_CUDASIM_DMABUF=1: exports of cuMemAlloc memory and of VMM memory
 * made for RDMA, page-aligned only; the PCIe mapping flag refused off C2C. */
static void t_dmabuf_export(void)
{
    CUmemGenericAllocationHandle h = 0, h2 = 0;
    CUdeviceptr d = 0, v = 0, v2 = 0;
    int fd = -1, attr = -1;

    setup();
    OK(cu.DeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0));
    CHECK(attr == 1);
    OK(cu.MemAlloc(&d, 1 << 20));
    OK(cu.MemGetHandleForAddressRange(&fd, d, 1 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0));
    CHECK(fd >= 0);
    close(fd);
    CHECK_RC(
        cu.MemGetHandleForAddressRange(&fd, d + 100, 4096, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
        CUDA_ERROR_INVALID_VALUE);
    CHECK_RC(
        cu.MemGetHandleForAddressRange(&fd, d, 1 << 21, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
        CUDA_ERROR_INVALID_VALUE); /* past the allocation */
    CHECK_RC(cu.MemGetHandleForAddressRange(&fd, d, 1 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
                                            CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE),
             CUDA_ERROR_NOT_SUPPORTED);
    OK(cu.DeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, 0));
    CHECK(attr == 0);
    v = vmm_map(2 << 20, true, true, &h);
    fd = -1;
    OK(cu.MemGetHandleForAddressRange(&fd, v, 2 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0));
    CHECK(fd >= 0);
    close(fd);
    v2 = vmm_map(2 << 20, false, true, &h2);
    CHECK_RC(
        cu.MemGetHandleForAddressRange(&fd, v2, 2 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
        CUDA_ERROR_NOT_SUPPORTED);
    vmm_unmap(v, 2 << 20, h);
    vmm_unmap(v2, 2 << 20, h2);
    OK(cu.MemFree(d));
    teardown();
}

/* GDR_CUDASIM_C2C=1: a Grace-attached GPU; the PCIe mapping is accepted
 * unless GDR_CUDASIM_DMABUF_PCIE says otherwise, and with two write paths
 * the ordering is ALL_DEVICES. */
static void c2c(CUresult want_pcie)
{
    CUdeviceptr d = 0;
    int fd = -1, v = -1;

    setup();
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, 0));
    CHECK(v == 1);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_NUMA_CONFIG, 0));
    CHECK(v == CU_DEVICE_NUMA_CONFIG_NUMA_NODE);
    OK(cu.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 0));
    CHECK(v == CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES);
    OK(cu.MemAlloc(&d, 1 << 20));
    CHECK_RC(cu.MemGetHandleForAddressRange(&fd, d, 1 << 20, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
                                            CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE),
             want_pcie);
    CHECK((fd >= 0) == (want_pcie == CUDA_SUCCESS));
    if (fd >= 0)
        close(fd);
    OK(cu.MemFree(d));
    teardown();
}

static void t_c2c(void)
{
    c2c(CUDA_SUCCESS);
}

static void t_c2c_unknown_flag(void)
{
    c2c(CUDA_ERROR_INVALID_VALUE);
}

/* The old-driver build (tests/cudasim/old): CUDA 11.2, without the entry
 * points newer than that; the VMM calls (10.2) are there. */
static void t_old_driver(void)
{
    char path[PATH_MAX];
    const char *slash = strrchr(lib_path, '/');
    int version = 0;
    void *h;

    snprintf(path, sizeof path, "%.*sold/libcuda.so.1", slash ? (int)(slash - lib_path + 1) : 0,
             lib_path);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "  %s not built: skipped\n", path);
        skipped = true;
        return;
    }
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK(dlsym(h, "cuFlushGPUDirectRDMAWrites") == NULL);
    CHECK(dlsym(h, "cuMemGetHandleForAddressRange") == NULL);
    CHECK(dlsym(h, "cuGetProcAddress") == NULL && dlsym(h, "cuGetProcAddress_v2") == NULL);
    CHECK(dlsym(h, "cuMemCreate") != NULL && dlsym(h, "cuMemAlloc_v2") != NULL);
    __typeof__(&cuDriverGetVersion) get_version =
        (__typeof__(get_version))dlsym(h, "cuDriverGetVersion");
    CHECK(get_version && get_version(&version) == CUDA_SUCCESS && version == 11020);
}

/* Re-executed with LD_PRELOAD=the double and no LD_LIBRARY_PATH: the
 * program's dlopen("libcuda.so.1") gets the preloaded object, and its
 * versioned references to the registration calls (ibv_reg_mr@IBVERBS_1.1,
 * ibv_reg_mr_iova2@IBVERBS_1.8 when the access flags are not constant)
 * bind to the double's nvidia_peermem.  Shown without a verbs device: a
 * range that runs past a device allocation is refused with EFAULT by the
 * double before libibverbs would dereference the (NULL) protection domain. */
static void t_preload_child(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *ours = h ? dlsym(h, "ibv_reg_mr") : NULL;
    volatile int access = IBV_ACCESS_LOCAL_WRITE;
    CUdeviceptr d = 0;
    struct ibv_mr *mr;

    CHECK(h != NULL);
    if (!h)
        return;
    CHECK(ours && ours == dlsym(RTLD_DEFAULT, "ibv_reg_mr"));
    load("libcuda.so.1");
    setup();
    OK(cu.MemAlloc(&d, 4096));
    errno = 0;
    mr = ibv_reg_mr(NULL, (void *)(uintptr_t)(d + 4000), 4096, IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr == NULL && errno == EFAULT);
    errno = 0;
    mr = ibv_reg_mr(NULL, (void *)(uintptr_t)(d + 4000), 4096, access); /* -> ibv_reg_mr_iova2 */
    CHECK(mr == NULL && errno == EFAULT);
    OK(cu.MemFree(d));
    teardown();
}

static void t_preload(void)
{
    setenv("LD_PRELOAD", lib_path, 1);
    unsetenv("LD_LIBRARY_PATH");
    execl(self_path, self_path, "--preload-child", (char *)NULL);
    fprintf(stderr, "  exec %s: %s\n", self_path, strerror(errno));
    failures++;
}

/* Re-executed with LD_LIBRARY_PATH: dlopen by soname finds cudasim. */
static void t_soname_child(void)
{
    char name[64] = "";
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    __typeof__(&cuInit) init;
    __typeof__(&cuDeviceGetName) getname;

    CHECK(h != NULL);
    if (!h)
        return;
    init = (__typeof__(init))dlsym(h, "cuInit");
    getname = (__typeof__(getname))dlsym(h, "cuDeviceGetName");
    CHECK(init && getname);
    if (!init || !getname)
        return;
    OK(init(0));
    OK(getname(name, sizeof name, 0));
    CHECK(!strcmp(name, "cudasim GPU 0"));
}

static void t_soname(void)
{
    char dir[PATH_MAX], env[2 * PATH_MAX];
    const char *old = getenv("LD_LIBRARY_PATH");
    char *slash;

    snprintf(dir, sizeof dir, "%s", lib_path);
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    snprintf(env, sizeof env, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", env, 1);
    execl(self_path, self_path, "--soname-child", (char *)NULL);
    fprintf(stderr, "  exec %s: %s\n", self_path, strerror(errno));
    failures++;
}

/* ------------------------------------------------------------------ */

struct scenario {
    const char *name;
    void (*fn)(void);
    const char *env[4]; /* NAME=VALUE */
    bool no_load;
};

static const struct scenario scenarios[] = {
    {"init", t_init, {NULL}, false},
    {"devices", t_devices, {"GDR_CUDASIM_DEVICES=3", "GDR_CUDASIM_MEM_MB=64"}, false},
    {"context", t_context, {NULL}, false},
    {"memory", t_memory, {NULL}, false},
    {"host/device mix-ups and bounds", t_mixups, {NULL}, false},
    {"pinned and registered host memory", t_hostmem, {NULL}, false},
    {"async copies, streams, events", t_async, {NULL}, false},
    {"async with GDR_CUDASIM_COPY_DELAY_US",
     t_async_delay,
     {"GDR_CUDASIM_COPY_DELAY_US=20000"},
     false},
    {"dma-buf export not supported", t_dmabuf, {NULL}, false},
    {"RDMA write ordering and flush (defaults)", t_rdma_ordering_default, {NULL}, false},
    {"GDR_CUDASIM_RDMA_WRITES_ORDERING=owner",
     t_rdma_ordering_owner,
     {"GDR_CUDASIM_RDMA_WRITES_ORDERING=owner", "GDR_CUDASIM_FLUSH_OPTIONS=2"},
     false},
    {"GDR_CUDASIM_RDMA_WRITES_ORDERING=all_devices",
     t_rdma_ordering_all,
     {"GDR_CUDASIM_RDMA_WRITES_ORDERING=all_devices", "GDR_CUDASIM_FLUSH_OPTIONS=0"},
     false},
    {"GDR_CUDASIM_FAIL cuMemAlloc",
     t_fail_alloc,
     {"GDR_CUDASIM_FAIL=cuMemAlloc,cuMemcpyHtoD_v2@2"},
     false},
    {"GDR_CUDASIM_FAIL cuInit", t_fail_init, {"GDR_CUDASIM_FAIL=cuInit"}, false},
    {"GDR_CUDASIM_FAIL with a code",
     t_fail_code,
     {"GDR_CUDASIM_FAIL=cuStreamSynchronize=CUDA_ERROR_ILLEGAL_ADDRESS"},
     false},
    {"GDR_CUDASIM_NO_DEVICE", t_no_device, {"GDR_CUDASIM_NO_DEVICE=1"}, false},
    {"cuGetProcAddress and exports", t_procaddress, {NULL}, false},
    {"GDR_CUDASIM_STRICT_ABI", t_strict_abi, {"GDR_CUDASIM_STRICT_ABI=1"}, false},
    {"GDR_CUDASIM_TRACE", t_trace, {"GDR_CUDASIM_TRACE=1"}, false},
    {"threads", t_threads, {NULL}, false},
    {"dlopen by soname via LD_LIBRARY_PATH", t_soname, {NULL}, true},
    {"strict: a CPU load or store on device memory faults, copies work", t_strict, {NULL}, false},
    {"GDR_CUDASIM_STRICT=0: the CPU reaches device memory",
     t_strict_off,
     {"GDR_CUDASIM_STRICT=0"},
     false},
    {"LD_PRELOAD: dlopen gets the preloaded double, ibv_reg_mr binds to it",
     t_preload,
     {NULL},
     true},
    {"ibv_reg_mr of device memory without the preload: EFAULT", t_ibv_reg_mr, {NULL}, false},
    {"VMM: create, reserve, map, access, unmap", t_vmm, {NULL}, false},
    {"GDR_CUDASIM_VMM=nogdr", t_vmm_nogdr, {"GDR_CUDASIM_VMM=nogdr"}, false},
    {"GDR_CUDASIM_VMM=off", t_vmm_off, {"GDR_CUDASIM_VMM=off"}, false},
    {"GDR_CUDASIM_DMABUF=1: dma-buf exports", t_dmabuf_export, {"GDR_CUDASIM_DMABUF=1"}, false},
    {"GDR_CUDASIM_C2C=1: C2C attributes, PCIe mapping accepted",
     t_c2c,
     {"GDR_CUDASIM_C2C=1", "GDR_CUDASIM_DMABUF=1"},
     false},
    {"GDR_CUDASIM_DMABUF_PCIE=unknown: a driver without the flag",
     t_c2c_unknown_flag,
     {"GDR_CUDASIM_C2C=1", "GDR_CUDASIM_DMABUF=1", "GDR_CUDASIM_DMABUF_PCIE=unknown"},
     false},
    {"the old-driver build lacks the newer entry points", t_old_driver, {NULL}, true},
};

static int run(const struct scenario *sc)
{
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        alarm(60);
        /* start from a clean environment for the simulator */
        unsetenv("GDR_CUDASIM_DEVICES");
        unsetenv("GDR_CUDASIM_MEM_MB");
        unsetenv("GDR_CUDASIM_DRIVER_VERSION");
        unsetenv("GDR_CUDASIM_TRACE");
        unsetenv("GDR_CUDASIM_COPY_DELAY_US");
        unsetenv("GDR_CUDASIM_FAIL");
        unsetenv("GDR_CUDASIM_NO_DEVICE");
        unsetenv("GDR_CUDASIM_STRICT_ABI");
        unsetenv("GDR_CUDASIM_RDMA_WRITES_ORDERING");
        unsetenv("GDR_CUDASIM_FLUSH_OPTIONS");
        unsetenv("GDR_CUDASIM_STRICT");
        unsetenv("GDR_CUDASIM_VMM");
        unsetenv("GDR_CUDASIM_DMABUF");
        unsetenv("GDR_CUDASIM_DMABUF_PCIE");
        unsetenv("GDR_CUDASIM_C2C");
        for (int i = 0; i < 4 && sc->env[i]; i++)
            putenv((char *)sc->env[i]);
        if (!sc->no_load)
            load(lib_path);
        sc->fn();
        fflush(NULL);
        _exit(failures ? 1 : skipped ? 77 : 0);
    }
    if (waitpid(pid, &status, 0) < 0) {
        perror("waitpid");
        return 1;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "  killed by signal %d\n", WTERMSIG(status));
        return 1;
    }
    if (WEXITSTATUS(status) == 77)
        return -1;
    return WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
    const char *env = getenv("CUDASIM_LIB");
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    int failed = 0, skips = 0, total = (int)(sizeof scenarios / sizeof scenarios[0]);

    if (n <= 0) {
        perror("readlink /proc/self/exe");
        return 99;
    }
    self_path[n] = '\0';
    if (argc > 1 && !strcmp(argv[1], "--soname-child")) {
        t_soname_child();
        return failures ? 1 : 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--preload-child")) {
        t_preload_child();
        return failures ? 1 : 0;
    }
    if (env && *env) {
        snprintf(lib_path, sizeof lib_path, "%s", env);
    } else {
        char *slash;

        snprintf(lib_path, sizeof lib_path, "%s", self_path);
        slash = strrchr(lib_path, '/');
        snprintf(slash ? slash + 1 : lib_path,
                 sizeof lib_path - (size_t)(slash ? slash + 1 - lib_path : 0), "libcuda.so.1");
    }
    printf("cudasim tests, library %s\n", lib_path);
    for (int i = 0; i < total; i++) {
        int bad = run(&scenarios[i]);

        printf("%s %d - %s%s\n", bad > 0 ? "not ok" : "ok", i + 1, scenarios[i].name,
               bad < 0 ? " # SKIP" : "");
        failed += bad > 0;
        skips += bad < 0;
    }
    printf("%d of %d scenarios passed, %d skipped, %d failed\n", total - failed - skips, total,
           skips, failed);
    return failed ? 1 : 0;
}
