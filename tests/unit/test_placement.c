/* test_placement.c - where an end runs (common/placement.c): the plan on
 * machines described here (two nodes, a cpuset, one node, no NUMA, a NIC
 * of unknown locality), every bad --cpu/--numa, the per-CPU claims that
 * keep concurrent ends apart, the read-back of a buffer's node, and the
 * NIC's locality from sysfs trees built here (a PCI NIC; rxe on a virtio
 * NIC, found through its netdev and a VLAN on it). */
#include "config.h"

#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "placement.h"
#include "irq.h"
#include "topo.h"

static cpu_set_t cpus(const char *list)
{
    cpu_set_t s;
    assert_int_equal(gdr_parse_cpulist(list, &s), 0);
    return s;
}

static void assert_cpus(const cpu_set_t *s, const char *want)
{
    char got[128];
    gdr_format_cpulist(s, got, sizeof(got));
    if (strcmp(got, want))
        fail_msg("CPUs %s, expected %s", got, want);
}

/* Two sockets: node 0 = CPUs 0-3, node 1 = 4-7; the NIC on node 1. */
static struct gdr_place_facts two_nodes(const char *allowed)
{
    struct gdr_place_facts f;
    memset(&f, 0, sizeof(f));
    f.dev = "mlx5_0";
    f.allowed = cpus(allowed);
    f.nnodes = 2;
    f.node_online[0] = f.node_online[1] = true;
    f.node_cpus[0] = cpus("0-3");
    f.node_cpus[1] = cpus("4-7");
    f.have_nic_cpus = true;
    f.nic_cpus = cpus("4-7");
    f.nic_node = 1;
    return f;
}

static struct gdr_bind_request req(enum gdr_bind_mode mode, const char *list, int numa)
{
    struct gdr_bind_request r = {.mode = mode, .numa = numa};
    CPU_ZERO(&r.cpus);
    if (list)
        r.cpus = cpus(list);
    return r;
}

static void plan_ok(const struct gdr_bind_request *r, const struct gdr_place_facts *f,
                    struct gdr_place_plan *p)
{
    if (gdr_place_plan(r, f, p))
        fail_msg("plan failed: %s", gdr_error_message());
}

static void test_default_binds_to_the_nic(void **state)
{
    (void)state;
    struct gdr_place_facts f = two_nodes("0-7");
    struct gdr_bind_request r = req(GDR_BIND_NIC, NULL, -1);
    struct gdr_place_plan p;
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "4-7");
    assert_int_equal(p.mem_node, 1);
    assert_string_equal(p.requested, "nic");
    assert_string_equal(p.binding, "applied");
    assert_string_equal(p.numa, "preferred");
    assert_string_equal(p.note, "");
    /* Without a local_cpulist: the node's CPUs. */
    f.have_nic_cpus = false;
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "4-7");
    /* Neither: everything allowed, and a note. */
    f.nic_node = -1;
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-7");
    assert_string_equal(p.binding, "no-locality");
    assert_string_equal(p.numa, "default");
    assert_non_null(strstr(p.note, "mlx5_0"));
}

/* A cpuset (Slurm, cgroup, taskset) wins: part of the NIC's CPUs, or none
 * of them (then a note, and the run goes on where it may). */
static void test_cpuset(void **state)
{
    (void)state;
    struct gdr_bind_request r = req(GDR_BIND_NIC, NULL, -1);
    struct gdr_place_plan p;
    struct gdr_place_facts f = two_nodes("2-5");
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "4-5");
    assert_string_equal(p.binding, "partial");
    assert_non_null(strstr(p.note, "2-5"));
    f = two_nodes("0-3");
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-3");
    assert_string_equal(p.binding, "refused");
    assert_int_equal(p.mem_node, 1); /* memory can still be near the NIC */
    assert_non_null(strstr(p.note, "outside this process's cpuset (0-3)"));
}

