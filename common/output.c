/* output.c - the table, the progress line and the result document
 * (output.h). */
#include "config.h"

#include "output.h"
#include "context.h"
#include "error.h"
#include "json.h"
#include "soak.h"

#include <stdio.h>
#include <unistd.h>

static bool latency(const struct gdr_session *s)
{
    return s->test->metric == GDR_METRIC_LAT;
}

static const struct gdr_endpoint *client_end(const struct gdr_session *s)
{
    return s->is_server ? &s->remote : &s->local;
}

static const struct gdr_endpoint *server_end(const struct gdr_session *s)
{
    return s->is_server ? &s->local : &s->remote;
}

static void print_end(const char *role, const struct gdr_endpoint *ep)
{
    printf(" %-7s %s  %s port %u  %s  MTU %u  GID[%d] %s  QPs %u\n", role, ep->host, ep->device,
           ep->port, ep->link_layer, ep->active_mtu, ep->gid_index, ep->gid, ep->num_qps);
    if (ep->cuda_device < 0)
        printf("         buffer: host memory\n");
    else
        printf("         buffer: GPU %d %s (%s), registration %s%s%s\n", ep->cuda_device,
               ep->cuda_bus_id, ep->cuda_name, ep->registration, ep->reg_note[0] ? "; " : "",
               ep->reg_note);
    const struct gdr_affinity *af = &ep->affinity;
    if (af->requested[0]) {
        char loop[24] = "loop not pinned";
        if (af->loop_cpu >= 0)
            snprintf(loop, sizeof(loop), "loop on CPU %d", af->loop_cpu);
        printf("         CPUs %s (%s, binding %s), %s, memory node %d%s%s\n", af->cpus_allowed,
               af->requested, af->binding, loop,
               af->buffer_numa_node >= 0 ? af->buffer_numa_node : af->ring_numa_node,
               af->note[0] ? "; " : "", af->note);
    }
}

void gdr_output_banner(const struct gdr_session *s)
{
    if (s->cfg->quiet)
        return;
    printf("---------------------------------------------------------------------------\n");
    printf(" %s (gdrbench %s)  %s, %s", s->test->binary, PACKAGE_VERSION,
           gdr_verb_name(s->test->verb), latency(s) ? "latency" : "bandwidth");
    if (s->roles.pingpong)
        printf(" (half a round trip; arrivals seen by %s)",
               s->roles.polls_memory ? "polling the last byte" : "the completion queue");
    if (s->test->verb == GDR_VERB_READ)
        printf(" (%u reads in flight per QP at most)", gdr_reads_in_flight_of(s));
    printf("\n");
    print_end("client", client_end(s));
    print_end("server", server_end(s));
    printf("---------------------------------------------------------------------------\n");
}

static double pct(struct gdr_cpu_use u)
{
    return (u.user + u.system) * 100.0;
}

void gdr_output_row(const struct gdr_session *s, const struct gdr_size_result *r)
{
    static bool header_done;
    if (s->cfg->quiet)
        return;
    if (latency(s)) {
        if (!header_done)
            printf(" %10s %11s %10s %10s %10s %10s %10s %10s %10s %8s %8s\n", "#bytes",
                   "#iterations", "min[us]", "max[us]", "median[us]", "avg[us]", "stdev[us]",
                   "p99[us]", "p99.9[us]", "cpu_c[%]", "cpu_s[%]");
        printf(" %10llu %11llu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %8.1f %8.1f\n",
               (unsigned long long)r->size, (unsigned long long)r->m.iters, r->m.lat.min * 1e6,
               r->m.lat.max * 1e6, r->m.lat.median * 1e6, r->m.lat.mean * 1e6, r->m.lat.stdev * 1e6,
               r->m.lat.p99 * 1e6, r->m.lat.p999 * 1e6, pct(r->cpu_client), pct(r->cpu_server));
    } else {
        bool gbits = s->cfg->report_gbits;
        double scale = gbits ? 8e-9 : 1e-6;
        const char *unit = gbits ? "Gb/s" : "MB/s";
        if (!header_done) {
            char peak[32], avg[32];
            snprintf(peak, sizeof(peak), "peak[%s]", unit);
            snprintf(avg, sizeof(avg), "average[%s]", unit);
            printf(" %10s %11s %14s %14s %14s %8s %8s\n", "#bytes", "#iterations", peak, avg,
                   "rate[Mmsg/s]", "cpu_c[%]", "cpu_s[%]");
        }
        printf(" %10llu %11llu %14.2f %14.2f %14.4f %8.1f %8.1f\n", (unsigned long long)r->size,
               (unsigned long long)r->m.iters, r->m.bw_peak * scale, r->m.bw_avg * scale,
               r->m.msg_rate * 1e-6, pct(r->cpu_client), pct(r->cpu_server));
    }
    header_done = true;
    fflush(stdout);
}

