/* harness.c - gdr_main: one benchmark run from argv to exit code.
 *
 *   options -> verbs device, QPs, buffer -> TCP connect -> HELLO (do the
 *   parameters agree?) -> ENDPOINT both ways -> QPs to RTS -> sweep ->
 *   table and JSON -> teardown in reverse order.
 *
 * Whatever fails, the peer is told why, the JSON (if asked for) records
 * what was measured and how the run ended, and the exit code says what
 * kind of failure it was. */
#include "config.h"

#include "context.h"
#include "error.h"
#include "events.h"
#include "json.h"
#include "output.h"
#include "session.h"
#include "sizing.h"
#include "loops.h"
#include "soak.h"
#include "topo.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A client's soak ends at the next interval on the first signal (the
 * loops go on); a second one, or any other run, is interrupted at once. */
static void on_signal(int sig)
{
    (void)sig;
    if (gdr_soak_graceful && !gdr_soak_stop) {
        gdr_soak_signal_ns = gdr_now_ns(); /* clock_gettime: async-signal-safe */
        gdr_soak_stop = 1;
    } else
        gdr_interrupted = 1;
}

static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: waits wake up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* The parameters both ends must agree on: the test and every reported
 * parameter except those that are each end's own business. */
static cJSON *agreed_parameters(const struct gdr_session *s)
{
    cJSON *p = gdr_output_parameters(s->cfg);
    cJSON_DeleteItemFromObjectCaseSensitive(p, "tcp_port");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "timeout_s");
    /* A requester's own: how long it waits for ACKs, how often it retries. */
    cJSON_DeleteItemFromObjectCaseSensitive(p, "qp_timeout");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "retry_count");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "events"); /* how this end waits */
    cJSON_AddStringToObject(p, "test", s->test->name);
    return p;
}

/* Name the first parameter that differs, with both values. */
static int compare_parameters(const struct gdr_session *s, const cJSON *theirs)
{
    cJSON *ours = agreed_parameters(s);
    int rc = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, ours) {
        const cJSON *other =
            cJSON_IsObject(theirs) ? cJSON_GetObjectItemCaseSensitive(theirs, item->string) : NULL;
        if (other && cJSON_Compare(item, other, 1))
            continue;
        char *a = cJSON_PrintUnformatted(item);
        char *b = other ? cJSON_PrintUnformatted(other) : strdup("(missing)");
        rc = gdr_fail(GDR_EXIT_USAGE,
                      "peer %s: parameter '%s' differs: client %.60s, "
                      "server %.60s",
                      s->oob.peer, item->string, b ? b : "?", a ? a : "?");
        free(a);
        free(b);
        break;
    }
    cJSON_Delete(ours);
    return rc;
}

static int client_hello(struct gdr_session *s)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "tool", "gdrbench");
    cJSON_AddStringToObject(msg, "version", PACKAGE_VERSION);
    cJSON_AddItemToObject(msg, "parameters", agreed_parameters(s));
    int rc = gdr_oob_send(&s->oob, GDR_MSG_HELLO, msg);
    cJSON_Delete(msg);
    cJSON *ack = NULL;
    rc = rc ? rc : gdr_oob_recv(&s->oob, GDR_MSG_HELLO_ACK, 0, &ack);
    cJSON_Delete(ack);
    return rc;
}

/* A server given no --soak runs the client's: it becomes the same soak
 * (gdr_options_soak) before the parameters are compared. */
