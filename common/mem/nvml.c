/* nvml.c - a GPU's state through the dlopen'd NVML (see nvml.h). */
#include "config.h"

#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVML's ABI, as nvml.h declares it: an int return code, opaque device
 * handles, versioned entry points where NVML has them. */
typedef int nvml_return;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_TEMPERATURE_GPU 0

struct gdr_nvml_api {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*by_bus_id)(const char *, nvml_device *);
    nvml_return (*pstate)(nvml_device, int *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*cur_gen)(nvml_device, unsigned *);
    nvml_return (*cur_width)(nvml_device, unsigned *);
    nvml_return (*max_gen)(nvml_device, unsigned *);
    nvml_return (*max_width)(nvml_device, unsigned *);
    nvml_return (*throttle)(nvml_device, unsigned long long *);
    nvml_return (*persistence)(nvml_device, int *);
    nvml_return (*ecc_mode)(nvml_device, int *, int *);
    nvml_return (*ecc_errors)(nvml_device, int, int, unsigned long long *);
    nvml_return (*mig_mode)(nvml_device, unsigned *, unsigned *);
    nvml_return (*replays)(nvml_device, unsigned *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
};

static struct gdr_nvml_api api;

static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

static void why_nvml(struct gdr_gpu_state *st, const char *call, nvml_return rc)
{
    const char *msg = api.error_string ? api.error_string(rc) : NULL;
    snprintf(st->why, sizeof(st->why), "NVML %s: %s (%d)", call, msg ? msg : "error", rc);
}

