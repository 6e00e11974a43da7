/* test_nvml.c - common/mem/nvml.c against the NVML double (nvmlsim.c):
 * a healthy GPU, a throttled one, ECC errors (rising during a run) and ECC
 * off, the temperature (and its query failing), MIG on, PCIe
 * replays over a size, one failing query, NVML failing to start, an
 * unknown GPU, the library missing; and the double's strictness (calls
 * before nvmlInit_v2, a handle kept past nvmlShutdown). */
#include "config.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvml.h"

static const char *const knobs[] = {
    "GDR_NVMLSIM_INIT",   "GDR_NVMLSIM_THROTTLE", "GDR_NVMLSIM_ECC",     "GDR_NVMLSIM_ECC_ERRORS",
    "GDR_NVMLSIM_MIG",    "GDR_NVMLSIM_PCIE",     "GDR_NVMLSIM_REPLAYS", "GDR_NVMLSIM_FAIL",
    "GDR_NVMLSIM_PSTATE", "GDR_NVMLSIM_DEVICES",  "GDR_NVMLSIM_TEMP",    "GDR_NVMLSIM_ECC_RISE"};

static int reset(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
        unsetenv(knobs[i]);
    return 0;
}

static struct gdr_nvml n;
static struct gdr_gpu_state st;
static struct gdr_gpu_sample sm;

/* Open, one size (mark, sample), close. */
static void run(const char *lib, const char *bus)
{
    gdr_nvml_open(&n, lib, bus, &st);
    gdr_nvml_mark(&n);
    gdr_nvml_sample(&n, &sm);
    gdr_nvml_close(&n);
}

static void test_healthy(void **state)
{
    (void)state;
    run(NVMLSIM, "0000:3b:00.0");
    assert_true(st.available);
    assert_int_equal(st.persistence, 1);
    assert_int_equal(st.ecc, 1);
    assert_int_equal(st.ecc_uncorrected, 0);
    assert_int_equal(st.mig, 0);
    assert_int_equal(st.max_pcie_gen, 4);
    assert_int_equal(st.max_pcie_width, 16);
    assert_true(sm.available);
    assert_int_equal(sm.pstate, 0);
    assert_int_equal(sm.sm_mhz, 1980);
    assert_int_equal(sm.mem_mhz, 2619);
    assert_int_equal(sm.pcie_gen, 4);
    assert_int_equal(sm.pcie_width, 16);
    assert_true(sm.throttle_known);
    assert_int_equal(sm.throttle, 0);
    assert_int_equal(sm.replay_delta, 0);
    assert_int_equal(sm.temperature_c, 45);
    assert_int_equal(sm.ecc_uncorrected, 0);
    /* CUDA's spelling of the bus id works as well */
    run(NVMLSIM, "00000000:3B:00.0");
    assert_true(st.available);
}

