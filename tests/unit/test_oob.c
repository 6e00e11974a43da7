/* test_oob.c - the out-of-band channel: the header codec, payload parsing,
 * and real messages over a socketpair (type checks, peer errors, a closed
 * peer, a silent peer). */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "oob.h"

static void test_header_round_trip(void **state)
{
    (void)state;
    static const uint32_t lengths[] = {0, 1, 300, 65535, GDR_OOB_MAX_PAYLOAD};
    for (unsigned type = 1; type <= GDR_MSG_TYPE_MAX; type++) {
        for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
            uint8_t buf[GDR_OOB_HEADER_LEN];
            struct gdr_msg_header h;
            gdr_oob_encode_header(buf, type, lengths[i]);
            const char *why = gdr_oob_check_header(buf, &h);
            if (why)
                fail_msg("type %u length %u rejected: %s", type, lengths[i], why);
            assert_int_equal(h.magic, GDR_OOB_MAGIC);
            assert_int_equal(h.version, GDR_OOB_VERSION);
            assert_int_equal(h.type, type);
            assert_int_equal(h.length, lengths[i]);
        }
        assert_string_not_equal(gdr_msg_type_name(type), "UNKNOWN");
    }
    assert_string_equal(gdr_msg_type_name(0), "UNKNOWN");
    assert_string_equal(gdr_msg_type_name(GDR_MSG_TYPE_MAX + 1), "UNKNOWN");
    assert_string_equal(gdr_msg_type_name(GDR_MSG_HELLO), "HELLO");
    assert_string_equal(gdr_msg_type_name(GDR_MSG_ERROR), "ERROR");
}

/* The wire layout, byte by byte: "GDRB", version 2 (the READS message
 * came with it), type, length, all big-endian. */
static void test_header_layout(void **state)
{
    (void)state;
    uint8_t buf[GDR_OOB_HEADER_LEN];
    gdr_oob_encode_header(buf, GDR_MSG_SIZE_DONE, 0x01020304);
    static const uint8_t want[GDR_OOB_HEADER_LEN] = {
        'G', 'D', 'R', 'B', 0, 2, 0, 6, 1, 2, 3, 4,
    };
    assert_memory_equal(buf, want, sizeof(want));
}

static void test_header_rejects(void **state)
{
    (void)state;
    uint8_t buf[GDR_OOB_HEADER_LEN];
    struct gdr_msg_header h;
    const char *why;

    gdr_oob_encode_header(buf, GDR_MSG_HELLO, 10);
    buf[0] = 'X';
    why = gdr_oob_check_header(buf, &h);
    assert_non_null(why);
    assert_non_null(strstr(why, "bad magic"));

    gdr_oob_encode_header(buf, GDR_MSG_HELLO, 10);
    buf[5] = 1; /* version 1: a peer built before the READS message */
    why = gdr_oob_check_header(buf, &h);
    assert_non_null(why);
    assert_non_null(strstr(why, "version mismatch"));
    assert_int_equal(h.version, 1);

    gdr_oob_encode_header(buf, 0, 10);
    why = gdr_oob_check_header(buf, &h);
    assert_non_null(why);
    assert_non_null(strstr(why, "unknown message type"));

    gdr_oob_encode_header(buf, GDR_MSG_TYPE_MAX + 1, 10);
    why = gdr_oob_check_header(buf, &h);
    assert_non_null(why);
    assert_non_null(strstr(why, "unknown message type"));

    gdr_oob_encode_header(buf, 0xffff, 10);
    assert_non_null(gdr_oob_check_header(buf, &h));

    gdr_oob_encode_header(buf, GDR_MSG_HELLO, GDR_OOB_MAX_PAYLOAD + 1);
    why = gdr_oob_check_header(buf, &h);
    assert_non_null(why);
    assert_non_null(strstr(why, "64 KiB"));

    gdr_oob_encode_header(buf, GDR_MSG_HELLO, UINT32_MAX);
    assert_non_null(gdr_oob_check_header(buf, &h));
}

