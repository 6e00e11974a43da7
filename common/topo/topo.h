/* topo.h - PCIe placement of an RDMA device and a GPU, read from sysfs/procfs.
 *
 * Owns: the NIC<->GPU path class (nvidia-smi vocabulary), the GPU inventory,
 * software-RDMA detection (rxe/siw), the registration capabilities the kernel
 * and NVIDIA driver offer (peermem, dma-buf), and the NCCL_NET_GDR_LEVEL rule
 * that decides whether NCCL would use GPUDirect RDMA for a pair.
 *
 * Depends on libc only. Every function takes the sysfs/procfs roots so that
 * callers (and tests) can point it at a captured tree; NULL means "/sys" and
 * "/proc". Functions return 0 on success or a negative errno value; when they
 * take err/errlen they write a message naming the thing that failed. */
#ifndef GDR_TOPO_H
#define GDR_TOPO_H

#include <stdbool.h>
#include <stddef.h>

/* Ordered from nearest to farthest so that classes compare with < and >.
 * NODE and PHB share NCCL's "PHB" level (NCCL's PHB means "same NUMA node").
 * P2C is NCCL's (2.27+): the GPU reaches the CPU over a chip-to-chip link
 * (NVLink-C2C on Grace) and the NIC hangs off that CPU's PCIe; the PCIe
 * walk alone would call it PHB or NODE (gdr_topo_pair_class). */
enum gdr_path_class {
    GDR_PATH_UNKNOWN = 0, /* could not be determined */
    GDR_PATH_LOC,         /* same device (NCCL level LOC: GDR never used) */
    GDR_PATH_PIX,         /* at most one PCIe switch between them */
    GDR_PATH_PXB,         /* several bridges, no host bridge crossed */
    GDR_PATH_P2C,         /* GPU -C2C- CPU -PCIe- NIC (Grace) */
    GDR_PATH_PHB,         /* through one PCIe host bridge (CPU root complex) */
    GDR_PATH_NODE,        /* different host bridges, same NUMA node */
    GDR_PATH_SYS,         /* across NUMA nodes (QPI/UPI/Infinity Fabric) */
    GDR_PATH_NONE,        /* software RDMA device (rxe, siw): no PCIe path */
};

/* "PIX", "PXB", ... "NONE", "UNKNOWN". Never NULL. */
const char *gdr_path_class_name(enum gdr_path_class c);

#define GDR_BDF_LEN 16 /* "dddd:bb:dd.f" plus NUL, rounded up */

/* What sysfs says about one RDMA device. */
struct gdr_ibdev_info {
    bool software;             /* rxe/siw or no PCI device behind it */
    char driver[64];           /* kernel driver of the parent device, "" if none */
    char pci_bdf[GDR_BDF_LEN]; /* "" for software devices */
    char parent_netdev[64];    /* rxe's "parent" attribute, "" if absent */
    int numa_node;             /* -1 when unknown */
};

int gdr_topo_ibdev_info(const char *sysfs_root, const char *ibdev, struct gdr_ibdev_info *out,
                        char *err, size_t errlen);

/* Where an RDMA device sits for the CPU: the CPU list local to it
 * (local_cpulist, "" unknown) and its NUMA node (-1 unknown), from its PCI
 * function, or for a device without one (rxe) from its netdev's (through
 * one VLAN or bond level). Returns 0, or -ENOENT when no PCI function
 * answers (both left unknown). */
int gdr_topo_ibdev_locality(const char *sysfs_root, const char *ibdev, char *cpulist, size_t len,
                            int *numa_node);

/* The NUMA node of a PCI function (bus/pci/devices/BDF/numa_node); -1
 * unknown. */
int gdr_topo_pci_numa(const char *sysfs_root, const char *bdf);

/* The NUMA nodes online (devices/system/node/online, "0-1"); -ENOENT when
 * the kernel has no NUMA support. */
int gdr_topo_numa_online(const char *sysfs_root, char *nodelist, size_t len);

/* The first line of a small sysfs/procfs file at path, newline stripped,
 * in buf[len]: 0, or a negative errno (-EIO: empty). */
int gdr_topo_read_line(const char *path, char *buf, size_t len);
/* The CPU list of one node (devices/system/node/nodeN/cpulist). */
int gdr_topo_node_cpus(const char *sysfs_root, int node, char *cpulist, size_t len);

/* The device's firmware version (class/infiniband/IBDEV/fw_ver), "" when
 * sysfs does not say (rxe has none). Returns 0 or -errno. */
int gdr_topo_ibdev_fw(const char *sysfs_root, const char *ibdev, char *out, size_t len);

/* true if ibdev is a software RDMA device (see gdr_ibdev_info.software). */
bool gdr_topo_is_software(const char *sysfs_root, const char *ibdev);

/* RDMA devices under class/infiniband, sorted by name. names is an array of
 * max entries of 64 bytes; *n gets the count (entries beyond max are dropped).
 * A missing class/infiniband directory is not an error: *n = 0. */
int gdr_topo_list_ibdevs(const char *sysfs_root, char (*names)[64], size_t max, size_t *n);

/* NVIDIA GPUs (vendor 0x10de, class 0x0300xx VGA or 0x0302xx 3D controller)
 * under bus/pci/devices, sorted by BDF. */
int gdr_topo_list_gpus(const char *sysfs_root, char (*bdfs)[GDR_BDF_LEN], size_t max, size_t *n);