static int adopt_soak(struct gdr_session *s, const cJSON *params)
{
    const cJSON *soak = cJSON_GetObjectItemCaseSensitive(params, "soak");
    if (!soak || s->cfg->soak_s > 0)
        return 0;
    char what[160];
    snprintf(what, sizeof(what), "HELLO from %s: parameters.soak", s->oob.peer);
    double soak_s, interval_s, dip_pct, reconnect_s;
    if (gdr_json_double(soak, "duration_s", &soak_s, what) ||
        gdr_json_double(soak, "interval_s", &interval_s, what) ||
        gdr_json_double(soak, "dip_pct", &dip_pct, what) ||
        gdr_json_double(soak, "reconnect_timeout_s", &reconnect_s, what))
        return -1;
    if (!(soak_s > 0 && soak_s <= GDR_SOAK_MAX_SECONDS) ||
        !(interval_s >= GDR_SOAK_INTERVAL_MIN && interval_s <= GDR_SOAK_INTERVAL_MAX) ||
        !(dip_pct >= 1 && dip_pct <= 99) ||
        !(reconnect_s >= GDR_SOAK_RECONNECT_MIN && reconnect_s <= GDR_SOAK_RECONNECT_MAX))
        return gdr_fail(GDR_EXIT_RUN, "%s: out of range", what);
    if (s->cfg->sizes.count != 1)
        return gdr_fail(GDR_EXIT_USAGE, "peer %s soaks one size; this server was given %zu",
                        s->oob.peer, s->cfg->sizes.count);
    gdr_options_soak(s->cfg, soak_s, interval_s, dip_pct, reconnect_s);
    return 0;
}

static int server_hello(struct gdr_session *s)
{
    cJSON *msg;
    if (gdr_oob_recv(&s->oob, GDR_MSG_HELLO, 0, &msg))
        return -1;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "parameters");
    const cJSON *test = cJSON_GetObjectItemCaseSensitive(params, "test");
    int rc;
    if (!cJSON_IsString(test) || strcmp(test->valuestring, s->test->name))
        rc = gdr_fail(GDR_EXIT_USAGE, "peer %s: client runs test '%.40s', this server runs '%s'",
                      s->oob.peer, cJSON_IsString(test) ? test->valuestring : "?", s->test->name);
    else
        rc = adopt_soak(s, params) || compare_parameters(s, params);
    cJSON_Delete(msg);
    if (rc)
        return -1;
    msg = cJSON_CreateObject();
    rc = gdr_oob_send(&s->oob, GDR_MSG_HELLO_ACK, msg);
    cJSON_Delete(msg);
    return rc;
}

/* One message of TYPE each way: the server receives first, so the two
 * ends never both wait. Nonzero on failure (recorded). */
static int swap_messages(struct gdr_session *s, enum gdr_msg_type type, const cJSON *mine,
                         cJSON **theirs)
{
    if (s->is_server)
        return gdr_oob_recv(&s->oob, type, 0, theirs) || gdr_oob_send(&s->oob, type, mine);
    return gdr_oob_send(&s->oob, type, mine) || gdr_oob_recv(&s->oob, type, 0, theirs);
}

static int exchange_endpoints(struct gdr_session *s)
{
    cJSON *mine = gdr_endpoint_to_json(&s->local), *theirs = NULL;
    int rc = swap_messages(s, GDR_MSG_ENDPOINT, mine, &theirs);
    cJSON_Delete(mine);
    if (rc) {
        cJSON_Delete(theirs);
        return -1;
    }
    char what[160];
    snprintf(what, sizeof(what), "ENDPOINT from %s", s->oob.peer);
    rc = gdr_endpoint_from_json(theirs, &s->remote, what);
    cJSON_Delete(theirs);
    if (rc)
        return -1;
    uint64_t max = gdr_sizes_max(&s->cfg->sizes);
    if (s->remote.buf_len < max)
        return gdr_fail(GDR_EXIT_RUN, "%s: buffer of %llu bytes is smaller than size %llu", what,
                        (unsigned long long)s->remote.buf_len, (unsigned long long)max);
    return 0;
}

/* Receives per QP. The QPs exist before the peer says whether it is
 * staged; the depth does not depend on it (see gdr_recv_depth). */
static unsigned recv_depth(const struct gdr_session *s)
{
    return gdr_recv_depth(&s->roles, s->cfg->tx_depth, s->cfg->stage_slots);
}

