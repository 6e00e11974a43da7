/* pcie.c - PCIe link state from sysfs and config space (see pcie.h). */
#include "pcie.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *root_or(const char *r)
{
    return r && *r ? r : "/sys";
}

static int read_attr(const char *root, const char *bdf, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", root, bdf, name) >=
        sizeof(path))
        return -ENAMETOOLONG;
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int rc = fgets(buf, (int)len, f) ? 0 : -EIO;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return rc;
}

/* "16.0 GT/s PCIe", "8 GT/s", "Unknown" -> GT/s or 0. */
static double attr_gts(const char *root, const char *bdf, const char *name)
{
    char buf[64];
    if (read_attr(root, bdf, name, buf, sizeof(buf)))
        return 0;
    char *end;
    double v = strtod(buf, &end);
    return end != buf && v > 0 && v < 1000 ? v : 0;
}

static unsigned attr_uint(const char *root, const char *bdf, const char *name, int base)
{
    char buf[64];
    if (read_attr(root, bdf, name, buf, sizeof(buf)))
        return 0;
    char *end;
    unsigned long v = strtoul(buf, &end, base);
    return end != buf && v < 1u << 24 ? (unsigned)v : 0;
}

int gdr_topo_pci_config(const char *sysfs_root, const char *bdf, uint8_t *buf, size_t len,
                        size_t *got)
{
    char path[PATH_MAX];
    *got = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root_or(sysfs_root),
                         bdf) >= sizeof(path))
        return -ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    while (*got < len) {
        ssize_t n = read(fd, buf + *got, len - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *got += (size_t)n;
    }
    close(fd);
    return 0;
}

static unsigned rd16(const uint8_t *c, size_t off)
{
    return (unsigned)c[off] | (unsigned)c[off + 1] << 8;
}

static uint32_t rd32(const uint8_t *c, size_t off)
{
    return (uint32_t)rd16(c, off) | (uint32_t)rd16(c, off + 2) << 16;
}

int gdr_pci_find_cap(const uint8_t *cfg, size_t len, unsigned id)
{
    if (len < 0x40 || !(rd16(cfg, 0x06) & 0x10)) /* Status: capabilities list */
        return -1;
    size_t off = cfg[0x34] & ~3u;
    for (int hops = 0; off >= 0x40 && off + 2 <= len && hops < 48; hops++) {
        if (cfg[off] == id)
            return (int)off;
        off = cfg[off + 1] & ~3u;
    }
    return -1;
}

int gdr_pci_find_ext_cap(const uint8_t *cfg, size_t len, unsigned id)
{
    size_t off = 0x100;
    for (int hops = 0; off >= 0x100 && off + 4 <= len && hops < 960; hops++) {
        uint32_t h = rd32(cfg, off);
        if (h == 0 || h == 0xffffffffu)
            return -1;
        if ((h & 0xffff) == id)
            return (int)off;
        off = (h >> 20) & ~3u;
    }
    return -1;
}

/* What config space adds: the PCIe capability's sizes and enable bits,
 * ATS and ACS. Left unknown where the readable part stops. */
static void read_config(const char *root, struct gdr_pcie_link *l)
{
    uint8_t cfg[4096];
    if (gdr_topo_pci_config(root, l->bdf, cfg, sizeof(cfg), &l->config_bytes))
        return;
    int exp = gdr_pci_find_cap(cfg, l->config_bytes, GDR_PCI_CAP_EXP);
    if (exp >= 0 && (size_t)exp + 0x14 <= l->config_bytes) {
        unsigned caps = rd16(cfg, exp + 0x02), devcap = rd16(cfg, exp + 0x04);
        unsigned devctl = rd16(cfg, exp + 0x08);
        l->type = (int)(caps >> 4 & 0xf);
        l->mps_supported = 128u << (devcap & 7);
        l->mps = 128u << (devctl >> 5 & 7);
        l->mrrs = 128u << (devctl >> 12 & 7);
        l->relaxed_ordering = devctl >> 4 & 1;
    }
    if (l->config_bytes < 0x104)
        return; /* extended space unreadable (not root): ATS and ACS unknown */
    int ats = gdr_pci_find_ext_cap(cfg, l->config_bytes, GDR_PCI_EXT_CAP_ATS);
    l->ats = ats >= 0 && (size_t)ats + 8 <= l->config_bytes ? (int)(rd16(cfg, ats + 6) >> 15) : 0;
    int acs = gdr_pci_find_ext_cap(cfg, l->config_bytes, GDR_PCI_EXT_CAP_ACS);
    if (acs >= 0 && (size_t)acs + 8 <= l->config_bytes)
        l->acs_ctrl = (int)rd16(cfg, acs + 6);
}

