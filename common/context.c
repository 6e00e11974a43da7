/* context.c - every number with its context (see context.h). */
#include "config.h"

#include "context.h"

#include "json.h"
#include "limit.h"
#include "pcie.h"
#include "pcie_json.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

/* rxe and siw advertise these vendor ids, should sysfs not tell. */
#define RXE_VENDOR_ID 0xffffffu
#define SIW_VENDOR_ID 0x626d74u

void gdr_context_gpu_bdf(const char *cuda_bus_id, char *bdf, size_t len)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(cuda_bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
        snprintf(bdf, len, "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
    else if (len)
        bdf[0] = '\0';
}

/* The port's data rate, or why it is not known. */
static void describe_port(struct gdr_session *s)
{
    struct gdr_endpoint *ep = &s->local;
    const struct ibv_port_attr *pa = &s->verbs.port_attr;
    struct gdr_ibdev_info info;
    bool software =
        gdr_topo_ibdev_info(NULL, s->verbs.dev_name, &info, NULL, 0) == 0 && info.software;
    unsigned vendor = s->verbs.dev_attr.vendor_id;
    if (software || vendor == RXE_VENDOR_ID || vendor == SIW_VENDOR_ID) {
        snprintf(ep->port_note, sizeof(ep->port_note),
                 "%s is a software RDMA device (%s): the rate it reports is not one it reaches",
                 s->verbs.dev_name,
                 software ? (info.parent_netdev[0] ? "rxe, sysfs 'parent'" : "sysfs")
                          : "vendor id");
        return;
    }
    unsigned speed = pa->active_speed;
#ifdef HAVE_STRUCT_IBV_PORT_ATTR_ACTIVE_SPEED_EX
    if (pa->active_speed_ex)
        speed = pa->active_speed_ex;
#endif
    ep->port_data_bps =
        gdr_port_data_bps(pa->link_layer == IBV_LINK_LAYER_ETHERNET, pa->active_width, speed);
    if (ep->port_data_bps <= 0)
        snprintf(ep->port_note, sizeof(ep->port_note),
                 "%s port %d: width code %u, speed code %u not known", s->verbs.dev_name,
                 s->verbs.port, pa->active_width, speed);
}

static void add_num_or_null(cJSON *o, const char *key, double v, bool known)
{
    if (known)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* ends.*.pcie: the NIC, the GPU and every bridge above them. */
static void describe_pcie(struct gdr_session *s)
{
    struct gdr_endpoint *ep = &s->local;
    struct gdr_ibdev_info info;
    cJSON *o = cJSON_CreateObject(), *bridges = cJSON_CreateArray();
    struct gdr_pcie_hop walk[33];
    size_t n = 0;
    char seen[64][GDR_BDF_LEN];
    size_t nseen = 0;
    const char *nic_bdf =
        gdr_topo_ibdev_info(NULL, s->verbs.dev_name, &info, NULL, 0) == 0 && !info.software
            ? info.pci_bdf
            : "";
    const char *what[2] = {"nic", "gpu"}, *bdf[2] = {nic_bdf, s->ctx.gpu_bdf};
    for (int k = 0; k < 2; k++) {
        if (!bdf[k][0] ||
            gdr_topo_pcie_walk(NULL, bdf[k], k ? GDR_PCIE_GPU : GDR_PCIE_NIC, walk, 33, &n) || !n) {
            if (k == 0 || s->ctx.gpu_bdf[0])
                cJSON_AddNullToObject(o, what[k]);
            continue;
        }
        cJSON_AddItemToObject(o, what[k], gdr_pcie_hop_to_json(&walk[0]));
        for (size_t i = 1; i < n; i++) {
            bool dup = false;
            for (size_t j = 0; j < nseen && !dup; j++)
                dup = strcmp(seen[j], walk[i].link.bdf) == 0;
            if (dup || nseen == 64)
                continue;
            memcpy(seen[nseen++], walk[i].link.bdf, GDR_BDF_LEN);
            cJSON_AddItemToArray(bridges, gdr_pcie_hop_to_json(&walk[i]));
        }
    }
    cJSON_AddItemToObject(o, "bridges", bridges);
    cJSON_AddBoolToObject(o, "software_nic", !nic_bdf[0] && info.software);
    char *text = cJSON_PrintUnformatted(o);
    if (text && strlen(text) < sizeof(ep->pcie_json))
        memcpy(ep->pcie_json, text, strlen(text) + 1);
    else
        snprintf(ep->pcie_json, sizeof(ep->pcie_json), "{\"note\":\"too many bridges\"}");
    cJSON_free(text);
    cJSON_Delete(o);
}

static void add_tristate(cJSON *o, const char *key, int v)
{
    if (v >= 0)
        cJSON_AddBoolToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void describe_gpu(struct gdr_session *s)
{
    struct gdr_gpu_state st;
    gdr_nvml_open(&s->ctx.nvml, NULL, s->buf.cuda_bus_id, &st);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "available", st.available);
    if (!st.available) {
        cJSON_AddStringToObject(o, "why", st.why);
    } else {
        add_tristate(o, "persistence_mode", st.persistence);
        add_tristate(o, "ecc_mode", st.ecc);
        add_num_or_null(o, "ecc_uncorrected_volatile", (double)st.ecc_uncorrected,
                        st.ecc_uncorrected >= 0);
        add_tristate(o, "mig_mode", st.mig);
        add_num_or_null(o, "max_pcie_gen", st.max_pcie_gen, st.max_pcie_gen > 0);
        add_num_or_null(o, "max_pcie_width", st.max_pcie_width, st.max_pcie_width > 0);
    }
    char *text = cJSON_PrintUnformatted(o);
    snprintf(s->local.gpu_json, sizeof(s->local.gpu_json), "%s", text ? text : "");
    cJSON_free(text);
    cJSON_Delete(o);
}

void gdr_context_describe(struct gdr_session *s)
{
    if (s->buf.cuda_device >= 0)
        gdr_context_gpu_bdf(s->buf.cuda_bus_id, s->ctx.gpu_bdf, sizeof(s->ctx.gpu_bdf));
    describe_port(s);
    describe_pcie(s);
    gdr_counters_watch_init(&s->ctx.nic, NULL, s->verbs.dev_name, (unsigned)s->verbs.port);
    if (s->buf.cuda_device >= 0)
        describe_gpu(s);
}

void gdr_context_size_begin(struct gdr_session *s)
{
    gdr_counters_watch_begin(&s->ctx.nic);
    gdr_nvml_mark(&s->ctx.nvml);
}

void gdr_context_size_end(struct gdr_session *s, uint64_t quiet_ns, struct gdr_size_seen *seen)
{
    memset(seen, 0, sizeof(*seen));
    gdr_counters_watch_end(&s->ctx.nic, quiet_ns, &seen->nic);
    seen->gpu.pstate = -1;
    seen->gpu.replay_delta = -1;
    seen->gpu.temperature_c = -1;
    seen->gpu.ecc_uncorrected = -1;
    if (!s->ctx.gpu_bdf[0])
        return;
    /* The GPU's link as the loop ends: an idle GPU runs it slower. */
    struct gdr_pcie_link l;
    if (gdr_topo_pcie_link(NULL, s->ctx.gpu_bdf, &l) == 0) {
        seen->gpu_gts = l.cur_gts;
        seen->gpu_width = l.cur_width;
    }
    gdr_nvml_sample(&s->ctx.nvml, &seen->gpu);
}

void gdr_context_release(struct gdr_session *s)
{
    gdr_nvml_close(&s->ctx.nvml);
}

/* ---- the limit of a row ---- */

/* What the limit needs of one end's PCIe links. */
struct end_links {
    bool software;           /* no PCIe NIC at all */
    double nic_gts, gpu_gts; /* 0 unknown */
    unsigned nic_width, gpu_width, nic_mps, gpu_mps;
};

/* A figure of the link, 0 unknown; beyond max (a peer's text: anything)
 * unknown too, before a cast to unsigned could wrap it into a real width. */
static double num(const cJSON *o, const char *key, double max)
{
    double v = gdr_jnum_or(o, key, 0);
    return v > 0 && v <= max ? v : 0;
}

/* The most a PCIe link has: 64 GT/s (Gen6), 32 lanes, 4096-byte TLPs. */
#define MAX_GTS 64.0
#define MAX_WIDTH 32.0
#define MAX_MPS 4096.0

static void end_links(const struct gdr_endpoint *ep, const struct gdr_size_seen *seen,
                      struct end_links *l)
{
    memset(l, 0, sizeof(*l));
    cJSON *o = cJSON_Parse(ep->pcie_json);
    const cJSON *nic = cJSON_GetObjectItemCaseSensitive(o, "nic");
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(o, "gpu");
    l->software = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "software_nic"));
    l->nic_gts = num(nic, "current_gts", MAX_GTS);
    l->nic_width = (unsigned)num(nic, "current_width", MAX_WIDTH);
    l->nic_mps = (unsigned)num(nic, "max_payload", MAX_MPS);
    /* The GPU's link as the size's loop ended, else as the run began. */
    l->gpu_gts = seen && seen->gpu_gts > 0 ? seen->gpu_gts : num(gpu, "current_gts", MAX_GTS);
    l->gpu_width =
        seen && seen->gpu_width ? seen->gpu_width : (unsigned)num(gpu, "current_width", MAX_WIDTH);
    l->gpu_mps = (unsigned)num(gpu, "max_payload", MAX_MPS);
    cJSON_Delete(o);
}

