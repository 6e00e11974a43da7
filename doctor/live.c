/* live: CUDA driver (dlopen'd), libibverbs version, dma-buf probe. */
#include "config.h"

#include "live.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/* The few driver API entry points we need; CUresult/CUdevice are ints. */
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_version_fn)(int *);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);

#define CU_ATTR_PCI_BUS_ID 33
#define CU_ATTR_PCI_DEVICE_ID 34
#define CU_ATTR_PCI_DOMAIN_ID 50
#define CU_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED 86
#define CU_ATTR_NUMA_CONFIG 130
#define CU_NUMA_CONFIG_NUMA_NODE 1

static void *cuda_open(void)
{
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
}

int gdr_doctor_cuda_driver_version(int *version, char *err, size_t errlen)
{
    void *h = cuda_open();
    cu_version_fn fn;
    int rc = -EIO;

    if (!h) {
        snprintf(err, errlen, "libcuda.so.1 did not load: %s", dlerror());
        return -ENOENT;
    }
    fn = (cu_version_fn)dlsym(h, "cuDriverGetVersion");
    if (fn && fn(version) == 0)
        rc = 0;
    else
        snprintf(err, errlen, "cuDriverGetVersion failed in libcuda.so.1");
    dlclose(h);
    return rc;
}

/* Load the driver and find the CUDA device at PCI address bdf: 0 with the
 * library open (*h: the caller closes it) and *dev its ordinal. */
static int open_gpu(const char *bdf, void **h, cu_attr_fn *attr, int *dev)
{
    unsigned int dom, bus, slot, fn;
    int count = 0;

    if (!(*h = cuda_open()))
        return -ENOENT;
    cu_init_fn init = (cu_init_fn)dlsym(*h, "cuInit");
    cu_count_fn cnt = (cu_count_fn)dlsym(*h, "cuDeviceGetCount");
    cu_get_fn get = (cu_get_fn)dlsym(*h, "cuDeviceGet");
    *attr = (cu_attr_fn)dlsym(*h, "cuDeviceGetAttribute");
    if (!init || !cnt || !get || !*attr ||
        sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 || init(0) != 0 ||
        cnt(&count) != 0) {
        dlclose(*h);
        return -EIO;
    }
    for (int i = 0; i < count; i++) {
        int d, b = -1, s = -1, m = -1;
        if (get(&d, i) != 0 || (*attr)(&b, CU_ATTR_PCI_BUS_ID, d) != 0 ||
            (*attr)(&s, CU_ATTR_PCI_DEVICE_ID, d) != 0 ||
            (*attr)(&m, CU_ATTR_PCI_DOMAIN_ID, d) != 0)
            continue;
        if ((unsigned)m == dom && (unsigned)b == bus && (unsigned)s == slot) {
            *dev = d;
            return 0;
        }
    }
    dlclose(*h);
    return -ENODEV;
}

int gdr_doctor_cuda_gpu_memory(const char *bdf, unsigned long long *bytes)
{
    void *h;
    cu_attr_fn attr;
    int dev, rc = open_gpu(bdf, &h, &attr, &dev);
    size_t total;

    if (rc)
        return rc;
    cu_mem_fn mem = (cu_mem_fn)dlsym(h, "cuDeviceTotalMem_v2");
    rc = mem && mem(&total, dev) == 0 ? 0 : -EIO;
    if (!rc)
        *bytes = total;
    dlclose(h);
    return rc;
}

int gdr_doctor_cuda_gpu_c2c(const char *bdf)
{
    void *h;
    cu_attr_fn attr;
    int dev, atomics = 0, numa = 0;

    if (open_gpu(bdf, &h, &attr, &dev))
        return -1;
    /* An attribute the driver does not know is no. */
    if (attr(&atomics, CU_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED, dev) != 0)
        atomics = 0;
    if (attr(&numa, CU_ATTR_NUMA_CONFIG, dev) != 0)
        numa = 0;
    dlclose(h);
    return atomics == 1 || numa == CU_NUMA_CONFIG_NUMA_NODE;
}

int gdr_doctor_rdma_core_version(char *buf, size_t len)
{
    Dl_info info;
    char real[PATH_MAX];
    unsigned a, b, c;

    /* libibverbs.so.1.<abi>.<rdma-core release>.0 names the release */
    if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real))
        return -ENOENT;
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    if (sscanf(base, "libibverbs.so.%u.%u.%u", &a, &b, &c) == 3)
        snprintf(buf, len, "%s (rdma-core %u)", base, c);
    else
        snprintf(buf, len, "%s", base);
    return 0;
}

int gdr_doctor_verbs_has_dmabuf(void)
{
    return dlsym(RTLD_DEFAULT, "ibv_reg_dmabuf_mr") != NULL;
}

int gdr_doctor_verbs_dmabuf_probe(const char *ibdev)
{
    struct ibv_device **list;
    struct ibv_context *vctx = NULL;
    struct ibv_pd *pd = NULL;
    struct ibv_mr *mr;
    int n = 0, rc = -ENODEV;

    list = ibv_get_device_list(&n);
    if (!list)
        return -errno;
    for (int i = 0; i < n; i++)
        if (strcmp(ibv_get_device_name(list[i]), ibdev) == 0)
            vctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    if (!vctx)
        return rc;
    pd = ibv_alloc_pd(vctx);
    if (!pd) {
        rc = -errno;
        goto out;
    }
#ifdef HAVE_IBV_REG_DMABUF_MR
    errno = 0;
    mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
    if (mr) {
        ibv_dereg_mr(mr); /* cannot happen with fd -1, but be tidy */
        rc = 1;
    } else {
        /* With fd -1 a capable stack says EBADF; these say the verb
		 * itself is missing (EPROTONOSUPPORT, EIO: as NCCL and perftest
		 * read them). */
        rc = (errno == EOPNOTSUPP || errno == ENOSYS || errno == EPROTONOSUPPORT || errno == EIO)
                 ? 0
                 : 1;
    }
#else
    (void)mr;
    rc = 0; /* built against rdma-core without ibv_reg_dmabuf_mr */
#endif
    ibv_dealloc_pd(pd);
out:
    ibv_close_device(vctx);
    return rc;
}
