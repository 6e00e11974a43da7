/* size_msg.c - the per-size messages' codec (see size_msg.h). */
#include "config.h"

#include "size_msg.h"

#include "error.h"
#include "json.h"
#include "options.h"
#include "sizes.h"

#include <string.h>

static cJSON *measure_encode(const struct gdr_measure *m)
{
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_u64(o, "iters", m->iters);
    gdr_json_add_u64(o, "bytes", m->bytes);
    gdr_json_add_u64(o, "elapsed_ns", m->elapsed_ns);
    cJSON_AddNumberToObject(o, "bw_avg", m->bw_avg);
    cJSON_AddNumberToObject(o, "bw_peak", m->bw_peak);
    cJSON_AddNumberToObject(o, "msg_rate", m->msg_rate);
    cJSON_AddNumberToObject(o, "cpu_user", m->cpu.user);
    cJSON_AddNumberToObject(o, "cpu_system", m->cpu.system);
    gdr_json_add_u64(o, "window_msgs", m->window.msgs);
    gdr_json_add_u64(o, "window_bytes", m->window.bytes);
    cJSON *l = cJSON_AddObjectToObject(o, "lat");
    gdr_json_add_u64(l, "count", m->lat.count);
    cJSON_AddNumberToObject(l, "min", m->lat.min);
    cJSON_AddNumberToObject(l, "max", m->lat.max);
    cJSON_AddNumberToObject(l, "mean", m->lat.mean);
    cJSON_AddNumberToObject(l, "stdev", m->lat.stdev);
    cJSON_AddNumberToObject(l, "median", m->lat.median);
    cJSON_AddNumberToObject(l, "p99", m->lat.p99);
    cJSON_AddNumberToObject(l, "p999", m->lat.p999);
    return o;
}

static int measure_decode(const cJSON *o, struct gdr_measure *m, const char *what)
{
    memset(m, 0, sizeof(*m));
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "lat");
    if (gdr_json_u64(o, "iters", GDR_MAX_ITERS, &m->iters, what) ||
        gdr_json_u64(o, "bytes", UINT64_MAX, &m->bytes, what) ||
        gdr_json_u64(o, "elapsed_ns", UINT64_MAX, &m->elapsed_ns, what) ||
        gdr_json_double(o, "bw_avg", &m->bw_avg, what) ||
        gdr_json_double(o, "bw_peak", &m->bw_peak, what) ||
        gdr_json_double(o, "msg_rate", &m->msg_rate, what) ||
        gdr_json_double(o, "cpu_user", &m->cpu.user, what) ||
        gdr_json_double(o, "cpu_system", &m->cpu.system, what) ||
        gdr_json_u64(o, "window_msgs", UINT64_MAX, &m->window.msgs, what) ||
        gdr_json_u64(o, "window_bytes", UINT64_MAX, &m->window.bytes, what) ||
        gdr_json_u64(l, "count", GDR_MAX_ITERS, &m->lat.count, what) ||
        gdr_json_double(l, "min", &m->lat.min, what) ||
        gdr_json_double(l, "max", &m->lat.max, what) ||
        gdr_json_double(l, "mean", &m->lat.mean, what) ||
        gdr_json_double(l, "stdev", &m->lat.stdev, what) ||
        gdr_json_double(l, "median", &m->lat.median, what) ||
        gdr_json_double(l, "p99", &m->lat.p99, what) ||
        gdr_json_double(l, "p999", &m->lat.p999, what))
        return -1;
    return 0;
}

cJSON *gdr_size_start_encode(const struct gdr_size_start *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "phase", st->phase);
    gdr_json_add_u64(o, "size", st->size);
    gdr_json_add_u64(o, "iters", st->iters);
    cJSON_AddNumberToObject(o, "expect_s", st->expect_s);
    return o;
}

int gdr_size_start_decode(const cJSON *msg, struct gdr_size_start *st, const char *what)
{
    memset(st, 0, sizeof(*st));
    if (gdr_json_str(msg, "phase", st->phase, sizeof(st->phase), what) ||
        gdr_json_u64(msg, "size", GDR_SIZE_MAX, &st->size, what) ||
        gdr_json_u64(msg, "iters", GDR_MAX_ITERS, &st->iters, what) ||
        gdr_json_double(msg, "expect_s", &st->expect_s, what))
        return -1;
    if (strcmp(st->phase, "warmup") && strcmp(st->phase, "timed"))
        return gdr_fail(GDR_EXIT_RUN, "%s: unknown phase '%s'", what, st->phase);
    if (st->expect_s < 0 || st->expect_s > GDR_MAX_SECONDS)
        return gdr_fail(GDR_EXIT_RUN, "%s: expect_s out of range", what);
    return 0;
}

cJSON *gdr_size_done_encode(const struct gdr_measure *m)
{
    return measure_encode(m);
}

int gdr_size_done_decode(const cJSON *msg, struct gdr_measure *m, const char *what)
{
    return measure_decode(msg, m, what);
}

cJSON *gdr_size_result_encode(const struct gdr_size_result_msg *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "measure", measure_encode(&r->m));
    gdr_json_add_u64(o, "bad_bytes", r->bad_bytes);
    cJSON_AddNumberToObject(o, "prestage_s", r->prestage_s);
    return o;
}

int gdr_size_result_decode(const cJSON *msg, struct gdr_size_result_msg *r, const char *what)
{
    memset(r, 0, sizeof(*r));
    return measure_decode(cJSON_GetObjectItemCaseSensitive(msg, "measure"), &r->m, what) ||
                   gdr_json_u64(msg, "bad_bytes", UINT64_MAX, &r->bad_bytes, what) ||
                   gdr_json_double(msg, "prestage_s", &r->prestage_s, what)
               ? -1
               : 0;
}