/* Without root the max payload is unreadable: 4096, the largest PCIe
 * allows, keeps the limit a ceiling (it errs high). */
static unsigned mps_or_max(unsigned mps)
{
    return mps ? mps : 4096;
}

struct path_end {
    const struct gdr_endpoint *ep;
    const char *role; /* "client", "server" */
    struct end_links links;
    bool gpu, staged;
};

/* Take v into a part: the least over the ends; 0 (unknown) sticks. */
static void lower(struct gdr_path_limit *p, double *part, double v, const char *why_unknown)
{
    if (v <= 0) {
        *part = 0;
        if (!p->unknown[0])
            snprintf(p->unknown, sizeof(p->unknown), "%s", why_unknown);
        return;
    }
    if (*part < 0 || (*part > 0 && v < *part))
        *part = v;
}

static void path_limit(const struct gdr_session *s, const struct path_end *src,
                       const struct path_end *dst, enum gdr_wire_op op, uint64_t size,
                       struct gdr_path_limit *p)
{
    memset(p, 0, sizeof(*p));
    p->port = p->nic_pcie = p->gpu_pcie = -1;
    char why[192];
    /* The port: both ends', at the path MTU (as gdr_verbs_connect sets it). */
    const struct path_end *e[2] = {src, dst};
    unsigned mtu = s->cfg->mtu ? s->cfg->mtu
                               : (src->ep->active_mtu < dst->ep->active_mtu ? src->ep->active_mtu
                                                                            : dst->ep->active_mtu);
    for (int k = 0; k < 2; k++) {
        const struct gdr_endpoint *ep = e[k]->ep;
        struct gdr_port_path path = {
            .ethernet = strcmp(ep->link_layer, "Ethernet") == 0,
            /* InfiniBand: a GRH only where the QPs address the peer with
             * one (another subnet, or -x); every port has a GID index. */
            .grh = strcmp(ep->link_layer, "Ethernet") != 0 && ep->grh,
            .ipv6 = strcmp(ep->link_layer, "Ethernet") == 0 && strncmp(ep->gid, "::ffff:", 7) != 0,
            .data_bps = ep->port_data_bps,
            .mtu = mtu,
        };
        snprintf(why, sizeof(why), "port: %s", ep->port_note[0] ? ep->port_note : "rate unknown");
        lower(p, &p->port, gdr_port_limit(&path, op, size), why);
    }
    /* The NICs' PCIe links: the source's NIC reads (completions come
     * down to it), the destination's writes. */
    for (int k = 0; k < 2; k++) {
        const struct end_links *l = &e[k]->links;
        if (l->software)
            continue;
        snprintf(why, sizeof(why), "nic_pcie: the %s NIC's PCIe link is not readable", e[k]->role);
        lower(p, &p->nic_pcie,
              gdr_pcie_limit(l->nic_gts, l->nic_width, mps_or_max(l->nic_mps),
                             k ? GDR_TLP_WRITE : GDR_TLP_COMPLETION, size),
              why);
    }
    /* A GPU's link: read by the NIC (source) or written (destination);
     * staged, the copy engine writes host memory (source) or reads it. */
    for (int k = 0; k < 2; k++) {
        const struct end_links *l = &e[k]->links;
        if (!e[k]->gpu)
            continue;
        bool writes = (k == 1) != e[k]->staged;
        snprintf(why, sizeof(why), "gpu_pcie: the %s GPU's PCIe link is not readable", e[k]->role);
        lower(p, &p->gpu_pcie,
              gdr_pcie_limit(l->gpu_gts, l->gpu_width, mps_or_max(l->gpu_mps),
                             writes ? GDR_TLP_WRITE : GDR_TLP_COMPLETION, size),
              why);
    }
    if (p->unknown[0])
        return;
    const struct {
        double v;
        const char *name;
    } parts[] = {{p->port, "port"}, {p->nic_pcie, "nic_pcie"}, {p->gpu_pcie, "gpu_pcie"}};
    for (size_t i = 0; i < 3; i++)
        if (parts[i].v > 0 && (!p->bound_by || parts[i].v < p->bytes_per_s)) {
            p->bytes_per_s = parts[i].v;
            p->bound_by = parts[i].name;
        }
}