/* Who does what, now that both ends' buffers are known. */
static int settle_roles(struct gdr_session *s)
{
    struct gdr_role_input in = {
        .verb = s->test->verb, .metric = s->test->metric, .bidirectional = s->cfg->bidirectional};
    bool local = gdr_buffer_staged(&s->buf), remote = s->remote.ring_bytes > 0;
    in.client_staged = s->is_server ? remote : local;
    in.server_staged = s->is_server ? local : remote;
    /* A write lands in GPU memory at an end registered for GDR: the CPU
     * there cannot poll it, so both directions use the CQ (like for like). */
    bool remote_gpu = strcmp(s->remote.placement, "cuda") == 0 && !remote;
    in.cq_completion =
        s->cfg->write_with_imm || remote_gpu || gdr_mem_spec_gpu_receives(&s->cfg->mem);
    const char *why;
    if (gdr_roles_for(&in, &s->roles, &why))
        return gdr_fail(GDR_EXIT_USAGE, "%s", why);
    return 0;
}

/* Send-queue entries per QP (see gdr_send_depth: staging needs its own). */
static unsigned send_depth(const struct gdr_session *s)
{
    return gdr_send_depth(s->cfg->tx_depth, s->cfg->stage_slots);
}

/* The NIC-GPU pair, as gdr_doctor classifies it (gdr_topo_pair_class), with
 * the C2C link CUDA reports (mem sets buf.c2c before it asks). */
static enum gdr_path_class gpu_path_class(const struct gdr_session *s, const char *cuda_bus_id)
{
    enum gdr_path_class cls;
    char err[160];
    char bdf[GDR_BDF_LEN];
    gdr_context_gpu_bdf(cuda_bus_id, bdf, sizeof(bdf));
    gdr_topo_pair_class(NULL, s->verbs.dev_name, bdf, s->buf.c2c, &cls, err, sizeof(err));
    return cls;
}

/* mem asks, once the GPU is known: do NIC and GPU share a PCIe switch? */
static int nic_shares_switch(const char *cuda_bus_id, void *arg)
{
    enum gdr_path_class cls = gpu_path_class(arg, cuda_bus_id);
    return cls == GDR_PATH_UNKNOWN ? -1 : cls == GDR_PATH_PIX || cls == GDR_PATH_PXB;
}

/* mem asks before it reads what the NIC wrote (writes_flush "nic-read"). */
static int nic_read(void *arg, struct gdr_buffer *b)
{
    struct gdr_session *s = arg;
    return gdr_nic_flush_read(&s->verbs, &s->nic_flush, (uintptr_t)b->addr, b->mr->rkey,
                              s->cfg->timeout);
}

/* Place this end near its device before anything is allocated on it. */
static int place(struct gdr_session *s)
{
    return gdr_place_apply(&s->place, &s->cfg->bind, s->verbs.dev_name, &s->local.affinity,
                           s->test->binary, s->cfg->quiet);
}

/* A GPU on another NUMA node than the NIC: the process stays on the NIC's
 * (the CPU drives the NIC), and says so. */
static void notice_gpu_node(struct gdr_session *s, const char *bdf)
{
    struct gdr_affinity *a = &s->local.affinity;
    int gpu = bdf[0] ? gdr_topo_pci_numa(NULL, bdf) : -1;
    if (gpu < 0 || a->nic_numa_node < 0 || gpu == a->nic_numa_node)
        return;
    size_t used = strlen(a->note);
    snprintf(a->note + used, sizeof(a->note) - used, "%sGPU %s is on NUMA node %d, %s on node %d",
             used ? "; " : "", bdf, gpu, s->verbs.dev_name, a->nic_numa_node);
    if (!s->cfg->quiet)
        fprintf(stderr,
                "%s: notice: GPU %s is on NUMA node %d and %s on node %d: running on the "
                "NIC's node\n",
                s->test->binary, bdf, gpu, s->verbs.dev_name, a->nic_numa_node);
}

/* Where this end's host memory landed, as the kernel says. */
static void read_back_nodes(struct gdr_session *s)
{
    struct gdr_affinity *a = &s->local.affinity;
    const struct gdr_buffer *b = &s->buf;
    a->buffer_numa_node = b->cuda_device < 0 ? gdr_place_node_of(b->addr, b->len) : -1;
    a->ring_numa_node = gdr_buffer_staged(b) ? gdr_place_node_of(b->ring, b->ring_len) : -1;
}

