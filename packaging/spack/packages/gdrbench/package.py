# Spack recipe for gdrbench. `spack repo add packaging/spack` makes it
# visible; what was tested of it and what not: packaging/README.md.
import os

from spack.package import *


class Gdrbench(AutotoolsPackage):
    """GPUDirect RDMA benchmarks (perftest-style bandwidth and latency between
    host or GPU buffers on two nodes, GDR on and off), gdr_doctor (a node's
    readiness for GPUDirect RDMA), and the tools that sweep, plot, compare
    and report the results."""

    homepage = "https://gdrbench.invalid"
    url = "https://gdrbench.invalid/releases/gdrbench-0.1.0.tar.gz"

    # No release is published yet: build an unpacked tarball with
    # `spack dev-build gdrbench@0.1.0` (no download, no checksum).
    version("0.1.0")

    variant("cuda", default=False, description="GPU buffers (--mem=cuda): CUDA headers at build time; "
            "libcuda.so.1 of the driver is loaded at run time")
    variant("pdf", default=False, description="gdr-report --pdf: a headless Chromium, found at install "
            "time and recorded in the module (GDR_CHROMIUM)")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("rdma-core")
    depends_on("cjson")
    depends_on("sqlite")
    depends_on("cuda", type="build", when="+cuda")
    depends_on("gnuplot", type="run")

    # The tarball carries configure: no autoreconf.
    force_autoreconf = False

    def configure_args(self):
        args = ["--with-bash-completion-dir=" + join_path(self.prefix.share, "bash-completion", "completions")]
        if self.spec.satisfies("+cuda"):
            args.append("--with-cuda=" + self.spec["cuda"].prefix)
        else:
            args.append("--without-cuda")
        return args

    def chromium(self):
        """The browser gdr-report --pdf drives: GDR_CHROMIUM, else one on PATH."""
        env = os.environ.get("GDR_CHROMIUM")
        if env:
            return env
        for name in ("chromium", "chromium-browser", "google-chrome"):
            path = which(name)
            if path:
                return path.path
        return None

    @run_after("install")
    def check_chromium(self):
        if self.spec.satisfies("+pdf") and not self.chromium():
            raise InstallError("gdrbench+pdf: no chromium, chromium-browser or google-chrome on PATH "
                               "(Spack has no Chromium package; install one, or set GDR_CHROMIUM)")

    def setup_run_environment(self, env):
        if self.spec.satisfies("+pdf"):
            browser = self.chromium()
            if browser:
                env.set("GDR_CHROMIUM", browser)

    @run_after("install")
    def check_versions(self):
        """Every installed program answers --version with this version."""
        for prog in sorted(os.listdir(self.prefix.bin)):
            out = Executable(join_path(self.prefix.bin, prog))("--version", output=str)
            if not out.startswith(prog + " (gdrbench) "):
                raise InstallError("%s --version says %r" % (prog, out))
