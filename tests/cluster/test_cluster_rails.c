/* Unit tests: cluster_rails and cluster_links on the doctor's captured
 * sysfs trees (tests/fixtures, made by gen-fixtures.py), the DGX-like one
 * included: each rail's PCIe links, the summary report.md compares across
 * nodes, and the links short of their maximum named. */
#include "config.h"

#include "unit.h"

#include "cluster_links.h"
#include "cluster_rails.h"
#include "pairing.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must point at tests/fixtures"
#endif
#ifndef FIXTURES_BUILD_DIR
#define FIXTURES_BUILD_DIR FIXTURES_DIR
#endif

static struct gdr_rail_map map;

static void detect(const char *fixture)
{
    const char *base =
        access(FIXTURES_DIR "/pix/sys", F_OK) == 0 ? FIXTURES_DIR : FIXTURES_BUILD_DIR;
    char root[4096], proc[4096];
    snprintf(root, sizeof(root), "%s/%s/sys", base, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", base, fixture);
    gdr_error_clear();
    if (gdr_rails_detect(root, proc, &map))
        fail_msg("%s: %s", fixture, gdr_error_message());
}

static bool warned(const char *frag)
{
    for (size_t i = 0; i < map.nwarnings; i++)
        if (strstr(map.warnings[i], frag))
            return true;
    return false;
}

/* Eight GPUs, each with the NIC under its own switch, whatever the names. */
static void test_dgx_one_pix_nic_per_gpu(void **state)
{
    (void)state;
    static const char *const want[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                       "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
    detect("dgx");
    assert_int_equal(map.nrails, 8);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(map.rails[i].gpu, (int)i);
        assert_string_equal(map.rails[i].device, want[i]);
        assert_int_equal(map.rails[i].path, GDR_PATH_PIX);
    }
    assert_int_equal(map.nunused, 1);
    assert_string_equal(map.unused[0], "mlx5_1"); /* the storage NIC */
    assert_int_equal(map.nwarnings, 0);
}

/* Two GPUs per switch share its NIC; the two storage NICs on a root complex
 * of their own are no rails (the old one-NIC-per-GPU search gave GPUs 1, 3,
 * 5 and 7 the storage NICs and a farther compute NIC). */
static void test_dgx_two_gpus_per_nic(void **state)
{
    (void)state;
    static const char *const want[] = {"mlx5_0", "mlx5_0", "mlx5_3", "mlx5_3",
                                       "mlx5_4", "mlx5_4", "mlx5_5", "mlx5_5"};
    detect("dgx-shared");
    assert_int_equal(map.nrails, 8);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(map.rails[i].gpu, (int)i);
        assert_string_equal(map.rails[i].device, want[i]);
        assert_int_equal(map.rails[i].path, GDR_PATH_PIX);
    }
    assert_int_equal(map.nunused, 2);
    assert_string_equal(map.unused[0], "mlx5_1");
    assert_string_equal(map.unused[1], "mlx5_2");
    assert_int_equal(map.ndown, 0);
    assert_int_equal(map.nwarnings, 1);
    assert_true(warned("2 GPUs per NIC: mlx5_0 (GPU 0, 1), mlx5_3 (GPU 2, 3), mlx5_4 (GPU 4, 5), "
                       "mlx5_5 (GPU 6, 7)"));
}

/* mlx5_3's port is down: never a rail. GPUs 2 and 3 take the nearest
 * active NIC, mlx5_0 (PHB: same host bridge), not a storage NIC (NODE). */
static void test_dgx_down_port(void **state)
{
    (void)state;
    static const char *const want[] = {"mlx5_0", "mlx5_0", "mlx5_0", "mlx5_0",
                                       "mlx5_4", "mlx5_4", "mlx5_5", "mlx5_5"};
    detect("dgx-down");
    assert_int_equal(map.nrails, 8);
    for (size_t i = 0; i < 8; i++)
        assert_string_equal(map.rails[i].device, want[i]);
    assert_int_equal(map.rails[2].path, GDR_PATH_PHB);
    assert_int_equal(map.rails[1].path, GDR_PATH_PIX);
    assert_int_equal(map.ndown, 1);
    assert_string_equal(map.down[0], "mlx5_3");
    assert_int_equal(map.nunused, 2);
    assert_true(warned("mlx5_3 port 1 is DOWN: not a rail"));
    assert_true(warned("4 GPUs per NIC: mlx5_0 (GPU 0, 1, 2, 3)"));
    assert_true(warned("GPU 3 (0000:23:00.0): nearest NIC mlx5_0 is PHB"));
    cJSON *j = gdr_rails_to_json("n", &map);
    struct gdr_rail_map back;
    assert_int_equal(gdr_rails_from_json(j, "rails", &back), 0);
    assert_int_equal(back.ndown, 1);
    assert_string_equal(back.down[0], "mlx5_3");
    assert_int_equal(back.nunused, 2);
    cJSON_Delete(j);
}

