/*
 * gdr_doctor: checks the hard conditions for GPUDirect RDMA on this machine
 * (or on a captured sysfs/procfs tree) and says what to fix.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "error.h"
#include "live.h"

static void usage(FILE *f)
{
    fprintf(f, "Usage: gdr_doctor [OPTIONS]\n"
               "Check PCIe placement, GPU memory registration, BAR1, IOMMU/ACS, RDMA ports\n"
               "and driver versions for GPUDirect RDMA, for every RDMA device x GPU pair.\n"
               "\n"
               "  --json              one JSON document on stdout instead of text\n"
               "  --sysfs-root=DIR    read sysfs from DIR instead of /sys\n"
               "  --procfs-root=DIR   read procfs from DIR instead of /proc\n"
               "  --ibdev=NAME        only this RDMA device\n"
               "  --gpu=BDF           only this GPU (PCI address dddd:bb:dd.f)\n"
               "  --run=PEER          live four-step troubleshooting against PEER: runs\n"
               "                      gdr-troubleshoot --server PEER (with --ibdev as --dev,\n"
               "                      --gpu); GDR_TROUBLESHOOT names the script\n"
               "  -h, --help          this text\n"
               "  -V, --version       print the version\n"
               "\n"
               "Environment: NCCL_NET_GDR_LEVEL (LOC, PIX, PXB, P2C, PHB, SYS or 0..4; default\n"
               "PXB) decides whether NCCL would use GDR for a pair; NCCL_IB_GDR_LEVEL is read\n"
               "if it is unset. With neither set, NCCL_NET_GDR_C2C (0 or 1, default 1 as in\n"
               "NCCL 2.27+) lets GDR use a Grace GPU's C2C link to a NIC on the CPU (P2C).\n"
               "\n"
               "Exit status: 0 no check failed (WARN/UNKNOWN allowed), 1 a check failed,\n"
               "2 usage error or invalid NCCL_NET_GDR_LEVEL, 3 no RDMA device or no GPU\n"
               "(--run: gdr-troubleshoot's exit status; 3 when it cannot be found).\n");
}

struct options {
    const char *sysfs, *procfs, *ibdev, *gpu, *run_peer;
    bool json;
};

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"sysfs-root", required_argument, NULL, 's'},
        {"procfs-root", required_argument, NULL, 'p'},
        {"ibdev", required_argument, NULL, 'd'},
        {"gpu", required_argument, NULL, 'g'},
        {"run", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;

    memset(o, 0, sizeof(*o));
    opterr = 0; /* one message, gdr_usage_error's */
    while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': o->json = true; break;
        case 's': o->sysfs = optarg; break;
        case 'p': o->procfs = optarg; break;
        case 'd': o->ibdev = optarg; break;
        case 'g': o->gpu = optarg; break;
        case 'r': o->run_peer = optarg; break;
        case 'h': usage(stdout); exit(GDR_DOCTOR_EXIT_OK);
        case 'V': gdr_print_version("gdr_doctor"); exit(GDR_DOCTOR_EXIT_OK);
        default:
            gdr_usage_error("gdr_doctor", "unknown option or missing value: '%s'",
                            argv[optind - 1]);
            return -EINVAL;
        }
    }
    if (optind < argc) {
        gdr_usage_error("gdr_doctor", "unexpected argument '%s'", argv[optind]);
        return -EINVAL;
    }
    return 0;
}

static int nccl_level(struct gdr_doctor_ctx *ctx)
{
    static const char *vars[] = {"NCCL_NET_GDR_LEVEL", "NCCL_IB_GDR_LEVEL"};
    const char *c2c = getenv("NCCL_NET_GDR_C2C");

    ctx->gdr_c2c = true;
    if (c2c && strcmp(c2c, "0") && strcmp(c2c, "1")) {
        fprintf(stderr, "gdr_doctor: invalid NCCL_NET_GDR_C2C='%s': expected 0 or 1\n", c2c);
        return -EINVAL;
    }
    if (c2c)
        ctx->gdr_c2c = !strcmp(c2c, "1");
    ctx->level = GDR_NCCL_GDR_LEVEL_DEFAULT;
    ctx->level_source = "default";
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (!v)
            continue;
        if (gdr_nccl_gdr_level_parse(v, &ctx->level) != 0) {
            fprintf(
                stderr,
                "gdr_doctor: invalid %s='%s': expected LOC, PIX, PXB, P2C, PHB, SYS or an integer 0..4\n",
                vars[i], v);
            return -EINVAL;
        }
        ctx->level_source = vars[i];
        break;
    }
    return 0;
}

/* Keep only `want` in a name list; false if it is not there. */
static bool filter(char (*list)[64], size_t *n, const char *want)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i], want) == 0) {
            memmove(list[0], list[i], 64);
            *n = 1;
            return true;
        }
    *n = 0;
    return false;
}

