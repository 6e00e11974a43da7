/* cudasim.c - a CUDA driver API test double, built as libcuda.so.1.
 *
 * Tests LD_PRELOAD it and put tests/cudasim first on LD_LIBRARY_PATH; the
 * benchmarks then dlopen("libcuda.so.1") and get this instead of the NVIDIA
 * driver.
 * "Device" memory is a memfd mapped twice: at the device addresses, where
 * in strict mode (the default) the process's CPU cannot touch it, as with a
 * real GPU, and at a private alias that only this library's copies and
 * memsets use.  Every copy checks that device arguments lie inside a live
 * allocation in the device range and host arguments lie outside it.  When
 * LD_PRELOADed, peermem.c plays nvidia_peermem: ibv_reg_mr of device memory
 * registers the alias pages with the device addresses as the MR's iova.
 *
 * Only the subset of the driver API gdrbench uses is here; see README.md
 * for the environment knobs and for what is not simulated.
 *
 * Names: cuda.h #defines many entry points to versioned symbols
 * (cuMemAlloc -> cuMemAlloc_v2).  Everything up to the "plain names"
 * section at the end is written with the header's names, so it defines the
 * versioned symbols with the header's prototypes; the end of the file
 * #undefs the macros and exports the plain names too. */
#include "config.h"

#include <cuda.h>

#include "cudasim_peer.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define SIM_MAX_DEVICES 16
#define SIM_MAX_FAIL 32
#define SIM_ALLOC_ALIGN (64u << 10) /* GPU page size for GPUDirect */
#define SIM_GUARD (2u << 20)        /* PROT_NONE gap around partitions */
#define SIM_BASE_HINT ((uintptr_t)0x7d0000000000ull)
#define SIM_CTX_MAGIC 0x63747873u      /* "ctxs" */
#define SIM_STREAM_MAGIC 0x7374726du   /* "strm" */
#define SIM_EVENT_MAGIC 0x6576656eu    /* "even" */
#define SIM_VMM_GRANULARITY (2u << 20) /* cuMemGetAllocationGranularity's answer */

/* The driver API version this build stands for: entry points newer than
 * it are not exported (the "old driver" build defines it lower). */
#ifndef CUDASIM_API_VERSION
#define CUDASIM_API_VERSION 12040
#endif

/* ---------------------------------------------------------------------
 * Configuration (read once, when the library is loaded)
 * ------------------------------------------------------------------- */

struct fail_rule {
    char name[64]; /* plain entry point name */
    long nth;      /* 0: every call; N: only the Nth call */
    long calls;
    CUresult code; /* 0: the default for that entry point */
};

static struct {
    int ndev;
    size_t mem_bytes;
    int driver_version;
    int trace;
    uint64_t delay_ns;
    bool no_device;
    bool strict_abi;
    int rdma_writes_ordering; /* CU_GPU_DIRECT_RDMA_WRITES_ORDERING_* */
    int flush_options;        /* CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_* bits */
    bool strict;              /* device memory is PROT_NONE at the device addresses */
    int vmm;                  /* VMM_OFF, VMM_NOGDR, VMM_GDR */
    bool dmabuf;              /* cuMemGetHandleForAddressRange exports */
    CUresult dmabuf_pcie;     /* answer to the PCIe mapping flag (0: accepted) */
    bool c2c;                 /* the GPU hangs off the CPU by a C2C link */
    int nfail;
    struct fail_rule fail[SIM_MAX_FAIL];
} cfg;

static unsigned long flush_calls; /* cuFlushGPUDirectRDMAWrites that succeeded */

enum { VMM_OFF, VMM_NOGDR, VMM_GDR };

/* ---------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------- */

struct sim_ctx {
    uint32_t magic;
    int dev;
    int refcount;
    bool active;
    unsigned int flags;
};

struct alloc { /* a live cuMemAlloc allocation, or a VMM mapping */
    uintptr_t start;
    size_t size;  /* as asked for */
    size_t rsize; /* rounded to SIM_ALLOC_ALIGN: what it occupies */
    int dev;
    unsigned long long id;
    bool sync_memops;
    /* cuMemCreate's physical memory sits in the partition like a
     * cuMemAlloc chunk but has no device address of its own (hidden);
     * cuMemMap + cuMemSetAccess make an accessible mapping (vmm) at a
     * reserved address, whose bytes are at alias. */
    bool hidden, vmm;
    bool rdma; /* vmm: created with gpuDirectRDMACapable */
    uintptr_t alias;
};

struct hostmem { /* cuMemHostAlloc'd or cuMemHostRegister'ed */
    uintptr_t start;
    size_t size;
    size_t maplen; /* owned: what was mmap'ed */
    bool owned;
    unsigned int flags;
    int dev;
};

enum op_kind { OP_COPY, OP_SET8, OP_SET32 };

struct op { /* an async operation not yet executed */
    struct op *next;
    enum op_kind kind;
    void *dst;
    const void *src;
    size_t n;
    uint32_t value;
    void *owned; /* snapshot of a pageable source, freed after */
    uint64_t ready_ns;
};

struct sim_stream {
    uint32_t magic;
    struct sim_stream *next;
    struct sim_ctx *ctx;
    unsigned int flags;
    uint64_t tail_ns; /* when the last enqueued op completes */
    struct op *head, *last;
};

struct sim_event {
    uint32_t magic;
    struct sim_event *next;
    struct sim_ctx *ctx;
    unsigned int flags;
    bool recorded;
    uint64_t t_ns; /* completion time of the work before the record */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialized;
static struct sim_ctx primary[SIM_MAX_DEVICES];
static _Thread_local struct sim_ctx *current;
static _Thread_local const char *api_name;

static uintptr_t region_base, region_end; /* the whole reservation */
static size_t region_len, part_size;
static uintptr_t alias_base;        /* the same memory, for this library only */
static int mem_fd = -1;             /* the memfd behind both (cuMemMap maps it) */
static uintptr_t vmm_base, vmm_end; /* cuMemAddressReserve's part of the range */

static struct alloc *allocs; /* sorted by start */
static size_t nallocs, allocs_cap;
static size_t dev_used[SIM_MAX_DEVICES];
static unsigned long long next_alloc_id = 1;

static struct hostmem *hosts;
static size_t nhosts, hosts_cap;

static struct sim_stream default_stream = {.magic = SIM_STREAM_MAGIC};
static struct sim_stream *streams;
static struct sim_event *events;

/* ---------------------------------------------------------------------
 * Diagnostics
 * ------------------------------------------------------------------- */

static const struct {
    CUresult code;
    const char *name;
    const char *text;
} error_table[] = {
#define E(code, text)                                                                              \
    {                                                                                              \
        code, #code, text                                                                          \
    }
#include "cudasim_errors.h"
#undef E
};

static const char *error_name(CUresult r)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == r)
            return error_table[i].name;
    return NULL;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cudasim: %s\n", buf);
}

/* Return an error from the entry point being run, saying why when traced. */
static CUresult err(CUresult r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static CUresult err(CUresult r, const char *fmt, ...)
{
    if (cfg.trace >= 1) {
        va_list ap;
        char buf[400];
        const char *name = error_name(r);

        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        say("%s: %s -> %s", api_name ? api_name : "?", buf, name ? name : "?");
    }
    return r;
}

/* ---------------------------------------------------------------------
 * Configuration parsing
 * ------------------------------------------------------------------- */

static long env_long(const char *name, long def, long lo, long hi)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s || !*s)
        return def;
    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || *end || v < lo || v > hi) {
        say("ignoring %s=%s (want an integer in [%ld, %ld])", name, s, lo, hi);
        return def;
    }
    return v;
}

static CUresult parse_error_code(const char *s)
{
    char *end;
    long v;

    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (!strcasecmp(s, error_table[i].name))
            return error_table[i].code;
    v = strtol(s, &end, 0);
    if (*s && !*end && v > 0)
        return (CUresult)v;
    say("GDR_CUDASIM_FAIL: unknown error code '%s', using CUDA_ERROR_UNKNOWN", s);
    return CUDA_ERROR_UNKNOWN;
}

/* GDR_CUDASIM_FAIL=name[@N][=ERROR],...  (name may carry a _vN suffix) */
static void parse_fail(const char *spec)
{
    char *copy = strdup(spec), *save = NULL;

    if (!copy)
        return;
    for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        struct fail_rule *f;
        char *code = strchr(tok, '='), *at, *v;

        if (cfg.nfail == SIM_MAX_FAIL) {
            say("GDR_CUDASIM_FAIL: more than %d rules, ignoring the rest", SIM_MAX_FAIL);
            break;
        }
        f = &cfg.fail[cfg.nfail];
        memset(f, 0, sizeof *f);
        if (code)
            *code++ = '\0';
        at = strchr(tok, '@');
        if (at) {
            *at++ = '\0';
            f->nth = strtol(at, NULL, 10);
            if (f->nth <= 0)
                f->nth = 1;
        }
        v = strstr(tok, "_v");
        if (v && isdigit((unsigned char)v[2]))
            *v = '\0';
        snprintf(f->name, sizeof f->name, "%s", tok);
        if (code)
            f->code = parse_error_code(code);
        cfg.nfail++;
    }
    free(copy);
}

static void load_config(void)
{
    const char *s;

    cfg.ndev = (int)env_long("GDR_CUDASIM_DEVICES", 1, 0, SIM_MAX_DEVICES);
    cfg.mem_bytes = (size_t)env_long("GDR_CUDASIM_MEM_MB", 1024, 1, 1L << 20) << 20;
    cfg.driver_version =
        (int)env_long("GDR_CUDASIM_DRIVER_VERSION", CUDASIM_API_VERSION, 1000, 99990);
    cfg.trace = (int)env_long("GDR_CUDASIM_TRACE", 0, 0, 9);
    cfg.delay_ns = (uint64_t)env_long("GDR_CUDASIM_COPY_DELAY_US", 0, 0, 60000000) * 1000u;
    cfg.no_device = env_long("GDR_CUDASIM_NO_DEVICE", 0, 0, 1) != 0;
    cfg.strict_abi = env_long("GDR_CUDASIM_STRICT_ABI", 0, 0, 1) != 0;
    cfg.flush_options = (int)env_long("GDR_CUDASIM_FLUSH_OPTIONS",
                                      CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST, 0, 3);
    cfg.c2c = env_long("GDR_CUDASIM_C2C", 0, 0, 1) != 0;
    cfg.dmabuf = env_long("GDR_CUDASIM_DMABUF", 0, 0, 1) != 0;
    s = getenv("GDR_CUDASIM_VMM");
    cfg.vmm = VMM_GDR;
    if (s && !strcmp(s, "off"))
        cfg.vmm = VMM_OFF;
    else if (s && !strcmp(s, "nogdr"))
        cfg.vmm = VMM_NOGDR;
    else if (s && *s && strcmp(s, "gdr"))
        say("GDR_CUDASIM_VMM=%s: expected gdr, nogdr or off; using gdr", s);
    /* The PCIe mapping flag: a C2C platform has the second path; elsewhere
     * the driver knows the flag and says the platform lacks it; a driver
     * older than the flag does not know it at all. */
    s = getenv("GDR_CUDASIM_DMABUF_PCIE");
    cfg.dmabuf_pcie = cfg.c2c ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    if (s && !strcmp(s, "accept"))
        cfg.dmabuf_pcie = CUDA_SUCCESS;
    else if (s && !strcmp(s, "unsupported"))
        cfg.dmabuf_pcie = CUDA_ERROR_NOT_SUPPORTED;
    else if (s && !strcmp(s, "unknown"))
        cfg.dmabuf_pcie = CUDA_ERROR_INVALID_VALUE;
    else if (s && *s)
        say("GDR_CUDASIM_DMABUF_PCIE=%s: expected accept, unsupported or unknown", s);
    /* With two write paths (C2C and PCIe) the driver reports ALL_DEVICES. */
    s = getenv("GDR_CUDASIM_RDMA_WRITES_ORDERING");
    cfg.rdma_writes_ordering = cfg.c2c ? CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES
                                       : CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE;
    if (s && !strcmp(s, "owner"))
        cfg.rdma_writes_ordering = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
    else if (s && !strcmp(s, "all_devices"))
        cfg.rdma_writes_ordering = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES;
    else if (s && !strcmp(s, "none"))
        cfg.rdma_writes_ordering = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE;
    else if (s && *s)
        say("GDR_CUDASIM_RDMA_WRITES_ORDERING=%s: expected none, owner or all_devices; using the default",
            s);
    cfg.strict = env_long("GDR_CUDASIM_STRICT", 1, 0, 1) != 0;
    s = getenv("GDR_CUDASIM_FAIL");
    if (s && *s)
        parse_fail(s);
}

