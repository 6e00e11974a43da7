/* troubleshoot.c - the four steps' report and the verdict (see troubleshoot.h).
 *
 * The verdict is one paragraph of clauses joined by "; ": the registration
 * of the GDR-on run (in effect or not), the on/off comparison, the host-host
 * baseline, then the doctor's FAILs, NIC-GPU paths, software devices and
 * WARNs. docs/doctor.md describes the cases. */
#include "config.h"

#include "troubleshoot.h"

#include "buf.h"
#include "doc.h"
#include "error.h"
#include "figure.h"
#include "json.h"
#include "manifest.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the growing strings (util/buf.h) ---- */

/* The text after a list's leading separator ("; a; b" -> "a; b"). */
static const char *list(struct gdr_buf *b, size_t sep_len)
{
    return gdr_buf_len(b) > sep_len ? b->s + sep_len : "";
}

/* ---- reading what was collected ---- */

/* A file that may be missing or malformed: NULL then, and no error kept. */
static cJSON *read_optional(const char *path)
{
    if (access(path, F_OK))
        return NULL;
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    gdr_error_clear();
    return root;
}

/* The first non-empty line of a file, without its newline; "" if none. */
static void first_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) {
            snprintf(out, len, "%s", line);
            break;
        }
    }
    fclose(f);
}

/* A value as `gdr-json get` prints it: strings raw, numbers %.17g, others
 * as JSON ("null", "true"); "" when absent. */
static void text_of(const cJSON *v, char *out, size_t len)
{
    out[0] = '\0';
    if (!v)
        return;
    if (cJSON_IsString(v)) {
        snprintf(out, len, "%s", v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        snprintf(out, len, "%.17g", v->valuedouble);
    } else {
        char *s = cJSON_PrintUnformatted(v);
        snprintf(out, len, "%s", s ? s : "");
        free(s);
    }
}

static const cJSON *field(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const cJSON *field2(const cJSON *o, const char *k1, const char *k2)
{
    return field(field(o, k1), k2);
}

#define TXT 1024

/* ---- step 1: the doctor on each node ---- */

struct doctor_notes {
    struct gdr_buf md;          /* report.md's step 1 */
    struct gdr_buf fails;       /* "; NODE: check subject: message" */
    struct gdr_buf warns;       /* ", NODE: check subject" */
    struct gdr_buf paths;       /* "; on the NODE the NIC-GPU path ... is PATH: why" */
    struct gdr_buf env_missing; /* "; NODE: what" */
    struct gdr_buf soft;        /* ", rxe0" */
};

static void pair_reason(const char *used, const char *path, const char *dev, const char *level,
                        char *out, size_t len)
{
    if (!strcmp(used, "true"))
        snprintf(out, len, "NCCL uses GDR there at NCCL_NET_GDR_LEVEL=%s", level);
    else if (!strcmp(path, "NONE"))
        snprintf(out, len, "%s is a software RDMA device: no PCIe path, no GDR", dev);
    else if (!strcmp(level, "LOC"))
        snprintf(out, len, "NCCL_NET_GDR_LEVEL=LOC disables GDR");
    else
        snprintf(out, len, "NCCL uses GDR there only at NCCL_NET_GDR_LEVEL>=%s (now %s)", path,
                 level);
}

static void doctor_checks(const cJSON *j, const char *pfx, struct doctor_notes *n)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, field(j, "checks")) {
        char st[32], check[TXT], subj[TXT], msg[TXT], fix[TXT];
        text_of(field(c, "status"), st, sizeof(st));
        if (strcmp(st, "FAIL") && strcmp(st, "WARN"))
            continue;
        text_of(field(c, "check"), check, sizeof(check));
        text_of(field(c, "subject"), subj, sizeof(subj));
        text_of(field(c, "message"), msg, sizeof(msg));
        text_of(field(c, "fix"), fix, sizeof(fix));
        gdr_buf_printf(&n->md, "\n- %s %s %s: %s", st, check, subj, msg);
        if (fix[0] && strcmp(fix, "null"))
            gdr_buf_printf(&n->md, " (fix: %s)", fix);
        if (!strcmp(st, "FAIL"))
            gdr_buf_printf(&n->fails, "; %s%s %s: %s", pfx, check, subj, msg);
        else
            gdr_buf_printf(&n->warns, ", %s%s %s", pfx, check, subj);
    }
    gdr_buf_printf(&n->md, "\n");
}

