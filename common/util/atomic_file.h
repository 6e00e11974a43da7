/* atomic_file.h - the one way a file is written in place: readers see the
 * old file or the new one, never a torn one, and after success the new one
 * survives a crash.
 *
 * A temporary PATH.tmp.XXXXXX beside the target (a rename is atomic only
 * within one file system), written, flushed and fsync'd, renamed over the
 * target, then the directory fsync'd (the rename itself is durable). Any
 * failure removes the temporary and records a gdr_fail naming the path. */
#ifndef GDR_ATOMIC_FILE_H
#define GDR_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

struct gdr_atomic_file {
    FILE *f;            /* write here between open and commit */
    char *path, *tmp;   /* owned */
    enum gdr_exit code; /* the exit code a failure records */
};

/* Create the temporary (mode 0644). 0, or -1 with the error recorded. */
int gdr_atomic_open(struct gdr_atomic_file *a, const char *path, enum gdr_exit code);
/* Flush, fsync, rename over the path, fsync the directory; always
 * releases a. 0, or -1 with the error recorded and the temporary removed. */
int gdr_atomic_commit(struct gdr_atomic_file *a);
/* Give up: close and remove the temporary, record nothing. */
void gdr_atomic_abort(struct gdr_atomic_file *a);

/* open, write len bytes of buf, commit. */
int gdr_atomic_write(const char *path, const void *buf, size_t len, enum gdr_exit code);

#endif
