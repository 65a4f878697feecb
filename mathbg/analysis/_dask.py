"""Results of Dask futures as they finish, stopping a run on which nothing runs any more.

Used by the Dask paths of :func:`mathbg.analysis.corpus_stats` (one task per file) and
:func:`mathbg.analysis.selfplay_met` (one task per batch). A worker that dies is the
scheduler's business: the task it ran runs again on a worker left (or on the one its nanny
restarts), and results it held are computed again, so the numbers do not change. What the
scheduler cannot fix is a cluster on which nothing runs (every worker gone for good, or the
tasks waiting for workers that are not there): when for :data:`STALL_SECONDS` no task has
finished and no worker is running one, the run stops with one line instead of waiting for
ever.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from mathbg.errors import ResourceError

__all__ = ["STALL_SECONDS", "as_finished"]

#: Seconds with no task finished and none running after which a Dask run is stalled.
STALL_SECONDS = 600.0
#: Seconds between two looks at the cluster while no task finishes.
LOOK_SECONDS = 1.0


def as_finished(
    client: Any, futures: Sequence[Any], what: str, stall: float | None = None
) -> Iterator[tuple[int, Any]]:
    """Yield ``(i, futures[i].result())`` as the futures finish (in any order).

    Parameters
    ----------
    client : distributed.Client
        The client the futures belong to (asked what the workers are running).
    futures : sequence of distributed.Future
        Futures with distinct keys.
    what : str
        The run, for the stall message (e.g. ``"corpus run"``).
    stall : float, optional
        Seconds with no task finished and none running on any worker before the run stops
        (default :data:`STALL_SECONDS`).

    Raises
    ------
    ResourceError
        When the run stalls (one line: what the scheduler holds).
    Exception
        A task's own exception, re-raised.
    """
    from distributed import as_completed

    limit = STALL_SECONDS if stall is None else float(stall)
    index = {fut.key: i for i, fut in enumerate(futures)}
    pending = as_completed(list(futures))  # type: ignore[no-untyped-call]
    left = len(index)
    quiet_since = last_look = time.monotonic()
    while left:
        batch = pending.next_batch(block=False)  # type: ignore[no-untyped-call]
        if batch:
            for fut in batch:
                left -= 1
                yield index[fut.key], fut.result()
            quiet_since = time.monotonic()
            continue
        time.sleep(0.02)
        now = time.monotonic()
        if now - last_look < LOOK_SECONDS:
            continue
        last_look = now
        who, running = _running(client)
        if running:
            quiet_since = now
        elif now - quiet_since > limit:
            raise ResourceError(
                f"the Dask {what} made no progress for {limit:.0f} s ({left} of {len(index)} "
                f"tasks still to finish; {who}): check the cluster, then run it again"
            )


def _running(client: Any) -> tuple[str, int]:
    """What the workers are doing, in words, and how many tasks they are running."""
    try:
        workers = len(client.nthreads())
        running = sum(len(keys) for keys in client.processing().values())
    except Exception:  # the scheduler itself may be gone: nothing runs
        return "the scheduler does not answer", 0
    return f"{workers} worker(s), none running a task", running