static CUresult default_fail_code(const char *name)
{
    if (!strcmp(name, "cuInit"))
        return CUDA_ERROR_NO_DEVICE;
    if (!strcmp(name, "cuMemAlloc") || !strcmp(name, "cuMemHostAlloc") ||
        !strcmp(name, "cuMemAllocHost") || !strcmp(name, "cuMemHostRegister") ||
        !strcmp(name, "cuDevicePrimaryCtxRetain") || !strcmp(name, "cuStreamCreate") ||
        !strcmp(name, "cuEventCreate"))
        return CUDA_ERROR_OUT_OF_MEMORY;
    return CUDA_ERROR_UNKNOWN;
}

/* ---------------------------------------------------------------------
 * Entry and exit of every entry point
 * ------------------------------------------------------------------- */

enum need { NEED_NOTHING, NEED_INIT, NEED_CTX };

static CUresult check_ctx(void)
{
    if (!current)
        return err(CUDA_ERROR_INVALID_CONTEXT,
                   "no current context (cuCtxSetCurrent a retained primary context first)");
    if (!current->active)
        return err(CUDA_ERROR_CONTEXT_IS_DESTROYED,
                   "the current context (device %d's primary) has been released", current->dev);
    return CUDA_SUCCESS;
}

/* On success the lock is held; api_end() drops it. */
static CUresult api_begin(const char *name, enum need need)
{
    api_name = name;
    if (cfg.trace >= 2)
        say("%s", name);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < cfg.nfail; i++) {
        struct fail_rule *f = &cfg.fail[i];

        if (strcmp(f->name, name))
            continue;
        f->calls++;
        if (f->nth == 0 || f->nth == f->calls) {
            CUresult r = f->code ? f->code : default_fail_code(name);

            pthread_mutex_unlock(&lock);
            return err(r, "failure injected by GDR_CUDASIM_FAIL (call %ld)", f->calls);
        }
    }
    if (need >= NEED_INIT && !initialized) {
        pthread_mutex_unlock(&lock);
        return err(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not succeeded");
    }
    if (need >= NEED_CTX) {
        CUresult r = check_ctx();

        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&lock);
            return r;
        }
    }
    return CUDA_SUCCESS;
}

static CUresult api_end(CUresult r)
{
    pthread_mutex_unlock(&lock);
    return r;
}

#define API(name, need)                                                                            \
    do {                                                                                           \
        CUresult begin_ = api_begin((name), (need));                                               \
        if (begin_ != CUDA_SUCCESS)                                                                \
            return begin_;                                                                         \
    } while (0)
#define RETURN(r) return api_end(r)

/* ---------------------------------------------------------------------
 * Time and the async engine
 *
 * With GDR_CUDASIM_COPY_DELAY_US=0 every operation runs when it is
 * issued.  With a delay, an async operation gets a completion time
 * (after the stream's previous work, plus the delay) and runs when the
 * program next looks: a stream or event query or synchronize, a
 * synchronous copy, a free.  Until then its destination is untouched,
 * so code that reads a result before waiting for it sees stale data.
 * ------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static void run_op(struct op *op)
{
    switch (op->kind) {
    case OP_COPY: memmove(op->dst, op->src, op->n); break;
    case OP_SET8: memset(op->dst, (int)(op->value & 0xff), op->n); break;
    case OP_SET32:
        for (size_t i = 0; i < op->n; i++)
            memcpy((char *)op->dst + 4 * i, &op->value, 4);
        break;
    }
}

static void progress_stream(struct sim_stream *s, uint64_t now)
{
    while (s->head && s->head->ready_ns <= now) {
        struct op *op = s->head;

        s->head = op->next;
        if (!s->head)
            s->last = NULL;
        run_op(op);
        free(op->owned);
        free(op);
    }
}

static void progress(void)
{
    uint64_t now = now_ns();

    progress_stream(&default_stream, now);
    for (struct sim_stream *s = streams; s; s = s->next)
        progress_stream(s, now);
}

/* Sleep (without the lock) until t, then run whatever is due. */
static void wait_until(uint64_t t)
{
    uint64_t now = now_ns();

    if (t > now) {
        struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u),
                              .tv_nsec = (long)(t % 1000000000u)};

        pthread_mutex_unlock(&lock);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        pthread_mutex_lock(&lock);
    }
    progress();
}

/* The time by which everything issued so far completes. */
static uint64_t all_done_ns(bool blocking_only)
{
    uint64_t t = default_stream.tail_ns;

    for (struct sim_stream *s = streams; s; s = s->next)
        if (!blocking_only || !(s->flags & CU_STREAM_NON_BLOCKING))
            t = max_u64(t, s->tail_ns);
    return t;
}

/* Synchronous operations wait for the legacy default stream, which
 * waits for the blocking streams. */
static void sync_legacy(void)
{
    wait_until(all_done_ns(true));
}

static void sync_all(void)
{
    wait_until(all_done_ns(false));
}

static struct sim_stream *find_stream(CUstream h)
{
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD)
        return &default_stream;
    for (struct sim_stream *s = streams; s; s = s->next)
        if ((CUstream)s == h && s->magic == SIM_STREAM_MAGIC)
            return s;
    return NULL;
}

static struct sim_event *find_event(CUevent h)
{
    for (struct sim_event *e = events; e; e = e->next)
        if ((CUevent)e == h && e->magic == SIM_EVENT_MAGIC)
            return e;
    return NULL;
}

/* When work issued now on s could start. */
static uint64_t stream_start_ns(const struct sim_stream *s)
{
    uint64_t t = max_u64(now_ns(), s->tail_ns);

    if (s == &default_stream)
        t = max_u64(t, all_done_ns(true));
    else if (!(s->flags & CU_STREAM_NON_BLOCKING))
        t = max_u64(t, default_stream.tail_ns);
    return t;
}

