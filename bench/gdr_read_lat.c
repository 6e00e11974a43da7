/* gdr_read_lat - RDMA read latency. The client reads from the server's
 * buffer one message at a time; each sample is post to completion. */
#include "test.h"

static const struct gdr_test read_lat = {
    .name = "read_lat",
    .binary = "gdr_read_lat",
    .summary = "RDMA read latency between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_READ,
    .metric = GDR_METRIC_LAT,
};

int main(int argc, char **argv)
{
    return gdr_main(&read_lat, argc, argv);
}
