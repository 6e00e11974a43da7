/* test_options.c - the command line: defaults, every flag, and every way a
 * value or a combination of flags is refused. */
#include "config.h"

#include "unit.h"

#include "options.h"
#include "test.h"

static const struct gdr_test bw_test = {
    .name = "write_bw",
    .binary = "gdr_write_bw",
    .summary = "RDMA write bandwidth",
    .verb = GDR_VERB_WRITE,
    .metric = GDR_METRIC_BW,
};
static const struct gdr_test lat_test = {
    .name = "read_lat",
    .binary = "gdr_read_lat",
    .summary = "RDMA read latency",
    .verb = GDR_VERB_READ,
    .metric = GDR_METRIC_LAT,
};
static const struct gdr_test send_test = {
    .name = "send_bw",
    .binary = "gdr_send_bw",
    .summary = "send bandwidth",
    .verb = GDR_VERB_SEND,
    .metric = GDR_METRIC_BW,
};

static const struct gdr_test write_lat_test = {
    .name = "write_lat",
    .binary = "gdr_write_lat",
    .summary = "RDMA write latency",
    .verb = GDR_VERB_WRITE,
    .metric = GDR_METRIC_LAT,
};
static const struct gdr_test send_lat_test = {
    .name = "send_lat",
    .binary = "gdr_send_lat",
    .summary = "send latency",
    .verb = GDR_VERB_SEND,
    .metric = GDR_METRIC_LAT,
};
static const struct gdr_test read_bw_test = {
    .name = "read_bw",
    .binary = "gdr_read_bw",
    .summary = "RDMA read bandwidth",
    .verb = GDR_VERB_READ,
    .metric = GDR_METRIC_BW,
};

#define MAX_ARGS 24

/* Parse a NULL-terminated list of arguments (argv[0] is added). getopt
 * permutes the pointer array, so it is rebuilt on every call. */
static enum gdr_parse_result parse_argv(struct gdr_config *cfg, const struct gdr_test *t,
                                        const char *const *args)
{
    static char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)t->binary;
    for (; args[argc - 1]; argc++) {
        assert_true(argc <= MAX_ARGS);
        argv[argc] = (char *)args[argc - 1];
    }
    argv[argc] = NULL;
    return gdr_options_parse(cfg, t, argc, argv);
}

#define PARSE(cfg, t, ...) parse_argv((cfg), (t), (const char *const[]){__VA_ARGS__, NULL})
#define PARSE0(cfg, t) parse_argv((cfg), (t), (const char *const[]){NULL})

static void assert_run(enum gdr_parse_result r)
{
    if (r != GDR_PARSE_RUN)
        fail_msg("parse returned %d, error: '%s'", (int)r, gdr_error_message());
    assert_no_error();
}

static void test_defaults_bandwidth(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &bw_test));
    assert_int_equal(cfg.tcp_port, 18515);
    assert_int_equal(cfg.sizes.count, 1);
    assert_int_equal(cfg.sizes.size[0], 65536);
    assert_int_equal(cfg.iters, 5000);
    assert_int_equal(cfg.gid_index, -1);
    assert_int_equal(cfg.ib_port, 1);
    assert_null(cfg.ib_dev);
    assert_int_equal(cfg.mtu, 0);
    assert_int_equal(cfg.num_qps, 1);
    assert_int_equal(cfg.tx_depth, 128);
    assert_int_equal(cfg.inline_size, 0);
    assert_true(cfg.warmup_auto);
    assert_near(cfg.time_per_size, 0, 0);
    assert_near(cfg.timeout, 60.0, 0);
    assert_null(cfg.server);
    assert_null(cfg.bind_addr);
    assert_null(cfg.json_path);
    assert_false(cfg.validate || cfg.quiet || cfg.report_gbits || cfg.rdma_cm);
}

static void test_defaults_latency(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &lat_test));
    assert_int_equal(cfg.tcp_port, 18515);
    assert_int_equal(cfg.sizes.count, 1);
    assert_int_equal(cfg.sizes.size[0], 2);
    assert_int_equal(cfg.iters, 1000);
    assert_int_equal(cfg.gid_index, -1);
    assert_int_equal(cfg.tx_depth, 1);
    assert_int_equal(cfg.num_qps, 1);
}

