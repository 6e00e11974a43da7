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
 * loader binds them to these unversioned definitions, which come first. */
#include "config.h"

#include "cudasim_peer.h"

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

typedef struct ibv_mr *reg_mr_fn(struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *reg_mr_iova_fn(struct ibv_pd *, void *, size_t, uint64_t, int);
typedef struct ibv_mr *reg_mr_iova2_fn(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
typedef int dereg_mr_fn(struct ibv_mr *);

static struct {
    reg_mr_fn *reg_mr;
    reg_mr_iova_fn *reg_mr_iova;
    reg_mr_iova2_fn *reg_mr_iova2;
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

/* Touches the device range without lying inside one allocation: like
 * nvidia_peermem declining pages it does not own. */
static struct ibv_mr *refuse(void *addr, size_t length)
{
    if (cudasim_trace_level() >= 1)
        cudasim_say(
            "peermem: ibv_reg_mr of %p (+%zu) touches the device range outside a live allocation -> EFAULT",
            addr, length);
    errno = EFAULT;
    return NULL;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    switch (cudasim_nic_view((uintptr_t)addr, length, &alias)) {
    case CUDASIM_RANGE_DEVICE:
        return reg_device(pd, addr, alias, length, (uintptr_t)addr, (unsigned int)access);
    case CUDASIM_RANGE_BAD: return refuse(addr, length);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr ? real.reg_mr(pd, addr, length, access) : (missing(), NULL);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                               int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    switch (cudasim_nic_view((uintptr_t)addr, length, &alias)) {
    case CUDASIM_RANGE_DEVICE:
        return reg_device(pd, addr, alias, length, iova, (unsigned int)access);
    case CUDASIM_RANGE_BAD: return refuse(addr, length);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr_iova ? real.reg_mr_iova(pd, addr, length, iova, access) : (missing(), NULL);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    uintptr_t alias = 0;

    pthread_once(&resolved, resolve);
    switch (cudasim_nic_view((uintptr_t)addr, length, &alias)) {
    case CUDASIM_RANGE_DEVICE: return reg_device(pd, addr, alias, length, iova, access);
    case CUDASIM_RANGE_BAD: return refuse(addr, length);
    case CUDASIM_RANGE_HOST: break;
    }
    return real.reg_mr_iova2 ? real.reg_mr_iova2(pd, addr, length, iova, access)
                             : (missing(), NULL);
}

/* libibverbs undoes its fork protection on mr->addr: give it back the
 * address it registered (the alias) first. */
int ibv_dereg_mr(struct ibv_mr *mr)
{
    void *addr = mr ? mr->addr : NULL;
    uintptr_t alias = mr ? cudasim_alias_of((uintptr_t)addr) : 0;
    int rc;

    pthread_once(&resolved, resolve);
    if (!real.dereg_mr)
        return ENOSYS;
    if (alias)
        mr->addr = (void *)alias;
    rc = real.dereg_mr(mr);
    if (rc && alias)
        mr->addr = addr;
    return rc;
}