static void test_numa_and_cpu_options(void **state)
{
    (void)state;
    struct gdr_place_facts f = two_nodes("0-7");
    struct gdr_place_plan p;
    struct gdr_bind_request r = req(GDR_BIND_NUMA, NULL, 0);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-3");
    assert_int_equal(p.mem_node, 0);
    assert_string_equal(p.requested, "numa");
    r = req(GDR_BIND_CPU, "1-2", -1);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "1-2");
    assert_int_equal(p.mem_node, 0); /* the node of all of them */
    r = req(GDR_BIND_CPU, "3-4", -1);
    plan_ok(&r, &f, &p);
    assert_int_equal(p.mem_node, -1); /* two nodes: no preference */
    assert_string_equal(p.numa, "default");
    r = req(GDR_BIND_CPU, "5", 1);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "5");
    assert_int_equal(p.mem_node, 1);
    r = req(GDR_BIND_OFF, NULL, -1);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-7");
    assert_string_equal(p.binding, "off");
    assert_string_equal(p.requested, "none");
    assert_int_equal(p.mem_node, -1);
}

/* Bad input: one line, exit 2, naming the option. */
static void test_bad_requests(void **state)
{
    (void)state;
    struct gdr_place_facts f = two_nodes("0-5");
    struct gdr_place_plan p;
    struct gdr_bind_request r = req(GDR_BIND_CPU, "4-7", -1);
    assert_int_equal(gdr_place_plan(&r, &f, &p), -1);
    assert_error(GDR_EXIT_USAGE, "--cpu 4-7: CPU 6 is not one this process may use (0-5)");
    gdr_error_clear();
    r = req(GDR_BIND_NUMA, NULL, 2);
    assert_int_equal(gdr_place_plan(&r, &f, &p), -1);
    assert_error(GDR_EXIT_USAGE, "--numa 2: no such NUMA node (this host has node 0-1)");
    gdr_error_clear();
    r = req(GDR_BIND_CPU, "2-4", 0);
    assert_int_equal(gdr_place_plan(&r, &f, &p), -1);
    assert_error(GDR_EXIT_USAGE, "--cpu 2-4 and --numa 0 disagree: CPU 4 is on node 1");
    gdr_error_clear();
    r = req(GDR_BIND_CPU, "1", 3);
    assert_int_equal(gdr_place_plan(&r, &f, &p), -1);
    assert_error(GDR_EXIT_USAGE, "--numa 3");
    gdr_error_clear();
}

/* One node, or no NUMA in the kernel: CPUs only, numa "none". */
static void test_one_node_and_no_numa(void **state)
{
    (void)state;
    struct gdr_place_facts f = two_nodes("0-7");
    f.nnodes = 1;
    f.node_online[1] = false;
    f.node_cpus[0] = cpus("0-7");
    f.nic_node = -1; /* what a one-node host reports */
    f.nic_cpus = cpus("0-7");
    struct gdr_place_plan p;
    struct gdr_bind_request r = req(GDR_BIND_NIC, NULL, -1);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-7");
    assert_string_equal(p.binding, "applied");
    assert_string_equal(p.numa, "none");
    assert_int_equal(p.mem_node, -1);
    f.nnodes = 0; /* no NUMA support at all: node 0 is everything */
    f.node_online[0] = false;
    f.have_nic_cpus = false;
    r = req(GDR_BIND_NUMA, NULL, 0);
    plan_ok(&r, &f, &p);
    assert_cpus(&p.cpus, "0-7");
    assert_string_equal(p.numa, "none");
    r = req(GDR_BIND_NUMA, NULL, 1);
    assert_int_equal(gdr_place_plan(&r, &f, &p), -1);
    assert_error(GDR_EXIT_USAGE, "--numa 1: no such NUMA node (this host has no NUMA support");
    gdr_error_clear();
}

/* Concurrent ends each get a CPU of their own while there is one. */
static void test_claims(void **state)
{
    (void)state;
    char dir[] = "/tmp/gdr-claims.XXXXXX";
    assert_non_null(mkdtemp(dir));
    cpu_set_t set = cpus("2,5");
    int fd1, fd2, fd3, fd4, taken;
    bool shared;
    /* Highest first. */
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd1, &shared, &taken), 5);
    assert_true(fd1 >= 0 && !shared && taken == 0);
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd2, &shared, &taken), 2);
    assert_true(fd2 >= 0 && !shared && taken == 1);
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd3, &shared, &taken), 5);
    assert_true(fd3 < 0 && shared && taken == 2);
    close(fd1); /* an end exits: its CPU is free again */
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd4, &shared, &taken), 5);
    assert_true(fd4 >= 0 && !shared);
    close(fd2);
    close(fd4);
    /* A directory that cannot hold claims: the first CPU, unclaimed. */
    assert_int_equal(gdr_place_claim_cpu("/nonexistent/dir", &set, NULL, &fd1, &shared, &taken), 5);
    assert_true(fd1 < 0 && !shared);
    CPU_ZERO(&set);
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd1, &shared, &taken), -1);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* put ROOT REL TEXT: a file of a captured sysfs or procfs tree. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[512], cmd[1200];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The loop's CPU: not one the NIC's completion interrupts land on, not
 * CPU 0 (housekeeping), highest first; those only when nothing else is
 * free. */
