/* cluster_stream.h - read a large JSON document one array element at a
 * time: manifest.json of a cluster run has an entry per planned run
 * (hundreds of thousands at thousands of nodes), which a cJSON tree would
 * hold as gigabytes. */
#ifndef GDR_TOOLS_CLUSTER_STREAM_H
#define GDR_TOOLS_CLUSTER_STREAM_H

#include <cjson/cJSON.h>

/* Read the JSON object in path. Each element of its member `key` (an
 * array) goes to fn, parsed, and is freed after (fn NULL: skipped
 * unparsed); fn returning non-zero stops with that code. Every other
 * member is returned in *rest (a small object the caller frees). Returns
 * 0, fn's code, or -1 with gdr_fail(USAGE) naming the file and offset. */
int gdr_json_stream(const char *path, const char *key, int (*fn)(const cJSON *el, void *ctx),
                    void *ctx, cJSON **rest);

#endif