static cJSON *parse_text(const char *text, const char **why)
{
    *why = NULL;
    return gdr_oob_parse_payload((const uint8_t *)text, strlen(text), why);
}

static void test_parse_payload(void **state)
{
    (void)state;
    const char *why;
    cJSON *o = parse_text("{\"size\": 4096, \"tool\": \"gdr_write_bw\"}", &why);
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItem(o, "size")->valuedouble, 4096);
    cJSON_Delete(o);

    /* Only len bytes are read: the buffer needs no terminating NUL. */
    const uint8_t raw[] = {'{', '"', 'a', '"', ':', '1', '}', '{', '{', '{'};
    o = gdr_oob_parse_payload(raw, 7, &why);
    assert_non_null(o);
    cJSON_Delete(o);

    assert_null(parse_text("not json", &why));
    assert_non_null(strstr(why, "not valid JSON"));
    assert_null(parse_text("[1, 2]", &why));
    assert_non_null(strstr(why, "not a JSON object"));
    assert_null(parse_text("\"text\"", &why));
    assert_non_null(strstr(why, "not a JSON object"));
    assert_null(parse_text("{\"a\": ", &why));
    assert_non_null(strstr(why, "not valid JSON"));
    assert_null(parse_text("{\"a\": 1", &why));
    assert_non_null(strstr(why, "not valid JSON"));
    why = NULL;
    assert_null(gdr_oob_parse_payload(raw, 0, &why));
    assert_non_null(why);
    /* A valid object cut short by the length is truncated JSON. */
    assert_null(gdr_oob_parse_payload(raw, 6, &why));
    assert_non_null(strstr(why, "not valid JSON"));
}

/* Two connected ends: a is "the client", b "the server". */
struct pair {
    struct gdr_oob a, b;
};

static int pair_setup(void **state)
{
    gdr_error_clear();
    struct pair *p = calloc(1, sizeof(*p));
    int sv[2];
    if (!p || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return -1;
    p->a.fd = sv[0];
    p->b.fd = sv[1];
    snprintf(p->a.peer, sizeof(p->a.peer), "server:18515");
    snprintf(p->b.peer, sizeof(p->b.peer), "client:40000");
    p->a.timeout = p->b.timeout = 5.0;
    *state = p;
    return 0;
}

static int pair_teardown(void **state)
{
    struct pair *p = *state;
    gdr_oob_close(&p->a);
    gdr_oob_close(&p->b);
    free(p);
    gdr_error_clear();
    return 0;
}

static void test_send_recv(void **state)
{
    struct pair *p = *state;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddNumberToObject(body, "size", 65536);
    cJSON_AddStringToObject(body, "tool", "gdr_write_bw");
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_HELLO, body), 0);

    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_HELLO, 0, &got), 0);
    assert_non_null(got);
    assert_true(cJSON_Compare(body, got, true));
    cJSON_Delete(got);
    cJSON_Delete(body);

    /* No body: an empty object arrives. */
    assert_int_equal(gdr_oob_send(&p->b, GDR_MSG_HELLO_ACK, NULL), 0);
    assert_int_equal(gdr_oob_recv(&p->a, GDR_MSG_HELLO_ACK, 0, &got), 0);
    assert_true(cJSON_IsObject(got));
    assert_null(got->child);
    cJSON_Delete(got);

    /* Several messages queued are read back in order, with their types. */
    for (unsigned t = GDR_MSG_ENDPOINT; t <= GDR_MSG_BYE; t++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", t);
        assert_int_equal(gdr_oob_send(&p->a, t, o), 0);
        cJSON_Delete(o);
    }
    for (unsigned t = GDR_MSG_ENDPOINT; t <= GDR_MSG_BYE; t++) {
        unsigned type = 0;
        assert_int_equal(gdr_oob_recv_any(&p->b, 0, &type, &got), 0);
        assert_int_equal(type, t);
        assert_int_equal(cJSON_GetObjectItem(got, "t")->valuedouble, t);
        cJSON_Delete(got);
    }
    assert_no_error();
}