static CUresult enqueue(struct sim_stream *s, struct op *tmpl)
{
    struct op *op;

    if (cfg.delay_ns == 0) {
        /* Done when issued: no completion time, so no clock read (one can
         * be a system call, as hpet's in the lab; the driver reads none). */
        run_op(tmpl);
        free(tmpl->owned);
        return CUDA_SUCCESS;
    }
    op = malloc(sizeof *op);
    if (!op) {
        free(tmpl->owned);
        return err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed");
    }
    *op = *tmpl;
    op->next = NULL;
    op->ready_ns = stream_start_ns(s) + cfg.delay_ns;
    s->tail_ns = op->ready_ns;
    if (s->last)
        s->last->next = op;
    else
        s->head = op;
    s->last = op;
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------------
 * The device address range and its allocator
 * ------------------------------------------------------------------- */

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static uintptr_t part_base(int dev)
{
    return region_base + SIM_GUARD + (uintptr_t)dev * (part_size + SIM_GUARD);
}

/* The device range: guard, partition 0, guard, partition 1, ..., guard,
 * then the addresses cuMemAddressReserve hands out (twice the device
 * memory), then a guard.
 * The partitions are one memfd (sparse: untouched memory costs nothing),
 * mapped at the device addresses (PROT_NONE in strict mode) and once more
 * read-write at alias_base, where this library's copies and the NIC (via
 * peermem.c) reach the bytes; cuMemMap maps the same memfd again at a
 * reserved address. */
static CUresult reserve_region(void)
{
    size_t mem_len;
    int prot = cfg.strict ? PROT_NONE : PROT_READ | PROT_WRITE;
    int fd;
    void *p, *alias;

    if (region_base)
        return CUDA_SUCCESS;
    part_size = round_up(cfg.mem_bytes, SIM_VMM_GRANULARITY);
    region_len = SIM_GUARD + (size_t)cfg.ndev * (part_size + SIM_GUARD) +
                 2 * (size_t)cfg.ndev * part_size + SIM_GUARD;
    mem_len = (size_t)cfg.ndev * part_size;
    fd = (int)syscall(SYS_memfd_create, "cudasim-device-memory", 1u /* MFD_CLOEXEC */);
    if (fd < 0)
        return err(CUDA_ERROR_OUT_OF_MEMORY, "memfd_create: %s", strerror(errno));
    if (ftruncate(fd, (off_t)mem_len) != 0) {
        close(fd);
        return err(CUDA_ERROR_OUT_OF_MEMORY, "ftruncate of the device memfd to %zu bytes: %s",
                   mem_len, strerror(errno));
    }
    p = mmap((void *)SIM_BASE_HINT, region_len, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) {
        if (cfg.trace >= 1)
            say("cannot map the device range at %#" PRIxPTR " (%s); using any address",
                SIM_BASE_HINT, strerror(errno));
        p = mmap(NULL, region_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    alias = p == MAP_FAILED
                ? MAP_FAILED
                : mmap(NULL, mem_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED || alias == MAP_FAILED) {
        CUresult r =
            err(CUDA_ERROR_OUT_OF_MEMORY, "cannot reserve %zu bytes of address space twice: %s",
                region_len, strerror(errno));

        if (p != MAP_FAILED)
            munmap(p, region_len);
        close(fd);
        return r;
    }
    region_base = (uintptr_t)p;
    region_end = region_base + region_len;
    alias_base = (uintptr_t)alias;
    /* The guards between the partitions stay PROT_NONE anonymous memory. */
    for (int d = 0; d < cfg.ndev; d++)
        if (mmap((void *)part_base(d), part_size, prot, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd,
                 (off_t)((size_t)d * part_size)) == MAP_FAILED) {
            CUresult r =
                err(CUDA_ERROR_OUT_OF_MEMORY, "mapping device %d's memory: %s", d, strerror(errno));

            munmap(p, region_len);
            munmap(alias, mem_len);
            close(fd);
            region_base = region_end = alias_base = 0;
            return r;
        }
    mem_fd = fd;
    vmm_base = part_base(cfg.ndev);
    vmm_end = region_end - SIM_GUARD;
    if (cfg.trace >= 1)
        say("device range [%#" PRIxPTR ", %#" PRIxPTR "): %d device(s) x %zu MiB, %s", region_base,
            region_end, cfg.ndev, cfg.mem_bytes >> 20,
            cfg.strict ? "not accessible to the CPU (GDR_CUDASIM_STRICT=1)"
                       : "CPU-accessible (GDR_CUDASIM_STRICT=0)");
    return CUDA_SUCCESS;
}

static bool in_region(uintptr_t p)
{
    return p >= region_base && p < region_end;
}

static bool overlaps_region(uintptr_t p, size_t n)
{
    return region_base && p < region_end && p + n > region_base;
}

static struct alloc *find_alloc(uintptr_t p, bool allow_end);

/* Where this library reads and writes the byte at device address p (in a
 * partition, or in an accessible VMM mapping); any other address is host
 * memory and stays as it is. */
static void *host_view(uintptr_t p)
{
    size_t stride = part_size + SIM_GUARD, rel, dev;

    if (p >= vmm_base && p < vmm_end) {
        struct alloc *a = find_alloc(p, true);

        return a && a->vmm ? (void *)(a->alias + (p - a->start)) : (void *)p;
    }
    if (!in_region(p) || p < region_base + SIM_GUARD)
        return (void *)p;
    rel = p - region_base - SIM_GUARD;
    dev = rel / stride;
    if (dev >= (size_t)cfg.ndev || rel % stride >= part_size)
        return (void *)p; /* a guard: stays faulting */
    return (void *)(alias_base + dev * part_size + rel % stride);
}

/* The allocation containing p (start <= p < end), or for n == 0 the one
 * p lies in or just past. */
static struct alloc *find_alloc(uintptr_t p, bool allow_end)
{
    size_t lo = 0, hi = nallocs;

    while (lo < hi) { /* first allocation starting after p */
        size_t mid = (lo + hi) / 2;

        if (allocs[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    struct alloc *a = &allocs[lo - 1];
    if (a->hidden) /* cuMemCreate's memory has no address until mapped */
        return NULL;
    if (p < a->start + a->size || (allow_end && p == a->start + a->size))
        return a;
    return NULL;
}

static struct alloc *find_alloc_base(uintptr_t p)
{
    struct alloc *a = find_alloc(p, false);

    return a && a->start == p ? a : NULL;
}

static CUresult check_dev(const char *what, CUdeviceptr d, size_t n)
{
    uintptr_t p = (uintptr_t)d;
    struct alloc *a;

    if (!in_region(p))
        return err(CUDA_ERROR_INVALID_VALUE,
                   "%s %#" PRIxPTR
                   " is not a device pointer (a host address? the device range is [%#" PRIxPTR
                   ", %#" PRIxPTR "))",
                   what, p, region_base, region_end);
    a = find_alloc(p, n == 0);
    if (!a && p >= vmm_base && p < vmm_end)
        return err(CUDA_ERROR_INVALID_VALUE,
                   "%s %#" PRIxPTR " is a VMM address without access (not cuMemMap'ed, or no "
                   "cuMemSetAccess since)",
                   what, p);
    if (!a)
        return err(
            CUDA_ERROR_INVALID_VALUE,
            "%s %#" PRIxPTR
            " is in the device range but not in a live allocation (freed, or never allocated)",
            what, p);
    if (n > a->start + a->size - p)
        return err(CUDA_ERROR_INVALID_VALUE,
                   "%s: %zu bytes at offset %zu overrun the allocation at %#" PRIxPTR
                   " of %zu bytes",
                   what, n, (size_t)(p - a->start), a->start, a->size);
    return CUDA_SUCCESS;
}

static CUresult check_host(const char *what, const void *h, size_t n)
{
    uintptr_t p = (uintptr_t)h;

    if (n == 0)
        return CUDA_SUCCESS;
    if (!h)
        return err(CUDA_ERROR_INVALID_VALUE, "%s is NULL", what);
    if (p + n < p)
        return err(CUDA_ERROR_INVALID_VALUE, "%s: %zu bytes at %#" PRIxPTR " wrap around", what, n,
                   p);
    if (overlaps_region(p, n))
        return err(CUDA_ERROR_INVALID_VALUE,
                   "%s %#" PRIxPTR " (+%zu) is a device address where a host pointer is expected",
                   what, p, n);
    return CUDA_SUCCESS;
}

static struct hostmem *find_host(uintptr_t p, size_t n)
{
    for (size_t i = 0; i < nhosts; i++)
        if (p >= hosts[i].start && p < hosts[i].start + hosts[i].size &&
            n <= hosts[i].start + hosts[i].size - p)
            return &hosts[i];
    return NULL;
}

static bool host_overlaps(uintptr_t p, size_t n)
{
    for (size_t i = 0; i < nhosts; i++)
        if (p < hosts[i].start + hosts[i].size && p + n > hosts[i].start)
            return true;
    return false;
}

static CUresult add_host(const struct hostmem *h)
{
    if (nhosts == hosts_cap) {
        size_t cap = hosts_cap ? 2 * hosts_cap : 16;
        struct hostmem *n = realloc(hosts, cap * sizeof *n);

        if (!n)
            return err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed");
        hosts = n;
        hosts_cap = cap;
    }
    hosts[nhosts++] = *h;
    return CUDA_SUCCESS;
}

static void remove_host(struct hostmem *h)
{
    size_t i = (size_t)(h - hosts);

    memmove(&hosts[i], &hosts[i + 1], (nhosts - i - 1) * sizeof *hosts);
    nhosts--;
}

static void remove_alloc(struct alloc *a)
{
    size_t i = (size_t)(a - allocs);

    dev_used[a->dev] -= a->rsize;
    memmove(&allocs[i], &allocs[i + 1], (nallocs - i - 1) * sizeof *allocs);
    nallocs--;
}

/* ---------------------------------------------------------------------
 * Initialization, version, errors
 * ------------------------------------------------------------------- */

__attribute__((constructor)) static void cudasim_load(void)
{
    load_config();
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        primary[d].magic = SIM_CTX_MAGIC;
        primary[d].dev = d;
    }
}

__attribute__((destructor)) static void cudasim_unload(void)
{
    if (cfg.trace >= 1 && nallocs)
        say("%zu device allocation(s) still live at unload", nallocs);
    if (cfg.trace >= 1)
        say("%lu cuFlushGPUDirectRDMAWrites call(s)", flush_calls);
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    CUresult r;

    API("cuInit", NEED_NOTHING);
    if (Flags != 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "flags %#x (must be 0)", Flags));
    if (cfg.no_device || cfg.ndev == 0)
        RETURN(err(CUDA_ERROR_NO_DEVICE,
                   "no devices (GDR_CUDASIM_NO_DEVICE / GDR_CUDASIM_DEVICES=0)"));
    r = reserve_region();
    if (r == CUDA_SUCCESS)
        initialized = true;
    RETURN(r);
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    API("cuDriverGetVersion", NEED_NOTHING);
    if (!driverVersion)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "driverVersion is NULL"));
    *driverVersion = cfg.driver_version;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    API("cuGetErrorString", NEED_NOTHING);
    if (!pStr)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pStr is NULL"));
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == error) {
            *pStr = error_table[i].text;
            RETURN(CUDA_SUCCESS);
        }
    *pStr = NULL;
    RETURN(err(CUDA_ERROR_INVALID_VALUE, "unknown error code %d", (int)error));
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    API("cuGetErrorName", NEED_NOTHING);
    if (!pStr)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pStr is NULL"));
    *pStr = error_name(error);
    if (!*pStr)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "unknown error code %d", (int)error));
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------- */

#define CHECK_DEV(dev)                                                                             \
    do {                                                                                           \
        if ((dev) < 0 || (dev) >= cfg.ndev)                                                        \
            RETURN(err(CUDA_ERROR_INVALID_DEVICE, "device %d (have %d)", (int)(dev), cfg.ndev));   \
    } while (0)

static int dev_bus(int dev)
{
    return 0x3b + dev;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    API("cuDeviceGetCount", NEED_INIT);
    if (!count)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "count is NULL"));
    *count = cfg.ndev;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    API("cuDeviceGet", NEED_INIT);
    if (!device)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "device is NULL"));
    CHECK_DEV(ordinal);
    *device = ordinal;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    API("cuDeviceGetName", NEED_INIT);
    if (!name || len <= 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "name %p, len %d", (void *)name, len));
    CHECK_DEV(dev);
    snprintf(name, (size_t)len, "cudasim GPU %d", (int)dev);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    API("cuDeviceGetUuid", NEED_INIT);
    if (!uuid)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "uuid is NULL"));
    CHECK_DEV(dev);
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    memcpy(uuid->bytes, "cudasim-GPU", 11);
    uuid->bytes[15] = (char)dev;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    API("cuDeviceGetPCIBusId", NEED_INIT);
    if (!pciBusId || len <= 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pciBusId %p, len %d", (void *)pciBusId, len));
    CHECK_DEV(dev);
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", 0, dev_bus(dev), 0);
    RETURN(CUDA_SUCCESS);
}

/* [domain:]bus:device[.function], hex */
static bool parse_bus_id(const char *s, unsigned *domain, unsigned *bus, unsigned *device)
{
    unsigned a, b, c, fn = 0;
    int n = 0;
    int colons = 0;

    for (const char *p = s; *p; p++)
        colons += *p == ':';
    if (colons == 2) {
        if (sscanf(s, "%x:%x:%x%n", &a, &b, &c, &n) != 3)
            return false;
        *domain = a, *bus = b, *device = c;
    } else if (colons == 1) {
        if (sscanf(s, "%x:%x%n", &b, &c, &n) != 2)
            return false;
        *domain = 0, *bus = b, *device = c;
    } else {
        return false;
    }
    s += n;
    if (*s == '.') {
        int m = 0;

        if (sscanf(s + 1, "%x%n", &fn, &m) != 1)
            return false;
        s += 1 + m;
    }
    return *s == '\0';
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    unsigned domain, bus, device;

    API("cuDeviceGetByPCIBusId", NEED_INIT);
    if (!dev || !pciBusId)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "dev %p, pciBusId %p", (void *)dev,
                   (const void *)pciBusId));
    if (!parse_bus_id(pciBusId, &domain, &bus, &device))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "'%s' is not a PCI bus id", pciBusId));
    for (int d = 0; d < cfg.ndev; d++)
        if (domain == 0 && bus == (unsigned)dev_bus(d) && device == 0) {
            *dev = d;
            RETURN(CUDA_SUCCESS);
        }
    RETURN(err(CUDA_ERROR_INVALID_DEVICE, "no device at %s", pciBusId));
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    int v;

    API("cuDeviceGetAttribute", NEED_INIT);
    if (!pi)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pi is NULL"));
    CHECK_DEV(dev);
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = dev_bus(dev); break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: v = cfg.dmabuf; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: v = cfg.vmm == VMM_GDR; break;
    /* A C2C-attached GPU (Grace): coherent atomics, its memory a NUMA node,
     * the host's page tables. */
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = cfg.c2c; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: v = cfg.c2c; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG:
        v = cfg.c2c ? CU_DEVICE_NUMA_CONFIG_NUMA_NODE : CU_DEVICE_NUMA_CONFIG_NONE;
        break;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: v = cfg.c2c ? 1 + (int)dev : -1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: v = cfg.flush_options; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: v = cfg.rdma_writes_ordering; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = cfg.vmm != VMM_OFF; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = 132; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = 2; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = 5120; break;
    default: RETURN(err(CUDA_ERROR_INVALID_VALUE, "attribute %d is not simulated", (int)attrib));
    }
    *pi = v;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    API("cuDeviceTotalMem", NEED_INIT);
    if (!bytes)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "bytes is NULL"));
    CHECK_DEV(dev);
    *bytes = cfg.mem_bytes;
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Contexts (primary contexts only)
 * ------------------------------------------------------------------- */

