/* post_from_device.c - a planted CPU touch of GPU memory, for the strict
 * CUDA test double (tests/cudasim) on soft-RoCE.
 *
 *   post_from_device [-d DEV] [-g GID_INDEX] inline|plain send|write
 *
 * Two RC QPs on one verbs device, connected to each other.  64 bytes of a
 * cuMemAlloc'd buffer, registered through the double's nvidia_peermem
 * (LD_PRELOAD), go to a host buffer by SEND or RDMA WRITE:
 *   inline: with IBV_SEND_INLINE the provider memcpys the payload with the
 *           CPU at post time, the defect class of an inline post from GPU
 *           memory: in strict mode this process dies of SIGSEGV;
 *   plain:  the NIC reads the device memory through the registration; the
 *           data must arrive intact.  Then the other way: an RDMA WRITE
 *           into the device buffer (device address + rkey), read back with
 *           cuMemcpyDtoH.
 * Prints one line.  Exit 0 delivered intact, 1 wrong data or a failed
 * completion, 2 usage, 3 no CUDA driver or verbs device. */
#include "config.h"

#include "../rc_pair.h"

#include <cuda.h>

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LEN = 64, BUF = 64 << 10 };

static int fail(int code, const char *what, const char *why)
{
    printf("post_from_device: %s: %s\n", what, why);
    return code;
}

static struct {
    __typeof__(&cuInit) Init;
    __typeof__(&cuDevicePrimaryCtxRetain) Retain;
    __typeof__(&cuCtxSetCurrent) SetCurrent;
    __typeof__(&cuMemAlloc) Alloc;
    __typeof__(&cuMemcpyHtoD) HtoD;
    __typeof__(&cuMemcpyDtoH) DtoH;
} cu;

