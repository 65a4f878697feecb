"""Package layout and the build step that pyproject.toml cannot express.

1. Ship the top-level ``data/`` as package data: the published tables stay in the
   repository's ``data/met`` (where users and gnubg find them); the wheel and the sdist carry
   them inside the package as ``mathbg/_data/met/*.xml`` by mapping the directory ``data/``
   onto the package ``mathbg._data``. mathbg reads them with ``importlib.resources``
   (``mathbg/_paths.py``).
2. Compile the hot numba kernels ahead of time into the extension ``mathbg._native_kernels``
   (:mod:`mathbg._native` says which and why) with numba's ``pycc``, for this processor
   (``MATHBG_NATIVE_CPU=generic``: for any x86-64, for a wheel that travels). The extension
   is optional: without a C compiler (or with ``MATHBG_NATIVE=0`` at build time) the build
   says so and goes on, and mathbg compiles the kernels with numba on first use.
   ``MATHBG_BUILD_CACHE=DIR`` (opt-in; CI sets it for its run) keeps a copy of each
   extension built, under a key of everything it is built from (the kernels' sources, the
   processor tag, Python, numba and numpy, this file): a later build with the same key
   copies it instead of compiling again (about a minute).

Everything else is in ``pyproject.toml``.
"""

import hashlib
import importlib
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


class BuildNative(build_ext):
    """``build_ext`` that makes ``mathbg._native_kernels`` with numba's ``pycc``."""

    def build_extension(self, ext: Extension) -> None:
        if ext.name != "mathbg._native_kernels":
            super().build_extension(ext)
            return
        try:
            self._compile_kernels(ext)
        except Exception as exc:  # optional: any failure leaves mathbg on numba's JIT
            from setuptools.errors import CompileError

            raise CompileError(f"the ahead-of-time kernels were not built: {exc}") from exc

    def _compile_kernels(self, ext: Extension) -> None:
        if os.environ.get("MATHBG_NATIVE", "1").strip() == "0":
            raise RuntimeError("MATHBG_NATIVE=0")
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        sys.path.insert(0, str(HERE))
        # numba's cache of this build goes to a throwaway directory
        os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="mathbg-build-"))
        try:
            from numba.pycc import CC

            native = importlib.import_module("mathbg._native")
            cc = CC("_native_kernels")
            cc.output_dir = str(target.parent)
            cc.output_file = target.name
            cc.verbose = False
            for name, sig in native.signatures().items():
                module, function = native.EXPORTS[name]
                kernel = getattr(importlib.import_module(module), function)
                cc.export(name, sig)(kernel.py_func)
            # this processor's instructions when it can be told apart (mathbg._native.processor)
            tag = native.processor()
            if os.environ.get("MATHBG_NATIVE_CPU", "host").strip() == "generic" or not tag:
                tag = 0
            else:
                cc.target_cpu = "host"
            stored = _cached_build(native.digest(), tag, target)
            if stored is not None and stored.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(stored, target)
                print(f"mathbg's kernels: {target.name} copied from the build cache "
                      f"(MATHBG_BUILD_CACHE), built earlier from the same sources", flush=True)
                return
            stamp: dict[str, object] = {}
            exec(f"def digest():\n    return {native.digest()}\n"
                 f"def processor():\n    return {tag}\n", stamp)
            cc.export("digest", "int64()")(stamp["digest"])
            cc.export("processor", "int64()")(stamp["processor"])
            target.parent.mkdir(parents=True, exist_ok=True)
            print(f"compiling mathbg's kernels ahead of time into {target.name}", flush=True)
            cc.compile()
            if stored is not None:  # the whole file or nothing under the key
                stored.parent.mkdir(parents=True, exist_ok=True)
                part = stored.with_name(f"{stored.name}.{os.getpid()}.part")
                shutil.copy2(target, part)
                os.replace(part, stored)
        finally:
            sys.path.remove(str(HERE))


def _cached_build(digest: int, tag: int, target: Path) -> Path | None:
    """Where ``MATHBG_BUILD_CACHE`` keeps the extension built from these inputs (None: no
    cache). The key covers what the compiled file depends on: the kernels' sources (their
    digest), the processor tag, the interpreter, numba and numpy of the build, this file
    and the extension's file name (its ABI tag)."""
    cache = os.environ.get("MATHBG_BUILD_CACHE", "").strip()
    if not cache:
        return None
    import numba
    import numpy

    h = hashlib.sha256()
    for part in (str(digest), str(tag), sys.version, numba.__version__, numpy.__version__,
                 platform.machine(), target.name):  # fmt: skip
        h.update(part.encode() + b"\0")
    h.update(Path(__file__).read_bytes())
    return Path(cache) / f"{h.hexdigest()[:40]}-{target.name}"


setup(
    packages=[
        *find_packages(include=["mathbg", "mathbg.*"]),
        "mathbg._data",
        "mathbg._data.met",
        "mathbg._data.matches",
        "mathbg._data.gnubg",
    ],
    package_dir={"mathbg._data": "data"},
    package_data={
        "mathbg": ["py.typed"],
        "mathbg._data": ["README.md"],
        "mathbg._data.met": ["*.xml", "README.md"],
        "mathbg._data.matches": ["*.txt", "README.md", "LICENSE.md"],
        "mathbg._data.gnubg": ["gnubg.wd", "race-backgammon.txt", "README.md"],
    },
    include_package_data=False,
    ext_modules=[Extension("mathbg._native_kernels", sources=[], optional=True)],
    cmdclass={"build_ext": BuildNative},
)
