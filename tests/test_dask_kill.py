"""A worker process killed mid-run does not stop or change the Dask work of the corpus
statistics, of the self-play MET and of a rollout.

Each test runs the work on a LocalCluster of two worker processes (one thread each),
SIGKILLs one worker process once some tasks have finished (its nanny restarts it under a
new address; the results it held and the task it ran are computed again elsewhere), and
checks that the run finishes within a bounded wait with the local run's numbers, bit for
bit: every task is a pure function of its arguments (a file; a batch's seed key and the
table below it), so where it runs cannot matter. The two-sided bearoff build has its own
kill test (tests/test_reliability.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import instant_engine  # noqa: F401 - registers the instant test engine
import numpy as np
import pytest

from mathbg.analysis import corpus_stats, selfplay_met

pytestmark = [pytest.mark.slow, pytest.mark.dask]

DATA = Path(__file__).parent / "data" / "matches"
#: the first roller's chances of the instant test engine (tests/instant_engine.py), as
#: tests/test_selfplay_met.py
INSTANT = "instant:0.55,0.2,0.02,0.15,0.01"
#: seconds a run may take before the test calls it hung
BOUND = 120.0


def _bounded(fn: Callable[[], Any], seconds: float = BOUND) -> Any:
    """``fn()`` in a thread, failing the test if it has not returned within ``seconds``."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the Dask run did not finish within {seconds:.0f} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _kill_one_worker_when(
    client: Any, finished: Callable[[], int], at_least: int
) -> tuple[int, list[int]]:
    """Start a thread that SIGKILLs one worker process once ``finished() >= at_least``;
    return the victim's pid and a list that receives the count ``finished()`` read just
    before the kill (read after it, an in-memory count has already lost the victim's
    results)."""
    pids = client.run(os.getpid)
    victim = pids[sorted(pids)[0]]
    killed: list[int] = []

    def kill() -> None:
        deadline = time.monotonic() + BOUND
        done = finished()
        while done < at_least and time.monotonic() < deadline:
            time.sleep(0.03)
            done = finished()
        os.kill(victim, signal.SIGKILL)
        killed.append(done)

    threading.Thread(target=kill, daemon=True).start()
    return victim, killed


@contextlib.contextmanager
def _cluster() -> Iterator[Any]:
    """Two worker processes of one thread each, closed on exit.

    distributed 2024.1 raises ``TimeoutError`` from ``close()`` when a worker process is
    slow to exit (a loaded machine): its nanny has SIGKILLed it by then, so the close is
    done and the error is not the test's subject.
    """
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")  # fmt: skip
    try:
        yield cluster
    finally:
        with contextlib.suppress(TimeoutError):
            cluster.close()


def _gone(client: Any, victim: int) -> None:
    """The victim is no longer among the workers (its nanny may still be restarting it)."""
    assert victim not in client.run(os.getpid).values()


def test_corpus_survives_a_killed_worker() -> None:
    """corpus_stats over the real matches of tests/data five times over (75 files, one task
    each): a worker killed once some files are done; the statistics equal the local run's
    (every count, rate and interval, compared as the whole dict)."""
    distributed = pytest.importorskip("distributed")
    files = sorted(DATA.glob("match*.txt")) * 5
    local = corpus_stats(files, progress=False)
    assert local.files == len(files) >= 60 and not local.skipped

    def in_memory(dask_scheduler: Any) -> int:
        return sum(ts.state == "memory" and str(ts.key).startswith("file_stats")
                   for ts in dask_scheduler.tasks.values())  # fmt: skip

    with _cluster() as cluster, distributed.Client(cluster) as client:
        victim, killed = _kill_one_worker_when(
            client, lambda: int(client.run_on_scheduler(in_memory)), 8
        )
        remote = _bounded(lambda: corpus_stats(files, client=client, progress=False))
        _gone(client, victim)
    assert killed and 8 <= killed[0] < len(files), killed  # killed mid-run
    assert remote.as_dict() == local.as_dict()


