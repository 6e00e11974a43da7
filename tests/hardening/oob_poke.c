/* oob_poke.c - a hostile or broken gdrbench peer for the hardening tests.
 *
 *   oob_poke [-w SEC] HOST PORT ITEM...
 *
 * Connects to HOST:PORT, sends the ITEMs in order, then prints what comes
 * back (one line per framed message, "closed" at EOF, "silent" when nothing
 * came for SEC seconds, default 10), then "elapsed S": seconds from the
 * connection to that end. ITEMs:
 *
 *   hdr:TYPE:LEN[:VERSION[:MAGIC]]  a 12-byte header (MAGIC 4 characters; VERSION
 *                                   by default the protocol's, GDR_OOB_VERSION)
 *   msg:TYPE:JSON                   a well-formed message with that payload
 *   raw:TEXT                        TEXT as is
 *   sleep:SEC                       wait before the next item
 *   shut                            no more to send (shutdown SHUT_WR)
 *
 * Exit 0 once the reply is printed, 1 when the connection failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oob.h" /* GDR_OOB_VERSION: the header every item but hdr: gets */

static void header(uint8_t out[12], const char *magic, unsigned version, unsigned type,
                   uint32_t len)
{
    uint16_t v = htons((uint16_t)version), t = htons((uint16_t)type);
    uint32_t l = htonl(len);
    memcpy(out, magic, 4);
    memcpy(out + 4, &v, 2);
    memcpy(out + 6, &t, 2);
    memcpy(out + 8, &l, 4);
}

static int send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            printf("send failed: %s\n", strerror(errno));
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int send_item(int fd, char *item)
{
    uint8_t hdr[12];
    if (!strncmp(item, "hdr:", 4)) {
        char *type = strtok(item + 4, ":"), *len = strtok(NULL, ":");
        char *ver = strtok(NULL, ":"), *magic = strtok(NULL, ":");
        if (!type || !len || (magic && strlen(magic) != 4))
            return fprintf(stderr, "oob_poke: bad item\n"), -1;
        header(hdr, magic ? magic : "GDRB", ver ? (unsigned)strtoul(ver, NULL, 0) : GDR_OOB_VERSION,
               (unsigned)strtoul(type, NULL, 0), (uint32_t)strtoul(len, NULL, 0));
        return send_all(fd, hdr, sizeof(hdr));
    }
    if (!strncmp(item, "msg:", 4)) {
        char *json = strchr(item + 4, ':');
        if (!json)
            return fprintf(stderr, "oob_poke: bad item\n"), -1;
        *json++ = '\0';
        header(hdr, "GDRB", GDR_OOB_VERSION, (unsigned)strtoul(item + 4, NULL, 0),
               (uint32_t)strlen(json));
        return send_all(fd, hdr, sizeof(hdr)) || send_all(fd, json, strlen(json)) ? -1 : 0;
    }
    if (!strncmp(item, "raw:", 4))
        return send_all(fd, item + 4, strlen(item + 4));
    if (!strncmp(item, "sleep:", 6)) {
        usleep((useconds_t)(atof(item + 6) * 1e6));
        return 0;
    }
    if (!strcmp(item, "shut"))
        return shutdown(fd, SHUT_WR);
    fprintf(stderr, "oob_poke: unknown item '%s'\n", item);
    return -1;
}

/* Read exactly len bytes within the wait; 1 on EOF, -1 on silence. */
static int read_full(int fd, uint8_t *buf, size_t len, int wait_ms)
{
    while (len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, wait_ms) <= 0)
            return -1;
        ssize_t n = recv(fd, buf, len, 0);
        if (n <= 0)
            return 1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int wait_ms = 10000, i = 1;
    if (argc > 2 && !strcmp(argv[1], "-w")) {
        wait_ms = (int)(atof(argv[2]) * 1000);
        i = 3;
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: oob_poke [-w SEC] HOST PORT ITEM...\n");
        return 2;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(argv[i], argv[i + 1], &hints, &ai)) {
        printf("cannot resolve %s\n", argv[i]);
        return 1;
    }
    int fd = -1;
    /* The server may still be starting. */
    for (int tries = 0; tries < 100 && fd < 0; tries++) {
        fd = socket(ai->ai_family, SOCK_STREAM, 0);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
            close(fd);
            fd = -1;
            usleep(100000);
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        printf("cannot connect to %s port %s\n", argv[i], argv[i + 1]);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i += 2; i < argc; i++)
        if (send_item(fd, argv[i]))
            break;
    for (;;) {
        uint8_t hdr[12];
        int r = read_full(fd, hdr, sizeof(hdr), wait_ms);
        if (r) {
            printf("%s\n", r > 0 ? "closed" : "silent");
            break;
        }
        uint32_t len;
        uint16_t type;
        memcpy(&type, hdr + 6, 2);
        memcpy(&len, hdr + 8, 4);
        len = ntohl(len);
        if (memcmp(hdr, "GDRB", 4) || len > 65536) {
            printf("not a gdrbench frame\n");
            break;
        }
        char *body = calloc(1, len + 1);
        if (!body || read_full(fd, (uint8_t *)body, len, wait_ms)) {
            printf("truncated frame\n");
            free(body);
            break;
        }
        printf("type %u: %s\n", ntohs(type), body);
        free(body);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("elapsed %.1f\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    close(fd);
    return 0;
}