/* A payload of tens of KiB crosses the socket in more than one piece. */
static void test_large_payload(void **state)
{
    struct pair *p = *state;
    size_t n = 40000;
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + i % 26);
    s[n] = '\0';
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "blob", s);
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_SIZE_DONE, body), 0);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_DONE, 0, &got), 0);
    assert_string_equal(cJSON_GetObjectItem(got, "blob")->valuestring, s);
    cJSON_Delete(got);
    cJSON_Delete(body);
    free(s);
}

static void test_send_too_large(void **state)
{
    struct pair *p = *state;
    size_t n = GDR_OOB_MAX_PAYLOAD;
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, 'x', n);
    s[n] = '\0';
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "blob", s);
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_SIZE_DONE, body), -1);
    assert_error(GDR_EXIT_RUN, "exceeds the limit");
    assert_non_null(strstr(gdr_error_message(), "SIZE_DONE"));
    cJSON_Delete(body);
    free(s);
    /* Nothing was written: the peer has nothing to read. */
    assert_int_equal(gdr_oob_readable(&p->b), 0);
}

static void test_wrong_type(void **state)
{
    struct pair *p = *state;
    assert_int_equal(gdr_oob_send(&p->b, GDR_MSG_READY, NULL), 0);
    cJSON *got = (cJSON *)&got; /* must be reset */
    assert_int_equal(gdr_oob_recv(&p->a, GDR_MSG_HELLO_ACK, 0, &got), -1);
    assert_null(got);
    assert_error(GDR_EXIT_RUN, "expected HELLO_ACK, got READY");
    assert_non_null(strstr(gdr_error_message(), "server:18515"));
}

static void test_peer_error_usage(void **state)
{
    struct pair *p = *state;
    gdr_oob_send_error(&p->a, "--size differs: client 4096, server 65536", GDR_EXIT_USAGE);
    assert_no_error();
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_START, 0, &got), -1);
    assert_null(got);
    assert_error(GDR_EXIT_USAGE, "peer client:40000: --size differs: client 4096, server 65536");
}

static void test_peer_error_run(void **state)
{
    struct pair *p = *state;
    /* The peer's text is made printable before it reaches our terminal. */
    gdr_oob_send_error(&p->b, "device\x1b[2J gone\n", GDR_EXIT_RUN);
    cJSON *got = NULL;
    unsigned type = 0;
    assert_int_equal(gdr_oob_recv_any(&p->a, 0, &type, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer server:18515: device?[2J gone?");
}

static void test_peer_error_without_message(void **state)
{
    struct pair *p = *state;
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_ERROR, NULL), 0);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_READY, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer client:40000: (no reason given)");
}

static void test_peer_closed(void **state)
{
    struct pair *p = *state;
    assert_int_equal(gdr_oob_readable(&p->b), 0);
    gdr_oob_close(&p->a);
    assert_int_equal(p->a.fd, -1);
    assert_int_equal(gdr_oob_readable(&p->b), 1);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_BYE, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer client:40000 closed the connection");
}

/* The peer dies in the middle of a message. */
static void test_peer_closed_mid_message(void **state)
{
    struct pair *p = *state;
    uint8_t hdr[GDR_OOB_HEADER_LEN];
    gdr_oob_encode_header(hdr, GDR_MSG_ENDPOINT, 100);
    assert_int_equal(write(p->a.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
    assert_int_equal(write(p->a.fd, "{\"qpn\":", 7), 7);
    gdr_oob_close(&p->a);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_ENDPOINT, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "closed the connection while we waited for ENDPOINT");
}

static void test_stranger(void **state)
{
    struct pair *p = *state;
    const char http[] = "GET / HTTP/1.1\r\n\r\n";
    assert_int_equal(write(p->a.fd, http, sizeof(http) - 1), (ssize_t)sizeof(http) - 1);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_HELLO, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer client:40000: not a gdrbench peer (bad magic)");
}

static void test_bad_payload(void **state)
{
    struct pair *p = *state;
    uint8_t hdr[GDR_OOB_HEADER_LEN];
    gdr_oob_encode_header(hdr, GDR_MSG_HELLO, 6);
    assert_int_equal(write(p->a.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
    assert_int_equal(write(p->a.fd, "[1, 2]", 6), 6);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_HELLO, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "HELLO message: payload is not a JSON object");
}

static void test_timeout(void **state)
{
    struct pair *p = *state;
    p->b.timeout = 0.2;
    cJSON *got = NULL;
    uint64_t t0 = gdr_now_ns();
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_HELLO, 0, &got), -1);
    double waited = (double)(gdr_now_ns() - t0) * 1e-9;
    assert_error(GDR_EXIT_RUN, "peer client:40000: timed out");
    assert_true(waited >= 0.19);
    assert_true(waited < 2.0);

    /* `extra` lengthens the wait for slow phases. */
    gdr_error_clear();
    p->b.timeout = 0.1;
    t0 = gdr_now_ns();
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_HELLO, 0.2, &got), -1);
    waited = (double)(gdr_now_ns() - t0) * 1e-9;
    assert_error(GDR_EXIT_RUN, "timed out");
    assert_true(waited >= 0.29);
    assert_true(waited < 2.0);
}

