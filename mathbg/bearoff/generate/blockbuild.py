"""Block-wise two-sided build: layer loop, live window, block store, resume, assembly.

The table is computed block by block in pip-sum layers (:mod:`mathbg.bearoff.generate.pipblocks`)
with one numba kernel (:mod:`mathbg.bearoff.generate._block_kernels`):

1. the successor table is put in pip order (:func:`pip_csr`);
2. layers are processed two at a time (a layer reads only layers at least two below
   it); the blocks of a group run in parallel (``prange``, largest first) inside a
   ring-buffer **arena** that holds only the live window when the memory budget is smaller
   than the table (:class:`~mathbg.bearoff.generate.pipblocks.ArenaPlan`); a budget too small for
   the window is refused before anything is computed;
3. every finished block is written to the :class:`~mathbg.bearoff.generate.blockstore.BlockStore`
   (atomic, checksummed) by a writer thread while the next group computes;
4. a build killed at any moment resumes from the verified blocks in its store: no block
   is recomputed, none is trusted without its checksum, and the result is the same bytes
   (every value depends only on its inputs, never on the schedule);
5. one streaming pass per roller pip class writes the query file: ``[roller, opponent,
   value]`` in gnubg index order (so a query is one memory-mapped read, and a 16-bit
   cubeful table is byte for byte the body of gnubg's ``.bd`` file).

Encodings (``dtype``): ``"u16"`` gnubg's fixed point with gnubg's integer arithmetic
(byte-identical to ``makebearoff -t``), ``"f32"`` float32, ``"f64"`` float64 (both with the
float64 recursion of :mod:`mathbg.bearoff.twosided` per pair).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _files
from mathbg.bearoff.generate.blockstore import BlockStore
from mathbg.bearoff.generate.pipblocks import ArenaPlan, PipLayout, layout
from mathbg.errors import DatabaseError, InsufficientMemoryError, InvalidParameterError

__all__ = [
    "DTYPES",
    "BlockStore",
    "BuildSpec",
    "BuildStats",
    "assemble",
    "build_blocks",
    "compile_kernels",
    "minimum_memory",
    "pip_csr",
    "table",
    "uses_parallel",
]

#: Storage encodings: numpy dtype and whether gnubg's integer arithmetic is used.
DTYPES: dict[str, tuple[type[np.generic], bool]] = {
    "u16": (np.uint16, True),
    "f32": (np.float32, False),
    "f64": (np.float64, False),
}

#: Memory the build needs besides the arena and the successor table (interpreter,
#: numba, scratch), in bytes.
_BASE_BYTES = 300 * 2**20

Hook = Callable[[int, float], None]


@dataclass(frozen=True)
class BuildSpec:
    """What to build: the space, the values per pair and their encoding."""

    points: int
    checkers: int
    cubeful: bool = True
    dtype: str = "u16"

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise InvalidParameterError(
                f"dtype must be one of {sorted(DTYPES)}, got {self.dtype!r}"
            )

    @property
    def nv(self) -> int:
        """Values per pair (4 cubeful, 1 cubeless)."""
        return 4 if self.cubeful else 1

    @property
    def numpy_dtype(self) -> np.dtype:
        """Storage dtype."""
        return np.dtype(DTYPES[self.dtype][0])

    @property
    def gnubg(self) -> bool:
        """gnubg's integer arithmetic (the 16-bit encoding)."""
        return DTYPES[self.dtype][1]

    def identity(self, lay: PipLayout) -> dict[str, Any]:
        """What a block store must hold to serve this build."""
        return {
            "format": "mathbg-twosided-blocks",
            "version": 2,  # 2: blocks bound to their coordinate and this identity
            "points": self.points,
            "checkers": self.checkers,
            "values": self.nv,
            "dtype": self.dtype,
            "storage": self.numpy_dtype.str,
            "class_offsets": [int(x) for x in lay.offsets],
        }


@dataclass
class BuildStats:
    """What a build did (for reports and tests)."""

    computed: int = 0  #: blocks computed
    loaded: int = 0  #: blocks loaded from the store (resume)
    pairs_computed: int = 0
    seconds: float = 0.0
    arena_bytes: int = 0
    keep_all: bool = False


@dataclass(frozen=True)
class PipCsr:
    """Successors in pip order: row ``p*21 + r`` lists pip-order indices (``[0]`` when the
    roll bears the last checker off)."""

    ptr: NDArray[np.int64]
    succ: NDArray[np.int32]

    @property
    def nbytes(self) -> int:
        """Memory held."""
        return int(self.ptr.nbytes + self.succ.nbytes)

    def reads_per_class(self, lay: PipLayout) -> NDArray[np.float64]:
        """Mean successor reads per pair for a roller of each pip class."""
        per_pos = np.diff(self.ptr[::21]).astype(np.float64)
        sums = np.add.reduceat(per_pos, lay.offsets[:-1]) if lay.n else per_pos
        return sums / np.maximum(lay.sizes, 1)


