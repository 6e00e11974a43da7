/* test_context.c - a row's limit from both ends' facts (common/context.c):
 * which headers the port carries (an InfiniBand path has a GRH only when
 * the QPs address the peer with one, whatever its GID index says), and a
 * peer's ENDPOINT whose PCIe figures are out of any range. */
#include "config.h"

#include "unit.h"

#include <stdio.h>

#include "context.h"
#include "limit.h"
#include "session.h"

#define MIB 1048576u

static const struct gdr_test write_bw = {
    .name = "write_bw", .binary = "gdr_write_bw", .verb = GDR_VERB_WRITE, .metric = GDR_METRIC_BW};

/* An end on a 4x NDR InfiniBand port at MTU 4096, host memory, its NIC
 * on a PCIe link given as JSON text (ends.*.pcie). */
static void ib_end(struct gdr_endpoint *ep, const char *host, const char *pcie_json)
{
    memset(ep, 0, sizeof(*ep));
    snprintf(ep->host, sizeof(ep->host), "%s", host);
    snprintf(ep->link_layer, sizeof(ep->link_layer), "InfiniBand");
    snprintf(ep->placement, sizeof(ep->placement), "host");
    snprintf(ep->registration, sizeof(ep->registration), "host");
    ep->active_mtu = 4096;
    ep->port_data_bps = gdr_port_data_bps(false, 2, 128);
    ep->gid_index = 0; /* every InfiniBand port has its port GID */
    snprintf(ep->pcie_json, sizeof(ep->pcie_json), "%s", pcie_json);
}

static const char gen5_x16[] =
    "{\"nic\":{\"current_gts\":32,\"current_width\":16,\"max_payload\":256},\"bridges\":[],"
    "\"software_nic\":false}";

static struct gdr_session s;
static struct gdr_config cfg;
static struct gdr_size_result row;

/* A write_bw session between two such ends, and a 1 MiB row. */
static void session(const char *client_pcie, const char *server_pcie)
{
    memset(&s, 0, sizeof(s));
    memset(&cfg, 0, sizeof(cfg));
    memset(&row, 0, sizeof(row));
    s.test = &write_bw;
    s.cfg = &cfg;
    ib_end(&s.local, "client", client_pcie);
    ib_end(&s.remote, "server", server_pcie);
    row.size = MIB;
}

static void test_infiniband_without_grh(void **state)
{
    (void)state;
    session(gen5_x16, gen5_x16);
    /* One subnet: LID routing, no GRH on the wire (gdr_verbs_connect). */
    s.local.grh = s.remote.grh = false;
    gdr_context_row_limit(&s, &row);
    struct gdr_port_path p = {.data_bps = s.local.port_data_bps, .mtu = 4096};
    assert_near(row.limit.total.port, gdr_port_limit(&p, GDR_WIRE_WRITE, MIB), 1.0);
    assert_string_equal(row.limit.total.bound_by, "port");
    /* Behind a router both ends address each other with a GRH. */
    s.local.grh = s.remote.grh = true;
    gdr_context_row_limit(&s, &row);
    p.grh = true;
    assert_near(row.limit.total.port, gdr_port_limit(&p, GDR_WIRE_WRITE, MIB), 1.0);
}

static void test_peer_pcie_out_of_range(void **state)
{
    (void)state;
    /* 2^32 + 16 lanes: no link has them; it must not pass for x16. */
    session(gen5_x16, "{\"nic\":{\"current_gts\":32,\"current_width\":4294967312,"
                      "\"max_payload\":4294967552},\"bridges\":[],\"software_nic\":false}");
    gdr_context_row_limit(&s, &row);
    assert_true(row.limit.total.bytes_per_s == 0);
    assert_non_null(strstr(row.limit.total.unknown, "server NIC"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_infiniband_without_grh),
        cmocka_unit_test(test_peer_pcie_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
