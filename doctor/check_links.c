/* check_links: PCIe links trained below their maximum, for every NIC, GPU
 * and the bridges above them (the NIC-GPU paths are among these). A NIC
 * or bridge link below its maximum FAILs: it caps every transfer. A GPU
 * WARNs: GPUs lower their link speed when idle, as the doctor finds them. */
#include "doctor.h"
#include "pcie.h"
#include "pcie_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MAX_HOPS (4 * GDR_DOCTOR_MAX_DEVS)

struct link_set {
    struct gdr_pcie_hop hop[MAX_HOPS];
    char name[MAX_HOPS][64]; /* the RDMA device for a NIC, else the BDF */
    size_t n;
};

static void add_walk(struct gdr_doctor_ctx *ctx, struct link_set *set, const char *bdf,
                     enum gdr_pcie_role role, const char *name)
{
    struct gdr_pcie_hop walk[33];
    size_t n = 0;
    gdr_topo_pcie_walk(ctx->sysfs, bdf, role, walk, 33, &n);
    for (size_t i = 0; i < n && set->n < MAX_HOPS; i++) {
        bool seen = false;
        for (size_t k = 0; k < set->n && !seen; k++)
            seen = strcmp(set->hop[k].link.bdf, walk[i].link.bdf) == 0;
        if (seen)
            continue;
        set->hop[set->n] = walk[i];
        snprintf(set->name[set->n], sizeof(set->name[0]), "%.63s", i ? walk[i].link.bdf : name);
        set->n++;
    }
}

static void describe(char *buf, size_t len, double gts, unsigned width)
{
    snprintf(buf, len, "%g GT/s x%u (%s x%u)", gts, width, gdr_pcie_gen_name(gts), width);
}

int gdr_doctor_check_links(struct gdr_doctor_ctx *ctx)
{
    static struct link_set set; /* too large for the stack of a check */
    set.n = 0;
    for (size_t d = 0; d < ctx->n_ibdevs; d++) {
        struct gdr_ibdev_info info;
        if (gdr_topo_ibdev_info(ctx->sysfs, ctx->ibdevs[d], &info, NULL, 0) == 0 && info.pci_bdf[0])
            add_walk(ctx, &set, info.pci_bdf, GDR_PCIE_NIC, ctx->ibdevs[d]);
    }
    for (size_t g = 0; g < ctx->n_gpus; g++)
        add_walk(ctx, &set, ctx->gpus[g], GDR_PCIE_GPU, ctx->gpus[g]);
    if (!set.n)
        return 0; /* software NICs only, no GPU: no PCIe link to judge */

    cJSON *facts = cJSON_AddArrayToObject(ctx->facts, "links");
    if (!facts)
        return -ENOMEM;
    char unknown[256] = "";
    size_t judged = 0, bad = 0, nunknown = 0;
    for (size_t i = 0; i < set.n; i++) {
        const struct gdr_pcie_hop *h = &set.hop[i];
        cJSON_AddItemToArray(facts, gdr_pcie_hop_to_json(h));
        if (!h->judged)
            continue;
        if (!h->link.cur_gts || !h->link.max_gts || !h->link.cur_width || !h->link.max_width) {
            if (nunknown++ < 6)
                snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown), "%s%s",
                         unknown[0] ? " " : "", set.name[i]);
            continue;
        }
        judged++;
        if (!h->below_max)
            continue;
        bad++;
        char now[64], can[64], subject[96];
        describe(now, sizeof(now), h->link.cur_gts, h->link.cur_width);
        describe(can, sizeof(can), h->expect_gts, h->expect_width);
        snprintf(subject, sizeof(subject), "%s", set.name[i]);
        if (h->role == GDR_PCIE_GPU)
            gdr_doctor_add(
                ctx, "link", subject, GDR_DOCTOR_WARN,
                "check it under load: nvidia-smi -q -d PCIE while traffic runs, or the benchmark's ends.*.pcie",
                "GPU link at %s, capable of %s: GPUs lower their link speed when idle", now, can);
        else
            gdr_doctor_add(
                ctx, "link", subject, GDR_DOCTOR_FAIL,
                h->role == GDR_PCIE_NIC
                    ? "reseat the NIC in a slot wired for its full width; check the slot's PCIe speed in the BIOS"
                    : "check the BIOS PCIe speed setting and reseat the riser or switch board",
                "%s link trained at %s, below the %s both ends can do", gdr_pcie_role_name(h->role),
                now, can);
    }
    if (nunknown)
        gdr_doctor_add(ctx, "link", "system", GDR_DOCTOR_UNKNOWN,
                       "sysfs shows current_link_speed/width for PCIe devices; check lspci -vv",
                       "link speed or width unreadable for %zu device(s): %s%s", nunknown, unknown,
                       nunknown > 6 ? " ..." : "");
    if (judged && !bad)
        gdr_doctor_add(ctx, "link", "system", GDR_DOCTOR_PASS, NULL,
                       "%zu PCIe links at their maximum (NICs, GPUs and the bridges above them)",
                       judged);
    return 0;
}
