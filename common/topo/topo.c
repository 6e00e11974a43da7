/* topo.c - PCIe placement of RDMA devices and GPUs from sysfs/procfs.
 * See topo.h for what this module owns. */
#include "topo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 32 /* PCIe hierarchy depth we accept */

struct pci_chain {
    char host[32];                    /* "pci0000:00" */
    char bdf[MAX_DEPTH][GDR_BDF_LEN]; /* root port first, device last */
    int depth;
};

static const char *root_or(const char *r, const char *def)
{
    return (r && *r) ? r : def;
}

/* snprintf that returns -ENAMETOOLONG on truncation. Names and paths here are
 * bounded by the kernel, so truncation means a bogus tree: the later open()
 * fails and is reported. */
__attribute__((format(printf, 3, 4))) static int fmt(char *out, size_t len, const char *f, ...)
{
    va_list ap;
    int n;

    va_start(ap, f);
    n = vsnprintf(out, len, f, ap);
    va_end(ap);
    return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

#define set_err(err, errlen, ...)                                                                  \
    do {                                                                                           \
        if ((err) && (errlen))                                                                     \
            fmt((err), (errlen), __VA_ARGS__);                                                     \
    } while (0)

/* First line of a small sysfs/procfs file, newline stripped. */
int gdr_topo_read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    if (!fgets(buf, (int)len, f)) {
        fclose(f);
        buf[0] = '\0';
        return -EIO;
    }
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static bool path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* "dddd:bb:dd.f" (domain may be longer than 4 hex digits, e.g. VMD). */
static bool is_bdf(const char *s)
{
    size_t i = 0, n = 0;
    while (isxdigit((unsigned char)s[i]))
        i++, n++;
    if (n < 4 || s[i++] != ':')
        return false;
    if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]) || s[i + 2] != ':')
        return false;
    i += 3;
    if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]) || s[i + 2] != '.')
        return false;
    i += 3;
    return s[i] >= '0' && s[i] <= '7' && s[i + 1] == '\0';
}

/* Resolve sysfs_root/rel (a symlink into devices/) and return the path
 * relative to the resolved root, so captured trees behave like /sys. */
static int resolve_rel(const char *sysfs_root, const char *rel, char *out, size_t outlen)
{
    char path[PATH_MAX], real_root[PATH_MAX], real[PATH_MAX];
    fmt(path, sizeof(path), "%s/%s", sysfs_root, rel);
    if (!realpath(sysfs_root, real_root) || !realpath(path, real))
        return -errno;
    size_t rl = strlen(real_root);
    if (strcmp(real_root, "/") == 0)
        rl = 0;
    if (strncmp(real, real_root, rl) != 0 || real[rl] != '/')
        return -EXDEV; /* link leaves the tree: not a sysfs device path */
    fmt(out, outlen, "%s", real + rl + 1);
    return 0;
}

/* "devices/pci0000:00/0000:00:01.0/0000:01:00.0" -> chain. */
static int parse_chain(const char *rel, struct pci_chain *c)
{
    char buf[PATH_MAX];
    char *save = NULL, *tok;
    int i = 0;

    fmt(buf, sizeof(buf), "%s", rel);
    memset(c, 0, sizeof(*c));
    for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save), i++) {
        if (i == 0) {
            if (strcmp(tok, "devices") != 0)
                return -ENODEV;
        } else if (i == 1) {
            if (strncmp(tok, "pci", 3) != 0)
                return -ENODEV; /* virtual, platform, ...: not PCI */
            fmt(c->host, sizeof(c->host), "%s", tok);
        } else {
            if (!is_bdf(tok) || c->depth >= MAX_DEPTH)
                return -ENODEV;
            fmt(c->bdf[c->depth++], GDR_BDF_LEN, "%s", tok);
        }
    }
    return c->depth > 0 ? 0 : -ENODEV;
}

