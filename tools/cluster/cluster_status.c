/* cluster_status.c - run status lines (cluster_status.h). */
#include "config.h"

#include "cluster_status.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_status(const void *a, const void *b)
{
    const struct gdr_run_status *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

int gdr_run_status_parse(char *line, struct gdr_run_status *s)
{
    line[strcspn(line, "\n")] = '\0';
    if (!*line)
        return 1;
    char *fld[9] = {NULL};
    size_t k = 0;
    for (char *p = line, *t; k < 9 && (t = strsep(&p, "\t"));)
        fld[k++] = t;
    if (k < 7 || (strcmp(fld[1], "ok") && strcmp(fld[1], "failed")))
        return -1;
    snprintf(s->id, sizeof(s->id), "%s", fld[0]);
    snprintf(s->status, sizeof(s->status), "%s", fld[1]);
    snprintf(s->crc, sizeof(s->crc), "%s", fld[2]);
    snprintf(s->src, sizeof(s->src), "%s", fld[3]);
    s->duration = strtod(fld[4], NULL);
    snprintf(s->resumed, sizeof(s->resumed), "%s", fld[5]);
    snprintf(s->reason, sizeof(s->reason), "%s", fld[6]);
    snprintf(s->fclass, sizeof(s->fclass), "%s", fld[7] && strcmp(fld[7], "-") ? fld[7] : "");
    snprintf(s->end, sizeof(s->end), "%s", fld[8] && strcmp(fld[8], "-") ? fld[8] : "");
    return 0;
}

int gdr_run_status_read(const char *path, struct gdr_run_status **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    size_t cap = 0;
    char line[2048];
    for (size_t no = 1; fgets(line, sizeof(line), f); no++) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            void *g = realloc(*out, cap * sizeof(**out));
            if (!g) {
                fclose(f);
                return gdr_fail(GDR_EXIT_RUN, "out of memory");
            }
            *out = g;
        }
        struct gdr_run_status *s = &(*out)[*n];
        int rc = gdr_run_status_parse(line, s);
        if (rc > 0)
            continue;
        if (rc < 0) {
            fclose(f);
            return gdr_fail(GDR_EXIT_USAGE,
                            "%s:%zu: not 'ID STATUS CRC SRC DURATION RESUMED REASON [CLASS [END]]'",
                            path, no);
        }
        s->order = no;
        (*n)++;
    }
    fclose(f);
    if (*n) /* qsort(NULL, 0) is undefined */
        qsort(*out, *n, sizeof(**out), cmp_status);
    return 0;
}

const struct gdr_run_status *gdr_run_status_find(const struct gdr_run_status *v, size_t n,
                                                 const char *id)
{
    const struct gdr_run_status *hit = NULL;
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first line with this id */
        size_t mid = (lo + hi) / 2;
        if (strcmp(v[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !strcmp(v[lo].id, id); lo++)
        hit = &v[lo];
    return hit;
}
