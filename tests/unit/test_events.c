/* test_events.c - what a failure's class says: the verbs names of
 * completion statuses and events, which events end a run, the class and
 * message of a failed completion, the defaults error.c fills in, and the
 * class as JSON (written, and read back leniently from a peer). */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>

#include "events.h"
#include "json.h"
#include "verbs.h"

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gdr_wc_status_name(IBV_WC_RETRY_EXC_ERR), "IBV_WC_RETRY_EXC_ERR");
    assert_string_equal(gdr_wc_status_name(IBV_WC_REM_ACCESS_ERR), "IBV_WC_REM_ACCESS_ERR");
    assert_string_equal(gdr_wc_status_name(IBV_WC_WR_FLUSH_ERR), "IBV_WC_WR_FLUSH_ERR");
    assert_string_equal(gdr_wc_status_name(IBV_WC_SUCCESS), "IBV_WC_SUCCESS");
    assert_string_equal(gdr_wc_status_name((enum ibv_wc_status)999), "IBV_WC_UNKNOWN");
    assert_string_equal(gdr_event_name(IBV_EVENT_PORT_ERR), "IBV_EVENT_PORT_ERR");
    assert_string_equal(gdr_event_name(IBV_EVENT_QP_FATAL), "IBV_EVENT_QP_FATAL");
    assert_string_equal(gdr_event_name(IBV_EVENT_DEVICE_FATAL), "IBV_EVENT_DEVICE_FATAL");
    assert_string_equal(gdr_event_name(IBV_EVENT_CQ_ERR), "IBV_EVENT_CQ_ERR"); /* code 0 */
    assert_string_equal(gdr_event_name((enum ibv_event_type)999), "IBV_EVENT_UNKNOWN");
}

/* Fatal: what leaves this run's QPs or port unable to carry it. Not: what
 * a healthy fabric also sends, and another port's trouble. */
static void test_fatal_events(void **state)
{
    (void)state;
    struct ibv_qp qp0 = {.qp_num = 17}, qp1 = {.qp_num = 18}, stranger = {.qp_num = 99};
    struct ibv_cq scq, rcq, other_cq;
    struct gdr_verbs v = {.port = 1, .num_qps = 2, .send_cq = &scq, .recv_cq = &rcq};
    v.qp[0] = &qp0;
    v.qp[1] = &qp1;
    struct ibv_async_event e = {.event_type = IBV_EVENT_PORT_ERR, .element.port_num = 1};
    assert_true(gdr_event_is_fatal(&v, &e));
    e.element.port_num = 2;
    assert_false(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_FATAL, .element.qp = &qp1};
    assert_true(gdr_event_is_fatal(&v, &e));
    e.element.qp = &stranger;
    assert_false(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_ACCESS_ERR, .element.qp = &qp0};
    assert_true(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_CQ_ERR, .element.cq = &rcq};
    assert_true(gdr_event_is_fatal(&v, &e));
    e.element.cq = &other_cq;
    assert_false(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_DEVICE_FATAL};
    assert_true(gdr_event_is_fatal(&v, &e));
    /* The NIC flush's loopback QP and CQ are the run's own once created;
     * before that a QP or CQ event about nothing matches nothing. */
    struct ibv_qp flush_qp = {.qp_num = 40};
    struct ibv_cq flush_cq;
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_FATAL, .element.qp = &flush_qp};
    assert_false(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_FATAL, .element.qp = NULL};
    assert_false(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_CQ_ERR, .element.cq = NULL};
    assert_false(gdr_event_is_fatal(&v, &e));
    v.flush_qp = &flush_qp;
    v.flush_cq = &flush_cq;
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_FATAL, .element.qp = &flush_qp};
    assert_true(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_CQ_ERR, .element.cq = &flush_cq};
    assert_true(gdr_event_is_fatal(&v, &e));
    e = (struct ibv_async_event){.event_type = IBV_EVENT_QP_FATAL, .element.qp = NULL};
    assert_false(gdr_event_is_fatal(&v, &e));
    static const enum ibv_event_type healthy[] = {
        IBV_EVENT_PORT_ACTIVE, IBV_EVENT_LID_CHANGE, IBV_EVENT_GID_CHANGE,
        IBV_EVENT_SM_CHANGE,   IBV_EVENT_COMM_EST,   IBV_EVENT_CLIENT_REREGISTER,
        IBV_EVENT_PKEY_CHANGE, IBV_EVENT_SQ_DRAINED, IBV_EVENT_QP_LAST_WQE_REACHED,
    };
    for (size_t i = 0; i < sizeof(healthy) / sizeof(healthy[0]); i++) {
        e = (struct ibv_async_event){.event_type = healthy[i], .element.port_num = 1};
        if (healthy[i] == IBV_EVENT_COMM_EST || healthy[i] == IBV_EVENT_SQ_DRAINED ||
            healthy[i] == IBV_EVENT_QP_LAST_WQE_REACHED)
            e.element.qp = &qp0;
        if (gdr_event_is_fatal(&v, &e))
            fail_msg("%s is not fatal", gdr_event_name(healthy[i]));
    }
}

