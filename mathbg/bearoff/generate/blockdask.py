"""Dask backend of the block-wise two-sided build (optional: ``pip install mathbg[dask]``).

One ``dask.distributed`` future per pip-class block ``(a, b)``, running the same numba
kernel as the local build (:func:`mathbg.bearoff.generate._block_kernels.block_kernel`) on the
input blocks ``(b, c)``, ``c`` in ``[a - 24, a - 2]``:

- **owner placement**: the row bands are dealt to the workers by work; block ``(a, b)``
  runs on the owner of row band ``b`` (``workers=[owner(b)]``), which already holds or
  caches its inputs (all in band b), so each finished block crosses the network about
  once (to the owner of band ``a``, where its ~23 readers run). The placement is a
  preference (``allow_other_workers=True``): when a worker dies (a nanny restarts it
  under a new address) its tasks go to the workers left, and the scheduler recomputes
  the blocks it held from their inputs (or the task finds them in the store);
- a build that makes no progress for :data:`STALL_SECONDS` (no block finished, none in
  the store) stops with one line saying what the scheduler holds, instead of waiting
  for ever;
- ``priority=-(a + b)``: lower layers first;
- the client drops its reference to a block once every block that reads it has been
  submitted, so the scheduler frees it after its last reader ran (the live window);
- every task first looks for its block in the store (verified checksum) and returns it
  instead of computing; otherwise it computes, writes the block atomically and returns
  it. A rerun therefore resumes, and the bytes equal the local build's.

The store must be reachable by every worker: a local path on one machine or a shared
file system, or an fsspec URL.

References
----------
``shared/reference/distributed-bearoff.md`` sections 3-4 (measured overheads, owner
placement), https://docs.dask.org/en/stable/futures.html.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.generate.blockbuild import BuildSpec, BuildStats, block_work, pip_csr
from mathbg.bearoff.generate.blockstore import BlockStore
from mathbg.bearoff.generate.pipblocks import PipLayout, layout
from mathbg.errors import DatabaseError

__all__ = ["STALL_SECONDS", "build_blocks", "compute_block", "owners"]

#: Seconds without any block finishing after which a Dask build is reported stalled.
STALL_SECONDS = 600.0


def compute_block(
    a: int, b: int, static: dict[str, Any], location: str, shas: list[str], *inputs: NDArray[Any]
) -> NDArray[Any]:
    """Task body: block (a, b) from the store if there (verified), else computed and stored.

    ``shas`` are the checksums of the copies of the block the client saw in the store
    (empty: compute); ``inputs`` are the blocks (b, c), c = max(1, a - 24) .. a - 2.
    """
    from mathbg.bearoff.generate._block_kernels import block_kernel

    store = BlockStore(location, static["identity"])  # checks each block's identity
    if shas:
        got = store.get(a, b, shas)
        if got is not None:
            return got[0]
    offsets = static["offsets"]
    nv = static["nv"]
    na, nb = int(offsets[a + 1] - offsets[a]), int(offsets[b + 1] - offsets[b])
    out = np.empty(na * nb * nv, static["dtype"])
    base = np.full(len(offsets) - 1, -1, np.int64)
    if inputs:
        pos = 0
        for c, blk in zip(range(max(1, a - 24), a - 1), inputs, strict=True):
            base[c] = pos
            pos += blk.size
        src = np.concatenate([blk.ravel() for blk in inputs])
    else:
        src = np.zeros(1, static["dtype"])
    block_kernel(a, b, offsets, static["ptr"], static["succ"], src, base, out, nv,
                 static["gnubg"])  # fmt: skip
    block = out.reshape(na, nb, nv)
    store.put(a, b, block)
    return block


def owners(lay: PipLayout, work: dict[tuple[int, int], float], workers: list[str]) -> list[str]:
    """Owner of each row band: bands dealt largest-work first to the least-loaded worker.

    Band ``b``'s work is that of the blocks ``(., b)`` its owner computes.
    """
    band = np.zeros(lay.n_classes)
    for (_, b), w in work.items():
        band[b] += w
    load = dict.fromkeys(workers, 0.0)
    owner = [workers[0]] * lay.n_classes
    for b in np.argsort(-band, kind="stable"):
        who = min(load, key=lambda k: (load[k], k))
        owner[int(b)] = who
        load[who] += float(band[b])
    return owner


# (a typed signature with keyword options: its shape recurs, its logic does not)
def build_blocks(
    spec: BuildSpec,
    store: BlockStore,
    client: Any,
    *,
    progress: bool = True,
    placement: bool = True,
    stall: float | None = None,
) -> BuildStats:
    """Compute every block of ``spec`` into ``store`` on the Dask cluster of ``client``.

    Parameters
    ----------
    placement : bool
        Owner placement (``workers=[owner(b)]``, a preference); False lets the scheduler
        place tasks.
    stall : float, optional
        Seconds without progress before the build stops with a
        :class:`~mathbg.errors.DatabaseError` (default :data:`STALL_SECONDS`).

    Returns
    -------
    BuildStats
        Blocks submitted (``computed`` counts tasks; blocks already in the store are loaded
        by their task) and the wall time.
    """
    try:
        from distributed import wait
    except ImportError:  # pragma: no cover - depends on the environment
        raise DatabaseError(
            "the Dask backend needs dask.distributed: pip install mathbg[dask]"
        ) from None

    lay = layout(spec.points, spec.checkers)
    csr = pip_csr(lay)
    identity = spec.identity(lay)
    store.claim(identity)
    work = block_work(lay, csr)
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise DatabaseError("the Dask cluster has no workers")
    owner = owners(lay, work, workers)
    static = {
        "offsets": lay.offsets,
        "ptr": csr.ptr,
        "succ": csr.succ,
        "nv": spec.nv,
        "dtype": spec.numpy_dtype,
        "gnubg": spec.gnubg,
        "identity": identity,
    }
    [static_future] = client.scatter([static], broadcast=True)
    present = store.listing()  # a rerun loads these instead of computing them
    # keys of this run only: a task of an earlier run still known to the scheduler (same
    # key) would run with that run's view of the store and recompute its block
    run = uuid.uuid4().hex[:8]
    t0 = time.perf_counter()
    futures: dict[tuple[int, int], Any] = {}
    sinks = []
    bar = _bar(lay, progress)
    done_pairs = 0
    for layer in range(lay.n_layers):
        for a, b in lay.layer_blocks(layer):
            deps = [futures[(b, c)] for c in lay.inputs(a, b)]
            fut = client.submit(
                compute_block, a, b, static_future, store.location, present.get((a, b), []),
                *deps,
                key=f"mathbg-ts-{spec.points}x{spec.checkers}-{spec.dtype}-{spec.nv}-{run}-{a}-{b}",
                priority=-(a + b), workers=[owner[b]] if placement else None,
                allow_other_workers=True, pure=False,
            )  # fmt: skip
            futures[(a, b)] = fut
            if lay.last_reader_layer(a, b) == a + b:
                sinks.append(fut)
        # every reader of the blocks of layer - 24 has been submitted: drop them
        old = layer - 24
        if old >= 0:
            for ab in lay.layer_blocks(old):
                if lay.last_reader_layer(*ab) <= layer:
                    futures.pop(ab, None)
        if bar is not None:
            done_pairs = _advance(bar, store, lay, done_pairs)
    futures.clear()
    done_pairs = _wait(client, sinks, wait, store, lay, bar, done_pairs, stall)
    for fut in sinks:
        if fut.status == "error":
            fut.result()  # raise the task's exception
    del sinks
    if bar is not None:
        _advance(bar, store, lay, done_pairs)
        bar.close()
    return BuildStats(computed=len(work), seconds=time.perf_counter() - t0)


def _wait(
    client: Any,
    sinks: list[Any],
    wait: Any,
    store: BlockStore,
    lay: PipLayout,
    bar: Any,
    shown: int,
    stall: float | None,
) -> int:
    """Wait for every sink, updating the bar each second, and stop a stalled build;
    return the pairs the bar shows.

    ``distributed.wait(..., timeout=)`` raises ``TimeoutError`` when the time passes in
    recent versions (2026.x) and returned the finished set in older ones: both are read
    here as "not all done yet". Progress is any sink finishing or any block reaching the
    store; none for ``stall`` seconds is reported in one line.
    """
    limit = STALL_SECONDS if stall is None else float(stall)
    last_change = time.monotonic()
    done_before, pairs_before = -1, -1
    while True:
        try:
            finished, _ = wait(sinks, timeout=1.0)
            n_done = len(finished)
        except TimeoutError:  # distributed's TimeoutError is the builtin one
            n_done = sum(f.done() for f in sinks)
        pairs = sum(lay.block_pairs(a, b) for (a, b) in store.listing())
        if bar is not None and pairs > shown:
            bar.update(pairs - shown)
            shown = pairs
        if n_done == len(sinks):
            return shown
        if n_done != done_before or pairs != pairs_before:
            done_before, pairs_before, last_change = n_done, pairs, time.monotonic()
        elif time.monotonic() - last_change > limit:
            raise DatabaseError(_stall_message(client, limit, len(sinks) - n_done))


def _stall_message(client: Any, seconds: float, left: int) -> str:
    """One line: what the scheduler holds when a Dask build makes no progress."""
    try:
        workers = len(client.scheduler_info().get("workers", {}))
    except Exception:  # the scheduler itself may be gone
        workers = -1
    who = f"{workers} worker(s)" if workers >= 0 else "the scheduler does not answer"
    return (
        f"the Dask build made no progress for {seconds:.0f} s ({left} final blocks still "
        f"to finish; {who}): check the cluster, then rerun the same command to resume "
        "from the blocks in the store"
    )


def _bar(lay: PipLayout, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=lay.n * lay.n, desc="two-sided (dask)", unit="pairs", unit_scale=True)


def _advance(bar: Any, store: BlockStore, lay: PipLayout, shown: int) -> int:
    """Progress from the durable blocks in the store (the truth, whatever the scheduler does)."""
    pairs = sum(lay.block_pairs(a, b) for (a, b) in store.listing())
    if pairs > shown:
        bar.update(pairs - shown)
    return max(pairs, shown)
