/* gdr_write_bw - RDMA write bandwidth. The client writes into the server's
 * buffer; bytes count when the client sees them complete. The server's CPU
 * takes no part: that is the point of one-sided RDMA. */
#include "test.h"

static const struct gdr_test write_bw = {
    .name = "write_bw",
    .binary = "gdr_write_bw",
    .summary = "RDMA write bandwidth between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_WRITE,
    .metric = GDR_METRIC_BW,
};

int main(int argc, char **argv)
{
    return gdr_main(&write_bw, argc, argv);
}