static struct sim_ctx *find_ctx(CUcontext c)
{
    for (int d = 0; d < cfg.ndev; d++)
        if ((CUcontext)&primary[d] == c)
            return &primary[d];
    return NULL;
}

/* The primary context's last release: what it owned goes away. */
static void ctx_teardown(struct sim_ctx *c)
{
    size_t n = 0, bytes = 0;

    sync_all();
    /* VMM memory belongs to the process, not to a context. */
    for (size_t i = nallocs; i-- > 0;)
        if (allocs[i].dev == c->dev && !allocs[i].hidden && !allocs[i].vmm) {
            n++;
            bytes += allocs[i].size;
            remove_alloc(&allocs[i]);
        }
    if (n && cfg.trace >= 1)
        say("device %d: %zu allocation(s), %zu bytes, were still live at the primary context's release",
            c->dev, n, bytes);
    for (struct sim_stream **sp = &streams; *sp;) {
        struct sim_stream *s = *sp;

        if (s->ctx == c) {
            *sp = s->next;
            s->magic = 0;
            free(s);
        } else {
            sp = &s->next;
        }
    }
    for (struct sim_event **ep = &events; *ep;) {
        struct sim_event *e = *ep;

        if (e->ctx == c) {
            *ep = e->next;
            e->magic = 0;
            free(e);
        } else {
            ep = &e->next;
        }
    }
    c->active = false;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    API("cuDevicePrimaryCtxRetain", NEED_INIT);
    if (!pctx)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pctx is NULL"));
    CHECK_DEV(dev);
    primary[dev].refcount++;
    primary[dev].active = true;
    *pctx = (CUcontext)&primary[dev];
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    API("cuDevicePrimaryCtxRelease", NEED_INIT);
    CHECK_DEV(dev);
    if (primary[dev].refcount == 0)
        RETURN(err(CUDA_ERROR_INVALID_CONTEXT, "device %d's primary context is not retained",
                   (int)dev));
    if (--primary[dev].refcount == 0)
        ctx_teardown(&primary[dev]);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    API("cuDevicePrimaryCtxGetState", NEED_INIT);
    if (!flags || !active)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "flags %p, active %p", (void *)flags, (void *)active));
    CHECK_DEV(dev);
    *flags = primary[dev].flags;
    *active = primary[dev].active;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    struct sim_ctx *c = NULL;

    API("cuCtxSetCurrent", NEED_INIT);
    if (ctx && !(c = find_ctx(ctx)))
        RETURN(err(CUDA_ERROR_INVALID_CONTEXT, "%p is not a context", (void *)ctx));
    current = c;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    API("cuCtxGetCurrent", NEED_INIT);
    if (!pctx)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pctx is NULL"));
    *pctx = (CUcontext)current;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    API("cuCtxGetDevice", NEED_CTX);
    if (!device)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "device is NULL"));
    *device = current->dev;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    API("cuCtxSynchronize", NEED_CTX);
    sync_all();
    RETURN(CUDA_SUCCESS);
}

/* Host memory is coherent here, so there is nothing to flush; the double
 * checks the call as the driver does and counts it (trace level 1 says
 * how many at exit). */

#if CUDASIM_API_VERSION >= 11030
CUresult CUDAAPI cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget target,
                                            CUflushGPUDirectRDMAWritesScope scope)
{
    API("cuFlushGPUDirectRDMAWrites", NEED_CTX);
    if (target != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "target %d", (int)target));
    if (scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
        scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "scope %d", (int)scope));
    if (!(cfg.flush_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST))
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED, "the device has no flush option "
                                             "(GDR_CUDASIM_FLUSH_OPTIONS lacks bit 0)"));
    flush_calls++;
    RETURN(CUDA_SUCCESS);
}
#endif

/* ---------------------------------------------------------------------
 * Device memory
 * ------------------------------------------------------------------- */

/* Insert a into the sorted allocation table at index at. */
static CUresult insert_alloc(size_t at, const struct alloc *a)
{
    if (nallocs == allocs_cap) {
        size_t cap = allocs_cap ? 2 * allocs_cap : 64;
        struct alloc *n = realloc(allocs, cap * sizeof *n);

        if (!n)
            return err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed");
        allocs = n;
        allocs_cap = cap;
    }
    memmove(&allocs[at + 1], &allocs[at], (nallocs - at) * sizeof *allocs);
    allocs[at] = *a;
    allocs[at].id = next_alloc_id++;
    nallocs++;
    dev_used[a->dev] += a->rsize;
    return CUDA_SUCCESS;
}

/* bytesize bytes of device dev's memory, first fit: cuMemAlloc's, and
 * (hidden) cuMemCreate's physical memory. */
static CUresult partition_alloc(int dev, size_t bytesize, bool hidden, uintptr_t *start)
{
    size_t rsize, at;
    uintptr_t lo, hi, cand;

    if (bytesize > part_size)
        return err(CUDA_ERROR_OUT_OF_MEMORY, "%zu bytes > device memory (%zu)", bytesize,
                   cfg.mem_bytes);
    rsize = round_up(bytesize, SIM_ALLOC_ALIGN);
    if (dev_used[dev] + rsize > part_size)
        return err(CUDA_ERROR_OUT_OF_MEMORY, "%zu bytes requested, %zu of %zu in use", bytesize,
                   dev_used[dev], cfg.mem_bytes);
    lo = part_base(dev);
    hi = lo + part_size;
    cand = lo;
    at = nallocs;
    for (size_t i = 0; i < nallocs; i++) {
        if (allocs[i].start < lo)
            continue;
        if (allocs[i].start >= hi || allocs[i].start - cand >= rsize) {
            at = i;
            break;
        }
        cand = allocs[i].start + allocs[i].rsize;
    }
    if (hi - cand < rsize)
        return err(CUDA_ERROR_OUT_OF_MEMORY, "%zu bytes: no hole large enough (fragmented)",
                   bytesize);
    struct alloc a = {
        .start = cand, .size = bytesize, .rsize = rsize, .dev = dev, .hidden = hidden};
    CUresult r = insert_alloc(at, &a);
    if (r == CUDA_SUCCESS)
        *start = cand;
    return r;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    uintptr_t cand;
    CUresult r;

    API("cuMemAlloc", NEED_CTX);
    if (!dptr)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "dptr is NULL"));
    if (bytesize == 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "bytesize is 0"));
    if ((r = partition_alloc(current->dev, bytesize, false, &cand)))
        RETURN(r);
    *dptr = (CUdeviceptr)cand;
    if (cfg.trace >= 2)
        say("cuMemAlloc: %zu bytes at %#" PRIxPTR " on device %d", bytesize, cand, current->dev);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr)
{
    struct alloc *a;

    API("cuMemFree", NEED_CTX);
    if (dptr == 0)
        RETURN(CUDA_SUCCESS);
    a = find_alloc_base((uintptr_t)dptr);
    if (a && a->vmm)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "%#" PRIxPTR " is a VMM mapping: cuMemUnmap it, not cuMemFree",
                   (uintptr_t)dptr));
    if (!a)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "%#" PRIxPTR " is not the base of a live allocation (double free? %s)",
                   (uintptr_t)dptr,
                   in_region((uintptr_t)dptr) ? "in the device range" : "a host address"));
    sync_all(); /* cuMemFree waits for work still using it */
    a = find_alloc_base((uintptr_t)dptr);
    if (a)
        remove_alloc(a);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemGetInfo(size_t *free_bytes, size_t *total)
{
    API("cuMemGetInfo", NEED_CTX);
    if (!free_bytes || !total)
        RETURN(
            err(CUDA_ERROR_INVALID_VALUE, "free %p, total %p", (void *)free_bytes, (void *)total));
    *total = cfg.mem_bytes;
    *free_bytes =
        dev_used[current->dev] >= cfg.mem_bytes ? 0 : cfg.mem_bytes - dev_used[current->dev];
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    struct alloc *a;

    API("cuMemGetAddressRange", NEED_CTX);
    a = find_alloc((uintptr_t)dptr, false);
    if (!a)
        RETURN(err(CUDA_ERROR_NOT_FOUND, "%#" PRIxPTR " is not in a live allocation",
                   (uintptr_t)dptr));
    if (pbase)
        *pbase = (CUdeviceptr)a->start;
    if (psize)
        *psize = a->size;
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Virtual memory management (cuMemCreate, cuMemMap, ...)
 *
 * cuMemCreate takes physical memory from the device's partition (a hidden
 * chunk: no device address); cuMemAddressReserve hands out addresses from
 * the part of the device range after the partitions; cuMemMap maps the
 * chunk's pages of the memfd there (PROT_NONE in strict mode, like every
 * device address), and only cuMemSetAccess makes the mapping a device
 * allocation the copies and the NIC accept.
 * ------------------------------------------------------------------- */

struct vmm_handle {
    struct vmm_handle *next;
    uintptr_t phys; /* the hidden chunk's partition address */
    size_t size;
    int dev;
    bool rdma, released;
    int maps;
};

struct vmm_range { /* a reservation or a mapping */
    struct vmm_range *next;
    uintptr_t start;
    size_t size;
    struct vmm_handle *h; /* mappings only */
    bool access;
};

static struct vmm_handle *vmm_handles;
static struct vmm_range *vmm_reserves, *vmm_maps;
static uintptr_t vmm_next; /* the next free reservable address */

static struct vmm_handle *find_handle(CUmemGenericAllocationHandle handle)
{
    for (struct vmm_handle *h = vmm_handles; h; h = h->next)
        if ((CUmemGenericAllocationHandle)(uintptr_t)h == handle && !h->released)
            return h;
    return NULL;
}

/* The memfd offset of partition address p. */
static off_t memfd_offset(int dev, uintptr_t p)
{
    return (off_t)((size_t)dev * part_size + (p - part_base(dev)));
}

static void free_handle(struct vmm_handle *h)
{
    for (struct vmm_handle **hp = &vmm_handles; *hp; hp = &(*hp)->next)
        if (*hp == h) {
            *hp = h->next;
            break;
        }
    for (size_t i = 0; i < nallocs; i++)
        if (allocs[i].hidden && allocs[i].start == h->phys) {
            remove_alloc(&allocs[i]);
            break;
        }
    free(h);
}

