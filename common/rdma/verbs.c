#include "config.h"

#include "verbs.h"
#include "events.h"
#include "error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MLX5DV
#include <infiniband/mlx5dv.h>
#endif

unsigned gdr_mtu_bytes(enum ibv_mtu mtu)
{
    return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static enum ibv_mtu mtu_enum(unsigned bytes)
{
    switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
    }
}

const char *gdr_link_layer_name(uint8_t link_layer)
{
    switch (link_layer) {
    case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
    case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
    default: return "unknown";
    }
}

double gdr_port_speed_bps(uint8_t width, uint32_t speed)
{
    double lanes;
    switch (width) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return 0;
    }
    double gbps;
    switch (speed) {
    case 1: gbps = 2.5; break; /* SDR */
    case 2: gbps = 5; break;   /* DDR */
    case 4:
    case 8: gbps = 10; break;    /* QDR, FDR10 */
    case 16: gbps = 14; break;   /* FDR */
    case 32: gbps = 25; break;   /* EDR */
    case 64: gbps = 50; break;   /* HDR */
    case 128: gbps = 100; break; /* NDR */
    case 256: gbps = 200; break; /* XDR: only in active_speed_ex */
    default: return 0;
    }
    return lanes * gbps * 1e9;
}

/* XDR does not fit the 8-bit active_speed; rdma-core that knows it
 * reports it in active_speed_ex (0 when the old field says it all). */
static double port_speed_bps(const struct ibv_port_attr *pa)
{
    uint32_t speed = pa->active_speed;
#ifdef HAVE_STRUCT_IBV_PORT_ATTR_ACTIVE_SPEED_EX
    if (pa->active_speed_ex)
        speed = pa->active_speed_ex;
#endif
    return gdr_port_speed_bps(pa->active_width, speed);
}

bool gdr_port_is_active(struct ibv_context *ctx, int port)
{
    struct ibv_port_attr pa;
    return ibv_query_port(ctx, (uint8_t)port, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
}

static int open_device(struct gdr_verbs *v, const char *want, int port)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n == 0) {
        if (list)
            ibv_free_device_list(list);
        return gdr_fail(GDR_EXIT_ENV, "no RDMA device found (ibv_devices lists none; "
                                      "is an RDMA driver loaded? gdr_doctor checks)");
    }
    char names[256] = "";
    for (int i = 0; i < n && !v->ctx; i++) {
        const char *name = ibv_get_device_name(list[i]);
        size_t used = strlen(names);
        snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", name);
        if (want && strcmp(want, name))
            continue;
        struct ibv_context *ctx = ibv_open_device(list[i]);
        if (!ctx) {
            if (want) {
                ibv_free_device_list(list);
                return gdr_fail(GDR_EXIT_ENV, "cannot open RDMA device %s: %s", name,
                                strerror(errno));
            }
            continue;
        }
        if (!want && !gdr_port_is_active(ctx, port)) {
            ibv_close_device(ctx);
            continue;
        }
        v->ctx = ctx;
        snprintf(v->dev_name, sizeof(v->dev_name), "%s", name);
    }
    ibv_free_device_list(list);
    if (!v->ctx)
        return want ? gdr_fail(GDR_EXIT_ENV, "RDMA device '%s' not found (have: %s)", want, names)
                    : gdr_fail(GDR_EXIT_ENV, "no RDMA device has port %d active (have: %s)", port,
                               names);
    return 0;
}

static enum gdr_gid_type gid_type_of(enum ibv_gid_type t)
{
    switch (t) {
    case IBV_GID_TYPE_ROCE_V1: return GDR_GID_ROCE_V1;
    case IBV_GID_TYPE_ROCE_V2: return GDR_GID_ROCE_V2;
    default: return GDR_GID_IB;
    }
}

/* One GID's entry with its netdev and VLAN; false when the index is empty
 * or unreadable. */
static bool read_gid(const struct gdr_verbs *v, int index, struct gdr_gid_entry *out)
{
    struct ibv_gid_entry e;
    memset(out, 0, sizeof(*out));
    out->index = index;
    out->vlan = -1;
    if (ibv_query_gid_ex(v->ctx, (uint32_t)v->port, (uint32_t)index, &e, 0))
        return false;
    memcpy(out->raw, e.gid.raw, 16);
    out->type = gid_type_of(e.gid_type);
    if (e.ndev_ifindex && if_indextoname(e.ndev_ifindex, out->netdev))
        out->vlan = gdr_gid_netdev_vlan(out->netdev);
    else
        out->netdev[0] = '\0';
    return !gdr_gid_is_zero(out->raw);
}