static void test_perftest_flags(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-d", "mlx5_0", "-i", "2", "-x", "3", "-s", "4K", "-n", "77",
                     "-q", "4", "-t", "64", "-p", "20000", "-I", "128", "-F", "--report_gbits",
                     "198.18.0.2"));
    assert_string_equal(cfg.ib_dev, "mlx5_0");
    assert_int_equal(cfg.ib_port, 2);
    assert_int_equal(cfg.gid_index, 3);
    assert_int_equal(cfg.sizes.count, 1);
    assert_int_equal(cfg.sizes.size[0], 4096);
    assert_int_equal(cfg.iters, 77);
    assert_int_equal(cfg.num_qps, 4);
    assert_int_equal(cfg.tx_depth, 64);
    assert_int_equal(cfg.tcp_port, 20000);
    assert_int_equal(cfg.inline_size, 128);
    assert_false(cfg.rdma_cm);
    assert_true(cfg.report_gbits);
    assert_string_equal(cfg.server, "198.18.0.2");
}

static void test_all_flag(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-a"));
    assert_int_equal(cfg.sizes.count, 23); /* 2^1 .. 2^23 */
    assert_int_equal(cfg.sizes.size[0], 2);
    assert_int_equal(cfg.sizes.size[22], 8u << 20);
    assert_int_equal(cfg.iters, 5000);
}

static void test_duration_flags(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-D", "2.5"));
    assert_near(cfg.time_per_size, 2.5, 0);
    assert_int_equal(cfg.iters, 0); /* calibrated, not the default count */

    assert_run(PARSE(&cfg, &lat_test, "--time-per-size=0.25"));
    assert_near(cfg.time_per_size, 0.25, 0);
    assert_int_equal(cfg.iters, 0);
}

/* --soak: one size, each interval a calibrated timed phase; its
 * durations as gdr-cluster's --budget reads them (one parser). */
static void test_soak(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &bw_test));
    assert_near(cfg.soak_s, 0, 0);
    assert_near(cfg.interval_s, 10, 0);
    assert_near(cfg.dip_pct, 90, 0);
    assert_near(cfg.reconnect_timeout_s, 300, 0);

    assert_run(PARSE(&cfg, &bw_test, "--soak=90s", "-s", "1M"));
    assert_near(cfg.soak_s, 90, 0);
    assert_near(cfg.time_per_size, 10, 0);
    assert_int_equal(cfg.iters, 0);
    assert_null(cfg.json_lines_path);
    /* a server writes the lines of the soak its client asks for */
    assert_run(PARSE(&cfg, &bw_test, "--json-lines=s.jsonl"));
    assert_near(cfg.soak_s, 0, 0);

    assert_run(PARSE(&cfg, &lat_test, "--soak=8h", "--interval=2.5", "--json-lines=s.jsonl",
                     "--dip-pct=80"));
    assert_near(cfg.soak_s, 8 * 3600, 0);
    assert_near(cfg.interval_s, 2.5, 0);
    assert_near(cfg.time_per_size, 2.5, 0);
    assert_near(cfg.dip_pct, 80, 0);
    assert_string_equal(cfg.json_lines_path, "s.jsonl");

    assert_run(PARSE(&cfg, &bw_test, "--soak=1h", "--reconnect-timeout=45.5"));
    assert_near(cfg.reconnect_timeout_s, 45.5, 0);

    const struct {
        const char *text;
        double s;
    } ok[] = {{"3d", 3 * 86400}, {"45m", 2700}, {"1:30:00", 5400}, {"0:05", 300}, {"120", 120}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        double v;
        assert_int_equal(gdr_parse_duration(ok[i].text, &v), 0);
        assert_near(v, ok[i].s, 0);
    }
    const char *bad[] = {"", "h", "8x", "-1h", "1:60", "1:2:3:4", "nan", "inf", "1 h"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double v;
        if (gdr_parse_duration(bad[i], &v) == 0)
            fail_msg("'%s' parsed as %g", bad[i], v);
    }
    /* a number in a closed range, nothing after it (the tools' options) */
    double r;
    assert_int_equal(gdr_parse_real("0.5", 0.5, 100, &r), 0);
    assert_near(r, 0.5, 0);
    assert_int_equal(gdr_parse_real("-2e1", -20, 0, &r), 0);
    assert_near(r, -20, 0);
    const char *bad_real[] = {"", " 1", "1 ", "1x", "nan", "inf", "100.5", "0.4"};
    for (size_t i = 0; i < sizeof(bad_real) / sizeof(bad_real[0]); i++)
        if (gdr_parse_real(bad_real[i], 0.5, 100, &r) == 0)
            fail_msg("'%s' parsed as %g in [0.5, 100]", bad_real[i], r);
}