/* The NIC-GPU pair in use, as gdr_doctor classifies it (shared code). */
static void describe_gpu_path(struct gdr_session *s)
{
    struct gdr_endpoint *ep = &s->local;
    char bdf[GDR_BDF_LEN];
    gdr_context_gpu_bdf(s->buf.cuda_bus_id, bdf, sizeof(bdf));
    notice_gpu_node(s, bdf);
    enum gdr_path_class cls = gpu_path_class(s, s->buf.cuda_bus_id);
    snprintf(ep->pcie_path, sizeof(ep->pcie_path), "%s", gdr_path_class_name(cls));
    struct gdr_reg_caps caps;
    if (gdr_topo_reg_caps(NULL, NULL, &caps) == 0) {
        ep->peermem_loaded = caps.peermem > 0;
        ep->dmabuf_possible = gdr_reg_caps_dmabuf(&caps);
    }
}

/* The buffer, once the PD exists, and this end's facts for the peer. */
static int setup_buffer(struct gdr_session *s)
{
    const struct gdr_config *cfg = s->cfg;
    if (cfg->inline_size > s->verbs.max_inline)
        return gdr_fail(GDR_EXIT_USAGE, "--inline_size %u: %s allows at most %u", cfg->inline_size,
                        s->verbs.dev_name, s->verbs.max_inline);
    const struct gdr_buffer *b = &s->buf;
    /* One region per direction: data a bidirectional end sends never
     * shares bytes with what it receives, so both can be checked. */
    unsigned dirs = gdr_roles_two_regions(&s->roles) ? 2 : 1;
    s->region =
        gdr_buffer_bytes(&s->roles, gdr_sizes_max(&cfg->sizes), cfg->tx_depth, cfg->num_qps);
    s->dest_off = dirs == 2 ? s->region : 0;
    if (cfg->mem.cuda && cfg->mem.data_direct == GDR_DD_ON && !gdr_verbs_is_mlx5(&s->verbs))
        return gdr_fail(GDR_EXIT_USAGE,
                        "--data-direct=on: %s is not an mlx5 device (Data Direct is mlx5's)",
                        s->verbs.dev_name);
    struct gdr_mem_spec spec = cfg->mem;
    spec.nic_shares_switch = nic_shares_switch;
    spec.nic_arg = s;
    if (gdr_buffer_create(&s->buf, &spec, s->verbs.pd, (size_t)s->region * dirs, cfg->stage_slot,
                          cfg->stage_slots * dirs) ||
        gdr_staged_credits_setup(s))
        return -1;
    s->buf.nic_read = nic_read;
    s->buf.nic_read_arg = s;
    struct gdr_endpoint *ep = &s->local;
    gdr_verbs_describe(&s->verbs, ep);
    ep->addr = (uintptr_t)b->addr;
    ep->buf_len = b->len;
    ep->rkey = b->mr ? b->mr->rkey : 0;
    if (gdr_buffer_staged(b)) {
        ep->ring_addr = (uintptr_t)b->ring;
        ep->ring_bytes = b->ring_len;
        ep->slot_bytes = b->slot_size;
        ep->ring_rkey = b->ring_mr->rkey;
    }
    snprintf(ep->placement, sizeof(ep->placement), "%s", b->ops->placement);
    snprintf(ep->registration, sizeof(ep->registration), "%s", b->registration);
    ep->cuda_device = b->cuda_device;
    snprintf(ep->cuda_bus_id, sizeof(ep->cuda_bus_id), "%s", b->cuda_bus_id);
    snprintf(ep->cuda_name, sizeof(ep->cuda_name), "%s", b->cuda_name);
    snprintf(ep->reg_note, sizeof(ep->reg_note), "%s", b->reg_note);
    ep->relaxed_ordering = b->relaxed_ordering;
    snprintf(ep->scatter_to_cqe, sizeof(ep->scatter_to_cqe), "%s", s->verbs.scatter_to_cqe);
    snprintf(ep->writes_ordering, sizeof(ep->writes_ordering), "%s", b->writes_ordering);
    snprintf(ep->writes_flush, sizeof(ep->writes_flush), "%s", b->writes_flush);
    snprintf(ep->gpu_alloc, sizeof(ep->gpu_alloc), "%s", b->gpu_alloc);
    snprintf(ep->dmabuf_mapping, sizeof(ep->dmabuf_mapping), "%s", b->dmabuf_mapping);
    ep->data_direct = b->data_direct;
    ep->gpu_c2c = b->c2c;
    ep->relaxed_ordering_enabled = gdr_topo_relaxed_ordering(NULL, s->verbs.dev_name);
    read_back_nodes(s);
    if (b->cuda_device >= 0)
        describe_gpu_path(s);
    gdr_context_describe(s);
    /* Said once: auto wanted the PCIe mapping or Data Direct, was refused,
     * and went on with what dma-buf still gave. */
    if (b->registration && !strcmp(b->registration, "dmabuf") && b->reg_note[0] && !cfg->quiet)
        fprintf(stderr, "%s: notice: GPU %s: %s\n", s->test->binary, b->cuda_bus_id, b->reg_note);
    return 0;
}

