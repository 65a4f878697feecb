"""One batch of rollout trials: every line of each trial played on the same dice, in lockstep.

A trial is one game from the rolled-out position, played once per line (no double: the
position's cube; double/take: the cube doubled and owned by the opponent) on the same
dice, so the lines' difference has the small error of a paired comparison.

Dice. The first two rolls of trial ``i`` rotate as gnubg's dice rotation does: three
permutations of the 36 ordered rolls drawn from the seed (``p0``, ``q0``, ``q1``) give the
first roll ``p0[i mod 36]`` and the second ``q1[(i div 36 + q0[i mod 36]) mod 36]``, so
every block of 36 trials throws each of the 36 rolls once as first roll and once as
second roll, and 1296 trials throw every pair of first and second roll once. Later dice
come from ``numpy.random.SeedSequence(seed, spawn_key=(0, i))``: a trial depends only on
its number, so any batching, Dask and a resumed run give the same bits.

Each turn of each game: the truncation check (:mod:`mathbg.analysis.rollouts.ends`), the
cube decision of the side on roll when it has access (not before the first roll: the line
fixed that one), then the roll and the play. The play is the engine's candidate with the
largest cubeless value at the score (the score's gammon values: :meth:`ScoreValues.
play_weights`). With variance reduction (gnubg's lookahead), the 0-ply play for each of
the 21 rolls is found and the position after it valued at 0 ply (the next side's cubeful
value at the score, by the cube theory, as gnubg's ``GeneralEvaluationE``); the luck of the
roll thrown, its value minus the dice-weighted mean over the 21, is subtracted from the
trial's result (and likewise for the cubeless chances): an estimator of the same mean (the
luck has mean zero given the position) with a much smaller spread. Candidates are shared
between the lines of a turn (the same board and roll: one engine call).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import Board, Candidates, GameEnd, Player, clip_chances
from mathbg.analysis.rollouts.ends import ExactEnd, RaceEnd
from mathbg.analysis.rollouts.values import ScoreValues
from mathbg.rules.dice import ROLL_INDEX, ROLLS, WEIGHTS

__all__ = ["EXACT", "PASSED", "PLAYED", "RACE", "Line", "TrialBatch", "first_rolls",
           "run_trials"]  # fmt: skip

_WEIGHTS = np.array(WEIGHTS, dtype=np.float64) / 36.0
#: How a trial's game ended (the ``end`` array): played out, passed, exact, race.
PLAYED, PASSED, EXACT, RACE = 0, 1, 2, 3
_CACHE_MAX = 100_000
Pick = tuple[Callable[[Any], Board | GameEnd], Any]


@dataclass(frozen=True)
class Line:
    """One line of a rollout: its name and the cube state the side on roll plays with."""

    name: str
    cube: int
    owner: int  # -1 centre, 0 the side on roll, 1 the opponent


@dataclass(frozen=True)
class TrialBatch:
    """Everything a batch of trials needs (picklable, small).

    Attributes
    ----------
    board : Board
        The rolled-out position (side 0 on roll).
    lines : tuple of Line
        The lines, each played on every trial's dice.
    first, count : int
        The batch's trial numbers ``first .. first + count - 1``.
    seed : int
        The rollout's seed.
    player : Player
        The checker player (and the chances of the cube decisions).
    plies : int
        The player's plies (0: the lookahead's 0-ply plays are the plays).
    values : ScoreValues
        The score.
    truncate : str or None
        ``"exact"``, ``"race"`` or None.
    variance_reduction : bool
        Subtract the luck of every roll.
    checkers : int
        The exact truncation's space (6 x ``checkers``).
    context : str
        What makes two batches' positions worth the same (the lookahead cache's key).
    disk_cache : bool
        The exact truncation keeps each score's solution on disk and reuses it (the
        ``disk_cache`` of :func:`mathbg.bearoff.exact.match.solve_score`); the bits are
        the same either way.
    """

    board: Board
    lines: tuple[Line, ...]
    first: int
    count: int
    seed: int
    player: Player
    plies: int
    values: ScoreValues
    truncate: str | None
    variance_reduction: bool
    checkers: int
    context: str
    disk_cache: bool = False


@lru_cache(maxsize=8)
def _rotation(seed: int) -> NDArray[np.int64]:
    """The three permutations of the 36 ordered rolls of the dice rotation."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    return np.array([rng.permutation(36) for _ in range(3)], dtype=np.int64)


