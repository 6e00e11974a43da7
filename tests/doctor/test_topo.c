/* Unit tests for common/topo: path classes, registration caps, NCCL level. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pairing.h"
#include "pcie.h"
#include "topo.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must point at tests/fixtures"
#endif
#ifndef FIXTURES_BUILD_DIR
#define FIXTURES_BUILD_DIR FIXTURES_DIR
#endif

/* The source tree's trees (git), else the build tree's (unpacked from the
 * tarball's tests/fixtures/doctor-fixtures.tar before the tests run). */
static const char *fixtures_dir(void)
{
    return access(FIXTURES_DIR "/pix/sys", F_OK) == 0 ? FIXTURES_DIR : FIXTURES_BUILD_DIR;
}

static const char *sys_root(const char *fixture)
{
    static char buf[4096];
    snprintf(buf, sizeof(buf), "%s/%s/sys", fixtures_dir(), fixture);
    return buf;
}

static const char *proc_root(const char *fixture)
{
    static char buf[4096];
    snprintf(buf, sizeof(buf), "%s/%s/proc", fixtures_dir(), fixture);
    return buf;
}

static enum gdr_path_class classify(const char *fixture, const char *ibdev, const char *gpu)
{
    enum gdr_path_class c = GDR_PATH_UNKNOWN;
    char err[256] = "";
    int rc = gdr_topo_path_class(sys_root(fixture), ibdev, gpu, &c, err, sizeof(err));
    if (rc != 0)
        fail_msg("%s: %s", fixture, err);
    return c;
}

static void test_path_classes(void **state)
{
    (void)state;
    assert_int_equal(classify("pix", "mlx5_0", "0000:03:00.0"), GDR_PATH_PIX);
    assert_int_equal(classify("smallbar", "mlx5_0", "0000:03:00.0"), GDR_PATH_PIX);
    assert_int_equal(classify("pxb", "mlx5_0", "0000:05:00.0"), GDR_PATH_PXB);
    assert_int_equal(classify("phb", "mlx5_0", "0000:01:00.0"), GDR_PATH_PHB);
    assert_int_equal(classify("node", "mlx5_0", "0000:01:00.0"), GDR_PATH_NODE);
    assert_int_equal(classify("sys", "mlx5_0", "0000:01:00.0"), GDR_PATH_SYS);
}

static void test_software_devices(void **state)
{
    struct gdr_ibdev_info info;
    (void)state;
    /* device link to a virtual netdev */
    assert_int_equal(gdr_topo_ibdev_info(sys_root("rxe"), "rxe0", &info, NULL, 0), 0);
    assert_true(info.software);
    assert_string_equal(info.parent_netdev, "veth0");
    assert_string_equal(info.pci_bdf, "");
    /* no device link at all */
    assert_true(gdr_topo_is_software(sys_root("rxe-gpu"), "rxe0"));
    assert_int_equal(classify("rxe-gpu", "rxe0", "0000:01:00.0"), GDR_PATH_NONE);
    /* a hardware NIC is not software, and has its BDF and NUMA node */
    assert_int_equal(gdr_topo_ibdev_info(sys_root("sys"), "mlx5_0", &info, NULL, 0), 0);
    assert_false(info.software);
    assert_string_equal(info.pci_bdf, "0000:81:00.0");
    assert_string_equal(info.driver, "mlx5_core");
    assert_int_equal(info.numa_node, 1);
}

static void test_errors_name_the_thing(void **state)
{
    enum gdr_path_class c;
    char err[256] = "";
    (void)state;
    assert_int_equal(
        gdr_topo_path_class(sys_root("pix"), "mlx5_9", "0000:03:00.0", &c, err, sizeof(err)),
        -ENOENT);
    assert_non_null(strstr(err, "mlx5_9"));
    assert_int_equal(
        gdr_topo_path_class(sys_root("pix"), "mlx5_0", "0000:aa:00.0", &c, err, sizeof(err)),
        -ENOENT);
    assert_non_null(strstr(err, "0000:aa:00.0"));
    assert_int_equal(c, GDR_PATH_UNKNOWN);
}

