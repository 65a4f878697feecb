"""One position rolled out at every score of a match, beside the 0-ply score matrix.

:func:`rollout_matrix` rolls the position out (cube 1, centred) at every score where the
player on roll may double: ``a``-away (2..N) against ``b``-away (1..N; 1-away is
post-Crawford). The Crawford game and the scores where the player needs one point have no
cube decision to settle and are left out. Each score's rollout sits beside the row of
:func:`mathbg.analysis.analyze` (the engine's chances at 0 ply through the cube theory)
with both actions and whether they differ: the scores where the formula's verdict does
not survive a rollout. All the scores' batches are played together (one Dask submission
a round); a store keeps each score's trials in its own directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from mathbg._output import JSONObject
from mathbg.analysis.batchstore import BatchStore
from mathbg.analysis.rollouts.driver import (
    RolloutResult,
    RolloutRun,
    progress_bar,
    run_rollouts,
)
from mathbg.analysis.rollouts.options import RolloutOptions
from mathbg.cube.decisions import CubeAction
from mathbg.errors import InvalidParameterError, InvalidScoreError

__all__ = ["RolloutMatrix", "ScoreRollout", "matrix_scores", "rollout_matrix"]

#: Longest match :func:`rollout_matrix` rolls out (N - 1 x N rollouts).
MAX_LENGTH = 25


def matrix_scores(length: int) -> list[tuple[int, int]]:
    """The scores of the rollout matrix: the player ``a``-away (2..N) against ``b``-away
    (1..N).

    Parameters
    ----------
    length : int
        The match length N.

    Returns
    -------
    list of (int, int)
        ``(a, b)`` in row order.

    Examples
    --------
    >>> matrix_scores(2)
    [(2, 1), (2, 2)]
    """
    return [(a, b) for a in range(2, length + 1) for b in range(1, length + 1)]


@dataclass(frozen=True)
class ScoreRollout:
    """One score of the rollout matrix beside the 0-ply matrix's row.

    Attributes
    ----------
    away : (int, int)
        The score (1-away: post-Crawford).
    rollout : RolloutResult
        The rollout at that score (cube 1, centred).
    zero_ply_action : CubeAction
        The 0-ply matrix's action.
    zero_ply : (float, float, float)
        Its ND, DT and DP (MWC).
    """

    away: tuple[int, int]
    rollout: RolloutResult
    zero_ply_action: CubeAction
    zero_ply: tuple[float, float, float]

    @property
    def action(self) -> CubeAction:
        """The rollout's action."""
        assert self.rollout.decision is not None
        return self.rollout.decision.action

    @property
    def differs(self) -> bool:
        """The rollout's action is not the 0-ply one."""
        return self.action != self.zero_ply_action

    def as_dict(self) -> JSONObject:
        """The row as JSON types: the score, both actions, both sets of values, the
        rollout's standard errors (of DT - ND: paired) and trials."""
        r = self.rollout
        dec = r.decision
        assert dec is not None
        nd, dt = r.line("no_double"), r.line("double_take")
        diff = r.differences[0]
        return {
            "away": self.away[0], "opp_away": self.away[1], "state": "post-crawford"
            if 1 in self.away else "normal", "crawford": False, "cube": 1, "owner": "centre",
            "action": str(dec.action), "no_double": dec.no_double,
            "double_take": dec.double_take, "double_pass": dec.double_pass,
            "optimal": dec.optimal, "no_double_stderr": nd.stderr,
            "double_take_stderr": dt.stderr, "dt_minus_nd": diff.value,
            "dt_minus_nd_stderr": diff.stderr,
            "take_margin": float((dec.double_pass or 0.0) - (dec.double_take or 0.0)),
            "zero_ply_action": str(self.zero_ply_action),
            "zero_ply_no_double": self.zero_ply[0], "zero_ply_double_take": self.zero_ply[1],
            "zero_ply_double_pass": self.zero_ply[2], "differs": self.differs,
            "trials": r.trials, "target_reached": r.target_reached,
        }  # fmt: skip


