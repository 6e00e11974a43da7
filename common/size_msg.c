/* size_msg.c - the per-size messages' codec (see size_msg.h). */
#include "config.h"

#include "size_msg.h"

#include "error.h"
#include "json.h"
#include "options.h"
#include "sizes.h"

#include <stdio.h>
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
    gdr_json_add_u64(o, "sleeps", m->sleeps);
    cJSON *l = cJSON_AddObjectToObject(o, "lat");
    gdr_json_add_u64(l, "count", m->lat.count);
    gdr_json_add_u64(l, "dropped", m->lat.dropped);
    cJSON_AddNumberToObject(l, "min", m->lat.min);
    cJSON_AddNumberToObject(l, "max", m->lat.max);
    cJSON_AddNumberToObject(l, "mean", m->lat.mean);
    cJSON_AddNumberToObject(l, "stdev", m->lat.stdev);
    cJSON_AddNumberToObject(l, "median", m->lat.median);
    cJSON_AddNumberToObject(l, "p99", m->lat.p99);
    cJSON_AddNumberToObject(l, "p999", m->lat.p999);
    cJSON *st = cJSON_AddObjectToObject(o, "steady");
    cJSON_AddNumberToObject(st, "slices", m->steady.slices);
    cJSON_AddNumberToObject(st, "min", m->steady.min);
    cJSON_AddNumberToObject(st, "max", m->steady.max);
    cJSON_AddNumberToObject(st, "cv", m->steady.cv);
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
        gdr_json_u64(o, "sleeps", UINT64_MAX, &m->sleeps, what) ||
        gdr_json_u64(l, "count", GDR_MAX_ITERS, &m->lat.count, what) ||
        gdr_json_u64(l, "dropped", GDR_MAX_ITERS, &m->lat.dropped, what) ||
        gdr_json_double(l, "min", &m->lat.min, what) ||
        gdr_json_double(l, "max", &m->lat.max, what) ||
        gdr_json_double(l, "mean", &m->lat.mean, what) ||
        gdr_json_double(l, "stdev", &m->lat.stdev, what) ||
        gdr_json_double(l, "median", &m->lat.median, what) ||
        gdr_json_double(l, "p99", &m->lat.p99, what) ||
        gdr_json_double(l, "p999", &m->lat.p999, what))
        return -1;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "steady");
    uint64_t slices;
    if (gdr_json_u64(st, "slices", GDR_STEADY_SLICES, &slices, what) ||
        gdr_json_double(st, "min", &m->steady.min, what) ||
        gdr_json_double(st, "max", &m->steady.max, what) ||
        gdr_json_double(st, "cv", &m->steady.cv, what))
        return -1;
    m->steady.slices = (unsigned)slices;
    return 0;
}

static cJSON *seen_encode(const struct gdr_size_seen *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *nic = cJSON_AddObjectToObject(o, "nic");
    cJSON_AddBoolToObject(nic, "available", s->nic.available);
    cJSON_AddBoolToObject(nic, "clean", s->nic.clean);
    cJSON_AddNumberToObject(nic, "lifespan_s", s->nic.lifespan_s);
    cJSON_AddNumberToObject(nic, "between_s", s->nic.between_s);
    cJSON_AddNumberToObject(nic, "after_loop_s", s->nic.after_loop_s);
    cJSON_AddNumberToObject(nic, "waited_s", s->nic.waited_s);
    cJSON *d = cJSON_AddObjectToObject(nic, "deltas");
    for (size_t i = 0; i < s->nic.n; i++)
        gdr_json_add_u64(d, s->nic.d[i].name, s->nic.d[i].delta);
    cJSON *lost = cJSON_AddObjectToObject(nic, "lost");
    for (size_t i = 0; i < s->nic.nlost && i < GDR_COUNTERS_LOST_MAX; i++)
        cJSON_AddStringToObject(lost, s->nic.lost[i].name, s->nic.lost[i].why);
    cJSON_AddNumberToObject(o, "gpu_gts", s->gpu_gts);
    cJSON_AddNumberToObject(o, "gpu_width", s->gpu_width);
    const struct gdr_gpu_sample *g = &s->gpu;
    cJSON *gpu = cJSON_AddObjectToObject(o, "gpu");
    cJSON_AddBoolToObject(gpu, "available", g->available);
    cJSON_AddNumberToObject(gpu, "pstate", g->pstate);
    cJSON_AddNumberToObject(gpu, "sm_mhz", g->sm_mhz);
    cJSON_AddNumberToObject(gpu, "mem_mhz", g->mem_mhz);
    cJSON_AddNumberToObject(gpu, "pcie_gen", g->pcie_gen);
    cJSON_AddNumberToObject(gpu, "pcie_width", g->pcie_width);
    cJSON_AddBoolToObject(gpu, "throttle_known", g->throttle_known);
    gdr_json_add_u64(gpu, "throttle", g->throttle);
    cJSON_AddNumberToObject(gpu, "replay_delta", (double)g->replay_delta);
    cJSON_AddNumberToObject(gpu, "temperature_c", g->temperature_c);
    cJSON_AddNumberToObject(gpu, "ecc_uncorrected", (double)g->ecc_uncorrected);
    return o;
}

