/* manifest.c - a sweep's manifest.json, created and updated atomically. */
#include "config.h"

#include "manifest.h"

#include "doc.h"
#include "error.h"
#include "json.h"
#include "text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The field order of docs/sweep.md; fields added later go before the counts. */
static const char *const head_keys[] = {
    "manifest_version", "run_id",  "git_version", "date",     "mode",
    "command_line",     "resumed", "hosts",       "end_date", "runs",
};
static const char *const tail_keys[] = {"planned", "ok", "failed"};

void gdr_manifest_run_name(const char *tool, const char *placement, const char *gdr, char *buf,
                           size_t len)
{
    snprintf(buf, len, "%s.%s.%s", tool, placement, strcmp(gdr, "n/a") ? gdr : "na");
}

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "unknown");
}

/* Text from the shell (error lines, arguments) as a JSON string: cJSON
 * escapes quotes, backslashes and control characters; invalid UTF-8 is
 * replaced here, so every reader can decode the file. "" and NULL: null. */
static cJSON *text_or_null(const char *s)
{
    if (!s || !*s)
        return cJSON_CreateNull();
    char *clean = gdr_utf8_clean(s);
    cJSON *v = clean ? cJSON_CreateString(clean) : NULL;
    free(clean);
    return v;
}

static cJSON *num_or_null(long v)
{
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

/* Add to obj, or fail when cJSON could not allocate. */
static int put(cJSON *obj, const char *key, cJSON *v)
{
    if (!v || !cJSON_AddItemToObject(obj, key, v)) {
        cJSON_Delete(v);
        return gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
    }
    return 0;
}

/* Set key, in its place when it is there already. */
static int put_replace(cJSON *obj, const char *key, cJSON *v)
{
    if (!v || !cJSON_GetObjectItemCaseSensitive(obj, key))
        return put(obj, key, v);
    if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v)) {
        cJSON_Delete(v);
        return gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
    }
    return 0;
}

/* Load an existing manifest: a JSON object of our schema with a runs array. */
static cJSON *load(const char *path)
{
    if (access(path, F_OK)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: no manifest (gdr-json manifest init creates it)", path);
        return NULL;
    }
    gdr_error_clear();
    cJSON *root = gdr_json_read_file(path, GDR_DOC_MAX_BYTES);
    if (!root) {
        /* gdr_json_read_file recorded the reason with GDR_EXIT_RUN. */
        char why[512];
        snprintf(why, sizeof(why), "%s", gdr_error_message());
        gdr_error_clear();
        gdr_fail(GDR_EXIT_USAGE, "%s", why);
        return NULL;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "manifest_version");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, GDR_MANIFEST_SCHEMA)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: not a sweep manifest (manifest_version is not \"%s\")", path,
                 GDR_MANIFEST_SCHEMA);
    } else if (!cJSON_IsArray(runs)) {
        gdr_fail(GDR_EXIT_USAGE, "%s: field 'runs' is not an array", path);
    } else {
        return root;
    }
    cJSON_Delete(root);
    return NULL;
}

static size_t count_status(const cJSON *runs, const char *status)
{
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "status");
        n += cJSON_IsString(s) && !strcmp(s->valuestring, status);
    }
    return n;
}

static void move_key(cJSON *from, cJSON *to, const char *key)
{
    cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(from, key);
    if (item)
        cJSON_AddItemToObject(to, key, item);
}

/* Recount, put the fields in their documented order, write atomically. */
static int save(const char *path, cJSON *root)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (put_replace(root, "ok", cJSON_CreateNumber((double)count_status(runs, "ok"))) ||
        put_replace(root, "failed", cJSON_CreateNumber((double)count_status(runs, "failed"))))
        return -1;
    cJSON *out = cJSON_CreateObject();
    if (!out)
        return gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
    for (size_t i = 0; i < sizeof(head_keys) / sizeof(head_keys[0]); i++)
        move_key(root, out, head_keys[i]);
    cJSON *rest = root->child;
    while (rest) {
        cJSON *next = rest->next;
        bool tail = false;
        for (size_t i = 0; i < sizeof(tail_keys) / sizeof(tail_keys[0]); i++)
            tail |= !strcmp(rest->string, tail_keys[i]);
        if (!tail)
            move_key(root, out, rest->string);
        rest = next;
    }
    for (size_t i = 0; i < sizeof(tail_keys) / sizeof(tail_keys[0]); i++)
        move_key(root, out, tail_keys[i]);
    int rc = gdr_json_write_atomic(out, path);
    cJSON_Delete(out);
    return rc;
}