static int inventory(struct gdr_doctor_ctx *ctx, const struct options *o)
{
    int rc = gdr_topo_list_ibdevs(ctx->sysfs, ctx->ibdevs, GDR_DOCTOR_MAX_DEVS, &ctx->n_ibdevs);
    if (rc == 0)
        rc = gdr_topo_list_gpus(ctx->sysfs, ctx->gpus, GDR_DOCTOR_MAX_DEVS, &ctx->n_gpus);
    if (rc)
        return rc;
    if (o->ibdev)
        filter(ctx->ibdevs, &ctx->n_ibdevs, o->ibdev);
    if (o->gpu) {
        size_t k = 0;
        for (size_t i = 0; i < ctx->n_gpus; i++)
            if (strcmp(ctx->gpus[i], o->gpu) == 0)
                memmove(ctx->gpus[k++], ctx->gpus[i], GDR_BDF_LEN);
        ctx->n_gpus = k;
    }
    return 0;
}

/* Each hardware device on its own: does it take dma-buf registrations?
 * Live, its provider is asked; in a captured tree only a kernel driver
 * known to have none (mlx4) says no. One device without dma-buf says
 * nothing of the others: check_reg judges the ones paired with GPUs. */
static void device_dmabuf(struct gdr_doctor_ctx *ctx)
{
    bool verbs = ctx->live && gdr_doctor_verbs_has_dmabuf();
    for (size_t i = 0; i < ctx->n_ibdevs; i++) {
        struct gdr_ibdev_info info;
        ctx->dev_dmabuf[i] = -1;
        if (gdr_topo_ibdev_info(ctx->sysfs, ctx->ibdevs[i], &info, NULL, 0) || info.software)
            continue;
        if (ctx->live) {
            int r = verbs ? gdr_doctor_verbs_dmabuf_probe(ctx->ibdevs[i]) : 0;
            ctx->dev_dmabuf[i] = r < 0 ? -1 : r;
        } else if (!strcmp(info.driver, "mlx4_core")) {
            ctx->dev_dmabuf[i] = 0; /* the kernel's mlx4 has no dma-buf MRs */
        }
    }
}

static int run_checks(struct gdr_doctor_ctx *ctx)
{
    int rc = 0;
    if (ctx->n_ibdevs)
        rc = gdr_doctor_check_ports(ctx);
    if (!rc && ctx->n_gpus)
        rc = gdr_doctor_check_pcie(ctx);
    if (!rc && ctx->n_gpus)
        rc = gdr_doctor_check_registration(ctx);
    if (!rc && ctx->n_gpus && ctx->n_ibdevs)
        rc = gdr_doctor_check_relaxed(ctx);
    if (!rc && ctx->n_gpus)
        rc = gdr_doctor_check_bar1(ctx);
    if (!rc)
        rc = gdr_doctor_check_iommu(ctx);
    if (!rc && ctx->n_gpus)
        rc = gdr_doctor_check_acs(ctx);
    if (!rc)
        rc = gdr_doctor_check_links(ctx);
    if (!rc)
        rc = gdr_doctor_check_versions(ctx);
    return rc;
}

/*
 * --run PEER: exec gdr-troubleshoot --server PEER. Looked up as
 * $GDR_TROUBLESHOOT, next to this binary (installed: both in bindir), the
 * source tree's scripts/ (build tree; then with --builddir), bindir.
 */
static int run_troubleshoot(const struct options *o)
{
    char self[PATH_MAX], next[PATH_MAX + 32];
    const char *env = getenv("GDR_TROUBLESHOOT");
    const char *cand[4] = {NULL, NULL, NULL, NULL};
    const char *builddir[4] = {NULL, NULL, GDR_ABS_TOP_BUILDDIR, NULL};
    ssize_t n;

    if (env && *env) {
        cand[0] = env;
    } else {
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n > 0) {
            self[n] = '\0';
            char *slash = strrchr(self, '/');
            if (slash) {
                *slash = '\0';
                snprintf(next, sizeof(next), "%s/gdr-troubleshoot", self);
                cand[1] = next;
            }
        }
        cand[2] = GDR_TROUBLESHOOT_SRC;
        cand[3] = GDR_BINDIR "/gdr-troubleshoot";
    }
    for (size_t i = 0; i < 4; i++) {
        const char *args[12];
        size_t k = 0;
        char dev[256], gpu[64], bd[PATH_MAX + 16];

        if (!cand[i] || access(cand[i], X_OK) != 0)
            continue;
        args[k++] = cand[i];
        args[k++] = "--server";
        args[k++] = o->run_peer;
        if (o->ibdev) {
            snprintf(dev, sizeof(dev), "--dev=%s", o->ibdev);
            args[k++] = dev;
        }
        if (o->gpu) {
            snprintf(gpu, sizeof(gpu), "--gpu=%s", o->gpu);
            args[k++] = gpu;
        }
        if (builddir[i]) {
            snprintf(bd, sizeof(bd), "--builddir=%s", builddir[i]);
            args[k++] = bd;
        }
        args[k] = NULL;
        fflush(NULL);
        execv(cand[i], (char *const *)args);
        fprintf(stderr, "gdr_doctor: --run: cannot run %s: %s\n", cand[i], strerror(errno));
        return GDR_DOCTOR_EXIT_NOENV;
    }
    if (env && *env)
        fprintf(stderr, "gdr_doctor: --run: GDR_TROUBLESHOOT=%s is not an executable file\n", env);
    else
        fprintf(stderr,
                "gdr_doctor: --run: gdr-troubleshoot not found (next to this binary, in %s, "
                "or in %s); run scripts/gdr-troubleshoot --server PEER yourself or set "
                "GDR_TROUBLESHOOT\n",
                GDR_TROUBLESHOOT_SRC, GDR_BINDIR);
    return GDR_DOCTOR_EXIT_NOENV;
}