/* When the end took its snapshots: seconds, each within a run's length
 * (the lifespan -1 when the port has none). A peer built before them
 * sends none: unknown lifespan, and the server waits its full time. */
static int nic_timing_decode(const cJSON *nic, struct gdr_counter_deltas *d, const char *what)
{
    d->lifespan_s = -1;
    if (!cJSON_GetObjectItemCaseSensitive(nic, "lifespan_s"))
        return 0;
    if (gdr_json_double(nic, "lifespan_s", &d->lifespan_s, what) ||
        gdr_json_double(nic, "between_s", &d->between_s, what) ||
        gdr_json_double(nic, "after_loop_s", &d->after_loop_s, what) ||
        gdr_json_double(nic, "waited_s", &d->waited_s, what))
        return -1;
    const double t[] = {d->lifespan_s + 1, d->between_s, d->after_loop_s, d->waited_s};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!(t[i] >= 0 && t[i] <= GDR_MAX_SECONDS))
            return gdr_fail(GDR_EXIT_RUN, "%s: a counter snapshot's time out of range", what);
    return 0;
}

/* The temperature and ECC count: -1 (unknown) from a peer built before
 * it sent them. */
static int gpu_health_decode(const cJSON *gpu, struct gdr_gpu_sample *g, const char *what)
{
    double t = -1, ecc = -1;
    if ((cJSON_GetObjectItemCaseSensitive(gpu, "temperature_c") &&
         gdr_json_double(gpu, "temperature_c", &t, what)) ||
        (cJSON_GetObjectItemCaseSensitive(gpu, "ecc_uncorrected") &&
         gdr_json_double(gpu, "ecc_uncorrected", &ecc, what)))
        return -1;
    if (t < -1 || t > 1000 || ecc < -1 || ecc > 1e15)
        return gdr_fail(GDR_EXIT_RUN, "%s: a GPU figure out of range", what);
    g->temperature_c = (int)t;
    g->ecc_uncorrected = (long long)ecc;
    return 0;
}

