/* nvmlsim.c - an NVML test double, built as libnvidia-ml.so.1.
 *
 * The devices are the CUDA double's (tests/cudasim): GPU k at PCI bus
 * 0x3b + k, GDR_NVMLSIM_DEVICES of them (default GDR_CUDASIM_DEVICES, else
 * 1). Strict where NVML is: every query before nvmlInit_v2 or after the
 * last nvmlShutdown answers NVML_ERROR_UNINITIALIZED, a handle that did
 * not come from a lookup (or came from before a shutdown) is
 * NVML_ERROR_INVALID_ARGUMENT, a bus id no device has is
 * NVML_ERROR_NOT_FOUND, and ECC error counts are NVML_ERROR_NOT_SUPPORTED
 * with ECC off. Only the versioned entry points a current driver exports
 * are here (nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2).
 *
 * Failure injection (read at nvmlInit_v2):
 *   GDR_NVMLSIM_INIT=ERR        nvmlInit_v2 returns ERR (9: driver not loaded)
 *   GDR_NVMLSIM_THROTTLE=MASK   clock-throttle reasons (hex; 0x8 hw slowdown)
 *   GDR_NVMLSIM_ECC=0|1         ECC mode (default 1)
 *   GDR_NVMLSIM_ECC_ERRORS=N    volatile uncorrected ECC errors (default 0)
 *   GDR_NVMLSIM_ECC_RISE=N      ... and they grow N per query (default 0)
 *   GDR_NVMLSIM_TEMP=C          the GPU's temperature, Celsius (default 45)
 *   GDR_NVMLSIM_MIG=0|1         MIG mode (default 0)
 *   GDR_NVMLSIM_PSTATE=N        P-state (default 0)
 *   GDR_NVMLSIM_PCIE=GEN,WIDTH  current link (default 4,16; max 4,16)
 *   GDR_NVMLSIM_REPLAYS=N       the PCIe replay counter grows N per query
 *   GDR_NVMLSIM_FAIL=NAME       that entry point returns NVML_ERROR_UNKNOWN
 *   GDR_NVMLSIM_LOG=FILE        one line per call
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXPORT __attribute__((visibility("default")))

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_UNKNOWN = 999,
};

#define MAX_DEV 8
#define MAX_BANKS 64
struct sim_dev {
    unsigned magic, bus;
    unsigned replays;
    unsigned long long ecc_risen; /* GDR_NVMLSIM_ECC_RISE's errors so far */
};
/* Each nvmlInit_v2 after a full shutdown hands out handles from a new
 * bank, and the old banks stay allocated (and reachable), so a handle
 * kept past nvmlShutdown is recognised, not a use after free. */
static struct sim_dev *banks[MAX_BANKS], *devs;
static int nbanks, ndev, refs;
static struct {
    int init_err, ecc, mig, pstate;
    unsigned long long throttle, ecc_errors, ecc_rise;
    unsigned gen, width, replays_step, temp;
    char fail[64];
    FILE *log;
} cfg;

static long env_num(const char *name, long def, int base)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, base) : def;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    if (!cfg.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(cfg.log, fmt, ap);
    va_end(ap);
    fputc('\n', cfg.log);
    fflush(cfg.log);
}

/* The entry guard: initialised, not told to fail, a live handle. */
static int enter(const char *name, const struct sim_dev *d, int need_dev)
{
    int rc = NVML_SUCCESS;
    if (refs <= 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (need_dev && (!d || d < devs || d >= devs + ndev || d->magic != 0x6e766d6c))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    else if (cfg.fail[0] && strcmp(cfg.fail, name) == 0)
        rc = NVML_ERROR_UNKNOWN;
    logf_("%s -> %d", name, rc);
    return rc;
}

EXPORT int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    if (refs > 0) {
        refs++;
        return NVML_SUCCESS;
    }
    const char *log = getenv("GDR_NVMLSIM_LOG");
    if (log && *log && !cfg.log)
        cfg.log = fopen(log, "a");
    cfg.init_err = (int)env_num("GDR_NVMLSIM_INIT", 0, 10);
    if (cfg.init_err) {
        logf_("nvmlInit_v2 -> %d (injected)", cfg.init_err);
        return cfg.init_err;
    }
    cfg.ecc = (int)env_num("GDR_NVMLSIM_ECC", 1, 10);
    cfg.ecc_errors = (unsigned long long)env_num("GDR_NVMLSIM_ECC_ERRORS", 0, 10);
    cfg.ecc_rise = (unsigned long long)env_num("GDR_NVMLSIM_ECC_RISE", 0, 10);
    cfg.temp = (unsigned)env_num("GDR_NVMLSIM_TEMP", 45, 10);
    cfg.mig = (int)env_num("GDR_NVMLSIM_MIG", 0, 10);
    cfg.pstate = (int)env_num("GDR_NVMLSIM_PSTATE", 0, 10);
    cfg.throttle = (unsigned long long)env_num("GDR_NVMLSIM_THROTTLE", 0, 16);
    cfg.replays_step = (unsigned)env_num("GDR_NVMLSIM_REPLAYS", 0, 10);
    cfg.gen = 4;
    cfg.width = 16;
    const char *pcie = getenv("GDR_NVMLSIM_PCIE");
    if (pcie && sscanf(pcie, "%u,%u", &cfg.gen, &cfg.width) != 2)
        cfg.gen = 4, cfg.width = 16;
    snprintf(cfg.fail, sizeof(cfg.fail), "%s",
             getenv("GDR_NVMLSIM_FAIL") ? getenv("GDR_NVMLSIM_FAIL") : "");
    ndev = (int)env_num("GDR_NVMLSIM_DEVICES", env_num("GDR_CUDASIM_DEVICES", 1, 10), 10);
    if (ndev < 0 || ndev > MAX_DEV)
        ndev = 1;
    if (nbanks == MAX_BANKS)
        return NVML_ERROR_UNKNOWN; /* a test that starts NVML 64 times */
    devs = banks[nbanks++] = calloc(MAX_DEV, sizeof(*devs));
    if (!devs)
        return NVML_ERROR_UNKNOWN;
    for (int k = 0; k < ndev; k++)
        devs[k] = (struct sim_dev){.magic = 0x6e766d6c, .bus = 0x3b + (unsigned)k};
    refs = 1;
    logf_("nvmlInit_v2 -> 0 (%d devices)", ndev);
    return NVML_SUCCESS;
}

