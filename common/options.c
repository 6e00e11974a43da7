#include "config.h"

#include "options.h"
#include "error.h"
#include "sizing.h"
#include "soak_findings.h"
#include "verbs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long-only options get codes above the ASCII range. */
enum {
    OPT_SIZES = 256,
    OPT_WARMUP,
    OPT_TIME_PER_SIZE,
    OPT_JSON,
    OPT_VALIDATE,
    OPT_QUIET,
    OPT_HELP,
    OPT_VERSION,
    OPT_GBITS,
    OPT_TIMEOUT,
    OPT_BIND,
    OPT_MEM,
    OPT_USE_CUDA,
    OPT_USE_CUDA_BUS_ID,
    OPT_GDR,
    OPT_STAGE_SLOT,
    OPT_STAGE_SLOTS,
    OPT_TCLASS,
    OPT_NO_RELAXED,
    OPT_GPU_ALLOC,
    OPT_DMABUF_MAPPING,
    OPT_DATA_DIRECT,
    OPT_CPU,
    OPT_NUMA,
    OPT_NO_BIND,
    OPT_QP_TIMEOUT,
    OPT_RETRY_COUNT,
    OPT_WRITE_IMM,
    OPT_SOAK,
    OPT_INTERVAL,
    OPT_JSON_LINES,
    OPT_DIP_PCT,
    OPT_RECONNECT_TIMEOUT,
};

