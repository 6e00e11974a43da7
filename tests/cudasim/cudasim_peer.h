/* cudasim_peer.h - what the double's nvidia_peermem stand-in (peermem.c)
 * asks its core (cudasim.c).  Hidden: not part of the library's exports. */
#ifndef CUDASIM_PEER_H
#define CUDASIM_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CUDASIM_HIDDEN __attribute__((visibility("hidden")))

enum cudasim_range {
    CUDASIM_RANGE_HOST,    /* no byte in the device range: not ours */
    CUDASIM_RANGE_DEVICE,  /* inside one live device allocation */
    CUDASIM_RANGE_BAD,     /* touches the device range, not inside one allocation */
    CUDASIM_RANGE_NO_RDMA, /* VMM memory created without gpuDirectRDMACapable */
};

/* Classify [p, p+n); for CUDASIM_RANGE_DEVICE also where the same bytes
 * are mapped read-write (*alias). */
CUDASIM_HIDDEN enum cudasim_range cudasim_nic_view(uintptr_t p, size_t n, uintptr_t *alias);

/* A dma-buf fd the double exported (cuMemGetHandleForAddressRange): 1 with
 * [offset, offset+length) of it at device address *addr, its bytes at
 * *alias, and whether it was exported with the PCIe mapping; -1 an export
 * of ours that does not hold the range (or whose memory is gone); 0 not
 * ours. */
CUDASIM_HIDDEN int cudasim_dmabuf_view(int fd, uint64_t offset, size_t length, uintptr_t *addr,
                                       uintptr_t *alias, bool *pcie);

/* The alias of device address p (in a device partition), or 0. */
CUDASIM_HIDDEN uintptr_t cudasim_alias_of(uintptr_t p);

/* GDR_CUDASIM_TRACE level, and a "cudasim: ..." line on stderr. */
CUDASIM_HIDDEN int cudasim_trace_level(void);
CUDASIM_HIDDEN void cudasim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
