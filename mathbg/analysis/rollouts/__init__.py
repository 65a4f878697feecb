"""Cubeful rollouts at a match score: the reference answer to "is this a take?".

:func:`rollout` plays a position out many times (trials) with cube play at the score for
both sides, and reports each line's cubeful value (no double, double/take) with its
standard error, the difference between the lines with the standard error of the
difference (the lines are played on the same dice), the cube decision they make, the
cubeless chances and the cube events. :func:`rollout_matrix` does it at every score of a
match, beside the 0-ply matrix of :func:`mathbg.analysis.analyze`.

The wing, bottom to top: :mod:`~mathbg.analysis.rollouts.values` (what a game is worth at
the score: MWC through the MET, or money), :mod:`~mathbg.analysis.rollouts.ends` (where a
trial stops early: the exact bearoff solver, the race evaluator),
:mod:`~mathbg.analysis.rollouts.trials` (one batch of trials, the game loop, the dice
rotation, the lookahead), :mod:`~mathbg.analysis.rollouts.result` (the estimates and the
typed results), :mod:`~mathbg.analysis.rollouts.options` (the checked parameters),
:mod:`~mathbg.analysis.rollouts.driver` (batches locally or on Dask, the store, the
progress bar) and :mod:`~mathbg.analysis.rollouts.matrix` (every score of a match).

Method
------
- Cube play inside the trials: the side on roll with access to the cube (gnubg's rules:
  :func:`mathbg.rules.match.may_double`, the Crawford game, a dead cube, the cube limit)
  doubles when ``DT >= ND`` and ``DP >= ND`` and the other side takes when ``DT < DP``,
  from the engine's cubeless chances through mathbg's 0-ply cubeless -> cubeful step at
  the score (:func:`mathbg.cube.cubeful.cubeful_mwc`, gnubg's ``Cl2CfMatch``; money:
  Janowski, ``Cl2CfMoney``), the cube life by position class as gnubg's. The line fixes
  the first decision.
- Checker play: the engine's candidate plays at its plies, the one with the largest
  cubeless value at the score (the gammon values of the score and cube) played.
- Variance reduction (gnubg's lookahead): before each roll the 0-ply play for each of the
  21 rolls is found and the position after it valued at 0 ply by the cube theory, in MWC
  at the score; the trial's result less the sum of the luck of its rolls (value of the
  roll thrown less the mean over the 21) estimates the same value with a smaller spread.
- Stratified first rolls: every block of 36 trials throws each of the 36 ordered rolls
  once first and once second (gnubg's dice rotation); later rolls from each trial's own
  ``SeedSequence``: a trial depends only on its number, so batches, Dask and a resumed
  run give the same bits.
- Truncation: a trial that reaches a bearoff inside the exact match-play solver (6 x 6:
  :func:`mathbg.bearoff.exact.match.solve_score`) ends with the exact cubeful value at the
  score and cube state; optionally a race ends at the race evaluator.

Differences from gnubg 1.07's rollouts: the cube decisions inside the trials are mathbg's
0-ply step on the engine's cubeless chances at its plies (gnubg evaluates the cube at the
cube-decision plies); the checker play ranks by cubeless value at the score's gammon
values (gnubg by its cubeful evaluation); the lookahead plays and values at 0 ply at every
depth (gnubg values at ``plies - 1``); gnubg never truncates a match rollout at its
bearoff databases and reports no standard error of the difference.

References
----------
- GNU Backgammon 1.07 rollout.c (``BasicCubefulRollout``: the lookahead, ``RolloutDice``:
  the dice rotation), eval.c (``Cl2CfMatch``, ``FindBestCubeDecision``).
- W. G. Cochran, *Sampling Techniques* (1977), ch. 5: stratified sampling.
"""

from __future__ import annotations

from mathbg.analysis.rollouts.driver import RolloutResult, rollout
from mathbg.analysis.rollouts.matrix import RolloutMatrix, ScoreRollout, rollout_matrix
from mathbg.analysis.rollouts.options import (
    DEFAULT_TRIALS,
    LINES,
    MAX_TRIALS,
    STRATA,
    TRUNCATIONS,
    RolloutOptions,
)
from mathbg.analysis.rollouts.result import CubeEvents, LineDifference, LineResult, TrialEnds

__all__ = [
    "DEFAULT_TRIALS",
    "LINES",
    "MAX_TRIALS",
    "STRATA",
    "TRUNCATIONS",
    "CubeEvents",
    "LineDifference",
    "LineResult",
    "RolloutMatrix",
    "RolloutOptions",
    "RolloutResult",
    "ScoreRollout",
    "TrialEnds",
    "rollout",
    "rollout_matrix",
]
