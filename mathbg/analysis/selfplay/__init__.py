"""A match equity table from first principles: self-play at every score, with error bars.

:func:`selfplay_met` builds a MET the way the published tables were made (Rockwell-
Kazaross, Kazaross-XG2: games played out at each score by a strong bot), automated and
reproducible, each entry with its standard error.

The wing, bottom to top: :mod:`~mathbg.analysis.selfplay.table` (the entries, the table
built so far, the value after a game, the cube decisions under the table),
:mod:`~mathbg.analysis.selfplay.players` (who plays: any engine of the registry with the
``play`` capability), :mod:`~mathbg.analysis.selfplay.batch` (one batch of games: the
unit of work), :mod:`~mathbg.analysis.selfplay.exact` (the exact engine's games),
:mod:`~mathbg.analysis.selfplay.games` (the game loop of board players),
:mod:`~mathbg.analysis.selfplay.store` (finished batches, for resuming),
:mod:`~mathbg.analysis.selfplay.estimates` (the estimates and their errors),
:mod:`~mathbg.analysis.selfplay.driver` (the options and the build) and
:mod:`~mathbg.analysis.selfplay.review` (a measured table beside a published one).

Method
------
- Entries are played in increasing order of ``a + b`` (``a``, ``b`` the away scores). The
  MWC of a score is the mean, over games played from the opening (a non-double opening
  roll, cube centred; or from ``start``), of the table's value at the score after the
  game; every later score reads the table built so far. The Crawford game has no cube;
  post-Crawford the trailer doubles when the cube theory says so (the free drop is in
  the table the theory reads); ``M(b, a) = 1 - M(a, b)`` and ``M(a, a) = 1/2`` for equal
  players (exact: NaN standard error).
- Checker play by the players the engine registry makes (``gnubg-nn`` at ``plies``,
  optionally noisy; any engine registered with the ``play`` capability). Cube decisions of
  board players come from their cubeless chances through mathbg's 0-ply cubeless ->
  cubeful step (:func:`mathbg.cube.cubeful.cubeful_mwc`, gnubg's ``Cl2CfMatch``, cube life
  by position class as gnubg's ``EvalEfficiency``) under the table built so far: double
  when ``DT >= ND`` and ``DP >= ND`` (gnubg's ``FindBestCubeDecision``), take when ``DT <
  DP``. The ``exact`` engine takes both checker play and cube decisions from the exact
  match bearoff solver (:func:`mathbg.bearoff.exact.match.solve_game`) under that table.
  Doubles follow gnubg's access rules (:func:`mathbg.rules.match.may_double`) and the cube
  limit.
- Variance reduction: stratified first rolls. Each batch plays the 30 (first roller,
  non-double opening roll) pairs (72 (first roller, first roll) pairs from ``start``) in
  equal numbers; the estimate is the mean of the stratum means and its standard error the
  stratified one, ``SE^2 = sum_h s_h^2 / n_h / H^2``. The benchmark reports the measured
  gain against the plain standard error (small from the opening: about 1.00; larger from a
  bearoff start, where the first roll decides more). Each entry's standard error adds, to
  first order, the errors of the entries its games reach, weighted by how often they are
  reached (the dependence of the cube decisions on the table is left out).
- Reproducibility: one batch of games of one score is one task, its dice drawn from
  ``numpy.random.SeedSequence(seed, spawn_key=(kind, a, b, batch))`` (kind 0 normal,
  1 Crawford, 2 post-Crawford); a batch depends only on its key and the entries of lower
  ``a + b``, so one process, a Dask LocalCluster and a remote cluster give the same bits,
  and a run resumed from its store gives the bits of an uninterrupted one.

The function lives here, in the analysis layer, not in :mod:`mathbg.met` (which sits
below the engines and the cube theory it needs); it returns a :class:`mathbg.met.MET`.

References
----------
- J. Kazaross, "XG2 match equity table" (2010): rollouts of every score with a bot.
- GNU Backgammon eval.c (``Cl2CfMatch``, ``EvalEfficiency``, ``FindBestCubeDecision``).
- W. G. Cochran, *Sampling Techniques* (1977), ch. 5: stratified sampling.
"""

from __future__ import annotations

from mathbg.analysis.selfplay.driver import (
    BATCH_SIZE,
    MAX_GAMES,
    MAX_LENGTH,
    SelfPlayOptions,
    selfplay_met,
)
from mathbg.analysis.selfplay.estimates import (
    CubeLifeFit,
    CubeShare,
    EntryStats,
    ScoreRow,
    entry_stats,
    fit_cube_life,
    plan_batches,
)
from mathbg.analysis.selfplay.players import PlayerSpec
from mathbg.analysis.selfplay.review import suspect_reads
from mathbg.analysis.selfplay.store import SelfPlayStore, StoreMismatchError
from mathbg.analysis.selfplay.table import Entry

__all__ = [
    "BATCH_SIZE",
    "MAX_GAMES",
    "MAX_LENGTH",
    "CubeLifeFit",
    "CubeShare",
    "Entry",
    "EntryStats",
    "PlayerSpec",
    "ScoreRow",
    "SelfPlayOptions",
    "SelfPlayStore",
    "StoreMismatchError",
    "entry_stats",
    "fit_cube_life",
    "plan_batches",
    "selfplay_met",
    "suspect_reads",
]