/* A parting ERROR carries the class of the sender's error; the receiver
 * records it as its own, with the sender's side. One without a class (an
 * older peer) is of kind peer. */
static void test_peer_error_class(void **state)
{
    struct pair *p = *state;
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_COMPLETION);
    snprintf(c.wc_status, sizeof(c.wc_status), "IBV_WC_REM_ACCESS_ERR");
    snprintf(c.side, sizeof(c.side), "client");
    c.size = 8192;
    c.iteration = 77;
    gdr_fail_class(&c, GDR_EXIT_RUN, "RDMA write of 8192 bytes failed");
    gdr_oob_send_error(&p->a, gdr_error_message(), gdr_error_code());
    gdr_error_clear();
    gdr_error_side("server");
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_DONE, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer client:40000: RDMA write of 8192 bytes failed");
    const struct gdr_error_class *r = gdr_error_class();
    assert_string_equal(r->kind, "completion");
    assert_string_equal(r->wc_status, "IBV_WC_REM_ACCESS_ERR");
    assert_string_equal(r->side, "client");
    assert_int_equal(r->size, 8192);
    assert_int_equal(r->iteration, 77);

    gdr_error_clear();
    gdr_oob_send_error(&p->a, "gone", GDR_EXIT_RUN); /* no error recorded: no class */
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_DONE, 0, &got), -1);
    assert_string_equal(gdr_error_class()->kind, "peer");
    assert_string_equal(gdr_error_class()->side, "server");
    gdr_error_side("");
}

/* A SIGINT/SIGTERM handled outside a wait (between two messages, while
 * a row prints) stops the next wait even when the peer's message is
 * already there: the server of a write test has no loop that would look
 * at the flag, and its waits only saw a signal that interrupted them. The
 * parting ERROR still goes out, and a signal during a wait wakes it. */
static void on_term(int sig)
{
    (void)sig;
    gdr_interrupted = 1;
}