/* prop describes pinned device memory on a device that exists. */
static CUresult check_prop(const CUmemAllocationProp *prop)
{
    if (!prop)
        return err(CUDA_ERROR_INVALID_VALUE, "prop is NULL");
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return err(CUDA_ERROR_INVALID_VALUE, "prop->type %d (only PINNED is simulated)",
                   (int)prop->type);
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return err(CUDA_ERROR_INVALID_VALUE, "prop->location.type %d (only DEVICE is simulated)",
                   (int)prop->location.type);
    if (prop->location.id < 0 || prop->location.id >= cfg.ndev)
        return err(CUDA_ERROR_INVALID_DEVICE, "prop->location.id %d (have %d)", prop->location.id,
                   cfg.ndev);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option)
{
    CUresult r;

    API("cuMemGetAllocationGranularity", NEED_INIT);
    if (!granularity)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "granularity is NULL"));
    if ((r = check_prop(prop)))
        RETURN(r);
    if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
        option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "option %d", (int)option));
    *granularity = SIM_VMM_GRANULARITY;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags)
{
    struct vmm_handle *h;
    uintptr_t phys;
    CUresult r;

    API("cuMemCreate", NEED_INIT);
    if (!handle || flags)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "handle %p, flags %#llx", (void *)handle, flags));
    if ((r = check_prop(prop)))
        RETURN(r);
    if (cfg.vmm == VMM_OFF)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED, "no virtual memory management (GDR_CUDASIM_VMM=off)"));
    if (size == 0 || size % SIM_VMM_GRANULARITY)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "size %zu is not a multiple of the granularity (%u bytes)", size,
                   SIM_VMM_GRANULARITY));
    if (prop->allocFlags.gpuDirectRDMACapable && cfg.vmm != VMM_GDR)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED,
                   "gpuDirectRDMACapable: GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED is 0 "
                   "(GDR_CUDASIM_VMM=nogdr)"));
    h = calloc(1, sizeof *h);
    if (!h)
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
    if ((r = partition_alloc(prop->location.id, size, true, &phys))) {
        free(h);
        RETURN(r);
    }
    *h = (struct vmm_handle){.next = vmm_handles,
                             .phys = phys,
                             .size = size,
                             .dev = prop->location.id,
                             .rdma = prop->allocFlags.gpuDirectRDMACapable != 0};
    vmm_handles = h;
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
    if (cfg.trace >= 2)
        say("cuMemCreate: %zu bytes on device %d%s", size, h->dev,
            h->rdma ? ", gpuDirectRDMACapable" : "");
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    struct vmm_handle *h;

    API("cuMemRelease", NEED_INIT);
    if (!(h = find_handle(handle)))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#llx is not a live allocation handle",
                   (unsigned long long)handle));
    /* The memory lives on while it is mapped. */
    h->released = true;
    if (h->maps == 0)
        free_handle(h);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags)
{
    struct vmm_range *v;
    uintptr_t start;

    API("cuMemAddressReserve", NEED_INIT);
    (void)addr; /* a hint only */
    if (!ptr || flags)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "ptr %p, flags %#llx", (void *)ptr, flags));
    if (size == 0 || size % SIM_VMM_GRANULARITY)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "size %zu is not a multiple of the granularity (%u bytes)", size,
                   SIM_VMM_GRANULARITY));
    if (alignment & (alignment - 1))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "alignment %zu is not a power of two", alignment));
    if (!vmm_next)
        vmm_next = vmm_base;
    start = round_up(vmm_next, alignment > SIM_VMM_GRANULARITY ? alignment : SIM_VMM_GRANULARITY);
    if (start > vmm_end || vmm_end - start < size)
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "no %zu bytes of reservable addresses left", size));
    if (!(v = calloc(1, sizeof *v)))
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
    *v = (struct vmm_range){.next = vmm_reserves, .start = start, .size = size};
    vmm_reserves = v;
    vmm_next = start + size;
    *ptr = (CUdeviceptr)start;
    RETURN(CUDA_SUCCESS);
}

/* The mappings overlapping [p, p+n), one by one. */
static struct vmm_range *map_overlapping(uintptr_t p, size_t n, struct vmm_range *after)
{
    for (struct vmm_range *m = after ? after->next : vmm_maps; m; m = m->next)
        if (m->start < p + n && p < m->start + m->size)
            return m;
    return NULL;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    API("cuMemAddressFree", NEED_INIT);
    for (struct vmm_range **vp = &vmm_reserves; *vp; vp = &(*vp)->next) {
        struct vmm_range *v = *vp;

        if (v->start != (uintptr_t)ptr || v->size != size)
            continue;
        if (map_overlapping(v->start, v->size, NULL))
            RETURN(err(CUDA_ERROR_INVALID_VALUE,
                       "%#" PRIxPTR " (+%zu) is still mapped: cuMemUnmap it first", (uintptr_t)ptr,
                       size));
        *vp = v->next;
        free(v);
        RETURN(CUDA_SUCCESS);
    }
    RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " (+%zu) is not a reservation",
               (uintptr_t)ptr, size));
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                          CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    uintptr_t p = (uintptr_t)ptr;
    struct vmm_handle *h;
    struct vmm_range *res = NULL, *m;
    int prot = cfg.strict ? PROT_NONE : PROT_READ | PROT_WRITE;

    API("cuMemMap", NEED_INIT);
    if (flags || offset)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "offset %zu, flags %#llx (both must be 0)", offset,
                   flags));
    if (!(h = find_handle(handle)))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#llx is not a live allocation handle",
                   (unsigned long long)handle));
    if (size == 0 || size % SIM_VMM_GRANULARITY || p % SIM_VMM_GRANULARITY || size > h->size)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "ptr %#" PRIxPTR ", size %zu: not granularity-aligned, or more than the "
                   "handle's %zu bytes",
                   p, size, h->size));
    for (struct vmm_range *v = vmm_reserves; v; v = v->next)
        if (p >= v->start && p - v->start + size <= v->size)
            res = v;
    if (!res)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " (+%zu) is not inside one reservation",
                   p, size));
    if (map_overlapping(p, size, NULL))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " (+%zu) is already mapped", p, size));
    if (!(m = calloc(1, sizeof *m)))
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
    if (mmap((void *)p, size, prot, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, mem_fd,
             memfd_offset(h->dev, h->phys)) == MAP_FAILED) {
        free(m);
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "mmap at %#" PRIxPTR ": %s", p, strerror(errno)));
    }
    *m = (struct vmm_range){.next = vmm_maps, .start = p, .size = size, .h = h};
    vmm_maps = m;
    h->maps++;
    RETURN(CUDA_SUCCESS);
}

/* Make mapping m a device allocation (or stop it being one). */
static CUresult set_access(struct vmm_range *m, bool on)
{
    if (m->access == on)
        return CUDA_SUCCESS;
    if (!on) {
        struct alloc *a = find_alloc(m->start, false);

        if (a && a->vmm)
            remove_alloc(a);
        m->access = false;
        return CUDA_SUCCESS;
    }
    size_t at = 0;
    while (at < nallocs && allocs[at].start < m->start)
        at++;
    struct alloc a = {.start = m->start,
                      .size = m->size,
                      .dev = m->h->dev,
                      .vmm = true,
                      .rdma = m->h->rdma,
                      .alias = alias_base + (uintptr_t)memfd_offset(m->h->dev, m->h->phys)};
    CUresult r = insert_alloc(at, &a);
    if (r == CUDA_SUCCESS)
        m->access = true;
    return r;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                size_t count)
{
    uintptr_t p = (uintptr_t)ptr;
    size_t covered = 0;
    bool on = false;
    CUresult r;

    API("cuMemSetAccess", NEED_INIT);
    if (!desc || count == 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "desc %p, count %zu", (const void *)desc, count));
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || desc[i].location.id < 0 ||
            desc[i].location.id >= cfg.ndev)
            RETURN(err(CUDA_ERROR_INVALID_DEVICE, "desc[%zu]: location type %d, id %d", i,
                       (int)desc[i].location.type, desc[i].location.id));
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            RETURN(err(CUDA_ERROR_INVALID_VALUE, "desc[%zu]: flags %d", i, (int)desc[i].flags));
        on |= desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    for (struct vmm_range *m = map_overlapping(p, size, NULL); m; m = map_overlapping(p, size, m)) {
        if (m->start < p || m->start + m->size > p + size)
            RETURN(err(CUDA_ERROR_INVALID_VALUE,
                       "%#" PRIxPTR " (+%zu) covers part of the mapping at %#" PRIxPTR, p, size,
                       m->start));
        covered += m->size;
    }
    if (size == 0 || covered != size)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " (+%zu) is not all mapped", p, size));
    for (struct vmm_range *m = map_overlapping(p, size, NULL); m; m = map_overlapping(p, size, m))
        if ((r = set_access(m, on)))
            RETURN(r);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    uintptr_t p = (uintptr_t)ptr;
    struct vmm_range *m;

    API("cuMemUnmap", NEED_INIT);
    for (m = map_overlapping(p, size, NULL); m; m = map_overlapping(p, size, m))
        if (m->start < p || m->start + m->size > p + size)
            RETURN(err(CUDA_ERROR_INVALID_VALUE,
                       "%#" PRIxPTR " (+%zu) covers part of the mapping at %#" PRIxPTR, p, size,
                       m->start));
    if (size == 0 || !map_overlapping(p, size, NULL))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " (+%zu) is not mapped", p, size));
    sync_all(); /* work still using it completes first */
    for (struct vmm_range **mp = &vmm_maps; *mp;) {
        m = *mp;
        if (m->start < p || m->start >= p + size) {
            mp = &m->next;
            continue;
        }
        set_access(m, false);
        /* Back to reserved, faulting addresses. */
        mmap((void *)m->start, m->size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        if (--m->h->maps == 0 && m->h->released)
            free_handle(m->h);
        *mp = m->next;
        free(m);
    }
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * For peermem.c (the NIC's view of device memory)
 * ------------------------------------------------------------------- */

enum cudasim_range cudasim_nic_view(uintptr_t p, size_t n, uintptr_t *alias)
{
    enum cudasim_range r = CUDASIM_RANGE_HOST;
    struct alloc *a;

    pthread_mutex_lock(&lock);
    if (overlaps_region(p, n ? n : 1)) {
        a = find_alloc(p, false);
        r = a && n <= a->start + a->size - p ? CUDASIM_RANGE_DEVICE : CUDASIM_RANGE_BAD;
        /* nvidia_peermem takes VMM memory only if it was created for RDMA. */
        if (r == CUDASIM_RANGE_DEVICE && a->vmm && !a->rdma)
            r = CUDASIM_RANGE_NO_RDMA;
        if (r == CUDASIM_RANGE_DEVICE)
            *alias = (uintptr_t)host_view(p);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

uintptr_t cudasim_alias_of(uintptr_t p)
{
    uintptr_t a;

    pthread_mutex_lock(&lock);
    a = (uintptr_t)host_view(p);
    pthread_mutex_unlock(&lock);
    return a == p ? 0 : a;
}

int cudasim_trace_level(void)
{
    return cfg.trace;
}

void cudasim_say(const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    say("%s", buf);
}

/* ---------------------------------------------------------------------
 * Copies and memsets
 * ------------------------------------------------------------------- */

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUresult r;

    API("cuMemcpyHtoD", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, ByteCount)) || (r = check_host("src", srcHost, ByteCount)))
        RETURN(r);
    sync_legacy();
    if (ByteCount)
        memcpy(host_view(dstDevice), srcHost, ByteCount);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUresult r;

    API("cuMemcpyDtoH", NEED_CTX);
    if ((r = check_host("dst", dstHost, ByteCount)) || (r = check_dev("src", srcDevice, ByteCount)))
        RETURN(r);
    sync_legacy();
    if (ByteCount)
        memcpy(dstHost, host_view(srcDevice), ByteCount);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUresult r;

    API("cuMemcpyDtoD", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, ByteCount)) ||
        (r = check_dev("src", srcDevice, ByteCount)))
        RETURN(r);
    sync_legacy();
    if (ByteCount)
        memmove(host_view(dstDevice), host_view(srcDevice), ByteCount);
    RETURN(CUDA_SUCCESS);
}

