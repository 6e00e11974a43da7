/* placement.c - CPU and memory placement of an end (see placement.h). */
#include "config.h"

#include "placement.h"
#include "irq.h"
#include "error.h"
#include "parse.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3))) static void add_note(struct gdr_place_plan *p,
                                                           const char *fmt, ...)
{
    size_t used = strlen(p->note);
    if (used && used + 2 < sizeof(p->note)) {
        memcpy(p->note + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->note + used, sizeof(p->note) - used, fmt, ap);
    va_end(ap);
}

static const char *cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
    gdr_format_cpulist(set, buf, len);
    return buf;
}

/* The first CPU of a that b lacks; -1 when a is within b. */
static int first_outside(const cpu_set_t *a, const cpu_set_t *b)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, a) && !CPU_ISSET(c, b))
            return c;
    return -1;
}

static int node_of_cpu(const struct gdr_place_facts *f, int cpu)
{
    for (int n = 0; n < GDR_MAX_NODES; n++)
        if (f->node_online[n] && CPU_ISSET(cpu, &f->node_cpus[n]))
            return n;
    return -1;
}

/* Without NUMA support the one node there is, 0, has every CPU. */
static bool node_exists(const struct gdr_place_facts *f, int n)
{
    if (f->nnodes == 0)
        return n == 0;
    return n >= 0 && n < GDR_MAX_NODES && f->node_online[n];
}

static const char *nodes_text(const struct gdr_place_facts *f, char *buf, size_t len)
{
    cpu_set_t nodes; /* a set of node numbers, printed like CPUs */
    CPU_ZERO(&nodes);
    for (int n = 0; n < GDR_MAX_NODES; n++)
        if (node_exists(f, n))
            CPU_SET(n, &nodes);
    return cpus_text(&nodes, buf, len);
}

/* Run on `target` (what was asked: a node's or the NIC's CPUs) as far as
 * the cpuset allows. */
static void bind_within(struct gdr_place_plan *p, const cpu_set_t *target,
                        const struct gdr_place_facts *f, const char *whose)
{
    char want[128], allowed[128];
    cpu_set_t in;
    CPU_AND(&in, target, &f->allowed);
    cpus_text(target, want, sizeof(want));
    cpus_text(&f->allowed, allowed, sizeof(allowed));
    if (CPU_COUNT(&in) == 0) {
        p->binding = "refused";
        p->cpus = f->allowed;
        add_note(p, "the CPUs of %s (%s) are outside this process's cpuset (%s): running there",
                 whose, want, allowed);
        return;
    }
    p->cpus = in;
    if (CPU_EQUAL(&in, target)) {
        p->binding = "applied";
        return;
    }
    char got[128];
    p->binding = "partial";
    add_note(p, "the cpuset (%s) leaves %s of the CPUs of %s (%s)", allowed,
             cpus_text(&in, got, sizeof(got)), whose, want);
}

static int plan_cpu(const struct gdr_bind_request *rq, const struct gdr_place_facts *f,
                    struct gdr_place_plan *p)
{
    char list[128], other[128];
    cpus_text(&rq->cpus, list, sizeof(list));
    int c = first_outside(&rq->cpus, &f->allowed);
    if (c >= 0)
        return gdr_fail(GDR_EXIT_USAGE, "--cpu %s: CPU %d is not one this process may use (%s)",
                        list, c, cpus_text(&f->allowed, other, sizeof(other)));
    int node = -2; /* the one node of every CPU in the list; -1 several */
    for (c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &rq->cpus))
            continue;
        int n = f->nnodes ? node_of_cpu(f, c) : 0;
        if (rq->numa >= 0 && n != rq->numa)
            return gdr_fail(GDR_EXIT_USAGE, "--cpu %s and --numa %d disagree: CPU %d is on node %d",
                            list, rq->numa, c, n);
        node = node == -2 || node == n ? n : -1;
    }
    p->cpus = rq->cpus;
    p->binding = "applied";
    p->mem_node = rq->numa >= 0 ? rq->numa : node < 0 ? -1 : node;
    return 0;
}

