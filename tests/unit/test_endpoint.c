/* test_endpoint.c - the endpoint message: a full round trip, and every way a
 * peer's description of itself is refused. */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>

#include "endpoint.h"

static void sample(struct gdr_endpoint *ep)
{
    memset(ep, 0, sizeof(*ep));
    snprintf(ep->host, sizeof(ep->host), "node-a.lab");
    snprintf(ep->device, sizeof(ep->device), "rxe0");
    ep->port = 1;
    snprintf(ep->link_layer, sizeof(ep->link_layer), "Ethernet");
    ep->active_mtu = 1024;
    ep->speed_bps = 100e9;
    ep->gid_index = 3;
    snprintf(ep->gid, sizeof(ep->gid), "::ffff:198.18.0.1");
    ep->lid = 0;
    ep->num_qps = 3;
    ep->max_rd_atom = 16;
    ep->max_init_rd_atom = 128;
    ep->qpn[0] = 17;
    ep->qpn[1] = 0x123456;
    ep->qpn[2] = 0xffffff;
    ep->psn = 0xabcdef;
    ep->addr = 0x7f12345678000ull;
    ep->buf_len = 8ull << 20;
    ep->rkey = 0xdeadbeef;
    snprintf(ep->placement, sizeof(ep->placement), "cuda");
    snprintf(ep->registration, sizeof(ep->registration), "dmabuf");
    ep->relaxed_ordering = true;
    snprintf(ep->scatter_to_cqe, sizeof(ep->scatter_to_cqe), "disabled-mlx5dv");
    snprintf(ep->writes_ordering, sizeof(ep->writes_ordering), "none");
    snprintf(ep->writes_flush, sizeof(ep->writes_flush), "nic-read");
    snprintf(ep->gpu_alloc, sizeof(ep->gpu_alloc), "vmm");
    snprintf(ep->dmabuf_mapping, sizeof(ep->dmabuf_mapping), "default-pcie-refused");
    ep->data_direct = true;
    ep->gpu_c2c = true;
    ep->relaxed_ordering_enabled = 0;
    snprintf(ep->gid_type, sizeof(ep->gid_type), "RoCEv2");
    snprintf(ep->gid_family, sizeof(ep->gid_family), "ipv4");
    snprintf(ep->gid_netdev, sizeof(ep->gid_netdev), "eth0.100");
    ep->gid_vlan = 100;
    ep->grh = true;
    struct gdr_affinity *a = &ep->affinity;
    snprintf(a->requested, sizeof(a->requested), "nic");
    snprintf(a->binding, sizeof(a->binding), "partial");
    snprintf(a->numa, sizeof(a->numa), "preferred");
    snprintf(a->cpus_allowed, sizeof(a->cpus_allowed), "4-5");
    snprintf(a->nic_cpus, sizeof(a->nic_cpus), "4-7");
    a->nic_numa_node = 1;
    a->mem_node = 1;
    a->loop_cpu = 5;
    snprintf(a->loop_cpu_why, sizeof(a->loop_cpu_why), "a CPU of its own: 8 CPUs");
    a->buffer_numa_node = 1;
    a->ring_numa_node = -1;
    snprintf(a->note, sizeof(a->note), "the cpuset (2-5) leaves 4-5");
}