/* gdr_doctor and the rails read one pairing (common/topo/pairing.h). */
static void test_pairing_is_shared(void **state)
{
    (void)state;
    const char *base =
        access(FIXTURES_DIR "/pix/sys", F_OK) == 0 ? FIXTURES_DIR : FIXTURES_BUILD_DIR;
    char root[4096], nics[GDR_PAIR_MAX][64], gpus[GDR_PAIR_MAX][GDR_BDF_LEN];
    size_t nn, ng;
    snprintf(root, sizeof(root), "%s/dgx-down/sys", base);
    assert_int_equal(gdr_topo_list_ibdevs(root, nics, GDR_PAIR_MAX, &nn), 0);
    assert_int_equal(gdr_topo_list_gpus(root, gpus, GDR_PAIR_MAX, &ng), 0);
    static struct gdr_topo_pairing pr;
    assert_int_equal(gdr_topo_pair(root, (const char(*)[64])nics, nn,
                                   (const char(*)[GDR_BDF_LEN])gpus, NULL, ng, &pr),
                     0);
    detect("dgx-down");
    for (size_t g = 0; g < ng; g++)
        assert_string_equal(nics[pr.nic_of[g]], map.rails[g].device);
    for (size_t n = 0; n < nn; n++)
        assert_int_equal(pr.role[n] == GDR_NIC_DOWN, !strcmp(nics[n], "mlx5_3"));
}

static void test_single_pairs(void **state)
{
    (void)state;
    detect("pix");
    assert_int_equal(map.nrails, 1);
    assert_int_equal(map.rails[0].path, GDR_PATH_PIX);
    assert_int_equal(map.nwarnings, 0);
    detect("pxb");
    assert_int_equal(map.nrails, 1);
    assert_int_equal(map.rails[0].path, GDR_PATH_PXB);
    assert_int_equal(map.nwarnings, 0);
    detect("sys"); /* the only NIC is on the other socket */
    assert_int_equal(map.nrails, 1);
    assert_int_equal(map.rails[0].path, GDR_PATH_SYS);
    assert_true(warned("is SYS, not under a shared PCIe switch"));
    detect("rxe-gpu"); /* a software device: no PCIe path at all */
    assert_int_equal(map.rails[0].path, GDR_PATH_NONE);
    assert_string_equal(map.rails[0].device, "rxe0");
    assert_true(warned("rxe0 is NONE"));
}

/* Grace-Hopper (GPU on the CPU's NVLink-C2C, NIC on that socket's PCIe):
 * P2C, as gdr_doctor says (common/topo's gdr_topo_pair_class), and NCCL
 * 2.27+ uses GDR there: no warning. The PCIe walk alone said NODE and
 * warned "not under a shared PCIe switch". GB200: the GPU under the NIC's
 * switch stays PIX, the others reach their socket's NIC over C2C. */