int gdr_place_plan(const struct gdr_bind_request *rq, const struct gdr_place_facts *f,
                   struct gdr_place_plan *p)
{
    char buf[128];
    memset(p, 0, sizeof(*p));
    p->cpus = f->allowed;
    p->mem_node = -1;
    if (rq->numa >= 0 && rq->mode != GDR_BIND_OFF && !node_exists(f, rq->numa))
        return gdr_fail(GDR_EXIT_USAGE, "--numa %d: no such NUMA node (this host has %s%s)",
                        rq->numa, f->nnodes ? "node " : "no NUMA support: node ",
                        nodes_text(f, buf, sizeof(buf)));
    switch (rq->mode) {
    case GDR_BIND_OFF:
        p->requested = "none";
        p->binding = "off";
        break;
    case GDR_BIND_CPU:
        p->requested = "cpu";
        if (plan_cpu(rq, f, p))
            return -1;
        break;
    case GDR_BIND_NUMA:
        p->requested = "numa";
        snprintf(buf, sizeof(buf), "node %d", rq->numa);
        bind_within(p, f->nnodes ? &f->node_cpus[rq->numa] : &f->allowed, f, buf);
        p->mem_node = rq->numa;
        break;
    case GDR_BIND_NIC:
        p->requested = "nic";
        if (f->have_nic_cpus && CPU_COUNT(&f->nic_cpus) > 0) {
            bind_within(p, &f->nic_cpus, f, f->dev);
        } else if (f->nic_node >= 0 && node_exists(f, f->nic_node) && f->nnodes) {
            bind_within(p, &f->node_cpus[f->nic_node], f, f->dev);
        } else {
            p->binding = "no-locality";
            add_note(p, "%s: no NUMA node or local CPUs known: running on every allowed CPU",
                     f->dev);
        }
        p->mem_node = f->nic_node;
        break;
    }
    /* One node (or no NUMA at all): bind CPUs only. */
    if (f->nnodes <= 1) {
        p->mem_node = -1;
        p->numa = "none";
    } else {
        p->numa = p->mem_node >= 0 ? "preferred" : "default";
    }
    return 0;
}

int gdr_place_read_facts(const char *sysfs_root, const char *dev, struct gdr_place_facts *f)
{
    char text[1024];
    memset(f, 0, sizeof(*f));
    f->dev = dev;
    f->nic_node = -1;
    if (sched_getaffinity(0, sizeof(f->allowed), &f->allowed))
        return gdr_fail(GDR_EXIT_ENV, "sched_getaffinity: %s", strerror(errno));
    cpu_set_t nodes;
    if (gdr_topo_numa_online(sysfs_root, text, sizeof(text)) == 0 &&
        gdr_parse_cpulist(text, &nodes) == 0) {
        for (int n = 0; n < GDR_MAX_NODES; n++) {
            if (!CPU_ISSET(n, &nodes))
                continue;
            f->node_online[n] = true;
            f->nnodes++;
            if (gdr_topo_node_cpus(sysfs_root, n, text, sizeof(text)) ||
                gdr_parse_cpulist(text, &f->node_cpus[n]))
                CPU_ZERO(&f->node_cpus[n]);
        }
    }
    if (gdr_topo_ibdev_locality(sysfs_root, dev, text, sizeof(text), &f->nic_node) == 0 &&
        gdr_parse_cpulist(text, &f->nic_cpus) == 0)
        f->have_nic_cpus = true;
    if (f->nic_node >= GDR_MAX_NODES)
        f->nic_node = -1;
    /* Where the NIC's completion interrupts land (none for a software
     * device): the loop's CPU is chosen elsewhere where it can be. */
    struct gdr_ibdev_info info;
    char err[128];
    if (gdr_topo_ibdev_info(sysfs_root, dev, &info, err, sizeof(err)) == 0 && !info.software) {
        int n = gdr_topo_irq_cpulist(NULL, info.pci_bdf, text, sizeof(text));
        if (n > 0 && gdr_parse_cpulist(text, &f->irq_cpus) == 0)
            f->nic_irqs = n;
    }
    return 0;
}

/* Try to claim CPU c in dir: 1 claimed (*fd), 0 taken by another end,
 * -1 when dir cannot hold claims at all. */
static int try_claim(const char *dir, int c, int *fd)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/gdrbench-cpu%d.lock", dir, c);
    /* A shared sticky directory: never follow a link planted there, and
     * make readable (flock needs no more) only a plain file of our own
     * that no other name reaches, so nothing else gets chmod'ed. */
    int f = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f < 0 && (errno == ELOOP || errno == EACCES))
        return 0; /* not a claim file we can hold: as if taken */
    if (f < 0)
        return -1;
    struct stat st;
    if (fstat(f, &st) || !S_ISREG(st.st_mode)) {
        close(f);
        return 0;
    }
    if (st.st_uid == geteuid() && st.st_nlink == 1 && (st.st_mode & 0444) != 0444)
        fchmod(f, 0644); /* other users' ends claim the same files */
    if (flock(f, LOCK_EX | LOCK_NB) == 0) {
        *fd = f;
        return 1;
    }
    close(f);
    return 0;
}