static void test_lists(void **state)
{
    char gpus[8][GDR_BDF_LEN], devs[8][64];
    size_t n = 99;
    (void)state;
    /* bridges and the NIC are PCI devices too; only the GPU may be listed */
    assert_int_equal(gdr_topo_list_gpus(sys_root("pix"), gpus, 8, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(gpus[0], "0000:03:00.0");
    assert_int_equal(gdr_topo_list_ibdevs(sys_root("pix"), devs, 8, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(devs[0], "mlx5_0");
    assert_int_equal(gdr_topo_list_gpus(sys_root("empty"), gpus, 8, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(gdr_topo_list_ibdevs(sys_root("empty"), devs, 8, &n), 0);
    assert_int_equal(n, 0);
}

static void test_path_bridges(void **state)
{
    char b[8][GDR_BDF_LEN];
    size_t n = 0;
    (void)state;
    assert_int_equal(
        gdr_topo_path_bridges(sys_root("pix"), "mlx5_0", "0000:03:00.0", b, 8, &n, NULL, 0), 0);
    assert_int_equal(n, 3);
    assert_string_equal(b[0], "0000:02:01.0"); /* NIC's downstream port */
    assert_string_equal(b[1], "0000:01:00.0"); /* switch upstream port */
    assert_string_equal(b[2], "0000:02:00.0"); /* GPU's downstream port */
    assert_int_equal(
        gdr_topo_path_bridges(sys_root("pxb"), "mlx5_0", "0000:05:00.0", b, 8, &n, NULL, 0), 0);
    assert_int_equal(n, 5);
    assert_int_equal(
        gdr_topo_path_bridges(sys_root("rxe-gpu"), "rxe0", "0000:01:00.0", b, 8, &n, NULL, 0), 0);
    assert_int_equal(n, 0);
}

static void test_reg_caps(void **state)
{
    struct gdr_reg_caps c;
    (void)state;
    assert_int_equal(gdr_topo_reg_caps(sys_root("pix"), proc_root("pix"), &c), 0);
    assert_int_equal(c.peermem, 1);
    assert_int_equal(c.nvidia_open, 0);
    assert_int_equal(c.driver_major, 535);
    assert_string_equal(c.nvidia_version, "535.129.03");
    assert_false(gdr_reg_caps_dmabuf(&c)); /* proprietary module */

    assert_int_equal(gdr_topo_reg_caps(sys_root("dmabuf"), proc_root("dmabuf"), &c), 0);
    assert_int_equal(c.peermem, 0);
    assert_int_equal(c.kernel_dmabuf, 1);
    assert_int_equal(c.nvidia_open, 1);
    assert_string_equal(c.nvidia_version, "550.54.14");
    assert_true(gdr_reg_caps_dmabuf(&c));

    assert_int_equal(gdr_topo_reg_caps(sys_root("noreg"), proc_root("noreg"), &c), 0);
    assert_int_equal(c.peermem, 0);
    assert_int_equal(c.kernel_dmabuf, 0);
    assert_false(gdr_reg_caps_dmabuf(&c));

    assert_int_equal(gdr_topo_reg_caps(sys_root("empty"), proc_root("empty"), &c), 0);
    assert_int_equal(c.nvidia_loaded, 0);
    assert_int_equal(c.driver_major, -1);
}

static void test_nccl_level_parse(void **state)
{
    static const struct {
        const char *s;
        enum gdr_path_class c;
    } ok[] = {
        {"LOC", GDR_PATH_LOC}, {"pix", GDR_PATH_PIX}, {"PXB", GDR_PATH_PXB}, {"Phb", GDR_PATH_PHB},
        {"SYS", GDR_PATH_SYS}, {"0", GDR_PATH_LOC},   {"1", GDR_PATH_PIX},   {"2", GDR_PATH_PXB},
        {"3", GDR_PATH_PHB},   {"4", GDR_PATH_SYS},   {"5", GDR_PATH_SYS},   {"17", GDR_PATH_SYS},
        {"P2C", GDR_PATH_P2C},
    };
    static const char *bad[] = {"", "NODE", "-1", "3x", "PXB ", "phb2", "x"};
    enum gdr_path_class c;
    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        c = GDR_PATH_UNKNOWN;
        assert_int_equal(gdr_nccl_gdr_level_parse(ok[i].s, &c), 0);
        assert_int_equal(c, ok[i].c);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(gdr_nccl_gdr_level_parse(bad[i], &c), -EINVAL);
    assert_int_equal(gdr_nccl_gdr_level_parse(NULL, &c), -EINVAL);
}

static void test_nccl_gdr_used(void **state)
{
    (void)state;
    assert_true(gdr_nccl_gdr_used(GDR_PATH_PIX, GDR_NCCL_GDR_LEVEL_DEFAULT));
    assert_true(gdr_nccl_gdr_used(GDR_PATH_PXB, GDR_NCCL_GDR_LEVEL_DEFAULT));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_PHB, GDR_NCCL_GDR_LEVEL_DEFAULT));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_PXB, GDR_PATH_PIX));
    assert_true(gdr_nccl_gdr_used(GDR_PATH_NODE, GDR_PATH_PHB)); /* NCCL PHB = same NUMA */
    assert_false(gdr_nccl_gdr_used(GDR_PATH_SYS, GDR_PATH_PHB));
    assert_true(gdr_nccl_gdr_used(GDR_PATH_SYS, GDR_PATH_SYS));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_PIX, GDR_PATH_LOC));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_NONE, GDR_PATH_SYS));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_UNKNOWN, GDR_PATH_SYS));
}