@dataclass(frozen=True)
class RolloutMatrix:
    """A position rolled out at every score of a match (:func:`rollout_matrix`).

    Attributes
    ----------
    position : str
        The gnubg Position ID.
    length : int
        The match length.
    met, engine : str
        The table and the checker player.
    plies, trials : int
        The player's plies and the trials per score (with a target standard error each
        score stops at its own count: the largest here, each row's in its rollout).
    rows : tuple of ScoreRollout
        One per score (:func:`matrix_scores` order).
    """

    position: str
    length: int
    met: str
    engine: str
    plies: int
    trials: int
    rows: tuple[ScoreRollout, ...]

    def differences(self) -> list[ScoreRollout]:
        """The scores where the rollout's action is not the 0-ply one."""
        return [r for r in self.rows if r.differs]

    @property
    def target_se(self) -> float | None:
        """The standard error every score's rollout was asked to reach (None: a number of
        trials was asked for)."""
        return self.rows[0].rollout.target_se if self.rows else None

    def short_of_target(self) -> list[ScoreRollout]:
        """The scores whose rollout stopped at the trial cap before the target SE."""
        return [r for r in self.rows if r.rollout.target_reached is False]

    def as_dict(self) -> JSONObject:
        """The matrix as JSON types (``mathbg rollout --matrix --json``)."""
        return {"position": self.position, "length": self.length, "met": self.met,
                "engine": self.engine, "plies": self.plies, "trials": self.trials,
                "target_se": self.target_se,
                "rows": [r.as_dict() for r in self.rows]}  # fmt: skip

    def to_frame(self) -> Any:
        """One row per score (the columns of :meth:`ScoreRollout.as_dict`; ``plots``'
        :func:`~mathbg.plots.rollout_grid` draws it)."""
        from mathbg._output import frame

        attrs: dict[str, Any] = {k: v for k, v in self.as_dict().items() if k != "rows"}
        return frame([r.as_dict() for r in self.rows], name="RolloutMatrix", **attrs)


def _zero_ply(position: Any, length: int, opts: RolloutOptions) -> dict[tuple[int, int], Any]:
    """The 0-ply matrix's rows (cube 1 centred, not Crawford) by score."""
    from mathbg.analysis.matrix import MatrixOptions, analyze
    from mathbg.analysis.registry import engine_spec

    engine = opts.engine if "evaluate" in engine_spec(opts.engine).capabilities else "auto"
    plies = opts.plies if engine != "auto" else None
    result = analyze(position, MatrixOptions(length=length, engine=engine, plies=plies,
                                             met=opts.table, exact=False))  # fmt: skip
    return {r.away: r for r in result.rows
            if r.away is not None and not r.crawford and r.cube == 1 and r.owner == "centre"}


def rollout_matrix(
    position: Any,
    length: int,
    *,
    client: Any = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = True,
    disk_cache: bool = False,
    **options: Any,
) -> RolloutMatrix:
    """Roll a position out at every score of a match, beside the 0-ply matrix.

    Parameters
    ----------
    position : Position or str
        The position (the player on roll, before rolling).
    length : int
        The match length N (2..25): scores ``a``-away 2..N against ``b``-away 1..N.
    client : dask.distributed.Client, optional
        Play the batches on this cluster (the same bits as without).
    store : str or path, optional
        Keep each score's finished batches in ``store/AAA-BBB`` (resume).
    progress : bool
        A tqdm bar over all the trials.
    disk_cache : bool
        Keep each score's exact truncation solutions on disk and reuse them (as
        :func:`~mathbg.analysis.rollouts.rollout`).
    **options
        The options of :class:`~mathbg.analysis.rollouts.RolloutOptions` but the score
        and cube (``met``, ``engine``, ``plies``, ``trials``, ``target_se``, ``seed``,
        ``variance_reduction``, ``truncate``, ``cube_limit``, ``batch_size``).

    Returns
    -------
    RolloutMatrix
        One :class:`ScoreRollout` per score.

    Raises
    ------
    InvalidScoreError
        For a length out of range or beyond the table.
    InvalidParameterError
        For a score or cube option (the matrix sets them) or any bad option.

    Examples
    --------
    >>> rollout_matrix("4HPwATDgc/ABMA", 1)
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidScoreError: the rollout matrix is for match lengths 2..25, got 1
    """
    if isinstance(length, bool) or not isinstance(length, int) or not 2 <= length <= MAX_LENGTH:
        raise InvalidScoreError(f"the rollout matrix is for match lengths 2..{MAX_LENGTH}, "
                                f"got {length!r}")  # fmt: skip
    fixed = {"away", "cube", "owner", "crawford", "lines"} & set(options)
    if fixed:
        raise InvalidParameterError(
            f"the rollout matrix sets the score and cube itself: drop {', '.join(sorted(fixed))}"
        )
    scores = matrix_scores(length)
    every = [RolloutOptions(position, away=s, cube=1, owner="centre", crawford=False,
                            **options) for s in scores]  # fmt: skip
    zero = _zero_ply(position, length, every[0])
    runs = [RolloutRun(o, None if store is None else
                       BatchStore(f"{os.fspath(store)}/{a:03d}-{b:03d}", "rollout"),
                       disk_cache=disk_cache)
            for o, (a, b) in zip(every, scores, strict=True)]  # fmt: skip
    bar = progress_bar(f"rollout matrix to {length}") if progress else None
    try:
        run_rollouts(runs, client, bar)
    finally:
        if bar is not None:
            bar.close()
    rows = []
    for s, run in zip(scores, runs, strict=True):
        z = zero[s]
        rows.append(ScoreRollout(s, run.result(), z.action,
                                 (z.no_double, z.double_take, z.double_pass)))  # fmt: skip
    first = rows[0].rollout
    return RolloutMatrix(first.position, length, str(first.met), first.engine, first.plies,
                         max(r.rollout.trials for r in rows), tuple(rows))  # fmt: skip