/* The port's GID table (non-empty entries; peer: the routes to it are
 * looked up) and the best of it (gid.h); -1 when there is none. */
static int best_gid(const struct gdr_verbs *v, const struct gdr_gid_hint *hint,
                    const struct sockaddr *peer)
{
    int n = v->port_attr.gid_tbl_len, used = 0, best;
    struct gdr_gid_entry *t = calloc(n > 0 ? (size_t)n : 1, sizeof(*t));
    if (!t)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!read_gid(v, i, &t[used]))
            continue;
        if (peer)
            t[used].routes_to_peer = gdr_gid_netdev_routes(t[used].netdev, peer);
        used++;
    }
    best = gdr_gid_choose(t, (size_t)used, hint);
    best = best >= 0 ? t[best].index : -1;
    free(t);
    return best;
}

/* Device and port facts, once a context is open. */
static int query_port(struct gdr_verbs *v, int port)
{
    v->port = port;
    if (ibv_query_device(v->ctx, &v->dev_attr))
        return gdr_fail(GDR_EXIT_ENV, "%s: ibv_query_device failed: %s", v->dev_name,
                        strerror(errno));
    if (port > v->dev_attr.phys_port_cnt)
        return gdr_fail(GDR_EXIT_USAGE, "%s has %u port(s); --ib-port %d does not exist",
                        v->dev_name, v->dev_attr.phys_port_cnt, port);
    if (ibv_query_port(v->ctx, (uint8_t)port, &v->port_attr))
        return gdr_fail(GDR_EXIT_ENV, "%s port %d: ibv_query_port failed: %s", v->dev_name, port,
                        strerror(errno));
    if (v->port_attr.state != IBV_PORT_ACTIVE)
        return gdr_fail(GDR_EXIT_ENV, "%s port %d is not active (state %s)", v->dev_name, port,
                        ibv_port_state_str(v->port_attr.state));
    /* A random starting PSN, as the IB spec recommends. */
    v->psn = (uint32_t)(lrand48() ^ getpid()) & 0xffffff;
    return 0;
}

/* Read GID `index` (-1: none) into v and note its facts. */
static int use_gid(struct gdr_verbs *v, int index)
{
    v->gid_index = index;
    memset(&v->gid, 0, sizeof(v->gid));
    if (index >= 0) {
        if (ibv_query_gid(v->ctx, (uint8_t)v->port, index, &v->gid))
            return gdr_fail(GDR_EXIT_ENV, "%s port %d: cannot read GID %d: %s", v->dev_name,
                            v->port, index, strerror(errno));
        if (gdr_gid_is_zero(v->gid.raw))
            return gdr_fail(GDR_EXIT_USAGE, "%s port %d: GID index %d is empty (no address)",
                            v->dev_name, v->port, index);
    }
    gdr_verbs_note_gid(v);
    return 0;
}

int gdr_verbs_open(struct gdr_verbs *v, const char *dev_name, int port, int gid_index)
{
    memset(v, 0, sizeof(*v));
    v->qp_timeout = GDR_QP_TIMEOUT_DEFAULT;
    v->retry_count = GDR_RETRY_COUNT_DEFAULT;
    if (open_device(v, dev_name, port) || query_port(v, port))
        return -1;
    bool ethernet = v->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (gid_index >= 0 && gid_index >= v->port_attr.gid_tbl_len)
        return gdr_fail(GDR_EXIT_USAGE, "--gid-index %d: %s port %d has %d GIDs", gid_index,
                        v->dev_name, port, v->port_attr.gid_tbl_len);
    v->gid_given = gid_index >= 0;
    if (!v->gid_given && v->port_attr.gid_tbl_len > 0)
        gid_index = ethernet ? best_gid(v, NULL, NULL) : 0;
    if (gid_index < 0 && ethernet)
        return gdr_fail(GDR_EXIT_ENV, "%s port %d: no GID holds an address (is its netdev up?)",
                        v->dev_name, port);
    return use_gid(v, gid_index);
}