void gdr_progress_start(struct gdr_progress *p, const struct gdr_config *cfg, size_t total)
{
    p->enabled = !cfg->quiet && isatty(STDERR_FILENO) && total > 1;
    p->total = total;
    p->start_ns = gdr_now_ns();
}

void gdr_progress_show(struct gdr_progress *p, size_t index, uint64_t size)
{
    if (!p->enabled)
        return;
    double elapsed = (double)(gdr_now_ns() - p->start_ns) * 1e-9;
    double eta = index ? elapsed / (double)index * (double)(p->total - index) : 0;
    fprintf(stderr, "\r size %zu of %zu (%llu B)  elapsed %.0f s  remaining ~%.0f s   ", index + 1,
            p->total, (unsigned long long)size, elapsed, eta);
}

void gdr_progress_done(struct gdr_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r%78s\r", "");
}

static cJSON *cpu_json(struct gdr_cpu_use u)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "user", u.user);
    cJSON_AddNumberToObject(o, "system", u.system);
    return o;
}

cJSON *gdr_output_parameters(const struct gdr_config *cfg)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *sizes = cJSON_AddArrayToObject(p, "sizes");
    for (size_t i = 0; i < cfg->sizes.count; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)cfg->sizes.size[i]));
    gdr_json_add_u64(p, "iters", cfg->iters);
    cJSON_AddNumberToObject(p, "time_per_size_s", cfg->time_per_size);
    if (cfg->warmup_auto)
        cJSON_AddStringToObject(p, "warmup", "auto");
    else
        gdr_json_add_u64(p, "warmup", cfg->warmup);
    cJSON_AddNumberToObject(p, "num_qps", cfg->num_qps);
    cJSON_AddNumberToObject(p, "tx_depth", cfg->tx_depth);
    cJSON_AddNumberToObject(p, "inline_size", cfg->inline_size);
    cJSON_AddNumberToObject(p, "mtu", cfg->mtu);
    cJSON_AddNumberToObject(p, "traffic_class", cfg->traffic_class);
    cJSON_AddNumberToObject(p, "service_level", cfg->service_level);
    cJSON_AddNumberToObject(p, "qp_timeout", cfg->qp_timeout);
    cJSON_AddNumberToObject(p, "retry_count", cfg->retry_count);
    cJSON_AddBoolToObject(p, "validate", cfg->validate);
    cJSON_AddBoolToObject(p, "rdma_cm", cfg->rdma_cm);
    gdr_json_add_u64(p, "stage_slot_bytes", cfg->stage_slot);
    cJSON_AddNumberToObject(p, "stage_slots", cfg->stage_slots);
    cJSON_AddBoolToObject(p, "bidirectional", cfg->bidirectional);
    cJSON_AddBoolToObject(p, "events", cfg->events);
    cJSON_AddNumberToObject(p, "outs", cfg->outs);
    cJSON_AddBoolToObject(p, "write_with_imm", cfg->write_with_imm);
    cJSON_AddNumberToObject(p, "tcp_port", cfg->tcp_port);
    cJSON_AddNumberToObject(p, "timeout_s", cfg->timeout);
    if (cfg->soak_s > 0) {
        cJSON *k = cJSON_AddObjectToObject(p, "soak");
        cJSON_AddNumberToObject(k, "duration_s", cfg->soak_s);
        cJSON_AddNumberToObject(k, "interval_s", cfg->interval_s);
        cJSON_AddNumberToObject(k, "dip_pct", cfg->dip_pct);
        cJSON_AddNumberToObject(k, "reconnect_timeout_s", cfg->reconnect_timeout_s);
    }
    return p;
}

