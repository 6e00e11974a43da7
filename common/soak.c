/* soak.c - a soak's intervals: lines, points, findings, summary (soak.h). */
#include "config.h"

#include "soak.h"
#include "error.h"
#include "events.h"
#include "json.h"
#include "output.h"
#include "pairing.h"
#include "session.h"
#include "soak_findings.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t gdr_soak_stop;
volatile uint64_t gdr_soak_signal_ns;
volatile sig_atomic_t gdr_soak_graceful;

#define MAX_FINDINGS 64
#define MAX_OUTAGES 64

/* An outage (soak_reconnect.c): the QPs or the port lost, and how it ended. */
struct gdr_soak_outage {
    double start_s, end_s; /* the soak's seconds; end_s: as it ended */
    struct gdr_error_class cls;
    char message[256];
    bool heard;        /* this end learnt of it from the peer's OUTAGE */
    size_t interval;   /* the interval it cut short, run again once reconnected */
    const char *ended; /* NULL while under way; "reconnected", "deadline", "failed" */
};

struct gdr_soak {
    FILE *lines;       /* --json-lines; NULL without */
    uint64_t start_ns; /* monotonic, as the soak began */
    double start_wall; /* the same moment, UTC seconds (to the ns: a finding's
                        * time is rounded down once, not twice) */
    double elapsed_s;  /* at the end of the last interval */
    size_t n, cap;
    struct gdr_soak_point *points;
    bool by_signal;        /* ended by SIGTERM or SIGINT */
    bool by_outage;        /* ended by an outage it did not come through */
    long long ecc_seen[2]; /* each end's (client, server) last ECC count; -1 none yet */
    long nfindings;
    struct gdr_soak_finding findings[MAX_FINDINGS];
    size_t noutages; /* all of them; the first MAX_OUTAGES are kept */
    struct gdr_soak_outage outages[MAX_OUTAGES];
    bool outage_open; /* one is under way, kept or not */
};

static bool latency(const struct gdr_session *s)
{
    return s->test->metric == GDR_METRIC_LAT;
}

int gdr_soak_begin(struct gdr_session *s)
{
    struct gdr_soak *k = calloc(1, sizeof(*k));
    if (!k)
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    s->soak = k;
    k->ecc_seen[0] = k->ecc_seen[1] = -1;
    if (s->cfg->json_lines_path && !(k->lines = fopen(s->cfg->json_lines_path, "w")))
        return gdr_fail(GDR_EXIT_RUN, "--json-lines %s: %s", s->cfg->json_lines_path,
                        strerror(errno));
    k->start_ns = gdr_now_ns();
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    k->start_wall = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
    gdr_soak_graceful = !s->is_server;
    return 0;
}

static double since_start(const struct gdr_soak *k)
{
    return (double)(gdr_now_ns() - k->start_ns) * 1e-9;
}

/* Another interval while more than half of one is left: the soak ends
 * within half an interval of its duration. */
bool gdr_soak_more(const struct gdr_session *s)
{
    if (gdr_soak_stop) {
        s->soak->by_signal = true;
        return false;
    }
    return since_start(s->soak) + 0.5 * s->cfg->interval_s < s->cfg->soak_s;
}

/* The deltas of one end's counters in the soak's classes. */
static void classify(const struct gdr_counter_deltas *d, uint64_t out[GDR_SOAK_COUNTERS])
{
    memset(out, 0, GDR_SOAK_COUNTERS * sizeof(out[0]));
    for (size_t i = 0; i < d->n; i++) {
        const char *name = d->d[i].name;
        int c = strcmp(name, "link_downed") == 0        ? GDR_SOAK_LINK_DOWNED
                : strcmp(name, "symbol_error") == 0     ? GDR_SOAK_SYMBOL_ERRORS
                : d->d[i].cls == GDR_COUNTER_ERROR      ? GDR_SOAK_ERRORS
                : d->d[i].cls == GDR_COUNTER_RETRANSMIT ? GDR_SOAK_RETRANSMISSIONS
                : d->d[i].cls == GDR_COUNTER_CONGESTION ? GDR_SOAK_CONGESTION
                                                        : -1;
        if (c >= 0)
            out[c] += d->d[i].delta;
    }
}

/* A GPU end's new uncorrected ECC errors since its last interval. The
 * count is the driver's since it loaded: the first interval's is the
 * baseline (errors within the first interval are not told from older
 * ones), and an interval without one keeps the last. */