/* The NIC-GPU pairs and their path classes; the first four go in the verdict. */
static void doctor_pairs(const cJSON *j, const char *node, const char *level, const char *em,
                         struct doctor_notes *n)
{
    int npairs = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, field(j, "pairs")) {
        char path[64], dev[TXT], gpu[TXT], used[16], why[2 * TXT];
        if (!field(p, "path"))
            break;
        text_of(field(p, "path"), path, sizeof(path));
        text_of(field(p, "rdma_device"), dev, sizeof(dev));
        text_of(field(p, "gpu"), gpu, sizeof(gpu));
        text_of(field(p, "gdr_used"), used, sizeof(used));
        pair_reason(used, path, dev, level, why, sizeof(why));
        gdr_buf_printf(&n->md, "\n- pair %s<->%s: path %s: %s", dev, gpu, path, why);
        if (npairs < 4)
            gdr_buf_printf(&n->paths, "; on the %s the NIC-GPU path %s<->%s is %s: %s", node, dev,
                           gpu, path, why);
        npairs++;
    }
    if (npairs > 4)
        gdr_buf_printf(&n->paths, " (and %d more pairs, see report.md)", npairs - 4);
    if (npairs == 0) {
        gdr_buf_printf(&n->md, "\n- no NIC-GPU pair to classify");
        if (em[0])
            gdr_buf_printf(&n->md, " (%s)", em);
        const cJSON *d;
        cJSON_ArrayForEach(d, field(j, "rdma_devices")) {
            char name[TXT];
            if (!field(d, "name"))
                break;
            text_of(field(d, "name"), name, sizeof(name));
            if (cJSON_IsTrue(field(d, "software"))) {
                gdr_buf_printf(&n->md, "\n- %s is a software RDMA device (no PCIe path)", name);
                gdr_buf_printf(&n->soft, ", %s", name);
            }
        }
    }
    gdr_buf_printf(&n->md, "\n");
}

static void doctor_node(const char *dir, const char *node, bool local, struct doctor_notes *n)
{
    char base[4096], path[4200], host[TXT], rc[64];
    snprintf(base, sizeof(base), "%s/doctor/%s", dir, node);
    snprintf(path, sizeof(path), "%s.host", base);
    first_line(path, host, sizeof(host));
    snprintf(path, sizeof(path), "%s.rc", base);
    first_line(path, rc, sizeof(rc));
    const char *pfx_node = local ? "" : node;
    char pfx[64];
    snprintf(pfx, sizeof(pfx), "%s%s", pfx_node, local ? "" : ": ");
    gdr_buf_printf(&n->md, "\n### %s (%s): gdr_doctor exit %s\n", local ? "lab node" : node,
                   host[0] ? host : "?", rc[0] ? rc : "?");

    snprintf(path, sizeof(path), "%s.json", base);
    cJSON *j = read_optional(path);
    if (!field(j, "tool")) {
        char e[TXT];
        snprintf(path, sizeof(path), "%s.err", base);
        first_line(path, e, sizeof(e));
        const char *why = e[0] ? e : "no output";
        gdr_buf_printf(&n->md, "\ngdr_doctor gave no JSON: %s\n", why);
        gdr_buf_printf(&n->fails, "; %sgdr_doctor did not run (%s)", pfx, why);
        cJSON_Delete(j);
        return;
    }
    char level[64] = "PXB", lsrc[64] = "default", em[TXT];
    if (field2(j, "nccl_net_gdr_level", "level"))
        text_of(field2(j, "nccl_net_gdr_level", "level"), level, sizeof(level));
    if (field2(j, "nccl_net_gdr_level", "source"))
        text_of(field2(j, "nccl_net_gdr_level", "source"), lsrc, sizeof(lsrc));
    text_of(field(j, "environment_missing"), em, sizeof(em));
    if (!strcmp(em, "null"))
        em[0] = '\0';
    if (em[0])
        gdr_buf_printf(&n->env_missing, "; %s: %s", node, em);
    char cnt[4][32];
    static const char *const keys[] = {"pass", "warn", "fail", "unknown"};
    for (int i = 0; i < 4; i++)
        text_of(field2(j, "summary", keys[i]), cnt[i], sizeof(cnt[i]));
    gdr_buf_printf(&n->md,
                   "\nSummary: %s PASS, %s WARN, %s FAIL, %s UNKNOWN; NCCL_NET_GDR_LEVEL=%s (%s)",
                   cnt[0], cnt[1], cnt[2], cnt[3], level, lsrc);
    if (em[0])
        gdr_buf_printf(&n->md, "; environment missing: %s", em);
    gdr_buf_printf(&n->md, "\n");
    doctor_checks(j, pfx, n);
    doctor_pairs(j, node, level, em, n);
    cJSON_Delete(j);
}