static void test_long_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "--sizes=1K:1M:4", "--warmup=0", "--json=out.json",
                     "--validate", "--quiet", "--timeout=1.5", "--bind=127.0.0.1", "--mtu=1024"));
    static const uint64_t want[] = {1024, 4096, 16384, 65536, 262144, 1048576};
    assert_int_equal(cfg.sizes.count, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(cfg.sizes.size[i], want[i]);
    assert_int_equal(cfg.warmup, 0);
    assert_false(cfg.warmup_auto);
    assert_string_equal(cfg.json_path, "out.json");
    assert_true(cfg.validate);
    assert_true(cfg.quiet);
    assert_near(cfg.timeout, 1.5, 0);
    assert_string_equal(cfg.bind_addr, "127.0.0.1");
    assert_null(cfg.server);
    assert_int_equal(cfg.mtu, 1024);

    /* The long spellings of the perftest flags, with separate values. */
    assert_run(PARSE(&cfg, &bw_test, "--ib-dev", "rxe0", "--ib-port", "3", "--gid-index", "1",
                     "--size", "1M", "--iters", "9", "--qp", "2", "--tx-depth", "16", "--port",
                     "4000", "--inline_size", "64", "--warmup", "12"));
    assert_string_equal(cfg.ib_dev, "rxe0");
    assert_int_equal(cfg.ib_port, 3);
    assert_int_equal(cfg.gid_index, 1);
    assert_int_equal(cfg.sizes.size[0], 1 << 20);
    assert_int_equal(cfg.iters, 9);
    assert_int_equal(cfg.num_qps, 2);
    assert_int_equal(cfg.tx_depth, 16);
    assert_int_equal(cfg.tcp_port, 4000);
    assert_int_equal(cfg.inline_size, 64);
    assert_int_equal(cfg.warmup, 12);
    assert_false(cfg.warmup_auto);
}

/* The largest and smallest accepted values of each bounded option. */
static void test_boundaries_accepted(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-s", "1G", "-q", "64", "-t", "8192", "-p", "65535", "-x", "0",
                     "-i", "255", "-I", "4096", "-m", "4096", "-n", "100000000"));
    assert_int_equal(cfg.sizes.size[0], 1ull << 30);
    assert_int_equal(cfg.num_qps, 64);
    assert_int_equal(cfg.tx_depth, 8192);
    assert_int_equal(cfg.tcp_port, 65535);
    assert_int_equal(cfg.gid_index, 0);
    assert_int_equal(cfg.ib_port, 255);
    assert_int_equal(cfg.inline_size, 4096);
    assert_int_equal(cfg.mtu, 4096);
    assert_int_equal(cfg.iters, 100000000);

    assert_run(
        PARSE(&cfg, &bw_test, "-s", "1", "-q", "1", "-t", "1", "-p", "1", "-m", "256", "-n", "1"));
    assert_int_equal(cfg.sizes.size[0], 1);
    assert_int_equal(cfg.tcp_port, 1);
    assert_int_equal(cfg.mtu, 256);
    assert_int_equal(cfg.iters, 1);

    /* A send test may run two iterations (one gap to time). */
    assert_run(PARSE(&cfg, &send_test, "-n", "2"));
    assert_int_equal(cfg.iters, 2);
}

/* GNU argument order: the server may come first. */
static void test_server_before_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &lat_test, "node2", "-s", "64", "-n", "10"));
    assert_string_equal(cfg.server, "node2");
    assert_int_equal(cfg.sizes.size[0], 64);
    assert_int_equal(cfg.iters, 10);
}

/* A second parse starts from the defaults and from the first argument. */
static void test_parse_twice(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-s", "8", "-q", "3", "--json=a.json", "host"));
    assert_run(PARSE(&cfg, &bw_test, "-n", "5"));
    assert_int_equal(cfg.sizes.size[0], 65536);
    assert_int_equal(cfg.num_qps, 1);
    assert_null(cfg.json_path);
    assert_null(cfg.server);
    assert_int_equal(cfg.iters, 5);
}

static void test_help_and_version(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_int_equal(PARSE(&cfg, &bw_test, "--help"), GDR_PARSE_EXIT);
    assert_no_error();
    assert_int_equal(PARSE(&cfg, &lat_test, "--help"), GDR_PARSE_EXIT);
    assert_int_equal(PARSE(&cfg, &bw_test, "-s", "8", "--version"), GDR_PARSE_EXIT);
    assert_no_error();
}

