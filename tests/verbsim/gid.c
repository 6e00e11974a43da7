/* gid.c - the GID table as ConnectX shows it on RoCE: every address twice,
 * a RoCEv1 entry and, after it, a RoCEv2 entry with the same GID. rxe has
 * RoCEv2 entries only, so a program that takes the first entry matching an
 * address gets the right type in the lab and the v1 twin on hardware.
 *
 * With GDR_VERBSIM_GID_TWINS=1, ibv_query_gid and ibv_query_gid_ex (the
 * exported _ibv_query_gid_ex behind it) answer index 0 with index 1's GID
 * as a RoCEv1 entry: the twin of the address at 1, listed first. The
 * kernel's table is untouched, so rdma_cm still connects over index 1
 * (v2), and the QP's address vector says so. A symbol interposition of its
 * own: it needs none of the core's context wrapping. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbsim.h"

static int twins = -1; /* -1: the environment not read yet */

static bool twins_on(void)
{
    if (twins < 0) {
        twins = vs_env_u64("GDR_VERBSIM_GID_TWINS", 0, 0, 1) == 1;
        vs_start();
        if (twins)
            vs_log("gid twins: index 0 shown as a RoCEv1 twin of index 1");
    }
    return twins == 1;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
    static int (*real)(struct ibv_context *, uint8_t, int, union ibv_gid *);
    if (!real)
        real = (int (*)(struct ibv_context *, uint8_t, int, union ibv_gid *))dlsym(RTLD_NEXT,
                                                                                   "ibv_query_gid");
    if (!real)
        return -1;
    return real(context, port_num, twins_on() && index == 0 ? 1 : index, gid);
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
                      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
    static int (*real)(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t,
                       size_t);
    if (!real)
        real = (int (*)(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t,
                        size_t))dlsym(RTLD_NEXT, "_ibv_query_gid_ex");
    if (!real)
        return -1;
    bool twin = twins_on() && gid_index == 0;
    int rc = real(context, port_num, twin ? 1 : gid_index, entry, flags, entry_size);
    if (rc == 0 && twin) {
        entry->gid_index = 0;
        entry->gid_type = IBV_GID_TYPE_ROCE_V1;
    }
    return rc;
}