/* Without rdma_cm the device is ours to choose, before any peer shows up,
 * so a missing device is reported before waiting on the network. */
static int setup_local(struct gdr_session *s)
{
    const struct gdr_config *cfg = s->cfg;
    if (cfg->rdma_cm)
        return 0;
    if (gdr_verbs_open(&s->verbs, cfg->ib_dev, cfg->ib_port, cfg->gid_index) ||
        gdr_events_watch(&s->verbs))
        return -1;
    s->verbs.traffic_class = cfg->traffic_class;
    s->verbs.service_level = cfg->service_level;
    s->verbs.qp_timeout = cfg->qp_timeout;
    s->verbs.retry_count = cfg->retry_count;
    if (place(s) || gdr_verbs_create(&s->verbs, cfg->num_qps, send_depth(s), recv_depth(s),
                                     cfg->inline_size, gdr_mem_spec_gpu_receives(&cfg->mem)))
        return -1;
    return setup_buffer(s);
}

/* The control channel's waits also watch the device's events: a server
 * of a write test waits there for the whole run. */
static int watch_events(void *arg)
{
    struct gdr_session *s = arg;
    return gdr_events_check(&s->verbs, GDR_ERROR_UNKNOWN);
}

static void watch_during_waits(struct gdr_session *s)
{
    s->oob.watch_fd = gdr_events_fd(&s->verbs);
    s->oob.watch = s->oob.watch_fd >= 0 ? watch_events : NULL;
    s->oob.watch_arg = s;
}

/* Reads in flight both devices allow the client, whatever -o says. */
static unsigned reads_devices_allow(const struct gdr_session *s)
{
    const struct gdr_verbs *v = &s->verbs;
    const struct gdr_endpoint *r = &s->remote;
    if (s->is_server)
        return gdr_reads_in_flight(r->max_init_rd_atom, (unsigned)v->dev_attr.max_qp_rd_atom, 0);
    return gdr_reads_in_flight((unsigned)v->dev_attr.max_qp_init_rd_atom, r->max_rd_atom, 0);
}

/* -o asked for more reads in flight than both devices allow (lowered, as
 * perftest does) or for other than a power of two (rounded down): said in
 * one line. */
static void notice_reads(const struct gdr_session *s)
{
    unsigned got = gdr_reads_in_flight_of(s);
    if (s->cfg->outs <= got || s->cfg->quiet)
        return;
    const char *why = s->cfg->outs > reads_devices_allow(s)
                          ? "as many as both devices allow"
                          : "rounded down to a power of two, as mlx5 holds them";
    fprintf(stderr, "%s: notice: --outs %u: %u RDMA reads in flight per QP, %s\n", s->test->binary,
            s->cfg->outs, got, why);
}

/* Each end's QPs as they hold the reads in flight after RTS (a kernel may
 * have rounded what was asked): the peer's, over the control channel. */