int gdr_verbs_choose_gid(struct gdr_verbs *v, const struct sockaddr *local,
                         const struct sockaddr *peer)
{
    if (v->gid_given || v->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET)
        return 0;
    struct gdr_gid_hint h = {0};
    uint8_t peer_raw[16];
    h.have_source = local && gdr_gid_from_sockaddr(local, h.source);
    h.have_peer = peer && gdr_gid_from_sockaddr(peer, peer_raw);
    h.peer_ipv4 = h.have_peer && gdr_gid_is_ipv4(peer_raw);
    int best = best_gid(v, &h, h.have_peer ? peer : NULL);
    return best < 0 || best == v->gid_index ? 0 : use_gid(v, best);
}

void gdr_verbs_note_gid(struct gdr_verbs *v)
{
    if (v->gid_index < 0 || !read_gid(v, v->gid_index, &v->gid_facts)) {
        memset(&v->gid_facts, 0, sizeof(v->gid_facts));
        v->gid_facts.index = v->gid_index;
        v->gid_facts.vlan = -1;
        v->gid_facts.type =
            v->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? GDR_GID_ROCE_V2 : GDR_GID_IB;
        memcpy(v->gid_facts.raw, v->gid.raw, 16);
    }
}

int gdr_verbs_adopt(struct gdr_verbs *v, struct ibv_context *ctx, int port)
{
    v->ctx = ctx;
    v->ctx_borrowed = true;
    v->gid_index = -1;
    v->qp_timeout = GDR_QP_TIMEOUT_DEFAULT;
    v->retry_count = GDR_RETRY_COUNT_DEFAULT;
    snprintf(v->dev_name, sizeof(v->dev_name), "%s", ibv_get_device_name(ctx->device));
    return query_port(v, port);
}

int gdr_verbs_find_gid(const struct gdr_verbs *v, const union ibv_gid *gid)
{
    for (int i = 0; i < v->port_attr.gid_tbl_len; i++) {
        union ibv_gid g;
        if (ibv_query_gid(v->ctx, (uint8_t)v->port, i, &g) == 0 &&
            memcmp(g.raw, gid->raw, sizeof(g.raw)) == 0)
            return i;
    }
    return -1;
}

static int qp_to_init(struct gdr_verbs *v, struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = (uint8_t)v->port,
        .qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
    };
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return gdr_fail(GDR_EXIT_RUN, "%s: QP %u to INIT failed: %s", v->dev_name, qp->qp_num,
                        strerror(errno));
    return 0;
}

void gdr_verbs_prepare_env(bool gpu_receives)
{
    /* mlx5 reads this when it creates a QP; set it before any device is
     * opened (rdma_cm opens them all early), overriding a user's 1,
     * which would make the CPU copy small receives into GPU memory. */
    if (gpu_receives)
        setenv("MLX5_SCATTER_TO_CQE", "0", 1);
}

/* Whether the device's provider is mlx5, the one with scatter-to-CQE. */
static bool is_mlx5(struct ibv_context *ctx)
{
#ifdef HAVE_MLX5DV
    return mlx5dv_is_supported(ctx->device);
#else
    char path[PATH_MAX], target[PATH_MAX];
    snprintf(path, sizeof(path), "%s/device/driver", ctx->device->ibdev_path);
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return false;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    return strcmp(base ? base + 1 : target, "mlx5_core") == 0;
#endif
}

/* One RC QP; with a GPU receive buffer on mlx5, one that never scatters
 * a small message into its completion (the CPU would then copy it out
 * into GPU memory). */
static struct ibv_qp *create_qp(struct gdr_verbs *v, struct ibv_qp_init_attr *ia, bool dv)
{
#ifdef HAVE_MLX5DV
    if (dv) {
        struct ibv_qp_init_attr_ex ax = {
            .send_cq = ia->send_cq,
            .recv_cq = ia->recv_cq,
            .cap = ia->cap,
            .qp_type = ia->qp_type,
            .sq_sig_all = ia->sq_sig_all,
            .comp_mask = IBV_QP_INIT_ATTR_PD,
            .pd = v->pd,
        };
        struct mlx5dv_qp_init_attr dva = {
            .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
            .create_flags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE,
        };
        struct ibv_qp *qp = mlx5dv_create_qp(v->ctx, &ax, &dva);
        if (qp)
            ia->cap = ax.cap;
        return qp;
    }
#else
    (void)dv;
#endif
    return ibv_create_qp(v->pd, ia);
}