static void assert_endpoint_equal(const struct gdr_endpoint *a, const struct gdr_endpoint *b)
{
    assert_string_equal(a->host, b->host);
    assert_string_equal(a->device, b->device);
    assert_int_equal(a->port, b->port);
    assert_string_equal(a->link_layer, b->link_layer);
    assert_int_equal(a->active_mtu, b->active_mtu);
    assert_near(a->speed_bps, b->speed_bps, 0);
    assert_int_equal(a->gid_index, b->gid_index);
    assert_string_equal(a->gid, b->gid);
    assert_int_equal(a->lid, b->lid);
    assert_int_equal(a->num_qps, b->num_qps);
    assert_int_equal(a->max_rd_atom, b->max_rd_atom);
    assert_int_equal(a->max_init_rd_atom, b->max_init_rd_atom);
    for (unsigned i = 0; i < a->num_qps; i++)
        assert_int_equal(a->qpn[i], b->qpn[i]);
    assert_int_equal(a->psn, b->psn);
    assert_int_equal(a->addr, b->addr);
    assert_int_equal(a->buf_len, b->buf_len);
    assert_int_equal(a->rkey, b->rkey);
    assert_string_equal(a->placement, b->placement);
    assert_string_equal(a->registration, b->registration);
    assert_int_equal(a->relaxed_ordering, b->relaxed_ordering);
    assert_string_equal(a->scatter_to_cqe, b->scatter_to_cqe);
    assert_string_equal(a->writes_ordering, b->writes_ordering);
    assert_string_equal(a->writes_flush, b->writes_flush);
    assert_string_equal(a->gpu_alloc, b->gpu_alloc);
    assert_string_equal(a->dmabuf_mapping, b->dmabuf_mapping);
    assert_int_equal(a->data_direct, b->data_direct);
    assert_int_equal(a->gpu_c2c, b->gpu_c2c);
    assert_int_equal(a->relaxed_ordering_enabled, b->relaxed_ordering_enabled);
    assert_string_equal(a->gid_type, b->gid_type);
    assert_string_equal(a->gid_family, b->gid_family);
    assert_string_equal(a->gid_netdev, b->gid_netdev);
    assert_int_equal(a->gid_vlan, b->gid_vlan);
    assert_int_equal(a->grh, b->grh);
    const struct gdr_affinity *x = &a->affinity, *y = &b->affinity;
    assert_string_equal(x->requested, y->requested);
    assert_string_equal(x->binding, y->binding);
    assert_string_equal(x->numa, y->numa);
    assert_string_equal(x->cpus_allowed, y->cpus_allowed);
    assert_string_equal(x->nic_cpus, y->nic_cpus);
    assert_int_equal(x->nic_numa_node, y->nic_numa_node);
    assert_int_equal(x->mem_node, y->mem_node);
    assert_int_equal(x->loop_cpu, y->loop_cpu);
    assert_string_equal(x->loop_cpu_why, y->loop_cpu_why);
    assert_int_equal(x->buffer_numa_node, y->buffer_numa_node);
    assert_int_equal(x->ring_numa_node, y->ring_numa_node);
    assert_string_equal(x->note, y->note);
}

/* Encode, print, parse the text, decode: what the peer would see. */
static int wire(const struct gdr_endpoint *in, struct gdr_endpoint *out)
{
    cJSON *o = gdr_endpoint_to_json(in);
    char *text = cJSON_PrintUnformatted(o);
    cJSON *back = cJSON_Parse(text);
    int rc = gdr_endpoint_from_json(back, out, "ENDPOINT from peer");
    cJSON_Delete(back);
    free(text);
    cJSON_Delete(o);
    return rc;
}

static void test_round_trip(void **state)
{
    (void)state;
    struct gdr_endpoint in, out;
    sample(&in);
    assert_int_equal(wire(&in, &out), 0);
    assert_endpoint_equal(&in, &out);
    /* The GID text becomes the raw 16 bytes: ::ffff:198.18.0.1 */
    static const uint8_t raw[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1};
    assert_memory_equal(out.gid_raw, raw, 16);
    /* Relaxed ordering's bit unknown: null on the wire, -1 back. */
    in.relaxed_ordering_enabled = -1;
    assert_int_equal(wire(&in, &out), 0);
    assert_int_equal(out.relaxed_ordering_enabled, -1);
    in.relaxed_ordering_enabled = 1;
    assert_int_equal(wire(&in, &out), 0);
    assert_int_equal(out.relaxed_ordering_enabled, 1);
}

static void test_round_trip_infiniband(void **state)
{
    (void)state;
    struct gdr_endpoint in, out;
    sample(&in);
    snprintf(in.link_layer, sizeof(in.link_layer), "InfiniBand");
    in.gid_index = -1; /* LID routing: no GID, and the text is not checked */
    in.gid[0] = '\0';
    in.lid = 0xbeef;
    in.num_qps = 64;
    for (unsigned i = 0; i < 64; i++)
        in.qpn[i] = 1000 + i;
    assert_int_equal(wire(&in, &out), 0);
    assert_endpoint_equal(&in, &out);
}

/* Large addresses and lengths survive the text form exactly (above 2^53 a
 * double cannot hold them; from 10^15 cJSON's printer drops digits). */
static void test_large_addresses(void **state)
{
    (void)state;
    static const uint64_t addrs[] = {
        0x7ffff7a00000ull,   999999999999999ull,    1000000000000001ull,
        4503599627370497ull, (1ull << 53) - 1,      1ull << 53,
        (1ull << 53) + 1,    0xffff800012345679ull, UINT64_MAX,
    };
    for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
        struct gdr_endpoint in, out;
        sample(&in);
        in.addr = addrs[i];
        in.buf_len = addrs[i] - 1;
        assert_int_equal(wire(&in, &out), 0);
        assert_int_equal(out.addr, addrs[i]);
        assert_int_equal(out.buf_len, addrs[i] - 1);

        cJSON *o = gdr_endpoint_to_json(&in);
        const cJSON *a = cJSON_GetObjectItem(o, "addr");
        if (addrs[i] > (1ull << 53))
            assert_true(cJSON_IsString(a));
        if (addrs[i] < 1000000000000000ull)
            assert_true(cJSON_IsNumber(a));
        cJSON_Delete(o);
    }
}