static int exchange_reads(struct gdr_session *s, unsigned *peer_rd, unsigned *peer_dest)
{
    cJSON *mine = cJSON_CreateObject(), *theirs = NULL;
    cJSON_AddNumberToObject(mine, "max_rd_atomic", s->verbs.max_rd_atomic);
    cJSON_AddNumberToObject(mine, "max_dest_rd_atomic", s->verbs.max_dest_rd_atomic);
    int rc = swap_messages(s, GDR_MSG_READS, mine, &theirs);
    cJSON_Delete(mine);
    char what[160];
    snprintf(what, sizeof(what), "READS from %s", s->oob.peer);
    uint64_t rd = 0, dest = 0;
    rc = rc || gdr_json_u64(theirs, "max_rd_atomic", GDR_MAX_OUTS, &rd, what) ||
         gdr_json_u64(theirs, "max_dest_rd_atomic", GDR_MAX_OUTS, &dest, what);
    cJSON_Delete(theirs);
    *peer_rd = (unsigned)rd;
    *peer_dest = (unsigned)dest;
    return rc ? -1 : 0;
}

/* A requester with more reads in flight than the responder holds
 * resources for gets NAKs (IBV_WC_REM_INV_REQ_ERR) mid-run: refused here,
 * with both numbers, at both ends (each has both). */
static int check_reads(const struct gdr_session *s, unsigned peer_rd, unsigned peer_dest)
{
    const struct gdr_verbs *v = &s->verbs;
    const char *me = s->is_server ? "server" : "client", *peer = s->is_server ? "client" : "server";
    if (v->max_rd_atomic > peer_dest)
        return gdr_fail(GDR_EXIT_RUN,
                        "reads in flight: the %s's QPs issue %u (max_rd_atomic) but the %s's "
                        "(%s) accept %u (max_dest_rd_atomic): the two kernels round -o "
                        "differently",
                        me, v->max_rd_atomic, peer, s->oob.peer, peer_dest);
    if (peer_rd > v->max_dest_rd_atomic)
        return gdr_fail(GDR_EXIT_RUN,
                        "reads in flight: the %s's (%s) QPs issue %u (max_rd_atomic) but the "
                        "%s's accept %u (max_dest_rd_atomic): the two kernels round -o "
                        "differently",
                        peer, s->oob.peer, peer_rd, me, v->max_dest_rd_atomic);
    return 0;
}

/* What the QPs hold, read back and agreed with the peer's. */
static int settle_reads(struct gdr_session *s)
{
    unsigned peer_rd, peer_dest;
    gdr_verbs_query_reads(&s->verbs);
    /* Only a test that issues reads can be NAKed for them. */
    bool reads = s->test->verb == GDR_VERB_READ;
    if (exchange_reads(s, &peer_rd, &peer_dest) || (reads && check_reads(s, peer_rd, peer_dest)))
        return -1;
    notice_reads(s);
    return 0;
}

/* Now that the control channel shows the path to the peer: the GID that
 * routes there (Ethernet, unless -x chose one). */
static int choose_gid(struct gdr_session *s)
{
    struct sockaddr_storage local, peer;
    socklen_t ll = sizeof(local), pl = sizeof(peer);
    if (getsockname(s->oob.fd, (struct sockaddr *)&local, &ll) ||
        getpeername(s->oob.fd, (struct sockaddr *)&peer, &pl))
        return 0; /* keep the choice made without the peer */
    if (gdr_verbs_choose_gid(&s->verbs, (struct sockaddr *)&local, (struct sockaddr *)&peer))
        return -1;
    gdr_verbs_describe(&s->verbs, &s->local);
    return 0;
}

/* What rdma_cm needs of the options. */
static struct gdr_cm_qps cm_qps(const struct gdr_session *s)
{
    const struct gdr_config *cfg = s->cfg;
    return (struct gdr_cm_qps){
        .ib_dev = cfg->ib_dev,
        .num_qps = cfg->num_qps,
        .send_depth = send_depth(s),
        .recv_depth = recv_depth(s),
        .inline_size = cfg->inline_size,
        .gpu_receives = gdr_mem_spec_gpu_receives(&cfg->mem),
        .traffic_class = cfg->traffic_class,
        .qp_timeout = cfg->qp_timeout,
        .retry_count = cfg->retry_count,
        .outs = cfg->outs,
    };
}