/* NCCL 2.27+: P2C lies between PXB and PHB; with the level unset, GDR
 * over C2C follows NCCL_NET_GDR_C2C. */
static void test_nccl_c2c(void **state)
{
    (void)state;
    assert_true(gdr_nccl_gdr_used_default(GDR_PATH_P2C, true));
    assert_false(gdr_nccl_gdr_used_default(GDR_PATH_P2C, false));
    assert_true(gdr_nccl_gdr_used_default(GDR_PATH_PXB, false));
    assert_false(gdr_nccl_gdr_used_default(GDR_PATH_PHB, true));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_P2C, GDR_PATH_PXB));
    assert_true(gdr_nccl_gdr_used(GDR_PATH_P2C, GDR_PATH_P2C));
    assert_true(gdr_nccl_gdr_used(GDR_PATH_P2C, GDR_PATH_PHB));
    assert_false(gdr_nccl_gdr_used(GDR_PATH_PHB, GDR_PATH_P2C));
    assert_string_equal(gdr_path_class_name(GDR_PATH_P2C), "P2C");
    /* From procfs: numa_status marks a C2C GPU; a listed GPU without it is
     * not; no driver information is unknown. */
    assert_int_equal(gdr_topo_gpu_c2c(proc_root("gh200"), "0009:01:00.0"), 1);
    assert_int_equal(gdr_topo_gpu_c2c(proc_root("gb200"), "0019:01:00.0"), 1);
    assert_int_equal(gdr_topo_gpu_c2c(proc_root("gh200"), "0009:02:00.0"), -1);
    assert_int_equal(gdr_topo_gpu_c2c(proc_root("pix"), "0000:03:00.0"), -1);
    assert_int_equal(classify("gh200", "mlx5_0", "0009:01:00.0"), GDR_PATH_NODE);
    assert_int_equal(classify("gb200", "mlx5_0", "0000:03:00.0"), GDR_PATH_PIX);
    assert_int_equal(classify("gb200", "mlx5_1", "0000:03:00.0"), GDR_PATH_SYS);
}

static enum gdr_path_class pair_class(const char *fixture, const char *ibdev, const char *gpu,
                                      int c2c)
{
    enum gdr_path_class c;
    char err[256] = "";
    if (gdr_topo_pair_class(sys_root(fixture), ibdev, gpu, c2c, &c, err, sizeof(err)))
        fail_msg("%s: %s", fixture, err);
    return c;
}

/* The one class every program reports: through the CPU from a C2C GPU is
 * P2C; switch and cross-socket paths stay; no or unknown C2C: PCIe only. */