/* ---- the sweep's runs ---- */

struct run {
    const char *name;
    char status[16];    /* "ok", "failed" or "absent" */
    cJSON *client;      /* its client document, raw (NULL if none) */
    struct gdr_doc doc; /* the same, checked: the rows (nrows 0 if none) */
    char error[4400];   /* its one-line error */
};

struct sweep {
    char dir[4096];
    char rc[64];     /* gdr-sweep's exit status, "none" */
    cJSON *manifest; /* NULL: the sweep wrote none */
};

static const cJSON *manifest_run(const struct sweep *s, const char *name)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, field(s->manifest, "runs")) {
        const cJSON *n = field(r, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return r;
    }
    return NULL;
}

/* The run's error: its client's, its server's, the manifest's reason. */
static void run_error(const struct sweep *s, struct run *r)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.server.json", s->dir, r->name);
    cJSON *server = read_optional(path);
    const cJSON *cands[] = {field(r->client, "error"), field(server, "error"),
                            field(manifest_run(s, r->name), "reason")};
    r->error[0] = '\0';
    for (size_t i = 0; i < 3 && !r->error[0]; i++)
        if (cJSON_IsString(cands[i]))
            snprintf(r->error, sizeof(r->error), "%s", cands[i]->valuestring);
    cJSON_Delete(server);
    /* The verdict is one paragraph: a reason of two lines (both ends stopped) joins. */
    for (char *c = r->error; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    if (!r->error[0])
        snprintf(r->error, sizeof(r->error), "no result (gdr-sweep exit %s; see %s/logs)", s->rc,
                 s->dir);
}

static void run_load(const struct sweep *s, struct run *r)
{
    const cJSON *st = field(manifest_run(s, r->name), "status");
    snprintf(r->status, sizeof(r->status), "%s", cJSON_IsString(st) ? st->valuestring : "absent");
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.client.json", s->dir, r->name);
    r->client = read_optional(path);
    if (!r->client || gdr_doc_load(path, &r->doc)) {
        gdr_error_clear();
        memset(&r->doc, 0, sizeof(r->doc));
    }
    run_error(s, r);
}

static void run_free(struct run *r)
{
    cJSON_Delete(r->client);
    gdr_doc_free(&r->doc);
}

static bool ok(const struct run *r)
{
    return !strcmp(r->status, "ok");
}

static void registration(const struct run *r, const char *end, char *out, size_t len)
{
    text_of(field(field2(r->client, "ends", end), "registration"), out, len);
}

static bool gdr_registration(const char *reg)
{
    return !strcmp(reg, "dmabuf") || !strcmp(reg, "peermem");
}

/* ---- steps 2-4 ---- */

struct step {
    struct gdr_buf md, txt;
};

/* The largest of m and the bandwidths (lat: median latencies) r shows:
 * the report's one unit of each comes from the largest (figure.h). */
static double most(const struct run *r, bool lat, double m)
{
    for (size_t i = 0; ok(r) && i < r->doc.nrows; i++)
        m = fmax(m, lat ? r->doc.rows[i].lat[LAT_MEDIAN] : r->doc.rows[i].bw_avg);
    return m;
}