int gdr_manifest_init(const char *path, const struct gdr_manifest_header *h)
{
    cJSON *old = NULL;
    if (h->resumed && !access(path, F_OK) && !(old = load(path)))
        return -1;
    cJSON *root = cJSON_CreateObject(), *argv = cJSON_CreateArray();
    char now[32];
    utc_now(now, sizeof(now));
    int rc = -1;
    if (!root || !argv) {
        cJSON_Delete(argv);
        gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
        goto out;
    }
    for (size_t i = 0; i < h->ncommand_line; i++) {
        cJSON *a = text_or_null(h->command_line[i]);
        /* An empty argument stays an empty string, not null. */
        if (a && cJSON_IsNull(a)) {
            cJSON_Delete(a);
            a = cJSON_CreateString("");
        }
        if (!a || !cJSON_AddItemToArray(argv, a)) {
            cJSON_Delete(a);
            cJSON_Delete(argv);
            gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
            goto out;
        }
    }
    if (put(root, "manifest_version", cJSON_CreateString(GDR_MANIFEST_SCHEMA)) ||
        put(root, "run_id", text_or_null(h->run_id)) ||
        put(root, "git_version", text_or_null(h->git_version)) ||
        put(root, "date", cJSON_CreateString(now)) || put(root, "mode", text_or_null(h->mode)) ||
        put(root, "command_line", argv) || put(root, "resumed", cJSON_CreateBool(h->resumed)))
        goto out;
    cJSON *hosts = old ? cJSON_DetachItemFromObjectCaseSensitive(old, "hosts") : NULL;
    if (hosts && put(root, "hosts", hosts))
        goto out;
    cJSON *runs = old ? cJSON_DetachItemFromObjectCaseSensitive(old, "runs") : NULL;
    if (put(root, "runs", runs ? runs : cJSON_CreateArray()))
        goto out;
    rc = save(path, root);
out:
    cJSON_Delete(old);
    cJSON_Delete(root);
    return rc;
}

int gdr_manifest_hosts(const char *path, const char *server, const char *client,
                       const char *server_addr)
{
    cJSON *root = load(path);
    if (!root)
        return -1;
    cJSON *hosts = cJSON_CreateObject();
    int rc = -1;
    if (!hosts) {
        gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
        goto out;
    }
    if (put(hosts, "server", text_or_null(server)) || put(hosts, "client", text_or_null(client)) ||
        put(hosts, "server_addr", text_or_null(server_addr))) {
        cJSON_Delete(hosts);
        goto out;
    }
    if (!put_replace(root, "hosts", hosts))
        rc = save(path, root);
out:
    cJSON_Delete(root);
    return rc;
}

/* The path of `file` in the manifest's directory. */
static void beside(const char *manifest, const char *file, char *buf, size_t len)
{
    const char *slash = strrchr(manifest, '/');
    int dirlen = slash ? (int)(slash - manifest) : 1;
    snprintf(buf, len, "%.*s/%s", dirlen, slash ? manifest : ".", file);
}

/* files.client and files.server: the result documents that exist beside
 * the manifest, else null; the logs are always named. */
static cJSON *run_files(const char *path, const char *name)
{
    cJSON *files = cJSON_CreateObject();
    if (!files)
        return NULL;
    static const char *const roles[] = {"client", "server"};
    for (int i = 0; i < 2; i++) {
        char file[512], full[4096 + 512];
        snprintf(file, sizeof(file), "%s.%s.json", name, roles[i]);
        beside(path, file, full, sizeof(full));
        if (put(files, roles[i],
                access(full, F_OK) ? cJSON_CreateNull() : cJSON_CreateString(file))) {
            cJSON_Delete(files);
            return NULL;
        }
    }
    for (int i = 0; i < 2; i++) {
        char key[16], log[512];
        snprintf(key, sizeof(key), "%s_log", roles[i]);
        snprintf(log, sizeof(log), "logs/%s.%s.err", name, roles[i]);
        if (put(files, key, cJSON_CreateString(log))) {
            cJSON_Delete(files);
            return NULL;
        }
    }
    return files;
}

