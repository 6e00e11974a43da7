#include "config.h"

#include "oob.h"
#include "clock.h"
#include "error.h"
#include "json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const type_names[] = {
    [GDR_MSG_HELLO] = "HELLO",
    [GDR_MSG_HELLO_ACK] = "HELLO_ACK",
    [GDR_MSG_ENDPOINT] = "ENDPOINT",
    [GDR_MSG_SIZE_START] = "SIZE_START",
    [GDR_MSG_READY] = "READY",
    [GDR_MSG_SIZE_DONE] = "SIZE_DONE",
    [GDR_MSG_SIZE_RESULT] = "SIZE_RESULT",
    [GDR_MSG_BYE] = "BYE",
    [GDR_MSG_ERROR] = "ERROR",
    [GDR_MSG_READS] = "READS",
    [GDR_MSG_OUTAGE] = "OUTAGE",
    [GDR_MSG_REJOIN] = "REJOIN",
};

const char *gdr_msg_type_name(unsigned type)
{
    return type >= 1 && type <= GDR_MSG_TYPE_MAX ? type_names[type] : "UNKNOWN";
}

void gdr_oob_encode_header(uint8_t out[GDR_OOB_HEADER_LEN], unsigned type, uint32_t length)
{
    uint32_t magic = htonl(GDR_OOB_MAGIC), len = htonl(length);
    uint16_t version = htons(GDR_OOB_VERSION), t = htons((uint16_t)type);
    memcpy(out, &magic, 4);
    memcpy(out + 4, &version, 2);
    memcpy(out + 6, &t, 2);
    memcpy(out + 8, &len, 4);
}

const char *gdr_oob_check_header(const uint8_t in[GDR_OOB_HEADER_LEN], struct gdr_msg_header *h)
{
    uint32_t magic, len;
    uint16_t version, type;
    memcpy(&magic, in, 4);
    memcpy(&version, in + 4, 2);
    memcpy(&type, in + 6, 2);
    memcpy(&len, in + 8, 4);
    h->magic = ntohl(magic);
    h->version = ntohs(version);
    h->type = ntohs(type);
    h->length = ntohl(len);
    if (h->magic != GDR_OOB_MAGIC)
        return "not a gdrbench peer (bad magic)";
    if (h->version != GDR_OOB_VERSION)
        return "protocol version mismatch";
    if (h->type < 1 || h->type > GDR_MSG_TYPE_MAX)
        return "unknown message type";
    if (h->length > GDR_OOB_MAX_PAYLOAD)
        return "message longer than the 64 KiB limit";
    return NULL;
}

cJSON *gdr_oob_parse_payload(const uint8_t *buf, size_t len, const char **why)
{
    cJSON *body = cJSON_ParseWithLength((const char *)buf, len);
    if (!body) {
        *why = "payload is not valid JSON";
        return NULL;
    }
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        *why = "payload is not a JSON object";
        return NULL;
    }
    return body;
}

static int ms_left(uint64_t deadline_ns)
{
    uint64_t now = gdr_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999) / 1000000;
    return ms > 3600000 ? 3600000 : (int)ms;
}

static uint64_t deadline_after(double seconds)
{
    return gdr_now_ns() + (uint64_t)(seconds * 1e9);
}

void gdr_oob_refuse_others(struct gdr_oob_refusal *r, int listen_fd, struct gdr_oob *serving)
{
    memset(r, 0, sizeof(*r));
    r->listen_fd = listen_fd;
    snprintf(r->message, sizeof(r->message), "busy: serving %.128s", serving->peer);
    serving->refusal = r;
}

void gdr_oob_refuse_stop(struct gdr_oob_refusal *r)
{
    r->listen_fd = -1; /* clients refused a moment ago close with the process */
}