static void sum_part(double *total, double a, double b)
{
    *total = a < 0 ? -1 : a > 0 && b > 0 ? a + b : 0;
}

void gdr_context_row_limit(const struct gdr_session *s, struct gdr_size_result *row)
{
    memset(&row->limit, 0, sizeof(row->limit));
    if (s->test->metric != GDR_METRIC_BW)
        return;
    row->limit.set = true;
    struct path_end c = {.ep = s->is_server ? &s->remote : &s->local, .role = "client"};
    struct path_end v = {.ep = s->is_server ? &s->local : &s->remote, .role = "server"};
    end_links(c.ep, &row->seen_client, &c.links);
    end_links(v.ep, &row->seen_server, &v.links);
    c.gpu = strcmp(c.ep->placement, "cuda") == 0;
    v.gpu = strcmp(v.ep->placement, "cuda") == 0;
    c.staged = strcmp(c.ep->registration, "staged") == 0;
    v.staged = strcmp(v.ep->registration, "staged") == 0;
    enum gdr_wire_op op = s->test->verb == GDR_VERB_WRITE  ? GDR_WIRE_WRITE
                          : s->test->verb == GDR_VERB_SEND ? GDR_WIRE_SEND
                                                           : GDR_WIRE_READ;
    struct gdr_row_limit *l = &row->limit;
    if (!s->roles.bidirectional) {
        bool reads = s->test->verb == GDR_VERB_READ; /* data flows server -> client */
        path_limit(s, reads ? &v : &c, reads ? &c : &v, op, row->size, &l->total);
        return;
    }
    path_limit(s, &c, &v, op, row->size, &l->dir[0]);
    path_limit(s, &v, &c, op, row->size, &l->dir[1]);
    const struct gdr_path_limit *a = &l->dir[0], *b = &l->dir[1];
    l->total = a->bytes_per_s <= b->bytes_per_s ? *a : *b;
    l->total.bytes_per_s =
        a->bytes_per_s > 0 && b->bytes_per_s > 0 ? a->bytes_per_s + b->bytes_per_s : 0;
    if (!l->total.bytes_per_s)
        l->total.bound_by = NULL;
    sum_part(&l->total.port, a->port, b->port);
    sum_part(&l->total.nic_pcie, a->nic_pcie, b->nic_pcie);
    sum_part(&l->total.gpu_pcie, a->gpu_pcie, b->gpu_pcie);
}

