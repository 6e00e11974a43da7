/* Unit tests: cluster_rails on the doctor's captured sysfs trees
 * (tests/fixtures, made by gen-fixtures.py), the DGX-like one included. */
#include "config.h"

#include "unit.h"

#include "cluster_rails.h"

#include <stdio.h>
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
    char root[4096];
    snprintf(root, sizeof(root), "%s/%s/sys", base, fixture);
    gdr_error_clear();
    if (gdr_rails_detect(root, &map))
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx_one_pix_nic_per_gpu),
        cmocka_unit_test(test_single_pairs),
        cmocka_unit_test(test_host_only_and_empty),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
