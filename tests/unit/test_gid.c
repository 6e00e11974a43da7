/* test_gid.c - which GID an end uses (common/rdma/gid.c), on GID tables
 * written here: IPv4 and IPv6 GIDs, link-local ones, VLAN netdevs, RoCEv1
 * and v2, with and without what the control channel says about the path. */
#include "config.h"

#include "unit.h"

#include <arpa/inet.h>
#include <stdio.h>

#include "gid.h"
#include "verbs.h"

/* One table entry: index, address text (IPv4 as a.b.c.d), type, netdev,
 * VLAN, whether its netdev routes to the peer. */
static struct gdr_gid_entry entry(int index, const char *addr, enum gdr_gid_type type,
                                  const char *netdev, int vlan, bool routes)
{
    struct gdr_gid_entry e = {.index = index, .type = type, .vlan = vlan, .routes_to_peer = routes};
    char text[64];
    snprintf(text, sizeof(text), "%s%s", strchr(addr, ':') ? "" : "::ffff:", addr);
    assert_int_equal(inet_pton(AF_INET6, text, e.raw), 1);
    snprintf(e.netdev, sizeof(e.netdev), "%s", netdev);
    return e;
}

static struct gdr_gid_hint hint_from(const char *source, bool peer_ipv4)
{
    struct gdr_gid_hint h = {.have_peer = true, .peer_ipv4 = peer_ipv4};
    if (source) {
        char text[64];
        snprintf(text, sizeof(text), "%s%s", strchr(source, ':') ? "" : "::ffff:", source);
        assert_int_equal(inet_pton(AF_INET6, text, h.source), 1);
        h.have_source = true;
    }
    return h;
}

#define V1 GDR_GID_ROCE_V1
#define V2 GDR_GID_ROCE_V2
#define N(a) (sizeof(a) / sizeof((a)[0]))

static int chosen_index(const struct gdr_gid_entry *t, size_t n, const struct gdr_gid_hint *h)
{
    int i = gdr_gid_choose(t, n, h);
    return i < 0 ? -1 : t[i].index;
}

/* A common mlx5 table: link-local v1/v2 first, then the IPv4 pair. */
static void test_default_table(void **state)
{
    (void)state;
    const struct gdr_gid_entry t[] = {
        entry(0, "fe80::ba59:9fff:fe12:3456", V1, "eth2", -1, false),
        entry(1, "fe80::ba59:9fff:fe12:3456", V2, "eth2", -1, false),
        entry(2, "10.1.0.5", V1, "eth2", -1, false),
        entry(3, "10.1.0.5", V2, "eth2", -1, false),
    };
    assert_int_equal(chosen_index(t, N(t), NULL), 3);
    struct gdr_gid_hint h = hint_from("10.1.0.5", true);
    assert_int_equal(chosen_index(t, N(t), &h), 3);
}

/* IPv6-only host: the old "first RoCEv2 GID" fallback took fe80::. */
static void test_ipv6_only_skips_link_local(void **state)
{
    (void)state;
    const struct gdr_gid_entry t[] = {
        entry(0, "fe80::1", V1, "eth0", -1, false),
        entry(1, "fe80::1", V2, "eth0", -1, false),
        entry(2, "2001:db8:1::5", V1, "eth0", -1, false),
        entry(3, "2001:db8:1::5", V2, "eth0", -1, false),
    };
    assert_int_equal(chosen_index(t, N(t), NULL), 3);
    struct gdr_gid_hint h = hint_from("2001:db8:1::5", false);
    assert_int_equal(chosen_index(t, N(t), &h), 3);
    assert_true(gdr_gid_is_link_local(t[0].raw));
    assert_false(gdr_gid_is_link_local(t[3].raw));
    assert_string_equal(gdr_gid_family(t[3].raw), "ipv6");
}

/* Only link-local GIDs (no address yet): one of them rather than none, so
 * a run on one L2 segment still works. Empty entries never. */
static void test_link_local_last_resort(void **state)
{
    (void)state;
    struct gdr_gid_entry t[] = {
        entry(0, "fe80::1", V1, "eth0", -1, false),
        entry(1, "fe80::1", V2, "eth0", -1, false),
        entry(2, "::", V2, "", -1, false),
    };
    memset(t[2].raw, 0, 16);
    assert_int_equal(chosen_index(t, N(t), NULL), 1);
    struct gdr_gid_entry empty[1];
    memset(empty, 0, sizeof(empty));
    assert_int_equal(gdr_gid_choose(empty, 1, NULL), -1);
    assert_int_equal(gdr_gid_choose(empty, 0, NULL), -1);
}

/* Two netdevs on the port: the untagged one and a VLAN (the RoCE traffic
 * class lives there). The control channel runs over the VLAN's subnet, so
 * its GID wins, though the untagged IPv4 GID comes first in the table. */
static void test_vlan_that_routes(void **state)
{
    (void)state;
    const struct gdr_gid_entry t[] = {
        entry(0, "fe80::1", V2, "eth0", -1, false),
        entry(1, "192.168.0.5", V2, "eth0", -1, false),
        entry(2, "fe80::1", V2, "eth0.100", 100, false),
        entry(3, "10.100.0.5", V2, "eth0.100", 100, true),
    };
    assert_int_equal(chosen_index(t, N(t), NULL), 3); /* routes to the peer */
    struct gdr_gid_hint h = hint_from("10.100.0.5", true);
    int i = gdr_gid_choose(t, N(t), &h);
    assert_int_equal(t[i].index, 3);
    assert_string_equal(t[i].netdev, "eth0.100");
    assert_int_equal(t[i].vlan, 100);
    /* The control channel on the management network (its address in no
     * GID): the GID whose netdev has a route to the peer. */
    h = hint_from("172.16.0.9", true);
    assert_int_equal(chosen_index(t, N(t), &h), 3);
    /* No netdev routes there either: the first IPv4 RoCEv2 GID. */
    struct gdr_gid_entry u[N(t)];
    memcpy(u, t, sizeof(t));
    u[3].routes_to_peer = false;
    assert_int_equal(chosen_index(u, N(u), &h), 1);
}