static void test_interrupted(void **state)
{
    struct pair *p = *state;
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_SIZE_START, NULL), 0);
    gdr_interrupted = 1;
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_START, 0, &got), -1);
    assert_null(got);
    assert_error(GDR_EXIT_RUN, "interrupted while waiting for a message from peer client:40000");
    assert_int_equal(gdr_oob_send(&p->b, GDR_MSG_READY, NULL), -1);
    gdr_oob_send_error(&p->b, "interrupted", GDR_EXIT_RUN);
    gdr_interrupted = 0;
    gdr_error_clear();
    assert_int_equal(gdr_oob_recv(&p->a, GDR_MSG_READY, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "peer server:18515: interrupted");
    gdr_error_clear();
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_START, 0, &got), 0); /* still there */
    cJSON_Delete(got);

    /* A SIGTERM 100 ms into a 5 s wait ends it at once. */
    gdr_error_clear();
    struct sigaction sa = {.sa_handler = on_term}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old);
    pid_t parent = getpid(), child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        usleep(100000);
        kill(parent, SIGTERM);
        _exit(0);
    }
    uint64_t t0 = gdr_now_ns();
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_SIZE_START, 0, &got), -1);
    double waited = (double)(gdr_now_ns() - t0) * 1e-9;
    waitpid(child, NULL, 0);
    sigaction(SIGTERM, &old, NULL);
    gdr_interrupted = 0;
    assert_error(GDR_EXIT_RUN, "interrupted while waiting");
    assert_true(waited < 2.0);
}

/* A peer killed while we send: the same words as when we receive (a
 * loaded host decides which of the two we were doing), with the size. */
static void test_peer_closed_while_sending(void **state)
{
    struct pair *p = *state;
    snprintf(p->b.at, sizeof(p->b.at), " at size 8192");
    gdr_oob_close(&p->a);
    assert_int_equal(gdr_oob_send(&p->b, GDR_MSG_READY, NULL), -1);
    assert_error(GDR_EXIT_RUN,
                 "peer client:40000 closed the connection while we sent READY at size 8192");
    assert_string_equal(gdr_error_class()->kind, "peer");
}

/* A listening socket on a free port of 127.0.0.1: the port. */
static uint16_t listen_any(int *lfd)
{
    assert_int_equal(gdr_oob_listen("127.0.0.1", 0, lfd), 0);
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    assert_int_equal(getsockname(*lfd, (struct sockaddr *)&ss, &len), 0);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* A peer killed with our message unread resets the TCP connection
 * (ECONNRESET, not an end of file): named as a peer that closed, with the
 * size, as on a loaded lab host the SIGKILL of kill_client_write_bw did. */
static void test_peer_reset(void **state)
{
    (void)state;
    gdr_error_clear();
    int lfd;
    uint16_t port = listen_any(&lfd);
    struct gdr_oob c = {.fd = -1}, s = {.fd = -1};
    assert_int_equal(gdr_oob_connect("127.0.0.1", port, 5.0, &c), 0);
    assert_int_equal(gdr_oob_accept(lfd, 5.0, &s), 0);
    close(lfd);
    assert_int_equal(gdr_oob_send(&s, GDR_MSG_READY, NULL), 0); /* left unread by c */
    struct linger hard = {.l_onoff = 1, .l_linger = 0};
    assert_int_equal(setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
    gdr_oob_close(&c); /* unread data: the kernel sends a reset */
    snprintf(s.at, sizeof(s.at), " at size 8192");
    assert_int_equal(gdr_oob_recv_any(&s, 0, &(unsigned){0}, &(cJSON *){NULL}), -1);
    assert_non_null(strstr(gdr_error_message(), "closed the connection"));
    assert_non_null(strstr(gdr_error_message(), "at size 8192"));
    assert_string_equal(gdr_error_class()->kind, "peer");
    gdr_oob_close(&s);
    gdr_error_clear();
}

/* A client waiting for its server to come up (refused connections are
 * retried until --timeout) stops on an interrupt, not at the deadline. */
static void test_connect_interrupted(void **state)
{
    (void)state;
    int lfd;
    uint16_t port = listen_any(&lfd);
    close(lfd); /* nothing listens there now: refused, retried */
    gdr_interrupted = 1;
    struct gdr_oob c = {.fd = -1};
    uint64_t t0 = gdr_now_ns();
    assert_int_equal(gdr_oob_connect("127.0.0.1", port, 30.0, &c), -1);
    gdr_interrupted = 0;
    assert_error(GDR_EXIT_RUN, "interrupted while connecting to 127.0.0.1 port");
    assert_string_equal(gdr_error_class()->kind, "interrupted");
    assert_true((double)(gdr_now_ns() - t0) * 1e-9 < 2.0);
}

/* What a peer left behind, read without blocking: nothing, a message
 * that waits its turn (not consumed), an ERROR (its reason recorded), or
 * the end of the stream. */
static void test_peer_last_words(void **state)
{
    struct pair *p = *state;
    assert_int_equal(gdr_oob_peer_last_words(&p->b), 0);
    assert_int_equal(gdr_oob_send(&p->a, GDR_MSG_READY, NULL), 0);
    assert_int_equal(gdr_oob_peer_last_words(&p->b), 0);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&p->b, GDR_MSG_READY, 0, &got), 0);
    cJSON_Delete(got);
    assert_no_error();

    gdr_oob_send_error(&p->a, "GPU fell off the bus", 1);
    assert_int_equal(gdr_oob_peer_last_words(&p->b), -1);
    assert_error(GDR_EXIT_RUN, "peer client:40000: GPU fell off the bus");

    gdr_oob_close(&p->a);
    assert_int_equal(gdr_oob_peer_last_words(&p->b), 1);
}