int gdr_place_claim_cpu(const char *dir, const cpu_set_t *set, const cpu_set_t *last, int *fd,
                        bool *shared, int *taken)
{
    int first = -1;
    *fd = -1;
    *shared = false;
    *taken = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = CPU_SETSIZE - 1; c >= 0; c--) {
            bool in_last = last && CPU_ISSET(c, last);
            if (!CPU_ISSET(c, set) || in_last != (pass == 1))
                continue;
            if (first < 0)
                first = c;
            int got = try_claim(dir, c, fd);
            if (got < 0)
                return first; /* no claims here at all: *fd stays -1 */
            if (got)
                return c;
            ++*taken;
        }
    }
    *shared = first >= 0;
    return first;
}

bool gdr_place_loop_room(int set_cpus, int claimed, char *why, size_t len)
{
    int spare = set_cpus - claimed,
        need = claimed > GDR_LOOP_SPARE_MIN ? claimed : GDR_LOOP_SPARE_MIN;
    bool room = spare >= need;
    snprintf(why, len,
             "%s: %d CPU%s, %d claimed loop%s, %d left for the provider's kernel work, the copies "
             "and other ends (needs %d)",
             room ? "a CPU of its own" : "not pinned, no room", set_cpus, set_cpus == 1 ? "" : "s",
             claimed, claimed == 1 ? "" : "s", spare < 0 ? 0 : spare, need);
    return room;
}

/* Append to the loop's why which CPU it got and why that one. */
static void say_which_cpu(struct gdr_placement *pl, const struct gdr_place_facts *f,
                          const cpu_set_t *last)
{
    size_t used = strlen(pl->loop_cpu_why);
    char *at = pl->loop_cpu_why + used;
    size_t left = sizeof(pl->loop_cpu_why) - used;
    if (!CPU_ISSET(pl->loop_cpu, last))
        snprintf(at, left, "; CPU %d: the highest free %s", pl->loop_cpu,
                 f->nic_irqs ? "without the NIC's completion interrupts, not CPU 0" : "but CPU 0");
    else
        snprintf(at, left, "; CPU %d: every free CPU %s", pl->loop_cpu,
                 f->nic_irqs ? "takes the NIC's completion interrupts or is CPU 0" : "is CPU 0");
}

static long set_preferred(int node)
{
    unsigned long mask[GDR_MAX_NODES / (8 * sizeof(unsigned long))] = {0};
    mask[node / (8 * sizeof(unsigned long))] = 1ul << (node % (8 * sizeof(unsigned long)));
    return syscall(SYS_set_mempolicy, MPOL_PREFERRED, mask, GDR_MAX_NODES + 1);
}

static void fill_affinity(const struct gdr_placement *pl, const struct gdr_place_facts *f,
                          struct gdr_affinity *a)
{
    const struct gdr_place_plan *p = &pl->plan;
    memset(a, 0, sizeof(*a));
    snprintf(a->requested, sizeof(a->requested), "%s", p->requested);
    snprintf(a->binding, sizeof(a->binding), "%s", p->binding);
    snprintf(a->numa, sizeof(a->numa), "%s", p->numa);
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof(now), &now))
        now = p->cpus;
    gdr_format_cpulist(&now, a->cpus_allowed, sizeof(a->cpus_allowed));
    if (f->have_nic_cpus)
        gdr_format_cpulist(&f->nic_cpus, a->nic_cpus, sizeof(a->nic_cpus));
    a->nic_numa_node = f->nic_node;
    a->mem_node = p->mem_node;
    a->loop_cpu = pl->loop_cpu;
    snprintf(a->loop_cpu_why, sizeof(a->loop_cpu_why), "%s", pl->loop_cpu_why);
    a->buffer_numa_node = a->ring_numa_node = -1;
    snprintf(a->note, sizeof(a->note), "%s", p->note);
}

