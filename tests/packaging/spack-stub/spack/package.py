"""A stand-in for the part of Spack's package API that
packaging/spack/packages/gdrbench/package.py uses (spack.package), so that
tests/packaging/spack.test can load the recipe without Spack: directives
are recorded, not resolved. It proves the recipe is valid Python using only
these names, and lets the test read its variants, dependencies and
configure_args; it proves nothing about Spack's concretizer, fetcher or
build (packaging/README.md)."""
import os
import shutil

_pending = []  # directives of the class body being executed


def _directive(kind):
    def record(*args, **kwargs):
        _pending.append((kind, args, kwargs))

    return record


version = _directive("version")
variant = _directive("variant")
depends_on = _directive("depends_on")
conflicts = _directive("conflicts")
maintainers = _directive("maintainers")
license = _directive("license")


class InstallError(Exception):
    pass


def join_path(*parts):
    return os.path.join(*[str(p) for p in parts])


class Executable:
    def __init__(self, path):
        self.path = str(path)

    def __call__(self, *args, output=None):
        import subprocess

        return subprocess.run([self.path, *args], check=True, capture_output=True, text=True).stdout


def which(name):
    path = shutil.which(name)
    return Executable(path) if path else None


def run_after(phase):
    def mark(fn):
        fn.run_after = phase
        return fn

    return mark


class Prefix(str):
    """Spack's Prefix: a path whose attributes are subdirectories."""

    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class AutotoolsPackage:
    force_autoreconf = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.directives = list(_pending)
        _pending.clear()

    def __init__(self, spec, prefix):
        self.spec = spec
        self.prefix = Prefix(prefix)