static const struct option long_opts[] = {
    {"ib-dev", required_argument, NULL, 'd'},
    {"ib-port", required_argument, NULL, 'i'},
    {"gid-index", required_argument, NULL, 'x'},
    {"size", required_argument, NULL, 's'},
    {"all", no_argument, NULL, 'a'},
    {"iters", required_argument, NULL, 'n'},
    {"duration", required_argument, NULL, 'D'},
    {"qp", required_argument, NULL, 'q'},
    {"tx-depth", required_argument, NULL, 't'},
    {"port", required_argument, NULL, 'p'},
    {"inline_size", required_argument, NULL, 'I'},
    {"mtu", required_argument, NULL, 'm'},
    {"rdma_cm", no_argument, NULL, 'R'},
    {"bidirectional", no_argument, NULL, 'b'},
    {"events", no_argument, NULL, 'e'},
    {"outs", required_argument, NULL, 'o'},
    {"write_with_imm", no_argument, NULL, OPT_WRITE_IMM},
    {"sl", required_argument, NULL, 'S'},
    {"tclass", required_argument, NULL, OPT_TCLASS},
    {"disable_pcie_relaxed", no_argument, NULL, OPT_NO_RELAXED},
    {"CPU-freq", no_argument, NULL, 'F'},
    {"report_gbits", no_argument, NULL, OPT_GBITS},
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"time-per-size", required_argument, NULL, OPT_TIME_PER_SIZE},
    {"json", required_argument, NULL, OPT_JSON},
    {"soak", required_argument, NULL, OPT_SOAK},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"json-lines", required_argument, NULL, OPT_JSON_LINES},
    {"dip-pct", required_argument, NULL, OPT_DIP_PCT},
    {"reconnect-timeout", required_argument, NULL, OPT_RECONNECT_TIMEOUT},
    {"validate", no_argument, NULL, OPT_VALIDATE},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"bind", required_argument, NULL, OPT_BIND},
    {"mem", required_argument, NULL, OPT_MEM},
    {"use_cuda", required_argument, NULL, OPT_USE_CUDA},
    {"use_cuda_bus_id", required_argument, NULL, OPT_USE_CUDA_BUS_ID},
    {"gdr", required_argument, NULL, OPT_GDR},
    {"stage-slot", required_argument, NULL, OPT_STAGE_SLOT},
    {"stage-slots", required_argument, NULL, OPT_STAGE_SLOTS},
    {"gpu-alloc", required_argument, NULL, OPT_GPU_ALLOC},
    {"dmabuf-mapping", required_argument, NULL, OPT_DMABUF_MAPPING},
    {"data-direct", required_argument, NULL, OPT_DATA_DIRECT},
    {"cpu", required_argument, NULL, OPT_CPU},
    {"pin_cores", required_argument, NULL, OPT_CPU},
    {"numa", required_argument, NULL, OPT_NUMA},
    {"numa_node", required_argument, NULL, OPT_NUMA},
    {"no-bind", no_argument, NULL, OPT_NO_BIND},
    {"disable_numa", no_argument, NULL, OPT_NO_BIND},
    {"qp-timeout", required_argument, NULL, OPT_QP_TIMEOUT},
    {"retry-count", required_argument, NULL, OPT_RETRY_COUNT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Timed iterations per size when neither --iters nor a duration is given. */
static uint64_t default_iters(const struct gdr_test *test)
{
    return test->metric == GDR_METRIC_LAT ? 1000 : 5000;
}

/* "1M", "4K" or "100": a byte count as the options accept it. */
static const char *bytes_text(char *buf, size_t len, uint64_t v)
{
    if (v && v % (1u << 20) == 0)
        snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
    else if (v && v % 1024 == 0)
        snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
    return buf;
}

/* Every default shown comes from `def` (set_defaults) or default_iters(),
 * so the help cannot disagree with what a run does. */
static void print_help(const struct gdr_test *test, const struct gdr_config *def)
{
    bool lat = test->metric == GDR_METRIC_LAT;
    char slot[32];
    printf("Usage: %s [OPTIONS]           (server: waits for one client)\n"
           "       %s [OPTIONS] SERVER    (client: connects to SERVER)\n"
           "%s\n\n",
           test->binary, test->binary, test->summary);
    printf(
        "Both ends must be given the same test options.\n\n"
        "Device and connection:\n"
        "  -d, --ib-dev=NAME        RDMA device (default: first with an active port)\n"
        "  -i, --ib-port=N          device port (default %d)\n"
        "  -x, --gid-index=N        GID index (default on Ethernet: the GID that routes\n"
        "                           to the peer, never link-local unless alone; on\n"
        "                           InfiniBand the port GID, a GRH across subnets)\n"
        "  -m, --mtu=BYTES          path MTU 256..4096 (default: the smaller of the two\n"
        "                           ports' active MTUs)\n"
        "  -p, --port=N             TCP port of the out-of-band channel (default %u)\n"
        "      --bind=ADDR          server: listen on ADDR only (default: all addresses)\n"
        "  -R, --rdma_cm            connect the queue pairs with rdma_cm (it listens on\n"
        "                           --port + 1 and picks the device and GID)\n"
        "  -S, --sl=N               InfiniBand service level 0..15 of the path (default %u)\n"
        "      --tclass=N           RoCE traffic class 0..255 in the GRH (with -R: the\n"
        "                           rdma_cm ToS) (default %u)\n"
        "      --qp-timeout=N       local ACK timeout 4.096 us x 2^N, 0..31 (0: none;\n"
        "                           default %u, NCCL's)\n"
        "      --retry-count=N      retries of an unacknowledged packet 0..7 (default %u)\n"
        "      --timeout=SEC        limit for connect, accept and each exchange (default %g)\n\n",
        def->ib_port, def->tcp_port, def->service_level, def->traffic_class, def->qp_timeout,
        def->retry_count, def->timeout);
    printf("Placement (default: the CPUs and NUMA node of the RDMA device; the timed\n"
           "loops run on one CPU of them that no other gdrbench end on the host holds,\n"
           "where at least 2 more stay free beside the loops: never on a 2-CPU host):\n"
           "      --cpu=LIST           run on these CPUs, the loops pinned (\"0-3,8\";\n"
           "                           --pin_cores=LIST)\n"
           "      --numa=N             run on node N's CPUs, memory on node N (--numa_node=N;\n"
           "                           with --cpu: memory on N, the CPUs must be N's)\n"
           "      --no-bind            leave CPUs and memory to the kernel (--disable_numa)\n\n");
    printf("Sizes and iterations:\n"
           "  -s, --size=BYTES         one message size (default %llu); K, M, G suffixes\n"
           "  -a, --all                sweep %u B to %u MiB in powers of two\n"
           "      --sizes=MIN:MAX[:F]  sweep MIN..MAX, multiplying by F (default 2)\n"
           "  -n, --iters=N            timed iterations per size (default %llu)\n"
           "  -D, --duration=SEC       calibrate iterations so each size runs about SEC\n"
           "      --time-per-size=SEC  the same; for sweeps of predictable length\n"
           "      --warmup=N           untimed iterations before each size (default: scaled\n"
           "                           to the size, at most %llu MiB of traffic)\n",
           (unsigned long long)def->sizes.size[0], GDR_ALL_MIN, GDR_ALL_MAX >> 20,
           (unsigned long long)default_iters(test), GDR_WARMUP_BYTES >> 20);
    if (!lat)
        printf("  -t, --tx-depth=N         work requests in flight per queue pair (default %u)\n"
               "  -q, --qp=N               queue pairs, used round robin (default %u)\n",
               def->tx_depth, def->num_qps);
    if (!lat && test->verb != GDR_VERB_READ)
        printf("  -b, --bidirectional      both ends send at once; the row is the sum of both\n"
               "                           directions, each also reported\n");
    if (!lat)
        printf("  -e, --events             while waiting for arrivals (a send's receiver, a\n"
               "                           staged destination), sleep on completion events\n"
               "                           instead of polling (a staged destination otherwise\n"
               "                           polls for 1 ms before it sleeps)\n");
    if (test->verb == GDR_VERB_READ)
        printf("  -o, --outs=N             RDMA reads in flight per queue pair, 1..%u (default:\n"
               "                           as many as both devices allow)\n",
               GDR_MAX_OUTS);
    if (lat && test->verb == GDR_VERB_WRITE)
        printf("      --write_with_imm     learn of each write from a receive completion (write\n"
               "                           with immediate) on host buffers too; GPU buffers\n"
               "                           always do (the CPU cannot poll GPU memory)\n");
    printf("  -I, --inline_size=BYTES  post messages up to BYTES inline (default %u; not\n"
           "                           from GPU memory, which the CPU cannot read)\n\n"
           "Buffers (each end chooses its own):\n"
           "      --mem=host|cuda[:N|:BUS_ID]  host memory (default) or GPU N / at a PCI\n"
           "                           bus id (--use_cuda=N, --use_cuda_bus_id=BDF)\n"
           "      --gdr=MODE           GPU buffers: auto (dma-buf, else peermem; default),\n"
           "                           dmabuf, peermem, or off: staged through pinned host\n"
           "                           memory, as without GPUDirect RDMA\n"
           "      --gpu-alloc=KIND     GPU buffers: malloc (cuMemAlloc; default) or vmm\n"
           "                           (cuMemCreate, GPUDirect RDMA capable, mapped: as NCCL)\n"
           "      --dmabuf-mapping=M   dma-buf exports: auto (the PCIe mapping where NCCL asks\n"
           "                           for it: NIC and GPU on one PCIe switch of a C2C\n"
           "                           platform; default), pcie, or default\n"
           "      --data-direct=DD     dma-bufs through mlx5 Data Direct: auto (where the\n"
           "                           device has it; default), on, off\n"
           "      --stage-slot=BYTES   --gdr=off: bytes per bounce slot (default %s)\n"
           "      --stage-slots=N      --gdr=off: bounce slots per end and direction\n"
           "                           (default: as many as the direct path keeps in\n"
           "                           flight, %u to %llu MiB of slots)\n"
           "      --disable_pcie_relaxed  register memory without PCIe relaxed ordering\n"
           "                           (default: relaxed ordering where the device has it)\n\n",
           def->inline_size, bytes_text(slot, sizeof(slot), def->stage_slot), GDR_RING_MIN_SLOTS,
           GDR_RING_CAP_BYTES >> 20);
    printf("Soak (a burn-in of one size; the server learns it from the client):\n"
           "      --soak=DURATION      run one size for DURATION (90s, 45m, 8h, 3d, H:MM[:SS];\n"
           "                           at most 30 days), in intervals; SIGTERM or SIGINT end\n"
           "                           it after the interval under way, with its findings\n"
           "      --interval=SEC       seconds an interval (default %g; %g..%g)\n"
           "      --json-lines=FILE    one JSON line per interval, flushed as it ends (a\n"
           "                           server: when its client soaks)\n"
           "      --dip-pct=PCT        an interval under PCT %% of the soak's median is a dip\n"
           "                           (latency: over the median by as much; default %g)\n"
           "      --reconnect-timeout=SEC  after an outage (a port down, QPs in error) wait\n"
           "                           up to SEC for the port and the peer, rebuild the QPs\n"
           "                           on both ends and go on (default %g; %g..%g)\n"
           "  Findings (outages, dips, a trend, NIC error counters that rose, GPU\n"
           "  throttling) go to stderr, a line each, and into --json; exit 1 when there is\n"
           "  any. A peer not back within --reconnect-timeout ends the soak (exit 1).\n\n",
           def->interval_s, GDR_SOAK_INTERVAL_MIN, GDR_SOAK_INTERVAL_MAX, def->dip_pct,
           def->reconnect_timeout_s, GDR_SOAK_RECONNECT_MIN, GDR_SOAK_RECONNECT_MAX);
    printf("Output:\n"
           "      --validate           fill a pattern and check every received byte\n"
           "      --json=FILE          write the whole sweep as one JSON document\n"
           "      --report_gbits       show bandwidth in Gb/s instead of MB/s (10^6 B/s)\n"
           "      --quiet              no table, no progress line\n"
           "  -F, --CPU-freq           accepted for perftest compatibility; no effect\n"
           "      --help, --version\n\n"
           "Environment: GDR_CLOCK=tsc|monotonic  the latency samples' clock (default:\n"
           "the TSC when the CPU says it is invariant, the kernel's clocksource is tsc\n"
           "and the loop is pinned, else clock_gettime); GDR_CPU_CLAIM_DIR  where ends\n"
           "claim their loop CPUs (default /dev/shm)\n\n"
           "Exit status: 0 ok, 1 run failed, 2 bad usage or input, 3 no device or driver.\n");
}

/* "0000:3b:00.0" or "3b:00.0": a PCI bus id as CUDA accepts it. */
static bool looks_like_bus_id(const char *s)
{
    unsigned a, b, c, d;
    char tail;
    return strlen(s) < 32 && (sscanf(s, "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) == 4 ||
                              sscanf(s, "%x:%x.%x%c", &b, &c, &d, &tail) == 3);
}

static int set_cuda_device(struct gdr_mem_spec *m, const char *opt, const char *dev)
{
    uint64_t index;
    m->cuda = true;
    m->cuda_index = -1;
    m->cuda_bus_id[0] = '\0';
    if (!*dev || gdr_parse_uint(dev, 0, 1023, &index) == 0) {
        m->cuda_index = *dev ? (int)index : 0;
        return 0;
    }
    if (!looks_like_bus_id(dev))
        return gdr_fail(GDR_EXIT_USAGE,
                        "%s '%s': expected a GPU index or a PCI bus id "
                        "like 0000:3b:00.0",
                        opt, dev);
    snprintf(m->cuda_bus_id, sizeof(m->cuda_bus_id), "%s", dev);
    return 0;
}

static int parse_mem(struct gdr_mem_spec *m, const char *arg)
{
    if (strcmp(arg, "host") == 0) {
        m->cuda = false;
        return 0;
    }
    if (strcmp(arg, "cuda") == 0)
        return set_cuda_device(m, "--mem", "");
    if (strncmp(arg, "cuda:", 5) == 0 && arg[5])
        return set_cuda_device(m, "--mem", arg + 5);
    return gdr_fail(GDR_EXIT_USAGE, "--mem '%s': expected host, cuda, cuda:N or cuda:BUS_ID", arg);
}

static int parse_gdr(struct gdr_mem_spec *m, const char *arg)
{
    static const enum gdr_mode modes[] = {GDR_MODE_AUTO, GDR_MODE_DMABUF, GDR_MODE_PEERMEM,
                                          GDR_MODE_OFF};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        if (strcmp(arg, gdr_mode_name(modes[i])) == 0) {
            m->gdr = modes[i];
            return 0;
        }
    }
    return gdr_fail(GDR_EXIT_USAGE, "--gdr '%s': expected auto, dmabuf, peermem or off", arg);
}

/* One of n spellings (names[i] for value i) into *out. */
static int parse_choice(const char *opt, const char *arg, const char *const *names, int n, int *out,
                        const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return gdr_fail(GDR_EXIT_USAGE, "%s '%s': expected %s", opt, arg, want);
}

static int parse_gpu_options(struct gdr_mem_spec *m, int c, const char *arg)
{
    int v = 0, rc;
    switch (c) {
    case OPT_GPU_ALLOC: {
        static const char *const names[] = {"malloc", "vmm"};
        rc = parse_choice("--gpu-alloc", arg, names, 2, &v, "malloc or vmm");
        m->alloc = (enum gdr_gpu_alloc)v;
        return rc;
    }
    case OPT_DMABUF_MAPPING: {
        static const char *const names[] = {"auto", "pcie", "default"};
        rc = parse_choice("--dmabuf-mapping", arg, names, 3, &v, "auto, pcie or default");
        m->mapping = (enum gdr_dmabuf_mapping)v;
        return rc;
    }
    default: {
        static const char *const names[] = {"auto", "on", "off"};
        rc = parse_choice("--data-direct", arg, names, 3, &v, "auto, on or off");
        m->data_direct = (enum gdr_data_direct)v;
        return rc;
    }
    }
}

static void set_defaults(struct gdr_config *cfg, const struct gdr_test *test)
{
    memset(cfg, 0, sizeof(*cfg));
    bool lat = test->metric == GDR_METRIC_LAT;
    cfg->ib_port = 1;
    cfg->gid_index = -1;
    cfg->tcp_port = GDR_DEFAULT_PORT;
    cfg->num_qps = 1;
    cfg->tx_depth = lat ? 1 : 128;
    cfg->warmup_auto = true;
    cfg->timeout = GDR_DEFAULT_TIMEOUT;
    cfg->sizes.count = 1;
    cfg->sizes.size[0] = lat ? 2 : 65536;
    cfg->mem.cuda_index = -1;
    cfg->mem.relaxed_ordering = true;
    cfg->stage_slot = GDR_STAGE_SLOT_DEFAULT;
    cfg->stage_slots = 0; /* sized from the window once the options are known */
    cfg->qp_timeout = GDR_QP_TIMEOUT_DEFAULT;
    cfg->retry_count = GDR_RETRY_COUNT_DEFAULT;
    cfg->bind.mode = GDR_BIND_NIC;
    cfg->bind.numa = -1;
    cfg->interval_s = GDR_SOAK_INTERVAL_DEFAULT;
    cfg->dip_pct = GDR_SOAK_DIP_PCT_DEFAULT;
    cfg->reconnect_timeout_s = GDR_SOAK_RECONNECT_DEFAULT;
}

/* Which ways of choosing sizes and iteration counts were used, to reject
 * contradictory combinations after the loop. */
struct choices {
    bool size, all, sizes, iters, duration, time_per_size, tx_depth, qp, gdr, stage, stage_slots;
    bool sl, cpu, numa, no_bind, outs;
    bool gpu_alloc, dmabuf_mapping, data_direct;
    bool soak, interval, json_lines, dip_pct, reconnect;
};

static int bad_value(const char *opt, const char *value, const char *want)
{
    return gdr_fail(GDR_EXIT_USAGE, "%s '%s': %s", opt, value, want);
}

static int parse_one(struct gdr_config *cfg, struct choices *ch, int c, const char *arg)
{
    uint64_t v;
    switch (c) {
    case 'd':
        if (!*arg)
            return bad_value("--ib-dev", arg, "empty device name");
        cfg->ib_dev = arg;
        return 0;
    case 'i':
        if (gdr_parse_uint(arg, 1, 255, &v))
            return bad_value("--ib-port", arg, "expected a port number 1..255");
        cfg->ib_port = (int)v;
        return 0;
    case 'x':
        if (gdr_parse_uint(arg, 0, 65535, &v))
            return bad_value("--gid-index", arg, "expected an index 0..65535");
        cfg->gid_index = (int)v;
        return 0;
    case 'm':
        if (gdr_parse_uint(arg, 256, 4096, &v) || (v & (v - 1)))
            return bad_value("--mtu", arg, "expected 256, 512, 1024, 2048 or 4096");
        cfg->mtu = (unsigned)v;
        return 0;
    case 's':
        if (gdr_parse_bytes(arg, &v) || v < GDR_SIZE_MIN || v > GDR_SIZE_MAX)
            return bad_value("--size", arg, "expected 1 B .. 1 GiB");
        cfg->sizes.count = 1;
        cfg->sizes.size[0] = v;
        ch->size = true;
        return 0;
    case 'a': ch->all = true; return gdr_sizes_range(&cfg->sizes, GDR_ALL_MIN, GDR_ALL_MAX, 2);
    case OPT_SIZES: ch->sizes = true; return gdr_sizes_parse(&cfg->sizes, arg);
    case 'n':
        if (gdr_parse_uint(arg, 1, GDR_MAX_ITERS, &v))
            return bad_value("--iters", arg, "expected 1..100000000");
        cfg->iters = v;
        ch->iters = true;
        return 0;
    case 'D':
        if (gdr_parse_seconds(arg, &cfg->time_per_size))
            return bad_value("--duration", arg, "expected seconds > 0");
        ch->duration = true;
        return 0;
    case OPT_TIME_PER_SIZE:
        if (gdr_parse_seconds(arg, &cfg->time_per_size))
            return bad_value("--time-per-size", arg, "expected seconds > 0");
        ch->time_per_size = true;
        return 0;
    case OPT_WARMUP:
        if (gdr_parse_uint(arg, 0, GDR_MAX_ITERS, &v))
            return bad_value("--warmup", arg, "expected 0..100000000");
        cfg->warmup = v;
        cfg->warmup_auto = false;
        return 0;
    case 'q':
        if (gdr_parse_uint(arg, 1, GDR_MAX_QPS, &v))
            return bad_value("--qp", arg, "expected 1..64");
        cfg->num_qps = (unsigned)v;
        ch->qp = true;
        return 0;
    case 't':
        if (gdr_parse_uint(arg, 1, GDR_MAX_DEPTH, &v))
            return bad_value("--tx-depth", arg, "expected 1..8192");
        cfg->tx_depth = (unsigned)v;
        ch->tx_depth = true;
        return 0;
    case 'p':
        if (gdr_parse_uint(arg, 1, 65535, &v))
            return bad_value("--port", arg, "expected a TCP port 1..65535");
        cfg->tcp_port = (uint16_t)v;
        return 0;
    case 'I':
        if (gdr_parse_bytes(arg, &v) || v > GDR_MAX_INLINE)
            return bad_value("--inline_size", arg, "expected 0..4096 bytes");
        cfg->inline_size = (unsigned)v;
        return 0;
    case OPT_TIMEOUT:
        if (gdr_parse_seconds(arg, &cfg->timeout))
            return bad_value("--timeout", arg, "expected seconds > 0");
        return 0;
    case OPT_BIND:
        if (!*arg)
            return bad_value("--bind", arg, "empty address");
        cfg->bind_addr = arg;
        return 0;
    case OPT_JSON:
        if (!*arg)
            return bad_value("--json", arg, "empty file name");
        cfg->json_path = arg;
        return 0;
    case OPT_SOAK:
        if (gdr_parse_duration(arg, &cfg->soak_s) || cfg->soak_s <= 0 ||
            cfg->soak_s > GDR_SOAK_MAX_SECONDS)
            return bad_value("--soak", arg, "expected a duration like 90s, 8h or 3d, up to 30d");
        ch->soak = true;
        return 0;
    case OPT_INTERVAL:
        if (gdr_parse_seconds(arg, &cfg->interval_s) || cfg->interval_s < GDR_SOAK_INTERVAL_MIN ||
            cfg->interval_s > GDR_SOAK_INTERVAL_MAX)
            return bad_value("--interval", arg, "expected seconds 1..3600");
        ch->interval = true;
        return 0;
    case OPT_JSON_LINES:
        if (!*arg)
            return bad_value("--json-lines", arg, "empty file name");
        cfg->json_lines_path = arg;
        ch->json_lines = true;
        return 0;
    case OPT_DIP_PCT:
        if (gdr_parse_uint(arg, 1, 99, &v))
            return bad_value("--dip-pct", arg, "expected a percentage 1..99");
        cfg->dip_pct = (double)v;
        ch->dip_pct = true;
        return 0;
    case OPT_RECONNECT_TIMEOUT:
        if (gdr_parse_seconds(arg, &cfg->reconnect_timeout_s) ||
            cfg->reconnect_timeout_s < GDR_SOAK_RECONNECT_MIN ||
            cfg->reconnect_timeout_s > GDR_SOAK_RECONNECT_MAX)
            return bad_value("--reconnect-timeout", arg, "expected seconds 1..86400");
        ch->reconnect = true;
        return 0;
    case OPT_MEM: return parse_mem(&cfg->mem, arg);
    case OPT_USE_CUDA:
        if (gdr_parse_uint(arg, 0, 1023, &v))
            return bad_value("--use_cuda", arg, "expected a GPU index");
        return set_cuda_device(&cfg->mem, "--use_cuda", arg);
    case OPT_USE_CUDA_BUS_ID:
        if (!looks_like_bus_id(arg))
            return bad_value("--use_cuda_bus_id", arg, "expected a PCI bus id like 0000:3b:00.0");
        return set_cuda_device(&cfg->mem, "--use_cuda_bus_id", arg);
    case OPT_GDR: ch->gdr = true; return parse_gdr(&cfg->mem, arg);
    case OPT_GPU_ALLOC: ch->gpu_alloc = true; return parse_gpu_options(&cfg->mem, c, arg);
    case OPT_DMABUF_MAPPING: ch->dmabuf_mapping = true; return parse_gpu_options(&cfg->mem, c, arg);
    case OPT_DATA_DIRECT: ch->data_direct = true; return parse_gpu_options(&cfg->mem, c, arg);
    case OPT_STAGE_SLOT:
        if (gdr_parse_bytes(arg, &v) || v < 4096 || v > (256u << 20))
            return bad_value("--stage-slot", arg, "expected 4K .. 256M");
        cfg->stage_slot = v;
        ch->stage = true;
        return 0;
    case OPT_STAGE_SLOTS:
        if (gdr_parse_uint(arg, 1, GDR_STAGE_SLOTS_MAX, &v))
            return bad_value("--stage-slots", arg, "expected 1..256");
        cfg->stage_slots = (unsigned)v;
        ch->stage = ch->stage_slots = true;
        return 0;
    case 'S':
        if (gdr_parse_uint(arg, 0, 15, &v))
            return bad_value("--sl", arg, "expected a service level 0..15");
        cfg->service_level = (uint8_t)v;
        ch->sl = true;
        return 0;
    case OPT_TCLASS:
        if (gdr_parse_uint(arg, 0, 255, &v))
            return bad_value("--tclass", arg, "expected a traffic class 0..255");
        cfg->traffic_class = (uint8_t)v;
        return 0;
    case OPT_NO_RELAXED: cfg->mem.relaxed_ordering = false; return 0;
    case OPT_CPU:
        if (gdr_parse_cpulist(arg, &cfg->bind.cpus) || CPU_COUNT(&cfg->bind.cpus) == 0)
            return bad_value("--cpu", arg, "expected a CPU list like 0-3,8");
        ch->cpu = true;
        return 0;
    case OPT_NUMA:
        if (gdr_parse_uint(arg, 0, GDR_MAX_NODES - 1, &v))
            return bad_value("--numa", arg, "expected a NUMA node 0..63");
        cfg->bind.numa = (int)v;
        ch->numa = true;
        return 0;
    case OPT_NO_BIND: ch->no_bind = true; return 0;
    case OPT_QP_TIMEOUT:
        if (gdr_parse_uint(arg, 0, 31, &v))
            return bad_value("--qp-timeout", arg, "expected 0..31 (4.096 us x 2^N; 0: none)");
        cfg->qp_timeout = (uint8_t)v;
        return 0;
    case OPT_RETRY_COUNT:
        if (gdr_parse_uint(arg, 0, 7, &v))
            return bad_value("--retry-count", arg, "expected 0..7");
        cfg->retry_count = (uint8_t)v;
        return 0;
    case 'R': cfg->rdma_cm = true; return 0;
    case 'b': cfg->bidirectional = true; return 0;
    case 'e': cfg->events = true; return 0;
    case 'o':
        if (gdr_parse_uint(arg, 1, GDR_MAX_OUTS, &v))
            return bad_value("--outs", arg, "expected 1..255 reads in flight");
        cfg->outs = (unsigned)v;
        ch->outs = true;
        return 0;
    case OPT_WRITE_IMM: cfg->write_with_imm = true; return 0;
    case 'F': return 0;
    case OPT_GBITS: cfg->report_gbits = true; return 0;
    case OPT_VALIDATE: cfg->validate = true; return 0;
    case OPT_QUIET: cfg->quiet = true; return 0;
    }
    return gdr_fail(GDR_EXIT_USAGE, "internal: unhandled option %d", c);
}

/* The GPU buffer options: each must apply to this end's buffer. */
static int check_gpu_options(const struct gdr_mem_spec *m, const struct choices *ch)
{
    const char *given = ch->gpu_alloc        ? "--gpu-alloc"
                        : ch->dmabuf_mapping ? "--dmabuf-mapping"
                        : ch->data_direct    ? "--data-direct"
                                             : NULL;
    if (given && !m->cuda)
        return gdr_fail(GDR_EXIT_USAGE, "%s applies to GPU buffers; add --mem=cuda", given);
    bool no_dmabuf = m->gdr == GDR_MODE_PEERMEM || m->gdr == GDR_MODE_OFF;
    if (no_dmabuf && ch->dmabuf_mapping)
        return gdr_fail(GDR_EXIT_USAGE,
                        "--dmabuf-mapping applies to dma-buf registrations; --gdr=%s makes none",
                        gdr_mode_name(m->gdr));
    if (no_dmabuf && m->data_direct == GDR_DD_ON)
        return gdr_fail(GDR_EXIT_USAGE, "--data-direct=on registers dma-bufs; --gdr=%s makes none",
                        gdr_mode_name(m->gdr));
    return 0;
}

void gdr_options_soak(struct gdr_config *cfg, double soak_s, double interval_s, double dip_pct,
                      double reconnect_timeout_s)
{
    cfg->soak_s = soak_s;
    cfg->interval_s = interval_s;
    cfg->dip_pct = dip_pct;
    cfg->reconnect_timeout_s = reconnect_timeout_s;
    cfg->time_per_size = interval_s;
    cfg->iters = 0;
}

/* A soak runs one size, each interval calibrated to --interval. */
static int check_soak(struct gdr_config *cfg, const struct choices *ch)
{
    /* A server without --soak learns the client's; where to write its
     * lines is its own. */
    bool lines_alone = ch->json_lines && cfg->server;
    const char *needs = ch->interval    ? "--interval"
                        : lines_alone   ? "--json-lines"
                        : ch->dip_pct   ? "--dip-pct"
                        : ch->reconnect ? "--reconnect-timeout"
                                        : NULL;
    if (!ch->soak) {
        if (needs)
            return gdr_fail(GDR_EXIT_USAGE, "%s applies to --soak", needs);
        return 0;
    }
    if (cfg->sizes.count != 1)
        return gdr_fail(GDR_EXIT_USAGE, "--soak runs one size: give it with --size, not a sweep");
    if (ch->iters || ch->duration || ch->time_per_size)
        return gdr_fail(GDR_EXIT_USAGE,
                        "--soak times each interval (--interval); drop --iters, --duration and "
                        "--time-per-size");
    if (cfg->interval_s > cfg->soak_s)
        return gdr_fail(GDR_EXIT_USAGE, "--interval %g s is longer than the --soak of %g s",
                        cfg->interval_s, cfg->soak_s);
    gdr_options_soak(cfg, cfg->soak_s, cfg->interval_s, cfg->dip_pct, cfg->reconnect_timeout_s);
    return 0;
}

static int check_combination(struct gdr_config *cfg, const struct gdr_test *test,
                             const struct choices *ch)
{
    if (ch->size + ch->all + ch->sizes > 1)
        return gdr_fail(GDR_EXIT_USAGE, "choose one of --size, --all and --sizes");
    if (ch->iters + ch->duration + ch->time_per_size > 1)
        return gdr_fail(GDR_EXIT_USAGE, "choose one of --iters, --duration and --time-per-size");
    /* One QP and one message in flight are what a latency test is: say
     * so to a perftest habit of -q 2, accept -q 1 and -t 1. */
    if (test->metric == GDR_METRIC_LAT && (cfg->tx_depth > 1 || cfg->num_qps > 1))
        return gdr_fail(
            GDR_EXIT_USAGE,
            "--tx-depth and --qp apply to bandwidth tests; %s keeps one message in flight",
            test->binary);
    if (ch->outs && test->verb != GDR_VERB_READ)
        return gdr_fail(GDR_EXIT_USAGE, "--outs applies to RDMA read tests, not to %s",
                        test->binary);
    if (cfg->write_with_imm && !(gdr_test_pingpong(test) && test->verb == GDR_VERB_WRITE))
        return gdr_fail(GDR_EXIT_USAGE, "--write_with_imm applies to write latency, not to %s",
                        test->binary);
    if (!ch->iters && !ch->duration && !ch->time_per_size)
        cfg->iters = default_iters(test);
    if (check_soak(cfg, ch))
        return -1;
    if (cfg->inline_size && test->verb == GDR_VERB_READ)
        return gdr_fail(GDR_EXIT_USAGE, "--inline_size: RDMA reads cannot be posted inline");
    if (cfg->server && !*cfg->server)
        return gdr_fail(GDR_EXIT_USAGE, "empty server name");
    if (cfg->server && cfg->bind_addr)
        return gdr_fail(GDR_EXIT_USAGE, "--bind is for the server; the client connects to %s",
                        cfg->server);
    if (ch->no_bind && (ch->cpu || ch->numa))
        return gdr_fail(GDR_EXIT_USAGE, "--no-bind contradicts %s: choose one",
                        ch->cpu ? "--cpu" : "--numa");
    cfg->bind.mode = ch->no_bind ? GDR_BIND_OFF
                     : ch->cpu   ? GDR_BIND_CPU
                     : ch->numa  ? GDR_BIND_NUMA
                                 : GDR_BIND_NIC;
    if (ch->gdr && !cfg->mem.cuda)
        return gdr_fail(GDR_EXIT_USAGE, "--gdr applies to GPU buffers; add --mem=cuda");
    if (check_gpu_options(&cfg->mem, ch))
        return -1;
    if (cfg->rdma_cm && cfg->gid_index >= 0)
        return gdr_fail(GDR_EXIT_USAGE, "--gid-index: with --rdma_cm, rdma_cm chooses the GID");
    if (cfg->rdma_cm && ch->sl)
        return gdr_fail(GDR_EXIT_USAGE, "--sl: with --rdma_cm, the path record chooses the "
                                        "service level; set --tclass (rdma_cm's ToS) instead");
    /* The provider copies inline data with the CPU, and a CPU cannot read
     * GPU memory. Only the client posts data (both ends with -b or in a
     * ping-pong); staged sources post from their host bounce ring. */
    if (cfg->inline_size && (cfg->server || cfg->bidirectional || gdr_test_pingpong(test)) &&
        cfg->mem.cuda && cfg->mem.gdr != GDR_MODE_OFF)
        return gdr_fail(GDR_EXIT_USAGE,
                        "--inline_size %u: this end sends from GPU memory, "
                        "which cannot be posted inline; use -I 0 or --mem=host",
                        cfg->inline_size);
    if (cfg->rdma_cm && cfg->mtu)
        return gdr_fail(GDR_EXIT_USAGE, "--mtu: with --rdma_cm, rdma_cm chooses the path MTU");
#ifndef HAVE_RDMACM
    if (cfg->rdma_cm)
        return gdr_fail(GDR_EXIT_ENV, "--rdma_cm: this build has no librdmacm");
#endif
    if (cfg->bidirectional && (test->metric != GDR_METRIC_BW || test->verb == GDR_VERB_READ))
        return gdr_fail(GDR_EXIT_USAGE,
                        "--bidirectional applies to write and send bandwidth, not to %s",
                        test->binary);
    /* A latency loop polls its one message: sleeping would add a wake-up
     * to every sample. */
    if (cfg->events && test->metric != GDR_METRIC_BW)
        return gdr_fail(GDR_EXIT_USAGE, "--events applies to bandwidth tests, not to %s",
                        test->binary);
    /* A bidirectional or ping-pong end's ring holds both directions' slots. */
    bool two_ways = cfg->bidirectional || gdr_test_pingpong(test);
    if (two_ways && cfg->stage_slots > GDR_STAGE_SLOTS_MAX / 2)
        return gdr_fail(GDR_EXIT_USAGE,
                        "--stage-slots %u: with %s at most %u "
                        "(each direction has its own)",
                        cfg->stage_slots, cfg->bidirectional ? "--bidirectional" : test->binary,
                        GDR_STAGE_SLOTS_MAX / 2);
    if (!ch->stage_slots) {
        uint64_t window =
            test->metric == GDR_METRIC_LAT ? 1 : (uint64_t)cfg->tx_depth * cfg->num_qps;
        cfg->stage_slots = gdr_ring_slots(gdr_sizes_max(&cfg->sizes), cfg->stage_slot, window);
        /* Two directions' rings share the slot arrays: half each. */
        if (two_ways && cfg->stage_slots > GDR_STAGE_SLOTS_MAX / 2)
            cfg->stage_slots = GDR_STAGE_SLOTS_MAX / 2;
    }
    return 0;
}

enum gdr_parse_result gdr_options_parse(struct gdr_config *cfg, const struct gdr_test *test,
                                        int argc, char **argv)
{
    struct choices ch = {0};
    set_defaults(cfg, test);
    optind = 0; /* full re-initialisation, so tests can parse twice */
    opterr = 0;
    int c;
    static const char short_opts[] = ":d:i:x:m:s:an:D:q:t:p:I:S:o:RFbe";
    while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
        if (c == OPT_HELP) {
            struct gdr_config def;
            set_defaults(&def, test);
            print_help(test, &def);
            return GDR_PARSE_EXIT;
        }
        if (c == OPT_VERSION) {
            gdr_print_version(test->binary);
            return GDR_PARSE_EXIT;
        }
        if (c == '?' || c == ':') {
            /* An unknown letter inside a cluster ("-zF") leaves optind on
             * the cluster, so argv[optind - 1] is the argument before it:
             * name the letter itself. */
            char letter[3] = {'-', (char)optopt, '\0'};
            const char *what = c == '?' && optopt > 0 && optopt < 128 && !strchr(short_opts, optopt)
                                   ? letter
                                   : argv[optind - 1];
            gdr_fail(GDR_EXIT_USAGE, "%s '%s' (see %s --help)",
                     c == ':' ? "missing value for" : "unknown option", what, test->binary);
            return GDR_PARSE_ERROR;
        }
        if (parse_one(cfg, &ch, c, optarg))
            return GDR_PARSE_ERROR;
    }
    if (optind < argc)
        cfg->server = argv[optind++];
    if (optind < argc) {
        gdr_fail(GDR_EXIT_USAGE, "unexpected argument '%s' (one SERVER at most)", argv[optind]);
        return GDR_PARSE_ERROR;
    }
    return check_combination(cfg, test, &ch) ? GDR_PARSE_ERROR : GDR_PARSE_RUN;
}
