/* placement.h - where an end runs and where its host memory goes.
 *
 * By default an end binds itself to the CPUs local to its RDMA device (the
 * device's local_cpulist, else its NUMA node's CPUs) and prefers that node
 * for memory, before any queue, buffer or bounce ring is allocated: the CPU
 * drives the NIC, so the NIC's node wins over a GPU's. --cpu, --numa and
 * --no-bind say otherwise. A cpuset (cgroup, Slurm, taskset) is obeyed: CPUs
 * it excludes are left out, with a notice when that leaves none of the
 * NIC's.
 *
 * Each end then claims one CPU of its set for its timed loops: an flock()ed
 * file per CPU in GDR_CPU_CLAIM_DIR (default /dev/shm), held until exit, so
 * ends that run at once on one node (several rails, a server and a client)
 * each poll on a CPU of their own. What was asked, applied and refused, and
 * the node each host buffer landed on (read back from the kernel), fill the
 * endpoint's affinity (endpoint.h). */
#ifndef GDR_PLACEMENT_H
#define GDR_PLACEMENT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "endpoint.h"

#include "bounds.h"

enum gdr_bind_mode {
    GDR_BIND_NIC,  /* the default */
    GDR_BIND_CPU,  /* --cpu=LIST (with --numa=N: memory there, the CPUs must agree) */
    GDR_BIND_NUMA, /* --numa=N: CPUs and memory of node N */
    GDR_BIND_OFF,  /* --no-bind */
};

struct gdr_bind_request {
    enum gdr_bind_mode mode;
    cpu_set_t cpus; /* GDR_BIND_CPU */
    int numa;       /* -1: not given */
};

/* The machine, as the plan sees it (gdr_place_read_facts; tests fill it). */
struct gdr_place_facts {
    const char *dev;   /* the RDMA device, for messages */
    cpu_set_t allowed; /* what this process may run on now */
    int nnodes;        /* NUMA nodes online; 0: the kernel has no NUMA */
    bool node_online[GDR_MAX_NODES];
    cpu_set_t node_cpus[GDR_MAX_NODES];
    bool have_nic_cpus;
    cpu_set_t nic_cpus;
    int nic_node;       /* -1 unknown */
    int nic_irqs;       /* the NIC's completion interrupts (0: none known, as rxe) */
    cpu_set_t irq_cpus; /* the CPUs they are delivered to */
};

struct gdr_place_plan {
    cpu_set_t cpus;                         /* where the process runs */
    int mem_node;                           /* the node the memory policy prefers; -1 none */
    const char *requested, *binding, *numa; /* as in struct gdr_affinity */
    char note[200];
};

/* Decide. Bad input (a --cpu outside `allowed`, a --numa node that is not
 * there, --cpu and --numa that disagree) fails with GDR_EXIT_USAGE and one
 * line naming the option; anything the machine refuses is a note. */
int gdr_place_plan(const struct gdr_bind_request *rq, const struct gdr_place_facts *f,
                   struct gdr_place_plan *p);

/* The facts of this machine for device dev (sysfs_root NULL: /sys). */
int gdr_place_read_facts(const char *sysfs_root, const char *dev, struct gdr_place_facts *f);

/* One end's placement from start to exit. */
struct gdr_placement {
    struct gdr_place_plan plan;
    int nic_node;
    int loop_cpu; /* -1: not pinned (--no-bind, or no room) */
    char loop_cpu_why[256];
    int claim_fd; /* the loop CPU's claim, held until release */
};

/* Read the facts, plan, apply (CPU affinity, memory policy) and claim a
 * loop CPU; fill `a` (all but the buffers' nodes). Prints a notice line
 * (prefixed by `prog`) when the machine refused part of it (a cpuset, a
 * failed system call), unless quiet; the rest is in a->note only. */
int gdr_place_apply(struct gdr_placement *pl, const struct gdr_bind_request *rq, const char *dev,
                    struct gdr_affinity *a, const char *prog, bool quiet);
/* Pin the calling thread (the timed loops') to the loop CPU; call once
 * every helper thread exists, as they inherit it. */
int gdr_place_pin_loop(const struct gdr_placement *pl);
void gdr_place_release(struct gdr_placement *pl);

/* The NUMA node holding most of [addr, addr + len), as the kernel says
 * (pages sampled across it; they must be faulted in); -1 unknown. */
int gdr_place_node_of(const void *addr, size_t len);

/* The first CPU of `set`, in order of preference, that no other process
 * has claimed in dir, claimed now (*fd holds it; -1 when dir is unusable);
 * -1 for an empty set. The order: the CPUs not in `last` (NULL: none),
 * highest first, then those in `last`, highest first (the NIC's completion
 * interrupts and CPU 0's housekeeping go there). When all are taken, the
 * first in that order and *shared = true. *taken: the CPUs tried before it
 * that other ends hold. */
int gdr_place_claim_cpu(const char *dir, const cpu_set_t *set, const cpu_set_t *last, int *fd,
                        bool *shared, int *taken);

/* Is there room for a timed loop on a CPU of its own? The loop spins; what
 * it waits on (the provider's kernel work, the copy engine's completion
 * thread of a staged end, another end on the same host) needs CPUs it
 * cannot take from a pinned spinner. Room: once this loop's CPU is
 * claimed (claimed: the set's claimed loops, this one included), at least
 * as many of the set's CPUs stay unclaimed as are claimed, and at least
 * GDR_LOOP_SPARE_MIN. On a 2-CPU host (the lab, a small VM, a loopback
 * test) no loop is pinned: pinned spinners starve that work and cost the
 * staged path 3-4x at small sizes (docs/benchmarking.md). *why says which,
 * for the JSON. */
bool gdr_place_loop_room(int set_cpus, int claimed, char *why, size_t len);

#endif