static void test_claim_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/gdr-claims.XXXXXX";
    assert_non_null(mkdtemp(dir));
    cpu_set_t set = cpus("0-3"), last = cpus("0,2");
    int fd[5], taken;
    bool shared;
    static const int want[] = {3, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(gdr_place_claim_cpu(dir, &set, &last, &fd[i], &shared, &taken), want[i]);
        assert_true(fd[i] >= 0 && !shared && taken == i);
    }
    assert_int_equal(gdr_place_claim_cpu(dir, &set, &last, &fd[4], &shared, &taken), 3);
    assert_true(fd[4] < 0 && shared);
    for (int i = 0; i < 4; i++)
        close(fd[i]);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A ConnectX function's completion vectors in /proc (mlx5's names): their
 * delivered CPUs (effective list, else the allowed one), not the async
 * vector's, not the other function's. */
static void test_irq_cpus(void **state)
{
    (void)state;
    char root[] = "/tmp/gdr-proc.XXXXXX";
    assert_non_null(mkdtemp(root));
    put(root, "interrupts",
        "            CPU0       CPU1       CPU2       CPU3\n"
        "  24:          0          0          0          0  PCI-MSIX-0000:81:00.0   0-edge      "
        "mlx5_async0@pci:0000:81:00.0\n"
        "  25:       1234          0          0          0  PCI-MSIX-0000:81:00.0   1-edge      "
        "mlx5_comp0@pci:0000:81:00.0\n"
        "  26:          0       5678          0          0  PCI-MSIX-0000:81:00.0   2-edge      "
        "mlx5_comp1@pci:0000:81:00.0\n"
        "  27:          0          0          9          0  PCI-MSIX-0000:81:00.1   0-edge      "
        "mlx5_comp0@pci:0000:81:00.1\n"
        "  28:          0          0          0          0  PCI-MSIX-0000:81:00.0   3-edge      "
        "mlx5_comp2@pci:0000:81:00.0\n"
        " NMI:          0          0          0          0   Non-maskable interrupts\n");
    put(root, "irq/24/effective_affinity_list", "3\n"); /* the async vector */
    put(root, "irq/25/effective_affinity_list", "0\n");
    put(root, "irq/25/smp_affinity_list", "0-3\n");
    put(root, "irq/26/effective_affinity_list", "1\n");
    put(root, "irq/27/effective_affinity_list", "2\n"); /* the other function */
    put(root, "irq/28/smp_affinity_list", "5\n");       /* no effective list */
    char list[64];
    assert_int_equal(gdr_topo_irq_cpulist(root, "0000:81:00.0", list, sizeof(list)), 3);
    assert_string_equal(list, "0,1,5");
    assert_int_equal(gdr_topo_irq_cpulist(root, "0000:81:00.1", list, sizeof(list)), 1);
    assert_string_equal(list, "2");
    assert_int_equal(gdr_topo_irq_cpulist(root, "0000:82:00.0", list, sizeof(list)), 0);
    assert_string_equal(list, "");
    assert_int_equal(gdr_topo_irq_cpulist(root, "", list, sizeof(list)), 0); /* rxe: no PCI */
    char tiny[3];
    assert_int_equal(gdr_topo_irq_cpulist(root, "0000:81:00.0", tiny, sizeof(tiny)), -ENOSPC);
    assert_true(gdr_topo_irq_cpulist("/nonexistent", "0000:81:00.0", list, sizeof(list)) < 0);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

/* A loop gets a CPU of its own only with room beside it: on 2 CPUs never
 * (the lab, a loopback test on a small VM), on 4 the two ends of a
 * loopback test, on a big host many; the reason says which. */
static void test_loop_room(void **state)
{
    (void)state;
    static const struct {
        int cpus, claimed;
        bool room;
    } cases[] =
        {
            {1, 1, false},  {2, 1, false},   {2, 2, false}, {3, 1, true},
            {3, 2, false},  {4, 1, true},    {4, 2, true},  {4, 3, false},
            {64, 32, true}, {64, 33, false}, {2, 3, false}, /* every CPU claimed already: shared */
        };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char why[160];
        bool room = gdr_place_loop_room(cases[i].cpus, cases[i].claimed, why, sizeof(why));
        if (room != cases[i].room ||
            !strstr(why, cases[i].room ? "a CPU of its own" : "not pinned, no room"))
            fail_msg("case %zu: %d CPUs, %d claimed: room %d (want %d), '%s'", i, cases[i].cpus,
                     cases[i].claimed, room, cases[i].room, why);
    }
    char why[160];
    gdr_place_loop_room(2, 1, why, sizeof(why));
    assert_string_equal(why, "not pinned, no room: 2 CPUs, 1 claimed loop, 1 left for the "
                             "provider's kernel work, the copies and other ends (needs 2)");
}

