/* check_ports: RDMA port state, link layer, rate and netdev MTU. */
#include "doctor.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RoCE needs netdev MTU >= 4096 + headers for a 4096-byte RoCE MTU. */
#define ROCE_FULL_MTU 4200

/* The netdev that carries a RoCE/rxe port, "" if none found. */
static void port_netdev(const struct gdr_doctor_ctx *ctx, const char *dev, int port,
                        const struct gdr_ibdev_info *info, char *out, size_t len)
{
    char rel[PATH_MAX], path[PATH_MAX];
    struct dirent *de;
    DIR *d;

    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", dev, port);
    if (gdr_doctor_read_line(ctx->sysfs, rel, out, len) == 0 && out[0])
        return;
    if (info->parent_netdev[0]) {
        snprintf(out, len, "%s", info->parent_netdev);
        return;
    }
    out[0] = '\0';
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", ctx->sysfs, dev);
    d = opendir(path);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.') {
            snprintf(out, len, "%.63s", de->d_name);
            break;
        }
    closedir(d);
}

/* "4: ACTIVE" -> "ACTIVE" */
static const char *after_colon(const char *s)
{
    const char *p = strchr(s, ':');
    if (!p)
        return s;
    for (p++; *p == ' '; p++)
        ;
    return p;
}

static int check_port(struct gdr_doctor_ctx *ctx, const char *dev, int port,
                      const struct gdr_ibdev_info *info, cJSON *jports)
{
    char rel[PATH_MAX], state[64] = "", phys[64] = "", ll[64] = "", rate[96] = "";
    char netdev[64], mtu_s[32] = "", subject[96];
    int mtu = -1;
    double gbps = 0;
    cJSON *jp = cJSON_CreateObject();

    if (!jp)
        return -ENOMEM;
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/state", dev, port);
    gdr_doctor_read_line(ctx->sysfs, rel, state, sizeof(state));
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/phys_state", dev, port);
    gdr_doctor_read_line(ctx->sysfs, rel, phys, sizeof(phys));
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/link_layer", dev, port);
    gdr_doctor_read_line(ctx->sysfs, rel, ll, sizeof(ll));
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/rate", dev, port);
    gdr_doctor_read_line(ctx->sysfs, rel, rate, sizeof(rate));
    sscanf(rate, "%lf", &gbps);
    port_netdev(ctx, dev, port, info, netdev, sizeof(netdev));
    if (netdev[0]) {
        snprintf(rel, sizeof(rel), "class/net/%s/mtu", netdev);
        if (gdr_doctor_read_line(ctx->sysfs, rel, mtu_s, sizeof(mtu_s)) == 0 && mtu_s[0])
            mtu = atoi(mtu_s);
    }

    cJSON_AddNumberToObject(jp, "port", port);
    cJSON_AddStringToObject(jp, "state", after_colon(state));
    cJSON_AddStringToObject(jp, "phys_state", after_colon(phys));
    cJSON_AddStringToObject(jp, "link_layer", ll);
    cJSON_AddStringToObject(jp, "rate", rate);
    cJSON_AddNumberToObject(jp, "rate_bytes_per_s", gbps * 1e9 / 8);
    if (netdev[0])
        cJSON_AddStringToObject(jp, "netdev", netdev);
    else
        cJSON_AddNullToObject(jp, "netdev");
    if (mtu > 0)
        cJSON_AddNumberToObject(jp, "netdev_mtu", mtu);
    else
        cJSON_AddNullToObject(jp, "netdev_mtu");
    cJSON_AddItemToArray(jports, jp);

    snprintf(subject, sizeof(subject), "%s/%d", dev, port);
    if (!state[0])
        return gdr_doctor_add(ctx, "port", subject, GDR_DOCTOR_UNKNOWN,
                              "check that the ib_core/provider modules are loaded",
                              "no state file under class/infiniband/%s/ports/%d", dev, port);
    if (strcmp(after_colon(state), "ACTIVE") != 0)
        return gdr_doctor_add(
            ctx, "port", subject, GDR_DOCTOR_FAIL,
            strcmp(ll, "Ethernet") == 0
                ? "bring the netdev up (ip link set DEV up) and check cable and switch port"
                : "check cable and switch port, and that a subnet manager (opensm/UFM) runs",
            "%s (%s), %s, %s", after_colon(state), after_colon(phys), ll,
            rate[0] ? rate : "rate unknown");
    if (strcmp(ll, "Ethernet") == 0 && mtu > 0 && mtu < ROCE_FULL_MTU)
        return gdr_doctor_add(
            ctx, "port", subject, GDR_DOCTOR_WARN,
            "raise the MTU on the netdev and the switch (ip link set DEV mtu 9000)",
            "ACTIVE, Ethernet (RoCE) on %s, %s, netdev MTU %d limits RoCE MTU below 4096", netdev,
            rate, mtu);
    if (mtu > 0)
        return gdr_doctor_add(ctx, "port", subject, GDR_DOCTOR_PASS, NULL,
                              "ACTIVE, %s on %s, %s, netdev MTU %d", ll, netdev, rate, mtu);
    return gdr_doctor_add(ctx, "port", subject, GDR_DOCTOR_PASS, NULL, "ACTIVE, %s, %s%s", ll, rate,
                          strcmp(ll, "InfiniBand") == 0 ? " (IB MTU: ibv_devinfo active_mtu)" : "");
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int gdr_doctor_check_ports(struct gdr_doctor_ctx *ctx)
{
    cJSON *jdevs = cJSON_AddArrayToObject(ctx->facts, "rdma_devices");
    if (!jdevs)
        return -ENOMEM;
    for (size_t i = 0; i < ctx->n_ibdevs; i++) {
        const char *dev = ctx->ibdevs[i];
        struct gdr_ibdev_info info;
        char path[PATH_MAX], err[256];
        int ports[64], np = 0, rc;
        struct dirent *de;
        DIR *d;
        cJSON *jd = cJSON_CreateObject(), *jports;

        if (!jd)
            return -ENOMEM;
        cJSON_AddItemToArray(jdevs, jd);
        cJSON_AddStringToObject(jd, "name", dev);
        rc = gdr_topo_ibdev_info(ctx->sysfs, dev, &info, err, sizeof(err));
        if (rc != 0) {
            gdr_doctor_add(ctx, "device", dev, GDR_DOCTOR_UNKNOWN, NULL, "%s", err);
            continue;
        }
        cJSON_AddBoolToObject(jd, "software", info.software);
        if (info.pci_bdf[0])
            cJSON_AddStringToObject(jd, "pci", info.pci_bdf);
        else
            cJSON_AddNullToObject(jd, "pci");
        cJSON_AddStringToObject(jd, "driver", info.driver);
        cJSON_AddNumberToObject(jd, "numa_node", info.numa_node);
        if (info.parent_netdev[0])
            cJSON_AddStringToObject(jd, "parent_netdev", info.parent_netdev);
        if (info.software)
            gdr_doctor_add(
                ctx, "device", dev, GDR_DOCTOR_WARN,
                "GDR needs a hardware RDMA NIC; a software device is fine for functional tests",
                "software RDMA device (rxe/siw)%s%s: no PCIe path, no GPUDirect RDMA",
                info.parent_netdev[0] ? " on " : "", info.parent_netdev);
        else
            gdr_doctor_add(ctx, "device", dev, GDR_DOCTOR_PASS, NULL, "PCI %s, driver %s, NUMA %d",
                           info.pci_bdf[0] ? info.pci_bdf : "?", info.driver[0] ? info.driver : "?",
                           info.numa_node);

        jports = cJSON_AddArrayToObject(jd, "ports");
        if (!jports)
            return -ENOMEM;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", ctx->sysfs, dev);
        d = opendir(path);
        while (d && (de = readdir(d)) != NULL && np < 64)
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
                ports[np++] = atoi(de->d_name);
        if (d)
            closedir(d);
        if (np == 0)
            gdr_doctor_add(ctx, "port", dev, GDR_DOCTOR_UNKNOWN, NULL, "no ports listed under %s",
                           path);
        qsort(ports, (size_t)np, sizeof(int), cmp_int);
        for (int p = 0; p < np; p++) {
            rc = check_port(ctx, dev, ports[p], &info, jports);
            if (rc)
                return rc;
        }
    }
    return 0;
}
