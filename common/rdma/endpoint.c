#include "config.h"

#include "endpoint.h"
#include "error.h"
#include "json.h"

#include <arpa/inet.h>
#include <string.h>

static void add_common(cJSON *o, const struct gdr_endpoint *ep)
{
    cJSON_AddStringToObject(o, "host", ep->host);
    cJSON_AddStringToObject(o, "device", ep->device);
    cJSON_AddNumberToObject(o, "port", ep->port);
    cJSON_AddStringToObject(o, "link_layer", ep->link_layer);
    cJSON_AddNumberToObject(o, "active_mtu", ep->active_mtu);
    cJSON_AddNumberToObject(o, "speed_bps", ep->speed_bps);
    cJSON_AddNumberToObject(o, "gid_index", ep->gid_index);
    cJSON_AddStringToObject(o, "gid", ep->gid);
    cJSON_AddNumberToObject(o, "lid", ep->lid);
    cJSON_AddNumberToObject(o, "max_qp_rd_atom", ep->max_rd_atom);
    cJSON_AddNumberToObject(o, "max_qp_init_rd_atom", ep->max_init_rd_atom);
    cJSON_AddStringToObject(o, "placement", ep->placement);
    cJSON_AddStringToObject(o, "registration", ep->registration);
    gdr_json_add_u64(o, "buffer_bytes", ep->buf_len);
    gdr_json_add_u64(o, "ring_bytes", ep->ring_bytes);
    gdr_json_add_u64(o, "slot_bytes", ep->slot_bytes);
    cJSON_AddNumberToObject(o, "cuda_device", ep->cuda_device);
    cJSON_AddStringToObject(o, "cuda_bus_id", ep->cuda_bus_id);
    cJSON_AddStringToObject(o, "cuda_name", ep->cuda_name);
    cJSON_AddStringToObject(o, "registration_note", ep->reg_note);
    cJSON_AddStringToObject(o, "pcie_path", ep->pcie_path);
    cJSON_AddBoolToObject(o, "peermem_loaded", ep->peermem_loaded);
    cJSON_AddBoolToObject(o, "dmabuf_possible", ep->dmabuf_possible);
    cJSON_AddBoolToObject(o, "relaxed_ordering", ep->relaxed_ordering);
    cJSON_AddStringToObject(o, "scatter_to_cqe", ep->scatter_to_cqe);
    cJSON_AddStringToObject(o, "gpu_writes_ordering", ep->writes_ordering);
    cJSON_AddStringToObject(o, "gpu_writes_flush", ep->writes_flush);
}

cJSON *gdr_endpoint_report_json(const struct gdr_endpoint *ep)
{
    cJSON *o = cJSON_CreateObject();
    add_common(o, ep);
    cJSON_AddNumberToObject(o, "num_qps", ep->num_qps);
    return o;
}

cJSON *gdr_endpoint_to_json(const struct gdr_endpoint *ep)
{
    cJSON *o = cJSON_CreateObject();
    add_common(o, ep);
    cJSON *qpns = cJSON_AddArrayToObject(o, "qpn");
    for (unsigned i = 0; i < ep->num_qps; i++)
        cJSON_AddItemToArray(qpns, cJSON_CreateNumber(ep->qpn[i]));
    cJSON_AddNumberToObject(o, "psn", ep->psn);
    gdr_json_add_u64(o, "addr", ep->addr);
    cJSON_AddNumberToObject(o, "rkey", ep->rkey);
    gdr_json_add_u64(o, "ring_addr", ep->ring_addr);
    cJSON_AddNumberToObject(o, "ring_rkey", ep->ring_rkey);
    gdr_json_add_u64(o, "credit_addr", ep->credit_addr);
    cJSON_AddNumberToObject(o, "credit_rkey", ep->credit_rkey);
    return o;
}