static const char *const all_keys[] = {
    "host",
    "device",
    "port",
    "link_layer",
    "active_mtu",
    "speed_bps",
    "gid_index",
    "gid",
    "lid",
    "placement",
    "registration",
    "buffer_bytes",
    "qpn",
    "psn",
    "addr",
    "rkey",
    "gid_netdev",
    "gid_vlan",
    "grh",
    "affinity",
    "max_qp_rd_atom",
    "max_qp_init_rd_atom",
};

static void test_missing_field(void **state)
{
    (void)state;
    struct gdr_endpoint in, out;
    sample(&in);
    for (size_t i = 0; i < sizeof(all_keys) / sizeof(all_keys[0]); i++) {
        cJSON *o = gdr_endpoint_to_json(&in);
        assert_non_null(cJSON_GetObjectItem(o, all_keys[i]));
        cJSON_DeleteItemFromObjectCaseSensitive(o, all_keys[i]);
        gdr_error_clear();
        if (gdr_endpoint_from_json(o, &out, "ENDPOINT from 198.18.0.2") != -1)
            fail_msg("accepted without '%s'", all_keys[i]);
        char want[64];
        snprintf(want, sizeof(want), "'%s'", all_keys[i]);
        if (!strstr(gdr_error_message(), want) ||
            !strstr(gdr_error_message(), "ENDPOINT from 198.18.0.2"))
            fail_msg("without '%s': message '%s'", all_keys[i], gdr_error_message());
        assert_int_equal(gdr_error_code(), GDR_EXIT_RUN);
        cJSON_Delete(o);
    }
    gdr_error_clear();
}

/* Replace one field of a valid message and expect a refusal naming it. */
static void expect_rejected(const char *key, cJSON *value, const char *fragment)
{
    struct gdr_endpoint in, out;
    sample(&in);
    cJSON *o = gdr_endpoint_to_json(&in);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, key, value));
    gdr_error_clear();
    char *text = cJSON_PrintUnformatted(value);
    if (gdr_endpoint_from_json(o, &out, "peer") != -1)
        fail_msg("%s = %s accepted", key, text);
    if (!strstr(gdr_error_message(), fragment))
        fail_msg("%s = %s: message '%s' lacks '%s'", key, text, gdr_error_message(), fragment);
    free(text);
    cJSON_Delete(o);
    gdr_error_clear();
}

static cJSON *qpn_list(unsigned n, double first)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(first + i));
    return a;
}

static void test_wrong_types_and_ranges(void **state)
{
    (void)state;
    expect_rejected("host", cJSON_CreateNumber(1), "field 'host' is not a string");
    expect_rejected("host",
                    cJSON_CreateString("a-host-name-that-is-longer-than-the-sixty-"
                                       "three-bytes-the-struct-holds"),
                    "field 'host' is longer than 63 bytes");
    expect_rejected("port", cJSON_CreateString("one"), "field 'port'");
    expect_rejected("gid_vlan", cJSON_CreateNumber(4096), "field 'gid_vlan' is not -1..4095");
    expect_rejected("affinity", cJSON_CreateString("nic"), "field 'affinity' is not an object");
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "requested", "nic");
    expect_rejected("affinity", a, "affinity: field 'binding'");
    expect_rejected("port", cJSON_CreateNumber(256), "field 'port'");
    expect_rejected("port", cJSON_CreateNumber(-1), "field 'port'");
    expect_rejected("active_mtu", cJSON_CreateNumber(1.5), "field 'active_mtu'");
    expect_rejected("speed_bps", cJSON_CreateString("100G"), "field 'speed_bps' is not a number");
    expect_rejected("gid_index", cJSON_CreateNumber(-2), "field 'gid_index'");
    expect_rejected("gid_index", cJSON_CreateNumber(65536), "field 'gid_index'");
    expect_rejected("gid_index", cJSON_CreateNumber(1.5), "field 'gid_index'");
    expect_rejected("gid_index", cJSON_CreateTrue(), "field 'gid_index'");
    expect_rejected("lid", cJSON_CreateNumber(65536), "field 'lid'");
    expect_rejected("psn", cJSON_CreateNumber(1 << 24), "field 'psn'");
    expect_rejected("rkey", cJSON_CreateNumber(4294967296.0), "field 'rkey'");
    expect_rejected("addr", cJSON_CreateString("18446744073709551616"), "field 'addr'");
    expect_rejected("addr", cJSON_CreateString("0x1000"), "field 'addr'");
    expect_rejected("addr", cJSON_CreateNumber(9007199254740994.0), "field 'addr'");
    expect_rejected("placement", cJSON_CreateNull(), "field 'placement'");
    expect_rejected("gid", cJSON_CreateString("198.18.0.1"), "field 'gid' is not a GID");
    expect_rejected("gid", cJSON_CreateString("not-a-gid"), "field 'gid' is not a GID");
    expect_rejected("gid", cJSON_CreateString(""), "field 'gid' is not a GID");
    expect_rejected("relaxed_ordering_enabled", cJSON_CreateString("yes"),
                    "'relaxed_ordering_enabled' is not true, false or null");
    expect_rejected("gpu_alloc", cJSON_CreateNumber(1), "'gpu_alloc' is not a string");
}