static void step_host_host(const struct run *hh, struct step *st, struct gdr_unit u)
{
    if (!ok(hh)) {
        gdr_buf_printf(&st->txt,
                       "even the host-host run failed (%s): the fabric or RDMA setup, not "
                       "GDR, is the first problem",
                       hh->error);
        gdr_buf_printf(&st->md, "The host-host run failed: %s", hh->error);
        return;
    }
    if (hh->doc.nrows == 0) {
        gdr_buf_printf(&st->txt, "the host-host run has no result rows");
        gdr_buf_printf(&st->md, "The host-host run has no result rows.");
        return;
    }
    gdr_buf_printf(&st->md, "| size | bandwidth | CPU (client+server) |\n|---:|---:|---:|");
    char size[32], bw[32];
    for (size_t i = 0; i < hh->doc.nrows; i++) {
        const struct gdr_row *r = &hh->doc.rows[i];
        gdr_fmt_size(r->size, size, sizeof(size));
        gdr_fmt_unit(u, r->bw_avg, bw, sizeof(bw));
        gdr_buf_printf(&st->md, "\n| %s | %s | %.2f |", size, bw, r->cpu_client + r->cpu_server);
    }
    /* size and bw are now the largest size's */
    const cJSON *speed = field(field2(hh->client, "ends", "client"), "speed_bps");
    double spd = cJSON_IsNumber(speed) ? speed->valuedouble : 0;
    double last_bw = hh->doc.rows[hh->doc.nrows - 1].bw_avg;
    gdr_buf_printf(&st->txt, "host-host reaches %s at %s (", bw, size);
    if (spd > 0)
        gdr_buf_printf(&st->txt, "%.0f%% of the %.4g Gb/s link)", 800 * last_bw / spd, spd / 1e9);
    else
        gdr_buf_printf(&st->txt, "link rate unknown)");
    gdr_buf_printf(&st->md, "\n\nAt the largest size: %s.", gdr_buf_text(&st->txt));
}

/* Step 3; returns whether GDR is in effect. */
static bool step_registration(const struct run *on, struct step *st)
{
    char creg[64], sreg[64];
    registration(on, "client", creg, sizeof(creg));
    registration(on, "server", sreg, sizeof(sreg));
    if (ok(on) && gdr_registration(creg) && gdr_registration(sreg)) {
        if (!strcmp(creg, sreg))
            gdr_buf_printf(&st->txt, "D-D registered with %s on both ends", creg);
        else
            gdr_buf_printf(&st->txt, "D-D registered with %s on the client and %s on the server",
                           creg, sreg);
        gdr_buf_printf(&st->md,
                       "Client: `%s`, server: `%s`: the NIC reads and writes GPU memory "
                       "directly.",
                       creg, sreg);
        return true;
    }
    if (ok(on)) {
        gdr_buf_printf(&st->txt,
                       "the D-D run with GDR on registered %s on the client and %s on the "
                       "server, not dmabuf/peermem: the data went through host memory",
                       creg[0] ? creg : "nothing", sreg[0] ? sreg : "nothing");
        gdr_buf_printf(&st->md, "Client: `%s`, server: `%s`: not GPU memory registration.",
                       creg[0] ? creg : "?", sreg[0] ? sreg : "?");
    } else {
        gdr_buf_printf(&st->txt, "the D-D run with GDR on failed: %s", on->error);
        gdr_buf_printf(&st->md, "The D-D run with GDR on failed: %s", on->error);
    }
    return false;
}