/* A failed completion names the operation, size, QP, iteration and the
 * status by its verbs name; its class says the same, and the fatal event
 * seen before it. */
static void test_completion_class(void **state)
{
    (void)state;
    struct gdr_verbs v = {.port = 1};
    snprintf(v.dev_name, sizeof(v.dev_name), "rxe1");
    struct ibv_wc wc = {.status = IBV_WC_RETRY_EXC_ERR, .qp_num = 17, .vendor_err = 0x81};
    gdr_error_side("client");
    gdr_error_at("timed", 65536);
    assert_int_equal(gdr_wc_fail(&v, &wc, "RDMA write", 65536, 1234), -1);
    assert_error(GDR_EXIT_RUN, "RDMA write of 65536 bytes failed on QP 17 at iteration 1234: "
                               "transport retry counter exceeded (IBV_WC_RETRY_EXC_ERR, vendor "
                               "error 0x81)");
    const struct gdr_error_class *c = gdr_error_class();
    assert_string_equal(c->kind, "completion");
    assert_string_equal(c->wc_status, "IBV_WC_RETRY_EXC_ERR");
    assert_string_equal(c->event, "");
    assert_string_equal(c->side, "client");
    assert_string_equal(c->phase, "timed");
    assert_int_equal(c->size, 65536);
    assert_int_equal(c->iteration, 1234);

    /* The port went down first: the completion's line and class say so. */
    gdr_error_clear();
    snprintf(v.fatal_event, sizeof(v.fatal_event), "IBV_EVENT_PORT_ERR");
    snprintf(v.fatal_where, sizeof(v.fatal_where), "rxe1 port 1");
    gdr_error_at("warmup", 4096);
    wc.status = IBV_WC_WR_FLUSH_ERR;
    assert_int_equal(gdr_wc_fail(&v, &wc, "send", 4096, 3), -1);
    assert_error(GDR_EXIT_RUN, "send of 4096 bytes failed on QP 17 at iteration 3 of the warm-up: "
                               "Work Request Flushed Error (IBV_WC_WR_FLUSH_ERR, vendor error "
                               "0x81), after asynchronous event IBV_EVENT_PORT_ERR on rxe1 port 1");
    assert_string_equal(gdr_error_class()->event, "IBV_EVENT_PORT_ERR");
    assert_string_equal(gdr_error_class()->phase, "warmup");

    /* Not watched: no event is pending, and none is invented. */
    gdr_error_clear();
    gdr_error_at("warmup", 4096);
    v.fatal_event[0] = '\0';
    assert_int_equal(gdr_events_check(&v, 5), 0);
    assert_no_error();
    snprintf(v.fatal_event, sizeof(v.fatal_event), "IBV_EVENT_QP_FATAL");
    snprintf(v.fatal_where, sizeof(v.fatal_where), "rxe1 QP 17");
    assert_int_equal(gdr_events_check(&v, 5), -1);
    assert_error(GDR_EXIT_RUN,
                 "asynchronous event IBV_EVENT_QP_FATAL on rxe1 QP 17 at size 4096, iteration "
                 "5 of the warm-up");
    assert_string_equal(gdr_error_class()->kind, "event");
    assert_int_equal(gdr_error_class()->iteration, 5);
    gdr_error_at(NULL, 0);
}