static void test_grace_c2c(void **state)
{
    (void)state;
    detect("gh200");
    assert_int_equal(map.nrails, 1);
    assert_string_equal(map.rails[0].device, "mlx5_0");
    assert_int_equal(map.rails[0].path, GDR_PATH_P2C);
    assert_int_equal(map.nwarnings, 0);
    cJSON *j = gdr_rails_to_json("gh", &map);
    const cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rails"), 0);
    assert_string_equal(cJSON_GetObjectItem(r0, "path")->valuestring, "P2C");
    cJSON_Delete(j);
    detect("gb200");
    static const enum gdr_path_class want[] = {GDR_PATH_PIX, GDR_PATH_P2C, GDR_PATH_P2C,
                                               GDR_PATH_P2C};
    assert_int_equal(map.nrails, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(map.rails[i].path, want[i]);
    assert_false(warned("not under a shared PCIe switch"));
}

static void test_host_only_and_empty(void **state)
{
    (void)state;
    detect("rxe");
    assert_int_equal(map.nrails, 1);
    assert_int_equal(map.rails[0].gpu, -1);
    assert_string_equal(map.rails[0].device, "rxe0");
    detect("empty");
    assert_int_equal(map.nrails, 0);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    detect("dgx");
    cJSON *j = gdr_rails_to_json("node7", &map);
    assert_string_equal(cJSON_GetObjectItem(j, "node")->valuestring, "node7");
    const cJSON *r3 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rails"), 3);
    assert_string_equal(cJSON_GetObjectItem(r3, "path")->valuestring, "PIX");
    assert_string_equal(cJSON_GetObjectItem(r3, "gpu_bdf")->valuestring, "0000:42:00.0");
    struct gdr_rail_map back;
    assert_int_equal(gdr_rails_from_json(j, "rails", &back), 0);
    assert_int_equal(back.nrails, 8);
    assert_string_equal(back.rails[5].device, "mlx5_9");
    assert_int_equal(back.rails[5].gpu, 5);
    cJSON_Delete(j);
    cJSON *bad = cJSON_Parse("{\"rails\": [{\"gpu\": 0}]}");
    gdr_error_clear();
    assert_int_equal(gdr_rails_from_json(bad, "x.json", &back), -1);
    assert_error(GDR_EXIT_USAGE, "device");
    cJSON_Delete(bad);
}

static struct gdr_node_links links;

/* The fixture's rails and their links; root keeps its sysfs path. */
static void detect_links(const char *fixture, char *root, size_t len)
{
    detect(fixture);
    const char *base =
        access(FIXTURES_DIR "/pix/sys", F_OK) == 0 ? FIXTURES_DIR : FIXTURES_BUILD_DIR;
    snprintf(root, len, "%s/%s/sys", base, fixture);
    gdr_node_links_detect(root, &map, &links);
}

/* Eight Gen5 x16 NICs and GPUs, each switch link once, none short. */
static void test_links_dgx(void **state)
{
    (void)state;
    char root[4096], text[512];
    detect_links("dgx", root, sizeof(root));
    size_t nic = 0, gpu = 0, sw = 0;
    for (size_t i = 0; i < links.n; i++) {
        nic += links.link[i].hop.role == GDR_PCIE_NIC;
        gpu += links.link[i].hop.role == GDR_PCIE_GPU;
        sw += links.link[i].hop.role == GDR_PCIE_BRIDGE;
        assert_false(gdr_node_link_short(&links.link[i]));
    }
    assert_int_equal(nic, 8);
    assert_int_equal(gpu, 8);
    assert_int_equal(sw, 8); /* one switch per GPU-NIC pair, its upstream link */
    gdr_node_links_summary(&links, text, sizeof(text));
    assert_string_equal(text, "NIC Gen5 x16 (8); GPU x16, up to Gen5 (8)");
    gdr_node_links_short(&links, text, sizeof(text));
    assert_string_equal(text, "");
    /* One NIC trained at x8: the summary differs from the other nodes'. */
    links.link[0].hop.link.cur_width = 8;
    links.link[0].hop.below_max = true;
    gdr_node_links_summary(&links, text, sizeof(text));
    assert_string_equal(text, "NIC Gen5 x16 (7), Gen5 x8 (1); GPU x16, up to Gen5 (8)");
    gdr_node_links_short(&links, text, sizeof(text));
    assert_string_equal(text, "mlx5_0 Gen5 x8 (can Gen5 x16)");
}

/* A Gen4 x16 NIC trained at x8 is short; its GPU idling at Gen1 is not
 * (a GPU's speed at idle says nothing), but a GPU at x8 is. */
static void test_links_nic_x8(void **state)
{
    (void)state;
    char root[4096], text[512];
    detect_links("nic-x8", root, sizeof(root));
    gdr_node_links_summary(&links, text, sizeof(text));
    assert_string_equal(text, "NIC Gen4 x8 (1); GPU x16, up to Gen4 (1)");
    gdr_node_links_short(&links, text, sizeof(text));
    assert_string_equal(text, "mlx5_0 Gen4 x8 (can Gen4 x16)");
    for (size_t i = 0; i < links.n; i++)
        if (links.link[i].hop.role == GDR_PCIE_GPU) {
            assert_true(links.link[i].hop.below_max); /* the doctor WARNs */
            assert_false(gdr_node_link_short(&links.link[i]));
            links.link[i].hop.link.cur_width = 8;
            assert_true(gdr_node_link_short(&links.link[i]));
        }
    gdr_node_links_short(&links, text, sizeof(text));
    assert_string_equal(text, "mlx5_0 Gen4 x8 (can Gen4 x16), GPU 0 x8 (can x16)");
}

/* The switch's upstream link at Gen3 below a Gen4 root port. */
static void test_links_bridge_gen3(void **state)
{
    (void)state;
    char root[4096], text[512];
    detect_links("bridge-gen3", root, sizeof(root));
    gdr_node_links_summary(&links, text, sizeof(text));
    assert_string_equal(text, "NIC Gen4 x16 (1); GPU x16, up to Gen4 (1); 1 switch link short");
    gdr_node_links_short(&links, text, sizeof(text));
    assert_string_equal(text, "switch 0000:01:00.0 Gen3 x16 (can Gen4 x16)");
}

/* What the probe writes reads back the same; a software NIC has no link;
 * a file without the array is refused (an older probe's). */
static void test_links_json(void **state)
{
    (void)state;
    char root[4096], a[512], b[512];
    detect_links("bridge-gen3", root, sizeof(root));
    cJSON *j = gdr_node_links_to_json(&links);
    /* gdr_doctor's and the benchmarks' shape (common/topo/pcie_json.h),
     * with the rail's name: the switch's own maximum and the link's */
    const cJSON *sw = NULL, *it;
    cJSON_ArrayForEach(it, j) {
        if (!strcmp(cJSON_GetObjectItem(it, "bdf")->valuestring, "0000:01:00.0"))
            sw = it;
    }
    assert_non_null(sw);
    assert_string_equal(cJSON_GetObjectItem(sw, "name")->valuestring, "0000:01:00.0");
    assert_string_equal(cJSON_GetObjectItem(sw, "role")->valuestring, "bridge");
    assert_true(cJSON_GetObjectItem(sw, "current_gts")->valuedouble == 8);
    assert_true(cJSON_GetObjectItem(sw, "max_gts")->valuedouble == 16);
    assert_true(cJSON_GetObjectItem(sw, "expect_gts")->valuedouble == 16);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sw, "judged")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sw, "below_max")));
    struct gdr_node_links *back = malloc(sizeof(*back));
    assert_non_null(back);
    assert_int_equal(gdr_node_links_from_json(j, back), 0);
    assert_int_equal(back->n, links.n);
    gdr_node_links_summary(&links, a, sizeof(a));
    gdr_node_links_summary(back, b, sizeof(b));
    assert_string_equal(a, b);
    gdr_node_links_short(back, b, sizeof(b));
    assert_string_equal(b, "switch 0000:01:00.0 Gen3 x16 (can Gen4 x16)");
    cJSON_Delete(j);
    assert_int_equal(gdr_node_links_from_json(NULL, back), -1);
    /* an older probe's file (no max_*, judged) reads the same */
    cJSON *old = cJSON_Parse("[{\"role\":\"nic\",\"name\":\"mlx5_0\",\"bdf\":\"0000:04:00.0\","
                             "\"current_gts\":16,\"current_width\":8,\"expect_gts\":16,"
                             "\"expect_width\":16,\"below_max\":true}]");
    assert_int_equal(gdr_node_links_from_json(old, back), 0);
    gdr_node_links_short(back, b, sizeof(b));
    assert_string_equal(b, "mlx5_0 Gen4 x8 (can Gen4 x16)");
    cJSON_Delete(old);
    detect_links("rxe", root, sizeof(root));
    assert_int_equal(links.n, 0);
    gdr_node_links_summary(&links, a, sizeof(a));
    assert_string_equal(a, "-");
    free(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx_one_pix_nic_per_gpu),
        cmocka_unit_test(test_dgx_two_gpus_per_nic),
        cmocka_unit_test(test_dgx_down_port),
        cmocka_unit_test(test_pairing_is_shared),
        cmocka_unit_test(test_single_pairs),
        cmocka_unit_test(test_grace_c2c),
        cmocka_unit_test(test_host_only_and_empty),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_links_dgx),
        cmocka_unit_test(test_links_nic_x8),
        cmocka_unit_test(test_links_bridge_gen3),
        cmocka_unit_test(test_links_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