static cJSON *window_json(struct gdr_window w)
{
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_u64(o, "messages", w.msgs);
    gdr_json_add_u64(o, "bytes", w.bytes);
    return o;
}

/* One direction of a bidirectional row. */
static cJSON *direction_json(const struct gdr_measure *m)
{
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_u64(o, "iterations", m->iters);
    gdr_json_add_u64(o, "bytes", m->bytes);
    cJSON_AddNumberToObject(o, "elapsed_s", (double)m->elapsed_ns * 1e-9);
    cJSON_AddNumberToObject(o, "msg_rate_per_s", m->msg_rate);
    cJSON_AddNumberToObject(o, "bw_avg_bytes_per_s", m->bw_avg);
    cJSON_AddNumberToObject(o, "bw_peak_bytes_per_s", m->bw_peak);
    cJSON_AddItemToObject(o, "window", window_json(m->window));
    gdr_context_steadiness_json(&m->steady, o);
    return o;
}

cJSON *gdr_output_row_json(const struct gdr_session *s, const struct gdr_size_result *r)
{
    cJSON *o = cJSON_CreateObject();
    gdr_json_add_u64(o, "size", r->size);
    gdr_json_add_u64(o, "iterations", r->m.iters);
    gdr_json_add_u64(o, "bytes", r->m.bytes);
    cJSON_AddNumberToObject(o, "elapsed_s", (double)r->m.elapsed_ns * 1e-9);
    cJSON_AddNumberToObject(o, "msg_rate_per_s", r->m.msg_rate);
    if (latency(s)) {
        cJSON *l = cJSON_AddObjectToObject(o, "latency_s");
        gdr_json_add_u64(l, "count", r->m.lat.count);
        gdr_json_add_u64(l, "dropped", r->m.lat.dropped);
        cJSON_AddNumberToObject(l, "min", r->m.lat.min);
        cJSON_AddNumberToObject(l, "median", r->m.lat.median);
        cJSON_AddNumberToObject(l, "mean", r->m.lat.mean);
        cJSON_AddNumberToObject(l, "stdev", r->m.lat.stdev);
        cJSON_AddNumberToObject(l, "p99", r->m.lat.p99);
        cJSON_AddNumberToObject(l, "p999", r->m.lat.p999);
        cJSON_AddNumberToObject(l, "max", r->m.lat.max);
    } else {
        cJSON_AddNumberToObject(o, "bw_avg_bytes_per_s", r->m.bw_avg);
        cJSON_AddNumberToObject(o, "bw_peak_bytes_per_s", r->m.bw_peak);
    }
    cJSON_AddItemToObject(o, "window", window_json(r->window));
    if (s->roles.bidirectional) {
        cJSON *d = cJSON_AddObjectToObject(o, "directions");
        cJSON_AddItemToObject(d, "client_to_server", direction_json(&r->to_server));
        cJSON_AddItemToObject(d, "server_to_client", direction_json(&r->to_client));
    }
    cJSON *cpu = cJSON_AddObjectToObject(o, "cpu");
    cJSON_AddItemToObject(cpu, "client", cpu_json(r->cpu_client));
    cJSON_AddItemToObject(cpu, "server", cpu_json(r->cpu_server));
    cJSON *sleeps = cJSON_AddObjectToObject(o, "sleeps");
    gdr_json_add_u64(sleeps, "client", r->sleeps_client);
    gdr_json_add_u64(sleeps, "server", r->sleeps_server);
    if (r->server_prestage_s > 0)
        cJSON_AddNumberToObject(o, "server_prestage_s", r->server_prestage_s);
    cJSON_AddBoolToObject(o, "validated", r->validated);
    gdr_json_add_u64(o, "bad_bytes", r->bad_bytes);
    gdr_context_row_json(s, r, o);
    return o;
}