static int read_numa(const char *sysfs_root, const char *rel_dev)
{
    char path[PATH_MAX], buf[32];
    fmt(path, sizeof(path), "%s/%s/numa_node", sysfs_root, rel_dev);
    if (gdr_topo_read_line(path, buf, sizeof(buf)) != 0)
        return -1;
    return atoi(buf);
}

static void basename_of_link(const char *path, char *out, size_t outlen)
{
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *slash = strrchr(target, '/');
    fmt(out, outlen, "%s", slash ? slash + 1 : target);
}

int gdr_topo_ibdev_info(const char *sysfs_root, const char *ibdev, struct gdr_ibdev_info *out,
                        char *err, size_t errlen)
{
    char path[PATH_MAX], rel[PATH_MAX], devrel[PATH_MAX];
    struct pci_chain chain;
    const char *root = root_or(sysfs_root, "/sys");

    memset(out, 0, sizeof(*out));
    out->numa_node = -1;
    fmt(path, sizeof(path), "%s/class/infiniband/%s", root, ibdev);
    if (!path_exists(path)) {
        set_err(err, errlen, "no RDMA device %s under %s/class/infiniband", ibdev, root);
        return -ENOENT;
    }
    /* rxe publishes the netdev it is bound to as "parent". */
    fmt(path, sizeof(path), "%s/class/infiniband/%s/parent", root, ibdev);
    if (gdr_topo_read_line(path, out->parent_netdev, sizeof(out->parent_netdev)) == 0)
        out->software = true;

    /* Newer kernels register software devices under devices/virtual. */
    fmt(rel, sizeof(rel), "class/infiniband/%s", ibdev);
    if (resolve_rel(root, rel, devrel, sizeof(devrel)) == 0 &&
        strncmp(devrel, "devices/virtual/", 16) == 0)
        out->software = true;

    fmt(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
    if (resolve_rel(root, rel, devrel, sizeof(devrel)) != 0) {
        out->software = true; /* nothing behind it: no PCI function */
        return 0;
    }
    fmt(path, sizeof(path), "%s/%s/driver", root, devrel);
    basename_of_link(path, out->driver, sizeof(out->driver));
    if (strcmp(out->driver, "rdma_rxe") == 0 || strcmp(out->driver, "siw") == 0)
        out->software = true;
    if (parse_chain(devrel, &chain) != 0) {
        /* device link to a virtual netdev (veth, bridge): software */
        if (strncmp(devrel, "devices/virtual/", 16) == 0)
            out->software = true;
        return 0;
    }
    if (!out->software)
        fmt(out->pci_bdf, sizeof(out->pci_bdf), "%s", chain.bdf[chain.depth - 1]);
    out->numa_node = read_numa(root, devrel);
    return 0;
}

/* From the device dir rel up towards devices/: the first that has a
 * local_cpulist (a PCI function; a virtio or netdev child has none). */
static int locality_of(const char *root, const char *rel, char *cpulist, size_t len, int *node)
{
    char dev[PATH_MAX], path[PATH_MAX];
    if (resolve_rel(root, rel, dev, sizeof(dev)) != 0)
        return -ENOENT;
    for (int up = 0; up < 4 && strncmp(dev, "devices/", 8) == 0; up++) {
        fmt(path, sizeof(path), "%s/%s/local_cpulist", root, dev);
        if (gdr_topo_read_line(path, cpulist, len) == 0) {
            *node = read_numa(root, dev);
            return 0;
        }
        char *slash = strrchr(dev, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    cpulist[0] = '\0';
    return -ENOENT;
}

/* A VLAN or bond netdev's lower device (the first lower_* link). */
static int lower_netdev(const char *root, const char *netdev, char *out, size_t len)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/class/net/%s", root, netdev);
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    struct dirent *e;
    int rc = -ENOENT;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "lower_", 6) == 0) {
            rc = fmt(out, len, "%s", e->d_name + 6);
            break;
        }
    closedir(d);
    return rc;
}

