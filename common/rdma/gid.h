/* gid.h - which GID of a RoCE port an end uses, and what it says about the
 * path: the address family, the netdev and its VLAN.
 *
 * The choice is a pure function over the port's table (gdr_gid_choose), so
 * unit tests hand it tables; the system facts it weighs (which netdev
 * routes to the peer, the VLAN of a netdev) are read by the functions below
 * it. Link-local GIDs (fe80::/10, what every RoCE port has from its MAC)
 * do not route across an L3 fabric: they are chosen only when nothing else
 * is there. */
#ifndef GDR_GID_H
#define GDR_GID_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum gdr_gid_type { GDR_GID_IB, GDR_GID_ROCE_V1, GDR_GID_ROCE_V2 };

struct gdr_gid_entry {
    int index;
    uint8_t raw[16];
    enum gdr_gid_type type;
    char netdev[IF_NAMESIZE]; /* "" when the GID has none (InfiniBand) */
    int vlan;                 /* VLAN id of the netdev; -1 none */
    bool routes_to_peer;      /* the netdev has a route to the peer's address */
};

/* What the control channel tells about the path to the peer. */
struct gdr_gid_hint {
    bool have_source;   /* the local address the kernel sends to the peer from */
    uint8_t source[16]; /* in GID form (IPv4 as ::ffff:a.b.c.d) */
    bool have_peer;
    bool peer_ipv4; /* the peer's control address is IPv4 */
};

bool gdr_gid_is_zero(const uint8_t raw[16]);
bool gdr_gid_is_link_local(const uint8_t raw[16]);
bool gdr_gid_is_ipv4(const uint8_t raw[16]);
const char *gdr_gid_type_name(enum gdr_gid_type t);
/* "ipv4" or "ipv6" (an InfiniBand GID is IPv6-shaped). */
const char *gdr_gid_family(const uint8_t raw[16]);

/* The position in t of the GID to use (-1 when t has no usable entry).
 * Empty entries never; a link-local one only when no other is there. Among the rest, in order: the
 * GID that holds the control channel's own source address, one whose
 * netdev routes to the peer, the peer's address family, RoCEv2 before v1,
 * IPv4 before IPv6, the lowest index. hint may be NULL (no peer yet). */
int gdr_gid_choose(const struct gdr_gid_entry *t, size_t n, const struct gdr_gid_hint *hint);

/* A socket address in GID form (IPv4 mapped); false for other families. */
bool gdr_gid_from_sockaddr(const struct sockaddr *sa, uint8_t raw[16]);
/* Whether the kernel has a route to peer through netdev (a datagram
 * socket bound to the device connects; nothing is sent). */
bool gdr_gid_netdev_routes(const char *netdev, const struct sockaddr *peer);
/* The VLAN id of a netdev, -1 when it is not a VLAN device. */
int gdr_gid_netdev_vlan(const char *netdev);

#endif
