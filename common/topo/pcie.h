/* pcie.h - the PCIe link state of one PCI function, read from sysfs: the
 * current and maximum link speed and width, and from its config space
 * the max payload and max read request sizes, relaxed ordering, ATS and
 * ACS; and the one rule for "trained below its maximum".
 *
 * Shared by the benchmarks (ends.*.pcie, the limit of each row) and
 * gdr_doctor (the link check). Depends on libc only; sysfs_root NULL
 * means "/sys". Config space past the first 64 bytes is readable by root
 * only: what lies there is then unknown, never guessed. */
#ifndef GDR_PCIE_H
#define GDR_PCIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo.h"

/* PCI Express Capabilities register, device/port type. */
enum gdr_pcie_type {
    GDR_PCIE_TYPE_UNKNOWN = -1,
    GDR_PCIE_TYPE_ENDPOINT = 0,
    GDR_PCIE_TYPE_ROOT_PORT = 4,
    GDR_PCIE_TYPE_UPSTREAM = 5,
    GDR_PCIE_TYPE_DOWNSTREAM = 6,
};

struct gdr_pcie_link {
    char bdf[GDR_BDF_LEN];
    bool bridge;                   /* class 0x0604: a root or switch port */
    double cur_gts, max_gts;       /* GT/s (2.5 ... 64); 0 unknown */
    unsigned cur_width, max_width; /* lanes; 0 unknown */
    size_t config_bytes;           /* how much of config space was readable */
    int type;                      /* enum gdr_pcie_type */
    unsigned mps, mps_supported;   /* max payload: in use, supported; 0 unknown */
    unsigned mrrs;                 /* max read request; 0 unknown */
    int relaxed_ordering;          /* Device Control's enable bit; -1 unknown */
    int ats;                       /* 1 ATS on, 0 off or no ATS capability, -1 unknown */
    int acs_ctrl;                  /* ACS control register; -1 no ACS capability or unknown */
};

/* Read what sysfs and config space say about bdf. Returns 0 when the
 * device exists (fields it does not show stay unknown), else -errno. */
int gdr_topo_pcie_link(const char *sysfs_root, const char *bdf, struct gdr_pcie_link *out);

/* The bridges above bdf, nearest first (the root port last). */
int gdr_topo_pci_upstream(const char *sysfs_root, const char *bdf, char (*bdfs)[GDR_BDF_LEN],
                          size_t max, size_t *n);

/* Up to len bytes of bdf's config space into buf; *got says how many. */
int gdr_topo_pci_config(const char *sysfs_root, const char *bdf, uint8_t *buf, size_t len,
                        size_t *got);
/* Offset of a capability in config space, -1 if absent or past len. */
int gdr_pci_find_cap(const uint8_t *cfg, size_t len, unsigned id);
int gdr_pci_find_ext_cap(const uint8_t *cfg, size_t len, unsigned id);
#define GDR_PCI_CAP_EXP 0x10 /* PCI Express */
#define GDR_PCI_EXT_CAP_ACS 0x000d
#define GDR_PCI_EXT_CAP_ATS 0x000f

/* A link is below its maximum when it runs slower or narrower than the
 * lower of what its two ends can do: the device and the port above it
 * (upstream, NULL when unknown). false when either figure is unknown. */
bool gdr_pcie_below_max(const struct gdr_pcie_link *dev, const struct gdr_pcie_link *upstream,
                        bool *speed, bool *width);

/* One device on a walk from a NIC or GPU up to its root port. Each
 * physical link is judged once, from its lower end: an endpoint or a
 * switch's upstream port against the port above it. A root or switch
 * downstream port's sysfs link figures describe the link below it, so
 * it is not judged itself. The port type comes from config space, or
 * (without root) from the position: below a root port, switch upstream
 * and downstream ports alternate. */
enum gdr_pcie_role { GDR_PCIE_NIC, GDR_PCIE_GPU, GDR_PCIE_BRIDGE };
struct gdr_pcie_hop {
    struct gdr_pcie_link link;
    enum gdr_pcie_role role;
    bool judged;           /* the lower end of a link */
    double expect_gts;     /* what the link should run at: the lower of */
    unsigned expect_width; /* both ends' maxima; 0 unknown */
    bool below_max;        /* judged and slower or narrower than that */
};
const char *gdr_pcie_role_name(enum gdr_pcie_role r); /* "nic", "gpu", "bridge" */

/* bdf and the bridges above it, bdf first, the root port last. */
int gdr_topo_pcie_walk(const char *sysfs_root, const char *bdf, enum gdr_pcie_role role,
                       struct gdr_pcie_hop *hops, size_t max, size_t *n);

/* "Gen4" for 16 GT/s; "Gen?" for anything else. */
const char *gdr_pcie_gen_name(double gts);

#endif