/* A server serving one client answers another with "busy", and only
 * while it refuses: the state is the caller's, not the module's. */
static void test_refuse_others(void **state)
{
    struct pair *p = *state;
    int lfd;
    uint16_t port = listen_any(&lfd);

    struct gdr_oob_refusal r;
    gdr_oob_refuse_others(&r, lfd, &p->b);
    assert_ptr_equal(p->b.refusal, &r);
    struct gdr_oob other = {.fd = -1};
    assert_int_equal(gdr_oob_connect("127.0.0.1", port, 2.0, &other), 0);
    gdr_oob_refuse_pending(&r);
    assert_int_equal(r.n_open, 1);
    cJSON *got = NULL;
    assert_int_equal(gdr_oob_recv(&other, GDR_MSG_HELLO_ACK, 0, &got), -1);
    assert_error(GDR_EXIT_RUN, "busy: serving client:40000");
    gdr_oob_close(&other);
    gdr_error_clear();

    /* Stopped: a new client waits in the backlog, unanswered. */
    gdr_oob_refuse_stop(&r);
    assert_int_equal(gdr_oob_connect("127.0.0.1", port, 2.0, &other), 0);
    gdr_oob_refuse_pending(&r);
    assert_int_equal(gdr_oob_readable(&other), 0);
    gdr_oob_refuse_pending(NULL); /* a client has nothing to refuse */
    gdr_oob_close(&other);
    close(lfd);
}

#define pair_test(f) cmocka_unit_test_setup_teardown(f, pair_setup, pair_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_header_round_trip),
        gdr_unit_test(test_header_layout),
        gdr_unit_test(test_header_rejects),
        gdr_unit_test(test_parse_payload),
        pair_test(test_send_recv),
        pair_test(test_large_payload),
        pair_test(test_send_too_large),
        pair_test(test_wrong_type),
        pair_test(test_peer_error_usage),
        pair_test(test_peer_error_run),
        pair_test(test_peer_error_without_message),
        pair_test(test_peer_closed),
        pair_test(test_peer_closed_mid_message),
        pair_test(test_stranger),
        pair_test(test_bad_payload),
        pair_test(test_timeout),
        pair_test(test_peer_error_class),
        pair_test(test_peer_closed_while_sending),
        pair_test(test_interrupted),
        gdr_unit_test(test_connect_interrupted),
        gdr_unit_test(test_peer_reset),
        pair_test(test_peer_last_words),
        pair_test(test_refuse_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