static uint64_t ecc_rise(long long *seen, const struct gdr_gpu_sample *g)
{
    if (!g->available || g->ecc_uncorrected < 0)
        return 0;
    uint64_t d =
        *seen >= 0 && g->ecc_uncorrected > *seen ? (uint64_t)(g->ecc_uncorrected - *seen) : 0;
    *seen = g->ecc_uncorrected;
    return d;
}

static cJSON *counters_json(const struct gdr_counter_deltas *d)
{
    if (!d->available)
        return cJSON_CreateNull();
    uint64_t by[GDR_SOAK_COUNTERS];
    classify(d, by);
    cJSON *o = cJSON_CreateObject();
    for (int c = 0; c < GDR_SOAK_COUNTERS; c++)
        gdr_json_add_u64(o, gdr_soak_counter_name(c), by[c]);
    return o;
}

static bool slowed(const struct gdr_gpu_sample *g)
{
    return g->available && g->throttle_known && (g->throttle & GDR_NVML_THROTTLE_SLOWDOWN);
}

/* A GPU end as the interval ended (NVML): its throttle reasons, its
 * temperature and its volatile uncorrected ECC errors so far; each null
 * where NVML did not answer, and not_read names those. */
static cJSON *gpu_json(const struct gdr_size_seen *seen)
{
    const struct gdr_gpu_sample *g = &seen->gpu;
    cJSON *o = cJSON_CreateObject();
    bool temp = g->available && g->temperature_c >= 0;
    bool ecc = g->available && g->ecc_uncorrected >= 0;
    if (g->available && g->throttle_known) {
        char names[160];
        gdr_nvml_throttle_names(g->throttle, names, sizeof(names));
        cJSON_AddStringToObject(o, "throttle", names);
        cJSON_AddBoolToObject(o, "slowdown", slowed(g));
    } else {
        cJSON_AddNullToObject(o, "throttle");
        cJSON_AddNullToObject(o, "slowdown");
    }
    if (temp)
        cJSON_AddNumberToObject(o, "temperature_c", g->temperature_c);
    else
        cJSON_AddNullToObject(o, "temperature_c");
    if (ecc)
        cJSON_AddNumberToObject(o, "ecc_uncorrected", (double)g->ecc_uncorrected);
    else
        cJSON_AddNullToObject(o, "ecc_uncorrected");
    char not_read[64];
    snprintf(not_read, sizeof(not_read), "%s%s%s", temp ? "" : "temperature_c",
             !temp && !ecc ? ", " : "", ecc ? "" : "ecc_uncorrected");
    cJSON_AddStringToObject(o, "not_read", not_read);
    return o;
}

static bool gpu_end(const struct gdr_endpoint *ep)
{
    return strcmp(ep->placement, "cuda") == 0;
}

/* What every line starts with: whose, which interval, when it was written. */
static cJSON *line_head(const struct gdr_session *s, const char *record)
{
    const struct gdr_soak *k = s->soak;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema_version", GDR_SOAK_LINE_SCHEMA);
    if (record)
        cJSON_AddStringToObject(o, "record", record);
    cJSON_AddStringToObject(o, "test", s->test->name);
    cJSON_AddStringToObject(o, "role", s->is_server ? "server" : "client");
    gdr_json_add_u64(o, "interval", k->n);
    char when[32];
    gdr_utc_iso8601(when, sizeof(when));
    cJSON_AddStringToObject(o, "time", when);
    return o;
}

/* The writing end's port as the line is written. */
static void port_json(const struct gdr_session *s, cJSON *o)
{
    char state[32];
    cJSON *port = cJSON_AddObjectToObject(o, "port");
    cJSON_AddStringToObject(port, "device", s->verbs.dev_name);
    cJSON_AddNumberToObject(port, "port", s->cfg->ib_port);
    if (gdr_topo_port_state(NULL, s->verbs.dev_name, s->cfg->ib_port, state, sizeof(state)) == 0)
        cJSON_AddStringToObject(port, "state", state);
    else
        cJSON_AddNullToObject(port, "state");
}