/* -R needs librdmacm; a build without it says so as an environment error. */
/* Options for real NICs and GPUs: --tclass, -S/--sl, --disable_pcie_relaxed,
 * and -I refused only where this end would post GPU memory inline. */
static void test_hardware_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &bw_test));
    assert_int_equal(cfg.traffic_class, 0);
    assert_int_equal(cfg.service_level, 0);
    assert_true(cfg.mem.relaxed_ordering);
    assert_run(PARSE(&cfg, &bw_test, "--tclass=106", "-S", "3", "--disable_pcie_relaxed"));
    assert_int_equal(cfg.traffic_class, 106);
    assert_int_equal(cfg.service_level, 3);
    assert_false(cfg.mem.relaxed_ordering);
    assert_run(PARSE(&cfg, &bw_test, "--sl=15", "--tclass=255"));
    assert_int_equal(cfg.service_level, 15);
    assert_int_equal(cfg.traffic_class, 255);
    /* The client sends: from a staged GPU buffer (host ring) or host
     * memory inline is fine; the server of write_bw never posts data. */
    assert_run(PARSE(&cfg, &bw_test, "-I", "64", "--mem=cuda", "--gdr=off", "srv"));
    assert_run(PARSE(&cfg, &bw_test, "-I", "64", "--mem=host", "srv"));
    assert_run(PARSE(&cfg, &bw_test, "-I", "64", "--mem=cuda"));
    assert_run(PARSE(&cfg, &send_test, "-I", "0", "--mem=cuda", "srv"));
}

/* The GPU memory options land in the buffer's spec; their defaults are
 * cuMemAlloc, auto mapping, auto Data Direct. */
static void test_gpu_memory_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "--mem=cuda", "srv"));
    assert_int_equal(cfg.mem.alloc, GDR_ALLOC_MALLOC);
    assert_int_equal(cfg.mem.mapping, GDR_MAPPING_AUTO);
    assert_int_equal(cfg.mem.data_direct, GDR_DD_AUTO);
    assert_run(PARSE(&cfg, &bw_test, "--mem=cuda", "--gpu-alloc=vmm", "--dmabuf-mapping=pcie",
                     "--data-direct=off", "srv"));
    assert_int_equal(cfg.mem.alloc, GDR_ALLOC_VMM);
    assert_int_equal(cfg.mem.mapping, GDR_MAPPING_PCIE);
    assert_int_equal(cfg.mem.data_direct, GDR_DD_OFF);
    assert_string_equal(gdr_gpu_alloc_name(cfg.mem.alloc), "vmm");
    assert_string_equal(gdr_dmabuf_mapping_name(cfg.mem.mapping), "pcie");
    assert_string_equal(gdr_data_direct_name(cfg.mem.data_direct), "off");
    /* staged VMM memory is fine; so is turning Data Direct off with peermem */
    assert_run(PARSE(&cfg, &bw_test, "--mem=cuda", "--gdr=off", "--gpu-alloc=vmm", "srv"));
    assert_run(PARSE(&cfg, &bw_test, "--mem=cuda", "--gdr=peermem", "--data-direct=off", "srv"));
    assert_run(PARSE(&cfg, &bw_test, "--mem=cuda", "--gdr=dmabuf", "--data-direct=on",
                     "--dmabuf-mapping=default", "srv"));
}

/* Placement and the QP's patience: defaults, perftest's names, values. */
static void test_placement_and_qp_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &bw_test));
    assert_int_equal(cfg.bind.mode, GDR_BIND_NIC);
    assert_int_equal(cfg.bind.numa, -1);
    assert_int_equal(cfg.qp_timeout, 20); /* NCCL's */
    assert_int_equal(cfg.retry_count, 7);
    assert_run(PARSE(&cfg, &bw_test, "--cpu=0-2,5", "--qp-timeout=14", "--retry-count=3"));
    assert_int_equal(cfg.bind.mode, GDR_BIND_CPU);
    assert_int_equal(CPU_COUNT(&cfg.bind.cpus), 4);
    assert_true(CPU_ISSET(5, &cfg.bind.cpus) && !CPU_ISSET(3, &cfg.bind.cpus));
    assert_int_equal(cfg.qp_timeout, 14);
    assert_int_equal(cfg.retry_count, 3);
    assert_run(PARSE(&cfg, &bw_test, "--numa=1"));
    assert_int_equal(cfg.bind.mode, GDR_BIND_NUMA);
    assert_int_equal(cfg.bind.numa, 1);
    assert_run(PARSE(&cfg, &bw_test, "--pin_cores=3", "--numa_node=0"));
    assert_int_equal(cfg.bind.mode, GDR_BIND_CPU); /* memory on 0, CPUs checked at run time */
    assert_int_equal(cfg.bind.numa, 0);
    assert_run(PARSE(&cfg, &lat_test, "--disable_numa", "--qp-timeout=0"));
    assert_int_equal(cfg.bind.mode, GDR_BIND_OFF);
    assert_int_equal(cfg.qp_timeout, 0);
    assert_run(PARSE(&cfg, &lat_test, "--no-bind"));
    assert_int_equal(cfg.bind.mode, GDR_BIND_OFF);
}