static void reap_refused(struct gdr_oob_refusal *r)
{
    uint64_t now = gdr_now_ns();
    for (unsigned i = 0; i < r->n_open;) {
        char sink[512];
        ssize_t n;
        while ((n = recv(r->open[i].fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
            ;
        bool gone = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
        if (gone || now - r->open[i].since_ns > 1000000000u) {
            close(r->open[i].fd);
            r->open[i] = r->open[--r->n_open];
        } else {
            i++;
        }
    }
}

void gdr_oob_refuse_pending(struct gdr_oob_refusal *r)
{
    if (!r)
        return;
    reap_refused(r);
    for (int i = 0; i < 16 && r->listen_fd >= 0; i++) {
        struct pollfd p = {.fd = r->listen_fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            return;
        int fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        /* A fresh socket's buffer takes the whole message: never blocks. */
        char text[256];
        int len = snprintf(text, sizeof(text), "{\"message\":\"%s\",\"exit_code\":1}", r->message);
        uint8_t hdr[GDR_OOB_HEADER_LEN];
        gdr_oob_encode_header(hdr, GDR_MSG_ERROR, (uint32_t)len);
        if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(hdr))
            send(fd, text, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
        shutdown(fd, SHUT_WR); /* the ERROR, then end of stream */
        if (r->n_open == GDR_OOB_REFUSED_MAX) {
            close(r->open[0].fd);
            r->open[0] = r->open[--r->n_open];
        }
        r->open[r->n_open].fd = fd;
        r->open[r->n_open++].since_ns = gdr_now_ns();
    }
}

/* Wait until fd is ready for events; 0 ready, 1 timed out, -1 error
 * (errno EINTR: interrupted), -2 the watched fd's check failed (its
 * error is recorded). Meanwhile, a server refuses other clients.
 * SIGINT and SIGTERM are blocked from the flag check until ppoll() waits,
 * so a signal that lands between the two wakes the wait instead of being
 * noticed only after it (a run that went on, or a wait for a whole
 * --timeout). An end that is already giving up (oob->closing) waits on,
 * unwatched: its last words are bounded by their own short deadline. */
static int wait_fd(struct gdr_oob *oob, int fd, short events, uint64_t deadline_ns)
{
    struct gdr_oob_refusal *r = oob ? oob->refusal : NULL;
    bool closing = oob && oob->closing;
    int refuse_fd = r && r->listen_fd != fd ? r->listen_fd : -1;
    int watch_fd = oob && oob->watch && !closing ? oob->watch_fd : -1;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    for (;;) {
        struct pollfd p[3] = {{.fd = fd, .events = events},
                              {.fd = refuse_fd, .events = POLLIN},
                              {.fd = watch_fd, .events = POLLIN}};
        int left = ms_left(deadline_ns);
        struct timespec ts = {.tv_sec = left / 1000, .tv_nsec = (long)(left % 1000) * 1000000};
        pthread_sigmask(SIG_BLOCK, &stop, &old);
        if (gdr_interrupted && !closing) {
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            errno = EINTR;
            return -1;
        }
        /* Negative fds are skipped by ppoll. */
        int n = ppoll(p, 3, &ts, &old);
        int err = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (n > 0 && p[2].revents && oob->watch(oob->watch_arg))
            return -2;
        if (n > 0 && p[1].revents)
            gdr_oob_refuse_pending(r);
        if (n > 0 && p[0].revents)
            return 0;
        if (n > 0)
            continue;
        if (n == 0)
            return 1;
        if (err != EINTR) {
            errno = err;
            return -1;
        }
    }
}

/* Read exactly len bytes. 0 ok; otherwise the error is recorded. */
static int read_full(struct gdr_oob *oob, void *buf, size_t len, uint64_t deadline_ns,
                     const char *what)
{
    uint8_t *p = buf;
    while (len) {
        int w = wait_fd(oob, oob->fd, POLLIN, deadline_ns);
        if (w == 1)
            return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN,
                                 "peer %s: timed out waiting for %s%s", oob->peer, what, oob->at);
        if (w == -1 && errno == EINTR)
            return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN,
                                 "interrupted while waiting for %s from peer %s%s", what, oob->peer,
                                 oob->at);
        if (w == -2)
            return -1;
        if (w < 0)
            return gdr_fail(GDR_EXIT_RUN, "peer %s: %s", oob->peer, strerror(errno));
        ssize_t n = recv(oob->fd, p, len, 0);
        /* A peer killed with our last message unread in its socket resets
         * the connection instead of closing it: the same event (a dead
         * peer), the same words, the reset said. */
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return gdr_fail_kind(GDR_KIND_PEER, GDR_EXIT_RUN,
                                 "peer %s closed the connection%s while we waited for %s%s",
                                 oob->peer, n ? " (reset)" : "", what, oob->at);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return gdr_fail(GDR_EXIT_RUN, "peer %s: receive failed: %s", oob->peer,
                            strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int write_full(struct gdr_oob *oob, const void *buf, size_t len, uint64_t deadline_ns,
                      const char *what)
{
    const uint8_t *p = buf;
    while (len) {
        int w = wait_fd(oob, oob->fd, POLLOUT, deadline_ns);
        if (w == 1)
            return gdr_fail_kind(GDR_KIND_TIMEOUT, GDR_EXIT_RUN, "peer %s: timed out sending",
                                 oob->peer);
        if (w == -1 && errno == EINTR)
            return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN,
                                 "interrupted while sending to peer %s", oob->peer);
        if (w == -2)
            return -1;
        if (w < 0)
            return gdr_fail(GDR_EXIT_RUN, "peer %s: %s", oob->peer, strerror(errno));
        ssize_t n = send(oob->fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            int err = errno;
            /* The peer is gone: a busy server's ERROR says why; else it
             * closed, as a receive would have found (the same words: a
             * peer killed mid-run is one case whichever way we were
             * talking). */
            if ((err == EPIPE || err == ECONNRESET) && gdr_oob_peer_last_words(oob) >= 0)
                return gdr_fail_kind(GDR_KIND_PEER, GDR_EXIT_RUN,
                                     "peer %s closed the connection while we sent %s%s", oob->peer,
                                     what, oob->at);
            return gdr_fail_kind(GDR_KIND_PEER, GDR_EXIT_RUN, "peer %s: send failed: %s", oob->peer,
                                 strerror(err));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void set_peer_name(struct gdr_oob *oob, const struct sockaddr *sa, socklen_t salen)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(sa, salen, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0)
        snprintf(oob->peer, sizeof(oob->peer), "%.100s:%.8s", host, serv);
    else
        snprintf(oob->peer, sizeof(oob->peer), "(unknown)");
}

static void tune_socket(int fd)
{
    int one = 1;
    /* Small control messages: do not let Nagle delay the barriers. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int gdr_oob_listen(const char *bind_addr, uint16_t port, int *listen_fd)
{
    char serv[8];
    snprintf(serv, sizeof(serv), "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(bind_addr, serv, &hints, &res);
    if (rc)
        return gdr_fail(GDR_EXIT_USAGE, "--bind %s: %s", bind_addr ? bind_addr : "(any)",
                        gai_strerror(rc));
    /* Prefer IPv6 any-address (dual stack) when no address was given. */
    struct addrinfo *ai = res;
    for (struct addrinfo *p = res; !bind_addr && p; p = p->ai_next)
        if (p->ai_family == AF_INET6)
            ai = p;
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    int err = errno;
    if (fd >= 0) {
        int one = 1, zero = 0;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ai->ai_family == AF_INET6 && !bind_addr)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 4)) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return gdr_fail(err == EADDRINUSE ? GDR_EXIT_RUN : GDR_EXIT_ENV,
                        "cannot listen on TCP port %u%s%s: %s", port, bind_addr ? " of " : "",
                        bind_addr ? bind_addr : "", strerror(err));
    *listen_fd = fd;
    return 0;
}

int gdr_oob_accept(int listen_fd, double timeout, struct gdr_oob *out)
{
    uint64_t deadline = deadline_after(timeout);
    int w = wait_fd(NULL, listen_fd, POLLIN, deadline);
    if (w == 1)
        return gdr_fail(GDR_EXIT_RUN, "no client connected within %g s (--timeout)", timeout);
    if (w < 0)
        return gdr_fail(GDR_EXIT_RUN, "waiting for a client: %s", strerror(errno));
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
    if (fd < 0)
        return gdr_fail(GDR_EXIT_RUN, "accept failed: %s", strerror(errno));
    tune_socket(fd);
    out->fd = fd;
    out->timeout = timeout;
    set_peer_name(out, (struct sockaddr *)&ss, len);
    return 0;
}

static int try_connect(struct addrinfo *ai, uint64_t deadline, int *err)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
        *err = errno;
        close(fd);
        return -1;
    }
    int w = wait_fd(NULL, fd, POLLOUT, deadline);
    socklen_t elen = sizeof(*err);
    if (w != 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &elen) || *err) {
        if (w)
            *err = w == 1 ? ETIMEDOUT : errno;
        close(fd);
        return -1;
    }
    return fd;
}

int gdr_oob_connect(const char *host, uint16_t port, double timeout, struct gdr_oob *out)
{
    char serv[8];
    snprintf(serv, sizeof(serv), "%u", port);
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(host, serv, &hints, &res);
    if (rc)
        return gdr_fail(GDR_EXIT_USAGE, "server '%s': %s", host, gai_strerror(rc));

    uint64_t deadline = deadline_after(timeout);
    int fd = -1, err = 0;
    struct addrinfo *used = NULL;
    /* The server may still be starting: retry refused connections. The
     * socket stays non-blocking; every read and write waits in poll(). */
    for (;;) {
        for (struct addrinfo *ai = res; ai && fd < 0 && !gdr_interrupted; ai = ai->ai_next)
            if ((fd = try_connect(ai, deadline, &err)) >= 0)
                used = ai;
        if (fd >= 0 || ms_left(deadline) == 0 || (err != ECONNREFUSED && err != ETIMEDOUT) ||
            gdr_interrupted)
            break;
        usleep(100000); /* a signal wakes it; the flag is looked at next */
    }
    if (fd < 0 && gdr_interrupted) {
        freeaddrinfo(res);
        return gdr_fail_kind(GDR_KIND_INTERRUPTED, GDR_EXIT_RUN,
                             "interrupted while connecting to %s port %u", host, port);
    }
    if (fd < 0) {
        freeaddrinfo(res);
        return gdr_fail(GDR_EXIT_RUN, "cannot connect to %s port %u within %g s: %s", host, port,
                        timeout, strerror(err));
    }
    set_peer_name(out, used->ai_addr, used->ai_addrlen);
    freeaddrinfo(res);
    tune_socket(fd);
    out->fd = fd;
    out->timeout = timeout;
    return 0;
}

void gdr_oob_close(struct gdr_oob *oob)
{
    if (oob->fd >= 0)
        close(oob->fd);
    oob->fd = -1;
    cJSON_Delete(oob->peer_outage);
    oob->peer_outage = NULL;
}

int gdr_oob_send(struct gdr_oob *oob, enum gdr_msg_type type, const cJSON *body)
{
    char *text = body ? cJSON_PrintUnformatted(body) : strdup("{}");
    if (!text)
        return gdr_fail(GDR_EXIT_RUN, "out of memory encoding %s", gdr_msg_type_name(type));
    size_t len = strlen(text);
    int rc;
    if (len > GDR_OOB_MAX_PAYLOAD) {
        rc = gdr_fail(GDR_EXIT_RUN, "internal: %s message of %zu bytes exceeds the limit",
                      gdr_msg_type_name(type), len);
    } else {
        uint8_t hdr[GDR_OOB_HEADER_LEN];
        gdr_oob_encode_header(hdr, type, (uint32_t)len);
        uint64_t deadline = deadline_after(oob->timeout);
        rc = write_full(oob, hdr, sizeof(hdr), deadline, gdr_msg_type_name(type));
        if (!rc)
            rc = write_full(oob, text, len, deadline, gdr_msg_type_name(type));
    }
    free(text);
    return rc;
}

/* An ERROR, or an OUTAGE (what the peer lost: "outage: ..."). */
static void record_peer_error(struct gdr_oob *oob, const cJSON *body, const char *what)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "message");
    char clean[256];
    const char *src = cJSON_IsString(m) ? m->valuestring : "(no reason given)";
    /* The peer's text ends up on our terminal: keep it printable. */
    size_t i;
    for (i = 0; src[i] && i < sizeof(clean) - 1; i++)
        clean[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    clean[i] = '\0';
    /* A usage error on the peer (parameters differ) is one on our side too. */
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(body, "exit_code");
    enum gdr_exit ours =
        cJSON_IsNumber(code) && code->valuedouble == GDR_EXIT_USAGE ? GDR_EXIT_USAGE : GDR_EXIT_RUN;
    /* What failed there is this run's class too (side: the peer's). */
    struct gdr_error_class c;
    if (gdr_json_read_error_class(cJSON_GetObjectItemCaseSensitive(body, "class"), &c))
        gdr_error_class_init(&c, GDR_KIND_PEER);
    gdr_fail_class(&c, ours, "peer %s: %s%s", oob->peer, what, clean);
}

