#include "config.h"

#include "endpoint.h"
#include "error.h"
#include "json.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static cJSON *affinity_json(const struct gdr_affinity *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "requested", a->requested);
    cJSON_AddStringToObject(o, "binding", a->binding);
    cJSON_AddStringToObject(o, "numa", a->numa);
    cJSON_AddStringToObject(o, "cpus_allowed", a->cpus_allowed);
    cJSON_AddStringToObject(o, "nic_cpus", a->nic_cpus);
    cJSON_AddNumberToObject(o, "nic_numa_node", a->nic_numa_node);
    cJSON_AddNumberToObject(o, "mem_node", a->mem_node);
    cJSON_AddNumberToObject(o, "loop_cpu", a->loop_cpu);
    cJSON_AddStringToObject(o, "loop_cpu_why", a->loop_cpu_why);
    cJSON_AddNumberToObject(o, "buffer_numa_node", a->buffer_numa_node);
    cJSON_AddNumberToObject(o, "ring_numa_node", a->ring_numa_node);
    cJSON_AddStringToObject(o, "note", a->note);
    return o;
}

/* A small signed number: a CPU, a node or a VLAN id (-1: none). */
static int small_int(const cJSON *o, const char *key, int max, int *out, const char *what)
{
    double v;
    if (gdr_json_double(o, key, &v, what))
        return -1;
    if (v < -1 || v > max || v != (double)(int)v)
        return gdr_fail(GDR_EXIT_RUN, "%s: field '%s' is not -1..%d", what, key, max);
    *out = (int)v;
    return 0;
}

static int affinity_from_json(const cJSON *o, struct gdr_affinity *a, const char *what)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "affinity");
    if (!cJSON_IsObject(j))
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'affinity' is %s", what,
                        j ? "not an object" : "missing");
    char w[200];
    snprintf(w, sizeof(w), "%s: affinity", what);
    return gdr_json_str(j, "requested", a->requested, sizeof(a->requested), w) ||
                   gdr_json_str(j, "binding", a->binding, sizeof(a->binding), w) ||
                   gdr_json_str(j, "numa", a->numa, sizeof(a->numa), w) ||
                   gdr_json_str(j, "cpus_allowed", a->cpus_allowed, sizeof(a->cpus_allowed), w) ||
                   gdr_json_str(j, "nic_cpus", a->nic_cpus, sizeof(a->nic_cpus), w) ||
                   small_int(j, "nic_numa_node", 4095, &a->nic_numa_node, w) ||
                   small_int(j, "mem_node", 4095, &a->mem_node, w) ||
                   small_int(j, "loop_cpu", 65535, &a->loop_cpu, w) ||
                   gdr_json_str(j, "loop_cpu_why", a->loop_cpu_why, sizeof(a->loop_cpu_why), w) ||
                   small_int(j, "buffer_numa_node", 4095, &a->buffer_numa_node, w) ||
                   small_int(j, "ring_numa_node", 4095, &a->ring_numa_node, w) ||
                   gdr_json_str(j, "note", a->note, sizeof(a->note), w)
               ? -1
               : 0;
}

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
    cJSON_AddStringToObject(o, "gid_type", ep->gid_type);
    cJSON_AddStringToObject(o, "gid_family", ep->gid_family);
    cJSON_AddStringToObject(o, "gid_netdev", ep->gid_netdev);
    cJSON_AddNumberToObject(o, "gid_vlan", ep->gid_vlan);
    cJSON_AddBoolToObject(o, "grh", ep->grh);
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
    cJSON_AddStringToObject(o, "gpu_alloc", ep->gpu_alloc);
    cJSON_AddStringToObject(o, "dmabuf_mapping", ep->dmabuf_mapping);
    cJSON_AddBoolToObject(o, "data_direct", ep->data_direct);
    cJSON_AddBoolToObject(o, "gpu_c2c", ep->gpu_c2c);
    if (ep->relaxed_ordering_enabled < 0)
        cJSON_AddNullToObject(o, "relaxed_ordering_enabled");
    else
        cJSON_AddBoolToObject(o, "relaxed_ordering_enabled", ep->relaxed_ordering_enabled);
    cJSON_AddItemToObject(o, "affinity", affinity_json(&ep->affinity));
}