static void test_rdma_cm(void **state)
{
    (void)state;
    struct gdr_config cfg;
#ifdef HAVE_RDMACM
    assert_run(PARSE(&cfg, &bw_test, "-R"));
    assert_true(cfg.rdma_cm);
    assert_run(PARSE(&cfg, &bw_test, "--rdma_cm"));
    assert_true(cfg.rdma_cm);
    assert_run(PARSE(&cfg, &bw_test, "-R", "--tclass=32"));
    assert_int_equal(cfg.traffic_class, 32);
    assert_int_equal(PARSE(&cfg, &bw_test, "-R", "-S", "2"), GDR_PARSE_ERROR);
    assert_error(GDR_EXIT_USAGE, "--sl: with --rdma_cm");
    gdr_error_clear();
#else
    assert_int_equal(PARSE(&cfg, &bw_test, "-R"), GDR_PARSE_ERROR);
    assert_error(GDR_EXIT_ENV, "--rdma_cm");
#endif
}

/* -b for write and send bandwidth; the bounce ring sized from the window
 * unless --stage-slots says otherwise. */
static void test_bidirectional_and_ring(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE(&cfg, &bw_test, "-b"));
    assert_true(cfg.bidirectional);
    assert_run(PARSE(&cfg, &send_test, "--bidirectional"));
    assert_true(cfg.bidirectional);
    assert_int_equal(PARSE(&cfg, &lat_test, "-b"), GDR_PARSE_ERROR);
    assert_error(GDR_EXIT_USAGE, "--bidirectional applies to write and send bandwidth");
    gdr_error_clear();
    assert_int_equal(PARSE(&cfg, &bw_test, "-b", "--stage-slots", "129"), GDR_PARSE_ERROR);
    assert_error(GDR_EXIT_USAGE, "with --bidirectional at most 128");
    gdr_error_clear();
    /* With -b the server sends too: not inline from GPU memory. */
    assert_int_equal(PARSE(&cfg, &bw_test, "-b", "-I", "64", "--mem=cuda"), GDR_PARSE_ERROR);
    assert_error(GDR_EXIT_USAGE, "this end sends from GPU memory");
    gdr_error_clear();
    /* 64 KiB x 128 in flight: 8 MiB, 8 slots of 1 MiB. */
    assert_run(PARSE0(&cfg, &bw_test));
    assert_int_equal(cfg.stage_slots, 8);
    /* -q 4: four times the window. */
    assert_run(PARSE(&cfg, &bw_test, "-q", "4"));
    assert_int_equal(cfg.stage_slots, 32);
    /* 1 MiB messages would want 128 slots: capped at 64 MiB. */
    assert_run(PARSE(&cfg, &bw_test, "--sizes=4K:1M"));
    assert_int_equal(cfg.stage_slots, 64);
    assert_run(PARSE(&cfg, &bw_test, "--sizes=4K:1M", "--stage-slot=4M"));
    assert_int_equal(cfg.stage_slots, 16);
    /* Latency: one message, so only its units count. */
    assert_run(PARSE(&cfg, &lat_test, "-s", "4M"));
    assert_int_equal(cfg.stage_slots, 8);
    assert_run(PARSE(&cfg, &bw_test, "--stage-slots", "3"));
    assert_int_equal(cfg.stage_slots, 3);
    /* A window of 256 x 64 KiB slots, sized alone: 256; with -b each
     * direction gets half the slot arrays. */
    assert_run(PARSE(&cfg, &bw_test, "--stage-slot=64K", "-t", "128", "-q", "2"));
    assert_int_equal(cfg.stage_slots, 256);
    assert_run(PARSE(&cfg, &bw_test, "-b", "--stage-slot=64K", "-t", "128", "-q", "2"));
    assert_int_equal(cfg.stage_slots, 128);
}

