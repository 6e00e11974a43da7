/* pairing.h - which RDMA device each GPU uses: its rail NIC.
 *
 * Owns the one answer gdr_doctor and gdr-cluster-core give: a GPU's rail NIC
 * is the nearest RDMA device with an ACTIVE port, by PCIe distance (the path
 * class, then the bridges between them); among equally near NICs the one
 * serving fewer GPUs so far, then the first by name. GPUs may share a NIC
 * (two GPUs under one PCIe switch with one NIC). A NIC that no GPU takes
 * (storage or management NICs, with no GPU near them) is not a rail; a NIC
 * with no ACTIVE port is never one. Reads sysfs only (libc). */
#ifndef GDR_TOPO_PAIRING_H
#define GDR_TOPO_PAIRING_H

#include "topo.h"

#define GDR_PAIR_MAX 64

enum gdr_nic_port {
    GDR_NIC_PORT_ACTIVE,  /* some port ACTIVE */
    GDR_NIC_PORT_DOWN,    /* ports listed, none ACTIVE */
    GDR_NIC_PORT_UNKNOWN, /* no port state readable: taken as usable */
};

/* A port's state as sysfs words it ("ACTIVE", "DOWN", "INIT"...) into out;
 * 0, or -errno when it cannot be read. sysfs_root NULL: "/sys". */
int gdr_topo_port_state(const char *sysfs_root, const char *ibdev, int port, char *out, size_t len);
/* Port 1.. of ibdev under sysfs_root: ACTIVE, DOWN or UNKNOWN; *port gets
 * the first ACTIVE port (else the first listed, else 0) and state its text
 * ("DOWN", "INIT", ...; "" when unknown). */
enum gdr_nic_port gdr_topo_nic_port(const char *sysfs_root, const char *ibdev, int *port,
                                    char *state, size_t len);

enum gdr_nic_role {
    GDR_NIC_RAIL,   /* the rail NIC of at least one GPU (host-only node: every active NIC) */
    GDR_NIC_UNUSED, /* active, but no GPU's nearest: storage, management */
    GDR_NIC_DOWN,   /* no ACTIVE port: never a rail */
};

struct gdr_topo_pairing {
    size_t ngpus, nnics;
    int nic_of[GDR_PAIR_MAX];               /* per GPU: index into the NICs, -1: none active */
    enum gdr_path_class path[GDR_PAIR_MAX]; /* per GPU: the class to its NIC (C2C in) */
    enum gdr_nic_role role[GDR_PAIR_MAX];   /* per NIC */
    size_t gpus_on[GDR_PAIR_MAX];           /* per NIC: how many GPUs take it */
    char port_state[GDR_PAIR_MAX][32];      /* per NIC: its port's state text */
    int port[GDR_PAIR_MAX];                 /* per NIC: the port judged */
};

/* Pair gpus[0..ngpus) (BDFs) with nics[0..nnics) (RDMA device names), both
 * at most GDR_PAIR_MAX. gpu_c2c[g] is GPU g's chip-to-chip link as
 * gdr_topo_gpu_c2c says it (NULL: none known); the classes, path[] too,
 * are gdr_topo_pair_class's, so a Grace GPU's NIC on its CPU is P2C here
 * as in gdr_doctor. A class that cannot be read counts as the farthest.
 * Returns 0 (it cannot fail past the bounds: -EINVAL). */
int gdr_topo_pair(const char *sysfs_root, const char (*nics)[64], size_t nnics,
                  const char (*gpus)[GDR_BDF_LEN], const int *gpu_c2c, size_t ngpus,
                  struct gdr_topo_pairing *out);

#endif /* GDR_TOPO_PAIRING_H */