cJSON *gdr_output_document(const struct gdr_session *s, int argc, char **argv,
                           const struct gdr_size_result *rows, size_t nrows, const char *status,
                           const char *error)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema_version", GDR_RESULT_SCHEMA);
    cJSON *tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "name", "gdrbench");
    cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
    cJSON_AddStringToObject(tool, "binary", s->test->binary);
    cJSON_AddStringToObject(doc, "test", s->test->name);
    cJSON_AddStringToObject(doc, "verb", gdr_verb_name(s->test->verb));
    cJSON_AddStringToObject(doc, "metric", latency(s) ? "latency" : "bandwidth");
    cJSON_AddStringToObject(doc, "role", s->is_server ? "server" : "client");
    cJSON *cmd = cJSON_AddArrayToObject(doc, "command_line");
    for (int i = 0; i < argc; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
    char end_time[32];
    gdr_utc_iso8601(end_time, sizeof(end_time));
    cJSON_AddStringToObject(doc, "start_time", s->start_time);
    cJSON_AddStringToObject(doc, "end_time", end_time);
    cJSON_AddStringToObject(doc, "status", status);
    /* Which clock timed the latency samples (bandwidth: always the
     * monotonic raw clock). */
    cJSON *clock = cJSON_AddObjectToObject(doc, "clock");
    cJSON_AddStringToObject(clock, "source", gdr_tick_clock_name(&s->clock));
    if (s->clock.tsc) {
        cJSON_AddNumberToObject(clock, "tsc_hz", 1e9 / s->clock.ns_per_tick);
        cJSON_AddBoolToObject(clock, "tsc_invariant", s->clock.invariant);
    }
    if (s->clock.why) { /* a latency loop ran at this end */
        cJSON_AddStringToObject(clock, "reason", s->clock.why);
        cJSON_AddStringToObject(clock, "kernel_clocksource", s->clock.clocksource);
        cJSON_AddBoolToObject(clock, "pinned", s->clock.pinned);
        gdr_json_add_u64(clock, "dropped_samples", s->clock.dropped);
    }
    if (error) {
        cJSON_AddStringToObject(doc, "error", error);
        cJSON_AddItemToObject(doc, "error_class", gdr_json_error_class(gdr_error_class()));
    }
    /* How a ping-pong's arrivals were seen; the reads the client's QPs
     * could have in flight (both ends' devices and -o). Known once the
     * QPs are connected. */
    if (s->roles.pingpong)
        cJSON_AddStringToObject(doc, "completion", gdr_roles_completion(&s->roles));
    if (gdr_reads_in_flight_of(s))
        cJSON_AddNumberToObject(doc, "outstanding_reads", gdr_reads_in_flight_of(s));
    cJSON_AddItemToObject(doc, "parameters", gdr_output_parameters(s->cfg));
    if (s->soak)
        cJSON_AddItemToObject(doc, "soak", gdr_soak_json(s));
    cJSON *ends = cJSON_AddObjectToObject(doc, "ends");
    /* An end we never heard from (the run failed early) is left out. */
    if (client_end(s)->device[0])
        cJSON_AddItemToObject(ends, "client", gdr_endpoint_document_json(client_end(s)));
    if (server_end(s)->device[0])
        cJSON_AddItemToObject(ends, "server", gdr_endpoint_document_json(server_end(s)));
    cJSON *results = cJSON_AddArrayToObject(doc, "results");
    for (size_t i = 0; i < nrows; i++)
        cJSON_AddItemToArray(results, gdr_output_row_json(s, &rows[i]));
    return doc;
}