/* The family's own options: -o for reads, --write_with_imm for write
 * latency, -q 1 and -t 1 on latency (what a latency test is anyway). */
static void test_family_options(void **state)
{
    (void)state;
    struct gdr_config cfg;
    assert_run(PARSE0(&cfg, &read_bw_test));
    assert_int_equal(cfg.outs, 0);
    assert_int_equal(cfg.tx_depth, 128);
    assert_run(PARSE(&cfg, &read_bw_test, "-o", "4"));
    assert_int_equal(cfg.outs, 4);
    assert_run(PARSE(&cfg, &lat_test, "--outs=255"));
    assert_int_equal(cfg.outs, 255);
    assert_run(PARSE(&cfg, &write_lat_test, "--write_with_imm", "-q", "1", "-t", "1"));
    assert_true(cfg.write_with_imm);
    assert_int_equal(cfg.num_qps, 1);
    assert_run(PARSE0(&cfg, &write_lat_test));
    assert_false(cfg.write_with_imm);
    assert_int_equal(cfg.iters, 1000);
    assert_int_equal(cfg.sizes.size[0], 2);
    /* A ping-pong times one message at a time: one iteration is enough. */
    assert_run(PARSE(&cfg, &send_lat_test, "-n", "1"));
    /* Inline from a host buffer at either end; staged ends send from
     * their host ring. */
    assert_run(PARSE(&cfg, &write_lat_test, "-I", "64"));
    assert_run(PARSE(&cfg, &send_lat_test, "-I", "64", "--mem=cuda", "--gdr=off"));
    /* Its ring holds both directions: half the slot arrays each. */
    assert_run(PARSE(&cfg, &write_lat_test, "--stage-slots=128"));
    assert_int_equal(cfg.stage_slots, 128);
}

struct bad_case {
    const struct gdr_test *test;
    const char *args[6];
    const char *fragment; /* the message must contain this */
};

#define BW &bw_test
#define LAT &lat_test
#define SEND &send_test
#define WLAT &write_lat_test
#define SLAT &send_lat_test
#define RBW &read_bw_test

