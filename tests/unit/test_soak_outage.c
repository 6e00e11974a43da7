/* test_soak_outage.c - when a soak's outage starts (and what it names as
 * its cause): at the failure that
 * ends an interval, or earlier, when a fatal device event was read and
 * kept before it (during the last interval's exchange of results, where
 * it ends nothing: a link that goes down then stalls that exchange too,
 * and the outage read seconds late and short). Judged against the
 * soak's own clock, bracketed by reads of the same clock: no wall-clock
 * bound. */
#include "config.h"

#include "unit.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "options.h"
#include "session.h"
#include "soak.h"

static const struct gdr_test write_bw = {.name = "write_bw", .binary = "gdr_write_bw"};

struct rig {
    struct gdr_config cfg;
    struct gdr_session s;
    char dir[64], lines[96];
    uint64_t begun_after, begun_before; /* the soak's start lies between */
};

static void rig_start(struct rig *r)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->dir, sizeof(r->dir), "/tmp/gdr-soak-outage.XXXXXX");
    assert_non_null(mkdtemp(r->dir));
    snprintf(r->lines, sizeof(r->lines), "%s/lines.jsonl", r->dir);
    r->cfg.soak_s = 60;
    r->cfg.interval_s = 10;
    r->cfg.reconnect_timeout_s = 30;
    r->cfg.ib_port = 1;
    r->cfg.json_lines_path = r->lines;
    r->s.cfg = &r->cfg;
    r->s.test = &write_bw;
    snprintf(r->s.verbs.dev_name, sizeof(r->s.verbs.dev_name), "nosuchdev0");
    r->begun_after = gdr_now_ns();
    assert_int_equal(gdr_soak_begin(&r->s), 0);
    r->begun_before = gdr_now_ns();
}

static void rig_stop(struct rig *r)
{
    gdr_soak_release(&r->s);
    unlink(r->lines);
    rmdir(r->dir);
}

static double secs(uint64_t later, uint64_t earlier)
{
    return later > earlier ? (double)(later - earlier) * 1e-9 : 0;
}

/* KEY's value in the last line of the JSON lines that has it (and `also`,
 * when given): NULL when none does. line holds that line. */
static const char *last_value(const struct rig *r, const char *key, const char *also, char *line,
                              size_t len)
{
    FILE *f = fopen(r->lines, "r");
    assert_non_null(f);
    char buf[8192];
    const char *at = NULL;
    while (fgets(buf, sizeof(buf), f)) {
        const char *p = strstr(buf, key);
        if (p && (!also || strstr(buf, also))) {
            snprintf(line, len, "%s", buf);
            at = line + (p - buf) + strlen(key);
        }
    }
    fclose(f);
    return at;
}

/* The outage's start_s in the last "down" line. */
static double down_line_start(const struct rig *r)
{
    char line[8192];
    const char *v = last_value(r, "\"start_s\":", "\"state\":\"down\"", line, sizeof(line));
    return v ? strtod(v, NULL) : -1;
}

static struct gdr_error_class event_class(void)
{
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_EVENT);
    snprintf(c.event, sizeof(c.event), "IBV_EVENT_PORT_ERR");
    return c;
}

/* A port error read during the exchange, acted on 20 ms later: the outage
 * starts when it was read, in the outage's line too, and lasts from then. */
static void test_kept_event_starts_the_outage(void **state)
{
    (void)state;
    struct rig r;
    rig_start(&r);
    usleep(20000);
    snprintf(r.s.verbs.fatal_event, sizeof(r.s.verbs.fatal_event), "IBV_EVENT_PORT_ERR");
    r.s.verbs.fatal_at_ns = gdr_now_ns();
    usleep(20000);
    struct gdr_error_class c = event_class();
    uint64_t acted = gdr_now_ns();
    assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "asynchronous event", false), 0);
    double start = gdr_soak_outage_start(&r.s);
    assert_true(start >= secs(r.s.verbs.fatal_at_ns, r.begun_before));
    assert_true(start <= secs(r.s.verbs.fatal_at_ns, r.begun_after));
    assert_true(start < secs(acted, r.begun_before)); /* not when it was acted on */
    /* as printed (cJSON writes 15 digits where they read back close
     * enough): the same to the ns */
    assert_true(fabs(down_line_start(&r) - start) < 1e-9);
    assert_int_equal(gdr_soak_outage_end(&r.s, "reconnected"), 0);
    rig_stop(&r);
}

/* No event kept (a failed completion, a stall): the outage starts as it
 * is begun. */
static void test_failure_starts_the_outage(void **state)
{
    (void)state;
    struct rig r;
    rig_start(&r);
    usleep(20000);
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_COMPLETION);
    uint64_t before = gdr_now_ns();
    assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "IBV_WC_RETRY_EXC_ERR", false), 0);
    uint64_t after = gdr_now_ns();
    double start = gdr_soak_outage_start(&r.s);
    assert_true(start >= secs(before, r.begun_before));
    assert_true(start <= secs(after, r.begun_after));
    rig_stop(&r);
}