/* The claim directory is shared (/dev/shm): a link planted under a claim
 * file's name is neither followed nor made world-writable. */
static void test_claim_link_not_followed(void **state)
{
    (void)state;
    char dir[] = "/tmp/gdr-claims.XXXXXX", target[128], link[128];
    assert_non_null(mkdtemp(dir));
    snprintf(target, sizeof(target), "%s/victim", dir);
    snprintf(link, sizeof(link), "%s/gdrbench-cpu5.lock", dir); /* tried first */
    int v = open(target, O_WRONLY | O_CREAT, 0600);
    assert_true(v >= 0);
    close(v);
    assert_int_equal(symlink(target, link), 0);
    cpu_set_t set = cpus("2,5");
    int fd, taken;
    bool shared;
    assert_int_equal(gdr_place_claim_cpu(dir, &set, NULL, &fd, &shared, &taken), 2);
    assert_true(fd >= 0 && !shared);
    close(fd);
    struct stat st;
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The node of a buffer is read back: touched pages have one, untouched
 * ones none. */
static void test_node_of(void **state)
{
    (void)state;
    size_t len = 64 * 4096;
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(buf != MAP_FAILED);
    assert_int_equal(gdr_place_node_of(buf, len), -1); /* nothing faulted in */
    memset(buf, 1, len);
    int node = gdr_place_node_of(buf, len);
    char online[64];
    if (gdr_topo_numa_online(NULL, online, sizeof(online)) == 0) {
        cpu_set_t nodes;
        assert_int_equal(gdr_parse_cpulist(online, &nodes), 0);
        assert_true(node >= 0 && CPU_ISSET(node, &nodes));
    } else {
        assert_int_equal(node, -1); /* no NUMA in this kernel */
    }
    assert_int_equal(gdr_place_node_of(NULL, len), -1);
    munmap(buf, len);
}

static void link_to(const char *root, const char *rel, const char *target)
{
    char path[512], cmd[1200];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'", path, target,
             path);
    assert_int_equal(system(cmd), 0);
}

/* A PCI NIC on node 1; rxe on a virtio NIC (virtio0 has no local_cpulist,
 * its PCI parent has) on node 0; rxe on a VLAN of that NIC; rxe on a veth
 * (nothing to find). */