static cJSON *line_json(const struct gdr_session *s, const struct gdr_size_result *row,
                        const struct gdr_soak_point *p, double start_s)
{
    cJSON *o = line_head(s, NULL);
    cJSON_AddNumberToObject(o, "start_s", start_s);
    cJSON_AddNumberToObject(o, "end_s", p->t_s);
    cJSON_AddStringToObject(o, "metric", latency(s) ? "latency" : "bandwidth");
    cJSON_AddNumberToObject(o, "value", p->value);
    cJSON *nic = cJSON_AddObjectToObject(o, "nic_counters");
    cJSON_AddItemToObject(nic, "client", counters_json(&row->seen_client.nic));
    cJSON_AddItemToObject(nic, "server", counters_json(&row->seen_server.nic));
    port_json(s, o);
    const struct gdr_endpoint *ce = s->is_server ? &s->remote : &s->local;
    const struct gdr_endpoint *se = s->is_server ? &s->local : &s->remote;
    cJSON *gpu = cJSON_AddObjectToObject(o, "gpu");
    cJSON_AddItemToObject(gpu, "client",
                          gpu_end(ce) ? gpu_json(&row->seen_client) : cJSON_CreateNull());
    cJSON_AddItemToObject(gpu, "server",
                          gpu_end(se) ? gpu_json(&row->seen_server) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "row", gdr_output_row_json(s, row));
    return o;
}

static int write_line(struct gdr_session *s, cJSON *line)
{
    struct gdr_soak *k = s->soak;
    char *text = cJSON_PrintUnformatted(line);
    int rc = text && fprintf(k->lines, "%s\n", text) >= 0 && fflush(k->lines) == 0 ? 0 : -1;
    free(text);
    if (rc)
        return gdr_fail(GDR_EXIT_RUN, "--json-lines %s: %s", s->cfg->json_lines_path,
                        strerror(errno ? errno : EIO));
    return 0;
}

int gdr_soak_interval(struct gdr_session *s, const struct gdr_size_result *row)
{
    struct gdr_soak *k = s->soak;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 256;
        struct gdr_soak_point *p = realloc(k->points, cap * sizeof(*p));
        if (!p)
            return gdr_fail(GDR_EXIT_RUN, "out of memory");
        k->points = p;
        k->cap = cap;
    }
    struct gdr_soak_point *p = &k->points[k->n];
    memset(p, 0, sizeof(*p));
    double start_s = p->start_s = k->elapsed_s;
    p->t_s = k->elapsed_s = since_start(k);
    p->value = latency(s) ? row->m.lat.median : row->m.bw_avg;
    uint64_t c[GDR_SOAK_COUNTERS], v[GDR_SOAK_COUNTERS];
    classify(&row->seen_client.nic, c);
    classify(&row->seen_server.nic, v);
    for (int i = 0; i < GDR_SOAK_COUNTERS; i++)
        p->counters[i] = c[i] + v[i];
    p->throttled = slowed(&row->seen_client.gpu) || slowed(&row->seen_server.gpu);
    p->ecc = ecc_rise(&k->ecc_seen[0], &row->seen_client.gpu) +
             ecc_rise(&k->ecc_seen[1], &row->seen_server.gpu);
    int rc = 0;
    if (k->lines) {
        cJSON *line = line_json(s, row, p, start_s);
        rc = write_line(s, line);
        cJSON_Delete(line);
    }
    k->n++;
    return rc;
}