int main(int argc, char **argv)
{
    struct gdr_doctor_ctx ctx;
    struct options o;
    char missing[512] = "";
    int rc, code = GDR_DOCTOR_EXIT_OK;

    if (parse_options(argc, argv, &o) != 0)
        return GDR_DOCTOR_EXIT_USAGE;
    if (o.run_peer) {
        if (o.sysfs || o.procfs || o.json) {
            fprintf(stderr,
                    "gdr_doctor: --run is a live run: no --json, --sysfs-root or --procfs-root\n");
            return GDR_DOCTOR_EXIT_USAGE;
        }
        return run_troubleshoot(&o);
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.sysfs = o.sysfs ? o.sysfs : "/sys";
    ctx.procfs = o.procfs ? o.procfs : "/proc";
    ctx.live = !o.sysfs && !o.procfs;
    ctx.json = o.json;
    if (nccl_level(&ctx) != 0)
        return GDR_DOCTOR_EXIT_USAGE;

    rc = inventory(&ctx, &o);
    if (rc) {
        fprintf(stderr, "gdr_doctor: cannot read %s: %s\n", ctx.sysfs, strerror(-rc));
        return GDR_DOCTOR_EXIT_NOENV;
    }
    gdr_topo_reg_caps(ctx.sysfs, ctx.procfs, &ctx.caps);
    device_dmabuf(&ctx);
    ctx.verbs_dmabuf = -1; /* check_reg: over the GPU-paired devices */
    for (size_t i = 0; i < GDR_DOCTOR_MAX_DEVS; i++)
        ctx.gpu_nic[i] = ctx.gpu_c2c[i] = -1;

    ctx.facts = cJSON_CreateObject();
    if (!ctx.facts) {
        fprintf(stderr, "gdr_doctor: out of memory\n");
        return GDR_DOCTOR_EXIT_FAIL;
    }
    cJSON_AddStringToObject(ctx.facts, "tool", "gdr_doctor");
    cJSON_AddStringToObject(ctx.facts, "version", PACKAGE_VERSION);
    cJSON_AddStringToObject(ctx.facts, "sysfs_root", ctx.sysfs);
    cJSON_AddStringToObject(ctx.facts, "procfs_root", ctx.procfs);
    cJSON_AddBoolToObject(ctx.facts, "live", ctx.live);
    cJSON *jl = cJSON_AddObjectToObject(ctx.facts, "nccl_net_gdr_level");
    if (jl) {
        cJSON_AddStringToObject(jl, "level", gdr_path_class_name(ctx.level));
        cJSON_AddStringToObject(jl, "source", ctx.level_source);
    }

    rc = run_checks(&ctx);
    /* Same document shape whatever was skipped. */
    static const char *arrays[] = {"rdma_devices", "gpus", "pairs"};
    for (size_t i = 0; i < 3; i++)
        if (!cJSON_GetObjectItem(ctx.facts, arrays[i]))
            cJSON_AddArrayToObject(ctx.facts, arrays[i]);
    if (!cJSON_GetObjectItem(ctx.facts, "registration"))
        cJSON_AddNullToObject(ctx.facts, "registration");
    if (rc) {
        fprintf(stderr, "gdr_doctor: checks aborted: %s\n", strerror(-rc));
        code = GDR_DOCTOR_EXIT_FAIL;
    }
    for (size_t i = 0; i < ctx.n_checks; i++)
        if (ctx.checks[i].status == GDR_DOCTOR_FAIL)
            code = GDR_DOCTOR_EXIT_FAIL;
    if (!ctx.n_ibdevs)
        snprintf(missing, sizeof(missing), "no RDMA device%s%s (nothing under %s/class/infiniband)",
                 o.ibdev ? " named " : "", o.ibdev ? o.ibdev : "", ctx.sysfs);
    if (!ctx.n_gpus)
        snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
                 "%sno GPU%s%s (no NVIDIA PCI function under %s/bus/pci/devices)",
                 missing[0] ? "; " : "", o.gpu ? " " : "", o.gpu ? o.gpu : "", ctx.sysfs);
    if (missing[0])
        code = GDR_DOCTOR_EXIT_NOENV;

    if (ctx.json)
        rc = gdr_doctor_print_json(&ctx, missing[0] ? missing : NULL, code);
    else
        gdr_doctor_print_text(&ctx, missing[0] ? missing : NULL);
    if (rc)
        code = GDR_DOCTOR_EXIT_FAIL;
    cJSON_Delete(ctx.facts);
    free(ctx.checks);
    return code;
}