static const struct bad_case bad_cases[] = {
    /* sizes */
    {BW, {"-s", "0"}, "--size '0'"},
    {BW, {"-s", "-1"}, "--size '-1'"},
    {BW, {"-s", "99999999999999999999"}, "--size '99999999999999999999'"},
    {BW, {"-s", "abc"}, "--size 'abc'"},
    {BW, {"-s", "2G"}, "--size '2G'"},
    {BW, {"-s", "1025M"}, "--size '1025M'"},
    {BW, {"-s", ""}, "--size ''"},
    /* counts */
    {BW, {"-n", "0"}, "--iters '0'"},
    {BW, {"-n", "1e3"}, "--iters '1e3'"},
    {BW, {"-n", "100000001"}, "--iters '100000001'"},
    {BW, {"-q", "0"}, "--qp '0'"},
    {BW, {"-q", "65"}, "--qp '65'"},
    {BW, {"-t", "0"}, "--tx-depth '0'"},
    {BW, {"-t", "8193"}, "--tx-depth '8193'"},
    {BW, {"-p", "0"}, "--port '0'"},
    {BW, {"-p", "65536"}, "--port '65536'"},
    {BW, {"-p", "http"}, "--port 'http'"},
    {BW, {"-x", "-1"}, "--gid-index '-1'"},
    {BW, {"-x", "65536"}, "--gid-index '65536'"},
    {BW, {"-i", "0"}, "--ib-port '0'"},
    {BW, {"-i", "256"}, "--ib-port '256'"},
    {BW, {"-m", "300"}, "--mtu '300'"},
    {BW, {"-m", "128"}, "--mtu '128'"},
    {BW, {"-m", "8192"}, "--mtu '8192'"},
    {BW, {"-I", "5000"}, "--inline_size '5000'"},
    {BW, {"-I", "4097"}, "--inline_size '4097'"},
    {BW, {"-d", ""}, "--ib-dev"},
    {BW, {"--sizes=8:2"}, "--sizes '8:2'"},
    {BW, {"--sizes=1:2:1"}, "--sizes '1:2:1'"},
    {BW, {"--sizes=0:8"}, "--sizes '0:8'"},
    {BW, {"--sizes=1:2G"}, "--sizes '1:2G'"},
    {BW, {"--sizes=a:b"}, "--sizes 'a:b'"},
    {BW, {"--sizes=64"}, "--sizes '64'"},
    {BW, {"--sizes=1:8:2:2"}, "--sizes '1:8:2:2'"},
    {BW, {"--timeout=0"}, "--timeout '0'"},
    {BW, {"--timeout=-5"}, "--timeout '-5'"},
    {BW, {"--timeout=nan"}, "--timeout 'nan'"},
    {BW, {"--warmup=-1"}, "--warmup '-1'"},
    {BW, {"-D", "0"}, "--duration '0'"},
    {BW, {"-D", "86401"}, "--duration '86401'"},
    {BW, {"--time-per-size=x"}, "--time-per-size 'x'"},
    {BW, {"--json="}, "--json"},
    {BW, {"--bind="}, "--bind"},
    {BW, {"--tclass=256"}, "--tclass '256'"},
    {BW, {"--tclass=-1"}, "--tclass '-1'"},
    {BW, {"-S", "16"}, "--sl '16'"},
    {BW, {"--cpu="}, "--cpu ''"},
    {BW, {"--cpu=1-"}, "--cpu '1-'"},
    {BW, {"--cpu=3-1"}, "--cpu '3-1'"},
    {BW, {"--cpu=a"}, "--cpu 'a'"},
    {BW, {"--cpu=0,,1"}, "--cpu '0,,1'"},
    {BW, {"--cpu=99999"}, "--cpu '99999'"},
    {BW, {"--numa=-1"}, "--numa '-1'"},
    {BW, {"--numa=64"}, "--numa '64'"},
    {BW, {"--numa_node=x"}, "--numa 'x'"},
    {BW, {"--no-bind", "--cpu=0"}, "--no-bind contradicts --cpu"},
    {BW, {"--numa=0", "--disable_numa"}, "--no-bind contradicts --numa"},
    {BW, {"--qp-timeout=32"}, "--qp-timeout '32'"},
    {BW, {"--retry-count=8"}, "--retry-count '8'"},
    {BW, {"--sl=x"}, "--sl 'x'"},
    /* GPU memory options: values, and only where they apply */
    {BW, {"--mem=cuda", "--gpu-alloc=cumem"}, "--gpu-alloc 'cumem': expected malloc or vmm"},
    {BW, {"--mem=cuda", "--dmabuf-mapping=bar1"}, "--dmabuf-mapping 'bar1'"},
    {BW, {"--mem=cuda", "--data-direct=yes"}, "--data-direct 'yes': expected auto, on or off"},
    {BW, {"--gpu-alloc=vmm"}, "--gpu-alloc applies to GPU buffers; add --mem=cuda"},
    {BW, {"--mem=host", "--dmabuf-mapping=pcie"}, "--dmabuf-mapping applies to GPU buffers"},
    {BW, {"--data-direct=on"}, "--data-direct applies to GPU buffers"},
    {BW, {"--mem=cuda", "--gdr=off", "--dmabuf-mapping=pcie"}, "--gdr=off makes none"},
    {BW, {"--mem=cuda", "--gdr=peermem", "--dmabuf-mapping=default"}, "--gdr=peermem makes none"},
    {BW, {"--mem=cuda", "--gdr=off", "--data-direct=on"}, "--data-direct=on registers dma-bufs"},
    /* inline from GPU memory: the provider would read it with the CPU */
    {BW, {"-I", "64", "--mem=cuda", "srv"}, "--inline_size 64: this end sends from GPU memory"},
    {SEND, {"-I", "16", "--use_cuda=0", "--gdr=dmabuf", "srv"}, "--inline_size 16"},
    /* contradictory flags */
    {BW, {"-s", "8", "-a"}, "choose one of --size, --all and --sizes"},
    {BW, {"-a", "--sizes=2:8"}, "choose one of --size, --all and --sizes"},
    {BW, {"-n", "10", "-D", "1"}, "choose one of --iters, --duration and --time-per-size"},
    {BW, {"-D", "1", "--time-per-size=1"}, "choose one of --iters, --duration"},
    {LAT, {"-t", "4"}, "--tx-depth"},
    {LAT, {"-q", "2"}, "--qp"},
    {LAT, {"-I", "64"}, "--inline_size"}, /* lat_test is the read test */
    {BW, {"--bind=127.0.0.1", "server1"}, "--bind"},
    /* the family: options that do not apply are refused, naming them */
    {WLAT, {"-b"}, "--bidirectional applies to write and send bandwidth, not to gdr_write_lat"},
    {SLAT, {"-b"}, "--bidirectional applies to write and send bandwidth"},
    {RBW, {"-b"}, "--bidirectional applies to write and send bandwidth, not to gdr_read_bw"},
    {WLAT, {"-e"}, "--events applies to bandwidth tests, not to gdr_write_lat"},
    {SLAT, {"--events"}, "--events applies to bandwidth tests, not to gdr_send_lat"},
    {LAT, {"-e"}, "--events applies to bandwidth tests, not to gdr_read_lat"},
    {WLAT, {"-q", "2"}, "--qp apply to bandwidth tests; gdr_write_lat keeps one message"},
    {SLAT, {"-t", "2"}, "--tx-depth"},
    {RBW, {"-o", "0"}, "--outs '0'"},
    {RBW, {"-o", "256"}, "--outs '256'"},
    {RBW, {"--outs=x"}, "--outs 'x'"},
    {WLAT, {"-o", "4"}, "--outs applies to RDMA read tests, not to gdr_write_lat"},
    {BW, {"--write_with_imm"}, "--write_with_imm applies to write latency, not to gdr_write_bw"},
    {SLAT, {"--write_with_imm"}, "--write_with_imm applies to write latency"},
    {RBW, {"-I", "64"}, "--inline_size: RDMA reads cannot be posted inline"},
    /* a ping-pong's server sends too: not inline from GPU memory */
    {WLAT, {"-I", "64", "--mem=cuda"}, "--inline_size 64: this end sends from GPU memory"},
    {SLAT, {"--stage-slots=129"}, "with gdr_send_lat at most 128"},
    /* malformed command lines */
    {BW, {"--bogus"}, "unknown option '--bogus'"},
    {BW, {"-z"}, "unknown option '-z'"},
    {BW, {"-zF"}, "unknown option '-z'"},
    {BW, {"-Fz"}, "unknown option '-z'"},
    {BW, {"--quiet", "-zq", "2"}, "unknown option '-z'"},
    {BW, {"-s", "8", "-z"}, "unknown option '-z'"},
    {BW, {"-s"}, "missing value for '-s'"},
    {BW, {"-n", "5", "--sizes"}, "missing value for '--sizes'"},
    {BW, {"--validate=yes"}, "--validate"},
    {BW, {"host1", "host2"}, "unexpected argument 'host2'"},
    {BW, {""}, "empty server name"},
};

