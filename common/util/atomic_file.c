#include "config.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(struct gdr_atomic_file *a)
{
    free(a->path);
    free(a->tmp);
    a->path = a->tmp = NULL;
    a->f = NULL;
}

/* Records the error, removes the temporary, releases a; returns -1. */
static int fail(struct gdr_atomic_file *a, const char *what, int err)
{
    gdr_fail(a->code, "%s: %s: %s", a->path, what, strerror(err));
    if (a->f)
        fclose(a->f);
    unlink(a->tmp);
    release(a);
    return -1;
}

int gdr_atomic_open(struct gdr_atomic_file *a, const char *path, enum gdr_exit code)
{
    size_t n = strlen(path) + sizeof(".tmp.XXXXXX");
    *a = (struct gdr_atomic_file){.path = strdup(path), .tmp = malloc(n), .code = code};
    if (!a->path || !a->tmp) {
        release(a);
        return gdr_fail(code, "%s: out of memory", path);
    }
    snprintf(a->tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        gdr_fail(code, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        release(a);
        return -1;
    }
    /* mkstemp makes it 0600; results are read by other users' scripts. */
    if (fchmod(fd, 0644) || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return fail(a, "cannot open its temporary file", e);
    }
    return 0;
}

/* The directory's entry for the rename reaches the disk only with an
 * fsync of the directory itself. */
static int sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(dir);
    int rc = fd < 0 || fsync(fd) ? -1 : 0;
    /* Some file systems cannot fsync a directory: nothing more to do. */
    if (rc && errno == EINVAL)
        rc = 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

int gdr_atomic_commit(struct gdr_atomic_file *a)
{
    if (fflush(a->f) || ferror(a->f))
        return fail(a, "write failed", errno ? errno : EIO);
    if (fsync(fileno(a->f)))
        return fail(a, "fsync failed", errno);
    FILE *f = a->f;
    a->f = NULL;
    if (fclose(f))
        return fail(a, "write failed", errno);
    if (rename(a->tmp, a->path))
        return fail(a, "rename of its temporary file failed", errno);
    if (sync_dir(a->path)) {
        gdr_fail(a->code, "%s: fsync of its directory failed: %s", a->path, strerror(errno));
        release(a);
        return -1;
    }
    release(a);
    return 0;
}

void gdr_atomic_abort(struct gdr_atomic_file *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    release(a);
}

int gdr_atomic_write(const char *path, const void *buf, size_t len, enum gdr_exit code)
{
    struct gdr_atomic_file a;
    if (gdr_atomic_open(&a, path, code))
        return -1;
    if (len && fwrite(buf, 1, len, a.f) != len)
        return fail(&a, "write failed", errno ? errno : EIO);
    return gdr_atomic_commit(&a);
}