int gdr_topo_ibdev_locality(const char *sysfs_root, const char *ibdev, char *cpulist, size_t len,
                            int *numa_node)
{
    const char *root = root_or(sysfs_root, "/sys");
    char rel[PATH_MAX], path[PATH_MAX], netdev[64], lower[64];
    *numa_node = -1;
    cpulist[0] = '\0';
    fmt(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
    if (locality_of(root, rel, cpulist, len, numa_node) == 0)
        return 0;
    /* rxe names its netdev in "parent"; others in the port's GID table. */
    fmt(path, sizeof(path), "%s/class/infiniband/%s/parent", root, ibdev);
    if (gdr_topo_read_line(path, netdev, sizeof(netdev)) != 0) {
        fmt(path, sizeof(path), "%s/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", root, ibdev);
        if (gdr_topo_read_line(path, netdev, sizeof(netdev)) != 0)
            return -ENOENT;
    }
    fmt(rel, sizeof(rel), "class/net/%s/device", netdev);
    if (locality_of(root, rel, cpulist, len, numa_node) == 0)
        return 0;
    if (lower_netdev(root, netdev, lower, sizeof(lower)) != 0)
        return -ENOENT;
    fmt(rel, sizeof(rel), "class/net/%s/device", lower);
    return locality_of(root, rel, cpulist, len, numa_node);
}

int gdr_topo_pci_numa(const char *sysfs_root, const char *bdf)
{
    char rel[PATH_MAX];
    if (fmt(rel, sizeof(rel), "bus/pci/devices/%s", bdf))
        return -1;
    return read_numa(root_or(sysfs_root, "/sys"), rel);
}

int gdr_topo_numa_online(const char *sysfs_root, char *nodelist, size_t len)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/devices/system/node/online", root_or(sysfs_root, "/sys"));
    return gdr_topo_read_line(path, nodelist, len);
}

int gdr_topo_node_cpus(const char *sysfs_root, int node, char *cpulist, size_t len)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", root_or(sysfs_root, "/sys"),
        node);
    return gdr_topo_read_line(path, cpulist, len);
}

bool gdr_topo_is_software(const char *sysfs_root, const char *ibdev)
{
    struct gdr_ibdev_info info;
    if (gdr_topo_ibdev_info(sysfs_root, ibdev, &info, NULL, 0) != 0)
        return false;
    return info.software;
}

/* Elements that are the strings themselves (char name[N] arrays): device
 * names and PCI addresses. */
static int cmp_chars(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int gdr_topo_list_ibdevs(const char *sysfs_root, char (*names)[64], size_t max, size_t *n)
{
    char path[PATH_MAX];
    struct dirent *de;
    DIR *d;

    *n = 0;
    fmt(path, sizeof(path), "%s/class/infiniband", root_or(sysfs_root, "/sys"));
    d = opendir(path);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || *n >= max)
            continue;
        fmt(names[(*n)++], 64, "%s", de->d_name);
    }
    closedir(d);
    qsort(names, *n, 64, cmp_chars);
    return 0;
}

int gdr_topo_list_gpus(const char *sysfs_root, char (*bdfs)[GDR_BDF_LEN], size_t max, size_t *n)
{
    char path[PATH_MAX], buf[32];
    const char *root = root_or(sysfs_root, "/sys");
    struct dirent *de;
    DIR *d;

    *n = 0;
    fmt(path, sizeof(path), "%s/bus/pci/devices", root);
    d = opendir(path);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while ((de = readdir(d)) != NULL) {
        unsigned long vendor, cls;
        if (!is_bdf(de->d_name) || *n >= max)
            continue;
        fmt(path, sizeof(path), "%s/bus/pci/devices/%s/vendor", root, de->d_name);
        if (gdr_topo_read_line(path, buf, sizeof(buf)) != 0)
            continue;
        vendor = strtoul(buf, NULL, 16);
        fmt(path, sizeof(path), "%s/bus/pci/devices/%s/class", root, de->d_name);
        if (gdr_topo_read_line(path, buf, sizeof(buf)) != 0)
            continue;
        cls = strtoul(buf, NULL, 16);
        /* 0x0300xx VGA controller, 0x0302xx 3D controller (datacenter parts) */
        if (vendor != 0x10de || ((cls >> 8) != 0x0300 && (cls >> 8) != 0x0302))
            continue;
        fmt(bdfs[(*n)++], GDR_BDF_LEN, "%s", de->d_name);
    }
    closedir(d);
    qsort(bdfs, *n, GDR_BDF_LEN, cmp_chars);
    return 0;
}

