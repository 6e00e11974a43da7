/* pcie_json.c - one PCIe link as every JSON document writes it (pcie_json.h). */
#include "pcie_json.h"

#include <stdio.h>
#include <string.h>

static void num_or_null(cJSON *o, const char *key, double v, bool known)
{
    if (known)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void tristate(cJSON *o, const char *key, int v)
{
    if (v >= 0)
        cJSON_AddBoolToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *gdr_pcie_hop_to_json(const struct gdr_pcie_hop *h)
{
    const struct gdr_pcie_link *l = &h->link;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "bdf", l->bdf);
    cJSON_AddStringToObject(o, "role", gdr_pcie_role_name(h->role));
    num_or_null(o, "current_gts", l->cur_gts, l->cur_gts > 0);
    num_or_null(o, "current_width", l->cur_width, l->cur_width > 0);
    num_or_null(o, "max_gts", l->max_gts, l->max_gts > 0);
    num_or_null(o, "max_width", l->max_width, l->max_width > 0);
    num_or_null(o, "expect_gts", h->expect_gts, h->expect_gts > 0);
    num_or_null(o, "expect_width", h->expect_width, h->expect_width > 0);
    num_or_null(o, "max_payload", l->mps, l->mps > 0);
    num_or_null(o, "max_read_request", l->mrrs, l->mrrs > 0);
    tristate(o, "relaxed_ordering", l->relaxed_ordering);
    tristate(o, "ats", l->ats);
    num_or_null(o, "acs_ctrl", l->acs_ctrl, l->acs_ctrl >= 0);
    cJSON_AddBoolToObject(o, "judged", h->judged);
    cJSON_AddBoolToObject(o, "below_max", h->below_max);
    return o;
}

/* A positive number, else 0 (unknown). */
static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : 0;
}

/* true 1, false 0, anything else -1 (unknown). */
static int tri(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

static enum gdr_pcie_role role_of(const cJSON *o)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "role");
    const char *r = cJSON_IsString(v) ? v->valuestring : "";
    return !strcmp(r, "nic") ? GDR_PCIE_NIC : !strcmp(r, "gpu") ? GDR_PCIE_GPU : GDR_PCIE_BRIDGE;
}

int gdr_pcie_hop_from_json(const cJSON *o, struct gdr_pcie_hop *h)
{
    memset(h, 0, sizeof(*h));
    if (!cJSON_IsObject(o))
        return -1;
    struct gdr_pcie_link *l = &h->link;
    const cJSON *bdf = cJSON_GetObjectItemCaseSensitive(o, "bdf");
    snprintf(l->bdf, sizeof(l->bdf), "%s", cJSON_IsString(bdf) ? bdf->valuestring : "");
    h->role = role_of(o);
    l->bridge = h->role == GDR_PCIE_BRIDGE;
    l->type = GDR_PCIE_TYPE_UNKNOWN;
    l->cur_gts = num(o, "current_gts");
    l->cur_width = (unsigned)num(o, "current_width");
    l->max_gts = num(o, "max_gts");
    l->max_width = (unsigned)num(o, "max_width");
    h->expect_gts = num(o, "expect_gts");
    h->expect_width = (unsigned)num(o, "expect_width");
    l->mps = (unsigned)num(o, "max_payload");
    l->mrrs = (unsigned)num(o, "max_read_request");
    l->relaxed_ordering = tri(o, "relaxed_ordering");
    l->ats = tri(o, "ats");
    const cJSON *acs = cJSON_GetObjectItemCaseSensitive(o, "acs_ctrl");
    l->acs_ctrl = cJSON_IsNumber(acs) && acs->valuedouble >= 0 ? (int)acs->valuedouble : -1;
    h->judged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "judged"));
    h->below_max = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "below_max"));
    return 0;
}