/* rdma_cm picks the device and walks the QPs to RTS itself; this end
 * places itself near that device before anything is allocated on it. */
static int connect_cm(struct gdr_session *s)
{
    struct gdr_cm_qps q = cm_qps(s);
    if (gdr_cm_resolve(s->cm, &s->verbs, &q))
        return -1;
    s->verbs.traffic_class = s->cfg->traffic_class;
    s->verbs.qp_timeout = s->cfg->qp_timeout;
    s->verbs.retry_count = s->cfg->retry_count;
    if (place(s) || gdr_cm_establish(s->cm, &s->verbs, &q) || gdr_events_watch(&s->verbs))
        return -1;
    return setup_buffer(s);
}

static int connect_peer(struct gdr_session *s)
{
    const struct gdr_config *cfg = s->cfg;
    if (s->is_server) {
        if (cfg->rdma_cm && gdr_cm_listen(&s->cm, cfg->bind_addr, cfg->tcp_port, cfg->timeout))
            return -1;
        if (gdr_oob_listen(cfg->bind_addr, cfg->tcp_port, &s->listen_fd) ||
            gdr_oob_accept(s->listen_fd, cfg->timeout, &s->oob))
            return -1;
        gdr_oob_refuse_others(&s->refusal, s->listen_fd, &s->oob);
        if (server_hello(s))
            return -1;
    } else {
        if (gdr_oob_connect(cfg->server, cfg->tcp_port, cfg->timeout, &s->oob) || client_hello(s))
            return -1;
        if (cfg->rdma_cm && gdr_cm_client(&s->cm, cfg->server, cfg->tcp_port, cfg->timeout))
            return -1;
    }
    /* Every helper thread exists now (CUDA's, the refusal of other
     * clients): from here on this thread runs the timed loops, on its CPU. */
    if (cfg->rdma_cm) {
        if (connect_cm(s) || gdr_place_pin_loop(&s->place) || exchange_endpoints(s) ||
            settle_roles(s))
            return -1;
    } else {
        if (choose_gid(s) || gdr_place_pin_loop(&s->place) || exchange_endpoints(s) ||
            settle_roles(s) || gdr_verbs_connect(&s->verbs, &s->remote, cfg->mtu, cfg->outs))
            return -1;
        /* Both ends make the same GRH choice from the same two GIDs. */
        s->local.grh = s->remote.grh = s->verbs.grh;
    }
    return settle_reads(s);
}

static void teardown(struct gdr_session *s)
{
    gdr_context_release(s);
    gdr_staged_credits_release(s);
    gdr_nic_flush_release(&s->verbs, &s->nic_flush);
    gdr_buffer_destroy(&s->buf);
    gdr_cm_release_qps(s->cm, &s->verbs);
    gdr_verbs_close(&s->verbs);
    gdr_cm_destroy(s->cm);
    gdr_oob_close(&s->oob);
    gdr_place_release(&s->place);
    if (s->listen_fd >= 0) {
        gdr_oob_refuse_stop(&s->refusal);
        close(s->listen_fd);
    }
}

static void write_json(const struct gdr_session *s, int argc, char **argv,
                       const struct gdr_size_result *rows, size_t nrows, int failed)
{
    const char *status = !failed ? "complete" : gdr_interrupted ? "interrupted" : "failed";
    cJSON *doc = gdr_output_document(s, argc, argv, rows, nrows, status,
                                     failed ? gdr_error_message() : NULL);
    gdr_json_write_atomic(doc, s->cfg->json_path); /* a failure is recorded */
    cJSON_Delete(doc);
}

/* One line when the bounce ring keeps fewer messages in flight than the
 * direct path would at some size: the staged curve is then not like for
 * like with the direct one from that size up. */
