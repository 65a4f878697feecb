"""Race evaluation: winning chances of the side on roll and race cube advice.

A race is a position without contact (:meth:`mathbg.rules.position.Position.is_race`).
The winning chances come from the best source that covers the position:

1. ``"two-sided database"``: both sides fit the two-sided database (default 6 points x 6
   checkers): the exact probability that the roller bears off first, with optimal
   checker play (:class:`mathbg.bearoff.TwoSided`). No gammons are possible there.
2. ``"one-sided databases"``: each side fits the one-sided database (default 6 points x
   15 checkers; any :class:`mathbg.bearoff.OneSided` of up to 10 points may be given):
   with ``P_r``, ``P_o`` the two sides' distributions of the number of rolls to bear off
   (independent, each side following the database's policy) and ``G_r``, ``G_o`` the
   distributions of the roll on which the first checker comes off,

   .. math::

       P(\\text{win}) = \\sum_n P_r(n) P_o(N \\ge n), \\qquad
       P(\\text{win gammon}) = \\sum_n P_r(n) G_o(N \\ge n), \\qquad
       P(\\text{lose gammon}) = \\sum_n P_o(n) G_r(N \\ge n + 1)

   (the roller wins ties: it rolls first; gnubg ``bearoff.c: BearoffEvalOneSided``).
3. ``"one-sided rollout"``: otherwise, each side outside the database gets its roll
   distribution from a one-sided rollout (:func:`roll_distribution`), then the formulas of
   2 (plus backgammons: the loser still has a checker on its points 19-24).

The one-sided rollout
---------------------
The side bears in alone (no opponent in the way, as in any race). The first two rolls
are enumerated (21 x 21 with their weights), then ``samples`` random continuations are
played from each position still outside the home board; once every checker is home, the
exact 6-point database distribution of the home board is added, shifted by the rolls
used. Each roll is played to minimise the value

``V = E6[home board with the outside checkers on the 6-point] + alpha * (pips of the
outside checkers to the 6-point) / (49/6) + beta * (checkers outside)``

with ``E6`` the exact expected rolls of the 6-point database and ``alpha = 1``,
``beta = 0.2`` rolls per checker: calibrated against the exact minimum-expected-rolls
one-sided database of 9 points x 12 checkers (mathbg.bearoff), where the policy loses on
average 0.06 pips of EPC (0.38 with ``beta = 0``); it loses less than gnubg's own
rule-based one-sided rollout (``osr.c``), whose EPCs were 0.05 to 1.5 pips higher on
the races compared.

Measured error of the winning chance on 100 ordinary long races
(:func:`mathbg.race.sample.ordinary_races`: 13-15 checkers a side, rearmost points 8-18,
60-97 pips, leads within 15 %; ``tests/test_race_evaluate.py``), default ``samples=8``
(rollout noise below 0.001), against gnubg 1.07's race net:

====================  ===========  ===============  ===========  ===============
reference             mean error   mean abs error   max error    within 0.03
====================  ===========  ===============  ===========  ===============
2-ply                 +0.0027      0.0065           0.0386       98 / 100
3-ply                 -0.0009      0.0061           0.0237       100 / 100
(2-ply + 3-ply) / 2   +0.0009      0.0050           0.0178       100 / 100
====================  ===========  ===============  ===========  ===============

gnubg's 2- and 3-ply values of the same races differ by up to 0.042 (mean 0.007; 1- and
2-ply by up to 0.063): its odd-even ply effect, the largest part of the 2-ply
differences. The independence of the two sides ignores the plays that depend on the
opponent (bearing in against a race that is almost lost, gammon saves). Gammon chances in
long races are rough: the loser's side is rolled out a second time with the value of the
first checker off, but gnubg's own gammon estimates there swing by 0.4 between plies.

Cube advice
-----------
Cubeless probabilities + a cube life ``x`` -> gnubg's cubeful equities
(:func:`mathbg.cube.cubeful.cube_decision`: ``(1 - x)`` dead + ``x`` live, money or a
match score). ``x`` defaults to gnubg's (eval.c ``EvalEfficiency``): 0.6 inside the
bearoff databases, else the race formula ``x = 0.55 + 0.00125 * (roller's pips)``
clamped to [0.6, 0.7]. For money inside the two-sided database the exact cubeful
equities stored there are used instead (as gnubg does).

References
----------
gnubg ``eval.c`` (``EvalEfficiency``), ``bearoff.c`` (``BearoffEvalOneSided``), ``osr.c``
(gnubg's own one-sided rollout, with a different bear-in policy); W. Trice, effective pip
count; R. Janowski, "Take-Points in Money Games" (1993).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import numpy as np
from numpy.typing import NDArray

from mathbg._output import FrameMixin
from mathbg._validate import away_score
from mathbg.cube import life
from mathbg.cube.decisions import CubeAction, CubeDecision
from mathbg.errors import (
    ContactPositionError,
    InvalidParameterError,
    InvalidPositionError,
    InvalidScoreError,
)
from mathbg.race import counts as _counts

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET
    from mathbg.rules.position import Position

    RaceInput: TypeAlias = Position | str | tuple[Sequence[int], Sequence[int]]

__all__ = [
    "DEFAULT_SAMPLES",
    "METHODS",
    "POLICY_ALPHA",
    "POLICY_BETA",
    "RaceChances",
    "RaceCubeAdvice",
    "RaceEvaluation",
    "RollDistribution",
    "as_race",
    "evaluate_race",
    "race_chances",
    "race_chances_batch",
    "race_cube_decision",
    "roll_distribution",
]

#: Names of the methods, best first.
METHODS = ("two-sided database", "one-sided databases", "one-sided rollout")
#: Random continuations per position after the two enumerated rolls of the rollout.
DEFAULT_SAMPLES = 8
#: Weight of the outside pips in the rollout's play value (rolls per 49/6 pips).
POLICY_ALPHA = 1.0
#: Rolls charged per checker outside the home board in the rollout's play value.
POLICY_BETA = 0.2
#: Largest one-sided database (points) the evaluator accepts.
MAX_ONESIDED_POINTS = 10


# ----------------------------------------------------------------------------- input


def as_race(position: RaceInput) -> tuple[Any, Any]:
    """A race position and its match state (or None) from any accepted input.

    Parameters
    ----------
    position : Position, str or (player, opponent)
        A :class:`~mathbg.rules.position.Position`; a gnubg Position ID, ``POSID:MATCHID``
        or an XGID; or the two sides' point counts (side on roll first, each 24 or 25
        counts in its own numbering, see :mod:`mathbg.race.counts`).

    Returns
    -------
    (Position, MatchState or None)

    Raises
    ------
    InvalidIdError, InvalidPositionError
        For an ID that does not decode or an impossible position (the rules model's
        errors), or a finished game (a side with no checker left).
    ContactPositionError
        When the position has contact.
    """
    from mathbg.rules.position import Position

    match = None
    if isinstance(position, Position):
        pos = position.check()
    elif isinstance(position, str):
        from mathbg.rules.ids import parse_id

        pos, match = parse_id(position)
    elif isinstance(position, tuple | list) and len(position) == 2:
        player = _counts.as_side(position[0], "player")
        opponent = _counts.as_side(position[1], "opponent")
        if player.ndim != 1 or opponent.ndim != 1:
            raise InvalidPositionError("give one position: two sides of 24 or 25 counts")
        pos = Position.from_counts(player.tolist(), opponent.tolist()).check()
    else:
        raise InvalidPositionError(
            "a race position is a Position, a Position ID / XGID string, or a pair "
            f"(player counts, opponent counts); got {type(position).__name__}"
        )
    if pos.is_game_over():
        raise InvalidPositionError("the game is over: a side has no checker left")
    if pos.has_contact():
        raise ContactPositionError(
            f"position {pos.id} has contact (a checker still has to pass an opposing "
            "checker): the race evaluator only takes positions without contact"
        )
    return pos, match


def _sides(pos: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    b = pos.board.astype(np.int64)
    return b[1], b[0]


# ----------------------------------------------------------------------------- databases


@lru_cache(maxsize=1)
def _default_onesided() -> Any:
    from mathbg.bearoff import OneSided

    return OneSided.build(6, 15)


@dataclass(frozen=True)
class _Space:
    points: int
    checkers: int


#: The space of the default two-sided database (6 points, 6 checkers a side).
_DEFAULT_TWOSIDED = _Space(6, 6)


@lru_cache(maxsize=1)
def _default_twosided() -> Any:
    """The largest cubeful two-sided database already built (e.g. 6x15), else 6x6 (built
    on first use)."""
    from mathbg.bearoff import TwoSided

    return TwoSided.largest(cubeful=True) or TwoSided.build(
        _DEFAULT_TWOSIDED.points, _DEFAULT_TWOSIDED.checkers
    )


@dataclass(frozen=True)
class _Tables:
    """Full tables of a one-sided database, for vectorised lookups and the kernel."""

    db: Any
    dist: NDArray[np.float64]  # [N, nb]
    gammon: NDArray[np.float64]  # [N, nbg], unit mass at 0 below 15 checkers
    means: NDArray[np.float64]  # [N] expected rolls to bear off
    gammon_means: NDArray[np.float64]  # [N] expected rolls to the first checker off


_TABLES: dict[int, _Tables] = {}


def _tables(db: Any) -> _Tables:
    key = id(db)
    t = _TABLES.get(key)
    if t is None or t.db is not db:
        from mathbg.bearoff import all_positions

        boards = all_positions(db.points, db.checkers)
        dist = np.ascontiguousarray(db.distribution(boards))
        gammon = np.ascontiguousarray(db.gammon_distribution(boards))
        t = _Tables(
            db,
            dist,
            gammon,
            dist @ np.arange(dist.shape[1], dtype=np.float64),
            gammon @ np.arange(gammon.shape[1], dtype=np.float64),
        )
        _TABLES[key] = t
    return t


def _check_onesided(db: Any) -> Any:
    if db is None:
        return _default_onesided()
    if not 1 <= db.points <= MAX_ONESIDED_POINTS:
        raise InvalidParameterError(
            f"the one-sided database may have at most {MAX_ONESIDED_POINTS} points; "
            f"got {db.points} x {db.checkers}"
        )
    return db


def _fits(db: Any, side: NDArray[np.int64]) -> Any:
    """Whether each side is inside the database: its points and its checkers."""
    return (_top(side) <= db.points) & (side.sum(axis=-1) <= db.checkers)


def _top(side: NDArray[np.int64]) -> Any:
    """Highest occupied point (0 for an empty side), over the last axis."""
    occupied = side > 0
    last = side.shape[-1] - np.argmax(occupied[..., ::-1], axis=-1)
    return np.where(occupied.any(axis=-1), last, 0)


# ----------------------------------------------------------------------------- one side


@dataclass(frozen=True)
class RollDistribution:
    """How many rolls one side needs, alone on the board.

    Attributes
    ----------
    rolls : ndarray
        ``P(exactly n rolls to bear off every checker)``, n = 0, 1, ...
    first_off : ndarray
        ``P(the first checker comes off on roll n)`` (a unit mass at 0 when a checker is
        already off: no gammon possible).
    clear_back : ndarray
        ``P(no checker is left on points 19-24 after roll n, for the first time)``
        (backgammons); a unit mass at 0 when there is none.
    method : str
        ``"one-sided database"`` (exact for the database's policy) or
        ``"one-sided rollout"``.
    """

    rolls: NDArray[np.float64]
    first_off: NDArray[np.float64]
    clear_back: NDArray[np.float64]
    method: str

    def to_frame(self) -> Any:
        """The distributions as a DataFrame: index ``rolls`` (n = 0, 1, ...), columns
        ``p_bear_off`` (P(exactly n rolls)), ``p_first_off`` and ``p_clear_back``
        (fractions; 0 past each array's end); EPC and method in ``attrs``."""
        from mathbg._output import frame

        n = max(len(self.rolls), len(self.first_off), len(self.clear_back))

        def padded(a: NDArray[np.float64]) -> list[float]:
            return [float(v) for v in np.pad(a, (0, n - len(a)))]

        cols = zip(padded(self.rolls), padded(self.first_off), padded(self.clear_back),
                   strict=True)  # fmt: skip
        rows = [{"rolls": k, "p_bear_off": r, "p_first_off": f, "p_clear_back": c}
                for k, (r, f, c) in enumerate(cols)]  # fmt: skip
        return frame(rows, name=f"rolls to bear off ({self.method})", index="rolls",
                     method=self.method, epc=self.epc, mean_rolls=self.mean_rolls)  # fmt: skip

    @property
    def mean_rolls(self) -> float:
        """Expected number of rolls."""
        return float(self.rolls @ np.arange(len(self.rolls)))

    @property
    def std_rolls(self) -> float:
        """Standard deviation of the number of rolls."""
        n = np.arange(len(self.rolls))
        return float(np.sqrt(self.rolls @ (n - self.mean_rolls) ** 2))

    @property
    def epc(self) -> float:
        """Effective pip count: expected rolls x 49/6 (Trice)."""
        return self.mean_rolls * _counts.AVERAGE_ROLL_PIPS


def _unit(n: int = 1) -> NDArray[np.float64]:
    out = np.zeros(max(n, 1))
    out[0] = 1.0
    return out


def roll_distribution(
    side: Any,
    *,
    onesided: Any = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> RollDistribution:
    """The distribution of the rolls one side needs to bear off (see the module notes).

    Parameters
    ----------
    side : array_like
        The side's point counts (24 or 25 values, its own numbering; the bar must be
        empty).
    onesided : mathbg.bearoff.OneSided, optional
        Database for sides inside it (up to 10 points; default 6 points x 15 checkers,
        built and cached on first use). The rollout always finishes in the 6 x 15 one.
    samples : int
        Rollout: random continuations per position after the two enumerated rolls.
    seed : int
        Rollout: random seed (results are reproducible).
    """
    a = _counts.as_side(side, "side")
    if a.ndim != 1:
        raise InvalidPositionError("roll_distribution takes one side")
    if a[24]:
        raise InvalidPositionError("a checker on the bar: not a race")
    if not a.any():
        return RollDistribution(_unit(), _unit(), _unit(), "one-sided database")
    db = _check_onesided(onesided)
    if _fits(db, a):
        t = _tables(db)
        idx = int(db.index(a[: db.points]))
        return RollDistribution(t.dist[idx].copy(), t.gammon[idx].copy(), _unit(),
                                "one-sided database")  # fmt: skip
    from mathbg._validate import integer

    samples = integer(samples, "samples", 1, 1 << 20)
    seed = integer(seed, "seed", 0, (1 << 62) - 8000)  # the kernel takes an int64 (+7919)
    from mathbg.bearoff.index import binomial_table
    from mathbg.race._kernels import one_sided_rollout

    t6 = _tables(db if (db.points, db.checkers) == (6, 15) else _default_onesided())
    pips = int(_counts.pip_count(a))
    nbins = pips // 3 + 20 + t6.dist.shape[1]
    board = np.ascontiguousarray(a[:24])
    dist, gdist, bgdist, _ = one_sided_rollout(
        board, t6.dist, t6.gammon, t6.means, binomial_table(), int(samples), int(seed),
        nbins, POLICY_ALPHA, POLICY_BETA,
    )  # fmt: skip
    if a.sum() == 15:  # gammon and backgammon saves: a second rollout, playing to save them
        _, gdist, bgdist, _ = one_sided_rollout(
            board, t6.dist, t6.gammon, t6.gammon_means, binomial_table(), int(samples),
            int(seed) + 7919, nbins, POLICY_ALPHA, POLICY_BETA,
        )  # fmt: skip
    return RollDistribution(dist, gdist, bgdist, "one-sided rollout")


# ----------------------------------------------------------------------------- chances


@dataclass(frozen=True)
class RaceChances(FrameMixin):
    """Cubeless chances of the side on roll (gnubg's five outputs, cumulative gammons).

    ``p_win_gammon`` includes backgammons, as gnubg's outputs do.
    """

    p_win: float
    p_win_gammon: float
    p_win_backgammon: float
    p_lose_gammon: float
    p_lose_backgammon: float
    method: str
    roller: RollDistribution | None = field(default=None, repr=False)
    opponent: RollDistribution | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The five chances (fractions), the method and the cubeless money equity."""
        return {
            "p_win": self.p_win,
            "p_win_gammon": self.p_win_gammon,
            "p_win_backgammon": self.p_win_backgammon,
            "p_lose_gammon": self.p_lose_gammon,
            "p_lose_backgammon": self.p_lose_backgammon,
            "method": self.method,
            "equity": self.equity,
        }

    @property
    def probabilities(self) -> NDArray[np.float64]:
        """``[p_win, p_win_gammon, p_win_backgammon, p_lose_gammon, p_lose_backgammon]``."""
        return np.array([self.p_win, self.p_win_gammon, self.p_win_backgammon,
                         self.p_lose_gammon, self.p_lose_backgammon])  # fmt: skip

    @property
    def equity(self) -> float:
        """Cubeless money equity ``2 p - 1 + (wg - lg) + (wb - lb)``."""
        return (2.0 * self.p_win - 1.0 + self.p_win_gammon - self.p_lose_gammon
                + self.p_win_backgammon - self.p_lose_backgammon)  # fmt: skip


def _survival(d: NDArray[np.float64], width: int, shift: int = 0) -> NDArray[np.float64]:
    """``S[n] = P(N >= n + shift)`` for n = 0..width-1 over the last axis."""
    pad = np.zeros((*d.shape[:-1], max(width + shift + 1 - d.shape[-1], 0)))
    full = np.concatenate([d, pad], axis=-1)
    s = np.cumsum(full[..., ::-1], axis=-1)[..., ::-1]
    return s[..., shift : shift + width]


def _combine(r: Any, o: Any) -> tuple[Any, Any, Any, Any, Any]:
    """The five chances from the two sides' (rolls, first_off, clear_back) arrays."""
    (pr, gr, br), (po, go, bo) = r, o
    w = max(pr.shape[-1], po.shape[-1])

    def pad(d: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([d, np.zeros((*d.shape[:-1], w - d.shape[-1]))], axis=-1)

    pr, po = pad(pr), pad(po)
    win = np.sum(pr * _survival(po, w), axis=-1)
    wg = np.sum(pr * _survival(go, w), axis=-1)
    wb = np.sum(pr * _survival(bo, w), axis=-1)
    lg = np.sum(po * _survival(gr, w, 1), axis=-1)
    lb = np.sum(po * _survival(br, w, 1), axis=-1)
    # sums of probabilities: clip the last-bit rounding outside [0, 1]
    w_, wg_, wb_, lg_, lb_ = (np.clip(v, 0.0, 1.0) for v in (win, wg, wb, lg, lb))
    return w_, wg_, wb_, lg_, lb_


def race_chances(
    position: RaceInput,
    *,
    onesided: Any = None,
    twosided: Any = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> RaceChances:
    """The cubeless chances of the side on roll in a race (see the module notes).

    Parameters
    ----------
    position : Position, str or (player, opponent)
        Any input of :func:`as_race`.
    onesided, twosided : databases, optional
        :class:`mathbg.bearoff.OneSided` (up to 10 points) and
        :class:`mathbg.bearoff.TwoSided`; defaults 6 x 15 and 6 x 6, built and cached on
        first use. ``twosided=False`` skips the two-sided database.
    samples, seed : int
        For the one-sided rollout of sides outside the one-sided database.

    Raises
    ------
    ContactPositionError
        For a position with contact.
    """
    pos, _ = as_race(position)
    player, opponent = _sides(pos)
    ts = None
    if twosided is not False:
        # the default database is built (and its kernels compiled) only when it is needed
        if twosided is not None:
            ts = twosided if _fits_twosided(twosided, player, opponent) else None
        elif _fits_twosided(_DEFAULT_TWOSIDED, player, opponent):
            ts = _default_twosided()
    if ts is not None:
        p = float(ts.win_probability(player[: ts.points], opponent[: ts.points]))
        return RaceChances(p, 0.0, 0.0, 0.0, 0.0, METHODS[0])
    db = _check_onesided(onesided)
    dr = roll_distribution(player, onesided=db, samples=samples, seed=seed)
    do = roll_distribution(opponent, onesided=db, samples=samples, seed=seed + 1)
    method = METHODS[1] if "database" in dr.method and "database" in do.method else METHODS[2]
    values = _combine((dr.rolls, dr.first_off, dr.clear_back),
                      (do.rolls, do.first_off, do.clear_back))  # fmt: skip
    w, wg, wb, lg, lb = (float(v) for v in values)
    return RaceChances(w, wg, wb, lg, lb, method, dr, do)


def _fits_twosided(ts: Any, player: NDArray[np.int64], opponent: NDArray[np.int64]) -> bool:
    """Whether both sides are inside ``ts`` (anything with ``points`` and ``checkers``)."""
    return bool(
        _top(player) <= ts.points
        and _top(opponent) <= ts.points
        and 0 < player.sum() <= min(ts.checkers, 14)
        and 0 < opponent.sum() <= min(ts.checkers, 14)
    )


def race_chances_batch(
    player: Any, opponent: Any, *, onesided: Any = None, twosided: Any = None
) -> dict[str, NDArray[Any]]:
    """Vectorised chances for many positions inside the databases.

    Parameters
    ----------
    player, opponent : array_like, shape (n, 25) or (n, 24)
        Point counts of the side on roll and of the opponent; every checker must be
        within the one-sided database's points (no rollout here) and the positions must be
        races (not checked: inside a 6-point database there is never contact).

    Returns
    -------
    dict
        ``p_win``, ``p_win_gammon``, ``p_lose_gammon`` (float arrays), ``two_sided``
        (bool array: the value is the exact two-sided one), ``epc`` (float array, shape
        (n, 2)).
    """
    a, b = _counts.as_side(player, "player"), _counts.as_side(opponent, "opponent")
    if a.ndim != 2 or a.shape != b.shape:
        raise InvalidPositionError("give two arrays of shape (n, 25) (or (n, 24))")
    db = _check_onesided(onesided)
    if not (np.all(_fits(db, a)) and np.all(_fits(db, b))):
        raise InvalidPositionError(
            f"race_chances_batch: every side must fit the one-sided database "
            f"(points 1..{db.points}, at most {db.checkers} checkers)"
        )
    if np.any(a.sum(axis=-1) == 0) or np.any(b.sum(axis=-1) == 0):
        raise InvalidPositionError("the game is over in some position: a side has no checker")
    t = _tables(db)
    ia, ib = db.index(a[:, : db.points]), db.index(b[:, : db.points])
    zeros = np.zeros((len(a), 1))
    ones = np.ones((len(a), 1))
    unit = np.concatenate([ones, zeros], axis=-1)
    win, wg, _, lg, _ = _combine((t.dist[ia], t.gammon[ia], unit), (t.dist[ib], t.gammon[ib], unit))
    two = np.zeros(len(a), dtype=bool)
    if twosided is not False:
        ts = twosided if twosided is not None else _DEFAULT_TWOSIDED
        two = (
            (_top(a) <= ts.points) & (_top(b) <= ts.points)
            & (a.sum(-1) <= min(ts.checkers, 14)) & (b.sum(-1) <= min(ts.checkers, 14))
        )  # fmt: skip
        if two.any():
            ts = twosided if twosided is not None else _default_twosided()
            win = win.copy()
            win[two] = ts.win_probability(a[two, : ts.points], b[two, : ts.points])
            wg, lg = np.where(two, 0.0, wg), np.where(two, 0.0, lg)
    epc = np.stack([t.means[ia], t.means[ib]], axis=-1) * _counts.AVERAGE_ROLL_PIPS
    return {"p_win": win, "p_win_gammon": wg, "p_lose_gammon": lg, "two_sided": two, "epc": epc}


# ----------------------------------------------------------------------------- cube


@dataclass(frozen=True, kw_only=True)
class RaceCubeAdvice(CubeDecision):
    """A race cube decision of the side on roll: a
    :class:`~mathbg.cube.decisions.CubeDecision` with how it was reached.

    ``no_double``, ``double_take``, ``double_pass`` are money equities per unit of the
    current cube (``unit="equity"``) or match winning chances (``unit="mwc"``, and
    ``emg`` holds the same three as EMG equities); ``double_take`` and ``double_pass`` are
    None when the cube is not available; ``optimal`` is the value of the right action.
    ``x`` is the cube life used: one number, or ``(no double, double/take)`` when gnubg's
    two-sided rule backs a life out of each cube state, or None for the exact money values
    of the two-sided database. ``source``: ``"cube life"`` or ``"two-sided database"``.
    """

    x: float | tuple[float, float] | None
    source: str
    score: tuple[int, int] | None = None

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "x": ("no_double", "double_take"),
        "cube_life": ("no_double", "double_take"),
        "emg": ("no_double", "double_take", "double_pass"),
        "score": ("away", "opp_away"),
    }

    def __post_init__(self) -> None:
        if self.cube_life is None and self.x is not None:  # one name for the cube life used
            object.__setattr__(self, "cube_life", self.x)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON; ``cube_life`` repeats ``x`` under the name every other
        output uses."""
        x = list(self.x) if isinstance(self.x, tuple) else self.x
        return {
            "action": str(self.action),
            "cube_life": x,
            "no_double": self.no_double,
            "double_take": self.double_take,
            "double_pass": self.double_pass,
            "x": list(self.x) if isinstance(self.x, tuple) else self.x,
            "unit": self.unit,
            "source": self.source,
            "score": list(self.score) if self.score else None,
            "emg": list(self.emg) if self.emg else None,
        }


#: gnubg's cap on the cube life backed out of the two-sided money equities (``rTSCubeX``).
TS_MATCH_X_MAX = 0.6


def _ts_match_x(p: float, exact: float, owner: str) -> float:
    """gnubg's cube life for match play inside the two-sided database (eval.c,
    ``EvaluatePositionCubeful0``): the x at which the money cubeful equity
    ``(1 - x) E_cl + x E_live`` equals the exact money value of the cube state, clamped
    to [0, 0.6]; 0.6 when the live and cubeless equities (nearly) coincide."""
    from mathbg.cube.money import cubeful_equity

    cl = 2.0 * p - 1.0
    live = float(cubeful_equity(p, 1.0, 1.0, 1.0, owner))
    if abs(cl - live) <= 1e-4:
        return TS_MATCH_X_MAX
    return float(min(max((exact - cl) / (live - cl), 0.0), TS_MATCH_X_MAX)) + 0.0


def race_cube_decision(
    position: RaceInput,
    *,
    chances: RaceChances | None = None,
    cube_life: float | None = None,
    met: MET | str | None = None,
    away: tuple[int, int] | None = None,
    cube: int = 1,
    owner: str = "centre",
    crawford: bool = False,
    jacoby: bool = False,
    beavers: bool = False,
    exact_bearoff: bool = True,
    **chance_options: Any,
) -> RaceCubeAdvice:
    """The cube decision of the side on roll in a race, for money or at a match score.

    Parameters
    ----------
    position : Position, str or (player, opponent)
        Any input of :func:`as_race`.
    chances : RaceChances, optional
        Precomputed :func:`race_chances` (else computed with ``chance_options``).
    cube_life : float, optional
        Cube life ``x``; default gnubg's (0.6 inside the databases, else
        :func:`mathbg.cube.life.cube_life` of a race and the roller's pips). Giving it
        also turns off the two-sided special cases below.
    met, away : optional
        Match play: a MET (or the name of a shipped one, e.g. ``"kazaross-xg2"``) and the
        score ``away = (roller_away, opponent_away)``. Money play when ``met`` is None.
    cube, owner, crawford, jacoby, beavers :
        Cube value, owner (``"centre"``, ``"player"`` = the roller, ``"opponent"``), the
        Crawford game, the Jacoby rule and beavers (money).
    exact_bearoff : bool
        Inside the two-sided database (and ``cube_life`` not given), as gnubg 1.07 does: money
        uses the database's exact cubeful equities; match play backs the cube life of
        each cube state out of them (:func:`_ts_match_x`).

    Returns
    -------
    RaceCubeAdvice

    Notes
    -----
    Otherwise ``ND``, ``DT``, ``DP`` come from :func:`mathbg.cube.cubeful.cube_decision`
    (gnubg's ``Cl2CfMoney``/``Cl2CfMatch``: ``(1 - x)`` dead + ``x`` live) and the action
    from :func:`mathbg.cube.decisions.classify`.
    """
    from mathbg.bearoff.twosided import OWNER_COLUMN
    from mathbg.cube.cubeful import cube_decision, cubeful_mwc, cubeless_mwc, emg
    from mathbg.cube.decisions import classify
    from mathbg.cube.inputs import check_owner
    from mathbg.rules.cube import CubeOwner
    from mathbg.rules.match import may_double

    pos, _ = as_race(position)
    owner = check_owner(owner)
    if chances is None:
        chances = race_chances(pos, **chance_options)
    x = cube_life
    in_ts = chances.method == METHODS[0] and exact_bearoff and x is None
    if in_ts:
        ts = chance_options.get("twosided") or _default_twosided()
        player, opponent = _sides(pos)
        values = ts.values(player[: ts.points], opponent[: ts.points])
        if met is None:
            dec = ts.cube_decision(player[: ts.points], opponent[: ts.points], owner,
                                   beavers=beavers)  # fmt: skip
            return _advice(dec.action, dec.no_double, dec.double_take, dec.double_pass,
                           x=None, unit="equity", source=METHODS[0])  # fmt: skip
        if away is None:
            raise InvalidScoreError(
                "match play needs the score, away=(player_away, opponent_away)"
            )
        score = away_score(away)
        p = chances.p_win
        x_nd = _ts_match_x(p, float(values[OWNER_COLUMN[owner]]), owner)
        x_dt = _ts_match_x(p, float(values[OWNER_COLUMN[CubeOwner.OPPONENT]]), "opponent")
        probs = chances.probabilities
        nd = float(cubeful_mwc(probs, met, score, cube=cube, owner=owner, cube_life=x_nd,
                               crawford=crawford))  # fmt: skip
        nd_emg = float(emg(nd, met, score, cube, crawford=crawford))
        if not may_double(score, cube, owner, crawford=crawford):
            return _advice(CubeAction.NOT_AVAILABLE, nd, None, None, x=(x_nd, x_dt),
                           unit="mwc", source=METHODS[0], score=score,
                           emg=(nd_emg, None, None))  # fmt: skip
        dt = float(cubeful_mwc(probs, met, score, cube=2 * cube, owner="opponent",
                               cube_life=x_dt, crawford=crawford))  # fmt: skip
        dp = float(cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], met, score, cube,
                                crawford=crawford))  # fmt: skip
        action = classify(nd, dt, dp, can_gammon=False, money=False)
        emgs = tuple(float(emg(v, met, score, cube, crawford=crawford))
                     for v in (nd, dt, dp))  # fmt: skip
        return _advice(action, nd, dt, dp, x=(x_nd, x_dt), unit="mwc", source=METHODS[0],
                       score=score, emg=emgs)  # type: ignore[arg-type]  # fmt: skip
    if x is None:
        klass = "race" if chances.method == METHODS[2] else "bearoff"  # databases: gnubg's 0.6
        x = life.cube_life(klass, pos.pips()[0])
    dec = cube_decision(chances.probabilities, met, away, cube=cube, owner=owner,
                        cube_life=x, crawford=crawford, jacoby=jacoby, beavers=beavers)  # fmt: skip
    cube_life_score = None if met is None or away is None else away_score(away)
    return RaceCubeAdvice(action=dec.action, no_double=dec.no_double,
                          double_take=dec.double_take, double_pass=dec.double_pass,
                          optimal=dec.optimal, unit=dec.unit, emg=dec.emg, x=float(x),
                          source="cube life", score=cube_life_score)  # fmt: skip


def _advice(
    action: CubeAction,
    nd: float,
    dt: float | None,
    dp: float | None,
    *,
    x: float | tuple[float, float] | None,
    unit: str,
    source: str,
    score: tuple[int, int] | None = None,
    emg: tuple[float, float | None, float | None] | None = None,
) -> RaceCubeAdvice:
    """A :class:`RaceCubeAdvice` whose optimal value follows from the action."""
    optimal = min(dt, dp) if action.doubles and dt is not None and dp is not None else nd
    return RaceCubeAdvice(action=action, no_double=nd, double_take=dt, double_pass=dp,
                          optimal=optimal, unit=unit, emg=emg, x=x, source=source,
                          score=score)  # fmt: skip


# ----------------------------------------------------------------------------- everything


@dataclass(frozen=True)
class RaceEvaluation(FrameMixin):
    """Everything mathbg knows about a race position (see :func:`evaluate_race`)."""

    position: Position
    pips: tuple[int, int]
    keith: tuple[int, int]
    keith_adjusted: float
    thorp: tuple[int, int]
    thorp_adjusted: float
    isight: tuple[int, int]
    #: Isight's *estimate* of the roller's winning chance, a fraction clamped to [0, 1]
    #: (gnubg prints the unclamped formula in percent, over 100 in short bear-offs).
    isight_p_win_estimate: float
    kleinman: float
    kleinman_p_win: float
    #: The 8-9-12 lead in percent of the roller's pip count (JSON: ``lead_8912_fraction``).
    lead_8912: float
    trice: tuple[float, float]
    trice_point_of_last_take: int
    epc: tuple[float | None, float | None]
    wastage: tuple[float | None, float | None]
    chances: RaceChances
    cube: RaceCubeAdvice
    advice: dict[str, Any]
    #: Both sides' roll distributions (side on roll first), from the one-sided database or
    #: rollout (also computed when the chances come from the two-sided database).
    distributions: tuple[RollDistribution, RollDistribution] | None = None

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        **dict.fromkeys(
            ("pips", "keith", "thorp", "isight", "trice", "epc", "wastage"),
            ("on_roll", "opponent"),
        ),
        **{f"cube_{k}": v for k, v in RaceCubeAdvice.FRAME_PARTS.items()},
    }

    @property
    def lead_8912_fraction(self) -> float:
        """The 8-9-12 lead as a fraction of the roller's pip count (``lead_8912 / 100``)."""
        return float(self.lead_8912) / 100.0

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (``mathbg race ID --json``): numbers, lists, strings and nulls.

        Chances and the 8-9-12 lead are fractions; the Isight winning chance is an estimate
        clamped to [0, 1] (``isight_p_win_estimate``).
        """

        def num(v: Any) -> Any:
            if v is None:
                return None
            v = float(v)
            return None if np.isnan(v) else v

        c = self.chances
        return {
            "position_id": self.position.id,
            "pips": list(self.pips),
            "keith": list(self.keith),
            "keith_adjusted": num(self.keith_adjusted),
            "thorp": list(self.thorp),
            "thorp_adjusted": num(self.thorp_adjusted),
            "isight": list(self.isight),
            "isight_p_win_estimate": num(self.isight_p_win_estimate),
            "kleinman": num(self.kleinman),
            "kleinman_p_win": num(self.kleinman_p_win),
            "lead_8912_fraction": num(self.lead_8912_fraction),
            "trice": [num(v) for v in self.trice],
            "trice_point_of_last_take": self.trice_point_of_last_take,
            "epc": [num(v) for v in self.epc],
            "wastage": [num(v) for v in self.wastage],
            "p_win": c.p_win,
            "p_gammon": c.p_win_gammon,
            "p_backgammon": c.p_win_backgammon,
            "p_lose_gammon": c.p_lose_gammon,
            "p_lose_backgammon": c.p_lose_backgammon,
            "method": c.method,
            "cube_action": str(self.cube.action),
            "cube": self.cube.as_dict(),
            "advice": {k: str(v) for k, v in self.advice.items()},
        }


def evaluate_race(
    position: RaceInput,
    *,
    keith_rounding: str = "down",
    thorp_convention: str = "thorp",
    cube_life: float | None = None,
    met: MET | str | None = None,
    money: bool = False,
    jacoby: bool = True,
    beavers: bool = True,
    onesided: Any = None,
    twosided: Any = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> RaceEvaluation:
    """Counts, their advice, the winning chances and the cube decision of a race.

    Parameters
    ----------
    position : Position, str or (player, opponent)
        Any input of :func:`as_race`. A ``POSID:MATCHID`` or an XGID carries the match
        score, cube and money rules; the cube decision is then made at that score
        (with ``met``, default Kazaross-XG2) unless ``money``.
    keith_rounding : {"down", "none"}
        Keith's 1/7 addition rounded down (Keith) or not (gnubg 1.07).
    thorp_convention : {"thorp", "gnubg", "xg"}
        Thorp's pass line (see :func:`mathbg.race.counts.thorp_advice`).
    cube_life : float, optional
        Cube life (default gnubg's, see :func:`race_cube_decision`).
    met : MET or str, optional
        Match equity table for match play.
    money : bool
        Money play even when the ID carries a match score.
    jacoby, beavers : bool
        Money play's rules (gnubg's defaults, both on), each turned off also where a money
        ID says so (:func:`mathbg.rules.ids.money_rules`).
    onesided, twosided, samples, seed :
        See :func:`race_chances`.

    Returns
    -------
    RaceEvaluation
        The counts, their advice, the chances and the cube decision.

    Examples
    --------
    >>> e = evaluate_race(((0, 0, 0, 0, 0, 2) + (0,) * 18, (0, 0, 0, 0, 2) + (0,) * 19))
    >>> e.pips, e.cube.unit
    ((12, 10), 'equity')
    """
    from mathbg._validate import integer

    # checked up front, used or not (only a rollout reads them)
    samples = integer(samples, "samples", 1, 1 << 20)
    seed = integer(seed, "seed", 0, (1 << 62) - 8000)
    pos, match = as_race(position)
    if match is None and met is not None:  # before any database is built
        raise InvalidParameterError(
            "a MET needs a match score: give a POSID:MATCHID or an XGID of a match"
        )
    player, opponent = _sides(pos)
    pips = (int(_counts.pip_count(player)), int(_counts.pip_count(opponent)))
    kp, ko = int(_counts.keith_count(player)), int(_counts.keith_count(opponent))
    tp, to = int(_counts.thorp_count(player)), int(_counts.thorp_count(opponent))
    isight = tuple(int(v) for v in _counts.isight_counts(player, opponent))
    trice = tuple(float(v) for v in _counts.trice_adjusted_counts(player, opponent))
    chances = race_chances(pos, onesided=onesided, twosided=twosided, samples=samples,
                           seed=seed)  # fmt: skip
    epc: list[float | None] = [None, None]
    wastage: list[float | None] = [None, None]
    dists: tuple[RollDistribution | None, ...] = (chances.roller, chances.opponent)
    if chances.method == METHODS[0]:  # the two-sided database: EPCs from the one-sided one
        dists = tuple(roll_distribution(s, onesided=onesided) for s in (player, opponent))
    for i, d in enumerate(dists):
        if d is not None and d.method == "one-sided database":
            epc[i] = d.epc
            wastage[i] = d.epc - pips[i]
    from mathbg.rules.ids import money_rules

    cube_args: dict[str, Any] = {}
    owner = "centre"
    cube = 1
    id_jacoby, id_beavers = money_rules(position, match)
    jacoby, beavers = jacoby and id_jacoby, beavers and id_beavers
    if match is not None:
        cube = match.cube
        on_roll = match.on_roll
        if match.cube_owner is not None:
            owner = "player" if match.cube_owner == on_roll else "opponent"
        if match.length > 0 and not money:
            cube_args = {
                "met": met if met is not None else "kazaross-xg2",
                "away": (match.length - match.score[on_roll],
                         match.length - match.score[1 - on_roll]),
                "crawford": match.crawford,
            }
    elif met is not None:
        raise InvalidParameterError(
            "a MET needs a match score: give a POSID:MATCHID or an XGID of a match"
        )
    cube_advice = race_cube_decision(
        pos, chances=chances, cube_life=cube_life, cube=cube, owner=owner,
        jacoby=jacoby, beavers=beavers, twosided=twosided, **cube_args,
    )  # fmt: skip
    advice = {
        "keith": _counts.keith_advice(player, opponent, rounding=keith_rounding).verdict,  # type: ignore[arg-type]
        "thorp": _counts.thorp_advice(player, opponent, convention=thorp_convention).verdict,  # type: ignore[arg-type]
        "kleinman": _counts.kleinman_advice(*pips).verdict,
        "8912": _counts.lead_8912_advice(*pips).verdict,
        "trice": _counts.trice_advice(player, opponent).verdict,
        "isight": _counts.isight_advice(player, opponent).verdict,
        "cube": str(cube_advice.action),
    }
    return RaceEvaluation(
        position=pos,
        pips=pips,
        keith=(kp, ko),
        keith_adjusted=float(_counts.keith_adjusted(kp, keith_rounding)),  # type: ignore[arg-type]
        thorp=(tp, to),
        thorp_adjusted=float(_counts.thorp_adjusted(tp)),
        isight=isight,  # type: ignore[arg-type]
        isight_p_win_estimate=min(
            max(float(_counts.isight_win_probability(*isight)) / 100.0, 0.0), 1.0
        ),
        kleinman=float(_counts.kleinman_metric(*pips)),
        kleinman_p_win=float(_counts.kleinman_win_probability(*pips)),
        lead_8912=float(_counts.lead_8912(*pips)),
        trice=trice,  # type: ignore[arg-type]
        trice_point_of_last_take=int(_counts.trice_point_of_last_take(trice[0])),
        epc=tuple(epc),  # type: ignore[arg-type]
        wastage=tuple(wastage),  # type: ignore[arg-type]
        chances=chances,
        cube=cube_advice,
        advice=advice,
        distributions=dists,  # type: ignore[arg-type]
    )