def first_rolls(trial: int, seed: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Trial ``trial``'s first two rolls (the dice rotation, see the module docs).

    Parameters
    ----------
    trial : int
        The trial's number.
    seed : int
        The rollout's seed.

    Returns
    -------
    ((int, int), (int, int))
        The first and the second roll, each as thrown (first die, second die).

    Examples
    --------
    Every block of 36 trials throws each ordered roll once first and once second:

    >>> pairs = [first_rolls(i, 0) for i in range(36)]
    >>> len({a for a, _ in pairs}), len({b for _, b in pairs})
    (36, 36)
    >>> len({first_rolls(i, 0) for i in range(1296)})
    1296
    """
    p0, q0, q1 = _rotation(int(seed))
    i = int(trial)
    j1 = int(p0[i % 36])
    j2 = int(q1[(i // 36 + int(q0[i % 36])) % 36])
    return (j1 // 6 + 1, j1 % 6 + 1), (j2 // 6 + 1, j2 % 6 + 1)


def _best(cands: Candidates, weights: NDArray[np.float64]) -> int:
    """The candidate with the largest value at the score (a NaN chance never wins)."""
    scores = cands.chances @ weights
    i = int(np.argmax(scores))
    if scores[i] != scores[i]:
        i = int(np.argmax(np.where(np.isnan(scores), -np.inf, scores)))
    return i


def _mover_view(chances: NDArray[np.float64]) -> NDArray[np.float64]:
    """Chances of the side that moved from the next side's (rows of W, WG, WB, LG, LB)."""
    out = chances[..., [0, 3, 4, 1, 2]].copy()
    out[..., 0] = 1.0 - chances[..., 0]
    return out


#: The lookahead of (context, board, side, cube, owner): the 21 values and chances (the
#: mover's), their means and the 0-ply plays. Per process, bounded.
_LOOKAHEAD: OrderedDict[Any, tuple[NDArray[np.float64], NDArray[np.float64], list[Pick]]] = (
    OrderedDict()
)


def run_trials(batch: TrialBatch) -> dict[str, NDArray[Any]]:
    """Play one batch of trials; per-trial arrays, shaped (count, lines).

    Parameters
    ----------
    batch : TrialBatch
        The position, its lines and the trial numbers ``first .. first + count - 1`` to
        play, with the seed, the player and the score's values.

    Returns
    -------
    dict of str to ndarray
        ``raw`` (side 0's result), ``luck`` (side 0's luck, summed over the rolls; 0
        without variance reduction), ``chances`` and ``chances_luck`` (side 0's cubeless
        W, WG, WB, LG, LB at the end: 0/1 for a game played out, the evaluation at a pass
        or a truncation; shape (count, lines, 5)), ``doubled``, ``taken``, ``passed`` (by
        each side, shape (count, lines, 2)), ``cube`` (final), ``turns``, ``end``
        (:data:`PLAYED`, :data:`PASSED`, :data:`EXACT`, :data:`RACE`).

    Examples
    --------
    A bearoff inside the exact solver ends at once with the exact value:

    >>> from mathbg.analysis.rollouts.values import MatchValues
    >>> from mathbg.met import load
    >>> board = ((0, 0, 0, 0, 0, 1) + (0,) * 19, (1,) + (0,) * 24)
    >>> batch = TrialBatch(board, (Line("no_double", 1, -1),), 0, 36, 0, None, 0,
    ...                    MatchValues(load("kazaross-xg2"), (3, 3), False, 1, None),
    ...                    "exact", True, 6, "doctest")
    >>> games = run_trials(batch)
    >>> games["raw"].shape, bool((games["end"] == 2).all())
    ((36, 1), True)
    """
    from mathbg.analysis.net.engine import NativePlayer

    if isinstance(batch.player, NativePlayer) and not batch.plies:
        return _NativeTrials(batch).run()
    return _Trials(batch).run()


class _Trials:
    """A batch in progress: one entry per game (trial x line)."""

    def __init__(self, batch: TrialBatch) -> None:
        self.b = batch
        nl = len(batch.lines)
        n = self.n = batch.count * nl
        self.trial = np.repeat(np.arange(batch.count), nl)
        board = tuple(tuple(int(v) for v in row) for row in batch.board)
        self.boards: list[Board] = [board] * n
        self.side = np.zeros(n, dtype=np.int64)
        self.cube = np.array([ln.cube for ln in batch.lines] * batch.count, dtype=np.int64)
        self.owner = np.array([ln.owner for ln in batch.lines] * batch.count, dtype=np.int64)
        self.active = np.ones(n, dtype=bool)
        i64 = np.int64
        self.out: dict[str, NDArray[Any]] = {
            "raw": np.zeros(n), "luck": np.zeros(n), "chances": np.zeros((n, 5)),
            "chances_luck": np.zeros((n, 5)), "doubled": np.zeros((n, 2), dtype=i64),
            "taken": np.zeros((n, 2), dtype=i64), "passed": np.zeros((n, 2), dtype=i64),
            "cube": np.zeros(n, dtype=i64), "turns": np.zeros(n, dtype=i64),
            "end": np.zeros(n, dtype=i64),
        }  # fmt: skip
        self.dice: dict[int, NDArray[np.int64]] = {}
        self.rngs: dict[int, np.random.Generator] = {}
        self.exact = (ExactEnd(batch.values, batch.checkers, disk_cache=batch.disk_cache)
                      if batch.truncate == "exact" else None)  # fmt: skip
        self.race = RaceEnd(batch.values) if batch.truncate == "race" else None
        self.weights: dict[tuple[int, int, int], NDArray[np.float64]] = {}
        self.cands: dict[Any, Candidates] = {}  # this turn's (board, roll, plies)

    def run(self) -> dict[str, NDArray[Any]]:
        turn = 0
        while self.active.any():
            self.truncate(turn)
            if turn > 0:
                self.cube_turn()
            self.roll_turn(turn)
            turn += 1
        nl = len(self.b.lines)
        return {k: v.reshape(self.b.count, nl, *v.shape[1:]) for k, v in self.out.items()}

    def roll(self, g: int, turn: int) -> tuple[int, int]:
        """Game ``g``'s roll at ``turn`` (the first two rotate, the rest are its trial's)."""
        i = self.b.first + int(self.trial[g])
        if turn < 2:
            return first_rolls(i, self.b.seed)[turn]
        if i not in self.rngs:
            seq = np.random.SeedSequence(self.b.seed, spawn_key=(0, i))
            self.rngs[i] = np.random.default_rng(seq)
            self.dice[i] = self.rngs[i].integers(1, 7, size=(64, 2))
        while turn - 2 >= len(self.dice[i]):
            self.dice[i] = np.vstack([self.dice[i], self.rngs[i].integers(1, 7, size=(64, 2))])
        d = self.dice[i][turn - 2]
        return int(d[0]), int(d[1])

    def finish(self, g: int, value: float, chances: Any, end: int) -> None:
        """Game ``g`` ends with the side on roll's ``value`` and cubeless ``chances``."""
        side = self.side[g : g + 1]
        self.out["raw"][g] = float(self.b.values.of_player(np.array([value]), side)[0])
        ch = np.asarray(chances, dtype=np.float64)
        self.out["chances"][g] = ch if side[0] == 0 else _mover_view(ch)
        self.out["cube"][g] = self.cube[g]
        self.out["end"][g] = end
        self.active[g] = False

    def may(self, games: NDArray[np.int64]) -> NDArray[np.bool_]:
        return self.b.values.may_double(self.side[games], self.cube[games], self.owner[games])

    def truncate(self, turn: int) -> None:
        """End the games whose position the exact solver or the race evaluator covers."""
        live = np.flatnonzero(self.active)
        if self.exact is not None:
            may = self.may(live) & (turn > 0)
            for g, m in zip(live.tolist(), may.tolist(), strict=True):
                if self.exact.covers(self.boards[g]):
                    val, p = self.exact.value(self.boards[g], int(self.side[g]), int(self.cube[g]),
                                              int(self.owner[g]), m)  # fmt: skip
                    self.finish(g, val, (p, 0.0, 0.0, 0.0, 0.0), EXACT)
        if self.race is not None:
            ended = [g for g in live.tolist() if self.race.covers(self.boards[g])]
            if ended:
                self.end_races(np.array(ended, dtype=np.int64), turn)

    def board_of(self, g: int) -> Board:
        """Game ``g``'s board."""
        return self.boards[g]

    def end_races(self, games: NDArray[np.int64], turn: int) -> None:
        assert self.race is not None
        probs = np.array([self.race.chances(self.board_of(g)) for g in games.tolist()])
        x = np.array([self.race.cube_life(self.board_of(g)) for g in games.tolist()])
        v = self.b.values
        nd, dt, dp = v.decisions(probs, x, self.side[games], self.cube[games], self.owner[games])
        may = self.may(games) & (turn > 0)
        best = np.where(may, v.optimal(nd, dt, dp), nd)
        for k, g in enumerate(games.tolist()):
            self.finish(g, float(best[k]), probs[k], RACE)

    def cube_turn(self) -> None:
        """The cube decisions of the sides on roll with access to the cube."""
        live = np.flatnonzero(self.active)
        asking = live[self.may(live)]
        if not len(asking):
            return
        probs, x = self.cube_inputs(asking)
        side = self.side[asking]
        nd, dt, dp = self.b.values.decisions(probs, x, side, self.cube[asking], self.owner[asking])
        doubles = self.b.values.doubles(nd, dt, dp)
        takes = dt < dp  # a beaver too: gnubg's rollouts take it (the cube doubled once)
        for k in np.flatnonzero(doubles).tolist():
            g, s = int(asking[k]), int(side[k])
            self.out["doubled"][g, s] += 1
            if takes[k]:
                self.out["taken"][g, 1 - s] += 1
                self.cube[g] *= 2
                self.owner[g] = 1 - s
            else:
                self.out["passed"][g, 1 - s] += 1
                self.finish(g, float(dp[k]), probs[k], PASSED)

    def cube_inputs(self, games: NDArray[np.int64]) -> tuple[NDArray[np.float64],
                                                              NDArray[np.float64]]:  # fmt: skip
        """The cubeless chances and cube lives that the cube decisions of ``games`` read
        (the player's 0-ply view of each board)."""
        player = self.b.player
        probs = np.array([player.chances(self.boards[g]) for g in games.tolist()])
        x = np.array([player.cube_life(self.boards[g]) for g in games.tolist()])
        return probs, x

    def candidates(self, board: Board, d1: int, d2: int, plies: int) -> Candidates:
        """The player's candidates, once a turn for each board, roll and plies."""
        key = (board, d1, d2, plies)
        found = self.cands.get(key)
        if found is None:
            found = self.cands[key] = self.b.player.candidates(board, d1, d2, plies)
        return found

    def roll_turn(self, turn: int) -> None:
        """Every live game's roll (its luck measured) and play."""
        self.cands.clear()
        live = np.flatnonzero(self.active)
        rolls = [self.roll(g, turn) for g in live.tolist()]
        picks: dict[int, Pick] = {}
        if self.b.variance_reduction:
            picks = self.lookahead(live, rolls)
        for g, (d1, d2) in zip(live.tolist(), rolls, strict=True):
            self.out["turns"][g] += 1
            if g in picks and not self.b.plies:
                after_of, key = picks[g]
            else:  # deeper than the lookahead's 0-ply play
                cands = self.candidates(self.boards[g], d1, d2, self.b.plies)
                after_of, key = cands.after, cands.keys[_best(cands, self.weight(g))]
            after = after_of(key)
            if isinstance(after, GameEnd):
                self.end_game(g, after)
            else:
                self.boards[g] = after
                self.side[g] = 1 - self.side[g]

    def end_game(self, g: int, end: GameEnd) -> None:
        """Game ``g`` is over: the side on roll has borne off (or, for a player that ends
        games itself, lost)."""
        s, v = int(self.side[g]), self.b.values
        pts = v.points(end.result, int(self.cube[g]), int(self.owner[g]))
        k = end.result
        if end.mover_wins:
            self.finish(g, v.win(s, pts), (1.0, k >= 2, k == 3, 0.0, 0.0), PLAYED)
        else:
            self.finish(g, v.lose(s, pts), (0.0, 0.0, 0.0, k >= 2, k == 3), PLAYED)

    def weight(self, g: int) -> NDArray[np.float64]:
        key = (int(self.side[g]), int(self.cube[g]), int(self.owner[g]))
        if key not in self.weights:
            self.weights[key] = self.b.values.play_weights(*key)
        return self.weights[key]

    def lookahead(self, live: NDArray[np.int64], rolls: list[tuple[int, int]]) -> dict[int, Pick]:
        """The luck of each live game's roll (added to ``luck`` and ``chances_luck``,
        side 0's view): the 0-ply value after the roll thrown minus the mean over the 21
        rolls; and the 0-ply plays for the rolls thrown."""
        keys: list[Any] = []
        todo: dict[Any, int] = {}  # key -> the first game with it
        for g in live.tolist():
            key = (self.b.context, self.boards[g], int(self.side[g]), int(self.cube[g]),
                   int(self.owner[g]))  # fmt: skip
            keys.append(key)
            if key in _LOOKAHEAD:
                _LOOKAHEAD.move_to_end(key)
            elif key not in todo:
                todo[key] = g
        if todo:
            self.evaluate_rolls(list(todo.values()), list(todo))
        picks: dict[int, Pick] = {}
        out = self.out
        for key, g, (d1, d2) in zip(keys, live.tolist(), rolls, strict=True):
            vals, chances, plays = _LOOKAHEAD[key]
            r = ROLL_INDEX[(max(d1, d2), min(d1, d2))]
            luck = float(vals[r] - vals[21])
            dch = chances[r] - chances[21]
            if self.side[g] == 0:
                out["luck"][g] += luck
                out["chances_luck"][g] += dch
            else:  # side 1's luck, seen by side 0
                out["luck"][g] -= luck
                out["chances_luck"][g] += (-dch[0], dch[3], dch[4], dch[1], dch[2])
            picks[g] = plays[r]
        return picks

    def evaluate_rolls(self, games: list[int], keys: list[Any]) -> None:
        """The side on roll's 0-ply value and chances after its 0-ply play for each of the
        21 rolls, for each game (one vectorised cube-theory call for all of them)."""
        v, player = self.b.values, self.b.player
        n = len(games)
        probs = np.zeros((n * 21, 5))
        x = np.zeros(n * 21)
        ended: dict[int, float] = {}
        plays: list[list[Pick]] = [[] for _ in games]
        for k, g in enumerate(games):
            w, s, c = self.weight(g), int(self.side[g]), int(self.cube[g])
            for r, (d1, d2) in enumerate(ROLLS):
                cands = self.candidates(self.boards[g], d1, d2, 0)
                i = _best(cands, w)
                plays[k].append((cands.after, cands.keys[i]))
                probs[21 * k + r] = cands.chances[i]
                after = cands.after(cands.keys[i])
                if isinstance(after, GameEnd):
                    ended[21 * k + r] = v.win(s, v.points(after.result, c, int(self.owner[g])))
                else:
                    x[21 * k + r] = player.cube_life(after)
        probs = clip_chances(probs)
        rep = np.repeat(np.asarray(games, dtype=np.int64), 21)
        nxt = v.cubeful(probs, x, 1 - self.side[rep], self.cube[rep], self.owner[rep])
        mine = v.other(nxt)
        for row, val in ended.items():
            mine[row] = val
        mover = _mover_view(probs)
        for k, key in enumerate(keys):
            vals = mine[21 * k : 21 * k + 21]
            ch = mover[21 * k : 21 * k + 21]
            _LOOKAHEAD[key] = (np.append(vals, _WEIGHTS @ vals),
                               np.vstack([ch, _WEIGHTS @ ch]), plays[k])  # fmt: skip
        while len(_LOOKAHEAD) > _CACHE_MAX:
            _LOOKAHEAD.popitem(last=False)


# ----------------------------------------------------------------------------- the native
# engine's trials: every turn of a batch in a few kernel calls

#: The plays the lookahead values with the full network for each roll, after gnubg's
#: pruning networks have ranked them all (``FindBestMoveInEval``'s idea with a smaller
#: count). The luck stays an estimator of zero mean whichever play the lookahead picks; the
#: further its pick from the player's own, the more variance is left. On positions of
#: opening rollouts the pruning networks rank the full network's best play first in 68 %
#: of rolls, in the best 2 in 87 %, the best 3 in 94 %, the best 5 in 98 %. Measured at
#: 3-away/5-away (720 trials on the same dice, the no double line; double/take alike or
#: more so), against the best 3: valuing every play leaves 0.72 of the variance at about
#: 2.5 times the CPU; the best 5, 0.87 at about 1.2 times; the best 2, 1.09; the best 1,
#: 1.6. Per CPU-second, 3 to 5 are as good as each other and better than the rest. (Measured
#: with the pruning networks' sigmoids computed exactly; gnubg's table sigmoids, used since,
#: can only reorder near-ties.)
LOOKAHEAD_KEEP = 3
_ROLLS = np.array(ROLLS, dtype=np.int64)
#: The lookahead ranks plays by the next side's cubeless money equity (lowest first).
_MONEY = np.array([-2.0, -1.0, -1.0, 1.0, 1.0])


#: The native lookahead of a board (its 21 rolls' pruned plays), per process, bounded.
_NATIVE_LOOKAHEAD: OrderedDict[bytes, tuple[Any, ...]] = OrderedDict()


def _cube_lives(classes: NDArray[np.int64], pips: NDArray[np.int64]) -> NDArray[np.float64]:
    """gnubg 1.07's 0-ply cube life of each class (contact 0.68, race by the roller's pips,
    bearoff 0.6)."""
    from mathbg.cube.life import BEAROFF_CUBE_LIFE, CONTACT_CUBE_LIFE, cube_life

    race = np.asarray(cube_life("race", np.maximum(pips, 0)), dtype=np.float64)
    return np.where(classes >= 9, CONTACT_CUBE_LIFE, np.where(classes == 8, race,
                    BEAROFF_CUBE_LIFE))  # fmt: skip


def _results(after: NDArray[np.uint8]) -> NDArray[np.int64]:
    """0 when the mover (cells 0..24 after the play) has checkers left, else how it won:
    1 single, 2 gammon, 3 backgammon."""
    done = ~after[:, :25].any(axis=1)
    loser = after[:, 25:]
    gammon = loser.sum(axis=1) == 15
    bg = gammon & loser[:, 18:].any(axis=1)
    return np.where(done, np.where(bg, 3, np.where(gammon, 2, 1)), 0).astype(np.int64)


class _NativeTrials(_Trials):
    """The batch with the native engine: boards as arrays, each turn's plays, lookahead
    and cube chances in one kernel call each."""

    def __init__(self, batch: TrialBatch) -> None:
        super().__init__(batch)
        cells = np.array([*batch.board[0], *batch.board[1]], dtype=np.uint8)
        self.cells = np.repeat(cells[None], self.n, axis=0)

    def board_of(self, g: int) -> Board:
        """Game ``g``'s board as the truncations read it (two rows of 25)."""
        return (self.cells[g, :25].tolist(), self.cells[g, 25:].tolist())

    def truncate(self, turn: int) -> None:
        live = np.flatnonzero(self.active)
        if not live.size:
            return
        c = self.cells[live]
        if self.exact is not None:
            k = min(self.b.checkers, 14)
            left = c[:, :6].sum(axis=1, dtype=np.int64), c[:, 25:31].sum(axis=1, dtype=np.int64)
            inside = (~c[:, 6:25].any(axis=1)) & (~c[:, 31:50].any(axis=1))
            inside &= (left[0] >= 1) & (left[0] <= k) & (left[1] >= 1) & (left[1] <= k)
            games = live[inside]
            may = self.may(games) & (turn > 0)
            for g, m in zip(games.tolist(), may.tolist(), strict=True):
                val, p = self.exact.value(self.board_of(g), int(self.side[g]), int(self.cube[g]),
                                          int(self.owner[g]), m)  # fmt: skip
                self.finish(g, val, (p, 0.0, 0.0, 0.0, 0.0), EXACT)
        if self.race is not None:
            live = np.flatnonzero(self.active)
            ended = [g for g in live.tolist() if self.race.covers(self.board_of(g))]
            if ended:
                self.end_races(np.array(ended, dtype=np.int64), turn)

    def cube_inputs(self, games: NDArray[np.int64]) -> tuple[NDArray[np.float64],
                                                              NDArray[np.float64]]:  # fmt: skip
        from mathbg.analysis.net.engine import cached_outputs

        raw, classes, pips = cached_outputs(self.cells[games])
        return clip_chances(raw.astype(np.float64)), _cube_lives(classes, pips)

    def weights_of(self, games: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.array([self.weight(int(g)) for g in games], dtype=np.float64).reshape(-1, 5)

    def roll_turn(self, turn: int) -> None:
        live = np.flatnonzero(self.active)
        if not live.size:
            return
        rolls = np.array([self.roll(int(g), turn) for g in live], dtype=np.int64).reshape(-1, 2)
        weights = self.weights_of(live)
        self.out["turns"][live] += 1
        if self.b.variance_reduction:
            self.native_lookahead(live, rolls, weights)
        from mathbg.analysis.net.engine import best_plays

        after, _, _, _ = best_plays(self.cells[live], rolls, weights)
        ends = _results(after)
        for k, g in enumerate(live.tolist()):
            if ends[k]:
                self.end_game(g, GameEnd(True, int(ends[k])))
            else:
                self.cells[g] = after[k]
                self.side[g] = 1 - self.side[g]

    def native_lookahead(self, live: NDArray[np.int64], rolls: NDArray[np.int64],
                         weights: NDArray[np.float64]) -> None:  # fmt: skip
        """Each live game's luck (side 0's view) from the 21 rolls' pruned best plays (one
        lookahead for the games that share a board, whatever their line or score)."""
        v = self.b.values
        _, first, which = np.unique(self.cells[live], axis=0, return_index=True,
                                    return_inverse=True)  # fmt: skip
        which = which.reshape(-1)
        after, raw, classes, pips = self.lookahead_of(self.cells[live[first]])
        # each game's 21 values at its own score and cube
        rep = np.repeat(live, 21)
        rows = (which[:, None] * 21 + np.arange(21)).reshape(-1)
        probs = clip_chances(raw[rows].astype(np.float64))
        nxt = v.cubeful(probs, _cube_lives(classes[rows], pips[rows]), 1 - self.side[rep],
                        self.cube[rep], self.owner[rep])  # fmt: skip
        mine = v.other(nxt)
        ends = _results(after[rows])
        for row in np.flatnonzero(ends).tolist():
            g = int(rep[row])
            mine[row] = v.win(int(self.side[g]),
                              v.points(int(ends[row]), int(self.cube[g]), int(self.owner[g])))
        mine = mine.reshape(-1, 21)
        mover = _mover_view(probs).reshape(-1, 21, 5)
        r = np.array([ROLL_INDEX[(max(a, b), min(a, b))] for a, b in rolls.tolist()],
                     dtype=np.int64).reshape(-1)  # fmt: skip
        k = np.arange(len(live))
        # the dice-weighted means roll by roll (a row's sum in one order, whatever the
        # batch: a matrix product's order depends on the shape)
        mean = np.zeros(len(live))
        mean_ch = np.zeros((len(live), 5))
        for j in range(21):
            mean += _WEIGHTS[j] * mine[:, j]
            mean_ch += _WEIGHTS[j] * mover[:, j]
        luck = mine[k, r] - mean
        dch = mover[k, r] - mean_ch
        side = self.side[live]
        self.out["luck"][live] += np.where(side == 0, luck, -luck)
        flipped = np.stack([-dch[:, 0], dch[:, 3], dch[:, 4], dch[:, 1], dch[:, 2]], axis=1)
        self.out["chances_luck"][live] += np.where((side == 0)[:, None], dch, flipped)

    def lookahead_of(self, boards: NDArray[np.uint8]) -> tuple[Any, ...]:
        """The 21 rolls' pruned best plays of each board, ranked for money (the luck is an
        estimator of zero mean whichever play it picks): boards after, outputs, classes,
        pips, 21 rows a board (kept across batches for the boards that recur)."""
        cache = _NATIVE_LOOKAHEAD
        keys = [b.tobytes() for b in boards]
        todo = [i for i, key in enumerate(keys) if key not in cache]
        if todo:
            sel = boards[todo]
            from mathbg.analysis.net.engine import best_plays

            out = best_plays(np.repeat(sel, 21, axis=0), np.tile(_ROLLS, (len(todo), 1)),
                             np.tile(_MONEY, (21 * len(todo), 1)), LOOKAHEAD_KEEP)  # fmt: skip
            for t, i in enumerate(todo):
                cache[keys[i]] = tuple(a[21 * t : 21 * t + 21] for a in out)
            while len(cache) > _CACHE_MAX:
                cache.popitem(last=False)
        parts = [cache[key] for key in keys]
        return tuple(np.concatenate([p[j] for p in parts]) for j in range(4))