int gdr_oob_recv_any(struct gdr_oob *oob, double extra, unsigned *type, cJSON **body)
{
    uint64_t deadline = deadline_after(oob->timeout + extra);
    uint8_t hdr[GDR_OOB_HEADER_LEN];
    struct gdr_msg_header h;
    *body = NULL;
    if (read_full(oob, hdr, sizeof(hdr), deadline, "a message"))
        return -1;
    const char *bad = gdr_oob_check_header(hdr, &h);
    if (bad)
        return gdr_fail(GDR_EXIT_RUN, "peer %s: %s", oob->peer, bad);
    uint8_t *payload = malloc(h.length ? h.length : 1);
    if (!payload)
        return gdr_fail(GDR_EXIT_RUN, "out of memory for a %u-byte message", h.length);
    int rc = read_full(oob, payload, h.length, deadline, gdr_msg_type_name(h.type));
    cJSON *msg = NULL;
    if (!rc) {
        msg = gdr_oob_parse_payload(payload, h.length, &bad);
        if (!msg)
            rc = gdr_fail(GDR_EXIT_RUN, "peer %s: %s message: %s", oob->peer,
                          gdr_msg_type_name(h.type), bad);
    }
    free(payload);
    if (rc)
        return -1;
    if (h.type == GDR_MSG_ERROR) {
        record_peer_error(oob, msg, "");
        oob->peer_gave_up = true;
        cJSON_Delete(msg);
        return -1;
    }
    if (h.type == GDR_MSG_OUTAGE) {
        record_peer_error(oob, msg, "outage: ");
        cJSON_Delete(oob->peer_outage);
        oob->peer_outage = msg;
        return -1;
    }
    *type = h.type;
    *body = msg;
    return 0;
}