/* The PCIe walk alone between RDMA device ibdev and the PCI function
 * gpu_bdf: what the bridges say, blind to a GPU's chip-to-chip link. A
 * software ibdev yields GDR_PATH_NONE with return 0. The class a program
 * reports for a NIC-GPU pair is gdr_topo_pair_class's. */
int gdr_topo_path_class(const char *sysfs_root, const char *ibdev, const char *gpu_bdf,
                        enum gdr_path_class *out, char *err, size_t errlen);

/* The bridges (BDFs) on the PCIe path between ibdev and gpu_bdf, endpoints
 * excluded, nearest-to-NIC first. Used for the ACS check. *n = 0 for a
 * software device or when the two sit under different host bridges and no
 * root port lies between them. */
int gdr_topo_path_bridges(const char *sysfs_root, const char *ibdev, const char *gpu_bdf,
                          char (*bdfs)[GDR_BDF_LEN], size_t max, size_t *n, char *err,
                          size_t errlen);

/* Registration paths GPU memory can take into an RDMA device. -1 = unknown. */
struct gdr_reg_caps {
    int peermem;             /* nvidia_peermem (or legacy nv_peer_mem) loaded */
    int kernel_dmabuf;       /* kernel >= 5.12 (RDMA dma-buf import) */
    int nvidia_open;         /* NVIDIA open kernel module (dma-buf export) */
    int nvidia_loaded;       /* NVIDIA kernel driver present at all */
    int driver_major;        /* NVIDIA driver branch, e.g. 535; -1 unknown */
    char kernel[64];         /* osrelease, "" if unreadable */
    char nvidia_version[32]; /* e.g. "535.129.03", "" if unknown */
};

/* Fill caps from sysfs (module/) and procfs (sys/kernel/osrelease,
 * driver/nvidia/version). Whether libibverbs/provider support dma-buf is the
 * caller's to find out (it owns the verbs context). */
int gdr_topo_reg_caps(const char *sysfs_root, const char *procfs_root, struct gdr_reg_caps *out);

/* dma-buf possible as far as kernel and driver go (does not ask libibverbs). */
bool gdr_reg_caps_dmabuf(const struct gdr_reg_caps *c);

/* NCCL_NET_GDR_LEVEL: names LOC/PIX/PXB/P2C/PHB/SYS (any case) or the
 * legacy integers 0=LOC 1=PIX 2=PXB 3=PHB 4=SYS (greater than 4 also means
 * SYS, as the NCCL documentation says). Returns 0 or -EINVAL. */
int gdr_nccl_gdr_level_parse(const char *s, enum gdr_path_class *out);

/* NCCL's default when the variable is unset. */
#define GDR_NCCL_GDR_LEVEL_DEFAULT GDR_PATH_PXB

/* Would NCCL use GDR for a pair of class pair under level? */
bool gdr_nccl_gdr_used(enum gdr_path_class pair, enum gdr_path_class level);

/* The same, for NCCL 2.27+ with NCCL_NET_GDR_LEVEL unset: its level is then
 * P2C when NCCL_NET_GDR_C2C is on (its default; gdr_c2c) and PXB when off. */
bool gdr_nccl_gdr_used_default(enum gdr_path_class pair, bool gdr_c2c);

/* --- Grace: the GPU's chip-to-chip link (c2c.c) ------------------------- */

/* Is GPU gpu_bdf attached to the CPU by a coherent chip-to-chip link? The
 * NVIDIA driver onlines such a GPU's memory as a NUMA node and says so in
 * procfs driver/nvidia/gpus/BDF/numa_status (NVLink-C2C on Grace; POWER9's
 * NVLink to the CPU looked the same). 1 yes, 0 no (the driver lists the
 * GPU without it), -1 unknown (no NVIDIA driver information; on a live
 * host the CUDA driver's attributes can still tell). */
int gdr_topo_gpu_c2c(const char *procfs_root, const char *gpu_bdf);

/* The class of a NIC-GPU pair, decided here and nowhere else: gdr_doctor,
 * gdr-cluster-core rails (through gdr_topo_pair) and the benchmarks
 * (ends.*.pcie_path) all report this one. The PCIe walk
 * (gdr_topo_path_class), then the GPU's C2C link: a path through the CPU
 * (PHB, NODE) from a C2C GPU goes over C2C then PCIe, NCCL's P2C; switch
 * paths stay PCIe, a path to the other socket stays SYS. gpu_c2c as
 * gdr_topo_gpu_c2c says it (1 yes; 0 no and -1 unknown: PCIe only). On
 * error *out is GDR_PATH_UNKNOWN and the walk's error is returned. */
int gdr_topo_pair_class(const char *sysfs_root, const char *ibdev, const char *gpu_bdf, int gpu_c2c,
                        enum gdr_path_class *out, char *err, size_t errlen);

/* --- The NIC's PCIe Device Control (devctl.c) ---------------------------- */

/* The "Enable Relaxed Ordering" bit of ibdev's PCI function (Device Control,
 * in the PCI Express capability of sysfs' config): mlx5 honours
 * IBV_ACCESS_RELAXED_ORDERING only when it is set. 1 set, 0 clear, -1
 * unknown (software device, config space unreadable: non-root reads stop
 * at 64 bytes). */
int gdr_topo_relaxed_ordering(const char *sysfs_root, const char *ibdev);

#endif /* GDR_TOPO_H */
