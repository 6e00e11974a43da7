/* gdr_send_bw - two-sided send/receive bandwidth. The server keeps
 * receives posted; bytes count when they arrive at the server. */
#include "test.h"

static const struct gdr_test send_bw = {
    .name = "send_bw",
    .binary = "gdr_send_bw",
    .summary = "Send/receive bandwidth between host or GPU buffers on two nodes.",
    .verb = GDR_VERB_SEND,
    .metric = GDR_METRIC_BW,
};

int main(int argc, char **argv)
{
    return gdr_main(&send_bw, argc, argv);
}