int gdr_oob_recv(struct gdr_oob *oob, enum gdr_msg_type expected, double extra, cJSON **body)
{
    unsigned type;
    if (gdr_oob_recv_any(oob, extra, &type, body))
        return -1;
    if (type != expected) {
        cJSON_Delete(*body);
        *body = NULL;
        return gdr_fail(GDR_EXIT_RUN, "peer %s: expected %s, got %s", oob->peer,
                        gdr_msg_type_name(expected), gdr_msg_type_name(type));
    }
    return 0;
}

void gdr_oob_send_error(struct gdr_oob *oob, const char *message, int exit_code)
{
    if (oob->fd < 0)
        return;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "message", message);
    cJSON_AddNumberToObject(body, "exit_code", exit_code);
    if (gdr_error_code() != GDR_EXIT_OK) /* the class of the error being reported */
        cJSON_AddItemToObject(body, "class", gdr_json_error_class(gdr_error_class()));
    double saved = oob->timeout;
    oob->timeout = 1.0;  /* a peer that is not reading must not hold us up */
    oob->closing = true; /* sent even when interrupted: the peer is told why */
    /* If this fails, the error already recorded stays the one reported. */
    gdr_oob_send(oob, GDR_MSG_ERROR, body);
    oob->closing = false;
    oob->timeout = saved;
    cJSON_Delete(body);
}

int gdr_oob_readable(struct gdr_oob *oob)
{
    struct pollfd p = {.fd = oob->fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

int gdr_oob_peer_last_words(struct gdr_oob *oob)
{
    uint8_t hdr[GDR_OOB_HEADER_LEN];
    struct gdr_msg_header h;
    ssize_t n = recv(oob->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);
    if (n == 0)
        return 1;
    if (n != (ssize_t)sizeof(hdr) || gdr_oob_check_header(hdr, &h) ||
        (h.type != GDR_MSG_ERROR && h.type != GDR_MSG_OUTAGE))
        return 0;
    /* The ERROR was sent whole: its body is there or about to be. */
    double saved = oob->timeout;
    oob->timeout = 0.2;
    oob->closing = true;
    unsigned type;
    cJSON *body;
    if (gdr_oob_recv_any(oob, 0, &type, &body) == 0) /* records the peer's reason */
        cJSON_Delete(body);
    oob->closing = false;
    oob->timeout = saved;
    return -1;
}