static void test_pair_class_c2c(void **state)
{
    (void)state;
    assert_int_equal(pair_class("gh200", "mlx5_0", "0009:01:00.0", 1), GDR_PATH_P2C);
    assert_int_equal(pair_class("gh200", "mlx5_0", "0009:01:00.0", 0), GDR_PATH_NODE);
    assert_int_equal(pair_class("gh200", "mlx5_0", "0009:01:00.0", -1), GDR_PATH_NODE);
    assert_int_equal(pair_class("phb", "mlx5_0", "0000:01:00.0", 1), GDR_PATH_P2C);
    assert_int_equal(pair_class("gb200", "mlx5_0", "0000:03:00.0", 1), GDR_PATH_PIX);
    assert_int_equal(pair_class("gb200", "mlx5_1", "0000:03:00.0", 1), GDR_PATH_SYS);
    assert_int_equal(pair_class("rxe-gpu", "rxe0", "0000:01:00.0", 1), GDR_PATH_NONE);
    enum gdr_path_class c = GDR_PATH_PIX;
    assert_int_equal(gdr_topo_pair_class(sys_root("pix"), "mlx5_9", "0000:03:00.0", 1, &c, NULL, 0),
                     -ENOENT);
    assert_int_equal(c, GDR_PATH_UNKNOWN);
}

/* Grace-Hopper: the GPU on the CPU's NVLink-C2C, the NIC on that socket's
 * PCIe. The pairing (gdr_doctor's and gdr-cluster-core rails' rail NIC)
 * reports P2C, the doctor's pair class, not the PCIe walk's NODE. */
static void test_pairing_grace_hopper(void **state)
{
    (void)state;
    static const char nics[1][64] = {"mlx5_0"};
    static const char gpus[1][GDR_BDF_LEN] = {"0009:01:00.0"};
    int c2c[1] = {gdr_topo_gpu_c2c(proc_root("gh200"), gpus[0])};
    static struct gdr_topo_pairing pr;
    assert_int_equal(gdr_topo_pair(sys_root("gh200"), nics, 1, gpus, c2c, 1, &pr), 0);
    assert_int_equal(pr.nic_of[0], 0);
    assert_int_equal(pr.path[0], GDR_PATH_P2C);
    assert_true(gdr_nccl_gdr_used_default(pr.path[0], true));
    assert_int_equal(gdr_topo_pair(sys_root("gh200"), nics, 1, gpus, NULL, 1, &pr), 0);
    assert_int_equal(pr.path[0], GDR_PATH_NODE); /* no C2C known: the PCIe walk's */
}

/* The Device Control relaxed-ordering bit of the NIC's function. */
static void test_relaxed_ordering(void **state)
{
    (void)state;
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("gb200"), "mlx5_0"), 1);
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("gb200"), "mlx5_1"), 0);
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("gh200"), "mlx5_0"), 1);
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("pix"), "mlx5_0"), -1); /* no config */
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("rxe"), "rxe0"), -1);   /* software */
    assert_int_equal(gdr_topo_relaxed_ordering(sys_root("gb200"), "mlx5_9"), -1);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gdr_path_class_name(GDR_PATH_PIX), "PIX");
    assert_string_equal(gdr_path_class_name(GDR_PATH_NODE), "NODE");
    assert_string_equal(gdr_path_class_name(GDR_PATH_NONE), "NONE");
    assert_string_equal(gdr_path_class_name((enum gdr_path_class)42), "UNKNOWN");
}

/* PCIe link state: sysfs attributes and config space (common/topo/pcie.c). */
static void test_pcie_link(void **state)
{
    (void)state;
    struct gdr_pcie_link l;
    assert_int_equal(gdr_topo_pcie_link(sys_root("nic-x8"), "0000:04:00.0", &l), 0);
    assert_true(l.cur_gts == 16 && l.max_gts == 16);
    assert_int_equal(l.cur_width, 8);
    assert_int_equal(l.max_width, 16);
    assert_int_equal(l.type, GDR_PCIE_TYPE_ENDPOINT);
    assert_int_equal(l.mps, 256);
    assert_int_equal(l.mps_supported, 512);
    assert_int_equal(l.mrrs, 512);
    assert_int_equal(l.relaxed_ordering, 1);
    assert_int_equal(l.ats, 0); /* capability present, not enabled */
    assert_int_equal(l.acs_ctrl, -1);
    assert_false(l.bridge);
    /* A bridge, and a switch's upstream port by its capability. */
    assert_int_equal(gdr_topo_pcie_link(sys_root("nic-x8"), "0000:01:00.0", &l), 0);
    assert_true(l.bridge);
    assert_int_equal(l.type, GDR_PCIE_TYPE_UPSTREAM);
    /* No link attributes, config space without capabilities: unknown. */
    assert_int_equal(gdr_topo_pcie_link(sys_root("pix"), "0000:04:00.0", &l), 0);
    assert_true(l.cur_gts == 0 && l.max_width == 0 && l.mps == 0);
    assert_int_equal(l.relaxed_ordering, -1);
    assert_int_equal(gdr_topo_pcie_link(sys_root("pix"), "0000:99:00.0", &l), -ENOENT);
}

