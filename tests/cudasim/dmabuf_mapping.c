/* dmabuf_mapping.c - the benchmarks' GPU buffer (common/mem) as the lab
 * cannot otherwise show it: a NIC under the GPU's PCIe switch. On soft-RoCE
 * the NIC-GPU path is NONE, so --dmabuf-mapping=auto never asks for the
 * PCIe mapping there; this creates the buffer with the question "do NIC and
 * GPU share a switch?" answered as told, under the CUDA test double (its
 * C2C and PCIe-flag knobs set by the caller), and prints what was chosen.
 *
 *   dmabuf_mapping [-d DEV] auto|pcie|default near|far [vmm]
 *
 * One line: "registration=R mapping=M flush=F c2c=0|1 note=..." and exit
 * 0, or the buffer's error (one line) and its exit code. */
#include "config.h"

#include "error.h"
#include "mem.h"

#include <stdio.h>
#include <string.h>

static int near_answer;

static int shares_switch(const char *gpu_bus_id, void *arg)
{
    (void)gpu_bus_id, (void)arg;
    return near_answer;
}

int main(int argc, char **argv)
{
    const char *dev = NULL;
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "-d")) {
        dev = argv[2];
        i = 3;
    }
    if (argc - i < 2 || argc - i > 3) {
        fprintf(stderr, "usage: dmabuf_mapping [-d DEV] auto|pcie|default near|far [vmm]\n");
        return 2;
    }
    struct gdr_mem_spec spec = {.cuda = true, .cuda_index = 0, .relaxed_ordering = true};
    static const char *const maps[] = {"auto", "pcie", "default"};
    for (int m = 0; m < 3; m++)
        if (!strcmp(argv[i], maps[m]))
            spec.mapping = (enum gdr_dmabuf_mapping)m;
    spec.gdr = spec.mapping == GDR_MAPPING_PCIE ? GDR_MODE_DMABUF : GDR_MODE_AUTO;
    near_answer = !strcmp(argv[i + 1], "near");
    spec.alloc = argc - i == 3 && !strcmp(argv[i + 2], "vmm") ? GDR_ALLOC_VMM : GDR_ALLOC_MALLOC;
    spec.nic_shares_switch = shares_switch;

    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = NULL;
    for (int k = 0; list && k < n && !ctx; k++)
        if (!dev || !strcmp(ibv_get_device_name(list[k]), dev))
            ctx = ibv_open_device(list[k]);
    if (list)
        ibv_free_device_list(list);
    struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
    if (!pd) {
        printf("dmabuf_mapping: no verbs device %s\n", dev ? dev : "");
        return 3;
    }
    struct gdr_buffer b;
    int rc = 0;
    if (gdr_buffer_create(&b, &spec, pd, 64 << 10, 0, 0)) {
        printf("dmabuf_mapping: %s\n", gdr_error_message());
        rc = gdr_error_code();
    } else {
        printf("registration=%s mapping=%s flush=%s c2c=%d alloc=%s note=%s\n", b.registration,
               b.dmabuf_mapping, b.writes_flush, b.c2c, b.gpu_alloc, b.reg_note);
        gdr_buffer_destroy(&b);
    }
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    return rc;
}