static void test_throttled(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_THROTTLE", "0x49", 1); /* idle + hw slowdown + hw thermal */
    setenv("GDR_NVMLSIM_PSTATE", "2", 1);
    setenv("GDR_NVMLSIM_PCIE", "1,16", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(sm.throttle, 0x49);
    assert_int_equal(sm.pstate, 2);
    assert_int_equal(sm.sm_mhz, 1005);
    assert_int_equal(sm.pcie_gen, 1);
    char names[128];
    gdr_nvml_throttle_names(sm.throttle, names, sizeof(names));
    assert_string_equal(names, "hw_slowdown,hw_thermal_slowdown"); /* idle is no slowdown */
    gdr_nvml_throttle_names(0x1, names, sizeof(names));
    assert_string_equal(names, "");
}

static void test_ecc(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_ECC_ERRORS", "3", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(st.ecc, 1);
    assert_int_equal(st.ecc_uncorrected, 3);
    assert_int_equal(sm.ecc_uncorrected, 3);
    /* errors that come during the run: the sample reads them as they are
     * then (the open's query saw 3 + 2, the sample's 3 + 4) */
    setenv("GDR_NVMLSIM_ECC_RISE", "2", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(st.ecc_uncorrected, 5);
    assert_int_equal(sm.ecc_uncorrected, 7);
    /* ECC off: NVML has no count to give */
    setenv("GDR_NVMLSIM_ECC", "0", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(st.ecc, 0);
    assert_int_equal(st.ecc_uncorrected, -1);
    assert_int_equal(sm.ecc_uncorrected, -1);
}

static void test_temperature(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_TEMP", "83", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(sm.temperature_c, 83);
    setenv("GDR_NVMLSIM_FAIL", "nvmlDeviceGetTemperature", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_true(sm.available);
    assert_int_equal(sm.temperature_c, -1);
}

static void test_mig(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_MIG", "1", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(st.mig, 1);
}

static void test_replays(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_REPLAYS", "5", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_int_equal(sm.replay_delta, 5);
}

static void test_one_query_fails(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_FAIL", "nvmlDeviceGetPerformanceState", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_true(sm.available);
    assert_int_equal(sm.pstate, -1);
    assert_int_equal(sm.sm_mhz, 1980);
}

static void test_nvml_does_not_start(void **state)
{
    (void)state;
    setenv("GDR_NVMLSIM_INIT", "9", 1);
    run(NVMLSIM, "0000:3b:00.0");
    assert_false(st.available);
    assert_non_null(strstr(st.why, "nvmlInit_v2: Driver Not Loaded (9)"));
    assert_false(sm.available);
    assert_int_equal(st.ecc, -1);
}

static void test_unknown_gpu(void **state)
{
    (void)state;
    run(NVMLSIM, "0000:99:00.0");
    assert_false(st.available);
    assert_non_null(strstr(st.why, "Not Found"));
}

static void test_library_missing(void **state)
{
    (void)state;
    run("/nonexistent/libnvidia-ml.so.1", "0000:3b:00.0");
    assert_false(st.available);
    assert_non_null(strstr(st.why, "no NVML: "));
    assert_non_null(strstr(st.why, "libnvidia-ml.so.1"));
    assert_int_equal(sm.pstate, -1);
    assert_int_equal(sm.replay_delta, -1);
    assert_int_equal(sm.temperature_c, -1);
    assert_int_equal(sm.ecc_uncorrected, -1);
}

/* The double refuses what NVML refuses: a product that queried before
 * nvmlInit_v2 or kept a handle past nvmlShutdown gets an error here. */
static void test_double_is_strict(void **state)
{
    (void)state;
    void *lib = dlopen(NVMLSIM, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(lib, "nvmlShutdown");
    int (*lookup)(const char *, void **) =
        (int (*)(const char *, void **))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    int (*pstate)(void *, int *) =
        (int (*)(void *, int *))dlsym(lib, "nvmlDeviceGetPerformanceState");
    assert_non_null(init && shutdown && lookup && pstate ? lib : NULL);
    void *dev = NULL;
    int p;
    assert_int_equal(lookup("0000:3b:00.0", &dev), 1); /* uninitialised */
    assert_int_equal(init(), 0);
    assert_int_equal(lookup("0000:3b:00.0", &dev), 0);
    assert_int_equal(pstate(dev, &p), 0);
    assert_int_equal(pstate(&p, &p), 2); /* not a handle */
    assert_int_equal(shutdown(), 0);
    assert_int_equal(init(), 0);
    assert_int_equal(pstate(dev, &p), 2); /* from before the shutdown */
    assert_int_equal(shutdown(), 0);
    assert_int_equal(pstate(dev, &p), 1);
    /* the unversioned entry points are not there */
    assert_null(dlsym(lib, "nvmlInit"));
    dlclose(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_healthy, reset),
        cmocka_unit_test_setup(test_throttled, reset),
        cmocka_unit_test_setup(test_ecc, reset),
        cmocka_unit_test_setup(test_temperature, reset),
        cmocka_unit_test_setup(test_mig, reset),
        cmocka_unit_test_setup(test_replays, reset),
        cmocka_unit_test_setup(test_one_query_fails, reset),
        cmocka_unit_test_setup(test_nvml_does_not_start, reset),
        cmocka_unit_test_setup(test_unknown_gpu, reset),
        cmocka_unit_test_setup(test_library_missing, reset),
        cmocka_unit_test_setup(test_double_is_strict, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
