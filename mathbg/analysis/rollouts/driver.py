"""The run: batches of trials played locally or on Dask, kept in a store, shown by a
progress bar, until the trials (or the target standard error) are reached; and
:func:`rollout`, which returns the typed :class:`RolloutResult`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mathbg._output import FrameMixin, JSONObject
from mathbg._validate import options_or_keywords
from mathbg.analysis.batchstore import BatchStore
from mathbg.analysis.rollouts.options import RolloutOptions
from mathbg.analysis.rollouts.result import (
    LineDifference,
    LineResult,
    decision,
    differences,
    line_results,
)
from mathbg.analysis.rollouts.trials import TrialBatch, run_trials
from mathbg.cube.decisions import CubeDecision
from mathbg.errors import InvalidParameterError

__all__ = ["RolloutResult", "RolloutRun", "rollout", "run_rollouts"]

#: The exact truncation's bearoff space (6 points x this many checkers a side).
EXACT_CHECKERS = 6


@dataclass(frozen=True)
class RolloutResult(FrameMixin):
    """A cubeful rollout of one position at one score.

    Attributes
    ----------
    position : str
        The gnubg Position ID (the player on roll, before rolling).
    away : (int, int) or None
        The score ``(player_away, opponent_away)``; None for money play.
    crawford : bool
        The Crawford game.
    cube, owner : int, str
        The position's cube and who holds it.
    cube_limit : int or None
        The largest cube value.
    met : str or None
        The match equity table (None for money play).
    engine : str
        The checker player (e.g. ``"gnubg-nn 0-ply"``).
    plies : int
        Its plies.
    unit : {"mwc", "equity"}
        What the values are: match winning chances, or equity per unit of the cube.
    trials, seed : int
        Trials played and the seed.
    variance_reduction : bool
        The luck of every roll subtracted.
    truncate : str or None
        Where trials stopped early (``"exact"``, ``"race"``, None).
    lines : tuple of LineResult
        Each line's value, chances, cube events and ends.
    differences : tuple of LineDifference
        Each line against the first, with the paired standard error.
    decision : CubeDecision or None
        The cube decision of the no-double and double/take lines (None without both).
    target_se : float or None
        The standard error asked for (``target_se``), in the lines' unit; None when a
        number of trials was asked for.
    jacoby, beavers : bool or None
        Money play's Jacoby rule and beavers (None at a match score).
    """

    position: str
    away: tuple[int, int] | None
    crawford: bool
    cube: int
    owner: str
    cube_limit: int | None
    met: str | None
    engine: str
    plies: int
    unit: str
    trials: int
    seed: int
    variance_reduction: bool
    truncate: str | None
    lines: tuple[LineResult, ...]
    differences: tuple[LineDifference, ...]
    decision: CubeDecision | None
    target_se: float | None = None
    jacoby: bool | None = None
    beavers: bool | None = None

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def line(self, name: str) -> LineResult:
        """The line called ``name`` (``"no_double"``, ``"double_take"``).

        Parameters
        ----------
        name : str
            The line.

        Returns
        -------
        LineResult
            Its estimates.
        """
        for ln in self.lines:
            if ln.line == name:
                return ln
        raise InvalidParameterError(
            f"no line {name!r} in this rollout; it has {', '.join(ln.line for ln in self.lines)}"
        )

    @property
    def target_reached(self) -> bool | None:
        """Whether every line's standard error is at most :attr:`target_se` (None
        without a target; False when the trial cap stopped the rollout first)."""
        if self.target_se is None:
            return None
        return all(ln.stderr <= self.target_se for ln in self.lines)

    def as_dict(self) -> JSONObject:
        """The result as JSON types (``mathbg rollout --json``)."""
        return {
            "position": self.position, "away": None if self.away is None else list(self.away),
            "crawford": self.crawford, "cube": self.cube, "owner": self.owner,
            "cube_limit": self.cube_limit, "met": self.met, "engine": self.engine,
            "plies": self.plies, "unit": self.unit, "trials": self.trials, "seed": self.seed,
            "variance_reduction": self.variance_reduction, "truncate": self.truncate,
            "lines": [ln.as_dict() for ln in self.lines],
            "differences": [vars(d).copy() for d in self.differences],
            "decision": None if self.decision is None else self.decision.as_dict(),
            "target_se": self.target_se, "target_reached": self.target_reached,
            "jacoby": self.jacoby, "beavers": self.beavers,
        }  # fmt: skip

    def to_frame(self) -> Any:
        """One row per line (value, errors, chances, cube events, ends; the rollout's
        settings in ``attrs``)."""
        from mathbg._output import flatten, frame

        rows = [flatten(ln.as_dict()) for ln in self.lines]
        attrs: dict[str, Any] = {
            k: v for k, v in self.as_dict().items() if k not in ("lines", "differences")
        }
        return frame(rows, name="RolloutResult", **attrs)


class RolloutRun:
    """One rollout in progress: its options, its store, the trials finished so far.

    Parameters
    ----------
    options : RolloutOptions
        The rollout.
    store : BatchStore or None
        Where finished batches are kept (checked against the rollout's manifest).
    disk_cache : bool
        The exact truncation's solutions kept on disk and reused (see :func:`rollout`).
    """

    def __init__(self, options: RolloutOptions, store: BatchStore | None, *,
                 disk_cache: bool = False) -> None:  # fmt: skip
        self.opts, self.store, self.disk_cache = options, store, bool(disk_cache)
        if store is not None:
            store.check_manifest(options.manifest())
        self.results: dict[int, dict[str, NDArray[Any]]] = {}  # first trial -> arrays
        self.planned = 0
        self.context = options.context()

    def plan(self) -> list[tuple[int, int]]:
        """The next round's batches ``(first, count)`` (none: the rollout is finished)."""
        worst = float("nan")
        if self.planned:
            worst = max(ln.stderr for ln in self.lines())
        more = self.opts.rounds(self.planned, worst)
        size, start = self.opts.batch_size, self.planned
        self.planned += more
        return [(f, min(size, self.planned - f)) for f in range(start, self.planned, size)]

    @staticmethod
    def _name(first: int, count: int) -> tuple[str, list[int], str]:
        what = f"trials {first}..{first + count - 1}"
        return f"trials-{first:09d}-{count:05d}.npz", [first, count], what

    def stored(self, first: int, count: int) -> dict[str, NDArray[Any]] | None:
        """A finished batch from the store, or None."""
        return None if self.store is None else self.store.get(*self._name(first, count))

    def keep(self, first: int, count: int, arrays: dict[str, NDArray[Any]]) -> None:
        """Record a finished batch (and store it)."""
        self.results[first] = arrays
        if self.store is not None:
            name, label, _ = self._name(first, count)
            self.store.put(name, label, arrays)

    def batch(self, first: int, count: int) -> TrialBatch:
        """The work of trials ``first .. first + count - 1``."""
        o = self.opts
        return TrialBatch(o.board, o.made_lines, first, count, int(o.seed), o.made_player,
                          int(o.plies), o.values, o.truncate, bool(o.variance_reduction),
                          EXACT_CHECKERS, self.context, self.disk_cache)  # fmt: skip

    def merged(self) -> dict[str, NDArray[Any]]:
        """Every finished trial's arrays, in trial order."""
        parts = [self.results[k] for k in sorted(self.results)]
        return {f: np.concatenate([p[f] for p in parts]) for f in parts[0]}

    def lines(self) -> tuple[LineResult, ...]:
        """The lines' estimates from the trials finished so far."""
        return line_results(self.merged(), self.opts.made_lines, self.opts.values,
                            self.opts.line_owners)  # fmt: skip

    def result(self) -> RolloutResult:
        """The rollout's result from its finished trials."""
        o, games = self.opts, self.merged()
        lines = line_results(games, o.made_lines, o.values, o.line_owners)
        cube, owner, crawford = o.cube_state
        return RolloutResult(
            o.position_id, o.score, crawford, cube, owner, o.cube_limit,
            o.table.name if o.score is not None else None, o.made_player.label, int(o.plies),
            o.values.unit, int(games["raw"].shape[0]), int(o.seed), bool(o.variance_reduction),
            o.truncate, lines, differences(games, lines), decision(lines, o.values),
            o.target, *o.money_rules,
        )  # fmt: skip


def _execute(jobs: list[TrialBatch], client: Any) -> Iterator[tuple[int, dict[str, NDArray[Any]]]]:
    """Yield ``(job index, arrays)`` as batches finish, locally or on a Dask client."""
    if client is None:
        for i, job in enumerate(jobs):
            yield i, run_trials(job)
        return
    from mathbg._dask import as_finished

    futures = [client.submit(run_trials, job, pure=False) for job in jobs]
    yield from as_finished(client, futures, "rollout")


def _postfix(run: RolloutRun) -> str:
    """The current standard errors, for the progress bar."""
    unit = "pp" if run.opts.values.unit == "mwc" else ""
    scale = 100.0 if unit else 1.0
    parts = [f"{ln.line} SE {scale * ln.stderr:.3f}{unit}" for ln in run.lines()]
    return ", ".join(parts)


def run_rollouts(runs: Sequence[RolloutRun], client: Any = None, bar: Any = None) -> None:
    """Play every run's rounds: each round's batches of all runs at once (from the store
    when there, else played locally or on ``client``), until every run is finished.

    Parameters
    ----------
    runs : sequence of RolloutRun
        The rollouts.
    client : dask.distributed.Client, optional
        Run the batches on this cluster (same bits as without).
    bar : tqdm or None
        A progress bar over the trials (its total grows with each round's plan).

    Examples
    --------
    Two rollouts' rounds played together (:func:`rollout` is one run of this):

    >>> runs = [RolloutRun(RolloutOptions("AwAAWAAAAAAAAA", away=a, trials=36), None)
    ...         for a in ((3, 3), (2, 4))]  # doctest: +SKIP
    >>> run_rollouts(runs)  # doctest: +SKIP
    >>> [r.result().trials for r in runs]  # doctest: +SKIP
    [36, 36]
    """
    while True:
        jobs: list[TrialBatch] = []
        owners: list[RolloutRun] = []
        planned = 0
        for run in runs:
            for first, count in run.plan():
                planned += count
                got = run.stored(first, count)
                if got is not None:
                    run.results[first] = got
                    continue
                jobs.append(run.batch(first, count))
                owners.append(run)
        if not planned:
            return
        if bar is not None:
            bar.total = (bar.total or 0) + sum(j.count for j in jobs)
            bar.refresh()
        for i, arrays in _execute(jobs, client):
            owners[i].keep(jobs[i].first, jobs[i].count, arrays)
            if bar is not None:
                bar.update(jobs[i].count)
                if len(runs) == 1:
                    bar.set_postfix_str(_postfix(runs[0]), refresh=False)


def progress_bar(desc: str) -> Any:
    """A tqdm bar over trials (its total set as the rounds are planned)."""
    from tqdm.auto import tqdm

    return tqdm(total=0, desc=desc, unit="trial", leave=False)


def rollout(
    position: Any,
    *,
    client: Any = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = True,
    disk_cache: bool = False,
    **options: Any,
) -> RolloutResult:
    """A cubeful rollout of a position at a match score (or money), every line on the
    same dice.

    Parameters
    ----------
    position : Position, str or RolloutOptions
        The position (the player on roll before rolling: gnubg Position ID,
        ``POSID:MATCHID``, XGID), with the options as keywords; or all the options.
    client : dask.distributed.Client, optional
        Play the batches on this cluster (the same bits as without).
    store : str or path, optional
        Directory or URL (fsspec: ``pip install 'mathbg[dask]'``) for finished batches: a
        killed run resumes from it to the bits of an uninterrupted one, and a longer run
        of the same rollout reuses them. A damaged or foreign store is refused.
    progress : bool
        A tqdm bar over the trials with the current standard errors.
    disk_cache : bool
        Keep the exact truncation's solutions of the score (one for each side on roll,
        6 x 6 checkers: about 68 MB each at 3-away/5-away) in the cache directory
        (``MATHBG_DATA`` overrides it) and read them in later runs instead of solving
        them again (about 0.25 s each against 0.8 s; ``mathbg rollout`` does). The
        numbers are the same bits either way.
    **options
        The fields of :class:`RolloutOptions`: ``away``, ``cube``, ``owner``,
        ``crawford``, ``cube_limit``, ``met``, ``engine``, ``plies``, ``trials``,
        ``target_se``, ``seed``, ``variance_reduction``, ``truncate``, ``lines``,
        ``batch_size``.

    Returns
    -------
    RolloutResult
        Each line's cubeful value (MWC, EMG) and cubeless chances with their standard
        errors, cube events and ends; the differences between the lines with the
        standard error of the difference; the cube decision.

    Raises
    ------
    MathbgError
        For bad input (:class:`RolloutOptions`), before any trial; a damaged or foreign
        store (:class:`~mathbg.analysis.batchstore.StoreMismatchError`,
        :class:`~mathbg.errors.DatabaseCorruptError`).

    Examples
    --------
    A bearoff inside the exact solver: every trial ends at once with the exact value of
    its line (standard error 0; the checker player needs ``pip install 'mathbg[engine]'``).

    >>> res = rollout("AwAAWAAAAAAAAA", away=(3, 3), trials=36, progress=False)  # doctest: +SKIP
    >>> res.lines[0].ends.exact, res.lines[0].stderr < 1e-12  # doctest: +SKIP
    (1.0, True)

    Bad input is refused before any trial:

    >>> rollout("AwAAWAAAAAAAAA", away=(3, 3), trials=0)
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: trials must lie in 1..3600000, got 0
    """
    opts = options_or_keywords(position, options, RolloutOptions, "options")
    st = BatchStore(store, "rollout") if store is not None else None
    run = RolloutRun(opts, st, disk_cache=disk_cache)
    bar = progress_bar("rollout") if progress else None
    try:
        run_rollouts([run], client, bar)
    finally:
        if bar is not None:
            bar.close()
    return run.result()
