/* gdr_read_bw - RDMA read bandwidth. The client reads from the server's
 * buffer, as many reads in flight as both devices allow (or -o); bytes
 * count when they have landed in the client's buffer. The server's CPU
 * takes no part. */
#include "test.h"

static const struct gdr_test read_bw = {
    .name = "read_bw",
    .binary = "gdr_read_bw",
    .summary = "RDMA read bandwidth between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_READ,
    .metric = GDR_METRIC_BW,
};

int main(int argc, char **argv)
{
    return gdr_main(&read_bw, argc, argv);
}