/* Step 4: the sizes both runs have, in the GDR-off run's order. */
static void step_compare(const struct run *on, const struct run *off, struct step *st,
                         struct gdr_unit u)
{
    if (!ok(on)) {
        gdr_buf_printf(&st->md, "Not compared: the GDR-on run did not complete.");
        if (ok(off))
            gdr_buf_printf(&st->md,
                           " The staged run (GDR off) worked, so the GPU and the fabric work: "
                           "only direct registration fails.");
        return;
    }
    if (!ok(off)) {
        gdr_buf_printf(&st->txt, "the GDR-off comparison run failed (%s)", off->error);
        gdr_buf_printf(&st->md, "The GDR-off run failed: %s", off->error);
        return;
    }
    gdr_buf_printf(&st->md,
                   "| size | GDR on | GDR off (staged) | speed-up on/off | CPU on | CPU off |\n"
                   "|---:|---:|---:|---:|---:|---:|\n");
    const struct gdr_row *last_on = NULL, *last_off = NULL;
    for (size_t i = 0; i < off->doc.nrows; i++) {
        const struct gdr_row *y = &off->doc.rows[i];
        const struct gdr_row *x = gdr_doc_row(&on->doc, y->size);
        if (!x)
            continue;
        char size[32], bon[32], boff[32], ratio[32];
        gdr_fmt_size(y->size, size, sizeof(size));
        gdr_fmt_unit(u, x->bw_avg, bon, sizeof(bon));
        gdr_fmt_unit(u, y->bw_avg, boff, sizeof(boff));
        gdr_fmt_ratio(x->bw_avg, y->bw_avg, ratio, sizeof(ratio));
        gdr_buf_printf(&st->md, "%s| %s | %s | %s | %sx | %.2f | %.2f |", last_on ? "\n" : "", size,
                       bon, boff, ratio, x->cpu_client + x->cpu_server,
                       y->cpu_client + y->cpu_server);
        last_on = x;
        last_off = y;
    }
    gdr_buf_printf(&st->md, "\n\nCPU is the client's plus the server's, as a fraction of one CPU.");
    if (!last_on) {
        gdr_buf_printf(&st->txt, "the GDR on and off runs share no size");
        return;
    }
    char size[32], br[32], cr[32];
    gdr_fmt_size(last_on->size, size, sizeof(size));
    gdr_fmt_ratio(last_on->bw_avg, last_off->bw_avg, br, sizeof(br));
    gdr_fmt_ratio(last_on->cpu_client + last_on->cpu_server,
                  last_off->cpu_client + last_off->cpu_server, cr, sizeof(cr));
    gdr_buf_printf(&st->txt,
                   "at %s it delivers %sx the bandwidth of the staged path and %sx its CPU", size,
                   br, cr);
    /* The ratio as printed: 0.996 shows as 1.00 and is not called slower. */
    if (strcmp(br, "n/a") && strtod(br, NULL) < 1)
        gdr_buf_printf(&st->txt, ": slower than staging, look at the topology, ACS, IOMMU and BAR1 "
                                 "findings of step 1");
}

/* Step 4 too: GDR's headline number, GPU-to-GPU write latency, on and off
 * (gdr_write_lat D-D, median, half a round trip). Optional: a sweep of an
 * older gdr-troubleshoot has no such runs. */
static void step_latency(const struct run *on, const struct run *off, struct step *st,
                         struct gdr_unit u)
{
    if (!strcmp(on->status, "absent") && !strcmp(off->status, "absent"))
        return;
    gdr_buf_printf(&st->md, "\n\nWrite latency (gdr_write_lat D-D, median of half round trips):");
    if (!ok(on) || !ok(off)) {
        const struct run *bad = ok(on) ? off : on;
        gdr_buf_printf(&st->md, " the GDR %s run failed: %s", bad == on ? "on" : "off", bad->error);
        return;
    }
    gdr_buf_printf(&st->md,
                   "\n\n| size | GDR on | GDR off (staged) | staged / on |\n|---:|---:|---:|---:|");
    const struct gdr_row *first_on = NULL, *first_off = NULL;
    for (size_t i = 0; i < off->doc.nrows; i++) {
        const struct gdr_row *y = &off->doc.rows[i];
        const struct gdr_row *x = gdr_doc_row(&on->doc, y->size);
        if (!x)
            continue;
        char size[32], ratio[32], lon[32], loff[32];
        gdr_fmt_size(y->size, size, sizeof(size));
        gdr_fmt_ratio(y->lat[LAT_MEDIAN], x->lat[LAT_MEDIAN], ratio, sizeof(ratio));
        gdr_fmt_unit(u, x->lat[LAT_MEDIAN], lon, sizeof(lon));
        gdr_fmt_unit(u, y->lat[LAT_MEDIAN], loff, sizeof(loff));
        gdr_buf_printf(&st->md, "\n| %s | %s | %s | %sx |", size, lon, loff, ratio);
        if (!first_on) {
            first_on = x;
            first_off = y;
        }
    }
    if (!first_on)
        return;
    char size[32], ratio[32], lat[32];
    gdr_fmt_size(first_on->size, size, sizeof(size));
    gdr_fmt_ratio(first_off->lat[LAT_MEDIAN], first_on->lat[LAT_MEDIAN], ratio, sizeof(ratio));
    gdr_fmt_unit(u, first_on->lat[LAT_MEDIAN], lat, sizeof(lat));
    gdr_buf_printf(&st->txt, "%sits write latency at %s is %s, the staged path's %sx that",
                   gdr_buf_len(&st->txt) ? "; " : "", size, lat, ratio);
}