/* Both chains, plus NUMA nodes; fails for software devices (-ENODEV). */
static int pair_chains(const char *root, const char *ibdev, const char *gpu_bdf,
                       struct pci_chain *nic, struct pci_chain *gpu, int *nic_numa, int *gpu_numa,
                       char *err, size_t errlen)
{
    char rel[PATH_MAX], devrel[PATH_MAX];
    int rc;

    fmt(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
    rc = resolve_rel(root, rel, devrel, sizeof(devrel));
    if (rc == 0)
        rc = parse_chain(devrel, nic);
    if (rc != 0) {
        set_err(err, errlen, "RDMA device %s has no PCI device under %s", ibdev, root);
        return rc;
    }
    *nic_numa = read_numa(root, devrel);

    fmt(rel, sizeof(rel), "bus/pci/devices/%s", gpu_bdf);
    rc = resolve_rel(root, rel, devrel, sizeof(devrel));
    if (rc == 0)
        rc = parse_chain(devrel, gpu);
    if (rc != 0) {
        set_err(err, errlen, "GPU %s not found under %s/bus/pci/devices", gpu_bdf, root);
        return rc == -ENODEV ? -ENODEV : -ENOENT;
    }
    *gpu_numa = read_numa(root, devrel);
    return 0;
}

/* Number of bridges both devices sit below (endpoints excluded). */
static int common_bridges(const struct pci_chain *a, const struct pci_chain *b)
{
    int k = 0;
    if (strcmp(a->host, b->host) != 0)
        return -1;
    while (k < a->depth - 1 && k < b->depth - 1 && strcmp(a->bdf[k], b->bdf[k]) == 0)
        k++;
    return k;
}

int gdr_topo_path_class(const char *sysfs_root, const char *ibdev, const char *gpu_bdf,
                        enum gdr_path_class *out, char *err, size_t errlen)
{
    const char *root = root_or(sysfs_root, "/sys");
    struct gdr_ibdev_info info;
    struct pci_chain nic, gpu;
    int nic_numa, gpu_numa, k, rc;

    *out = GDR_PATH_UNKNOWN;
    rc = gdr_topo_ibdev_info(root, ibdev, &info, err, errlen);
    if (rc != 0)
        return rc;
    if (info.software) {
        *out = GDR_PATH_NONE;
        return 0;
    }
    rc = pair_chains(root, ibdev, gpu_bdf, &nic, &gpu, &nic_numa, &gpu_numa, err, errlen);
    if (rc != 0)
        return rc;
    if (strcmp(nic.host, gpu.host) == 0 &&
        strcmp(nic.bdf[nic.depth - 1], gpu.bdf[gpu.depth - 1]) == 0) {
        *out = GDR_PATH_LOC;
        return 0;
    }
    k = common_bridges(&nic, &gpu);
    if (k < 0) {
        /* different host bridges: NUMA decides; -1 (unknown) counts as same */
        bool apart = nic_numa >= 0 && gpu_numa >= 0 && nic_numa != gpu_numa;
        *out = apart ? GDR_PATH_SYS : GDR_PATH_NODE;
    } else if (k == 0) {
        *out = GDR_PATH_PHB;
    } else {
        /*
		 * Bridges traversed: each side's below the lowest common one,
		 * plus that one. One switch = downstream port, upstream port,
		 * downstream port = 3; more means several switches.
		 */
        int hops = (nic.depth - 1 - k) + (gpu.depth - 1 - k) + 1;
        *out = hops <= 3 ? GDR_PATH_PIX : GDR_PATH_PXB;
    }
    return 0;
}

int gdr_topo_path_bridges(const char *sysfs_root, const char *ibdev, const char *gpu_bdf,
                          char (*bdfs)[GDR_BDF_LEN], size_t max, size_t *n, char *err,
                          size_t errlen)
{
    const char *root = root_or(sysfs_root, "/sys");
    struct pci_chain nic, gpu;
    int nic_numa, gpu_numa, k, i, rc;

    *n = 0;
    if (gdr_topo_is_software(root, ibdev))
        return 0;
    rc = pair_chains(root, ibdev, gpu_bdf, &nic, &gpu, &nic_numa, &gpu_numa, err, errlen);
    if (rc != 0)
        return rc;
    k = common_bridges(&nic, &gpu);
    if (k < 0)
        k = 0;
    for (i = nic.depth - 2; i >= k && *n < max; i--)
        fmt(bdfs[(*n)++], GDR_BDF_LEN, "%s", nic.bdf[i]);
    if (k > 0 && *n < max)
        fmt(bdfs[(*n)++], GDR_BDF_LEN, "%s", nic.bdf[k - 1]);
    for (i = k; i <= gpu.depth - 2 && *n < max; i++)
        fmt(bdfs[(*n)++], GDR_BDF_LEN, "%s", gpu.bdf[i]);
    return 0;
}

const char *gdr_path_class_name(enum gdr_path_class c)
{
    switch (c) {
    case GDR_PATH_LOC: return "LOC";
    case GDR_PATH_PIX: return "PIX";
    case GDR_PATH_PXB: return "PXB";
    case GDR_PATH_P2C: return "P2C";
    case GDR_PATH_PHB: return "PHB";
    case GDR_PATH_NODE: return "NODE";
    case GDR_PATH_SYS: return "SYS";
    case GDR_PATH_NONE: return "NONE";
    case GDR_PATH_UNKNOWN: break;
    }
    return "UNKNOWN";
}

/* First "N.N[.N]" token in s, e.g. the driver version in the NVRM line. */
static void find_version(const char *s, char *out, size_t outlen)
{
    out[0] = '\0';
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > s && !isspace((unsigned char)p[-1])))
            continue;
        size_t n = strspn(p, "0123456789.");
        if (n < 3 || !memchr(p, '.', n) || (p[n] && !isspace((unsigned char)p[n])))
            continue;
        fmt(out, outlen, "%.*s", (int)n, p);
        return;
    }
}