cJSON *gdr_manifest_error_class(const char *client_doc, const char *server_doc, const char *reason)
{
    const char *docs[] = {client_doc, server_doc};
    struct gdr_error_class c;
    for (int i = 0; i < 2; i++) {
        if (!docs[i] || access(docs[i], F_OK))
            continue;
        /* A document is only read here, never judged (that is gdr-json
         * check's): one it cannot read leaves no error behind. */
        enum gdr_exit before = gdr_error_code();
        cJSON *root = gdr_json_read_file(docs[i], GDR_DOC_MAX_BYTES);
        int got = root ? gdr_json_read_error_class(
                             cJSON_GetObjectItemCaseSensitive(root, "error_class"), &c)
                       : -1;
        cJSON_Delete(root);
        if (before == GDR_EXIT_OK)
            gdr_error_clear();
        if (got == 0)
            return gdr_json_error_class(&c);
    }
    gdr_error_class_init(&c, reason && strstr(reason, "stopped") ? "stopped" : "no-result");
    return gdr_json_error_class(&c);
}

static cJSON *pair(const char *k1, cJSON *v1, const char *k2, cJSON *v2)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        cJSON_Delete(v1);
        cJSON_Delete(v2);
        return NULL;
    }
    if (put(o, k1, v1)) {
        cJSON_Delete(v2);
        cJSON_Delete(o);
        return NULL;
    }
    if (put(o, k2, v2)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Tool and placement make file names: letters, digits, '_' and '-' only. */
static bool plain_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return false;
    return true;
}

static int check_run(const char *path, const struct gdr_manifest_run *r)
{
    const char *fields[] = {r->tool, r->placement};
    for (int i = 0; i < 2; i++)
        if (!plain_name(fields[i]))
            return gdr_fail(GDR_EXIT_USAGE,
                            "%s: run: tool and placement are letters, digits, "
                            "'_' and '-', not '%s'",
                            path, fields[i] ? fields[i] : "");
    if (!r->gdr || (strcmp(r->gdr, "on") && strcmp(r->gdr, "off") && strcmp(r->gdr, "n/a")))
        return gdr_fail(GDR_EXIT_USAGE, "%s: run: GDR must be on, off or n/a, not '%s'", path,
                        r->gdr ? r->gdr : "");
    if (!r->status || (strcmp(r->status, "ok") && strcmp(r->status, "failed")))
        return gdr_fail(GDR_EXIT_USAGE, "%s: run: status must be ok or failed, not '%s'", path,
                        r->status ? r->status : "");
    if (r->index < 1)
        return gdr_fail(GDR_EXIT_USAGE, "%s: run: index must be 1 or more", path);
    return 0;
}

/* A failed run's class from its documents beside the manifest; null for
 * an ok run. */
static cJSON *run_class(const char *path, const char *name, const struct gdr_manifest_run *r)
{
    if (strcmp(r->status, "failed"))
        return cJSON_CreateNull();
    char file[600], client[4096 + 640], server[4096 + 640];
    snprintf(file, sizeof(file), "%s.client.json", name);
    beside(path, file, client, sizeof(client));
    snprintf(file, sizeof(file), "%s.server.json", name);
    beside(path, file, server, sizeof(server));
    return gdr_manifest_error_class(client, server, r->reason);
}