/* ---- the verdict and the report ---- */

static void doctor_clause(struct doctor_notes *n, struct gdr_buf *out)
{
    if (gdr_buf_len(&n->fails))
        gdr_buf_printf(out, "the doctor FAILs %s", list(&n->fails, 2));
    if (gdr_buf_len(&n->paths))
        gdr_buf_printf(out, "%s%s", gdr_buf_len(out) ? "; " : "", list(&n->paths, 2));
    if (gdr_buf_len(&n->soft)) {
        const char *devs = list(&n->soft, 2);
        gdr_buf_printf(out, "%s%s %s (no PCIe path, no GDR)", gdr_buf_len(out) ? "; " : "", devs,
                       strchr(devs, ',') ? "are software RDMA devices"
                                         : "is a software RDMA device");
    }
    if (gdr_buf_len(&n->warns))
        gdr_buf_printf(out, "%sthe doctor WARNs on %s (report.md has the fixes)",
                       gdr_buf_len(out) ? "; " : "", list(&n->warns, 2));
}

static int write_text(const char *dir, const char *name, const char *text, const char *end)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    bool bad = fputs(text, f) == EOF || fputs(end, f) == EOF;
    bad |= fclose(f) != 0;
    return bad ? gdr_fail(GDR_EXIT_USAGE, "%s: write failed", path) : 0;
}

static void report(const struct gdr_ts_opts *o, const char *verdict, struct doctor_notes *n,
                   struct step *hh, struct step *reg, struct step *cmp, struct gdr_buf *r)
{
    time_t t = time(NULL);
    struct tm tm;
    char date[32] = "unknown";
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    gdr_buf_printf(r, "# GPUDirect RDMA troubleshooting report\n\n");
    if (o->local)
        gdr_buf_printf(r, "Where: soft-RoCE lab (--local), rxe, simulated GPU.\n");
    else
        gdr_buf_printf(r, "Where: server %s, client %s.\n", o->server ? o->server : "?",
                       o->client ? o->client : "?");
    gdr_buf_printf(r,
                   "Date: %s. Sizes: %s. Results: `sweep/` (gdr-sweep, manifest.json), "
                   "`doctor/`.\n\n",
                   date, o->sizes ? o->sizes : "?");
    gdr_buf_printf(r, "## Verdict\n\n%s\n\n", verdict);
    gdr_buf_printf(r, "## Step 1: topology and conditions (gdr_doctor)\n%s\n",
                   gdr_buf_text(&n->md));
    gdr_buf_printf(r, "## Step 2: raw host-host bandwidth (gdr_write_bw H-H)\n\n%s\n\n",
                   gdr_buf_text(&hh->md));
    gdr_buf_printf(r, "## Step 3: GPU memory registration (gdr_write_bw D-D, GDR on)\n\n%s\n\n",
                   gdr_buf_text(&reg->md));
    gdr_buf_printf(r, "## Step 4: GDR on vs off (gdr_write_bw and gdr_write_lat D-D)\n\n%s\n",
                   gdr_buf_text(&cmp->md));
}

static void doctor_notes_free(struct doctor_notes *n)
{
    gdr_buf_free(&n->md);
    gdr_buf_free(&n->fails);
    gdr_buf_free(&n->warns);
    gdr_buf_free(&n->paths);
    gdr_buf_free(&n->env_missing);
    gdr_buf_free(&n->soft);
}

