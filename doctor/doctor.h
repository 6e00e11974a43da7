/*
 * doctor: shared state of one gdr_doctor run and the check registry.
 *
 * Owns: struct gdr_doctor_ctx (roots, NCCL level, inventory, collected check
 * results, the JSON facts tree) and gdr_doctor_add(), the one way a check
 * reports. Each check module (check_*.c) fills facts and adds results;
 * output.c renders them; main.c decides the exit code.
 */
#ifndef GDR_DOCTOR_H
#define GDR_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "topo.h"

/* Exit codes (documented in docs/doctor.md and --help). */
enum {
    GDR_DOCTOR_EXIT_OK = 0,    /* no FAIL (WARN/UNKNOWN allowed) */
    GDR_DOCTOR_EXIT_FAIL = 1,  /* at least one check FAILed */
    GDR_DOCTOR_EXIT_USAGE = 2, /* bad option or bad NCCL_NET_GDR_LEVEL */
    GDR_DOCTOR_EXIT_NOENV = 3, /* no RDMA device or no GPU */
};

enum gdr_doctor_status { GDR_DOCTOR_PASS, GDR_DOCTOR_WARN, GDR_DOCTOR_FAIL, GDR_DOCTOR_UNKNOWN };

#define GDR_DOCTOR_MAX_DEVS 64

struct gdr_doctor_check {
    char name[24];    /* "path", "bar1", ... */
    char subject[96]; /* "mlx5_0<->0000:03:00.0", "system", ... */
    enum gdr_doctor_status status;
    char msg[384];
    char fix[256]; /* "" for PASS */
};

struct gdr_doctor_ctx {
    const char *sysfs; /* never NULL */
    const char *procfs;
    bool live; /* roots are the real /sys and /proc */
    bool json;

    enum gdr_path_class level;
    const char *level_source; /* "default", "NCCL_NET_GDR_LEVEL", ... */
    bool gdr_c2c;             /* NCCL_NET_GDR_C2C (NCCL 2.27+ default: on) */

    char ibdevs[GDR_DOCTOR_MAX_DEVS][64];
    size_t n_ibdevs;
    char gpus[GDR_DOCTOR_MAX_DEVS][GDR_BDF_LEN];
    size_t n_gpus;

    struct gdr_reg_caps caps;
    int verbs_dmabuf; /* the GPU-paired devices: 1 all take dma-buf, 0 one does not, -1 unknown */
    /* Per RDMA device: takes dma-buf registrations (1, 0, -1 unknown: a
     * live probe, or what its kernel driver is known for in a captured
     * tree). Per GPU: its C2C link (1, 0, -1), and the device NCCL pairs
     * with it (the nearest; -1 none), set by check_pcie. */
    int dev_dmabuf[GDR_DOCTOR_MAX_DEVS];
    int gpu_c2c[GDR_DOCTOR_MAX_DEVS];
    int gpu_nic[GDR_DOCTOR_MAX_DEVS];

    struct gdr_doctor_check *checks;
    size_t n_checks, cap_checks;

    cJSON *facts; /* the JSON document being built */
};

const char *gdr_doctor_status_name(enum gdr_doctor_status s);

/* Record one result. fix may be NULL (PASS). Returns 0 or -ENOMEM. */
int gdr_doctor_add(struct gdr_doctor_ctx *ctx, const char *name, const char *subject,
                   enum gdr_doctor_status st, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Read the first line of ROOT/REL into buf (newline stripped). 0 or -errno. */
int gdr_doctor_read_line(const char *root, const char *rel, char *buf, size_t len);

/* The checks, in the order main() runs them. Each returns 0 or -errno. */
int gdr_doctor_check_ports(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_pcie(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_registration(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_bar1(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_iommu(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_acs(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_links(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_versions(struct gdr_doctor_ctx *ctx);
int gdr_doctor_check_relaxed(struct gdr_doctor_ctx *ctx);

/* output.c: render everything collected. */
void gdr_doctor_print_text(const struct gdr_doctor_ctx *ctx, const char *env_missing);
int gdr_doctor_print_json(struct gdr_doctor_ctx *ctx, const char *env_missing, int exit_code);

#endif /* GDR_DOCTOR_H */
