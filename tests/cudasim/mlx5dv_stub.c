/* mlx5dv_stub.c - a stand-in for rdma-core 54's mlx5 Data Direct calls,
 * preloaded (LD_PRELOAD) into a program under test: the lab has no mlx5
 * and Debian 12's libmlx5 (rdma-core 44) lacks the calls, so without it
 * nothing of gdrbench's Data Direct path would ever run. gdrbench looks
 * the calls up at run time (dlsym), so the preloaded ones are found first.
 *
 * GDR_MLX5DV_STUB_DD (read at each call):
 *   none    mlx5dv_get_data_direct_sysfs_path answers ENODEV: an mlx5
 *           device without a Data Direct engine;
 *   fail    the engine is there, and every Data Direct registration fails
 *           with EOPNOTSUPP: a kernel that does not take it (inbox drivers,
 *           an engine the kernel did not bind);
 *   strict  (default) as the mlx5 kernel's reg_user_mr_dmabuf_by_data_direct:
 *           an iova that is not aligned to GDR_MLX5DV_STUB_PAGE (default
 *           65536, Grace's kernel page) is refused with EOPNOTSUPP, and the
 *           region is registered by whatever ibv_reg_dmabuf_mr the process
 *           has, without IBV_ACCESS_RELAXED_ORDERING unless
 *           GDR_MLX5DV_STUB_RO=1 (the kernel drops it, silently, where the
 *           engine has no relaxed-ordering key).
 * Every call says what it did on stderr ("mlx5dv_stub: ..."), or appended
 * to GDR_MLX5DV_STUB_LOG.
 *
 * What it cannot show: anything of the engine's own path into GPU memory;
 * mlx5dv_reg_dmabuf_mr's other access flags (anything but Data Direct is
 * refused with EINVAL here). Never installed. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define STUB_DATA_DIRECT (1 << 0) /* MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT */

static void say(const char *fmt, ...)
{
    const char *path = getenv("GDR_MLX5DV_STUB_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    va_list ap;
    va_start(ap, fmt);
    fputs("mlx5dv_stub: ", f ? f : stderr);
    vfprintf(f ? f : stderr, fmt, ap);
    fputc('\n', f ? f : stderr);
    va_end(ap);
    if (f)
        fclose(f);
}

static const char *mode(void)
{
    const char *m = getenv("GDR_MLX5DV_STUB_DD");
    return m && *m ? m : "strict";
}

int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *ctx, char *buf, size_t len);
struct ibv_mr *mlx5dv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
                                    uint64_t iova, int fd, int access, int mlx5_access);

int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *ctx, char *buf, size_t len)
{
    (void)ctx;
    if (!strcmp(mode(), "none")) {
        say("mlx5dv_get_data_direct_sysfs_path -> ENODEV (no engine)");
        return ENODEV;
    }
    const char *path = "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.1";
    if (snprintf(buf, len, "%s", path) >= (int)len)
        return ENOSPC;
    say("mlx5dv_get_data_direct_sysfs_path -> %s", path);
    return 0;
}

struct ibv_mr *mlx5dv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
                                    uint64_t iova, int fd, int access, int mlx5_access)
{
    const char *m = mode();
    uint64_t page = 65536;
    const char *p = getenv("GDR_MLX5DV_STUB_PAGE");
    if (p && *p)
        page = strtoull(p, NULL, 0);
    const char *ro = getenv("GDR_MLX5DV_STUB_RO");
    bool keep_ro = ro && !strcmp(ro, "1");
    char what[160];
    snprintf(what, sizeof(what),
             "mlx5dv_reg_dmabuf_mr offset %#" PRIx64 " length %#zx iova %#" PRIx64 " access %#x",
             offset, length, iova, (unsigned)access);
    if (mlx5_access != STUB_DATA_DIRECT) {
        say("%s mlx5_access %#x -> EINVAL (only Data Direct here)", what, (unsigned)mlx5_access);
        errno = EINVAL;
        return NULL;
    }
    if (strcmp(m, "strict")) {
        say("%s -> EOPNOTSUPP (GDR_MLX5DV_STUB_DD=%s)", what, m);
        errno = EOPNOTSUPP;
        return NULL;
    }
    if (!page || iova % page) {
        say("%s -> EOPNOTSUPP (iova not aligned to the %#" PRIx64 "-byte page)", what, page);
        errno = EOPNOTSUPP;
        return NULL;
    }
    struct ibv_mr *(*plain)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);
    *(void **)&plain = dlsym(RTLD_DEFAULT, "ibv_reg_dmabuf_mr");
    if (!plain) {
        say("%s -> EOPNOTSUPP (no ibv_reg_dmabuf_mr in the process)", what);
        errno = EOPNOTSUPP;
        return NULL;
    }
    int asked = access;
    if (!keep_ro)
        access &= ~IBV_ACCESS_RELAXED_ORDERING;
    struct ibv_mr *mr = plain(pd, offset, length, iova, fd, access);
    int err = errno;
    say("%s -> %s%s", what, mr ? "registered" : strerror(err),
        mr && asked != access ? " (relaxed ordering dropped)" : "");
    errno = err;
    return mr;
}
