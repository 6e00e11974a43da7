/* cudasim_peer.h - what the double's nvidia_peermem stand-in (peermem.c)
 * asks its core (cudasim.c).  Hidden: not part of the library's exports. */
#ifndef CUDASIM_PEER_H
#define CUDASIM_PEER_H

#include <stddef.h>
#include <stdint.h>

#define CUDASIM_HIDDEN __attribute__((visibility("hidden")))

enum cudasim_range {
    CUDASIM_RANGE_HOST,   /* no byte in the device range: not ours */
    CUDASIM_RANGE_DEVICE, /* inside one live device allocation */
    CUDASIM_RANGE_BAD,    /* touches the device range, not inside one allocation */
};

/* Classify [p, p+n); for CUDASIM_RANGE_DEVICE also where the same bytes
 * are mapped read-write (*alias). */
CUDASIM_HIDDEN enum cudasim_range cudasim_nic_view(uintptr_t p, size_t n, uintptr_t *alias);

/* The alias of device address p (in a device partition), or 0. */
CUDASIM_HIDDEN uintptr_t cudasim_alias_of(uintptr_t p);

/* GDR_CUDASIM_TRACE level, and a "cudasim: ..." line on stderr. */
CUDASIM_HIDDEN int cudasim_trace_level(void);
CUDASIM_HIDDEN void cudasim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