static void test_bad_values_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *bc = &bad_cases[i];
        struct gdr_config cfg;
        gdr_error_clear();
        enum gdr_parse_result r = parse_argv(&cfg, bc->test, bc->args);
        const char *msg = gdr_error_message();
        if (r != GDR_PARSE_ERROR)
            fail_msg("case %zu (%s %s): parse returned %d, expected an error", i, bc->test->binary,
                     bc->args[0], (int)r);
        if (gdr_error_code() != GDR_EXIT_USAGE)
            fail_msg("case %zu (%s %s): exit code %d, expected %d; message '%s'", i,
                     bc->test->binary, bc->args[0], (int)gdr_error_code(), GDR_EXIT_USAGE, msg);
        if (!strstr(msg, bc->fragment))
            fail_msg("case %zu (%s %s): message '%s' does not contain '%s'", i, bc->test->binary,
                     bc->args[0], msg, bc->fragment);
    }
    gdr_error_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_defaults_bandwidth),
        gdr_unit_test(test_defaults_latency),
        gdr_unit_test(test_perftest_flags),
        gdr_unit_test(test_all_flag),
        gdr_unit_test(test_duration_flags),
        gdr_unit_test(test_soak),
        gdr_unit_test(test_long_options),
        gdr_unit_test(test_boundaries_accepted),
        gdr_unit_test(test_server_before_options),
        gdr_unit_test(test_parse_twice),
        gdr_unit_test(test_help_and_version),
        gdr_unit_test(test_hardware_options),
        gdr_unit_test(test_gpu_memory_options),
        gdr_unit_test(test_placement_and_qp_options),
        gdr_unit_test(test_rdma_cm),
        gdr_unit_test(test_bidirectional_and_ring),
        gdr_unit_test(test_family_options),
        gdr_unit_test(test_bad_values_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