int gdr_topo_pcie_link(const char *sysfs_root, const char *bdf, struct gdr_pcie_link *out)
{
    const char *root = root_or(sysfs_root);
    memset(out, 0, sizeof(*out));
    snprintf(out->bdf, sizeof(out->bdf), "%s", bdf);
    out->type = GDR_PCIE_TYPE_UNKNOWN;
    out->relaxed_ordering = out->ats = out->acs_ctrl = -1;
    char buf[64];
    int rc = read_attr(root, bdf, "class", buf, sizeof(buf));
    if (rc)
        return rc;
    out->bridge = strtoul(buf, NULL, 16) >> 8 == 0x0604;
    out->cur_gts = attr_gts(root, bdf, "current_link_speed");
    out->max_gts = attr_gts(root, bdf, "max_link_speed");
    out->cur_width = attr_uint(root, bdf, "current_link_width", 10);
    out->max_width = attr_uint(root, bdf, "max_link_width", 10);
    read_config(root, out);
    return 0;
}

int gdr_topo_pci_upstream(const char *sysfs_root, const char *bdf, char (*bdfs)[GDR_BDF_LEN],
                          size_t max, size_t *n)
{
    char path[PATH_MAX], real[PATH_MAX];
    *n = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root_or(sysfs_root), bdf) >=
            sizeof(path) ||
        !realpath(path, real))
        return -errno;
    /* .../pci0000:00/0000:00:01.0/0000:01:00.0/<bdf>: the parents are the
     * path's components that look like bus addresses. */
    char *slash;
    while ((slash = strrchr(real, '/')) != NULL && *n < max) {
        *slash = '\0';
        const char *name = strrchr(real, '/');
        name = name ? name + 1 : real;
        if (strchr(name, ':') == NULL || strncmp(name, "pci", 3) == 0 ||
            strlen(name) >= GDR_BDF_LEN)
            break;
        memcpy(bdfs[(*n)++], name, strlen(name) + 1);
    }
    return 0;
}

bool gdr_pcie_below_max(const struct gdr_pcie_link *dev, const struct gdr_pcie_link *upstream,
                        bool *speed, bool *width)
{
    double max_gts = dev->max_gts;
    unsigned max_width = dev->max_width;
    if (upstream && upstream->max_gts > 0 && upstream->max_gts < max_gts)
        max_gts = upstream->max_gts;
    if (upstream && upstream->max_width && upstream->max_width < max_width)
        max_width = upstream->max_width;
    *speed = dev->cur_gts > 0 && max_gts > 0 && dev->cur_gts + 0.01 < max_gts;
    *width = dev->cur_width && max_width && dev->cur_width < max_width;
    return *speed || *width;
}

const char *gdr_pcie_role_name(enum gdr_pcie_role r)
{
    return r == GDR_PCIE_NIC ? "nic" : r == GDR_PCIE_GPU ? "gpu" : "bridge";
}

int gdr_topo_pcie_walk(const char *sysfs_root, const char *bdf, enum gdr_pcie_role role,
                       struct gdr_pcie_hop *hops, size_t max, size_t *n)
{
    char up[32][GDR_BDF_LEN];
    size_t nup = 0;
    *n = 0;
    if (!max)
        return -EINVAL;
    int rc = gdr_topo_pci_upstream(sysfs_root, bdf, up, 32, &nup);
    if (rc)
        return rc;
    for (size_t i = 0; i <= nup && *n < max; i++) {
        struct gdr_pcie_hop *h = &hops[(*n)++];
        memset(h, 0, sizeof(*h));
        rc = gdr_topo_pcie_link(sysfs_root, i ? up[i - 1] : bdf, &h->link);
        if (rc)
            return rc;
        h->role = i ? GDR_PCIE_BRIDGE : role;
    }
    /* up[nup - 1] is the root port; counted from it, odd positions are
     * switch upstream ports. */
    for (size_t i = 0; i < *n; i++) {
        struct gdr_pcie_hop *h = &hops[i];
        size_t from_root = nup - i; /* the device itself: nup */
        int type = h->link.type;
        if (i == 0)
            h->judged = true;
        else if (type != GDR_PCIE_TYPE_UNKNOWN)
            h->judged = type == GDR_PCIE_TYPE_UPSTREAM;
        else
            h->judged = from_root % 2 == 1;
        if (!h->judged)
            continue;
        const struct gdr_pcie_link *above = i + 1 < *n ? &hops[i + 1].link : NULL;
        bool speed, width;
        h->below_max = gdr_pcie_below_max(&h->link, above, &speed, &width);
        h->expect_gts = h->link.max_gts;
        h->expect_width = h->link.max_width;
        if (above && above->max_gts > 0 && above->max_gts < h->expect_gts)
            h->expect_gts = above->max_gts;
        if (above && above->max_width && above->max_width < h->expect_width)
            h->expect_width = above->max_width;
    }
    return 0;
}

const char *gdr_pcie_gen_name(double gts)
{
    static const struct {
        double gts;
        const char *name;
    } gens[] = {{2.5, "Gen1"}, {5, "Gen2"}, {8, "Gen3"}, {16, "Gen4"}, {32, "Gen5"}, {64, "Gen6"}};
    for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
        if (gts > gens[i].gts - 0.01 && gts < gens[i].gts + 0.01)
            return gens[i].name;
    return "Gen?";
}
