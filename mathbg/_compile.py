"""One line on stderr while numba compiles mathbg's kernels (first use only).

numba compiles a kernel the first time it is called with new argument types and keeps the
machine code in its cache (``NUMBA_CACHE_DIR``, else beside the source or in the user cache);
later processes load it in milliseconds. The first compile of a command's kernels can take
seconds, which would otherwise pass in silence or inflate a progress bar's ETA. This module
watches numba's ``numba:compile`` events (they fire only on a cache miss) and, once the
compile time of a block reaches ``after`` seconds, prints one line such as::

    compiling the bearoff kernels (first use only) ...

Builders that show a progress bar compile their kernels first, inside :func:`compile_notice`,
and start the bar afterwards, so its ETA measures the work and not the compiler.

The cache itself goes to the user cache directory (:func:`numba_cache_root`), not beside the
source: ``import mathbg`` calls :func:`use_user_cache_for_kernels`, which adds a numba cache
locator for mathbg's functions once numba is imported. ``NUMBA_CACHE_DIR`` still wins.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = [
    "after_numba_import",
    "announce_compiles",
    "compile_notice",
    "label_of",
    "numba_cache_root",
    "use_user_cache_for_kernels",
]

#: What a kernel's module is called in the notice (longest matching prefix wins).
_LABELS = {
    "mathbg.analysis.net": "the native engine (gnubg's networks; about half a minute)",
    "mathbg.bearoff": "the bearoff kernels",
    "mathbg.race": "the race kernels",
    "mathbg.met": "the match equity kernels",
    "mathbg.rules.variants": "the variant move generator",
    "mathbg.rules": "the move generator",
    "mathbg.cube": "the cube kernels",
}

#: Labels already announced in this process (one line per label and process).
_ANNOUNCED: set[str] = set()
_LOCK = threading.Lock()


def label_of(module: str) -> str:
    """The notice's name for the kernels of ``module`` (``"numba kernels"`` if unknown)."""
    best = ""
    for prefix in _LABELS:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    return _LABELS.get(best, "numba kernels")


class _Watch:
    """numba compile listener: announce once the compile time of the block reaches ``after``."""

    def __init__(self, label: str | None, stream: TextIO | None, after: float) -> None:
        self.label = label
        self.stream = stream
        self.after = after
        self.depth = 0
        self.spent = 0.0
        self.started = 0.0
        self.timer: threading.Timer | None = None

    def _announce(self, label: str) -> None:
        with _LOCK:
            if label in _ANNOUNCED:
                return
            _ANNOUNCED.add(label)
            stream = self.stream if self.stream is not None else sys.stderr
            stream.write(f"compiling {label} (first use only) ...\n")
            stream.flush()

    def on_start(self, event: Any) -> None:
        self.depth += 1
        if self.depth != 1:
            return
        self.started = time.perf_counter()
        label = self.label
        if label is None:
            label = label_of(getattr(event.data["dispatcher"].py_func, "__module__", ""))
        if label in _ANNOUNCED:
            return
        self.timer = threading.Timer(max(0.0, self.after - self.spent), self._announce, (label,))
        self.timer.daemon = True
        self.timer.start()

    def on_end(self, event: Any) -> None:
        self.depth -= 1
        if self.depth != 0:
            return
        self.spent += time.perf_counter() - self.started
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@contextmanager
def compile_notice(
    label: str | None = None, *, stream: TextIO | None = None, after: float = 1.0
) -> Iterator[None]:
    """Print one line on ``stream`` (stderr) if numba compiles for ``after`` seconds in the block.

    Parameters
    ----------
    label : str, optional
        What is compiled ("the bearoff kernels"); by default named from the module of the
        first kernel compiled (see :func:`label_of`).
    stream : file, optional
        Where to write (default ``sys.stderr`` at the time of writing).
    after : float
        Seconds of compiling (summed over the block) before the line is printed.

    The line is printed at most once per label and process. Importing numba is the caller's
    business: this helper imports it only inside the block.
    """
    from numba.core import event

    watch = _Watch(label, stream, after)
    listener = _listener(watch)
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]
        if watch.timer is not None:
            watch.timer.cancel()


def _listener(watch: _Watch) -> Any:
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            watch.on_start(ev)

        def on_end(self, ev: Any) -> None:
            watch.on_end(ev)

    return _Listener()


_GLOBAL: list[Any] = []


def _register_global(after: float) -> None:
    if _GLOBAL:
        return
    from numba.core import event

    listener = _listener(_Watch(None, None, after))
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    _GLOBAL.append(listener)


_AFTER_NUMBA: list[Any] = []


class _AfterImport:
    """Meta-path finder: run the registered hooks right after ``numba`` is imported."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "numba":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader

        class _Loader:
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                loader.exec_module(module)
                while _AFTER_NUMBA:
                    _AFTER_NUMBA.pop(0)()

        spec.loader = _Loader()  # type: ignore[assignment]
        return spec


def after_numba_import(hook: Any) -> None:
    """Call ``hook()`` once numba is imported: now if it already is, else right after its
    import (whoever imports it), without importing numba here."""
    if "numba" in sys.modules:
        hook()
        return
    _AFTER_NUMBA.append(hook)
    if not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


def announce_compiles(after: float = 1.0) -> None:
    """For the whole process: print the one-line notice whenever numba compiles mathbg's
    kernels for ``after`` seconds (once per kind of kernel), without importing numba.

    Used by the command line. If numba is already imported the listener is registered at
    once; otherwise right after numba's import, so commands that never use numba never
    import it.
    """
    if not _GLOBAL:
        after_numba_import(lambda: _register_global(after))


# ----------------------------------------------------------------------------- the cache


def numba_cache_root() -> str:
    """Where numba keeps the compiled kernels of mathbg unless ``NUMBA_CACHE_DIR`` is set:
    ``numba`` in the user cache directory (``$XDG_CACHE_HOME/mathbg/numba`` on Linux)."""
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir("mathbg", appauthor=False), "numba")


def _install_cache_locator() -> None:
    """Put mathbg's kernels' numba cache in the user cache directory, not beside the source.

    numba's default keeps the cache in ``__pycache__`` next to the source file (a source
    checkout or site-packages); mathbg writes nothing into its source tree or installation.
    ``NUMBA_CACHE_DIR``, when set, still wins (numba's own locator); functions of other
    packages are untouched. Does nothing on numba versions without these hooks.
    """
    try:
        from numba.core import caching, config
    except ImportError:  # pragma: no cover
        return
    base: Any = getattr(caching, "UserProvidedCacheLocator", None) or getattr(
        caching, "_UserProvidedCacheLocator", None
    )
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if base is None or impl is None or not isinstance(impl._locator_classes, list):
        return
    if any(getattr(c, "_mathbg", False) for c in impl._locator_classes):
        return

    class MathbgCacheLocator(base):  # type: ignore[misc]
        _mathbg = True

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            sub = self.get_suitable_cache_subpath(py_file)
            self._cache_path = os.path.join(numba_cache_root(), sub)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            module = getattr(py_func, "__module__", "") or ""
            if getattr(config, "CACHE_DIR", "") or not (
                module == "mathbg" or module.startswith("mathbg.")
            ):
                return None
            return super(base, cls).from_function(py_func, py_file)

    impl._locator_classes.insert(0, MathbgCacheLocator)


def use_user_cache_for_kernels() -> None:
    """Install :func:`_install_cache_locator` for this process (cheap; numba not imported)."""
    after_numba_import(_install_cache_locator)
