/* peermem.c - the test double's nvidia_peermem.
 *
 * On a real host the CPU cannot touch cuMemAlloc'd memory, yet ibv_reg_mr
 * of a device pointer works, because the nvidia_peermem kernel module hands
 * the GPU's pages to the RDMA core.  In strict mode the double's device
 * addresses are PROT_NONE, so a plain ibv_reg_mr of them fails with EFAULT
 * (a host without nvidia_peermem).  When the library is LD_PRELOADed (its
 * soname is libcuda.so.1, so the program's later dlopen("libcuda.so.1")
 * returns this same object), these definitions interpose libibverbs'
 * registration calls: a range inside one device allocation is registered
 * at its read-write alias, with the device address as the MR's iova, so the
 * kernel pins the alias pages and the NIC, local SGEs and remote rkeys use
 * device addresses.  Anything else passes through untouched.
 *
 * rdma-core's verbs.h turns ibv_reg_mr() into ibv_reg_mr or
 * ibv_reg_mr_iova2 (non-constant access flags), and ibv_reg_mr_iova() into
 * ibv_reg_mr_iova or ibv_reg_mr_iova2, so all three are here.  The
 * program's references are versioned (ibv_reg_mr@IBVERBS_1.1); the dynamic
 * loader binds them to these unversioned definitions, which come first.
 *
 * ibv_reg_dmabuf_mr is here too: a dma-buf fd the double exported
 * (GDR_CUDASIM_DMABUF=1) is registered like peermem's device memory, at
 * the alias, after the checks the kernel makes (the range inside the
 * export, iova and offset on the same page offset); any other fd goes to
 * libibverbs. */
#include "config.h"

#include "cudasim_peer.h"

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

