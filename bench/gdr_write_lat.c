/* gdr_write_lat - RDMA write latency, a ping-pong: each end writes into
 * the other's buffer as soon as the other's write has arrived; a sample
 * is half a round trip. Arrivals in host memory are seen in the buffer's
 * last byte, arrivals in GPU memory by a write with immediate data on the
 * completion queue (the CPU cannot poll GPU memory). */
#include "test.h"

static const struct gdr_test write_lat = {
    .name = "write_lat",
    .binary = "gdr_write_lat",
    .summary = "RDMA write latency (ping-pong) between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_WRITE,
    .metric = GDR_METRIC_LAT,
};

int main(int argc, char **argv)
{
    return gdr_main(&write_lat, argc, argv);
}