/* cuMemcpy / cuMemcpyAsync: unified addressing, the kind of each side
 * follows from its address. */
static CUresult check_any(const char *what, CUdeviceptr p, size_t n)
{
    if (in_region((uintptr_t)p))
        return check_dev(what, p, n);
    return check_host(what, (const void *)(uintptr_t)p, n);
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    CUresult r;

    API("cuMemcpy", NEED_CTX);
    if ((r = check_any("dst", dst, ByteCount)) || (r = check_any("src", src, ByteCount)))
        RETURN(r);
    sync_legacy();
    if (ByteCount)
        memmove(host_view(dst), host_view(src), ByteCount);
    RETURN(CUDA_SUCCESS);
}

static bool is_pinned(const void *p, size_t n)
{
    return find_host((uintptr_t)p, n) != NULL;
}

/* An async copy.  Pageable host memory behaves as with the real driver:
 * the source of a host-to-device copy is staged before the call returns,
 * and a device-to-host copy into pageable memory completes before it
 * returns.  Pinned memory is read or written when the copy runs. */
static CUresult copy_async(CUstream hStream, void *dst, bool dst_host, const void *src,
                           bool src_host, size_t n)
{
    struct sim_stream *s = find_stream(hStream);
    struct op op = {.kind = OP_COPY, .dst = dst, .src = src, .n = n};
    CUresult r;

    if (!s)
        return err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream);
    if (n == 0)
        return CUDA_SUCCESS;
    if (cfg.delay_ns && src_host && !is_pinned(src, n)) {
        op.owned = malloc(n);
        if (!op.owned)
            return err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc of %zu bytes failed", n);
        memcpy(op.owned, src, n);
        op.src = op.owned;
    }
    r = enqueue(s, &op);
    if (r == CUDA_SUCCESS && cfg.delay_ns && dst_host && !is_pinned(dst, n))
        wait_until(s->tail_ns);
    return r;
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                   CUstream hStream)
{
    CUresult r;

    API("cuMemcpyHtoDAsync", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, ByteCount)) || (r = check_host("src", srcHost, ByteCount)))
        RETURN(r);
    RETURN(copy_async(hStream, host_view(dstDevice), false, srcHost, true, ByteCount));
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream)
{
    CUresult r;

    API("cuMemcpyDtoHAsync", NEED_CTX);
    if ((r = check_host("dst", dstHost, ByteCount)) || (r = check_dev("src", srcDevice, ByteCount)))
        RETURN(r);
    RETURN(copy_async(hStream, dstHost, true, host_view(srcDevice), false, ByteCount));
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream)
{
    CUresult r;

    API("cuMemcpyDtoDAsync", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, ByteCount)) ||
        (r = check_dev("src", srcDevice, ByteCount)))
        RETURN(r);
    RETURN(
        copy_async(hStream, host_view(dstDevice), false, host_view(srcDevice), false, ByteCount));
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    CUresult r;

    API("cuMemcpyAsync", NEED_CTX);
    if ((r = check_any("dst", dst, ByteCount)) || (r = check_any("src", src, ByteCount)))
        RETURN(r);
    RETURN(copy_async(hStream, host_view(dst), !in_region((uintptr_t)dst), host_view(src),
                      !in_region((uintptr_t)src), ByteCount));
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    CUresult r;

    API("cuMemsetD8", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, N)))
        RETURN(r);
    sync_legacy();
    memset(host_view(dstDevice), uc, N);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    CUresult r;
    struct op op = {.kind = OP_SET32, .n = N, .value = ui};

    API("cuMemsetD32", NEED_CTX);
    if (dstDevice % 4)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "dst %#" PRIxPTR " is not 4-byte aligned",
                   (uintptr_t)dstDevice));
    if (N > SIZE_MAX / 4)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "N %zu is too large", N));
    if ((r = check_dev("dst", dstDevice, 4 * N)))
        RETURN(r);
    op.dst = host_view(dstDevice);
    sync_legacy();
    run_op(&op);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                 CUstream hStream)
{
    CUresult r;
    struct sim_stream *s;
    struct op op = {.kind = OP_SET8, .n = N, .value = uc};

    API("cuMemsetD8Async", NEED_CTX);
    if ((r = check_dev("dst", dstDevice, N)))
        RETURN(r);
    op.dst = host_view(dstDevice);
    if (!(s = find_stream(hStream)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    RETURN(N ? enqueue(s, &op) : CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Host memory
 * ------------------------------------------------------------------- */

static CUresult host_alloc(void **pp, size_t bytesize, unsigned int flags)
{
    size_t len;
    void *p;
    struct hostmem h;
    CUresult r;

    if (!pp)
        return err(CUDA_ERROR_INVALID_VALUE, "pp is NULL");
    if (bytesize == 0)
        return err(CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
    if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED))
        return err(CUDA_ERROR_INVALID_VALUE, "flags %#x", flags);
    len = round_up(bytesize, (size_t)sysconf(_SC_PAGESIZE));
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return err(CUDA_ERROR_OUT_OF_MEMORY, "mmap of %zu bytes: %s", len, strerror(errno));
    h = (struct hostmem){.start = (uintptr_t)p,
                         .size = bytesize,
                         .maplen = len,
                         .owned = true,
                         .flags = flags,
                         .dev = current->dev};
    if ((r = add_host(&h))) {
        munmap(p, len);
        return r;
    }
    *pp = p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    API("cuMemHostAlloc", NEED_CTX);
    RETURN(host_alloc(pp, bytesize, Flags));
}

CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize)
{
    API("cuMemAllocHost", NEED_CTX);
    RETURN(host_alloc(pp, bytesize, 0));
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
    struct hostmem *h;
    void *start;
    size_t len;

    API("cuMemFreeHost", NEED_CTX);
    h = find_host((uintptr_t)p, 0);
    if (!h || !h->owned || h->start != (uintptr_t)p)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%p is not from cuMemHostAlloc/cuMemAllocHost%s", p,
                   h && !h->owned ? " (it is cuMemHostRegister'ed)" : ""));
    sync_all();
    h = find_host((uintptr_t)p, 0);
    if (!h)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%p was freed concurrently", p));
    start = (void *)h->start;
    len = h->maplen;
    remove_host(h);
    munmap(start, len);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    API("cuMemHostGetDevicePointer", NEED_CTX);
    if (!pdptr || Flags != 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pdptr %p, flags %#x", (void *)pdptr, Flags));
    if (!find_host((uintptr_t)p, 0))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%p is not pinned host memory", p));
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    RETURN(CUDA_SUCCESS);
}

/* Every page of [p, p+n) is mapped. */
static bool range_mapped(uintptr_t p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = p / pg * pg;
    size_t len = round_up(p + n - lo, pg);
    unsigned char *vec = malloc(len / pg);
    bool ok;

    if (!vec)
        return true;
    ok = mincore((void *)lo, len, vec) == 0;
    free(vec);
    return ok;
}

CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    struct hostmem h;
    CUresult r;

    API("cuMemHostRegister", NEED_CTX);
    if (!p || bytesize == 0)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "p %p, bytesize %zu", p, bytesize));
    if (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                            CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "flags %#x", Flags));
    if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED, "CU_MEMHOSTREGISTER_IOMEMORY is not simulated"));
    if ((r = check_host("p", p, bytesize)))
        RETURN(r);
    if (host_overlaps((uintptr_t)p, bytesize))
        RETURN(err(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "%p (+%zu) overlaps pinned memory", p,
                   bytesize));
    if (!range_mapped((uintptr_t)p, bytesize))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%p (+%zu) is not all mapped memory", p, bytesize));
    h = (struct hostmem){.start = (uintptr_t)p,
                         .size = bytesize,
                         .owned = false,
                         .flags = Flags,
                         .dev = current->dev};
    RETURN(add_host(&h));
}

CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    struct hostmem *h;

    API("cuMemHostUnregister", NEED_CTX);
    h = find_host((uintptr_t)p, 0);
    if (!h || h->owned || h->start != (uintptr_t)p)
        RETURN(err(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
                   "%p is not the start of a cuMemHostRegister'ed range", p));
    sync_all();
    h = find_host((uintptr_t)p, 0);
    if (h)
        remove_host(h);
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Streams and events
 * ------------------------------------------------------------------- */

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    struct sim_stream *s;

    API("cuStreamCreate", NEED_CTX);
    if (!phStream || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "phStream %p, flags %#x", (void *)phStream, Flags));
    s = calloc(1, sizeof *s);
    if (!s)
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
    s->magic = SIM_STREAM_MAGIC;
    s->ctx = current;
    s->flags = Flags;
    s->next = streams;
    streams = s;
    *phStream = (CUstream)s;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
    struct sim_stream *s = NULL;

    API("cuStreamDestroy", NEED_INIT);
    if (hStream)
        s = find_stream(hStream);
    if (!s || s == &default_stream)
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    /* Work already issued still completes. */
    wait_until(s->tail_ns);
    if (find_stream(hStream) != s)
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p was destroyed concurrently",
                   (void *)hStream));
    for (struct sim_stream **sp = &streams; *sp; sp = &(*sp)->next)
        if (*sp == s) {
            *sp = s->next;
            break;
        }
    progress_stream(s, UINT64_MAX);
    s->magic = 0;
    free(s);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
    struct sim_stream *s;

    API("cuStreamQuery", NEED_INIT);
    if (!(s = find_stream(hStream)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    progress();
    RETURN(s->head || stream_start_ns(s) > now_ns() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
    struct sim_stream *s;

    API("cuStreamSynchronize", NEED_INIT);
    if (!(s = find_stream(hStream)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    wait_until(stream_start_ns(s));
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct sim_stream *s;
    struct sim_event *e;

    API("cuStreamWaitEvent", NEED_INIT);
    if (!(s = find_stream(hStream)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    if (!(e = find_event(hEvent)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event", (void *)hEvent));
    if (Flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "flags %#x", Flags));
    if (e->recorded)
        s->tail_ns = max_u64(s->tail_ns, e->t_ns);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct sim_event *e;

    API("cuEventCreate", NEED_CTX);
    if (!phEvent || (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                                         CU_EVENT_INTERPROCESS)))
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "phEvent %p, flags %#x", (void *)phEvent, Flags));
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        RETURN(
            err(CUDA_ERROR_INVALID_VALUE, "CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING"));
    e = calloc(1, sizeof *e);
    if (!e)
        RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
    e->magic = SIM_EVENT_MAGIC;
    e->ctx = current;
    e->flags = Flags;
    e->next = events;
    events = e;
    *phEvent = (CUevent)e;
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    struct sim_event *e;
    struct sim_stream *s;

    API("cuEventRecord", NEED_INIT);
    if (!(e = find_event(hEvent)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event", (void *)hEvent));
    if (!(s = find_stream(hStream)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)hStream));
    e->recorded = true;
    /* Without a delay an untimed event is done when recorded: no clock. */
    e->t_ns = cfg.delay_ns == 0 && (e->flags & CU_EVENT_DISABLE_TIMING) ? 0 : stream_start_ns(s);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    struct sim_event *e;

    API("cuEventQuery", NEED_INIT);
    if (!(e = find_event(hEvent)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event", (void *)hEvent));
    /* Without a delay everything ran when issued: done, and no clock to
     * read (a real query reads a flag; a clock read can be a system call). */
    if (cfg.delay_ns == 0)
        RETURN(CUDA_SUCCESS);
    progress();
    RETURN(!e->recorded || e->t_ns <= now_ns() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    struct sim_event *e;

    API("cuEventSynchronize", NEED_INIT);
    if (!(e = find_event(hEvent)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event", (void *)hEvent));
    wait_until(e->recorded ? e->t_ns : 0);
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
    API("cuEventDestroy", NEED_INIT);
    for (struct sim_event **ep = &events; *ep; ep = &(*ep)->next)
        if ((CUevent)*ep == hEvent) {
            struct sim_event *e = *ep;

            *ep = e->next;
            e->magic = 0;
            free(e);
            RETURN(CUDA_SUCCESS);
        }
    RETURN(err(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event", (void *)hEvent));
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    struct sim_event *a, *b;
    uint64_t now;

    API("cuEventElapsedTime", NEED_INIT);
    if (!pMilliseconds)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "pMilliseconds is NULL"));
    if (!(a = find_event(hStart)) || !(b = find_event(hEnd)))
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "%p / %p: not live events", (void *)hStart,
                   (void *)hEnd));
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "an event was created with CU_EVENT_DISABLE_TIMING"));
    if (!a->recorded || !b->recorded)
        RETURN(err(CUDA_ERROR_INVALID_HANDLE, "an event has not been recorded"));
    progress();
    now = now_ns();
    if (a->t_ns > now || b->t_ns > now)
        RETURN(CUDA_ERROR_NOT_READY);
    *pMilliseconds = (float)(((double)b->t_ns - (double)a->t_ns) / 1e6);
    RETURN(CUDA_SUCCESS);
}

/* ---------------------------------------------------------------------
 * Pointer attributes, dma-buf export
 * ------------------------------------------------------------------- */

/* Fill one attribute; returns CUDA_ERROR_INVALID_VALUE for a pointer the
 * simulator does not know (the caller decides what that means). */
static CUresult pointer_attr(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    struct alloc *a = find_alloc(p, false);
    struct hostmem *h = a ? NULL : find_host(p, 0);
    int dev;

    if (!a && !h)
        return CUDA_ERROR_INVALID_VALUE;
    dev = a ? a->dev : h->dev;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = (CUcontext)&primary[dev]; break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = a ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (a)
            return err(CUDA_ERROR_INVALID_VALUE, "device memory has no host pointer");
        *(void **)data = (void *)p;
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(bool *)data = a ? a->sync_memops : true; break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = a ? a->id : (unsigned long long)h->start;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(bool *)data = false; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = dev; break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: *(bool *)data = a != NULL; break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)(a ? a->start : h->start);
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = a ? a->size : h->size; break;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(bool *)data = true; break;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *(bool *)data = a != NULL; break;
    default:
        return err(CUDA_ERROR_INVALID_VALUE, "pointer attribute %d is not simulated",
                   (int)attribute);
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    CUresult r;

    API("cuPointerGetAttribute", NEED_INIT);
    if (!data)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "data is NULL"));
    r = pointer_attr(data, attribute, ptr);
    if (r == CUDA_ERROR_INVALID_VALUE && !find_alloc((uintptr_t)ptr, false) &&
        !find_host((uintptr_t)ptr, 0))
        RETURN(err(r, "%#" PRIxPTR " is neither device memory nor pinned host memory%s",
                   (uintptr_t)ptr, in_region((uintptr_t)ptr) ? " (freed device memory?)" : ""));
    RETURN(r);
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                        void **data, CUdeviceptr ptr)
{
    bool known;

    API("cuPointerGetAttributes", NEED_INIT);
    if (!attributes || !data)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "attributes %p, data %p", (void *)attributes,
                   (void *)data));
    known = find_alloc((uintptr_t)ptr, false) || find_host((uintptr_t)ptr, 0);
    for (unsigned int i = 0; i < numAttributes; i++) {
        if (!data[i])
            RETURN(err(CUDA_ERROR_INVALID_VALUE, "data[%u] is NULL", i));
        if (known) {
            CUresult r = pointer_attr(data[i], attributes[i], ptr);

            if (r != CUDA_SUCCESS)
                RETURN(r);
            continue;
        }
        /* unknown pointers get default values, not an error */
        switch (attributes[i]) {
        case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned int *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_HOST_POINTER: *(void **)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        case CU_POINTER_ATTRIBUTE_MAPPED:
        case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *(bool *)data[i] = false; break;
        default:
            RETURN(err(CUDA_ERROR_INVALID_VALUE, "pointer attribute %d is not simulated",
                       (int)attributes[i]));
        }
    }
    RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
                                       CUdeviceptr ptr)
{
    struct alloc *a;

    API("cuPointerSetAttribute", NEED_INIT);
    if (!value)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "value is NULL"));
    if (attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "only CU_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set (got %d)", (int)attribute));
    a = find_alloc((uintptr_t)ptr, false);
    if (!a)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "%#" PRIxPTR " is not in a live device allocation",
                   (uintptr_t)ptr));
    /* As the driver: VMM memory takes no pointer attributes (a context's
     * CU_CTX_SYNC_MEMOPS, or a synchronize, does that job). */
    if (a->vmm)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED,
                   "%#" PRIxPTR " is VMM memory (cuMemMap): SYNC_MEMOPS cannot be set on it",
                   (uintptr_t)ptr));
    /* the value is an unsigned int holding 0 or 1 */
    a->sync_memops = *(const unsigned int *)value != 0;
    RETURN(CUDA_SUCCESS);
}

#if CUDASIM_API_VERSION >= 11070
/* A dma-buf export (GDR_CUDASIM_DMABUF=1) is a memfd standing for the
 * range: the preloaded double's ibv_reg_dmabuf_mr (peermem.c) knows it by
 * its inode and registers the range's alias; the kernel takes it for no
 * dma-buf, so without the preload the registration fails as on a NIC
 * without dma-buf support. */
struct dmabuf_export {
    ino_t ino;
    uintptr_t start;
    size_t size;
    bool pcie;
};
static struct dmabuf_export *exports;
static size_t nexports, exports_cap;

CUresult CUDAAPI cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr, size_t size,
                                               CUmemRangeHandleType handleType,
                                               unsigned long long flags)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bool pcie = flags & CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE;
    struct alloc *a;
    struct stat st;
    CUresult r;
    int fd;

    API("cuMemGetHandleForAddressRange", NEED_CTX);
    if (!handle || handleType != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "handle %p, handleType %d", handle, (int)handleType));
    if (flags & ~(unsigned long long)CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE)
        RETURN(err(CUDA_ERROR_INVALID_VALUE, "flags %#llx", flags));
    if (pcie && cfg.dmabuf_pcie != CUDA_SUCCESS)
        RETURN(err(cfg.dmabuf_pcie, "CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE: %s",
                   cfg.dmabuf_pcie == CUDA_ERROR_INVALID_VALUE
                       ? "this driver does not know the flag (GDR_CUDASIM_DMABUF_PCIE=unknown)"
                       : "no PCIe mapping on this platform (not C2C, or "
                         "GDR_CUDASIM_DMABUF_PCIE=unsupported)"));
    if ((r = check_dev("dptr", dptr, size)))
        RETURN(r);
    if (dptr % page || size % page)
        RETURN(err(CUDA_ERROR_INVALID_VALUE,
                   "dptr %#" PRIxPTR " (+%zu) is not aligned to the host page size (%zu)",
                   (uintptr_t)dptr, size, page));
    if (!cfg.dmabuf)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED,
                   "dma-buf export is off (GDR_CUDASIM_DMABUF=1 turns it on)"));
    a = find_alloc((uintptr_t)dptr, false);
    if (a->vmm && !a->rdma)
        RETURN(err(CUDA_ERROR_NOT_SUPPORTED,
                   "VMM memory created without gpuDirectRDMACapable cannot be exported"));
    if (nexports == exports_cap) {
        size_t cap = exports_cap ? 2 * exports_cap : 16;
        struct dmabuf_export *n = realloc(exports, cap * sizeof *n);

        if (!n)
            RETURN(err(CUDA_ERROR_OUT_OF_MEMORY, "host malloc failed"));
        exports = n;
        exports_cap = cap;
    }
    fd = (int)syscall(SYS_memfd_create, "cudasim-dmabuf", 1u /* MFD_CLOEXEC */);
    if (fd < 0 || fstat(fd, &st) != 0) {
        r = err(CUDA_ERROR_OUT_OF_MEMORY, "memfd_create: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        RETURN(r);
    }
    exports[nexports++] =
        (struct dmabuf_export){.ino = st.st_ino, .start = dptr, .size = size, .pcie = pcie};
    *(int *)handle = fd;
    if (cfg.trace >= 2)
        say("cuMemGetHandleForAddressRange: dma-buf fd %d for %#" PRIxPTR " (+%zu), %s mapping", fd,
            (uintptr_t)dptr, size, pcie ? "PCIe" : "default");
    RETURN(CUDA_SUCCESS);
}

int cudasim_dmabuf_view(int fd, uint64_t offset, size_t length, uintptr_t *addr, uintptr_t *alias,
                        bool *pcie)
{
    struct stat st;
    int r = 0;

    if (fstat(fd, &st) != 0)
        return 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nexports; i++) {
        struct dmabuf_export *e = &exports[i];
        struct alloc *a;

        if (e->ino != st.st_ino)
            continue;
        r = -1;
        if (offset > e->size || length > e->size - offset)
            break;
        /* The allocation must still be there, as the exporter's pages. */
        a = find_alloc(e->start + offset, false);
        if (!a || length > a->start + a->size - (e->start + offset))
            break;
        *addr = e->start + offset;
        *alias = (uintptr_t)host_view(*addr);
        *pcie = e->pcie;
        r = 1;
        break;
    }
    pthread_mutex_unlock(&lock);
    return r;
}
#else
int cudasim_dmabuf_view(int fd, uint64_t offset, size_t length, uintptr_t *addr, uintptr_t *alias,
                        bool *pcie)
{
    (void)fd, (void)offset, (void)length, (void)addr, (void)alias, (void)pcie;
    return 0;
}
#endif