static void notice_ring_window(const struct gdr_config *cfg, const struct gdr_roles *r,
                               const char *binary)
{
    uint64_t window = gdr_slots_wanted(r, cfg->tx_depth, cfg->num_qps);
    for (size_t i = 0; i < cfg->sizes.count; i++) {
        struct gdr_stage_plan p;
        gdr_stage_plan(&p, cfg->sizes.size[i], cfg->stage_slot, cfg->stage_slots, window);
        if (!gdr_stage_window_limited(&p))
            continue;
        fprintf(stderr,
                "%s: notice: the bounce ring (%u slots of %llu bytes) keeps fewer "
                "messages in flight than the direct path's %llu from size %llu up; "
                "--stage-slots or --stage-slot raise it\n",
                binary, cfg->stage_slots, (unsigned long long)cfg->stage_slot,
                (unsigned long long)window, (unsigned long long)cfg->sizes.size[i]);
        return;
    }
}

int gdr_main(const struct gdr_test *test, int argc, char **argv)
{
    struct gdr_config cfg;
    switch (gdr_options_parse(&cfg, test, argc, argv)) {
    case GDR_PARSE_EXIT: return GDR_EXIT_OK;
    case GDR_PARSE_ERROR:
        fprintf(stderr, "%s: %s\n", test->binary, gdr_error_message());
        return gdr_error_code();
    case GDR_PARSE_RUN: break;
    }
    struct gdr_session s = {.test = test,
                            .cfg = &cfg,
                            .is_server = !cfg.server,
                            .oob = {.fd = -1},
                            .listen_fd = -1,
                            .place = {.loop_cpu = -1, .claim_fd = -1},
                            .refusal = {.listen_fd = -1}};
    /* Until the peer's buffer is known: the roles of a run with no staged
     * end, which size the buffer and the queues the same as any other. */
    struct gdr_role_input plan = {
        .verb = test->verb, .metric = test->metric, .bidirectional = cfg.bidirectional};
    const char *why;
    if (gdr_roles_for(&plan, &s.roles, &why)) {
        fprintf(stderr, "%s: %s\n", test->binary, why);
        return GDR_EXIT_USAGE;
    }
    gdr_utc_iso8601(s.start_time, sizeof(s.start_time));
    if (cfg.mem.cuda && cfg.mem.gdr == GDR_MODE_OFF && !cfg.quiet)
        notice_ring_window(&cfg, &s.roles, test->binary);
    install_signals();
    gdr_verbs_prepare_env(gdr_mem_spec_gpu_receives(&cfg.mem));
    /* A write latency end whose CPU may poll its landing buffer for the
     * last byte registers it without relaxed ordering: with it, a NIC's
     * PCIe writes may land out of order and the last byte come first. */
    if (gdr_test_pingpong(test) && test->verb == GDR_VERB_WRITE && !cfg.write_with_imm &&
        !gdr_mem_spec_gpu_receives(&cfg.mem))
        cfg.mem.relaxed_ordering = false;
    struct gdr_size_result *rows = calloc(cfg.sizes.count, sizeof(*rows));
    size_t nrows = 0;
    int rc = rows ? 0 : gdr_fail(GDR_EXIT_RUN, "out of memory");
    gdr_error_side(s.is_server ? "server" : "client");
    if (!rc)
        rc = setup_local(&s) || connect_peer(&s);
    if (!rc) {
        watch_during_waits(&s);
        gdr_output_banner(&s);
        rc = s.is_server ? gdr_server_sweep(&s, rows, &nrows) : gdr_client_sweep(&s, rows, &nrows);
    }
    if (rc && gdr_interrupted && gdr_error_code() == GDR_EXIT_OK)
        gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN, "interrupted");
    if (rc)
        gdr_oob_send_error(&s.oob, gdr_error_message(), gdr_error_code());
    /* A soak's findings, also after a failure: what it saw until then. */
    size_t findings = gdr_soak_finish(&s);
    if (cfg.json_path && rows)
        write_json(&s, argc, argv, rows, nrows, rc);
    gdr_soak_release(&s);
    teardown(&s);
    free(rows);
    if (gdr_error_code() != GDR_EXIT_OK) {
        fprintf(stderr, "%s: %s\n", test->binary, gdr_error_message());
        return gdr_error_code();
    }
    return findings ? GDR_EXIT_RUN : GDR_EXIT_OK;
}