/* What error.c fills in: setup before the sweep, other in it; where the
 * run is; the first error's class stays. */
static void test_defaults(void **state)
{
    (void)state;
    gdr_error_side("server");
    gdr_fail(GDR_EXIT_ENV, "no RDMA device");
    const struct gdr_error_class *c = gdr_error_class();
    assert_string_equal(c->kind, "setup");
    assert_string_equal(c->side, "server");
    assert_true(c->size == GDR_ERROR_UNKNOWN);
    assert_true(c->iteration == GDR_ERROR_UNKNOWN);
    char at[64];
    gdr_error_where(at, sizeof(at), 7);
    assert_string_equal(at, "");

    gdr_error_clear();
    gdr_error_at("", 8192);
    gdr_fail(GDR_EXIT_RUN, "something");
    assert_string_equal(gdr_error_class()->kind, "other");
    assert_int_equal(gdr_error_class()->size, 8192);
    assert_string_equal(gdr_error_class()->phase, "");
    gdr_fail_kind("timeout", GDR_EXIT_RUN, "later");
    assert_string_equal(gdr_error_class()->kind, "other"); /* the first stays */
    gdr_error_where(at, sizeof(at), GDR_ERROR_UNKNOWN);
    assert_string_equal(at, " at size 8192");

    gdr_error_clear();
    gdr_error_at("timed", 8192);
    gdr_error_at(NULL, 0); /* after the sweep: other, not setup */
    gdr_fail(GDR_EXIT_RUN, "BYE lost");
    assert_string_equal(gdr_error_class()->kind, "other");
    assert_true(gdr_error_class()->size == GDR_ERROR_UNKNOWN);
}

static void test_class_json(void **state)
{
    (void)state;
    struct gdr_error_class c, back;
    gdr_error_class_init(&c, "event");
    snprintf(c.event, sizeof(c.event), "IBV_EVENT_DEVICE_FATAL");
    snprintf(c.side, sizeof(c.side), "server");
    snprintf(c.phase, sizeof(c.phase), "timed");
    c.size = 4194304;
    c.iteration = 12;
    cJSON *o = gdr_json_error_class(&c);
    char *text = cJSON_PrintUnformatted(o);
    assert_string_equal(text,
                        "{\"kind\":\"event\",\"side\":\"server\",\"phase\":\"timed\",\"size\":"
                        "4194304,\"iteration\":12,\"event\":\"IBV_EVENT_DEVICE_FATAL\"}");
    free(text);
    assert_int_equal(gdr_json_read_error_class(o, &back), 0);
    assert_memory_equal(&c, &back, sizeof(c));
    cJSON_Delete(o);

    /* Unknown: only the kind. */
    gdr_error_class_init(&c, "peer");
    o = gdr_json_error_class(&c);
    text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"kind\":\"peer\"}");
    free(text);
    cJSON_Delete(o);

    /* From a peer: what is not what it may be is left out, silently. */
    o = cJSON_Parse("{\"kind\":\"completion\",\"side\":\"evil\",\"phase\":7,\"size\":\"123\","
                    "\"iteration\":-4,\"wc_status\":\"IBV_WC_\\u001b[2J\","
                    "\"event\":\"IBV_EVENT_PORT_ERR\"}");
    assert_int_equal(gdr_json_read_error_class(o, &back), 0);
    assert_string_equal(back.kind, "completion");
    assert_string_equal(back.side, "");
    assert_string_equal(back.phase, "");
    assert_int_equal(back.size, 123);
    assert_true(back.iteration == GDR_ERROR_UNKNOWN);
    assert_string_equal(back.wc_status, "");
    assert_string_equal(back.event, "IBV_EVENT_PORT_ERR");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"kind\":\"meltdown\"}");
    assert_int_equal(gdr_json_read_error_class(o, &back), -1);
    cJSON_Delete(o);
    assert_int_equal(gdr_json_read_error_class(NULL, &back), -1);
    assert_no_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        gdr_unit_test(test_names),
        gdr_unit_test(test_fatal_events),
        gdr_unit_test(test_completion_class),
        gdr_unit_test(test_defaults),
        gdr_unit_test(test_class_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