/* A kept event from before the soak began (read at its setup) starts the
 * outage at 0, never before the soak. */
static void test_event_before_the_soak(void **state)
{
    (void)state;
    struct rig r;
    uint64_t early = gdr_now_ns();
    usleep(5000);
    rig_start(&r);
    snprintf(r.s.verbs.fatal_event, sizeof(r.s.verbs.fatal_event), "IBV_EVENT_QP_FATAL");
    r.s.verbs.fatal_at_ns = early;
    struct gdr_error_class c = event_class();
    assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "asynchronous event", false), 0);
    assert_true(gdr_soak_outage_start(&r.s) == 0);
    rig_stop(&r);
}

/* The "cause" of the outage's last line. */
static void line_cause(const struct rig *r, char *out, size_t len)
{
    char line[8192];
    const char *v = last_value(r, "\"cause\":\"", NULL, line, sizeof(line));
    size_t n = v ? strcspn(v, "\"") : 0;
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), v ? v : "");
}

/* A flushed request is never the cause: the QP fatal event that flushed it
 * is (the loop read the flush first). A completion's own error stays the
 * cause beside a port event. */
static void test_cause_is_not_a_flush(void **state)
{
    (void)state;
    static const struct {
        const char *wc, *event, *cause;
    } cases[] = {
        {"IBV_WC_WR_FLUSH_ERR", "IBV_EVENT_QP_FATAL", "IBV_EVENT_QP_FATAL"},
        {"IBV_WC_RETRY_EXC_ERR", "IBV_EVENT_PORT_ERR", "IBV_WC_RETRY_EXC_ERR"},
        {"IBV_WC_WR_FLUSH_ERR", "", "IBV_WC_WR_FLUSH_ERR"},
        {"", "IBV_EVENT_PORT_ERR", "IBV_EVENT_PORT_ERR"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rig r;
        rig_start(&r);
        struct gdr_error_class c;
        gdr_error_class_init(&c, cases[i].wc[0] ? GDR_KIND_COMPLETION : GDR_KIND_EVENT);
        snprintf(c.wc_status, sizeof(c.wc_status), "%s", cases[i].wc);
        snprintf(c.event, sizeof(c.event), "%s", cases[i].event);
        assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "failed", false), 0);
        char cause[64];
        line_cause(&r, cause, sizeof(cause));
        assert_string_equal(cause, cases[i].cause);
        rig_stop(&r);
    }
}

/* Past the outages kept (64), an outage still ends where it ends: the
 * interval after it starts then, so a slow interval on each side is a dip
 * of its own, not one across the outage (soak_findings.c). With the
 * 65th's end not moving the interval's start, the two were one dip. */
static void test_unkept_outage_splits_a_dip(void **state)
{
    (void)state;
    struct rig r;
    rig_start(&r);
    r.cfg.dip_pct = 90;
    struct gdr_error_class c;
    gdr_error_class_init(&c, GDR_KIND_COMPLETION);
    struct gdr_size_result row;
    memset(&row, 0, sizeof(row));
    for (int i = 0; i < 64; i++) {
        assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "IBV_WC_RETRY_EXC_ERR", false), 0);
        assert_int_equal(gdr_soak_outage_end(&r.s, "reconnected"), 0);
    }
    const double bw[] = {1e9, 1e9, 1e9, 1e9, 0.5e9, -1, 0.5e9, 1e9, 1e9, 1e9, 1e9};
    for (size_t i = 0; i < sizeof(bw) / sizeof(bw[0]); i++) {
        usleep(2000);
        if (bw[i] < 0) { /* the 65th outage, not kept */
            assert_int_equal(gdr_soak_outage_begin(&r.s, &c, "IBV_WC_RETRY_EXC_ERR", false), 0);
            usleep(2000);
            assert_int_equal(gdr_soak_outage_end(&r.s, "reconnected"), 0);
            continue;
        }
        row.m.bw_avg = bw[i];
        assert_int_equal(gdr_soak_interval(&r.s, &row), 0);
    }
    gdr_soak_finish(&r.s);
    cJSON *j = gdr_soak_json(&r.s);
    const cJSON *f, *all = cJSON_GetObjectItem(j, "findings");
    int dips = 0;
    cJSON_ArrayForEach(f, all) {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), "dip")) {
            dips++;
            assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "first_interval")),
                             cJSON_GetNumberValue(cJSON_GetObjectItem(f, "last_interval")));
        }
    }
    assert_int_equal(dips, 2);
    cJSON_Delete(j);
    rig_stop(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_event_starts_the_outage),
        cmocka_unit_test(test_failure_starts_the_outage),
        cmocka_unit_test(test_event_before_the_soak),
        cmocka_unit_test(test_cause_is_not_a_flush),
        cmocka_unit_test(test_unkept_outage_splits_a_dip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
