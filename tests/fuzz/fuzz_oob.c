/* fuzz_oob.c - libFuzzer target for the control channel's decoder.
 *
 * The input is what a peer might send: bytes on the control socket. They go
 * through the real receive path (gdr_oob_recv_any over a socketpair: header
 * check, bounded allocation, payload parse, a peer's ERROR), up to 8
 * messages per input, and each decoded body through what reads it:
 * gdr_endpoint_from_json for ENDPOINT, and for SIZE_START / SIZE_DONE /
 * SIZE_RESULT the codec protocol.c calls (common/size_msg.c). A crash, a
 * leak, undefined behaviour or a read past the input is a finding.
 *
 * Build and run: tests/fuzz/run-fuzz (clang, -fsanitize=fuzzer). */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "endpoint.h"
#include "error.h"
#include "json.h"
#include "oob.h"
#include "options.h"
#include "size_msg.h"

static void read_body(unsigned type, const cJSON *body)
{
    struct gdr_endpoint ep;
    struct gdr_size_start st;
    static struct gdr_size_done_msg m; /* large */
    static struct gdr_size_result_msg r;
    switch (type) {
    case GDR_MSG_ENDPOINT: gdr_endpoint_from_json(body, &ep, "ENDPOINT from fuzz"); break;
    case GDR_MSG_SIZE_START: gdr_size_start_decode(body, &st, "SIZE_START from fuzz"); break;
    case GDR_MSG_SIZE_DONE: gdr_size_done_decode(body, &m, "SIZE_DONE from fuzz"); break;
    case GDR_MSG_SIZE_RESULT: gdr_size_result_decode(body, &r, "SIZE_RESULT from fuzz"); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The pure codec on the raw bytes, as gdr_oob_peer_last_words() peeks at them. */
    if (size >= GDR_OOB_HEADER_LEN) {
        struct gdr_msg_header h;
        const char *why;
        if (!gdr_oob_check_header(data, &h)) {
            size_t len =
                size - GDR_OOB_HEADER_LEN < h.length ? size - GDR_OOB_HEADER_LEN : h.length;
            cJSON *body = gdr_oob_parse_payload(data + GDR_OOB_HEADER_LEN, len, &why);
            cJSON_Delete(body);
        }
    }
    /* The receive path: everything the peer sent, then its close. */
    int sv[2];
    if (size > 200000 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return 0;
    int big = 1 << 20;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(sv[1], data + off, size - off);
        if (n <= 0)
            break; /* more than the socket holds: fuzz what fitted */
        off += (size_t)n;
    }
    close(sv[1]);
    struct gdr_oob oob = {.fd = sv[0], .peer = "fuzz:1", .timeout = 0.05};
    for (int i = 0; i < 8; i++) {
        unsigned type;
        cJSON *body;
        if (gdr_oob_recv_any(&oob, 0, &type, &body))
            break;
        read_body(type, body);
        cJSON_Delete(body);
    }
    gdr_oob_close(&oob);
    gdr_error_clear();
    return 0;
}