typedef struct ibv_mr *reg_mr_fn(struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *reg_mr_iova_fn(struct ibv_pd *, void *, size_t, uint64_t, int);
typedef struct ibv_mr *reg_mr_iova2_fn(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
typedef struct ibv_mr *reg_dmabuf_mr_fn(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);
typedef int dereg_mr_fn(struct ibv_mr *);

static struct {
    reg_mr_fn *reg_mr;
    reg_mr_iova_fn *reg_mr_iova;
    reg_mr_iova2_fn *reg_mr_iova2;
    reg_dmabuf_mr_fn *reg_dmabuf_mr;
    dereg_mr_fn *dereg_mr;
} real;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void *next_definition(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f && cudasim_trace_level() >= 1)
        cudasim_say("peermem: no %s after the double (is libibverbs loaded?)", name);
    return f;
}

static void resolve(void)
{
    real.reg_mr = (reg_mr_fn *)next_definition("ibv_reg_mr");
    real.reg_mr_iova = (reg_mr_iova_fn *)next_definition("ibv_reg_mr_iova");
    real.reg_mr_iova2 = (reg_mr_iova2_fn *)next_definition("ibv_reg_mr_iova2");
    real.reg_dmabuf_mr = (reg_dmabuf_mr_fn *)dlsym(RTLD_NEXT, "ibv_reg_dmabuf_mr");
    real.dereg_mr = (dereg_mr_fn *)next_definition("ibv_dereg_mr");
}

static int missing(void)
{
    errno = ENOSYS;
    return 0;
}

/* Device memory: register the alias pages under the device address. */
static struct ibv_mr *reg_device(struct ibv_pd *pd, void *addr, uintptr_t alias, size_t length,
                                 uint64_t iova, unsigned int access)
{
    struct ibv_mr *mr;

    if (!real.reg_mr_iova2)
        return missing(), NULL;
    mr = real.reg_mr_iova2(pd, (void *)alias, length, iova, access);
    if (mr)
        mr->addr = addr; /* what the MR of a peermem registration says */
    if (cudasim_trace_level() >= 2 || (!mr && cudasim_trace_level() >= 1))
        cudasim_say("peermem: ibv_reg_mr of device memory %p (+%zu, iova %#" PRIx64
                    ") at alias %#" PRIxPTR ": %s",
                    addr, length, iova, alias, mr ? "registered" : "failed");
    return mr;
}

/* Touches the device range without lying inside one allocation, or VMM
 * memory not created for RDMA: like nvidia_peermem declining pages. */
static struct ibv_mr *refuse(void *addr, size_t length, enum cudasim_range why)
{
    if (cudasim_trace_level() >= 1)
        cudasim_say("peermem: ibv_reg_mr of %p (+%zu) %s -> EFAULT", addr, length,
                    why == CUDASIM_RANGE_NO_RDMA
                        ? "is VMM memory created without gpuDirectRDMACapable"
                        : "touches the device range outside a live allocation");
    errno = EFAULT;
    return NULL;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    enum cudasim_range r = cudasim_nic_view((uintptr_t)addr, length, &alias);
    switch (r) {
    case CUDASIM_RANGE_DEVICE:
        return reg_device(pd, addr, alias, length, (uintptr_t)addr, (unsigned int)access);
    case CUDASIM_RANGE_BAD:
    case CUDASIM_RANGE_NO_RDMA: return refuse(addr, length, r);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr ? real.reg_mr(pd, addr, length, access) : (missing(), NULL);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                               int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    enum cudasim_range r = cudasim_nic_view((uintptr_t)addr, length, &alias);
    switch (r) {
    case CUDASIM_RANGE_DEVICE:
        return reg_device(pd, addr, alias, length, iova, (unsigned int)access);
    case CUDASIM_RANGE_BAD:
    case CUDASIM_RANGE_NO_RDMA: return refuse(addr, length, r);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr_iova ? real.reg_mr_iova(pd, addr, length, iova, access) : (missing(), NULL);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    enum cudasim_range r = cudasim_nic_view((uintptr_t)addr, length, &alias);
    switch (r) {
    case CUDASIM_RANGE_DEVICE: return reg_device(pd, addr, alias, length, iova, access);
    case CUDASIM_RANGE_BAD:
    case CUDASIM_RANGE_NO_RDMA: return refuse(addr, length, r);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr_iova2 ? real.reg_mr_iova2(pd, addr, length, iova, access)
                             : (missing(), NULL);
}

/* The dma-buf MRs registered at an alias, for ibv_dereg_mr. */
#define MAX_DMABUF_MRS 64
static struct {
    struct ibv_mr *mr;
    uintptr_t alias;
} dmabuf_mrs[MAX_DMABUF_MRS];
static pthread_mutex_t dmabuf_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t dmabuf_mr_alias(struct ibv_mr *mr, bool forget)
{
    uintptr_t alias = 0;

    pthread_mutex_lock(&dmabuf_lock);
    for (int i = 0; i < MAX_DMABUF_MRS; i++)
        if (dmabuf_mrs[i].mr == mr && mr) {
            alias = dmabuf_mrs[i].alias;
            if (forget)
                dmabuf_mrs[i].mr = NULL;
            break;
        }
    pthread_mutex_unlock(&dmabuf_lock);
    return alias;
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                 int fd, int access)
{
    uintptr_t addr = 0, alias = 0;
    bool pcie = false;
    long page = sysconf(_SC_PAGESIZE);
    struct ibv_mr *mr;
    int slot = -1;

    pthread_once(&resolved, resolve);
    switch (cudasim_dmabuf_view(fd, offset, length, &addr, &alias, &pcie)) {
    case 0:
        if (!real.reg_dmabuf_mr)
            return missing(), NULL;
        return real.reg_dmabuf_mr(pd, offset, length, iova, fd, access);
    case -1:
        if (cudasim_trace_level() >= 1)
            cudasim_say("peermem: ibv_reg_dmabuf_mr(fd %d, offset %" PRIu64
                        ", %zu bytes) runs past the export or its memory is gone -> EINVAL",
                        fd, offset, length);
        errno = EINVAL;
        return NULL;
    }
    if (length == 0 || (iova & (uint64_t)(page - 1)) != (offset & (uint64_t)(page - 1))) {
        if (cudasim_trace_level() >= 1)
            cudasim_say("peermem: ibv_reg_dmabuf_mr: iova %#" PRIx64 " and offset %#" PRIx64
                        " differ in their page offset -> EINVAL",
                        iova, offset);
        errno = EINVAL;
        return NULL;
    }
    pthread_mutex_lock(&dmabuf_lock);
    for (int i = 0; i < MAX_DMABUF_MRS && slot < 0; i++)
        if (!dmabuf_mrs[i].mr)
            slot = i;
    if (slot >= 0)
        dmabuf_mrs[slot].mr = (struct ibv_mr *)&dmabuf_mrs[slot]; /* taken */
    pthread_mutex_unlock(&dmabuf_lock);
    if (slot < 0) {
        errno = ENOMEM;
        return NULL;
    }
    mr = real.reg_mr_iova2 ? real.reg_mr_iova2(pd, (void *)alias, length, iova, (unsigned)access)
                           : (missing(), NULL);
    if (mr)
        mr->addr = (void *)(uintptr_t)offset; /* as libibverbs sets it for dma-buf */
    pthread_mutex_lock(&dmabuf_lock);
    dmabuf_mrs[slot].mr = mr;
    dmabuf_mrs[slot].alias = alias;
    pthread_mutex_unlock(&dmabuf_lock);
    if (cudasim_trace_level() >= 2 || (!mr && cudasim_trace_level() >= 1))
        cudasim_say("peermem: ibv_reg_dmabuf_mr of device memory %#" PRIxPTR
                    " (+%zu, iova %#" PRIx64 ", %s mapping) at alias %#" PRIxPTR ": %s",
                    addr, length, iova, pcie ? "PCIe" : "default", alias,
                    mr ? "registered" : "failed");
    return mr;
}

/* libibverbs undoes its fork protection on mr->addr: give it back the
 * address it registered (the alias) first. */
int ibv_dereg_mr(struct ibv_mr *mr)
{
    void *addr = mr ? mr->addr : NULL;
    uintptr_t alias = dmabuf_mr_alias(mr, false);
    int rc;

    if (!alias && mr)
        alias = cudasim_alias_of((uintptr_t)addr);
    pthread_once(&resolved, resolve);
    if (!real.dereg_mr)
        return ENOSYS;
    if (alias)
        mr->addr = (void *)alias;
    rc = real.dereg_mr(mr);
    if (rc && alias)
        mr->addr = addr;
    else
        dmabuf_mr_alias(mr, true);
    return rc;
}
