/* fake_cq.h - what the double's own tests share of their fake provider:
 * a completion queue of 256 entries, polled in order, that never needs
 * arming, and the CHECK that counts failures. Each test keeps its own
 * post_send (what reaching the peer means differs). Included once per
 * test program. */
#ifndef VS_FAKE_CQ_H
#define VS_FAKE_CQ_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define FAKE_CQ_LEN 256
static struct {
    struct ibv_wc cqe[FAKE_CQ_LEN];
    size_t head, tail;
} fake_cq;

static inline bool fake_cq_full(void)
{
    return fake_cq.tail - fake_cq.head == FAKE_CQ_LEN;
}

static inline void fake_cq_push(const struct ibv_wc *wc)
{
    fake_cq.cqe[fake_cq.tail++ % FAKE_CQ_LEN] = *wc;
}

static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
    (void)cq;
    int n = 0;
    while (n < num && fake_cq.head != fake_cq.tail)
        wc[n++] = fake_cq.cqe[fake_cq.head++ % FAKE_CQ_LEN];
    return n;
}

static int fake_req_notify(struct ibv_cq *cq, int solicited)
{
    (void)cq, (void)solicited;
    return 0;
}

#endif