static int seen_decode(const cJSON *o, struct gdr_size_seen *s, const char *what)
{
    const cJSON *nic = cJSON_GetObjectItemCaseSensitive(o, "nic");
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(o, "gpu");
    const cJSON *deltas = cJSON_GetObjectItemCaseSensitive(nic, "deltas");
    const cJSON *lost = cJSON_GetObjectItemCaseSensitive(nic, "lost");
    struct gdr_gpu_sample *g = &s->gpu;
    uint64_t u[6];
    double pstate, replay;
    if (gdr_json_bool(nic, "available", &s->nic.available, what) ||
        gdr_json_bool(nic, "clean", &s->nic.clean, what) || nic_timing_decode(nic, &s->nic, what) ||
        gdr_json_double(o, "gpu_gts", &s->gpu_gts, what) ||
        gdr_json_u64(o, "gpu_width", 64, &u[0], what) ||
        gdr_json_bool(gpu, "available", &g->available, what) ||
        gdr_json_double(gpu, "pstate", &pstate, what) ||
        gdr_json_u64(gpu, "sm_mhz", 1000000, &u[1], what) ||
        gdr_json_u64(gpu, "mem_mhz", 1000000, &u[2], what) ||
        gdr_json_u64(gpu, "pcie_gen", 64, &u[3], what) ||
        gdr_json_u64(gpu, "pcie_width", 64, &u[4], what) ||
        gdr_json_bool(gpu, "throttle_known", &g->throttle_known, what) ||
        gdr_json_u64(gpu, "throttle", UINT64_MAX, &u[5], what) ||
        gdr_json_double(gpu, "replay_delta", &replay, what) || gpu_health_decode(gpu, g, what))
        return -1;
    if (s->gpu_gts < 0 || s->gpu_gts > 1000 || pstate < -1 || pstate > 15 || replay < -1 ||
        replay > 4294967295.0)
        return gdr_fail(GDR_EXIT_RUN, "%s: a GPU figure out of range", what);
    s->gpu_width = (unsigned)u[0];
    g->pstate = (int)pstate;
    g->sm_mhz = (unsigned)u[1];
    g->mem_mhz = (unsigned)u[2];
    g->pcie_gen = (unsigned)u[3];
    g->pcie_width = (unsigned)u[4];
    g->throttle = u[5];
    g->replay_delta = (long long)replay;
    if (!cJSON_IsObject(deltas) || !cJSON_IsObject(lost) ||
        cJSON_GetArraySize(deltas) > GDR_COUNTERS_MAX ||
        cJSON_GetArraySize(lost) > GDR_COUNTERS_LOST_MAX)
        return gdr_fail(GDR_EXIT_RUN, "%s: field 'nic' has no counter deltas or too many", what);
    const cJSON *item;
    cJSON_ArrayForEach(item, deltas) {
        if (strlen(item->string) >= GDR_COUNTER_NAME)
            return gdr_fail(GDR_EXIT_RUN, "%s: counter name too long", what);
        size_t k = s->nic.n++;
        snprintf(s->nic.d[k].name, GDR_COUNTER_NAME, "%s", item->string);
        if (gdr_json_u64(deltas, item->string, UINT64_MAX, &s->nic.d[k].delta, what))
            return -1;
        s->nic.d[k].cls = gdr_counter_class_of(item->string);
    }
    cJSON_ArrayForEach(item, lost) {
        size_t k = s->nic.nlost++;
        if (strlen(item->string) >= GDR_COUNTER_NAME ||
            gdr_json_str(lost, item->string, s->nic.lost[k].why, sizeof(s->nic.lost[k].why), what))
            return gdr_fail(GDR_EXIT_RUN, "%s: a lost counter is not named", what);
        snprintf(s->nic.lost[k].name, GDR_COUNTER_NAME, "%s", item->string);
    }
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

cJSON *gdr_size_done_encode(const struct gdr_size_done_msg *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "measure", measure_encode(&d->m));
    cJSON_AddItemToObject(o, "seen", seen_encode(&d->seen));
    return o;
}

int gdr_size_done_decode(const cJSON *msg, struct gdr_size_done_msg *d, const char *what)
{
    memset(d, 0, sizeof(*d));
    return measure_decode(cJSON_GetObjectItemCaseSensitive(msg, "measure"), &d->m, what) ||
                   seen_decode(cJSON_GetObjectItemCaseSensitive(msg, "seen"), &d->seen, what)
               ? -1
               : 0;
}

cJSON *gdr_size_result_encode(const struct gdr_size_result_msg *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "measure", measure_encode(&r->m));
    cJSON_AddItemToObject(o, "seen", seen_encode(&r->seen));
    gdr_json_add_u64(o, "bad_bytes", r->bad_bytes);
    cJSON_AddNumberToObject(o, "prestage_s", r->prestage_s);
    return o;
}

int gdr_size_result_decode(const cJSON *msg, struct gdr_size_result_msg *r, const char *what)
{
    memset(r, 0, sizeof(*r));
    return measure_decode(cJSON_GetObjectItemCaseSensitive(msg, "measure"), &r->m, what) ||
                   seen_decode(cJSON_GetObjectItemCaseSensitive(msg, "seen"), &r->seen, what) ||
                   gdr_json_u64(msg, "bad_bytes", UINT64_MAX, &r->bad_bytes, what) ||
                   gdr_json_double(msg, "prestage_s", &r->prestage_s, what)
               ? -1
               : 0;
}