def _same_bits(m1: Any, m2: Any) -> bool:
    return all(
        np.array_equal(getattr(m1, f), getattr(m2, f), equal_nan=True)
        for f in ("pre", "post", "stderr", "post_stderr", "games", "post_games")
    ) and m1.frames["scores"].equals(m2.frames["scores"])


def test_selfplay_survives_a_killed_worker(tmp_path: Path) -> None:
    """selfplay_met to 3 with the instant engine, 100 batches, a store: a worker killed
    once some batches are stored; the table (values, standard errors, games, the per-
    entry frame) has the local run's bits, and a rerun from the store alone computes
    nothing and gives the same bits."""
    distributed = pytest.importorskip("distributed")
    kw: dict[str, Any] = {"games": 15_000, "batch_size": 750, "seed": 11,
                          "players": (INSTANT, INSTANT), "progress": False}  # fmt: skip
    local = selfplay_met(3, **kw)
    entries = len(local.frames["scores"])
    total = entries * 20
    store = tmp_path / "store"

    def stored() -> int:
        return len(list(store.glob("*/batch-*.npz")))

    with _cluster() as cluster, distributed.Client(cluster) as client:
        victim, killed = _kill_one_worker_when(client, stored, 6)
        remote = _bounded(lambda: selfplay_met(3, client=client, store=store, **kw))
        _gone(client, victim)
    assert killed and 6 <= killed[0] < total, killed  # killed mid-run
    assert stored() == total
    assert _same_bits(remote, local)
    mtimes = {p: p.stat().st_mtime_ns for p in store.glob("*/batch-*.npz")}
    again = selfplay_met(3, store=store, **kw)  # every batch read back from the store
    assert {p: p.stat().st_mtime_ns for p in store.glob("*/batch-*.npz")} == mtimes
    assert _same_bits(again, local)


def test_a_run_on_which_nothing_runs_stops_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """No worker at all (corpus), or tasks waiting for a worker that is not there: the
    run stops after the stall time with one line, instead of waiting for ever."""
    distributed = pytest.importorskip("distributed")
    from mathbg import _dask
    from mathbg.errors import ResourceError

    monkeypatch.setattr(_dask, "STALL_SECONDS", 1.0)
    files = sorted(DATA.glob("match*.txt"))[:2]
    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty,
        distributed.Client(empty) as client,
    ):
        with pytest.raises(ResourceError, match=r"corpus run made no progress .* 0 worker") as exc:
            _bounded(lambda: corpus_stats(files, client=client, progress=False), 60)
        assert "\n" not in str(exc.value) and "2 of 2 tasks" in str(exc.value)
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as one,
        distributed.Client(one) as client,
    ):
        stuck = client.submit(sum, [1, 2], workers=["tcp://127.0.0.1:9"],
                              allow_other_workers=False, pure=False)  # fmt: skip
        done = client.submit(sum, [1, 2], pure=False)
        with pytest.raises(ResourceError, match=r"1 of 2 tasks .* 1 worker\(s\), none running"):
            _bounded(lambda: list(_dask.as_finished(client, [stuck, done], "test run")), 60)


@pytest.mark.extra("engine")
def test_rollout_survives_a_killed_worker(tmp_path: Path) -> None:
    """Issue 31: a rollout of the opening position at 3-away/5-away (no lookahead, 20
    batches of 36 trials, a store): a worker killed once some batches are stored; the
    result has the local run's bits."""
    distributed = pytest.importorskip("distributed")
    from mathbg.analysis import rollout

    kw: dict[str, Any] = {"away": (3, 5), "trials": 720, "batch_size": 36, "seed": 2,
                          "variance_reduction": False, "progress": False}  # fmt: skip
    local = rollout("4HPwATDgc/ABMA", **kw)
    store = tmp_path / "store"

    def stored() -> int:
        return len(list(store.glob("trials-*.npz")))

    with _cluster() as cluster, distributed.Client(cluster) as client:
        victim, killed = _kill_one_worker_when(client, stored, 4)
        remote = _bounded(lambda: rollout("4HPwATDgc/ABMA", client=client, store=store, **kw))
        _gone(client, victim)
    assert killed and 4 <= killed[0] < 20, killed  # killed mid-run
    assert stored() == 20
    assert remote == local