static void test_qpn_list(void **state)
{
    (void)state;
    expect_rejected("qpn", cJSON_CreateArray(), "field 'qpn' must list 1..64");
    expect_rejected("qpn", qpn_list(65, 100), "field 'qpn' must list 1..64");
    expect_rejected("qpn", cJSON_CreateNumber(17), "field 'qpn' must list 1..64");
    expect_rejected("qpn", qpn_list(1, 0), "qpn[0] is not a QP number");
    expect_rejected("qpn", qpn_list(3, 16777214), "qpn[2] is not a QP number"); /* 2^24 */
    expect_rejected("qpn", qpn_list(1, 1.5), "qpn[0] is not a QP number");
    expect_rejected("qpn", qpn_list(1, -1), "qpn[0] is not a QP number");
    cJSON *strs = cJSON_CreateArray();
    cJSON_AddItemToArray(strs, cJSON_CreateNumber(5));
    cJSON_AddItemToArray(strs, cJSON_CreateString("6"));
    expect_rejected("qpn", strs, "qpn[1] is not a QP number");
}

static void test_report_form(void **state)
{
    (void)state;
    struct gdr_endpoint ep;
    sample(&ep);
    cJSON *o = gdr_endpoint_document_json(&ep);
    /* Facts for the report, without keys or queue numbers. */
    assert_null(cJSON_GetObjectItem(o, "qpn"));
    assert_null(cJSON_GetObjectItem(o, "rkey"));
    assert_null(cJSON_GetObjectItem(o, "addr"));
    assert_null(cJSON_GetObjectItem(o, "psn"));
    assert_int_equal(cJSON_GetObjectItem(o, "num_qps")->valuedouble, 3);
    assert_string_equal(cJSON_GetObjectItem(o, "device")->valuestring, "rxe0");
    assert_string_equal(cJSON_GetObjectItem(o, "placement")->valuestring, "cuda");
    assert_int_equal(cJSON_GetObjectItem(o, "buffer_bytes")->valuedouble, 8 << 20);
    cJSON_Delete(o);
}

/* Relaxed ordering as the document records it: what is in effect, not what
 * was asked. Through Data Direct the mlx5 kernel drops it silently where
 * the engine has no relaxed-ordering key, so asking proves nothing there. */
static void test_relaxed_in_effect(void **state)
{
    (void)state;
    struct gdr_endpoint ep;
    sample(&ep);
    ep.relaxed_ordering = true;
    ep.relaxed_ordering_enabled = 1;
    ep.data_direct = false;
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), 1);
    ep.data_direct = true; /* asked and allowed, but through Data Direct */
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), -1);
    cJSON *o = gdr_endpoint_document_json(&ep);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "relaxed_ordering_in_effect")));
    assert_true(
        cJSON_IsTrue(cJSON_GetObjectItem(o, "relaxed_ordering"))); /* still what was asked */
    cJSON_Delete(o);
    ep.relaxed_ordering_enabled = 0; /* Device Control forbids it: off either way */
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), 0);
    ep.data_direct = false;
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), 0);
    ep.relaxed_ordering_enabled = -1; /* a software NIC, or config space unreadable */
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), -1);
    ep.relaxed_ordering = false; /* --disable_pcie_relaxed: never in effect */
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), 0);
    ep.relaxed_ordering_enabled = 1;
    ep.data_direct = true;
    assert_int_equal(gdr_endpoint_relaxed_in_effect(&ep), 0);
    o = gdr_endpoint_document_json(&ep);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "relaxed_ordering_in_effect")));
    cJSON_Delete(o);
    /* the wire form carries the facts, not the judgment */
    o = gdr_endpoint_to_json(&ep);
    assert_null(cJSON_GetObjectItem(o, "relaxed_ordering_in_effect"));
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_round_trip),
        gdr_unit_test(test_round_trip_infiniband),
        gdr_unit_test(test_large_addresses),
        gdr_unit_test(test_missing_field),
        gdr_unit_test(test_wrong_types_and_ranges),
        gdr_unit_test(test_qpn_list),
        gdr_unit_test(test_report_form),
        gdr_unit_test(test_relaxed_in_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
