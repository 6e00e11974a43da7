/* endpoint.h - what one end tells the other about itself: the facts a
 * report needs (host, device, port, link) and the facts a connection needs
 * (QP numbers, GID, LID, PSN, buffer address and rkey). */
#ifndef GDR_ENDPOINT_H
#define GDR_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "bounds.h"

/* Where an end ran and where its memory is (report only; chosen and read
 * back by the harness, common/placement.h). */
struct gdr_affinity {
    char requested[8];      /* "nic" (default), "cpu", "numa", "none" (--no-bind) */
    char binding[16];       /* "applied", "partial", "refused", "off", "no-locality" */
    char numa[12];          /* memory policy: "preferred", "default"; "none": one node */
    char cpus_allowed[128]; /* CPU list the process may run on, after binding */
    char nic_cpus[128];     /* CPUs local to the RDMA device ("" unknown) */
    int nic_numa_node;      /* -1 unknown */
    int mem_node;           /* the node the memory policy prefers; -1 none */
    int loop_cpu;           /* the CPU the timed loops ran on; -1 not pinned */
    char loop_cpu_why[256]; /* why the loop was or was not given a CPU of its own */
    int buffer_numa_node;   /* read back; -1 not host memory or unknown */
    int ring_numa_node;     /* the staged bounce ring's; -1 none or unknown */
    char note[200];         /* why not as asked, a GPU on the far node; "" */
};

struct gdr_endpoint {
    char host[64];
    char device[64];
    unsigned port;
    char link_layer[16]; /* "Ethernet", "InfiniBand" */
    unsigned active_mtu; /* bytes */
    double speed_bps;    /* port signalling rate, bits/s; 0 unknown */
    int gid_index;       /* -1: none used (InfiniBand LID routing) */
    char gid[48];        /* text form, "::ffff:198.18.0.1" */
    uint8_t gid_raw[16];
    char gid_type[8];    /* "RoCEv2", "RoCEv1", "IB"; "" without a GID */
    char gid_family[8];  /* "ipv4", "ipv6"; "" without a GID */
    char gid_netdev[16]; /* the GID's netdev ("" InfiniBand) */
    int gid_vlan;        /* its VLAN id; -1 none */
    bool grh;            /* the QPs address the peer with a GRH */
    uint16_t lid;
    unsigned num_qps;
    /* RDMA reads the device takes per QP as responder and as requester
     * (max_qp_rd_atom, max_qp_init_rd_atom): both ends' bound the reads
     * in flight. */
    unsigned max_rd_atom, max_init_rd_atom;
    uint32_t qpn[GDR_MAX_QPS];
    uint32_t psn;
    uint64_t addr; /* remote-access base of the buffer */
    uint64_t buf_len;
    uint32_t rkey;
    char placement[16];    /* "host" or "cuda" */
    char registration[16]; /* "host", "dmabuf", "peermem", "staged" */
    /* Staged buffers: the bounce ring the peer addresses (0 bytes: none). */
    uint64_t ring_addr, ring_bytes, slot_bytes;
    uint32_t ring_rkey;
    /* The word a staged destination writes its credits into (RDMA write). */
    uint64_t credit_addr;
    uint32_t credit_rkey;
    /* GPU buffers (report only). */
    int cuda_device; /* -1: host memory */
    char cuda_bus_id[32];
    char cuda_name[64];
    char reg_note[192];
    /* GPU buffers: what gdr_doctor would say about this NIC-GPU pair. */
    char pcie_path[8]; /* PIX ... SYS, NONE (software NIC), UNKNOWN; "" host */
    bool peermem_loaded, dmabuf_possible;
    /* What this end did for real NICs and GPUs (report only). */
    bool relaxed_ordering;    /* MRs registered with relaxed ordering */
    char scatter_to_cqe[24];  /* "not-needed", "not-mlx5", "disabled-mlx5dv", "disabled-env" */
    char writes_ordering[16]; /* GPU: "none", "owner", "all-devices"; "" host */
    char writes_flush[16];    /* "flush", "not-needed", "unsupported", "not-applicable",
                               * "nic-read" */
    char gpu_alloc[8];        /* GPU: "malloc", "vmm"; "" host */
    char dmabuf_mapping[24];  /* "pcie", "default", "default-pcie-refused"; "" no dma-buf */
    bool data_direct;         /* registered through mlx5 Data Direct */
    bool gpu_c2c;             /* the GPU hangs off the CPU by a C2C link */
    /* The NIC's PCIe Device Control "Enable Relaxed Ordering" bit: 1 set,
     * 0 clear, -1 unknown (software NIC, config space unreadable). */
    int relaxed_ordering_enabled;
    /* The path's context (common/context.c): the port's data rate after
     * encoding (0 unknown, port_note says why), the PCIe links of the NIC,
     * the GPU and the bridges above them, and the GPU's NVML state, the
     * last two as JSON text (what ends.*.pcie and ends.*.gpu_state say). */
    double port_data_bps;
    char port_note[160];
    char pcie_json[8192];
    char gpu_json[1024];
    struct gdr_affinity affinity;
};

/* Is PCIe relaxed ordering in effect on this end's memory regions, as far
 * as can be told? 0 no: not asked (--disable_pcie_relaxed), or the NIC's
 * Device Control bit forbids it (mlx5 then leaves it out of the memory
 * key); -1 unknown: registered through mlx5 Data Direct, where the kernel
 * drops it silently when the engine has no relaxed-ordering key and says
 * nothing, or the Device Control bit could not be read; 1 asked, allowed,
 * and not through Data Direct. The document's relaxed_ordering_in_effect. */
int gdr_endpoint_relaxed_in_effect(const struct gdr_endpoint *ep);

/* Full form for the wire. */
cJSON *gdr_endpoint_to_json(const struct gdr_endpoint *ep);
/* Checks every field; `what` names the source for errors. */
int gdr_endpoint_from_json(const cJSON *obj, struct gdr_endpoint *ep, const char *what);
/* The result document's form (ends.*): the facts, without keys and queue numbers. */
cJSON *gdr_endpoint_document_json(const struct gdr_endpoint *ep);

#endif
