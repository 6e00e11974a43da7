#include "config.h"

#include "cuda_api.h"
#include "error.h"

#include <dlfcn.h>
#include <stdio.h>

#define STR_(x) #x
#define STR(x) STR_(x) /* expands cuda.h's renames first */

static struct gdr_cuda_api api;
static const struct gdr_cuda_api *loaded;

int gdr_cuda_check(CUresult rc, const char *what)
{
    if (rc == CUDA_SUCCESS)
        return 0;
    const char *msg = NULL;
    if (!loaded || loaded->cuGetErrorString(rc, &msg) != CUDA_SUCCESS || !msg)
        msg = "unknown error";
    enum gdr_exit code = rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_INVALID_DEVICE ||
                                 rc == CUDA_ERROR_NOT_INITIALIZED
                             ? GDR_EXIT_ENV
                             : GDR_EXIT_RUN;
    return gdr_fail(code, "%s: %s (CUDA error %d)", what, msg, (int)rc);
}

const char *gdr_cuda_version_text(const struct gdr_cuda_api *cu)
{
    static char text[32];
    snprintf(text, sizeof(text), "CUDA %d.%d", cu->driver_version / 1000,
             cu->driver_version % 1000 / 10);
    return text;
}

const struct gdr_cuda_api *gdr_cuda_load(void)
{
    if (loaded)
        return loaded;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        gdr_fail(GDR_EXIT_ENV, "--mem=cuda: no CUDA driver (cannot load libcuda.so.1: %s)",
                 dlerror());
        return NULL;
    }
#define GDR_CUDA_RESOLVE(f)                                                                        \
    if (!(api.f = (__typeof__(api.f))dlsym(h, STR(f)))) {                                          \
        gdr_fail(GDR_EXIT_ENV, "CUDA driver too old: libcuda.so.1 lacks %s", STR(f));              \
        return NULL;                                                                               \
    }
    GDR_CUDA_FUNCTIONS(GDR_CUDA_RESOLVE)
#undef GDR_CUDA_RESOLVE
#define GDR_CUDA_OPTIONAL_RESOLVE(f) api.f = (__typeof__(api.f))dlsym(h, STR(f));
    GDR_CUDA_OPTIONAL(GDR_CUDA_OPTIONAL_RESOLVE)
#undef GDR_CUDA_OPTIONAL_RESOLVE
    loaded = &api;
    if (gdr_cuda_check(api.cuInit(0), "cuInit") ||
        gdr_cuda_check(api.cuDriverGetVersion(&api.driver_version), "cuDriverGetVersion")) {
        loaded = NULL;
        return NULL;
    }
    return loaded;
}
