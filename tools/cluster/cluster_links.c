/* cluster_links.c - a node's PCIe links on its rails (see cluster_links.h). */
#include "config.h"

#include "cluster_links.h"
#include "pcie_json.h"
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WALK_MAX 33

/* Add hop h unless a link of that BDF is there already. */
static void add_hop(struct gdr_node_links *l, const struct gdr_pcie_hop *h, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->link[i].hop.link.bdf, h->link.bdf))
            return;
    if (l->n == GDR_NODE_LINKS_MAX)
        return;
    struct gdr_node_link *k = &l->link[l->n++];
    snprintf(k->name, sizeof(k->name), "%s", name ? name : h->link.bdf);
    k->hop = *h;
}

/* bdf and the judged switch links above it. */
static void walk(const char *sysfs_root, const char *bdf, enum gdr_pcie_role role, const char *name,
                 struct gdr_node_links *l)
{
    struct gdr_pcie_hop hops[WALK_MAX];
    size_t n = 0;
    if (!bdf[0] || gdr_topo_pcie_walk(sysfs_root, bdf, role, hops, WALK_MAX, &n) || n == 0)
        return;
    add_hop(l, &hops[0], name);
    for (size_t i = 1; i < n; i++)
        if (hops[i].judged)
            add_hop(l, &hops[i], NULL);
}

void gdr_node_links_detect(const char *sysfs_root, const struct gdr_rail_map *map,
                           struct gdr_node_links *out)
{
    out->n = 0;
    for (size_t i = 0; i < map->nrails; i++) {
        const struct gdr_rail *r = &map->rails[i];
        struct gdr_ibdev_info info;
        if (r->device[0] && gdr_topo_ibdev_info(sysfs_root, r->device, &info, NULL, 0) == 0 &&
            !info.software)
            walk(sysfs_root, info.pci_bdf, GDR_PCIE_NIC, r->device, out);
        if (r->gpu >= 0) {
            char name[32];
            snprintf(name, sizeof(name), "GPU %d", r->gpu);
            walk(sysfs_root, r->gpu_bdf, GDR_PCIE_GPU, name, out);
        }
    }
}

cJSON *gdr_node_links_to_json(const struct gdr_node_links *l)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < l->n; i++) {
        cJSON *o = gdr_pcie_hop_to_json(&l->link[i].hop);
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "name", l->link[i].name);
    }
    return arr;
}

int gdr_node_links_from_json(const cJSON *arr, struct gdr_node_links *out)
{
    out->n = 0;
    if (!cJSON_IsArray(arr))
        return -1;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        struct gdr_node_link *k = &out->link[out->n];
        if (out->n == GDR_NODE_LINKS_MAX || gdr_pcie_hop_from_json(o, &k->hop))
            continue;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
        snprintf(k->name, sizeof(k->name), "%s", cJSON_IsString(name) ? name->valuestring : "");
        out->n++;
    }
    return 0;
}

bool gdr_node_link_short(const struct gdr_node_link *k)
{
    if (k->hop.role != GDR_PCIE_GPU)
        return k->hop.below_max;
    return k->hop.link.cur_width && k->hop.expect_width &&
           k->hop.link.cur_width < k->hop.expect_width;
}

static void gen_width(double gts, unsigned width, char *out, size_t len)
{
    char w[16];
    snprintf(w, sizeof(w), width ? "x%u" : "x?", width);
    snprintf(out, len, "%s %s", gts > 0 ? gdr_pcie_gen_name(gts) : "Gen?", w);
}

/* What a link is compared by: a NIC its current link, a GPU its width and
 * the speed it can reach (its current speed is an idle one). */
static void link_key(const struct gdr_node_link *k, char *out, size_t len)
{
    if (k->hop.role == GDR_PCIE_GPU) {
        char w[16];
        snprintf(w, sizeof(w), k->hop.link.cur_width ? "x%u" : "x?", k->hop.link.cur_width);
        snprintf(out, len, "%s, up to %s", w,
                 k->hop.expect_gts > 0 ? gdr_pcie_gen_name(k->hop.expect_gts) : "Gen?");
    } else {
        gen_width(k->hop.link.cur_gts, k->hop.link.cur_width, out, len);
    }
}

struct group {
    char key[48];
    size_t count;
};

static int by_count(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* "Gen5 x16 (7), Gen5 x8 (1)": role's links grouped, most common first. */
static size_t groups(const struct gdr_node_links *l, enum gdr_pcie_role role, char *out, size_t len)
{
    struct group *g = calloc(l->n + 1, sizeof(*g));
    size_t ng = 0, used = 0;
    out[0] = '\0';
    if (!g)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->link[i].hop.role != role)
            continue;
        char key[48];
        link_key(&l->link[i], key, sizeof(key));
        size_t j = 0;
        while (j < ng && strcmp(g[j].key, key))
            j++;
        if (j == ng)
            snprintf(g[ng++].key, sizeof(g->key), "%s", key);
        g[j].count++;
    }
    qsort(g, ng, sizeof(*g), by_count);
    for (size_t j = 0; j < ng && used < len; j++) {
        int k = snprintf(out + used, len - used, "%s%s (%zu)", j ? ", " : "", g[j].key, g[j].count);
        used = k < 0 ? len : used + (size_t)k;
    }
    free(g);
    return ng;
}

void gdr_node_links_summary(const struct gdr_node_links *l, char *out, size_t len)
{
    char nic[256], gpu[256];
    size_t nn = groups(l, GDR_PCIE_NIC, nic, sizeof(nic));
    size_t ngpu = groups(l, GDR_PCIE_GPU, gpu, sizeof(gpu));
    size_t bridges = 0;
    for (size_t i = 0; i < l->n; i++)
        bridges += l->link[i].hop.role == GDR_PCIE_BRIDGE && gdr_node_link_short(&l->link[i]);
    char sw[48] = "";
    if (bridges)
        snprintf(sw, sizeof(sw), "%s%zu switch link%s short", nn || ngpu ? "; " : "", bridges,
                 bridges == 1 ? "" : "s");
    if (!nn && !ngpu && !bridges)
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%s%s%s%s%s%s", nn ? "NIC " : "", nic, nn && ngpu ? "; " : "",
                 ngpu ? "GPU " : "", gpu, sw);
}

void gdr_node_links_short(const struct gdr_node_links *l, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < l->n && used < len; i++) {
        const struct gdr_node_link *k = &l->link[i];
        if (!gdr_node_link_short(k))
            continue;
        char cur[32], can[32];
        if (k->hop.role == GDR_PCIE_GPU) {
            snprintf(cur, sizeof(cur), "x%u", k->hop.link.cur_width);
            snprintf(can, sizeof(can), "x%u", k->hop.expect_width);
        } else {
            gen_width(k->hop.link.cur_gts, k->hop.link.cur_width, cur, sizeof(cur));
            gen_width(k->hop.expect_gts, k->hop.expect_width, can, sizeof(can));
        }
        int n = snprintf(out + used, len - used, "%s%s%s %s (can %s)", used ? ", " : "",
                         k->hop.role == GDR_PCIE_BRIDGE ? "switch " : "", k->name, cur, can);
        used = n < 0 ? len : used + (size_t)n;
    }
}