int gdr_topo_ibdev_fw(const char *sysfs_root, const char *ibdev, char *out, size_t len)
{
    char path[PATH_MAX];
    out[0] = '\0';
    int rc = fmt(path, sizeof(path), "%s/class/infiniband/%s/fw_ver", root_or(sysfs_root, "/sys"),
                 ibdev);
    if (rc == 0)
        rc = gdr_topo_read_line(path, out, len);
    if (rc)
        out[0] = '\0';
    return rc;
}

int gdr_topo_reg_caps(const char *sysfs_root, const char *procfs_root, struct gdr_reg_caps *out)
{
    const char *sys = root_or(sysfs_root, "/sys");
    const char *proc = root_or(procfs_root, "/proc");
    char path[PATH_MAX], line[512];
    int maj, min;

    memset(out, 0, sizeof(*out));
    out->kernel_dmabuf = -1;
    out->nvidia_open = -1;
    out->driver_major = -1;

    fmt(path, sizeof(path), "%s/module/nvidia_peermem", sys);
    out->peermem = path_exists(path);
    fmt(path, sizeof(path), "%s/module/nv_peer_mem", sys);
    out->peermem |= path_exists(path);

    fmt(path, sizeof(path), "%s/sys/kernel/osrelease", proc);
    if (gdr_topo_read_line(path, out->kernel, sizeof(out->kernel)) == 0 &&
        sscanf(out->kernel, "%d.%d", &maj, &min) == 2)
        out->kernel_dmabuf = maj > 5 || (maj == 5 && min >= 12);

    fmt(path, sizeof(path), "%s/driver/nvidia/version", proc);
    if (gdr_topo_read_line(path, line, sizeof(line)) == 0) {
        out->nvidia_loaded = 1;
        out->nvidia_open = strstr(line, "Open Kernel Module") != NULL;
        find_version(line, out->nvidia_version, sizeof(out->nvidia_version));
    } else {
        fmt(path, sizeof(path), "%s/module/nvidia/version", sys);
        if (gdr_topo_read_line(path, out->nvidia_version, sizeof(out->nvidia_version)) == 0)
            out->nvidia_loaded = 1;
        else {
            fmt(path, sizeof(path), "%s/module/nvidia", sys);
            out->nvidia_loaded = path_exists(path);
        }
    }
    if (out->nvidia_version[0])
        out->driver_major = atoi(out->nvidia_version);
    return 0;
}