static const char *scatter_to_cqe_state(struct gdr_verbs *v, bool gpu_receives, bool *dv)
{
    *dv = false;
    if (!gpu_receives)
        return "not-needed";
    if (!is_mlx5(v->ctx))
        return "not-mlx5";
#ifdef HAVE_MLX5DV
    if (!v->make_qp) { /* rdma_cm creates its own QPs */
        *dv = true;
        return "disabled-mlx5dv";
    }
#endif
    return "disabled-env";
}

/* num_qps RC QPs on the PD and CQs, as gdr_verbs_create was asked, each
 * in INIT (rdma_cm walks its own). */
static int create_qps(struct gdr_verbs *v, unsigned num_qps)
{
    unsigned send_depth = v->send_depth, inline_size = v->inline_size;
    bool dv = v->qp_dv;
    for (unsigned i = 0; i < num_qps; i++) {
        struct ibv_qp_init_attr ia = {
            .send_cq = v->send_cq,
            .recv_cq = v->recv_cq,
            .qp_type = IBV_QPT_RC,
            .sq_sig_all = 0,
            .cap = {.max_send_wr = send_depth,
                    .max_recv_wr = v->recv_depth,
                    .max_send_sge = 1,
                    .max_recv_sge = 1,
                    .max_inline_data = inline_size},
        };
        if (v->make_qp) {
            if (v->make_qp(v->make_qp_arg, i, v->pd, &ia, &v->qp[i]))
                return -1;
        } else {
            v->qp[i] = create_qp(v, &ia, dv);
        }
        if (!v->qp[i])
            return gdr_fail(inline_size ? GDR_EXIT_USAGE : GDR_EXIT_RUN,
                            "%s: %s failed (depth %u, inline %u): %s", v->dev_name,
                            dv ? "mlx5dv_create_qp" : "ibv_create_qp", send_depth, inline_size,
                            strerror(errno));
        v->num_qps = i + 1;
        v->max_inline = ia.cap.max_inline_data;
        if (!v->make_qp && qp_to_init(v, v->qp[i])) /* rdma_cm walks its own QPs */
            return -1;
    }
    return 0;
}

int gdr_verbs_create(struct gdr_verbs *v, unsigned num_qps, unsigned send_depth,
                     unsigned recv_depth, unsigned inline_size, bool gpu_receives)
{
    if ((int)recv_depth > v->dev_attr.max_qp_wr && (int)send_depth <= v->dev_attr.max_qp_wr)
        recv_depth = (unsigned)v->dev_attr.max_qp_wr;
    v->recv_depth = recv_depth;
    bool dv;
    v->scatter_to_cqe = scatter_to_cqe_state(v, gpu_receives, &dv);
    v->pd = ibv_alloc_pd(v->ctx);
    if (!v->pd)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_alloc_pd failed: %s", v->dev_name, strerror(errno));
    int max_cqe = v->dev_attr.max_cqe;
    int send_cqe = (int)(send_depth * num_qps) + 1, recv_cqe = (int)(recv_depth * num_qps) + 1;
    if (send_cqe > max_cqe || recv_cqe > max_cqe)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: %u QPs x depth %u needs %d CQ entries; the device "
                        "allows %d (lower --tx-depth, --qp or --stage-slots)",
                        v->dev_name, num_qps, send_depth > recv_depth ? send_depth : recv_depth,
                        send_cqe > recv_cqe ? send_cqe : recv_cqe, max_cqe);
    if ((int)send_depth > v->dev_attr.max_qp_wr || (int)recv_depth > v->dev_attr.max_qp_wr)
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s: depth %u exceeds the device's %d work requests "
                        "per QP (lower --tx-depth or --stage-slots)",
                        v->dev_name, send_depth > recv_depth ? send_depth : recv_depth,
                        v->dev_attr.max_qp_wr);
    v->recv_channel = ibv_create_comp_channel(v->ctx); /* optional */
    v->send_cq = ibv_create_cq(v->ctx, send_cqe, NULL, NULL, 0);
    v->recv_cq = v->send_cq ? ibv_create_cq(v->ctx, recv_cqe, NULL, v->recv_channel, 0) : NULL;
    if (!v->send_cq || !v->recv_cq)
        return gdr_fail(GDR_EXIT_RUN, "%s: ibv_create_cq(%d) failed: %s", v->dev_name,
                        send_cqe > recv_cqe ? send_cqe : recv_cqe, strerror(errno));
    v->send_depth = send_depth;
    v->inline_size = inline_size;
    v->qp_dv = dv;
    v->qps_asked = num_qps;
    return create_qps(v, num_qps);
}

