/* nvml.h - a GPU's state through NVML, loaded at run time
 * (libnvidia-ml.so.1: no build dependency, optional like libcuda).
 *
 * Per GPU end: what does not change during a run (persistence mode, ECC
 * mode and volatile uncorrected errors, MIG mode, the PCIe maximum) once,
 * and per size (a soak: per interval), as its timed loop ends: P-state, SM
 * and memory clocks, the current PCIe generation and width, the
 * clock-throttle reasons, the temperature, the volatile uncorrected ECC
 * errors so far and the PCIe replay counter's delta over the size. Where
 * NVML is missing or a query fails the field is unknown and `why` says
 * so; nothing fails a run. NVML's types are declared here (its header is not needed). */
#ifndef GDR_NVML_H
#define GDR_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gdr_gpu_state {
    bool available;                        /* NVML loaded and the GPU found */
    char why[160];                         /* when not: the library's or NVML's words */
    int persistence;                       /* 1 on, 0 off, -1 unknown */
    int ecc;                               /* current ECC mode: 1 on, 0 off, -1 unknown */
    long long ecc_uncorrected;             /* volatile uncorrected errors; -1 unknown */
    int mig;                               /* current MIG mode: 1 on, 0 off, -1 unknown */
    unsigned max_pcie_gen, max_pcie_width; /* 0 unknown */
};

struct gdr_gpu_sample {
    bool available;
    int pstate;                    /* 0 (fastest) .. 15; -1 unknown */
    unsigned sm_mhz, mem_mhz;      /* 0 unknown */
    unsigned pcie_gen, pcie_width; /* 0 unknown */
    bool throttle_known;
    unsigned long long throttle; /* NVML's clocks-throttle reason bits */
    long long replay_delta;      /* PCIe replays over the size; -1 unknown */
    int temperature_c;           /* the GPU die's; -1 unknown */
    long long ecc_uncorrected;   /* volatile uncorrected ECC errors so far; -1 unknown */
};

struct gdr_nvml {
    void *lib, *dev;
    bool inited;
    bool replay_known;
    unsigned replay_mark;
    struct gdr_nvml_api *api;
};

/* Load NVML (libname NULL: "libnvidia-ml.so.1") and find the GPU by its
 * PCI bus id; fill *state (state->available false with why on failure). */
void gdr_nvml_open(struct gdr_nvml *n, const char *libname, const char *bus_id,
                   struct gdr_gpu_state *state);
/* Before a size: remember the replay counter. */
void gdr_nvml_mark(struct gdr_nvml *n);
/* As the size's loop ends. */
void gdr_nvml_sample(struct gdr_nvml *n, struct gdr_gpu_sample *out);
void gdr_nvml_close(struct gdr_nvml *n);

/* The throttle reason bits as names ("sw_power_cap,hw_slowdown"); ""
 * for none. GPU idle and the applications-clocks setting are left out:
 * they are not a slowdown under load. */
void gdr_nvml_throttle_names(unsigned long long bits, char *buf, size_t len);
/* Only these bits slow a GPU that is working. */
#define GDR_NVML_THROTTLE_SLOWDOWN 0x1fcull

#endif
