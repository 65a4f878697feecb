"""mathbg's hot kernels compiled ahead of time (internal).

The native engine's entry point, the move generator, the exact bearoff solver, the
cubeful MWCs of many rows, the audit's board classes, its n-ply search and the Hypergammon
solver are numba kernels. numba compiles a
kernel on a process's first call and keeps the machine code in its cache; even from the
cache, a process pays about 0.4 CPU-s to import numba and load the code, and the very
first run pays the compile itself (about 20 CPU-s for the engine, 10 s for the Hypergammon
solver).

So the build (``setup.py``, whenever a C compiler is at hand: wheels, ``pip install .``,
``pip install -e .``) compiles the kernels listed in :data:`EXPORTS` once more, ahead of
time, with numba's ``pycc``, into the extension module ``mathbg._native_kernels``. A
process that finds it imports it in about a millisecond and never imports numba for these
kernels. It is the same source through the same compiler (LLVM, no fast-math), so the same
bits: ``tests/test_native.py`` compares the two on every mode.

The extension is used only when the digest it was built with (:func:`digest`: the sha256 of
the kernels' sources, :data:`SOURCES`) equals the digest of the sources installed beside it
(a kernel edited in a development checkout falls back to numba until the extension is built
again, ``pip install -e .``), and only on the processor it was compiled for
(:func:`processor`; ``MATHBG_NATIVE_CPU=generic`` at build time compiles for any x86-64
instead, about 15 % slower). ``MATHBG_NATIVE=0`` in the environment turns it off (numba
compiles and runs every kernel, as without a compiler).

Unlike numba's dispatchers, the compiled functions do not check their arguments: a wrong
dtype or a non-contiguous array crashes the process. Their callers coerce every argument to
the types :func:`signatures` names, and the tests check that numba, given the callers'
arguments, compiles exactly those types and no other.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # pragma: no cover
    from numba.core.dispatcher import Dispatcher

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "EXPORTS",
    "SOURCES",
    "compiled",
    "digest",
    "no_refcounts",
    "no_refcounts_ieee",
    "processor",
    "signatures",
    "status",
]


#: Name of the compiled extension module (inside the package).
MODULE = "mathbg._native_kernels"

#: The compiled functions: their names in the extension and the numba kernels they are.
EXPORTS: dict[str, tuple[str, str]] = {
    "net_run": ("mathbg.analysis.net._kernels", "run"),
    "movegen_generate": ("mathbg.rules._movegen_kernels", "generate_kernel"),
    "movegen_successors": ("mathbg.rules._movegen_kernels", "successors_kernel"),
    "movegen_count_plays": ("mathbg.rules._movegen_kernels", "count_plays_kernel"),
    "exact_shells": ("mathbg.bearoff.exact._kernels", "shells_serial"),
    "cube_cubeful_rows": ("mathbg.cube._kernels", "cubeful_rows"),
    "audit_classes_into": ("mathbg.analysis.match_audit._kernels", "classes_into"),
    "audit_play_values_into": ("mathbg.analysis.match_audit._kernels", "play_values_into"),
    "audit_cube_values_into": ("mathbg.analysis.match_audit._kernels", "cube_values_into"),
    "audit_search": ("mathbg.analysis.match_audit._search", "evaluate_into"),
    "hyper_build_candidates": ("mathbg.hyper._kernels", "build_candidates"),
    "hyper_opponent_table": ("mathbg.hyper._kernels", "opponent_table"),
    "hyper_pair_plays": ("mathbg.hyper._kernels", "pair_plays"),
    "hyper_money_sweep": ("mathbg.hyper._kernels", "money_sweep"),
    "hyper_match_sweep": ("mathbg.hyper._kernels", "match_sweep"),
    "hyper_match_no_double": ("mathbg.hyper._kernels", "match_no_double"),
}

#: The files whose code and constants the compiled functions are made of (package-relative).
SOURCES = (
    "analysis/net/_kernels.py",
    "analysis/net/_inputs.py",
    "analysis/net/_workspace.py",
    "rules/_movegen_kernels.py",
    "bearoff/exact/_kernels.py",
    "cube/_kernels.py",
    "analysis/match_audit/_kernels.py",
    "analysis/match_audit/_layout.py",
    "analysis/match_audit/_search.py",
    "bearoff/_play_kernels.py",
    "hyper/_kernels.py",
    "hyper/_layout.py",
    "_native.py",
)

_UNSET = object()
_module: Any = _UNSET


def no_refcounts(function: F) -> Dispatcher[F]:
    """``numba.njit(cache=True)`` without reference counts (numba's ``_nrt=False``), for a
    kernel that allocates nothing and keeps no array past its call.

    numba counts a reference for each slice and each array unpacked from a tuple, an
    atomic update and a call each: in the engine's evaluation they were a third of the
    time. The kernel's callees compile the same way unless their own options say otherwise
    (and a callee that allocates then fails to compile, never silently).
    """
    import numba

    options: dict[str, Any] = {"cache": True, "_nrt": False}
    return cast("Dispatcher[F]", numba.njit(**options)(function))


def no_refcounts_ieee(function: F) -> Dispatcher[F]:
    """:func:`no_refcounts` with numpy's error model: a float division by zero is inf or
    nan (IEEE arithmetic, as numpy's arrays) instead of a ZeroDivisionError. The compiled
    extension keeps it: a kernel listed in :data:`EXPORTS` that calls such a function (not
    inlined into it) runs it under its own model."""
    import numba

    options: dict[str, Any] = {"cache": True, "_nrt": False, "error_model": "numpy"}
    return cast("Dispatcher[F]", numba.njit(**options)(function))


def digest() -> int:
    """The sha256 of :data:`SOURCES` (names and bytes) as a 60-bit integer: the extension
    records the digest of the sources it was compiled from.

    Examples
    --------
    >>> 0 <= digest() < 2**60
    True
    """
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for rel in SOURCES:
        h.update(rel.encode())
        h.update((root / rel).read_bytes())
    return int(h.hexdigest()[:15], 16)


def processor() -> int:
    """A 60-bit tag of this processor's instruction set: the first ``flags`` line of
    ``/proc/cpuinfo`` (Linux), else 0 (unknown: builds there target a generic processor).

    The build compiles for the processor it runs on when it can tag it (about 15 % faster
    kernels than a generic x86-64 target) and records the tag; a process on a processor with
    another tag does not load that extension (its instructions might not exist there).

    Examples
    --------
    >>> 0 <= processor() < 2**60
    True
    """
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    flags = " ".join(sorted(line.split(":", 1)[1].split()))
                    return int(hashlib.sha256(flags.encode()).hexdigest()[:15], 16)
    except OSError:
        pass
    return 0


def _why_not(ext: Any) -> str:
    """Why the extension ``ext`` cannot serve this process ("" when it can)."""
    if int(ext.digest()) != digest():
        return "the compiled extension is older than the kernels' sources"
    if int(ext.processor()) not in (0, processor()):
        return "the compiled extension was built for another processor"
    return ""


def _load() -> Any:
    if os.environ.get("MATHBG_NATIVE", "1").strip() == "0":
        return None
    try:
        import mathbg._native_kernels as ext  # type: ignore[import-not-found]

        return None if _why_not(ext) else ext
    except (ImportError, OSError):  # not built here, or the sources are not beside it
        return None


def compiled(name: str) -> Callable[..., Any] | None:
    """The ahead-of-time compiled kernel ``name`` (a key of :data:`EXPORTS`), or None when
    the extension is not built, not current or turned off (the caller then runs numba's).

    Examples
    --------
    >>> compiled("net_run") is None or callable(compiled("net_run"))
    True
    """
    global _module
    if name not in EXPORTS:
        raise KeyError(name)
    if _module is _UNSET:
        _module = _load()
    return None if _module is None else getattr(_module, name)


def status() -> str:
    """How this process runs the kernels: ``"compiled ahead of time"`` or why numba compiles
    them (``"numba (...)"``).

    Examples
    --------
    >>> status().startswith(("compiled", "numba"))
    True
    """
    if compiled("net_run") is not None:
        return "compiled ahead of time"
    if os.environ.get("MATHBG_NATIVE", "1").strip() == "0":
        return "numba (MATHBG_NATIVE=0)"
    try:
        import mathbg._native_kernels as ext
    except ImportError:
        return "numba (the compiled extension is not built)"
    return f"numba ({_why_not(ext) or 'the compiled extension cannot be read'})"


def signatures() -> dict[str, Any]:
    """numba's signature of each compiled function (the build compiles these; imports numba).

    Returns
    -------
    dict
        Export name -> ``numba.core.typing.Signature``.
    """
    from numba.core import types as t

    f32, i64 = t.float32, t.int64
    tup: Any = t.Tuple

    def arr(dtype: Any, ndim: int, readonly: bool = False) -> Any:
        return t.Array(dtype, ndim, "C", readonly=readonly)

    def net(ndim: int) -> Any:  # hidden and output weights, thresholds, sigmoid scales
        return tup((arr(f32, ndim), arr(f32, 2), arr(f32, 1), arr(f32, 1), f32, f32))

    # mathbg.analysis.net.tables.model(): contact, race, crashed networks, the one-sided
    # table, the two-sided table, the race backgammon table, then the three pruning
    # networks
    model = tup((net(2), net(2), net(2), arr(t.uint16, 2, True), arr(t.uint16, 2),
                 arr(i64, 3), net(3), net(3), net(3)))  # fmt: skip
    work = tup((arr(f32, 1), arr(f32, 1), arr(f32, 1), arr(i64, 1), arr(i64, 1),
                    arr(t.uint8, 1)))  # fmt: skip
    ws = tup((arr(i64, 1), arr(t.int32, 1), arr(i64, 1), arr(i64, 2), arr(t.int8, 3),
              arr(t.int32, 2), arr(i64, 2), arr(t.int32, 2), arr(t.int32, 2)))
    cache = tup((arr(i64, 2), arr(f32, 2), arr(i64, 1), arr(i64, 1), arr(i64, 1)))
    u8_2, i32_2 = arr(t.uint8, 2), arr(t.int32, 2)
    f64 = t.float64
    # Hypergammon: the space's tables (HyperSpace.tables, read-only), then each solve's
    tables = (arr(i64, 1, True), arr(i64, 2, True), arr(i64, 2, True))
    match = (i64, i64, arr(f64, 3), arr(f32, 4), *tables, arr(f64, 2), arr(i64, 1),
             arr(t.boolean, 1), arr(i64, 1))  # fmt: skip
    # the n-ply search (mathbg.analysis.match_audit._search): a score's cube states, the
    # exact pruning networks, the scratch arrays
    search_tables = tup((arr(i64, 2), arr(f32, 2), arr(i64, 1), arr(f32, 1), arr(f32, 1),
                         arr(f32, 1), arr(i64, 1), arr(i64, 1)))
    pruning = tup((net(2), net(2), net(2)))
    search_scratch = tup((u8_2, arr(i64, 1), arr(f32, 1), arr(f32, 1), arr(f32, 1),
                          arr(f32, 1), arr(f32, 1), arr(i64, 2), arr(f32, 2), arr(f32, 2),
                          arr(f32, 2), arr(f32, 2), u8_2, arr(i64, 1), arr(f32, 1)))
    search_nodes = tup((arr(i64, 2), arr(f32, 2), arr(f32, 1), arr(i64, 1), arr(i64, 1),
                        arr(i64, 1)))
    return {
        "net_run": tup((arr(i64, 1), u8_2, arr(f32, 2), arr(i64, 1), arr(i64, 1),
                            t.boolean))(i64, u8_2, arr(i64, 2), arr(f64, 2), i64, model,
                                        work, ws, cache),
        "movegen_generate": tup((i64, u8_2, arr(t.int8, 3)))(arr(t.uint8, 1), i64, i64,
                                                                 ws),
        "movegen_successors": tup((arr(i64, 1), u8_2, t.boolean))(u8_2, i32_2, ws),
        "movegen_count_plays": i32_2(u8_2, i32_2, ws),
        "exact_shells": t.none(i64, i64, arr(i64, 1, True), arr(t.int32, 1, True),
                               arr(f64, 3), arr(f64, 1), arr(i64, 1), arr(t.boolean, 1),
                               arr(i64, 1), arr(f64, 3), arr(i64, 1), t.boolean, i64),
        "cube_cubeful_rows": t.none(arr(f64, 2), arr(f64, 1), arr(i64, 1), arr(i64, 1),
                                    arr(i64, 1), arr(i64, 1), t.boolean, arr(f64, 1), i64,
                                    arr(f64, 1), i64, arr(f64, 3), arr(f64, 1)),
        "audit_classes_into": t.none(arr(t.uint8, 2), arr(i64, 1), arr(i64, 1)),
        "audit_play_values_into": t.none(arr(f32, 2), arr(f32, 1), arr(f32, 1), arr(i64, 1),
                                         arr(i64, 2), arr(f32, 2), arr(i64, 1), arr(f32, 2),
                                         arr(f32, 2), arr(f64, 2)),
        "audit_cube_values_into": t.none(arr(f32, 2), arr(f32, 1), arr(f32, 1), arr(i64, 1),
                                         arr(i64, 2), arr(f32, 2), arr(f32, 2), arr(f32, 2),
                                         arr(f64, 2)),
        "audit_search": i64(u8_2, arr(i64, 1), i64, t.boolean, search_tables,
                            tup((model, work, ws, cache, arr(f32, 2), pruning,
                                 arr(t.uint16, 3), search_scratch, search_nodes)),
                            arr(f32, 2), arr(f32, 2)),
        "hyper_build_candidates": tup((arr(i64, 1), arr(i64, 2)))(arr(i64, 2),
                                                                  arr(i64, 2, True)),
        "hyper_opponent_table": arr(i64, 2)(arr(i64, 2), arr(i64, 2, True)),
        "hyper_pair_plays": i64(i64, i64, *tables, arr(i64, 2), arr(i64, 1)),
        "hyper_money_sweep": f64(i64, i64, arr(f64, 3), *tables, t.boolean, t.boolean),
        "hyper_match_sweep": f64(*match),
        "hyper_match_no_double": tup((arr(f64, 1), arr(f64, 1), arr(f64, 2)))(*match),
    }