/* ---------------------------------------------------------------------
 * Plain (unversioned) names
 *
 * The real libcuda.so.1 exports the unversioned names with their original
 * ABI (for the memory calls: 32-bit CUdeviceptr and sizes).  Here they
 * take the versioned ABI, so a program that dlsym()s "cuMemAlloc" works;
 * with GDR_CUDASIM_STRICT_ABI=1 the ones whose real ABI differs fail with
 * CUDA_ERROR_NOT_SUPPORTED instead, to catch a program that would break
 * on a real driver.  cuGetProcAddress is the 4-argument original.
 * ------------------------------------------------------------------- */

static CUresult legacy_check(const char *name)
{
    if (!cfg.strict_abi)
        return CUDA_SUCCESS;
    api_name = name;
    return err(CUDA_ERROR_NOT_SUPPORTED,
               "the unversioned symbol has the legacy 32-bit ABI in the real driver; "
               "use %s_v2 or cuGetProcAddress (GDR_CUDASIM_STRICT_ABI)",
               name);
}

#define LEGACY(name)                                                                               \
    do {                                                                                           \
        CUresult legacy_ = legacy_check(name);                                                     \
        if (legacy_ != CUDA_SUCCESS)                                                               \
            return legacy_;                                                                        \
    } while (0)

/* Same ABI as the versioned symbol: an alias. */
#define ALIAS(plain, versioned)                                                                    \
    extern __typeof__(versioned) plain __attribute__((alias(#versioned)));

#undef cuDeviceTotalMem
#undef cuMemGetInfo
#undef cuMemAlloc
#undef cuMemFree
#undef cuMemGetAddressRange
#undef cuMemAllocHost
#undef cuMemHostGetDevicePointer
#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemcpyDtoD
#undef cuMemcpyHtoDAsync
#undef cuMemcpyDtoHAsync
#undef cuMemcpyDtoDAsync
#undef cuMemsetD8
#undef cuMemsetD32
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuMemHostRegister
#undef cuDevicePrimaryCtxRelease
#undef cuDeviceGetUuid
#undef cuGetProcAddress

ALIAS(cuStreamDestroy, cuStreamDestroy_v2)
ALIAS(cuEventDestroy, cuEventDestroy_v2)
ALIAS(cuEventElapsedTime, cuEventElapsedTime_v2)
ALIAS(cuMemHostRegister, cuMemHostRegister_v2)
ALIAS(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2)
ALIAS(cuDeviceGetUuid, cuDeviceGetUuid_v2)

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuMemGetInfo(size_t *free_bytes, size_t *total);
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr);
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize);
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags);
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                   CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream);
CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N);
#if CUDASIM_API_VERSION >= 11030
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags);
#endif

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    LEGACY("cuDeviceTotalMem");
    return cuDeviceTotalMem_v2(bytes, dev);
}

CUresult CUDAAPI cuMemGetInfo(size_t *free_bytes, size_t *total)
{
    LEGACY("cuMemGetInfo");
    return cuMemGetInfo_v2(free_bytes, total);
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    LEGACY("cuMemAlloc");
    return cuMemAlloc_v2(dptr, bytesize);
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr)
{
    LEGACY("cuMemFree");
    return cuMemFree_v2(dptr);
}

CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    LEGACY("cuMemGetAddressRange");
    return cuMemGetAddressRange_v2(pbase, psize, dptr);
}

CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize)
{
    LEGACY("cuMemAllocHost");
    return cuMemAllocHost_v2(pp, bytesize);
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    LEGACY("cuMemHostGetDevicePointer");
    return cuMemHostGetDevicePointer_v2(pdptr, p, Flags);
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    LEGACY("cuMemcpyHtoD");
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    LEGACY("cuMemcpyDtoH");
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    LEGACY("cuMemcpyDtoD");
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                   CUstream hStream)
{
    LEGACY("cuMemcpyHtoDAsync");
    return cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream);
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream)
{
    LEGACY("cuMemcpyDtoHAsync");
    return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream);
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream)
{
    LEGACY("cuMemcpyDtoDAsync");
    return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream);
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    LEGACY("cuMemsetD8");
    return cuMemsetD8_v2(dstDevice, uc, N);
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    LEGACY("cuMemsetD32");
    return cuMemsetD32_v2(dstDevice, ui, N);
}

#if CUDASIM_API_VERSION >= 11030
/* ---------------------------------------------------------------------
 * cuGetProcAddress
 * ------------------------------------------------------------------- */

struct proc {
    const char *name; /* base name, as callers pass it */
    int since;        /* first CUDA version with the entry point */
    void *v1;         /* for cudaVersion < v2_since (or always) */
    int v2_since;     /* 0: no versioned variant */
    void *v2;
};

#define P1(name, since)                                                                            \
    {                                                                                              \
#name, since, (void *)name, 0, NULL                                                        \
    }
#define P2(name, since, v2since, v2name)                                                           \
    {                                                                                              \
#name, since, (void *)name, v2since, (void *)v2name                                        \
    }

static const struct proc procs[] = {
    P1(cuInit, 2000),
    P1(cuDriverGetVersion, 2020),
    P1(cuGetErrorString, 6000),
    P1(cuGetErrorName, 6000),
    P2(cuGetProcAddress, 11030, 12000, cuGetProcAddress_v2),
    P1(cuDeviceGetCount, 2000),
    P1(cuDeviceGet, 2000),
    P1(cuDeviceGetName, 2000),
    P2(cuDeviceGetUuid, 9020, 11040, cuDeviceGetUuid_v2),
    P1(cuDeviceGetPCIBusId, 4010),
    P1(cuDeviceGetByPCIBusId, 4010),
    P1(cuDeviceGetAttribute, 2000),
    P2(cuDeviceTotalMem, 2000, 3020, cuDeviceTotalMem_v2),
    P1(cuDevicePrimaryCtxRetain, 7000),
    P2(cuDevicePrimaryCtxRelease, 7000, 11000, cuDevicePrimaryCtxRelease_v2),
    P1(cuDevicePrimaryCtxGetState, 7000),
    P1(cuCtxSetCurrent, 4000),
    P1(cuCtxGetCurrent, 4000),
    P1(cuCtxGetDevice, 2000),
    P1(cuCtxSynchronize, 2000),
    P2(cuMemAlloc, 2000, 3020, cuMemAlloc_v2),
    P2(cuMemFree, 2000, 3020, cuMemFree_v2),
    P2(cuMemGetInfo, 2000, 3020, cuMemGetInfo_v2),
    P2(cuMemGetAddressRange, 2000, 3020, cuMemGetAddressRange_v2),
    P2(cuMemsetD8, 2000, 3020, cuMemsetD8_v2),
    P2(cuMemsetD32, 2000, 3020, cuMemsetD32_v2),
    P1(cuMemsetD8Async, 3020),
    P1(cuMemcpy, 4000),
    P1(cuMemcpyAsync, 4000),
    P2(cuMemcpyHtoD, 2000, 3020, cuMemcpyHtoD_v2),
    P2(cuMemcpyDtoH, 2000, 3020, cuMemcpyDtoH_v2),
    P2(cuMemcpyDtoD, 2000, 3020, cuMemcpyDtoD_v2),
    P2(cuMemcpyHtoDAsync, 2000, 3020, cuMemcpyHtoDAsync_v2),
    P2(cuMemcpyDtoHAsync, 2000, 3020, cuMemcpyDtoHAsync_v2),
    P2(cuMemcpyDtoDAsync, 3000, 3020, cuMemcpyDtoDAsync_v2),
    P1(cuMemHostAlloc, 2020),
    P2(cuMemAllocHost, 2000, 3020, cuMemAllocHost_v2),
    P1(cuMemFreeHost, 2000),
    P2(cuMemHostGetDevicePointer, 2020, 3020, cuMemHostGetDevicePointer_v2),
    P2(cuMemHostRegister, 4000, 6050, cuMemHostRegister_v2),
    P1(cuMemHostUnregister, 4000),
    P1(cuStreamCreate, 2000),
    P2(cuStreamDestroy, 2000, 4000, cuStreamDestroy_v2),
    P1(cuStreamSynchronize, 2000),
    P1(cuStreamQuery, 2000),
    P1(cuStreamWaitEvent, 3020),
    P1(cuEventCreate, 2000),
    P1(cuEventRecord, 2000),
    P1(cuEventQuery, 2000),
    P1(cuEventSynchronize, 2000),
    P2(cuEventDestroy, 2000, 4000, cuEventDestroy_v2),
    P2(cuEventElapsedTime, 2000, 12080, cuEventElapsedTime_v2),
    P1(cuPointerGetAttribute, 4000),
    P1(cuPointerGetAttributes, 7000),
    P1(cuPointerSetAttribute, 6000),
#if CUDASIM_API_VERSION >= 11070
    P1(cuMemGetHandleForAddressRange, 11070),
#endif
    P1(cuFlushGPUDirectRDMAWrites, 11030),
    P1(cuMemGetAllocationGranularity, 10020),
    P1(cuMemCreate, 10020),
    P1(cuMemRelease, 10020),
    P1(cuMemAddressReserve, 10020),
    P1(cuMemAddressFree, 10020),
    P1(cuMemMap, 10020),
    P1(cuMemUnmap, 10020),
    P1(cuMemSetAccess, 10020),
};

static CUresult get_proc(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                         CUdriverProcAddressQueryResult *status)
{
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (!symbol || !pfn)
        return err(CUDA_ERROR_INVALID_VALUE, "symbol %p, pfn %p", (const void *)symbol,
                   (void *)pfn);
    *pfn = NULL;
    if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                              CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
        return err(CUDA_ERROR_INVALID_VALUE, "flags %#llx", (unsigned long long)flags);
    if (cudaVersion <= 0)
        return err(CUDA_ERROR_INVALID_VALUE, "cudaVersion %d", cudaVersion);
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        const struct proc *p = &procs[i];

        if (strcmp(p->name, symbol))
            continue;
        if (cudaVersion < p->since) {
            if (status)
                *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
            return err(CUDA_ERROR_NOT_FOUND, "%s needs cudaVersion >= %d (asked for %d)", symbol,
                       p->since, cudaVersion);
        }
        *pfn = p->v2 && cudaVersion >= p->v2_since ? p->v2 : p->v1;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    return err(CUDA_ERROR_NOT_FOUND, "'%s' is not simulated%s", symbol,
               strstr(symbol, "_v") ? " (pass the base name, without _vN)" : "");
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    API("cuGetProcAddress", NEED_NOTHING);
    RETURN(get_proc(symbol, pfn, cudaVersion, flags, symbolStatus));
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    API("cuGetProcAddress", NEED_NOTHING);
    RETURN(get_proc(symbol, pfn, cudaVersion, flags, NULL));
}
#endif
