"""Dask in one place: a client from a ``--scheduler`` spelling, and results as they finish.

:func:`dask_client` turns what every ``--scheduler`` option takes into a client, with the
same spellings and the same errors in every command: ``local`` or ``local:N`` starts a
LocalCluster of ``N`` single-threaded worker processes on this machine (default 2) and
closes it with the client; ``PROTOCOL://HOST:PORT`` (or ``HOST:PORT``, tcp) connects to a
running scheduler, refused before any connection when it is not an address
(:func:`check_scheduler_address`). The Python API takes a ``client`` made by the caller.

:func:`as_finished` yields the results of futures as they finish: the Dask paths of
:func:`mathbg.analysis.corpus_stats` (one task per file) and the self-play MET (one task
per batch) use it. A worker that dies is the
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
from contextlib import contextmanager
from typing import Any

from mathbg.errors import ConfigurationError, InvalidParameterError, ResourceError

__all__ = [
    "CONNECT_SECONDS",
    "LOCAL_WORKERS",
    "SCHEDULER_PROTOCOLS",
    "STALL_SECONDS",
    "as_finished",
    "check_scheduler",
    "check_scheduler_address",
    "dask_client",
    "local_workers",
]

#: Dask comm protocols a scheduler in another process can be reached by.
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
#: Worker processes of ``--scheduler local`` (``local:N`` names another number).
LOCAL_WORKERS = 2
#: Seconds to wait for a scheduler at an address before giving up.
CONNECT_SECONDS = 30
_INSTALL = "--scheduler needs dask.distributed: pip install 'mathbg[dask]'"

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


# ----------------------------------------------------------------------------- the client


def local_workers(text: str) -> int | None:
    """``N`` of ``local`` / ``local:N`` (``LOCAL_WORKERS`` for plain ``local``), None for
    anything else (a scheduler's address).

    Examples
    --------
    >>> local_workers("local"), local_workers("local:3"), local_workers("tcp://host:8786")
    (2, 3, None)
    """
    name, colon, n = text.partition(":")
    if name.strip().lower() != "local":
        return None
    if not colon:
        return LOCAL_WORKERS
    n = n.strip()
    if not n.isdigit() or not 1 <= int(n) <= 512:
        raise InvalidParameterError(
            f"--scheduler local:N wants a number of worker processes in 1..512, got {text!r}"
        )
    return int(n)


def check_scheduler_address(address: str) -> None:
    """Refuse a ``--scheduler`` that is not a Dask scheduler address ``PROTOCOL://HOST:PORT``
    (or ``HOST:PORT``, tcp), naming the address: no connection is tried for it.

    Parameters
    ----------
    address : str
        The address.

    Raises
    ------
    InvalidParameterError
        For an address of an unknown protocol, an ``inproc://`` one, or one without a
        host and port.

    Examples
    --------
    >>> check_scheduler_address("tcp://127.0.0.1:8786")
    >>> check_scheduler_address("local:2")
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: --scheduler 'local:2': no HOST:PORT in it; give \
the scheduler's address as tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786), or local / local:N
    """
    from mathbg._validate import bounded_text

    text = bounded_text(address, "--scheduler", 300, error=InvalidParameterError).strip()
    protocol, sep, rest = text.rpartition("://")
    protocol = protocol.lower() if sep else "tcp"
    want = ("give the scheduler's address as tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786), "
            "or local / local:N")  # fmt: skip
    if protocol == "inproc":
        raise InvalidParameterError(
            f"--scheduler {address!r}: an inproc:// scheduler lives in another Python "
            f"process and cannot be reached from the command line; {want}"
        )
    if protocol not in SCHEDULER_PROTOCOLS:
        raise InvalidParameterError(
            f"--scheduler {address!r}: unknown protocol {protocol!r} (Dask uses "
            f"{', '.join(p + '://' for p in SCHEDULER_PROTOCOLS)}); {want}"
        )
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise InvalidParameterError(f"--scheduler {address!r}: no HOST:PORT in it; {want}")


def check_scheduler(scheduler: str) -> None:
    """Refuse a ``--scheduler`` value before any work: ``local``, ``local:N`` or a
    scheduler address (:func:`check_scheduler_address`).

    Parameters
    ----------
    scheduler : str
        What ``--scheduler`` was given.

    Raises
    ------
    InvalidParameterError
        For a bad ``local:N`` or a bad address.

    Examples
    --------
    >>> check_scheduler("local"), check_scheduler("local:4"), check_scheduler("host:8786")
    (None, None, None)
    """
    if local_workers(str(scheduler)) is None:
        check_scheduler_address(scheduler)


@contextmanager
def dask_client(scheduler: str | None) -> Iterator[Any]:
    """A Dask client for a ``--scheduler`` value, closed (with its LocalCluster) on exit.

    Parameters
    ----------
    scheduler : str or None
        ``local`` / ``local:N`` (a LocalCluster of N single-threaded worker processes,
        default :data:`LOCAL_WORKERS`), a scheduler address ``PROTOCOL://HOST:PORT`` or
        ``HOST:PORT``, or None (no Dask: yields None).

    Yields
    ------
    distributed.Client or None

    Raises
    ------
    InvalidParameterError
        For a value that is neither (before any connection is tried).
    ConfigurationError
        When dask.distributed is not installed, or no scheduler answers at the address
        within :data:`CONNECT_SECONDS`.

    Examples
    --------
    >>> with dask_client(None) as client:
    ...     client is None
    True
    """
    if scheduler is None:
        yield None
        return
    workers = local_workers(str(scheduler))
    if workers is None:
        check_scheduler_address(scheduler)
    try:
        import distributed
    except ImportError:
        raise ConfigurationError(_INSTALL) from None
    if workers is not None:
        with (
            distributed.LocalCluster(  # type: ignore[no-untyped-call]
                # no dashboard, and the scheduler's HTTP server on a free port: with
                # dashboard_address=None it still takes 8787 and warns "Port 8787 is
                # already in use" when another cluster holds it
                n_workers=workers, threads_per_worker=1, dashboard_address=":0",
                scheduler_kwargs={"dashboard": False},
            ) as cluster,
            distributed.Client(cluster) as client,  # type: ignore[no-untyped-call]
        ):
            yield client
        return
    try:
        client = distributed.Client(  # type: ignore[no-untyped-call]
            scheduler, timeout=CONNECT_SECONDS
        )
    except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError; a
        # tls:// address without TLS settings is a TypeError or ValueError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigurationError(
            f"cannot reach the Dask scheduler {scheduler}: {first}"
        ) from None
    with client:
        yield client