static int load_cuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    CUcontext ctx;

    if (!h)
        return -1;
    cu.Init = (__typeof__(cu.Init))dlsym(h, "cuInit");
    cu.Retain = (__typeof__(cu.Retain))dlsym(h, "cuDevicePrimaryCtxRetain");
    cu.SetCurrent = (__typeof__(cu.SetCurrent))dlsym(h, "cuCtxSetCurrent");
    cu.Alloc = (__typeof__(cu.Alloc))dlsym(h, "cuMemAlloc_v2");
    cu.HtoD = (__typeof__(cu.HtoD))dlsym(h, "cuMemcpyHtoD_v2");
    cu.DtoH = (__typeof__(cu.DtoH))dlsym(h, "cuMemcpyDtoH_v2");
    if (!cu.Init || !cu.Retain || !cu.SetCurrent || !cu.Alloc || !cu.HtoD || !cu.DtoH)
        return -1;
    if (cu.Init(0) || cu.Retain(&ctx, 0) || cu.SetCurrent(ctx))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dev_name = "rxe0";
    int gid_index = 1, n = 0, argi = 1;
    bool inl, send;
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    struct ibv_port_attr port;
    union ibv_gid gid;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qa, *qb;
    struct ibv_mr *dmr, *hmr;
    CUdeviceptr d;
    unsigned char *host, pattern[LEN];

    for (; argi + 1 < argc && argv[argi][0] == '-'; argi += 2) {
        if (!strcmp(argv[argi], "-d"))
            dev_name = argv[argi + 1];
        else if (!strcmp(argv[argi], "-g"))
            gid_index = atoi(argv[argi + 1]);
        else
            return fail(2, argv[argi],
                        "unknown option (usage: [-d DEV] [-g GID] inline|plain send|write)");
    }
    if (argc - argi != 2 || (strcmp(argv[argi], "inline") && strcmp(argv[argi], "plain")) ||
        (strcmp(argv[argi + 1], "send") && strcmp(argv[argi + 1], "write")))
        return fail(2, "usage", "post_from_device [-d DEV] [-g GID] inline|plain send|write");
    inl = !strcmp(argv[argi], "inline");
    send = !strcmp(argv[argi + 1], "send");

    if (load_cuda())
        return fail(3, "libcuda.so.1", "cannot load or initialise the CUDA driver (test double)");
    list = ibv_get_device_list(&n);
    for (int i = 0; list && i < n; i++)
        if (!strcmp(ibv_get_device_name(list[i]), dev_name))
            ctx = ibv_open_device(list[i]);
    if (!ctx)
        return fail(3, dev_name, "no such verbs device");
    if (ibv_query_port(ctx, 1, &port) || ibv_query_gid(ctx, 1, gid_index, &gid))
        return fail(3, dev_name, "cannot query port 1 or its GID");
    pd = ibv_alloc_pd(ctx);
    cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
    if (!cq)
        return fail(1, "pd/cq", strerror(errno));
    struct ibv_qp_init_attr qi = {.send_cq = cq,
                                  .recv_cq = cq,
                                  .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4,
                                          .max_recv_wr = 4,
                                          .max_send_sge = 1,
                                          .max_recv_sge = 1,
                                          .max_inline_data = LEN}};
    qa = ibv_create_qp(pd, &qi);
    qb = ibv_create_qp(pd, &qi);
    if (!qa || !qb || rc_pair_connect(qa, qb->qp_num, &gid, gid_index, port.active_mtu) ||
        rc_pair_connect(qb, qa->qp_num, &gid, gid_index, port.active_mtu))
        return fail(1, "QPs", strerror(errno));

    if (cu.Alloc(&d, BUF))
        return fail(1, "cuMemAlloc", "failed");
    for (int i = 0; i < LEN; i++)
        pattern[i] = (unsigned char)(0xa5 ^ (i * 7));
    if (cu.HtoD(d, pattern, LEN))
        return fail(1, "cuMemcpyHtoD", "failed");
    dmr = ibv_reg_mr(pd, (void *)(uintptr_t)d, BUF,
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (!dmr)
        return fail(3, "ibv_reg_mr of device memory", strerror(errno));
    if (dmr->addr != (void *)(uintptr_t)d)
        return fail(1, "ibv_reg_mr of device memory", "the MR does not carry the device address");
    host = calloc(1, BUF);
    hmr = host ? ibv_reg_mr(pd, host, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
    if (!hmr)
        return fail(1, "ibv_reg_mr of host memory", strerror(errno));

    /* device -> host, the SGE names the device address */
    struct ibv_sge sge = {.addr = d, .length = LEN, .lkey = dmr->lkey};
    struct ibv_send_wr wr = {.sg_list = &sge,
                             .num_sge = 1,
                             .opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0)},
                       *bad;
    struct ibv_sge rsge = {.addr = (uintptr_t)host, .length = LEN, .lkey = hmr->lkey};
    struct ibv_recv_wr rwr = {.sg_list = &rsge, .num_sge = 1}, *rbad;
    wr.wr.rdma.remote_addr = (uintptr_t)host;
    wr.wr.rdma.rkey = hmr->rkey;
    if (send && ibv_post_recv(qb, &rwr, &rbad))
        return fail(1, "ibv_post_recv", strerror(errno));
    if (ibv_post_send(qa, &wr, &bad))
        return fail(1, "ibv_post_send", strerror(errno));
    if (rc_pair_wait(cq, send ? 2 : 1, "post_from_device"))
        return fail(1, "device -> host", "no successful completion within 5 s");
    if (memcmp(host, pattern, LEN))
        return fail(1, "device -> host", "the data arrived damaged");

    /* host -> device: remote address = device address, rkey of its MR */
    unsigned char back[LEN];
    for (int i = 0; i < LEN; i++)
        host[BUF / 2 + i] = (unsigned char)~pattern[i];
    sge = (struct ibv_sge){.addr = (uintptr_t)host + BUF / 2, .length = LEN, .lkey = hmr->lkey};
    wr = (struct ibv_send_wr){.sg_list = &sge,
                              .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = IBV_SEND_SIGNALED};
    wr.wr.rdma.remote_addr = d + BUF / 2;
    wr.wr.rdma.rkey = dmr->rkey;
    if (ibv_post_send(qa, &wr, &bad) || rc_pair_wait(cq, 1, "post_from_device"))
        return fail(1, "host -> device", "RDMA WRITE to the device address failed");
    if (cu.DtoH(back, d + BUF / 2, LEN) || memcmp(back, host + BUF / 2, LEN))
        return fail(1, "host -> device", "the data in device memory is wrong");
    printf("post_from_device: %s %s: %d bytes device -> host and host -> device intact\n",
           inl ? "inline" : "plain", send ? "send" : "write", LEN);
    return 0;
}