static cJSON *run_entry(const char *path, const struct gdr_manifest_run *r)
{
    char name[512];
    gdr_manifest_run_name(r->tool, r->placement, r->gdr, name, sizeof(name));
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
        return NULL;
    }
    if (put(o, "index", cJSON_CreateNumber((double)r->index)) ||
        put(o, "status", cJSON_CreateString(r->status)) ||
        put(o, "resumed", cJSON_CreateBool(r->resumed)) ||
        put(o, "name", cJSON_CreateString(name)) || put(o, "tool", cJSON_CreateString(r->tool)) ||
        put(o, "placement", cJSON_CreateString(r->placement)) ||
        put(o, "gdr", cJSON_CreateString(r->gdr)) ||
        put(o, "exit_codes",
            pair("client", num_or_null(r->client_exit), "server", num_or_null(r->server_exit))) ||
        put(o, "reason", text_or_null(r->reason)) ||
        put(o, "first_error",
            pair("client", text_or_null(r->client_error), "server",
                 text_or_null(r->server_error))) ||
        put(o, "error_class", run_class(path, name, r)) ||
        put(o, "duration_s", cJSON_CreateNumber(r->duration_s < 0 ? 0 : (double)r->duration_s)) ||
        put(o, "simulated", cJSON_CreateBool(r->simulated)) ||
        put(o, "port", num_or_null(r->port)) || put(o, "files", run_files(path, name))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The index in runs of the entry called name, or -1. */
static int find_run(const cJSON *runs, const char *name)
{
    int i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return i;
        i++;
    }
    return -1;
}

int gdr_manifest_add_run(const char *path, const struct gdr_manifest_run *r)
{
    if (check_run(path, r))
        return -1;
    cJSON *root = load(path);
    if (!root)
        return -1;
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    char name[512];
    gdr_manifest_run_name(r->tool, r->placement, r->gdr, name, sizeof(name));
    int at = find_run(runs, name);
    int rc = -1;
    cJSON *old = at >= 0 ? cJSON_GetArrayItem(runs, at) : NULL;
    const cJSON *old_status = cJSON_GetObjectItemCaseSensitive(old, "status");
    if (r->resumed && cJSON_IsString(old_status) && !strcmp(old_status->valuestring, "ok")) {
        /* Skipped by --resume: the earlier ok entry keeps its details. */
        if (put_replace(old, "resumed", cJSON_CreateBool(true)))
            goto out;
    } else {
        cJSON *entry = run_entry(path, r);
        if (!entry)
            goto out;
        if (at >= 0)
            cJSON_ReplaceItemInArray(runs, at, entry);
        else
            cJSON_AddItemToArray(runs, entry);
    }
    rc = save(path, root);
out:
    cJSON_Delete(root);
    return rc;
}

int gdr_manifest_finish(const char *path, const struct gdr_manifest_plan_item *plan, size_t nplan,
                        const char *missing)
{
    cJSON *root = load(path);
    if (!root)
        return -1;
    int rc = -1;
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    cJSON *ordered = cJSON_CreateArray();
    if (!ordered) {
        gdr_fail(GDR_EXIT_RUN, "out of memory building the manifest");
        goto out;
    }
    for (size_t i = 0; i < nplan; i++) {
        const struct gdr_manifest_plan_item *p = &plan[i];
        char name[512];
        gdr_manifest_run_name(p->tool, p->placement, p->gdr, name, sizeof(name));
        int at = find_run(runs, name);
        cJSON *entry = NULL;
        if (at >= 0) {
            entry = cJSON_DetachItemFromArray(runs, at);
            if (put_replace(entry, "index", cJSON_CreateNumber((double)(i + 1)))) {
                cJSON_Delete(entry);
                entry = NULL;
            }
        } else if (missing) {
            struct gdr_manifest_run r = {
                .index = (long)(i + 1),
                .status = "failed",
                .tool = p->tool,
                .placement = p->placement,
                .gdr = p->gdr,
                .client_exit = -1,
                .server_exit = -1,
                .reason = missing,
                .duration_s = 0,
                .port = -1,
            };
            if (check_run(path, &r)) {
                cJSON_Delete(ordered);
                goto out;
            }
            entry = run_entry(path, &r);
        } else {
            continue;
        }
        if (!entry) {
            cJSON_Delete(ordered);
            goto out;
        }
        cJSON_AddItemToArray(ordered, entry);
    }
    char now[32];
    utc_now(now, sizeof(now));
    /* Entries of runs outside the plan (an earlier, wider sweep) are dropped. */
    if (put_replace(root, "runs", ordered) ||
        put_replace(root, "end_date", cJSON_CreateString(now)) ||
        put_replace(root, "planned", cJSON_CreateNumber((double)nplan)))
        goto out;
    rc = save(path, root);
out:
    cJSON_Delete(root);
    return rc;
}