/* The control channel's own source address decides over a route. */
static void test_source_address_first(void **state)
{
    (void)state;
    const struct gdr_gid_entry t[] = {
        entry(0, "10.0.0.5", V2, "eth0", -1, true),
        entry(1, "10.0.1.5", V2, "eth1", -1, true),
    };
    struct gdr_gid_hint h = hint_from("10.0.1.5", true);
    assert_int_equal(chosen_index(t, N(t), &h), 1);
    h = hint_from(NULL, true);
    assert_int_equal(chosen_index(t, N(t), &h), 0);
}

/* The peer's family: an IPv6 peer gets the global IPv6 GID, an IPv4 one
 * the IPv4 GID; RoCEv2 before v1 within a family. */
static void test_family_and_type(void **state)
{
    (void)state;
    const struct gdr_gid_entry t[] = {
        entry(0, "10.1.0.5", V1, "eth0", -1, false),
        entry(1, "2001:db8::5", V1, "eth0", -1, false),
        entry(2, "10.1.0.5", V2, "eth0", -1, false),
        entry(3, "2001:db8::5", V2, "eth0", -1, false),
    };
    struct gdr_gid_hint v6 = hint_from(NULL, false), v4 = hint_from(NULL, true);
    assert_int_equal(chosen_index(t, N(t), &v6), 3);
    assert_int_equal(chosen_index(t, N(t), &v4), 2);
    assert_int_equal(chosen_index(t, N(t), NULL), 2);
    /* A RoCEv1-only port (no UDP encapsulation): v1 it is. */
    assert_int_equal(chosen_index(t, 2, &v4), 0);
    assert_string_equal(gdr_gid_type_name(V1), "RoCEv1");
    assert_string_equal(gdr_gid_type_name(V2), "RoCEv2");
    assert_string_equal(gdr_gid_family(t[0].raw), "ipv4");
}

static void test_sockaddr_form(void **state)
{
    (void)state;
    struct sockaddr_in in = {.sin_family = AF_INET};
    inet_pton(AF_INET, "198.18.0.2", &in.sin_addr);
    uint8_t raw[16];
    assert_true(gdr_gid_from_sockaddr((struct sockaddr *)&in, raw));
    static const uint8_t want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 2};
    assert_memory_equal(raw, want, 16);
    assert_true(gdr_gid_is_ipv4(raw));
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, "::ffff:198.18.0.2", &in6.sin6_addr); /* a dual-stack accept */
    assert_true(gdr_gid_from_sockaddr((struct sockaddr *)&in6, raw));
    assert_memory_equal(raw, want, 16);
    struct sockaddr un = {.sa_family = AF_UNIX};
    assert_false(gdr_gid_from_sockaddr(&un, raw));
    /* No netdev, or a family without routes: no route. */
    assert_false(gdr_gid_netdev_routes("", (struct sockaddr *)&in));
    assert_false(gdr_gid_netdev_routes("lo", &un));
    assert_int_equal(gdr_gid_netdev_vlan("lo"), -1);
}

/* The GRH: always on RoCE; on InfiniBand only across subnets (the GIDs'
 * first 8 bytes differ) or with a given GID. */
static void test_grh_choice(void **state)
{
    (void)state;
    struct gdr_verbs v;
    struct gdr_endpoint r;
    memset(&v, 0, sizeof(v));
    memset(&r, 0, sizeof(r));
    v.port_attr.link_layer = IBV_LINK_LAYER_INFINIBAND;
    assert_int_equal(inet_pton(AF_INET6, "fe80::2:c903:a:1b2c", v.gid.raw), 1);
    assert_int_equal(inet_pton(AF_INET6, "fe80::2:c903:a:9f00", r.gid_raw), 1);
    v.gid_index = r.gid_index = 0;
    assert_false(gdr_verbs_path_needs_grh(&v, &r)); /* one subnet: LID routing */
    assert_int_equal(inet_pton(AF_INET6, "fec0:0:0:1:2:c903:a:9f00", r.gid_raw), 1);
    assert_true(gdr_verbs_path_needs_grh(&v, &r)); /* another subnet prefix */
    r.gid_index = -1;                              /* a peer that sent no GID cannot be routed to */
    assert_false(gdr_verbs_path_needs_grh(&v, &r));
    r.gid_index = 0;
    assert_int_equal(inet_pton(AF_INET6, "fe80::2:c903:a:9f00", r.gid_raw), 1);
    v.gid_given = true; /* -x: as perftest, a GRH */
    assert_true(gdr_verbs_path_needs_grh(&v, &r));
    v.gid_given = false;
    v.port_attr.link_layer = IBV_LINK_LAYER_ETHERNET;
    assert_true(gdr_verbs_path_needs_grh(&v, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_default_table),          gdr_unit_test(test_ipv6_only_skips_link_local),
        gdr_unit_test(test_link_local_last_resort), gdr_unit_test(test_vlan_that_routes),
        gdr_unit_test(test_source_address_first),   gdr_unit_test(test_family_and_type),
        gdr_unit_test(test_sockaddr_form),          gdr_unit_test(test_grh_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
