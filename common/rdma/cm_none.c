/* cm_none.c - the rdma_cm entry points in a build without librdmacm.
 * Options reject -R first; these only keep the harness linkable. */
#include "config.h"

#include "cm.h"
#include "error.h"

static int no_rdmacm(void)
{
    return gdr_fail(GDR_EXIT_ENV, "--rdma_cm: this build has no librdmacm");
}

int gdr_cm_listen(struct gdr_cm **cm, const char *bind_addr, uint16_t port, double timeout)
{
    (void)bind_addr, (void)port, (void)timeout;
    *cm = NULL;
    return no_rdmacm();
}

int gdr_cm_client(struct gdr_cm **cm, const char *host, uint16_t port, double timeout)
{
    (void)host, (void)port, (void)timeout;
    *cm = NULL;
    return no_rdmacm();
}

int gdr_cm_resolve(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    (void)cm, (void)v, (void)q;
    return no_rdmacm();
}

int gdr_cm_establish(struct gdr_cm *cm, struct gdr_verbs *v, const struct gdr_cm_qps *q)
{
    (void)cm, (void)v, (void)q;
    return no_rdmacm();
}

void gdr_cm_release_qps(struct gdr_cm *cm, struct gdr_verbs *v)
{
    (void)cm, (void)v;
}

void gdr_cm_destroy(struct gdr_cm *cm)
{
    (void)cm;
}