static void test_locality_from_sysfs(void **state)
{
    (void)state;
    char root[] = "/tmp/gdr-sysfs.XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *nic = "devices/pci0000:80/0000:80:01.0/0000:81:00.0";
    put(root, "devices/pci0000:80/0000:80:01.0/0000:81:00.0/local_cpulist", "4-7\n");
    put(root, "devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", "1\n");
    char target[256];
    snprintf(target, sizeof(target), "../../../%s", nic);
    link_to(root, "class/infiniband/mlx5_0/device", target);
    put(root, "devices/pci0000:00/0000:00:03.0/local_cpulist", "0-3\n");
    put(root, "devices/pci0000:00/0000:00:03.0/numa_node", "0\n");
    put(root, "devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/mtu", "1500\n");
    link_to(root, "class/net/eth0", "../../devices/pci0000:00/0000:00:03.0/virtio0/net/eth0");
    link_to(root, "devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/device", "../../../virtio0");
    put(root, "class/infiniband/rxe0/parent", "eth0\n");
    put(root, "devices/virtual/net/eth0.7/mtu", "1500\n");
    link_to(root, "class/net/eth0.7", "../../devices/virtual/net/eth0.7");
    link_to(root, "devices/virtual/net/eth0.7/lower_eth0",
            "../../../pci0000:00/0000:00:03.0/virtio0/net/eth0");
    put(root, "class/infiniband/rxe7/parent", "eth0.7\n");
    put(root, "devices/virtual/net/veth0/mtu", "1500\n");
    link_to(root, "class/net/veth0", "../../devices/virtual/net/veth0");
    put(root, "class/infiniband/rxe1/parent", "veth0\n");

    char list[64];
    int node;
    assert_int_equal(gdr_topo_ibdev_locality(root, "mlx5_0", list, sizeof(list), &node), 0);
    assert_string_equal(list, "4-7");
    assert_int_equal(node, 1);
    assert_int_equal(gdr_topo_ibdev_locality(root, "rxe0", list, sizeof(list), &node), 0);
    assert_string_equal(list, "0-3");
    assert_int_equal(node, 0);
    assert_int_equal(gdr_topo_ibdev_locality(root, "rxe7", list, sizeof(list), &node), 0);
    assert_string_equal(list, "0-3");
    assert_true(gdr_topo_ibdev_locality(root, "rxe1", list, sizeof(list), &node) < 0);
    assert_string_equal(list, "");
    assert_int_equal(node, -1);
    assert_true(gdr_topo_ibdev_locality(root, "nosuch0", list, sizeof(list), &node) < 0);

    put(root, "devices/system/node/online", "0-1\n");
    put(root, "devices/system/node/node1/cpulist", "4-7\n");
    struct gdr_place_facts f;
    assert_int_equal(gdr_place_read_facts(root, "mlx5_0", &f), 0);
    assert_int_equal(f.nnodes, 2);
    assert_true(f.node_online[1]);
    assert_cpus(&f.node_cpus[1], "4-7");
    assert_int_equal(CPU_COUNT(&f.node_cpus[0]), 0); /* no cpulist file: no CPUs */
    assert_true(f.have_nic_cpus);
    assert_int_equal(f.nic_node, 1);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static void test_cpulist_text(void **state)
{
    (void)state;
    cpu_set_t s;
    assert_int_equal(gdr_parse_cpulist("0-3,8,10-11\n", &s), 0);
    assert_cpus(&s, "0-3,8,10-11");
    assert_int_equal(gdr_parse_cpulist("", &s), 0);
    assert_int_equal(CPU_COUNT(&s), 0);
    assert_int_equal(gdr_parse_cpulist("\n", &s), 0);
    assert_int_equal(gdr_parse_cpulist("1,", &s), -1);
    assert_int_equal(gdr_parse_cpulist("-1", &s), -1);
    assert_int_equal(gdr_parse_cpulist("1 2", &s), -1);
    assert_int_equal(gdr_parse_cpulist("0-1024", &s), -1);
    s = cpus("0,2,4,6,8,10,12,14,16,18");
    char small[8];
    gdr_format_cpulist(&s, small, sizeof(small));
    assert_string_equal(small, "0,2,4,6"); /* whole entries only */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_default_binds_to_the_nic),
        gdr_unit_test(test_cpuset),
        gdr_unit_test(test_numa_and_cpu_options),
        gdr_unit_test(test_bad_requests),
        gdr_unit_test(test_one_node_and_no_numa),
        gdr_unit_test(test_claims),
        gdr_unit_test(test_claim_order),
        gdr_unit_test(test_irq_cpus),
        gdr_unit_test(test_loop_room),
        gdr_unit_test(test_claim_link_not_followed),
        gdr_unit_test(test_node_of),
        gdr_unit_test(test_locality_from_sysfs),
        gdr_unit_test(test_cpulist_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
