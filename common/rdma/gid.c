#include "config.h"

#include "gid.h"

#include <linux/if_vlan.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool gdr_gid_is_zero(const uint8_t raw[16])
{
    static const uint8_t zero[16];
    return memcmp(raw, zero, 16) == 0;
}

bool gdr_gid_is_link_local(const uint8_t raw[16])
{
    return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

bool gdr_gid_is_ipv4(const uint8_t raw[16])
{
    return memcmp(raw, v4_prefix, sizeof(v4_prefix)) == 0;
}

const char *gdr_gid_type_name(enum gdr_gid_type t)
{
    switch (t) {
    case GDR_GID_IB: return "IB";
    case GDR_GID_ROCE_V1: return "RoCEv1";
    case GDR_GID_ROCE_V2: return "RoCEv2";
    }
    return "?";
}

const char *gdr_gid_family(const uint8_t raw[16])
{
    return gdr_gid_is_ipv4(raw) ? "ipv4" : "ipv6";
}

/* Larger is better; each criterion outweighs all those after it (64-bit:
 * a 32-bit long, as on i386 and armhf, cannot hold 1 << 39). */
static int64_t score(const struct gdr_gid_entry *e, const struct gdr_gid_hint *h)
{
    int64_t s = 0;
    if (!gdr_gid_is_link_local(e->raw))
        s += INT64_C(1) << 39;
    if (h && h->have_source && memcmp(e->raw, h->source, 16) == 0)
        s += INT64_C(1) << 38;
    if (e->routes_to_peer)
        s += INT64_C(1) << 37;
    if (h && h->have_peer && gdr_gid_is_ipv4(e->raw) == h->peer_ipv4)
        s += INT64_C(1) << 36;
    if (e->type == GDR_GID_ROCE_V2)
        s += INT64_C(1) << 35;
    if (gdr_gid_is_ipv4(e->raw))
        s += INT64_C(1) << 34;
    return s - (e->index < 0 ? 0 : e->index > 65535 ? 65535 : e->index);
}

int gdr_gid_choose(const struct gdr_gid_entry *t, size_t n, const struct gdr_gid_hint *hint)
{
    int best = -1;
    int64_t best_score = 0;
    for (size_t i = 0; i < n; i++) {
        if (gdr_gid_is_zero(t[i].raw))
            continue;
        int64_t sc = score(&t[i], hint);
        if (best < 0 || sc > best_score) {
            best = (int)i;
            best_score = sc;
        }
    }
    return best;
}

bool gdr_gid_from_sockaddr(const struct sockaddr *sa, uint8_t raw[16])
{
    if (sa->sa_family == AF_INET) {
        memcpy(raw, v4_prefix, sizeof(v4_prefix));
        memcpy(raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

bool gdr_gid_netdev_routes(const char *netdev, const struct sockaddr *peer)
{
    if (!netdev[0] || (peer->sa_family != AF_INET && peer->sa_family != AF_INET6))
        return false;
    int fd = socket(peer->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    socklen_t len =
        peer->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    /* A port is needed to connect; the peer's control port will do. */
    bool ok = setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, netdev, (socklen_t)strlen(netdev)) == 0 &&
              connect(fd, peer, len) == 0;
    close(fd);
    return ok;
}

int gdr_gid_netdev_vlan(const char *netdev)
{
    struct vlan_ioctl_args a = {.cmd = GET_VLAN_VID_CMD};
    snprintf(a.device1, sizeof(a.device1), "%s", netdev);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int rc = ioctl(fd, SIOCGIFVLAN, &a);
    close(fd);
    return rc == 0 ? a.u.VID : -1;
}