/* "2026-12-02T19:40:12Z", the soak's start plus at_s */
static void utc_at(const struct gdr_soak *k, double at_s, char *buf, size_t len)
{
    time_t t = (time_t)floor(k->start_wall + at_s);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- outages ---- */

/* What failed, in one word: the completion's status, else the event,
 * else the kind. A flush is what a QP in error does to every request,
 * never why: the event that put it there names it where one was read
 * (which of the two a loop sees first is a race, on mlx5 as in the lab). */
static const char *cause_of(const struct gdr_soak_outage *o)
{
    const struct gdr_error_class *c = &o->cls;
    bool flush = !strcmp(c->wc_status, gdr_wc_status_name(IBV_WC_WR_FLUSH_ERR));
    if (c->event[0] && (!c->wc_status[0] || flush))
        return c->event;
    return c->wc_status[0] ? c->wc_status : c->kind;
}

static int outage_line(struct gdr_session *s, const struct gdr_soak_outage *o, size_t index)
{
    if (!s->soak->lines)
        return 0;
    cJSON *l = line_head(s, "outage");
    gdr_json_add_u64(l, "outage", index);
    cJSON_AddNumberToObject(l, "start_s", o->start_s);
    if (o->ended) {
        cJSON_AddNumberToObject(l, "end_s", o->end_s);
        cJSON_AddNumberToObject(l, "duration_s", o->end_s - o->start_s);
    } else {
        cJSON_AddNullToObject(l, "end_s");
        cJSON_AddNullToObject(l, "duration_s");
    }
    cJSON_AddStringToObject(l, "state", o->ended ? o->ended : "down");
    cJSON_AddStringToObject(l, "cause", cause_of(o));
    cJSON_AddItemToObject(l, "class", gdr_json_error_class(&o->cls));
    cJSON_AddStringToObject(l, "message", o->message);
    cJSON_AddBoolToObject(l, "heard_from_peer", o->heard);
    cJSON_AddNumberToObject(l, "reconnect_timeout_s", s->cfg->reconnect_timeout_s);
    port_json(s, l);
    int rc = write_line(s, l);
    cJSON_Delete(l);
    return rc;
}

static struct gdr_soak_outage *current_outage(struct gdr_soak *k)
{
    size_t i = k->noutages - 1;
    return k->noutages && i < MAX_OUTAGES ? &k->outages[i] : NULL;
}

/* When this end first saw the outage: now, or earlier when a fatal event
 * was read and kept (during an interval's exchange of results, where it
 * ends nothing: protocol.c) before the failure that acts on it. */
static double outage_seen_s(const struct gdr_session *s)
{
    const struct gdr_soak *k = s->soak;
    uint64_t at = s->verbs.fatal_at_ns; /* set and cleared with fatal_event */
    if (!at)
        return since_start(k);
    return at > k->start_ns ? (double)(at - k->start_ns) * 1e-9 : 0;
}

int gdr_soak_outage_begin(struct gdr_session *s, const struct gdr_error_class *c,
                          const char *message, bool heard)
{
    struct gdr_soak *k = s->soak;
    struct gdr_soak_outage o = {
        .start_s = outage_seen_s(s), .cls = *c, .heard = heard, .interval = k->n};
    snprintf(o.message, sizeof(o.message), "%s", message);
    k->noutages++;
    k->outage_open = true;
    struct gdr_soak_outage *kept = current_outage(k);
    if (kept)
        *kept = o;
    char when[32];
    utc_at(k, o.start_s, when, sizeof(when));
    fprintf(stderr,
            "%s: soak: outage at %.1f s (%s) in interval %zu: %s; waiting up to %g s for the "
            "port and the peer\n",
            s->test->binary, o.start_s, when, o.interval, message, s->cfg->reconnect_timeout_s);
    return outage_line(s, &o, k->noutages - 1);
}

int gdr_soak_outage_end(struct gdr_session *s, const char *ended)
{
    struct gdr_soak *k = s->soak;
    struct gdr_soak_outage *o = current_outage(k);
    if (k && strcmp(ended, "reconnected"))
        k->by_outage = true;
    if (!k || !k->outage_open)
        return 0;
    k->outage_open = false;
    /* The next interval starts once the outage is over, whether the
     * outage is one of those kept or not: the gap between the two
     * intervals is what ends a dip (soak_findings.c). */
    k->elapsed_s = since_start(k);
    if (!o)
        return 0;
    o->ended = ended;
    o->end_s = k->elapsed_s;
    if (!strcmp(ended, "reconnected"))
        fprintf(stderr,
                "%s: soak: outage over after %.1f s: QPs rebuilt on both ends, interval %zu "
                "runs again\n",
                s->test->binary, o->end_s - o->start_s, o->interval);
    return outage_line(s, o, k->noutages - 1);
}

double gdr_soak_outage_start(const struct gdr_session *s)
{
    struct gdr_soak *k = s->soak;
    const struct gdr_soak_outage *o = current_outage(k);
    return o ? o->start_s : since_start(k);
}

size_t gdr_soak_intervals(const struct gdr_session *s)
{
    return s->soak->n;
}

static size_t kept_outages(const struct gdr_soak *k)
{
    return k->noutages < MAX_OUTAGES ? k->noutages : MAX_OUTAGES;
}

/* "outage: 12-17 s (4.8 s) in interval 6: IBV_EVENT_PORT_ERR, reconnected" */
static void outage_text(const struct gdr_soak_outage *o, char *buf, size_t len)
{
    const char *how = !o->ended                          ? "under way"
                      : !strcmp(o->ended, "reconnected") ? "reconnected"
                      : !strcmp(o->ended, "deadline")
                          ? "not over within --reconnect-timeout: the soak ended"
                          : "the soak ended during it";
    snprintf(buf, len, "outage: %.1f-%.1f s (%.1f s) in interval %zu: %s%s, %s", o->start_s,
             o->end_s, o->end_s - o->start_s, o->interval, cause_of(o),
             o->heard ? " (the peer's)" : "", how);
}

/* What every finding's object starts with. */
static cJSON *finding_head(const struct gdr_soak *k, const char *kind, size_t first, size_t last,
                           double start_s, double end_s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    gdr_json_add_u64(o, "first_interval", first);
    gdr_json_add_u64(o, "last_interval", last);
    cJSON_AddNumberToObject(o, "start_s", start_s);
    cJSON_AddNumberToObject(o, "end_s", end_s);
    char when[32];
    utc_at(k, start_s, when, sizeof(when));
    cJSON_AddStringToObject(o, "start_time", when);
    return o;
}

static cJSON *outage_finding_json(const struct gdr_soak *k, const struct gdr_soak_outage *o)
{
    cJSON *j = finding_head(k, "outage", o->interval, o->interval, o->start_s, o->end_s);
    cJSON_AddNumberToObject(j, "duration_s", o->end_s - o->start_s);
    cJSON_AddStringToObject(j, "ended", o->ended ? o->ended : "failed");
    cJSON_AddStringToObject(j, "cause", cause_of(o));
    cJSON_AddItemToObject(j, "class", gdr_json_error_class(&o->cls));
    cJSON_AddStringToObject(j, "message", o->message);
    cJSON_AddBoolToObject(j, "heard_from_peer", o->heard);
    char text[512];
    outage_text(o, text, sizeof(text));
    cJSON_AddStringToObject(j, "text", text);
    return j;
}

static struct gdr_soak_series series_of(const struct gdr_session *s)
{
    struct gdr_soak_series x = {
        .latency = latency(s), .dip_pct = s->cfg->dip_pct, .n = s->soak->n, .p = s->soak->points};
    return x;
}

size_t gdr_soak_finish(struct gdr_session *s)
{
    struct gdr_soak *k = s->soak;
    if (!k)
        return 0;
    struct gdr_soak_series x = series_of(s);
    k->nfindings = gdr_soak_findings(&x, k->findings, MAX_FINDINGS);
    if (k->nfindings < 0)
        k->nfindings = 0;
    long total = k->nfindings + (long)k->noutages;
    double median = gdr_soak_median(&x);
    bool lat = latency(s);
    fprintf(stderr, "%s: soak: %zu intervals in %.0f s (%s), median %.4g %s; %ld finding%s\n",
            s->test->binary, k->n, k->elapsed_s,
            k->by_signal   ? "ended by a signal"
            : k->by_outage ? "ended by an outage"
                           : "its duration",
            lat ? median * 1e6 : median * 1e-6, lat ? "us" : "MB/s", total, total == 1 ? "" : "s");
    for (size_t i = 0; i < kept_outages(k); i++) {
        char text[512], when[32];
        outage_text(&k->outages[i], text, sizeof(text));
        utc_at(k, k->outages[i].start_s, when, sizeof(when));
        fprintf(stderr, "%s: soak finding at %s: %s\n", s->test->binary, when, text);
    }
    if (k->noutages > MAX_OUTAGES)
        fprintf(stderr, "%s: soak finding: %zu more outages (the first %d are listed)\n",
                s->test->binary, k->noutages - MAX_OUTAGES, MAX_OUTAGES);
    for (long i = 0; i < k->nfindings && i < MAX_FINDINGS; i++) {
        char text[512], when[32];
        gdr_soak_finding_text(&k->findings[i], lat, text, sizeof(text));
        utc_at(k, k->findings[i].start_s, when, sizeof(when));
        fprintf(stderr, "%s: soak finding at %s: %s\n", s->test->binary, when, text);
    }
    return (size_t)total;
}

static cJSON *finding_json(const struct gdr_soak *k, const struct gdr_soak_finding *f, bool lat)
{
    cJSON *o = finding_head(k, gdr_soak_finding_kind_name(f->kind), f->first, f->last, f->start_s,
                            f->end_s);
    switch (f->kind) {
    case GDR_FINDING_DIP:
        cJSON_AddNumberToObject(o, "worst", f->value);
        cJSON_AddNumberToObject(o, "median", f->reference);
        cJSON_AddNumberToObject(o, "pct_of_median", f->pct);
        break;
    case GDR_FINDING_TREND:
        cJSON_AddNumberToObject(o, "change", f->value);
        cJSON_AddNumberToObject(o, "median", f->reference);
        cJSON_AddNumberToObject(o, "pct_of_median", f->pct);
        break;
    case GDR_FINDING_COUNTER:
        cJSON_AddStringToObject(o, "counter", gdr_soak_counter_name(f->counter));
        gdr_json_add_u64(o, "total", f->total);
        break;
    case GDR_FINDING_ECC: gdr_json_add_u64(o, "total", f->total); break;
    case GDR_FINDING_THROTTLE: break;
    }
    if (f->kind != GDR_FINDING_DIP && f->kind != GDR_FINDING_TREND) {
        gdr_json_add_u64(o, "intervals_count", f->nintervals);
        cJSON *list = cJSON_AddArrayToObject(o, "intervals");
        for (size_t i = 0; i < f->listed; i++)
            cJSON_AddItemToArray(list, cJSON_CreateNumber((double)f->intervals[i]));
    }
    char text[512];
    gdr_soak_finding_text(f, lat, text, sizeof(text));
    cJSON_AddStringToObject(o, "text", text);
    return o;
}

cJSON *gdr_soak_json(const struct gdr_session *s)
{
    const struct gdr_soak *k = s->soak;
    const struct gdr_config *cfg = s->cfg;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "duration_s", cfg->soak_s);
    cJSON_AddNumberToObject(o, "interval_s", cfg->interval_s);
    cJSON_AddNumberToObject(o, "dip_pct", cfg->dip_pct);
    if (cfg->json_lines_path)
        cJSON_AddStringToObject(o, "json_lines", cfg->json_lines_path);
    else
        cJSON_AddNullToObject(o, "json_lines");
    gdr_json_add_u64(o, "intervals", k ? k->n : 0);
    cJSON_AddNumberToObject(o, "elapsed_s", k ? k->elapsed_s : 0);
    cJSON_AddStringToObject(o, "ended",
                            !k             ? "duration"
                            : k->by_signal ? "signal"
                            : k->by_outage ? "outage"
                                           : "duration");
    if (k && k->by_signal && gdr_soak_signal_ns >= k->start_ns)
        cJSON_AddNumberToObject(o, "signal_s", (double)(gdr_soak_signal_ns - k->start_ns) * 1e-9);
    else
        cJSON_AddNullToObject(o, "signal_s");
    struct gdr_soak_series x = k ? series_of(s) : (struct gdr_soak_series){0};
    double lo = NAN, hi = NAN;
    for (size_t i = 0; i < x.n; i++) {
        double v = x.p[i].value;
        lo = i && lo < v ? lo : v;
        hi = i && hi > v ? hi : v;
    }
    cJSON *v = cJSON_AddObjectToObject(o, "value");
    cJSON_AddStringToObject(v, "of", latency(s) ? "latency_s.median" : "bw_avg_bytes_per_s");
    gdr_json_add_number_or_null(v, "median", x.n ? gdr_soak_median(&x) : NAN);
    gdr_json_add_number_or_null(v, "min", lo);
    gdr_json_add_number_or_null(v, "max", hi);
    gdr_json_add_u64(o, "outages", k ? k->noutages : 0);
    cJSON *f = cJSON_AddArrayToObject(o, "findings");
    for (size_t i = 0; k && i < kept_outages(k); i++)
        cJSON_AddItemToArray(f, outage_finding_json(k, &k->outages[i]));
    for (long i = 0; k && i < k->nfindings && i < MAX_FINDINGS; i++)
        cJSON_AddItemToArray(f, finding_json(k, &k->findings[i], latency(s)));
    return o;
}

void gdr_soak_release(struct gdr_session *s)
{
    struct gdr_soak *k = s->soak;
    if (!k)
        return;
    if (k->lines)
        fclose(k->lines);
    free(k->points);
    free(k);
    s->soak = NULL;
}