/* Poll a CQ empty: what the old QPs left in it (their flushes). */
static void drain_cq(struct ibv_cq *cq)
{
    struct ibv_wc wc[32];
    while (cq && ibv_poll_cq(cq, 32, wc) > 0)
        ;
}

int gdr_verbs_renew_qps(struct gdr_verbs *v)
{
    if (v->make_qp)
        return gdr_fail(GDR_EXIT_RUN, "%s: rdma_cm's QPs (-R) are not rebuilt after an outage",
                        v->dev_name);
    /* What was asked, not what exists: a renewal that failed part way
     * leaves fewer (or none), and the next one must make them all. */
    unsigned n = v->qps_asked;
    for (unsigned i = v->num_qps; i-- > 0;) {
        if (v->qp[i] && ibv_destroy_qp(v->qp[i]))
            return gdr_fail(GDR_EXIT_RUN, "%s: ibv_destroy_qp of QP %u failed: %s", v->dev_name,
                            v->qp[i]->qp_num, strerror(errno));
        v->qp[i] = NULL;
    }
    v->num_qps = 0;
    drain_cq(v->send_cq);
    drain_cq(v->recv_cq);
    /* The port read again, and a new random PSN drawn. */
    if (query_port(v, v->port))
        return -1;
    return create_qps(v, n);
}

void gdr_verbs_describe(const struct gdr_verbs *v, struct gdr_endpoint *ep)
{
    gethostname(ep->host, sizeof(ep->host) - 1);
    snprintf(ep->device, sizeof(ep->device), "%s", v->dev_name);
    ep->port = (unsigned)v->port;
    snprintf(ep->link_layer, sizeof(ep->link_layer), "%s",
             gdr_link_layer_name(v->port_attr.link_layer));
    ep->active_mtu = gdr_mtu_bytes(v->port_attr.active_mtu);
    ep->speed_bps = port_speed_bps(&v->port_attr);
    ep->gid_index = v->gid_index;
    if (v->gid_index >= 0) {
        memcpy(ep->gid_raw, v->gid.raw, 16);
        inet_ntop(AF_INET6, v->gid.raw, ep->gid, sizeof(ep->gid));
        snprintf(ep->gid_type, sizeof(ep->gid_type), "%s", gdr_gid_type_name(v->gid_facts.type));
        snprintf(ep->gid_family, sizeof(ep->gid_family), "%s", gdr_gid_family(v->gid.raw));
    } else {
        snprintf(ep->gid, sizeof(ep->gid), "none");
        ep->gid_type[0] = ep->gid_family[0] = '\0';
    }
    snprintf(ep->gid_netdev, sizeof(ep->gid_netdev), "%s", v->gid_facts.netdev);
    ep->gid_vlan = v->gid_facts.vlan;
    ep->grh = v->grh;
    ep->lid = v->port_attr.lid;
    ep->num_qps = v->num_qps;
    ep->max_rd_atom = v->dev_attr.max_qp_rd_atom > 0 ? (unsigned)v->dev_attr.max_qp_rd_atom : 0;
    ep->max_init_rd_atom =
        v->dev_attr.max_qp_init_rd_atom > 0 ? (unsigned)v->dev_attr.max_qp_init_rd_atom : 0;
    for (unsigned i = 0; i < v->num_qps; i++)
        ep->qpn[i] = v->qp[i]->qp_num;
    ep->psn = v->psn;
}