def pip_csr(lay: PipLayout) -> PipCsr:
    """The successor table of the space (:func:`mathbg.bearoff.plays.successors`) in pip order."""
    from mathbg.bearoff.generate._block_kernels import pip_order_csr, pip_order_lengths
    from mathbg.bearoff.plays import successors

    table = successors(lay.points, lay.checkers)
    n = lay.n
    lengths = np.empty(n * 21, np.int64)
    pip_order_lengths(table.ptr, table.succ, lay.order, lengths)
    ptr = np.zeros(n * 21 + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    succ = np.empty(int(ptr[-1]), np.int32)
    pip_order_csr(table.ptr, table.succ, lay.order, lay.rank_of, ptr, succ)
    return PipCsr(ptr, succ)


def block_work(lay: PipLayout, csr: PipCsr) -> dict[tuple[int, int], float]:
    """Cost of each block in successor reads (pairs x mean reads of the roller's class)."""
    reads = csr.reads_per_class(lay)
    return {
        (a, b): float(lay.block_pairs(a, b) * max(reads[a], 1.0))
        for layer in range(lay.n_layers)
        for (a, b) in lay.layer_blocks(layer)
    }


def needed_bytes(spec: BuildSpec, lay: PipLayout, csr: PipCsr, plan_values: int) -> int:
    """Memory of a build whose arena holds ``plan_values`` values."""
    item = spec.numpy_dtype.itemsize
    assembly = int(lay.sizes.max()) * lay.n * spec.nv * item
    return _BASE_BYTES + csr.nbytes + max(plan_values * item, assembly)


def minimum_memory(spec: BuildSpec) -> int:
    """The smallest memory budget (bytes) a local build of ``spec`` accepts."""
    lay = layout(spec.points, spec.checkers)
    csr = pip_csr(lay)
    return needed_bytes(spec, lay, csr, ArenaPlan.minimum_values(lay, spec.nv))


def plan_arena(spec: BuildSpec, lay: PipLayout, csr: PipCsr, memory: int | None) -> ArenaPlan:
    """The arena for a memory budget (bytes; None or enough: the whole table).

    Raises
    ------
    InsufficientMemoryError
        Before anything is built, when the budget cannot hold the live window.
    """
    item = spec.numpy_dtype.itemsize
    fixed = _BASE_BYTES + csr.nbytes
    total_bytes = lay.n * lay.n * spec.nv * item
    if memory is None or memory >= total_bytes + fixed:
        return ArenaPlan.make(lay, spec.nv, None)
    capacity = (memory - fixed) // item
    try:
        plan = ArenaPlan.make(lay, spec.nv, max(capacity, 0))
    except DatabaseError:
        minimum = ArenaPlan.minimum_values(lay, spec.nv)
        need = needed_bytes(spec, lay, csr, minimum)
        kind = "cubeful" if spec.cubeful else "cubeless"
        raise InsufficientMemoryError(
            f"two-sided {spec.points}x{spec.checkers} needs about {need / 2**30:.2f} GiB of "
            f"memory for its live window ({kind}, {spec.dtype}: "
            f"{minimum * item / 2**30:.2f} GiB of blocks), but the memory budget is "
            f"{memory / 2**30:.2f} GiB"
            + ("; --dtype u16 needs less" if spec.dtype != "u16" else "")
        ) from None
    assembly = int(lay.sizes.max()) * lay.n * spec.nv * item
    if fixed + assembly > memory:
        raise InsufficientMemoryError(
            f"assembling two-sided {spec.points}x{spec.checkers} needs "
            f"{(fixed + assembly) / 2**30:.2f} GiB, but the memory budget is "
            f"{memory / 2**30:.2f} GiB"
        )
    return plan


class _Progress:
    """tqdm bar in pairs with an ETA weighted by work (successor reads), not by pairs."""

    def __init__(self, total_pairs: int, total_work: float, desc: str, enabled: bool) -> None:
        self.bar: Any = None
        self.total_work = total_work
        self.work_done = 0.0
        self.work_skipped = 0.0
        self.t0 = time.perf_counter()
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total_pairs,
                desc=desc,
                unit="pairs",
                unit_scale=True,
                smoothing=0,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} pairs [{elapsed}, "
                "{rate_fmt}{postfix}]",
            )

    def update(self, pairs: int, work: float, skipped: bool = False) -> None:
        if skipped:
            self.work_skipped += work
        else:
            self.work_done += work
        if self.bar is not None:
            self.bar.update(pairs)
            elapsed = time.perf_counter() - self.t0
            left = self.total_work - self.work_done - self.work_skipped
            if self.work_done > 0 and left > 0:
                eta = elapsed * left / self.work_done
                m, s = divmod(int(eta), 60)
                self.bar.set_postfix_str(f"ETA {m:d}:{s:02d}", refresh=False)
            elif left <= 0:
                self.bar.set_postfix_str("ETA 0:00", refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


#: A step of groups with less work than this (successor reads) runs on one thread: a
#: parallel region costs a thread wake-up and a barrier, milliseconds on a busy machine.
_PARALLEL_WORK = 3e6
#: Consecutive one-thread groups are batched into one kernel call up to this much work.
_SERIAL_BATCH = 3e6
#: A whole build with less work than this runs on one thread (6x6: 6.4e7): its parallel
#: steps would save less than the parallel kernel costs to compile and start (about 1.5 s
#: on first use; 6x6 measured 0.56 s serial against 0.59 s with them).
_SERIAL_BUILD = 1e8
#: An in-memory build with less work than this keeps its blocks in memory only: redoing it
#: after a kill takes under a second, and writing its blocks to the store took longer than
#: computing them (6x6: 1,369 block files, 0.96 s against 0.56 s).
_PERSIST_WORK = 1e8


def _steps(
    lay: PipLayout, plan: ArenaPlan, nv: int, work: dict[tuple[int, int], float]
) -> list[tuple[list[list[int]], bool]]:
    """Kernel calls: (groups, parallel). Small consecutive groups share one serial call when
    their arena regions are disjoint (no block is overwritten before it is written out)."""
    steps: list[tuple[list[list[int]], bool]] = []
    batch: list[list[int]] = []
    regions: list[tuple[int, int]] = []
    total = 0.0
    parallel_min = _PARALLEL_WORK if sum(work.values()) >= _SERIAL_BUILD else math.inf
    for group in plan.groups:
        blocks = [ab for layer in group for ab in lay.layer_blocks(layer)]
        w = sum(work[ab] for ab in blocks)
        lo = min(plan.start[ab] for ab in blocks)
        hi = max(plan.start[ab] + lay.block_pairs(*ab) * nv for ab in blocks)
        clash = any(lo < r_hi and r_lo < hi for r_lo, r_hi in regions)
        if batch and (w >= parallel_min or total + w > _SERIAL_BATCH or clash):
            steps.append((batch, False))
            batch, regions, total = [], [], 0.0
        if w >= parallel_min:
            steps.append(([group], True))
            continue
        batch.append(group)
        regions.append((lo, hi))
        total += w
    if batch:
        steps.append((batch, False))
    return steps


def uses_parallel(spec: BuildSpec) -> bool:
    """Whether an in-memory build of ``spec`` runs any step on the parallel kernel."""
    lay = layout(spec.points, spec.checkers)
    csr = pip_csr(lay)
    plan = plan_arena(spec, lay, csr, None)
    return any(parallel for _, parallel in _steps(lay, plan, spec.nv, block_work(lay, csr)))


def compile_kernels(spec: BuildSpec, parallel: bool) -> None:
    """Compile the layer kernels for this encoding before the clock starts (the parallel
    one only when a step uses it)."""
    from mathbg.bearoff.generate._block_kernels import layer_kernel, serial_kernel

    empty = np.zeros(0, np.int64)
    for kernel in (layer_kernel, serial_kernel) if parallel else (serial_kernel,):
        kernel(empty, empty, np.zeros((1, 1), np.int64), np.zeros(2, np.int64), empty,
               np.zeros(0, np.int32), np.zeros(1, spec.numpy_dtype), spec.nv,
               spec.gnubg)  # fmt: skip


def build_blocks(
    spec: BuildSpec,
    store: BlockStore,
    *,
    memory: int | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    persist: bool | None = True,
) -> tuple[NDArray[Any] | None, ArenaPlan, BuildStats]:
    """Compute every block of ``spec`` into ``store`` (resuming from the blocks there).

    Parameters
    ----------
    memory : int, optional
        Budget in bytes; None: the whole table in memory.
    stop_after : int, optional
        Testing aid: return after this many computed blocks (as if killed).
    persist : bool or None
        Write the blocks to ``store`` (default). None: only when the build is worth
        resuming; an in-memory build of less work than :data:`_PERSIST_WORK` (6x6 and
        smaller) keeps its blocks in the returned arena only.

    Returns
    -------
    (arena, plan, stats)
        The arena (the whole table when ``plan.keep_all``, so the assembly can read it
        instead of the store) and the plan.
    """
    from mathbg.bearoff.generate._block_kernels import layer_kernel, serial_kernel
    from mathbg.bearoff.generate._schedule import dynamic_chunks

    lay = layout(spec.points, spec.checkers)
    csr = pip_csr(lay)
    plan = plan_arena(spec, lay, csr, memory)
    store.claim(spec.identity(lay))
    done = store.verified()
    work = block_work(lay, csr)
    nc = lay.n_classes
    stats = BuildStats(arena_bytes=plan.capacity * spec.numpy_dtype.itemsize,
                       keep_all=plan.keep_all)  # fmt: skip
    # blocks that a block still to compute reads: the resident inputs of the resumed build
    todo = {ab for ab in plan.start if ab not in done}
    needed = {(b, c) for (a, b) in todo for c in lay.inputs(a, b)}
    steps = _steps(lay, plan, spec.nv, work)
    if persist is None:
        persist = not plan.keep_all or sum(work.values()) >= _PERSIST_WORK
    compile_kernels(spec, parallel=any(parallel for _, parallel in steps))
    bar = _Progress(
        lay.n * lay.n,
        sum(work.values()),
        f"two-sided {spec.points}x{spec.checkers} {'cubeful' if spec.cubeful else 'cubeless'} "
        f"{spec.dtype}",
        progress,
    )
    arena = np.empty(plan.capacity, spec.numpy_dtype)
    start = np.full((nc, nc), -1, np.int64)
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mathbg-blocks")
    pending: list[tuple[int, Future[None]]] = []  # (last layer reading the group, write future)
    lock = threading.Lock()  # the writer thread updates ``done``
    t0 = time.perf_counter()

    def wait_until(layer: int) -> None:
        # writes of regions whose blocks no layer >= layer + 1 reads are durable, so their
        # ring space may be reused
        for item in [p for p in pending if p[0] <= layer]:
            item[1].result()
            pending.remove(item)

    def view(ab: tuple[int, int]) -> NDArray[Any]:
        a, b = ab
        off = plan.start[ab]
        shape = (int(lay.sizes[a]), int(lay.sizes[b]), spec.nv)
        return arena[off : off + shape[0] * shape[1] * spec.nv].reshape(shape)

    def write(blocks: list[tuple[int, int]]) -> None:
        for ab in blocks:
            sha = store.put(*ab, view(ab))
            with lock:
                done[ab] = sha

    try:
        for step, parallel in steps:
            blocks = [ab for group in step for layer in group for ab in lay.layer_blocks(layer)]
            # the ring space of this step was last used by blocks no one reads any more;
            # make sure those were written before overwriting them
            if not plan.keep_all:  # every region freed before the step's last group
                wait_until(step[-1][0] - 1)
            for ab in blocks:
                start[ab] = plan.start[ab]
            compute = []
            for ab in blocks:
                if ab in done:
                    if ab in needed or plan.keep_all:
                        got = store.get(*ab, [done[ab]])
                        if got is None:  # deleted or corrupted since verification
                            raise DatabaseError(f"{store.location}: block {ab} vanished; rerun")
                        view(ab)[...] = got[0]
                        stats.loaded += 1
                    bar.update(lay.block_pairs(*ab), work[ab], skipped=True)
                else:
                    compute.append(ab)
            if stop_after is not None and stats.computed + len(compute) > stop_after:
                compute = compute[: max(0, stop_after - stats.computed)]
                if not compute:
                    break
            if compute:
                ba = np.array([ab[0] for ab in compute], np.int64)
                bb = np.array([ab[1] for ab in compute], np.int64)
                args = (ba, bb, start, lay.offsets, csr.ptr, csr.succ, arena, spec.nv, spec.gnubg)
                if parallel:
                    with dynamic_chunks():
                        layer_kernel(*args)
                else:
                    serial_kernel(*args)
                if persist:
                    last = max(lay.last_reader_layer(*ab) for ab in blocks)
                    pending.append((last, writer.submit(write, compute)))
                stats.computed += len(compute)
                for ab in compute:
                    stats.pairs_computed += lay.block_pairs(*ab)
                    bar.update(lay.block_pairs(*ab), work[ab])
            if stop_after is not None and stats.computed >= stop_after:
                break
        wait_until(10**9)
    finally:
        writer.shutdown(wait=True)
        bar.close()
    for _, fut in pending:
        fut.result()
    stats.seconds = time.perf_counter() - t0
    manifest = store.read_manifest() or {}
    manifest["blocks"] = {f"{a},{b}": sha for (a, b), sha in sorted(done.items())}
    store.write_manifest(manifest)
    return (arena if plan.keep_all else None), plan, stats


def _bands(
    spec: BuildSpec,
    store: BlockStore,
    lay: PipLayout,
    arena: NDArray[Any] | None,
    plan: ArenaPlan | None,
) -> Iterator[tuple[NDArray[np.int64], NDArray[Any]]]:
    """The table by roller pip class: ``(rows, band)``, the gnubg indices of the class's
    rollers and their rows ``[roller, opponent, value]`` with the opponents in gnubg order.

    Blocks come from ``arena`` when it holds the whole table, else from the store
    (verified).
    """
    n, nv, dt = lay.n, spec.nv, spec.numpy_dtype
    shas = store.listing()
    for a in range(lay.n_classes):
        na = int(lay.sizes[a])
        band = np.empty((na, n, nv), dt)
        for c in range(lay.n_classes):
            cols = lay.order[lay.offsets[c] : lay.offsets[c + 1]]
            if arena is not None and plan is not None and plan.keep_all:
                off = plan.start[(a, c)]
                size = na * int(lay.sizes[c]) * nv
                blk = arena[off : off + size].reshape(na, -1, nv)
            else:
                got = store.get(a, c, shas.get((a, c), []))
                if got is None:
                    raise DatabaseError(
                        f"{store.location}: block ({a}, {c}) is missing or corrupt; rerun "
                        "the build to recompute it"
                    )
                blk = got[0]
            band[:, cols, :] = blk
        yield lay.order[lay.offsets[a] : lay.offsets[a + 1]], band


def assemble(
    spec: BuildSpec,
    store: BlockStore,
    path: str | os.PathLike[str],
    *,
    arena: NDArray[Any] | None = None,
    plan: ArenaPlan | None = None,
    progress: bool = False,
) -> None:
    """Write the query file: ``.npy`` of shape (n, n, nv), ``[roller, opponent]`` in gnubg order.

    One pass over the roller pip classes: the blocks (a, .) are scattered into the gnubg
    column order of a row-band buffer, whose rows are then written at their gnubg row
    offsets (plain writes, no memory map, so the page cache does not count as memory).
    Blocks come from ``arena`` when it holds the whole table, else from the store
    (verified).
    """
    lay = layout(spec.points, spec.checkers)
    n, nv, dt = lay.n, spec.nv, spec.numpy_dtype
    store.bind(spec.identity(lay))  # every block read is checked against this build
    header = _npy_header((n, n, nv), dt)
    row_bytes = n * nv * dt.itemsize
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n * n, desc="assembling", unit="pairs", unit_scale=True, leave=False)
    tmp = f"{os.fspath(path)}.partial"
    with open(tmp, "wb") as fh:
        fh.write(header)
        fh.truncate(len(header) + n * row_bytes)
        fh.flush()
        _files.preallocate(tmp)  # disk reserved up front: a full disk fails here, at once
        for rows, band in _bands(spec, store, lay, arena, plan):
            for k, g in enumerate(rows):
                os.pwrite(fh.fileno(), band[k].tobytes(), len(header) + int(g) * row_bytes)
            if bar is not None:
                bar.update(len(rows) * n)
        fh.flush()
        os.fsync(fh.fileno())
    if bar is not None:
        bar.close()
    os.replace(tmp, path)


def table(spec: BuildSpec) -> NDArray[Any]:
    """The whole table of ``spec`` in memory, ``[roller, opponent, value]`` in gnubg order.

    The blocks are computed in memory (:func:`build_blocks` with the whole table as the
    arena, nothing written but a temporary store's manifest) and gathered like
    :func:`assemble` does, so the values are the query file's, byte for byte.
    """
    import tempfile

    lay = layout(spec.points, spec.checkers)
    with tempfile.TemporaryDirectory(prefix="mathbg-ts-") as tmp:
        store = BlockStore(tmp)
        arena, plan, _ = build_blocks(spec, store, memory=None, progress=False, persist=False)
        out = np.empty((lay.n, lay.n, spec.nv), spec.numpy_dtype)
        for rows, band in _bands(spec, store, lay, arena, plan):
            out[rows] = band
    return out


def _npy_header(shape: tuple[int, ...], dtype: np.dtype) -> bytes:
    import io

    buf = io.BytesIO()
    descr = np.lib.format.dtype_to_descr(dtype)
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()