int gdr_troubleshoot(const struct gdr_ts_opts *o)
{
    if (access(o->dir, R_OK | W_OK | X_OK))
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", o->dir, strerror(errno));
    struct sweep s = {.rc = "none"};
    char path[4200];
    snprintf(s.dir, sizeof(s.dir), "%s/sweep", o->dir);
    snprintf(path, sizeof(path), "%s/sweep.rc", o->dir);
    first_line(path, s.rc, sizeof(s.rc));
    if (!s.rc[0])
        snprintf(s.rc, sizeof(s.rc), "none");
    snprintf(path, sizeof(path), "%s/manifest.json", s.dir);
    if (!access(path, F_OK)) {
        s.manifest = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
        const cJSON *v = field(s.manifest, "manifest_version");
        if (!s.manifest) {
            gdr_error_clear();
            gdr_fail(GDR_EXIT_USAGE, "%s: not valid JSON: the sweep's manifest is damaged", path);
        } else if (!cJSON_IsString(v) || strcmp(v->valuestring, GDR_MANIFEST_SCHEMA)) {
            gdr_fail(GDR_EXIT_USAGE, "%s: not a sweep manifest (manifest_version is not \"%s\")",
                     path, GDR_MANIFEST_SCHEMA);
        }
        if (gdr_error_code()) {
            cJSON_Delete(s.manifest);
            return -1;
        }
    }

    struct doctor_notes n = {0};
    if (o->local) {
        doctor_node(o->dir, "local", true, &n);
    } else {
        doctor_node(o->dir, "server", false, &n);
        doctor_node(o->dir, "client", false, &n);
    }

    struct run hh = {.name = "write_bw.H-H.na"}, on = {.name = "write_bw.D-D.on"},
               off = {.name = "write_bw.D-D.off"}, lat_on = {.name = "write_lat.D-D.on"},
               lat_off = {.name = "write_lat.D-D.off"};
    run_load(&s, &hh);
    run_load(&s, &on);
    run_load(&s, &off);
    run_load(&s, &lat_on);
    run_load(&s, &lat_off);
    bool simulated = o->local || cJSON_IsTrue(field(on.client, "simulated")) ||
                     cJSON_IsTrue(field(off.client, "simulated"));

    struct step st[3] = {0}; /* host-host, registration, comparison */
    struct gdr_unit bw = gdr_unit_bw(most(&hh, false, most(&on, false, most(&off, false, 0))));
    step_host_host(&hh, &st[0], bw);
    bool in_effect = step_registration(&on, &st[1]);
    step_compare(&on, &off, &st[2], bw);
    if (ok(&on))
        step_latency(&lat_on, &lat_off, &st[2],
                     gdr_unit_lat(most(&lat_on, true, most(&lat_off, true, 0))));

    struct gdr_buf verdict = {0}, doctxt = {0}, rep = {0};
    doctor_clause(&n, &doctxt);
    gdr_buf_printf(&verdict, "GDR is %sin effect: %s", in_effect ? "" : "not ",
                   gdr_buf_text(&st[1].txt));
    if (gdr_buf_len(&st[2].txt))
        gdr_buf_printf(&verdict, "; %s", gdr_buf_text(&st[2].txt));
    gdr_buf_printf(&verdict, "; %s", gdr_buf_text(&st[0].txt));
    if (gdr_buf_len(&doctxt))
        gdr_buf_printf(&verdict, "; %s", gdr_buf_text(&doctxt));
    gdr_buf_printf(&verdict, ".");
    int code = in_effect ? 0 : 1;
    if (simulated) {
        gdr_buf_printf(&verdict,
                       " Simulated GPU (the CUDA driver test double in the soft-RoCE lab): "
                       "the numbers mean nothing; only the mechanics are checked.");
    } else if (code == 1 && gdr_buf_len(&n.env_missing)) {
        gdr_buf_printf(&verdict, " Missing environment: %s.", list(&n.env_missing, 2));
        code = 3;
    }
    report(o, gdr_buf_text(&verdict), &n, &st[0], &st[1], &st[2], &rep);

    gdr_buf_text(&rep); /* the last of it reaches rep.oom at a flush */
    bool oom = verdict.oom || rep.oom || doctxt.oom || n.md.oom;
    if (oom)
        code = gdr_fail(GDR_EXIT_RUN, "out of memory writing the report");
    else if (write_text(o->dir, "verdict.txt", gdr_buf_text(&verdict), "\n") ||
             write_text(o->dir, "report.md", gdr_buf_text(&rep), ""))
        code = -1;
    else
        printf("%s\n", gdr_buf_text(&verdict));

    run_free(&hh);
    run_free(&on);
    run_free(&off);
    run_free(&lat_on);
    run_free(&lat_off);
    cJSON_Delete(s.manifest);
    doctor_notes_free(&n);
    gdr_buf_free(&verdict);
    gdr_buf_free(&doctxt);
    gdr_buf_free(&rep);
    for (int i = 0; i < 3; i++) {
        gdr_buf_free(&st[i].md);
        gdr_buf_free(&st[i].txt);
    }
    return code;
}
