/* report_cluster.c - the page of a gdr-cluster run. */
#include "config.h"

#include "report.h"
#include "error.h"

int gdr_report_cluster(struct gdr_buf *b, const char *dir, const struct gdr_report_opts *o)
{
    (void)b;
    (void)o;
    return gdr_fail(GDR_EXIT_USAGE, "%s: cluster pages are not built yet", dir);
}