int gdr_endpoint_relaxed_in_effect(const struct gdr_endpoint *ep)
{
    if (!ep->relaxed_ordering || ep->relaxed_ordering_enabled == 0)
        return 0;
    return ep->data_direct || ep->relaxed_ordering_enabled < 0 ? -1 : 1;
}

cJSON *gdr_endpoint_document_json(const struct gdr_endpoint *ep)
{
    cJSON *o = cJSON_CreateObject();
    add_common(o, ep);
    int ro = gdr_endpoint_relaxed_in_effect(ep);
    if (ro < 0)
        cJSON_AddNullToObject(o, "relaxed_ordering_in_effect");
    else
        cJSON_AddBoolToObject(o, "relaxed_ordering_in_effect", ro);
    cJSON_AddNumberToObject(o, "num_qps", ep->num_qps);
    if (ep->port_data_bps > 0)
        cJSON_AddNumberToObject(o, "port_data_bps", ep->port_data_bps);
    else
        cJSON_AddNullToObject(o, "port_data_bps");
    cJSON_AddStringToObject(o, "port_rate_note", ep->port_note);
    /* Texts this end or the peer wrote; a broken one is left out. */
    cJSON *pcie = cJSON_Parse(ep->pcie_json), *gpu = cJSON_Parse(ep->gpu_json);
    if (cJSON_IsObject(pcie))
        cJSON_AddItemToObject(o, "pcie", pcie);
    else
        cJSON_Delete(pcie);
    if (cJSON_IsObject(gpu))
        cJSON_AddItemToObject(o, "gpu_state", gpu);
    else
        cJSON_Delete(gpu);
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
    cJSON_AddNumberToObject(o, "port_data_bps", ep->port_data_bps);
    cJSON_AddStringToObject(o, "port_note", ep->port_note);
    cJSON_AddStringToObject(o, "pcie_json", ep->pcie_json);
    cJSON_AddStringToObject(o, "gpu_json", ep->gpu_json);
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
        gdr_json_str(o, "gpu_writes_flush", ep->writes_flush, sizeof(ep->writes_flush), what) ||
        gdr_json_double(o, "port_data_bps", &ep->port_data_bps, what) ||
        gdr_json_str(o, "port_note", ep->port_note, sizeof(ep->port_note), what) ||
        gdr_json_str(o, "pcie_json", ep->pcie_json, sizeof(ep->pcie_json), what) ||
        gdr_json_str(o, "gpu_json", ep->gpu_json, sizeof(ep->gpu_json), what) ||
        gdr_json_str(o, "gpu_alloc", ep->gpu_alloc, sizeof(ep->gpu_alloc), what) ||
        gdr_json_str(o, "dmabuf_mapping", ep->dmabuf_mapping, sizeof(ep->dmabuf_mapping), what) ||
        gdr_json_bool(o, "data_direct", &ep->data_direct, what) ||
        gdr_json_bool(o, "gpu_c2c", &ep->gpu_c2c, what) ||
        gdr_json_str(o, "gid_type", ep->gid_type, sizeof(ep->gid_type), what) ||
        gdr_json_str(o, "gid_family", ep->gid_family, sizeof(ep->gid_family), what) ||
        gdr_json_str(o, "gid_netdev", ep->gid_netdev, sizeof(ep->gid_netdev), what) ||
        small_int(o, "gid_vlan", 4095, &ep->gid_vlan, what) ||
        gdr_json_bool(o, "grh", &ep->grh, what) || affinity_from_json(o, &ep->affinity, what))
        return -1;
    if (ep->port_data_bps < 0 || ep->port_data_bps > 1e13)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'port_data_bps' out of range", what);
    const cJSON *ro = cJSON_GetObjectItemCaseSensitive(o, "relaxed_ordering_enabled");
    if (!cJSON_IsNull(ro) && !cJSON_IsBool(ro))
        return gdr_fail(GDR_EXIT_RUN,
                        "%s: field 'relaxed_ordering_enabled' is not true, false or null", what);
    ep->relaxed_ordering_enabled = cJSON_IsNull(ro) ? -1 : cJSON_IsTrue(ro);
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
