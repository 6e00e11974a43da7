/* gdr_send_lat - send/receive latency, a ping-pong: both ends keep
 * receives posted and each answers the other's send as soon as it has
 * arrived; a sample is half a round trip. */
#include "test.h"

static const struct gdr_test send_lat = {
    .name = "send_lat",
    .binary = "gdr_send_lat",
    .summary = "Send/receive latency (ping-pong) between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_SEND,
    .metric = GDR_METRIC_LAT,
};

int main(int argc, char **argv)
{
    return gdr_main(&send_lat, argc, argv);
}