unsigned gdr_pow2_floor(unsigned n)
{
    unsigned p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

/* A power of two: mlx5 keeps the two attributes as logarithms, and kernels
 * before 6.12 round them down where later ones round them up, so any other
 * number may be held differently at each end (the responder then NAKs). */
unsigned gdr_reads_in_flight(unsigned requester_cap, unsigned responder_cap, unsigned outs)
{
    unsigned n = requester_cap < responder_cap ? requester_cap : responder_cap;
    if (outs && outs < n)
        n = outs;
    if (n > GDR_MAX_OUTS)
        n = GDR_MAX_OUTS;
    return gdr_pow2_floor(n);
}

/* reads, dest_reads: RDMA reads in flight as requester and as responder. */
static int qp_to_rts(struct gdr_verbs *v, struct ibv_qp *qp, const struct gdr_endpoint *r,
                     uint32_t remote_qpn, enum ibv_mtu mtu, unsigned reads, unsigned dest_reads)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mtu,
        .dest_qp_num = remote_qpn,
        .rq_psn = r->psn,
        .max_dest_rd_atomic = (uint8_t)dest_reads,
        .min_rnr_timer = 12, /* 0.64 ms: receivers repost quickly */
        .ah_attr = {.dlid = r->lid, .sl = v->service_level, .port_num = (uint8_t)v->port},
    };
    if (v->grh) {
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.traffic_class = v->traffic_class;
        memcpy(a.ah_attr.grh.dgid.raw, r->gid_raw, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return gdr_fail(GDR_EXIT_RUN, "%s: QP %u to RTR (remote QP %u on %s) failed: %s",
                        v->dev_name, qp->qp_num, remote_qpn, r->host, strerror(errno));
    struct ibv_qp_attr b = {
        .qp_state = IBV_QPS_RTS,
        .timeout = v->qp_timeout,
        .retry_cnt = v->retry_count,
        .rnr_retry = 7, /* 7 = retry forever on receiver-not-ready */
        .sq_psn = v->psn,
        .max_rd_atomic = (uint8_t)reads,
    };
    if (ibv_modify_qp(qp, &b,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        return gdr_fail(GDR_EXIT_RUN, "%s: QP %u to RTS failed: %s", v->dev_name, qp->qp_num,
                        strerror(errno));
    return 0;
}

bool gdr_verbs_path_needs_grh(const struct gdr_verbs *v, const struct gdr_endpoint *remote)
{
    if (v->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET || v->gid_given)
        return true;
    /* InfiniBand: LID routing within a subnet; a router in between needs
     * the GRH, and the subnet prefixes (the GIDs' first 8 bytes) say so. */
    return v->gid_index >= 0 && remote->gid_index >= 0 &&
           memcmp(v->gid.raw, remote->gid_raw, 8) != 0;
}

int gdr_verbs_connect(struct gdr_verbs *v, const struct gdr_endpoint *remote, unsigned mtu,
                      unsigned outs)
{
    if (remote->num_qps != v->num_qps)
        return gdr_fail(GDR_EXIT_RUN, "peer %s has %u QPs, we have %u", remote->host,
                        remote->num_qps, v->num_qps);
    const char *ll = gdr_link_layer_name(v->port_attr.link_layer);
    if (strcmp(remote->link_layer, ll))
        return gdr_fail(GDR_EXIT_RUN, "peer %s is on %s (%s), we are on %s (%s)", remote->host,
                        remote->link_layer, remote->device, ll, v->dev_name);
    v->grh = gdr_verbs_path_needs_grh(v, remote);
    if (v->grh && (v->gid_index < 0 || remote->gid_index < 0))
        return gdr_fail(GDR_EXIT_RUN, "peer %s: the path needs a GRH but %s has no GID",
                        remote->host, v->gid_index < 0 ? v->dev_name : remote->device);
    unsigned local_mtu = gdr_mtu_bytes(v->port_attr.active_mtu);
    unsigned path = mtu ? mtu : local_mtu < remote->active_mtu ? local_mtu : remote->active_mtu;
    if (path < 256)
        path = 256;
    /* Our reads against its responder resources, and its reads against
     * ours: the peer computes the same two numbers the other way round. */
    v->max_rd_atomic =
        gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_init_rd_atom, remote->max_rd_atom, outs);
    v->max_dest_rd_atomic =
        gdr_reads_in_flight(remote->max_init_rd_atom, (unsigned)v->dev_attr.max_qp_rd_atom, outs);
    for (unsigned i = 0; i < v->num_qps; i++)
        if (qp_to_rts(v, v->qp[i], remote, remote->qpn[i], mtu_enum(path), v->max_rd_atomic,
                      v->max_dest_rd_atomic))
            return -1;
    return 0;
}

void gdr_verbs_query_reads(struct gdr_verbs *v)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    if (v->num_qps &&
        ibv_query_qp(v->qp[0], &a, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &ia) == 0) {
        v->max_rd_atomic = a.max_rd_atomic;
        v->max_dest_rd_atomic = a.max_dest_rd_atomic;
    }
}

int gdr_verbs_loopback(struct gdr_verbs *v, struct ibv_qp *qp)
{
    struct gdr_endpoint self;
    memset(&self, 0, sizeof(self));
    gdr_verbs_describe(v, &self);
    snprintf(self.host, sizeof(self.host), "this host (loopback)");
    /* One read at a time (the flush's): any device takes one each way. */
    return qp_to_init(v, qp) || qp_to_rts(v, qp, &self, qp->qp_num, v->port_attr.active_mtu, 1, 1);
}

bool gdr_verbs_is_mlx5(const struct gdr_verbs *v)
{
    return is_mlx5(v->ctx);
}

void gdr_verbs_close(struct gdr_verbs *v)
{
    for (unsigned i = v->num_qps; i-- > 0;)
        if (v->qp[i])
            ibv_destroy_qp(v->qp[i]);
    v->num_qps = 0;
    if (v->recv_cq)
        ibv_destroy_cq(v->recv_cq);
    if (v->send_cq)
        ibv_destroy_cq(v->send_cq);
    if (v->recv_channel)
        ibv_destroy_comp_channel(v->recv_channel);
    if (v->pd)
        ibv_dealloc_pd(v->pd);
    if (v->ctx && !v->ctx_borrowed)
        ibv_close_device(v->ctx);
    memset(v, 0, sizeof(*v));
}

void gdr_send_prepare(struct gdr_prepared_send *p, const struct gdr_wr *d)
{
    p->sge = (struct ibv_sge){.addr = d->laddr, .length = d->len, .lkey = d->lkey};
    p->wr = (struct ibv_send_wr){
        .wr_id = d->wr_id,
        .sg_list = d->len ? &p->sge : NULL,
        .num_sge = d->len ? 1 : 0,
        .opcode = d->op,
        .send_flags = d->flags,
        .imm_data = htonl(d->imm),
        .wr.rdma = {.remote_addr = d->raddr, .rkey = d->rkey},
    };
}

void gdr_recv_prepare(struct gdr_prepared_recv *p, uint64_t laddr, uint32_t lkey, uint32_t len)
{
    p->sge = (struct ibv_sge){.addr = laddr, .length = len, .lkey = lkey};
    p->wr = (struct ibv_recv_wr){.sg_list = len ? &p->sge : NULL, .num_sge = len ? 1 : 0};
}

int gdr_post_failed(struct ibv_qp *qp, const char *verb, uint32_t len, int rc)
{
    return gdr_fail(GDR_EXIT_RUN, "%s on QP %u (%u bytes) failed: %s", verb, qp->qp_num, len,
                    strerror(rc));
}

int gdr_post_send(struct ibv_qp *qp, const struct gdr_wr *d)
{
    struct gdr_prepared_send p;
    gdr_send_prepare(&p, d);
    return gdr_post_prepared_send(qp, &p, d->wr_id, d->imm);
}

int gdr_post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t lkey, uint32_t len, uint64_t wr_id)
{
    struct gdr_prepared_recv p;
    gdr_recv_prepare(&p, laddr, lkey, len);
    return gdr_post_prepared_recv(qp, &p, wr_id);
}

int gdr_wc_fail(struct gdr_verbs *v, const struct ibv_wc *wc, const char *op, uint64_t size,
                uint64_t iteration)
{
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_COMPLETION);
    snprintf(c.wc_status, sizeof(c.wc_status), "%s", gdr_wc_status_name(wc->status));
    /* The event that explains it may come a moment after the completion. */
    snprintf(c.event, sizeof(c.event), "%s", gdr_events_fatal(v, 20));
    c.size = size;
    c.iteration = iteration;
    char at[64] = "", with[160] = "";
    if (iteration != GDR_ERROR_UNKNOWN)
        snprintf(at, sizeof(at), " at iteration %llu%s", (unsigned long long)iteration,
                 strcmp(gdr_error_phase(), "warmup") ? "" : " of the warm-up");
    if (c.event[0])
        snprintf(with, sizeof(with), ", after asynchronous event %s on %s", c.event,
                 v->fatal_where);
    return gdr_fail_class(&c, GDR_EXIT_RUN,
                          "%s of %llu bytes failed on QP %u%s: %s (%s, vendor error 0x%x)%s", op,
                          (unsigned long long)size, wc->qp_num, at, ibv_wc_status_str(wc->status),
                          c.wc_status, wc->vendor_err, with);
}