void gdr_nvml_open(struct gdr_nvml *n, const char *libname, const char *bus_id,
                   struct gdr_gpu_state *st)
{
    memset(n, 0, sizeof(*n));
    memset(st, 0, sizeof(*st));
    st->persistence = st->ecc = st->mig = -1;
    st->ecc_uncorrected = -1;
    const char *name = libname ? libname : "libnvidia-ml.so.1";
    n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        snprintf(st->why, sizeof(st->why), "no NVML: %s", dlerror());
        return;
    }
    memset(&api, 0, sizeof(api));
    api.init = (nvml_return(*)(void))sym(n->lib, "nvmlInit_v2");
    api.shutdown = (nvml_return(*)(void))sym(n->lib, "nvmlShutdown");
    api.error_string = (const char *(*)(nvml_return))sym(n->lib, "nvmlErrorString");
    api.by_bus_id = (nvml_return(*)(const char *, nvml_device *))sym(
        n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    api.pstate = (nvml_return(*)(nvml_device, int *))sym(n->lib, "nvmlDeviceGetPerformanceState");
    api.clock = (nvml_return(*)(nvml_device, int, unsigned *))sym(n->lib, "nvmlDeviceGetClockInfo");
    api.cur_gen =
        (nvml_return(*)(nvml_device, unsigned *))sym(n->lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    api.cur_width =
        (nvml_return(*)(nvml_device, unsigned *))sym(n->lib, "nvmlDeviceGetCurrPcieLinkWidth");
    api.max_gen =
        (nvml_return(*)(nvml_device, unsigned *))sym(n->lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    api.max_width =
        (nvml_return(*)(nvml_device, unsigned *))sym(n->lib, "nvmlDeviceGetMaxPcieLinkWidth");
    api.throttle = (nvml_return(*)(nvml_device, unsigned long long *))sym(
        n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    api.persistence =
        (nvml_return(*)(nvml_device, int *))sym(n->lib, "nvmlDeviceGetPersistenceMode");
    api.ecc_mode = (nvml_return(*)(nvml_device, int *, int *))sym(n->lib, "nvmlDeviceGetEccMode");
    api.ecc_errors = (nvml_return(*)(nvml_device, int, int, unsigned long long *))sym(
        n->lib, "nvmlDeviceGetTotalEccErrors");
    api.mig_mode =
        (nvml_return(*)(nvml_device, unsigned *, unsigned *))sym(n->lib, "nvmlDeviceGetMigMode");
    api.replays =
        (nvml_return(*)(nvml_device, unsigned *))sym(n->lib, "nvmlDeviceGetPcieReplayCounter");
    api.temperature =
        (nvml_return(*)(nvml_device, int, unsigned *))sym(n->lib, "nvmlDeviceGetTemperature");
    n->api = &api;
    if (!api.init || !api.shutdown || !api.by_bus_id) {
        snprintf(st->why, sizeof(st->why), "%s lacks nvmlInit_v2 or its device lookup", name);
        gdr_nvml_close(n);
        return;
    }
    nvml_return rc = api.init();
    if (rc != NVML_SUCCESS) {
        why_nvml(st, "nvmlInit_v2", rc);
        gdr_nvml_close(n);
        return;
    }
    n->inited = true;
    rc = api.by_bus_id(bus_id, (nvml_device *)&n->dev);
    if (rc != NVML_SUCCESS) {
        why_nvml(st, "nvmlDeviceGetHandleByPciBusId_v2", rc);
        gdr_nvml_close(n);
        return;
    }
    st->available = true;
    int a, b;
    unsigned u, v;
    unsigned long long ull;
    if (api.persistence && api.persistence(n->dev, &a) == NVML_SUCCESS)
        st->persistence = a != 0;
    if (api.ecc_mode && api.ecc_mode(n->dev, &a, &b) == NVML_SUCCESS)
        st->ecc = a != 0;
    if (api.ecc_errors && api.ecc_errors(n->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                         NVML_VOLATILE_ECC, &ull) == NVML_SUCCESS)
        st->ecc_uncorrected = (long long)ull;
    if (api.mig_mode && api.mig_mode(n->dev, &u, &v) == NVML_SUCCESS)
        st->mig = u != 0;
    if (api.max_gen && api.max_gen(n->dev, &u) == NVML_SUCCESS)
        st->max_pcie_gen = u;
    if (api.max_width && api.max_width(n->dev, &u) == NVML_SUCCESS)
        st->max_pcie_width = u;
}

void gdr_nvml_mark(struct gdr_nvml *n)
{
    n->replay_known = n->dev && api.replays && api.replays(n->dev, &n->replay_mark) == NVML_SUCCESS;
}

void gdr_nvml_sample(struct gdr_nvml *n, struct gdr_gpu_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->pstate = -1;
    s->replay_delta = -1;
    s->temperature_c = -1;
    s->ecc_uncorrected = -1;
    if (!n->dev)
        return;
    s->available = true;
    int a;
    unsigned u;
    unsigned long long ull;
    if (api.pstate && api.pstate(n->dev, &a) == NVML_SUCCESS && a >= 0 && a <= 15)
        s->pstate = a; /* 32: NVML_PSTATE_UNKNOWN */
    if (api.clock && api.clock(n->dev, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
        s->sm_mhz = u;
    if (api.clock && api.clock(n->dev, NVML_CLOCK_MEM, &u) == NVML_SUCCESS)
        s->mem_mhz = u;
    if (api.cur_gen && api.cur_gen(n->dev, &u) == NVML_SUCCESS)
        s->pcie_gen = u;
    if (api.cur_width && api.cur_width(n->dev, &u) == NVML_SUCCESS)
        s->pcie_width = u;
    s->throttle_known = api.throttle && api.throttle(n->dev, &s->throttle) == NVML_SUCCESS;
    if (api.temperature && api.temperature(n->dev, NVML_TEMPERATURE_GPU, &u) == NVML_SUCCESS)
        s->temperature_c = (int)u;
    /* NOT_SUPPORTED with ECC off: unknown, not 0. */
    if (api.ecc_errors && api.ecc_errors(n->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                         NVML_VOLATILE_ECC, &ull) == NVML_SUCCESS)
        s->ecc_uncorrected = (long long)ull;
    /* The counter is 32 bits wide: a wrap is a smaller number. */
    if (n->replay_known && api.replays(n->dev, &u) == NVML_SUCCESS)
        s->replay_delta = (long long)(uint32_t)(u - n->replay_mark);
}

void gdr_nvml_close(struct gdr_nvml *n)
{
    if (n->inited && api.shutdown)
        api.shutdown();
    if (n->lib)
        dlclose(n->lib);
    memset(n, 0, sizeof(*n));
}

void gdr_nvml_throttle_names(unsigned long long bits, char *buf, size_t len)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {
        {0x4, "sw_power_cap"},
        {0x8, "hw_slowdown"},
        {0x10, "sync_boost"},
        {0x20, "sw_thermal_slowdown"},
        {0x40, "hw_thermal_slowdown"},
        {0x80, "hw_power_brake_slowdown"},
        {0x100, "display_clock_setting"},
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (bits & names[i].bit && used < len) {
            int k = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);
            used += k > 0 ? (size_t)k : 0;
        }
}