int gdr_place_apply(struct gdr_placement *pl, const struct gdr_bind_request *rq, const char *dev,
                    struct gdr_affinity *a, const char *prog, bool quiet)
{
    struct gdr_place_facts f;
    pl->loop_cpu = -1;
    pl->claim_fd = -1;
    snprintf(pl->loop_cpu_why, sizeof(pl->loop_cpu_why), "--no-bind: not pinned");
    if (gdr_place_read_facts(NULL, dev, &f) || gdr_place_plan(rq, &f, &pl->plan))
        return -1;
    struct gdr_place_plan *p = &pl->plan;
    pl->nic_node = f.nic_node;
    /* stderr hears of what the machine refused (a cpuset, a system call);
     * an unknown locality or a shared loop CPU is in the JSON's note only:
     * a line on every run of a soft NIC would bury the errors. */
    bool warn = !strcmp(p->binding, "refused") || !strcmp(p->binding, "partial");
    if (rq->mode != GDR_BIND_OFF) {
        if (sched_setaffinity(0, sizeof(p->cpus), &p->cpus)) {
            add_note(p, "sched_setaffinity: %s", strerror(errno));
            p->binding = "refused";
            warn = true;
        }
        if (p->mem_node >= 0 && set_preferred(p->mem_node)) {
            add_note(p, "set_mempolicy(node %d): %s", p->mem_node, strerror(errno));
            p->mem_node = -1;
            p->numa = "default";
            warn = true;
        }
        const char *dir = getenv("GDR_CPU_CLAIM_DIR");
        bool shared;
        int taken;
        cpu_set_t now;
        if (sched_getaffinity(0, sizeof(now), &now))
            now = p->cpus;
        dir = dir && *dir ? dir : "/dev/shm";
        cpu_set_t last = f.irq_cpus; /* tried last: interrupts and CPU 0 */
        CPU_SET(0, &last);
        pl->loop_cpu = gdr_place_claim_cpu(dir, &now, &last, &pl->claim_fd, &shared, &taken);
        bool room = gdr_place_loop_room(CPU_COUNT(&now), taken + 1, pl->loop_cpu_why,
                                        sizeof(pl->loop_cpu_why));
        if (rq->mode == GDR_BIND_CPU) /* --cpu named the CPUs: pinned, room or not */
            snprintf(pl->loop_cpu_why, sizeof(pl->loop_cpu_why), "--cpu: pinned as asked");
        else if (room && !shared)
            say_which_cpu(pl, &f, &last);
        if (rq->mode != GDR_BIND_CPU && !room) {
            gdr_place_release(pl); /* an unpinned loop holds no CPU */
            pl->loop_cpu = -1;
        } else if (shared) {
            add_note(p,
                     "other gdrbench ends have claimed every CPU of this one: its loop "
                     "shares CPU %d",
                     pl->loop_cpu);
        } else if (pl->claim_fd < 0) {
            add_note(p,
                     "cannot claim a CPU in %s (GDR_CPU_CLAIM_DIR): concurrent ends may share "
                     "CPU %d",
                     dir, pl->loop_cpu);
        }
    }
    if (warn && !quiet)
        fprintf(stderr, "%s: notice: %s\n", prog, p->note);
    fill_affinity(pl, &f, a);
    return 0;
}

int gdr_place_pin_loop(const struct gdr_placement *pl)
{
    if (pl->loop_cpu < 0)
        return 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(pl->loop_cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one))
        return gdr_fail(GDR_EXIT_ENV, "cannot pin the timed loops to CPU %d: %s", pl->loop_cpu,
                        strerror(errno));
    return 0;
}

void gdr_place_release(struct gdr_placement *pl)
{
    if (pl->claim_fd >= 0)
        close(pl->claim_fd);
    pl->claim_fd = -1;
}

int gdr_place_node_of(const void *addr, size_t len)
{
    enum { SAMPLES = 16 };
    long page = sysconf(_SC_PAGESIZE);
    if (!addr || !len || page <= 0)
        return -1;
    uintptr_t first = (uintptr_t)addr & ~(uintptr_t)(page - 1);
    uintptr_t last = ((uintptr_t)addr + len - 1) & ~(uintptr_t)(page - 1);
    size_t npages = (last - first) / (size_t)page + 1, n = npages < SAMPLES ? npages : SAMPLES;
    void *pages[SAMPLES];
    int status[SAMPLES];
    for (size_t i = 0; i < n; i++)
        pages[i] = (void *)(first + (n > 1 ? (npages - 1) * i / (n - 1) : 0) * (size_t)page);
    if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) != 0)
        return -1;
    int votes[GDR_MAX_NODES] = {0}, best = -1;
    for (size_t i = 0; i < n; i++) {
        int s = status[i];
        if (s < 0 || s >= GDR_MAX_NODES) /* -ENOENT: not faulted in */
            continue;
        if (++votes[s] > (best < 0 ? 0 : votes[best]))
            best = s;
    }
    return best;
}