static void test_pcie_config_walk(void **state)
{
    (void)state;
    uint8_t cfg[0x110] = {0};
    cfg[0x06] = 0x10; /* capabilities list */
    cfg[0x34] = 0x50;
    cfg[0x50] = 0x01; /* power management, next 0x60 */
    cfg[0x51] = 0x60;
    cfg[0x60] = GDR_PCI_CAP_EXP;
    assert_int_equal(gdr_pci_find_cap(cfg, sizeof(cfg), GDR_PCI_CAP_EXP), 0x60);
    /* cut at 64 bytes (not root): the list lies past what was read */
    assert_int_equal(gdr_pci_find_cap(cfg, 64, GDR_PCI_CAP_EXP), -1);
    /* a loop in the list ends */
    cfg[0x61] = 0x50;
    assert_int_equal(gdr_pci_find_cap(cfg, sizeof(cfg), 0x05), -1);
    /* extended: ATS at 0x100 */
    cfg[0x100] = 0x0f;
    cfg[0x102] = 0x01;
    assert_int_equal(gdr_pci_find_ext_cap(cfg, sizeof(cfg), GDR_PCI_EXT_CAP_ATS), 0x100);
    assert_int_equal(gdr_pci_find_ext_cap(cfg, sizeof(cfg), GDR_PCI_EXT_CAP_ACS), -1);
}

/* Each link judged once from its lower end, against both ends' maxima. */
static void test_pcie_walk(void **state)
{
    (void)state;
    struct gdr_pcie_hop h[8];
    size_t n;
    assert_int_equal(
        gdr_topo_pcie_walk(sys_root("bridge-gen3"), "0000:04:00.0", GDR_PCIE_NIC, h, 8, &n), 0);
    assert_int_equal(n, 4); /* NIC, downstream port, upstream port, root port */
    assert_string_equal(h[0].link.bdf, "0000:04:00.0");
    assert_string_equal(h[3].link.bdf, "0000:00:01.0");
    assert_true(h[0].judged && !h[0].below_max);
    assert_false(h[1].judged);
    assert_true(h[2].judged && h[2].below_max);
    assert_true(h[2].expect_gts == 16 && h[2].expect_width == 16);
    assert_false(h[3].judged);
    /* without config space the port types come from the position */
    assert_int_equal(gdr_topo_pcie_walk(sys_root("pix"), "0000:04:00.0", GDR_PCIE_NIC, h, 8, &n),
                     0);
    assert_int_equal(n, 4);
    assert_true(h[0].judged && !h[1].judged && h[2].judged && !h[3].judged);
    /* a device faster than the port above it is held to the port's max */
    struct gdr_pcie_link dev = {.cur_gts = 16, .max_gts = 32, .cur_width = 16, .max_width = 16};
    struct gdr_pcie_link up = {.max_gts = 16, .max_width = 16};
    bool speed, width;
    assert_false(gdr_pcie_below_max(&dev, &up, &speed, &width));
    assert_true(gdr_pcie_below_max(&dev, NULL, &speed, &width) && speed && !width);
    assert_string_equal(gdr_pcie_gen_name(32), "Gen5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_classes),
        cmocka_unit_test(test_software_devices),
        cmocka_unit_test(test_errors_name_the_thing),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_path_bridges),
        cmocka_unit_test(test_reg_caps),
        cmocka_unit_test(test_nccl_level_parse),
        cmocka_unit_test(test_nccl_gdr_used),
        cmocka_unit_test(test_nccl_c2c),
        cmocka_unit_test(test_pair_class_c2c),
        cmocka_unit_test(test_pairing_grace_hopper),
        cmocka_unit_test(test_relaxed_ordering),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_pcie_link),
        cmocka_unit_test(test_pcie_config_walk),
        cmocka_unit_test(test_pcie_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