bool gdr_reg_caps_dmabuf(const struct gdr_reg_caps *c)
{
    /* dma-buf export of GPU memory arrived with the open module in r515 */
    return c->kernel_dmabuf == 1 && c->nvidia_open == 1 &&
           (c->driver_major < 0 || c->driver_major >= 515);
}

int gdr_nccl_gdr_level_parse(const char *s, enum gdr_path_class *out)
{
    static const struct {
        const char *name;
        enum gdr_path_class c;
    } names[] = {
        {"LOC", GDR_PATH_LOC}, {"PIX", GDR_PATH_PIX}, {"PXB", GDR_PATH_PXB},
        {"P2C", GDR_PATH_P2C}, {"PHB", GDR_PATH_PHB}, {"SYS", GDR_PATH_SYS},
    };
    char *end;
    long v;

    if (!s || !*s)
        return -EINVAL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].c;
            return 0;
        }
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0)
        return -EINVAL;
    switch (v) {
    case 0: *out = GDR_PATH_LOC; break;
    case 1: *out = GDR_PATH_PIX; break;
    case 2: *out = GDR_PATH_PXB; break;
    case 3: *out = GDR_PATH_PHB; break;
    default: *out = GDR_PATH_SYS; break; /* "greater than 4 ... SYS" */
    }
    return 0;
}

/* NCCL's path types (graph.h): NODE is inside NCCL's PHB ("same NUMA
 * node"); P2C lies between PXB and PHB. */
static int nccl_rank(enum gdr_path_class c)
{
    switch (c) {
    case GDR_PATH_LOC: return 0;
    case GDR_PATH_PIX: return 4;
    case GDR_PATH_PXB: return 5;
    case GDR_PATH_P2C: return 6;
    case GDR_PATH_PHB:
    case GDR_PATH_NODE: return 8;
    case GDR_PATH_SYS: return 9;
    default: return 100;
    }
}

bool gdr_nccl_gdr_used(enum gdr_path_class pair, enum gdr_path_class level)
{
    if (level == GDR_PATH_LOC || pair == GDR_PATH_NONE || pair == GDR_PATH_UNKNOWN)
        return false;
    return nccl_rank(pair) <= nccl_rank(level);
}

bool gdr_nccl_gdr_used_default(enum gdr_path_class pair, bool gdr_c2c)
{
    return gdr_nccl_gdr_used(pair, gdr_c2c ? GDR_PATH_P2C : GDR_NCCL_GDR_LEVEL_DEFAULT);
}