EXPORT int nvmlShutdown(void);
int nvmlShutdown(void)
{
    int rc = enter("nvmlShutdown", NULL, 0);
    if (rc)
        return rc;
    if (--refs == 0)
        devs = NULL; /* every handle given out so far is dead */
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(int rc);
const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

/* "0000:3b:00.0", "00000000:3B:00.0" or "3b:00.0", any case. */
EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, struct sim_dev **dev);
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, struct sim_dev **dev)
{
    int rc = enter("nvmlDeviceGetHandleByPciBusId_v2", NULL, 0);
    if (rc)
        return rc;
    unsigned dom = 0, bus, d, f;
    if (!bus_id || !dev ||
        (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &d, &f) != 4 &&
         sscanf(bus_id, "%x:%x.%x", &bus, &d, &f) != 3))
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int k = 0; k < ndev; k++)
        if (dom == 0 && devs[k].bus == bus && d == 0 && f == 0) {
            *dev = &devs[k];
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

#define QUERY(name, dev, ...)                                                                      \
    EXPORT int name(struct sim_dev *dev, __VA_ARGS__);                                             \
    int name(struct sim_dev *dev, __VA_ARGS__)

QUERY(nvmlDeviceGetPerformanceState, dev, int *p)
{
    int rc = enter(__func__, dev, 1);
    if (!rc && !p)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc)
        *p = cfg.pstate;
    return rc;
}

QUERY(nvmlDeviceGetClockInfo, dev, int type, unsigned *mhz)
{
    int rc = enter(__func__, dev, 1);
    if (!rc && (!mhz || (type != 1 && type != 2 && type != 0)))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc) /* a throttled GPU runs its SM clock lower */
        *mhz = type == 2 ? 2619 : (cfg.throttle & 0x1fc) ? 1005 : 1980;
    return rc;
}

QUERY(nvmlDeviceGetCurrPcieLinkGeneration, dev, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = cfg.gen;
    return rc;
}

QUERY(nvmlDeviceGetCurrPcieLinkWidth, dev, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = cfg.width;
    return rc;
}

QUERY(nvmlDeviceGetMaxPcieLinkGeneration, dev, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = 4;
    return rc;
}

QUERY(nvmlDeviceGetMaxPcieLinkWidth, dev, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = 16;
    return rc;
}

QUERY(nvmlDeviceGetCurrentClocksThrottleReasons, dev, unsigned long long *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = cfg.throttle;
    return rc;
}

QUERY(nvmlDeviceGetPersistenceMode, dev, int *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *v = 1;
    return rc;
}

QUERY(nvmlDeviceGetEccMode, dev, int *current, int *pending)
{
    int rc = enter(__func__, dev, 1);
    if (!rc && (!current || !pending))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc)
        *current = *pending = cfg.ecc;
    return rc;
}

QUERY(nvmlDeviceGetTotalEccErrors, dev, int type, int counter, unsigned long long *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc && (!v || type < 0 || type > 1 || counter < 0 || counter > 1))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc && !cfg.ecc)
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (!rc && type == 1)
        dev->ecc_risen += cfg.ecc_rise;
    if (!rc)
        *v = type == 1 ? cfg.ecc_errors + dev->ecc_risen : 0;
    return rc;
}

/* Only the GPU die's sensor (NVML_TEMPERATURE_GPU, 0) exists. */
QUERY(nvmlDeviceGetTemperature, dev, int sensor, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc && (!v || sensor != 0))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc)
        *v = cfg.temp;
    return rc;
}

QUERY(nvmlDeviceGetMigMode, dev, unsigned *current, unsigned *pending)
{
    int rc = enter(__func__, dev, 1);
    if (!rc)
        *current = *pending = (unsigned)cfg.mig;
    return rc;
}

QUERY(nvmlDeviceGetPcieReplayCounter, dev, unsigned *v)
{
    int rc = enter(__func__, dev, 1);
    if (!rc) {
        dev->replays += cfg.replays_step;
        *v = dev->replays;
    }
    return rc;
}
