/* oob.h - the out-of-band TCP channel between client and server.
 *
 * Every message is a 12-byte header (magic "GDRB", protocol version,
 * message type, payload length; network byte order) followed by a JSON
 * object of at most GDR_OOB_MAX_PAYLOAD bytes. JSON keeps the protocol
 * extensible and readable in a capture; the header keeps it framed, so a
 * stray or hostile connection is recognised before anything is parsed.
 * Every read and write has a deadline. */
#ifndef GDR_OOB_H
#define GDR_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define GDR_OOB_MAGIC 0x47445242u /* "GDRB" */
#define GDR_OOB_VERSION 2
#define GDR_OOB_HEADER_LEN 12
#define GDR_OOB_MAX_PAYLOAD 65536

enum gdr_msg_type {
    GDR_MSG_HELLO = 1,   /* client -> server: tool, version, test parameters */
    GDR_MSG_HELLO_ACK,   /* server -> client: parameters agree */
    GDR_MSG_ENDPOINT,    /* both ways: host, device, QPs, buffer, rkey */
    GDR_MSG_SIZE_START,  /* client -> server: the next phase (size, iterations) */
    GDR_MSG_READY,       /* server -> client: prepared for that phase */
    GDR_MSG_SIZE_DONE,   /* client -> server: the client's measurements */
    GDR_MSG_SIZE_RESULT, /* server -> client: the server's measurements, data check */
    GDR_MSG_BYE,         /* client -> server: sweep complete */
    GDR_MSG_ERROR,       /* either way: the sender is giving up, and why */
    GDR_MSG_READS,       /* both ways: the reads in flight its QPs hold (RTS) */
    GDR_MSG_OUTAGE,      /* either way, in a soak: the sender lost its QPs or port and
                          * reconnects (soak_reconnect.h) */
    GDR_MSG_REJOIN,      /* both ways, after an outage: the new QPs, where the soak resumes */
    GDR_MSG_TYPE_MAX = GDR_MSG_REJOIN,
};

struct gdr_msg_header {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t length;
};

/* A server serving one client answers any other with ERROR "busy:
 * serving HOST:PORT". Refused clients stay open for a moment after their
 * ERROR: closing a socket with their unread HELLO in it would send a
 * reset, and a reset can destroy the ERROR before the client reads it. */
#define GDR_OOB_REFUSED_MAX 16
struct gdr_oob_refusal {
    int listen_fd; /* -1: not refusing */
    char message[160];
    unsigned n_open;
    struct {
        int fd;
        uint64_t since_ns;
    } open[GDR_OOB_REFUSED_MAX]; /* refused, closed once they hang up or after 1 s */
};

struct gdr_oob {
    int fd;
    char peer[128];                  /* "host:port" for messages */
    double timeout;                  /* seconds per exchange */
    char at[40];                     /* where the run is, for messages: " at size 4096" */
    struct gdr_oob_refusal *refusal; /* server: answered during every wait; NULL: none */
    bool closing; /* reading or sending last words: not stopped by an interrupt */
    /* Watched by every wait too (the device's asynchronous events): when
     * watch_fd is readable, watch(watch_arg) runs, and -1 from it ends
     * the wait with the error it recorded. NULL watch: nothing watched. */
    int (*watch)(void *arg);
    void *watch_arg;
    int watch_fd;
    /* A soak's peer said OUTAGE: the wait that read it failed (recorded as
     * the peer's outage) and left the message here for the reconnect,
     * which frees it. NULL: none. */
    cJSON *peer_outage;
    bool peer_gave_up; /* a wait read the peer's ERROR: nothing to reconnect to */
};

const char *gdr_msg_type_name(unsigned type);

/* Pure codec (no I/O), shared by the channel and the fuzz target. */
void gdr_oob_encode_header(uint8_t out[GDR_OOB_HEADER_LEN], unsigned type, uint32_t length);
/* Returns NULL when the header is acceptable, else what is wrong with it. */
const char *gdr_oob_check_header(const uint8_t in[GDR_OOB_HEADER_LEN], struct gdr_msg_header *h);
/* Parse a payload; returns a JSON object or NULL with *why set. */
cJSON *gdr_oob_parse_payload(const uint8_t *buf, size_t len, const char **why);

/* Server: a listening socket on bind_addr (NULL: all addresses). */
int gdr_oob_listen(const char *bind_addr, uint16_t port, int *listen_fd);
/* Wait up to timeout seconds for one client. */
int gdr_oob_accept(int listen_fd, double timeout, struct gdr_oob *out);
/* Server, once serving `serving`: keep listen_fd open and answer any
 * further client with ERROR "busy: serving HOST:PORT" and a close. The
 * waits on serving's channel and gdr_oob_refuse_pending() do the
 * answering; r (owned by the caller) holds the state. */
void gdr_oob_refuse_others(struct gdr_oob_refusal *r, int listen_fd, struct gdr_oob *serving);
/* Stop refusing (before listen_fd is closed). */
void gdr_oob_refuse_stop(struct gdr_oob_refusal *r);
/* Non-blocking: refuse whatever connections are pending (polling loops).
 * r may be NULL (a client: nothing to refuse). */
void gdr_oob_refuse_pending(struct gdr_oob_refusal *r);
/* Client: connect, retrying while the server is not up yet, for up to timeout. */
int gdr_oob_connect(const char *host, uint16_t port, double timeout, struct gdr_oob *out);
void gdr_oob_close(struct gdr_oob *oob);

/* Send one message; body may be NULL (an empty object is sent). */
int gdr_oob_send(struct gdr_oob *oob, enum gdr_msg_type type, const cJSON *body);
/* Receive one message of the expected type within extra + oob->timeout
 * seconds. An ERROR message from the peer becomes this side's error,
 * naming the peer. The caller frees *body with cJSON_Delete. */
int gdr_oob_recv(struct gdr_oob *oob, enum gdr_msg_type expected, double extra, cJSON **body);
/* Receive whichever message comes next; *type gets its type. */
int gdr_oob_recv_any(struct gdr_oob *oob, double extra, unsigned *type, cJSON **body);
/* Tell the peer why we are giving up (best effort, never blocks long),
 * with the class of the recorded error, which the peer's
 * gdr_oob_recv* records as its own. */
void gdr_oob_send_error(struct gdr_oob *oob, const char *message, int exit_code);
/* Non-blocking: is there something to read (a message, or EOF)? */
int gdr_oob_readable(struct gdr_oob *oob);
/* Non-blocking look at what the peer has sent, when it may have given up:
 * 1 when it has closed the connection; -1 when it sent an ERROR (its
 * reason is recorded as this side's error) or an OUTAGE (recorded too,
 * and kept in peer_outage); 0 otherwise (nothing, or a message that waits
 * for its turn). */
int gdr_oob_peer_last_words(struct gdr_oob *oob);

#endif