/* ---- the row's JSON ---- */

static void add_part(cJSON *o, const char *key, double v)
{
    if (v >= 0)
        add_num_or_null(o, key, v, v > 0);
}

static cJSON *path_json(const struct gdr_path_limit *p)
{
    cJSON *o = cJSON_CreateObject();
    add_num_or_null(o, "bytes_per_s", p->bytes_per_s, p->bytes_per_s > 0);
    if (p->bound_by)
        cJSON_AddStringToObject(o, "bound_by", p->bound_by);
    else
        cJSON_AddNullToObject(o, "bound_by");
    add_part(o, "port_bytes_per_s", p->port);
    add_part(o, "nic_pcie_bytes_per_s", p->nic_pcie);
    add_part(o, "gpu_pcie_bytes_per_s", p->gpu_pcie);
    if (p->unknown[0])
        cJSON_AddStringToObject(o, "unknown", p->unknown);
    return o;
}

static cJSON *counters_json(const struct gdr_counter_deltas *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "available", d->available);
    if (!d->available)
        return o;
    cJSON_AddBoolToObject(o, "clean", d->clean);
    add_num_or_null(o, "lifespan_s", d->lifespan_s, d->lifespan_s >= 0);
    cJSON_AddNumberToObject(o, "between_snapshots_s", d->between_s);
    cJSON_AddNumberToObject(o, "after_loop_s", d->after_loop_s);
    cJSON_AddNumberToObject(o, "waited_s", d->waited_s);
    cJSON *deltas = cJSON_AddObjectToObject(o, "deltas");
    for (size_t i = 0; i < d->n; i++)
        gdr_json_add_u64(deltas, d->d[i].name, d->d[i].delta);
    cJSON *moved = cJSON_AddArrayToObject(o, "moved");
    for (size_t i = 0; i < d->n; i++)
        if (d->d[i].cls == GDR_COUNTER_ERROR || d->d[i].cls == GDR_COUNTER_RETRANSMIT ||
            d->d[i].cls == GDR_COUNTER_CONGESTION) {
            cJSON *m = cJSON_CreateObject();
            cJSON_AddStringToObject(m, "name", d->d[i].name);
            cJSON_AddStringToObject(m, "class", gdr_counter_class_name(d->d[i].cls));
            cJSON_AddItemToArray(moved, m);
        }
    if (d->nlost) {
        cJSON *lost = cJSON_AddObjectToObject(o, "lost");
        for (size_t i = 0; i < d->nlost && i < GDR_COUNTERS_LOST_MAX; i++)
            cJSON_AddStringToObject(lost, d->lost[i].name, d->lost[i].why);
    }
    return o;
}