int gdr_endpoint_from_json(const cJSON *o, struct gdr_endpoint *ep, const char *what)
{
    uint64_t port, mtu, lid, psn, rkey, ring_rkey, credit_rkey, rd_atom, init_rd_atom;
    double gid_index, cuda_device;
    memset(ep, 0, sizeof(*ep));
    if (gdr_json_str(o, "host", ep->host, sizeof(ep->host), what) ||
        gdr_json_str(o, "device", ep->device, sizeof(ep->device), what) ||
        gdr_json_u64(o, "port", 255, &port, what) ||
        gdr_json_str(o, "link_layer", ep->link_layer, sizeof(ep->link_layer), what) ||
        gdr_json_u64(o, "active_mtu", 65536, &mtu, what) ||
        gdr_json_double(o, "speed_bps", &ep->speed_bps, what) ||
        gdr_json_double(o, "gid_index", &gid_index, what) ||
        gdr_json_str(o, "gid", ep->gid, sizeof(ep->gid), what) ||
        gdr_json_u64(o, "lid", 0xffff, &lid, what) ||
        gdr_json_u64(o, "max_qp_rd_atom", 0xffff, &rd_atom, what) ||
        gdr_json_u64(o, "max_qp_init_rd_atom", 0xffff, &init_rd_atom, what) ||
        gdr_json_str(o, "placement", ep->placement, sizeof(ep->placement), what) ||
        gdr_json_str(o, "registration", ep->registration, sizeof(ep->registration), what) ||
        gdr_json_u64(o, "buffer_bytes", UINT64_MAX, &ep->buf_len, what) ||
        gdr_json_u64(o, "psn", 0xffffff, &psn, what) ||
        gdr_json_u64(o, "addr", UINT64_MAX, &ep->addr, what) ||
        gdr_json_u64(o, "rkey", UINT32_MAX, &rkey, what) ||
        gdr_json_u64(o, "ring_addr", UINT64_MAX, &ep->ring_addr, what) ||
        gdr_json_u64(o, "ring_bytes", UINT64_MAX, &ep->ring_bytes, what) ||
        gdr_json_u64(o, "slot_bytes", UINT64_MAX, &ep->slot_bytes, what) ||
        gdr_json_u64(o, "ring_rkey", UINT32_MAX, &ring_rkey, what) ||
        gdr_json_u64(o, "credit_addr", UINT64_MAX, &ep->credit_addr, what) ||
        gdr_json_u64(o, "credit_rkey", UINT32_MAX, &credit_rkey, what) ||
        gdr_json_double(o, "cuda_device", &cuda_device, what) ||
        gdr_json_str(o, "cuda_bus_id", ep->cuda_bus_id, sizeof(ep->cuda_bus_id), what) ||
        gdr_json_str(o, "cuda_name", ep->cuda_name, sizeof(ep->cuda_name), what) ||
        gdr_json_str(o, "registration_note", ep->reg_note, sizeof(ep->reg_note), what) ||
        gdr_json_str(o, "pcie_path", ep->pcie_path, sizeof(ep->pcie_path), what) ||
        gdr_json_bool(o, "peermem_loaded", &ep->peermem_loaded, what) ||
        gdr_json_bool(o, "dmabuf_possible", &ep->dmabuf_possible, what) ||
        gdr_json_bool(o, "relaxed_ordering", &ep->relaxed_ordering, what) ||
        gdr_json_str(o, "scatter_to_cqe", ep->scatter_to_cqe, sizeof(ep->scatter_to_cqe), what) ||
        gdr_json_str(o, "gpu_writes_ordering", ep->writes_ordering, sizeof(ep->writes_ordering),
                     what) ||
        gdr_json_str(o, "gpu_writes_flush", ep->writes_flush, sizeof(ep->writes_flush), what))
        return -1;
    if (cuda_device < -1 || cuda_device > 1023 || cuda_device != (int)cuda_device)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'cuda_device' out of range", what);
    ep->cuda_device = (int)cuda_device;
    ep->ring_rkey = (uint32_t)ring_rkey;
    ep->credit_rkey = (uint32_t)credit_rkey;
    if (gid_index < -1 || gid_index > 65535 || gid_index != (double)(int)gid_index)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'gid_index' is not an index -1..65535", what);
    ep->port = (unsigned)port;
    ep->active_mtu = (unsigned)mtu;
    ep->gid_index = (int)gid_index;
    ep->lid = (uint16_t)lid;
    ep->max_rd_atom = (unsigned)rd_atom;
    ep->max_init_rd_atom = (unsigned)init_rd_atom;
    ep->psn = (uint32_t)psn;
    ep->rkey = (uint32_t)rkey;
    if (ep->gid_index >= 0 && inet_pton(AF_INET6, ep->gid, ep->gid_raw) != 1)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'gid' is not a GID: '%s'", what, ep->gid);

    const cJSON *qpns = cJSON_GetObjectItemCaseSensitive(o, "qpn");
    int n = cJSON_IsArray(qpns) ? cJSON_GetArraySize(qpns) : -1;
    if (n < 1 || n > GDR_MAX_QPS)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'qpn' must list 1..%d queue pairs", what,
                        GDR_MAX_QPS);
    ep->num_qps = (unsigned)n;
    for (int i = 0; i < n; i++) {
        const cJSON *q = cJSON_GetArrayItem(qpns, i);
        double v = cJSON_IsNumber(q) ? q->valuedouble : -1;
        if (v < 1 || v > 0xffffff || v != (double)(uint32_t)v)
            return gdr_fail(GDR_EXIT_RUN, "%s: qpn[%d] is not a QP number", what, i);
        ep->qpn[i] = (uint32_t)v;
    }
    return 0;
}