static cJSON *gpu_json(const struct gdr_size_seen *seen)
{
    const struct gdr_gpu_sample *g = &seen->gpu;
    cJSON *o = cJSON_CreateObject();
    add_num_or_null(o, "pcie_gts", seen->gpu_gts, seen->gpu_gts > 0);
    add_num_or_null(o, "pcie_width", seen->gpu_width, seen->gpu_width > 0);
    cJSON_AddBoolToObject(o, "nvml", g->available);
    if (!g->available)
        return o;
    add_num_or_null(o, "pstate", g->pstate, g->pstate >= 0);
    add_num_or_null(o, "sm_clock_hz", g->sm_mhz * 1e6, g->sm_mhz > 0);
    add_num_or_null(o, "mem_clock_hz", g->mem_mhz * 1e6, g->mem_mhz > 0);
    add_num_or_null(o, "nvml_pcie_gen", g->pcie_gen, g->pcie_gen > 0);
    add_num_or_null(o, "nvml_pcie_width", g->pcie_width, g->pcie_width > 0);
    if (g->throttle_known) {
        char names[160];
        gdr_nvml_throttle_names(g->throttle, names, sizeof(names));
        cJSON *t = cJSON_AddArrayToObject(o, "throttle");
        for (char *save = NULL, *tok = strtok_r(names, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save))
            cJSON_AddItemToArray(t, cJSON_CreateString(tok));
    } else {
        cJSON_AddNullToObject(o, "throttle");
    }
    add_num_or_null(o, "pcie_replays", (double)g->replay_delta, g->replay_delta >= 0);
    add_num_or_null(o, "temperature_c", g->temperature_c, g->temperature_c >= 0);
    add_num_or_null(o, "ecc_uncorrected", (double)g->ecc_uncorrected, g->ecc_uncorrected >= 0);
    return o;
}

void gdr_context_row_json(const struct gdr_session *s, const struct gdr_size_result *r, cJSON *o)
{
    const struct gdr_row_limit *l = &r->limit;
    if (l->set) {
        cJSON *lj = path_json(&l->total);
        if (s->roles.bidirectional) {
            cJSON *d = cJSON_AddObjectToObject(lj, "directions");
            cJSON_AddItemToObject(d, "client_to_server", path_json(&l->dir[0]));
            cJSON_AddItemToObject(d, "server_to_client", path_json(&l->dir[1]));
        }
        cJSON_AddItemToObject(o, "limit", lj);
        add_num_or_null(o, "pct_of_limit", 100.0 * r->m.bw_avg / l->total.bytes_per_s,
                        l->total.bytes_per_s > 0);
    }
    const struct gdr_counter_deltas *c = &r->seen_client.nic, *v = &r->seen_server.nic;
    if (c->available || v->available)
        cJSON_AddBoolToObject(o, "clean",
                              (!c->available || c->clean) && (!v->available || v->clean));
    cJSON *nc = cJSON_AddObjectToObject(o, "nic_counters");
    cJSON_AddItemToObject(nc, "client", counters_json(c));
    cJSON_AddItemToObject(nc, "server", counters_json(v));
    const struct gdr_endpoint *ce = s->is_server ? &s->remote : &s->local;
    const struct gdr_endpoint *se = s->is_server ? &s->local : &s->remote;
    bool cg = strcmp(ce->placement, "cuda") == 0, sg = strcmp(se->placement, "cuda") == 0;
    if (cg || sg) {
        cJSON *g = cJSON_AddObjectToObject(o, "gpu");
        if (cg)
            cJSON_AddItemToObject(g, "client", gpu_json(&r->seen_client));
        if (sg)
            cJSON_AddItemToObject(g, "server", gpu_json(&r->seen_server));
    }
    gdr_context_steadiness_json(&r->m.steady, o);
}

void gdr_context_steadiness_json(const struct gdr_steady *st, cJSON *o)
{
    if (!st->slices)
        return;
    cJSON *j = cJSON_AddObjectToObject(o, "steadiness");
    cJSON_AddNumberToObject(j, "slices", st->slices);
    cJSON_AddNumberToObject(j, "min_bytes_per_s", st->min);
    cJSON_AddNumberToObject(j, "max_bytes_per_s", st->max);
    cJSON_AddNumberToObject(j, "cv", st->cv);
}
