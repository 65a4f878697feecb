"""gnubg's match statistics (``show statistics match``), XG's PR and Snowie's error rate.

The definitions are gnubg 1.07's (analysis.c ``updateStatcontext``, ``getMWCFromError``,
``AddStatcontext``; formatgs.c ``formatGS``), computed as gnubg computes them, in single
precision, game by game and then summed over the match:

Checker play
    ``total moves``: every roll; ``unforced``: rolls with more than one legal play. A play's
    error is its value's shortfall from the best play's (EMG at 0 plies, the ``score`` the
    plays are ranked by), in EMG and in MWC (``eq2mwc(error) - eq2mwc(0)`` at the roller's
    score; money: times the cube). Marks: very bad above 0.12, bad above 0.06, doubtful above
    0.03 EMG (gnubg's ``arSkillLevel``). The error rate divides the EMG lost by the unforced
    moves.
Cube
    ``total``: every cube decision analysed (a turn with access to the cube, a double, a
    take, a pass); ``close or actual``: the doubles, takes and passes, and the turns where
    not doubling cost less than 0.16 EMG over the best (``isCloseCubedecision``). Categories:
    missed doubles below the cash point (the double/take value at most the cash) and above
    it, wrong doubles below the double point and above the too-good point (no double worth
    more than cashing), wrong takes, wrong passes. The error rate divides the EMG lost by the
    close-or-actual decisions.
Overall
    the error rate over unforced moves plus close-or-actual cube decisions; gnubg's rating
    label of each rate (``GetRating``: below 0.002 EMG per decision Supernatural, 0.005 World
    class, 0.008 Expert, 0.012 Advanced, 0.018 Intermediate, 0.026 Casual player, 0.035
    Beginner, else Awful!).
Luck
    each roll's luck (its best play's value minus the mean over the rolls, in EMG and MWC);
    marks: very lucky above 0.6, lucky above 0.3, unlucky below -0.3, very unlucky below
    -0.6; the luck rate per roll and gnubg's luck rating (of ten times the rate: Go to bed,
    Bad dice, man!, None, Good dice, man!, Go to Las Vegas). The actual result of a game is
    the winner's MWC gain (money: the points); the luck-adjusted result subtracts the
    player's own luck (MWC) and adds the opponent's (Douglas Zare, "Hedging toward skill").
FIBS ratings
    gnubg's Kees van den Doels estimates: the error-based absolute rating ``2050 - (a2(N)
    EPM + b(N) EPC)`` with ``a2(N) = 8798 + 25526 / N`` (per unforced move) and ``b(N) = 863
    - 519 / N`` (per close cube decision), N the match length; the luck-based rating
    difference ``-2000 / sqrt(N) log10(1 / r - 1)`` of ``r = 0.5 + actual - luck(0) +
    luck(1)`` (MWC).

Beside gnubg's:

- **XG's PR** (Performance Rating, eXtreme Gammon): 500 x the EMG lost per non-obvious
  decision; with gnubg's count of non-obvious decisions (unforced moves and close or actual
  cube decisions) it is half gnubg's overall error rate in mEMG. XG's own filter of obvious
  decisions differs slightly (it also drops plays whose options are all equal and some
  cube decisions far from any window).
- **Snowie's error rate** (Snowie 4, as gnubg prints it): 1000 x the EMG lost divided by the
  moves of both players, forced ones included.
- The audit's own cube measure keeps its name, ``cube_loss_per_decision``: 1000 x the EMG
  lost per cube decision audited (every decision counted).

References
----------
GNU Backgammon 1.07.001: analysis.c, formatgs.c, eval.c ``isCloseCubedecision``; the gnubg
manual, "Match statistics"; XG's help, "Performance Rating"; D. Zare, "Hedging toward
skill" (GammonVillage, 2002).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mathbg._output import JSONObject

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET

__all__ = [
    "LUCK_MARKS",
    "LUCK_RATINGS",
    "LUCK_THRESHOLDS",
    "RATINGS",
    "RATING_THRESHOLDS",
    "SKILL_MARKS",
    "SKILL_THRESHOLDS",
    "CubeEvent",
    "MatchStatistics",
    "PlayerStatistics",
    "Statistics",
    "TurnEvent",
    "luck_mark",
    "rating",
    "skill_mark",
]

f32 = np.float32

#: gnubg's skill marks of an error (EMG) and their thresholds (``arSkillLevel``).
SKILL_MARKS: tuple[str, ...] = ("very bad", "bad", "doubtful", None)  # type: ignore[assignment]
SKILL_THRESHOLDS: tuple[float, float, float] = (0.12, 0.06, 0.03)
#: gnubg's luck marks of a roll (EMG) and their thresholds (``arLuckLevel``).
LUCK_MARKS: tuple[str, ...] = ("very unlucky", "unlucky", None, "lucky", "very lucky")  # type: ignore[assignment]
LUCK_THRESHOLDS: tuple[float, float] = (0.6, 0.3)
#: gnubg's rating labels and the per-decision EMG error each needs to be under.
RATINGS: tuple[str, ...] = ("Awful!", "Beginner", "Casual player", "Intermediate", "Advanced",
                            "Expert", "World class", "Supernatural")  # fmt: skip
RATING_THRESHOLDS: tuple[float, ...] = (1e38, 0.035, 0.026, 0.018, 0.012, 0.008, 0.005, 0.002)
#: gnubg's luck ratings (of ten times the luck per roll, with the luck marks' thresholds).
LUCK_RATINGS: tuple[str, ...] = ("Go to bed", "Bad dice, man!", "None", "Good dice, man!",
                                 "Go to Las Vegas")  # fmt: skip
#: gnubg's offset of the error-based FIBS rating (``rRatingOffset``).
FIBS_OFFSET = 2050.0
#: gnubg's "close" cube decision: not doubling costs less than this (EMG).
CLOSE_CUBE = 0.16


def skill_mark(error: float) -> str | None:
    """gnubg's mark of a decision losing ``error`` EMG (``Skill``).

    Parameters
    ----------
    error : float
        The EMG lost (>= 0).

    Returns
    -------
    str or None
        ``"very bad"`` above 0.12, ``"bad"`` above 0.06, ``"doubtful"`` above 0.03, else
        None.

    Examples
    --------
    >>> skill_mark(0.2), skill_mark(0.07), skill_mark(0.031), skill_mark(0.03)
    ('very bad', 'bad', 'doubtful', None)
    """
    r = -f32(error)
    for i, thr in enumerate(SKILL_THRESHOLDS):
        if r < -f32(thr):
            return SKILL_MARKS[i]
    return None


def _skill_index(skill: np.float32) -> int:
    for i, thr in enumerate(SKILL_THRESHOLDS):
        if skill < -f32(thr):
            return i
    return 3


def _luck_index(r: np.float32) -> int:
    very, good = (f32(t) for t in LUCK_THRESHOLDS)
    if r > very:
        return 4
    if r > good:
        return 3
    if r < -very:
        return 0
    if r < -good:
        return 1
    return 2


def luck_mark(luck: float) -> str | None:
    """gnubg's mark of a roll's luck (EMG, ``Luck``).

    Parameters
    ----------
    luck : float
        The roll's luck.

    Returns
    -------
    str or None
        ``"very lucky"`` above 0.6, ``"lucky"`` above 0.3, ``"unlucky"`` below -0.3,
        ``"very unlucky"`` below -0.6, else None.

    Examples
    --------
    >>> luck_mark(0.7), luck_mark(-0.35), luck_mark(0.1)
    ('very lucky', 'unlucky', None)
    """
    return LUCK_MARKS[_luck_index(f32(luck))]


def rating(error_per_decision: float) -> str:
    """gnubg's rating label of an error rate (EMG per decision, ``GetRating``).

    Parameters
    ----------
    error_per_decision : float
        The EMG lost per decision (>= 0).

    Returns
    -------
    str
        One of :data:`RATINGS`.

    Examples
    --------
    >>> rating(0.0041), rating(0.0167), rating(0.001)
    ('World class', 'Intermediate', 'Supernatural')
    """
    r = f32(error_per_decision)
    for i in range(len(RATINGS) - 1, -1, -1):
        if r < f32(RATING_THRESHOLDS[i]):
            return RATINGS[i]
    return "N/A"


# ----------------------------------------------------------------------------- events


@dataclass(frozen=True)
class TurnEvent:
    """What the statistics need of one roll (gnubg's ``MOVE_NORMAL``).

    ``cube``: the roller's cube analysis before the roll as gnubg's ``arDouble`` (optimal,
    no double, double/take, double/pass, EMG), None without access to the cube; ``legal``
    the number of legal plays; ``skill`` the played value minus the best (<= 0, EMG; None
    when the play was not analysed); ``luck`` EMG or None; ``win``/``lose`` the roller's MWC
    after winning/losing the cube (``eq2mwc``; both 0 in money play, where ``cube`` scales).
    """

    player: int
    cube: tuple[float, float, float, float] | None
    legal: int
    skill: float | None
    luck: float | None
    win: float
    lose: float
    cube_value: int
    money: bool


@dataclass(frozen=True)
class CubeEvent:
    """A double (``kind="double"``) or its answer (``"take"``, ``"pass"``): the doubler's
    ``arDouble`` and ``eq2mwc`` scale (see :class:`TurnEvent`); ``player`` is who decided."""

    player: int
    kind: str
    cube: tuple[float, float, float, float]
    win: float
    lose: float
    cube_value: int
    money: bool


def _cost(r: np.float32, win: float, lose: float, cube: int, money: bool) -> np.float32:
    """gnubg's MWC cost of an EMG error: ``eq2mwc(r) - eq2mwc(0)`` (money: ``cube * r``).

    ``eq2mwc(r) = 0.5 (r (W - L) + (W + L))`` with every operation rounded to single
    precision, as gnubg 1.07.001's x86-64 build computes it (its code has no fused
    multiply-add: its luck totals and luck-based ratings agree to the digit only so)."""
    if money:
        return f32(f32(cube) * r)
    w, lo = f32(win), f32(lose)
    half = f32(0.5)
    s = f32(w + lo)
    return f32(f32(half * f32(f32(f32(r) * f32(w - lo)) + s)) - f32(half * s))


# ----------------------------------------------------------------------------- context

_CATEGORIES = ("missed_double_below_cp", "missed_double_above_cp", "wrong_double_below_dp",
               "wrong_double_above_tg", "wrong_take", "wrong_pass")  # fmt: skip


@dataclass
class Statistics:
    """gnubg's ``statcontext``: the counters of one game (or, summed, of a match), both
    players (index 0 and 1, the record's order). Sums are single precision."""

    total_moves: list[int] = field(default_factory=lambda: [0, 0])
    unforced_moves: list[int] = field(default_factory=lambda: [0, 0])
    marked: list[list[int]] = field(default_factory=lambda: [[0] * 4, [0] * 4])
    checker_error: list[list[np.float32]] = field(
        default_factory=lambda: [[f32(0), f32(0)], [f32(0), f32(0)]])
    total_cube: list[int] = field(default_factory=lambda: [0, 0])
    close_cube: list[int] = field(default_factory=lambda: [0, 0])
    doubles: list[int] = field(default_factory=lambda: [0, 0])
    takes: list[int] = field(default_factory=lambda: [0, 0])
    passes: list[int] = field(default_factory=lambda: [0, 0])
    category_count: dict[str, list[int]] = field(
        default_factory=lambda: {c: [0, 0] for c in _CATEGORIES})
    category_error: dict[str, list[list[np.float32]]] = field(
        default_factory=lambda: {c: [[f32(0), f32(0)], [f32(0), f32(0)]] for c in _CATEGORIES})
    luck_marks: list[list[int]] = field(default_factory=lambda: [[0] * 5, [0] * 5])
    luck: list[list[np.float32]] = field(
        default_factory=lambda: [[f32(0), f32(0)], [f32(0), f32(0)]])
    actual: list[np.float32] = field(default_factory=lambda: [f32(0), f32(0)])
    luck_adjusted: list[np.float32] = field(default_factory=lambda: [f32(0), f32(0)])
    variance_actual: list[np.float32] = field(default_factory=lambda: [f32(0), f32(0)])
    variance_luck_adjusted: list[np.float32] = field(default_factory=lambda: [f32(0), f32(0)])
    dice: bool = False
    games: int = 0

    # ------------------------------------------------------------------ events
    def start_game(self, winner: int | None, gain: float) -> None:
        """The game's actual result: the winner gains ``gain`` (MWC, or points)."""
        self.actual = [f32(0), f32(0)]
        if winner is not None:
            self.actual[winner] = f32(gain)
            self.actual[1 - winner] = -f32(gain)
        self.luck_adjusted = list(self.actual)

    def _category(self, name: str, p: int, r: np.float32, cost: np.float32) -> None:
        self.category_count[name][p] += 1
        err = self.category_error[name][p]
        err[0] = f32(err[0] - r)
        err[1] = f32(err[1] - cost)

    def add_turn(self, ev: TurnEvent) -> None:
        """A roll: its cube analysis (missed doubles), luck and checker play."""
        p = ev.player
        if ev.cube is not None:
            opt, nd, dt, _ = (f32(v) for v in ev.cube)
            self.total_cube[p] += 1
            if f32(opt) - min(dt, f32(1.0)) < f32(CLOSE_CUBE):
                self.close_cube[p] += 1
            if nd < opt:
                r = f32(nd - opt)
                name = "missed_double_above_cp" if dt > f32(1.0) else "missed_double_below_cp"
                self._category(name, p, r, _cost(r, ev.win, ev.lose, ev.cube_value, ev.money))
        if ev.luck is not None:
            self.dice = True
            lu = f32(ev.luck)
            cost = _cost(lu, ev.win, ev.lose, ev.cube_value, ev.money)
            self.luck[p][0] = f32(self.luck[p][0] + lu)
            self.luck[p][1] = f32(self.luck[p][1] + cost)
            self.luck_adjusted[p] = f32(self.luck_adjusted[p] - cost)
            self.luck_adjusted[1 - p] = f32(self.luck_adjusted[1 - p] + cost)
            self.luck_marks[p][_luck_index(lu)] += 1
        self.total_moves[p] += 1
        if ev.skill is None:
            self.marked[p][3] += 1
            return
        sk = f32(ev.skill)
        cost = _cost(sk, ev.win, ev.lose, ev.cube_value, ev.money)
        self.marked[p][_skill_index(sk)] += 1
        if ev.legal > 1:
            self.unforced_moves[p] += 1
            err = self.checker_error[p]
            err[0] = f32(err[0] - sk)
            err[1] = f32(err[1] - cost)

    def add_cube(self, ev: CubeEvent) -> None:
        """A double, take or pass."""
        p = ev.player
        opt, nd, dt, dp = (f32(v) for v in ev.cube)
        self.total_cube[p] += 1
        self.close_cube[p] += 1
        if ev.kind == "double":
            self.doubles[p] += 1
            r = f32((dt if dt < dp else dp) - opt)
            if r < 0:
                name = "wrong_double_above_tg" if nd > f32(1.0) else "wrong_double_below_dp"
                self._category(name, p, r, _cost(r, ev.win, ev.lose, ev.cube_value, ev.money))
            return
        if ev.kind == "take":
            self.takes[p] += 1
            if -dt < -dp:
                r = f32(-dt - -dp)
                self._category("wrong_take", p, r,
                               _cost(r, ev.win, ev.lose, ev.cube_value, ev.money))  # fmt: skip
            return
        self.passes[p] += 1
        if -dp < -dt:
            r = f32(-dp - -dt)
            self._category("wrong_pass", p, r, _cost(r, ev.win, ev.lose, ev.cube_value, ev.money))

    def __iadd__(self, other: Statistics) -> Statistics:
        """gnubg's ``AddStatcontext`` (the match sums its games)."""
        self.games += 1
        for p in (0, 1):
            for name in ("total_moves", "unforced_moves", "total_cube", "close_cube", "doubles",
                         "takes", "passes"):  # fmt: skip
                getattr(self, name)[p] += getattr(other, name)[p]
            for j in range(4):
                self.marked[p][j] += other.marked[p][j]
            for j in range(5):
                self.luck_marks[p][j] += other.luck_marks[p][j]
            for c in _CATEGORIES:
                self.category_count[c][p] += other.category_count[c][p]
            for j in (0, 1):
                self.checker_error[p][j] = f32(self.checker_error[p][j] + other.checker_error[p][j])
                for c in _CATEGORIES:
                    mine = self.category_error[c][p]
                    mine[j] = f32(mine[j] + other.category_error[c][p][j])
                self.luck[p][j] = f32(self.luck[p][j] + other.luck[p][j])
        self.dice = self.dice or other.dice
        if other.actual[0] >= 0 or other.actual[1] >= 0:  # the game's result is known
            for p in (0, 1):
                self.actual[p] = f32(self.actual[p] + other.actual[p])
                self.luck_adjusted[p] = f32(self.luck_adjusted[p] + other.luck_adjusted[p])
                self.variance_actual[p] = _variance(self.variance_actual[p], self.actual[p],
                                                    other.actual[p], self.games)  # fmt: skip
                self.variance_luck_adjusted[p] = _variance(
                    self.variance_luck_adjusted[p], self.luck_adjusted[p],
                    other.luck_adjusted[p], self.games)  # fmt: skip
        return self

    # ------------------------------------------------------------------ derived
    def cube_error(self, p: int, j: int) -> np.float32:
        """The cube errors' total (``j`` 0: EMG, 1: MWC), gnubg's sum order."""
        total = f32(0)
        for c in _CATEGORIES:
            total = f32(total + self.category_error[c][p][j])
        return total


def _variance(var: np.float32, total: np.float32, added: np.float32, n: int) -> np.float32:
    """gnubg's ``UpdateVariance``: the running sample variance of the games' results after
    the ``n``-th game added ``added`` to make ``total`` (single precision)."""
    if n <= 1:
        return f32(0)
    mu_new = f32(total / f32(n))
    mu_old = f32(f32(total - added) / f32(n - 1))
    d = f32(mu_new - mu_old)
    keep = f32(f32(1.0) - f32(f32(1.0) / f32(f32(n) - f32(1.0))))
    return f32(f32(var * keep) + f32(f32(f32(n) * d) * d))


# ----------------------------------------------------------------------------- results


def _rate(total: np.float32, n: int) -> float | None:
    return float(f32(total / f32(n))) if n else None


@dataclass(frozen=True)
class PlayerStatistics:
    """One player's statistics of a game or a match (see the module notes). Errors and
    luck are positive sums (EMG and MWC; money: points); rates are per decision (EMG,
    MWC), None without decisions; ``*_rating`` are gnubg's labels (None without
    decisions)."""

    name: str
    total_moves: int
    unforced_moves: int
    moves_marked: dict[str, int]
    checker_error_emg: float
    checker_error_mwc: float
    checker_rate_emg: float | None
    checker_rate_mwc: float | None
    checker_rating: str | None
    total_cube: int
    close_cube: int
    doubles: int
    takes: int
    passes: int
    cube_errors: dict[str, dict[str, float]]
    cube_error_emg: float
    cube_error_mwc: float
    cube_rate_emg: float | None
    cube_rate_mwc: float | None
    cube_rating: str | None
    rolls_marked: dict[str, int]
    luck_emg: float
    luck_mwc: float
    luck_rate_emg: float | None
    luck_rate_mwc: float | None
    luck_rating: str | None
    error_emg: float
    error_mwc: float
    error_rate_emg: float | None
    error_rate_mwc: float | None
    overall_rating: str | None
    snowie_error_rate: float | None
    pr: float | None
    actual_result: float
    luck_adjusted_result: float
    fibs_rating: float | None
    checker_rating_loss: float | None
    cube_rating_loss: float | None

    def as_dict(self) -> JSONObject:
        """The JSON object of the player's statistics (the fields by name)."""
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


def _player(sc: Statistics, p: int, name: str, length: int) -> PlayerStatistics:
    ch = sc.checker_error[p]
    cube = (sc.cube_error(p, 0), sc.cube_error(p, 1))
    tot = (f32(ch[0] + cube[0]), f32(ch[1] + cube[1]))
    n_ch, n_cu = sc.unforced_moves[p], sc.close_cube[p]
    n_all = n_ch + n_cu
    ch_rate = _rate(ch[0], n_ch)
    cu_rate = _rate(cube[0], n_cu)
    all_rate = _rate(tot[0], n_all)
    n_moves = sc.total_moves[0] + sc.total_moves[1]
    luck_rate = _rate(sc.luck[p][0], sc.total_moves[p])
    cube_errors = {c: {"count": sc.category_count[c][p], "emg": float(sc.category_error[c][p][0]),
                       "mwc": float(sc.category_error[c][p][1])} for c in _CATEGORIES}  # fmt: skip
    fibs = ch_loss = cu_loss = None
    if length:
        if n_all:
            fibs = _fibs_absolute(ch_rate or 0.0, cu_rate or 0.0, length)
        if n_ch:
            ch_loss = float(f32(f32(ch_rate or 0.0) * f32(f32(8798.0)
                                                          + f32(25526.0) / f32(length))))
        if n_cu:
            cu_loss = float(f32(f32(cu_rate or 0.0) * f32(f32(863.0) - f32(519.0) / f32(length))))
    return PlayerStatistics(
        name, sc.total_moves[p], n_ch,
        dict(zip(("very bad", "bad", "doubtful", "unmarked"), sc.marked[p], strict=True)),
        float(ch[0]), float(ch[1]), ch_rate, _rate(ch[1], n_ch),
        rating(ch_rate) if ch_rate is not None else None,
        sc.total_cube[p], n_cu, sc.doubles[p], sc.takes[p], sc.passes[p], cube_errors,
        float(cube[0]), float(cube[1]), cu_rate, _rate(cube[1], n_cu),
        rating(cu_rate) if cu_rate is not None else None,
        dict(zip(("very unlucky", "unlucky", "unmarked", "lucky", "very lucky"),
                 sc.luck_marks[p], strict=True)),
        float(sc.luck[p][0]), float(sc.luck[p][1]), luck_rate,
        _rate(sc.luck[p][1], sc.total_moves[p]),
        _luck_rating(luck_rate) if luck_rate is not None else None,
        float(tot[0]), float(tot[1]), all_rate, _rate(tot[1], n_all),
        rating(all_rate) if all_rate is not None else None,
        float(f32(f32(1000.0) * f32(tot[0] / f32(n_moves)))) if n_moves else None,
        500.0 * all_rate if all_rate is not None else None,
        float(sc.actual[p]), float(sc.luck_adjusted[p]), fibs, ch_loss, cu_loss,
    )  # fmt: skip


def _luck_rating(rate: float) -> str:
    return LUCK_RATINGS[_luck_index(f32(f32(rate) * f32(10)))]


def _fibs_absolute(checker: float, cube: float, length: int) -> float:
    n = f32(length)
    a = f32(f32(checker) * f32(f32(8798.0) + f32(25526.0) / n))
    b = f32(f32(cube) * f32(f32(863.0) - f32(519.0) / n))
    return float(f32(f32(FIBS_OFFSET) - f32(a + b)))


@dataclass(frozen=True)
class MatchStatistics:
    """Both players' statistics (``players``, the record's order) of a game or a match
    (gnubg's text of ``show statistics``:
    :func:`~mathbg.analysis.match_audit.report.gnubg_statistics_text`)."""

    players: tuple[PlayerStatistics, PlayerStatistics]
    length: int
    games: int
    luck_fibs_difference: float | None
    ppg: tuple[tuple[float, ...], tuple[float, ...]] | None = None

    @classmethod
    def of(cls, sc: Statistics, names: Sequence[str], length: int) -> MatchStatistics:
        """From gnubg's counters."""
        players = (_player(sc, 0, names[0], length), _player(sc, 1, names[1], length))
        diff = None
        if length:
            r = f32(f32(f32(0.5) + sc.actual[0]) - sc.luck[0][1]) + sc.luck[1][1]
            if f32(0) < r < f32(1):
                x = f32(f32(-2000.0) / np.sqrt(f32(length)))
                x = f32(x * np.log10(f32(f32(1.0) / r - f32(1.0))))
                diff = float(max(x, f32(-2100.0)))
        ppg = None
        if not length and sc.dice and sc.games > 1:
            ppg = (_ppg(sc.actual, sc.variance_actual, sc.games),
                   _ppg(sc.luck_adjusted, sc.variance_luck_adjusted, sc.games))  # fmt: skip
        return cls(players, length, sc.games, diff, ppg)

    def as_dict(self) -> JSONObject:
        """The JSON object of the statistics (``players``, ``games``,
        ``luck_fibs_difference``, ``ppg``: a money session's advantage in points per game
        and gnubg's interval, actual and luck-adjusted, each ``[mean, low, high]`` per
        player)."""
        ppg = None if self.ppg is None else {
            name: [list(row[0:3]), list(row[3:6])]
            for name, row in zip(("actual", "luck_adjusted"), self.ppg, strict=True)}
        return {"players": [p.as_dict() for p in self.players], "games": self.games,
                "luck_fibs_difference": self.luck_fibs_difference, "ppg": ppg}  # fmt: skip


def _ppg(total: list[np.float32], var: list[np.float32], games: int) -> tuple[float, ...]:
    """gnubg's money advantage lines: per player the points per game, and the ends of its
    "95% confidence interval", which gnubg centres on the total, not on the mean
    (formatgs.c: ``total -+ 1.95996 sqrt(variance / games)``)."""
    out: list[float] = []
    for p in (0, 1):
        ci = f32(f32(1.95996) * np.sqrt(f32(var[p] / f32(games))))
        out += [float(f32(total[p] / f32(games))), float(f32(total[p] - ci)),
                float(f32(total[p] + ci))]
    return tuple(out)


def sum_games(games: Iterable[Statistics]) -> Statistics:
    """gnubg's match context: the games' contexts added one by one (in single precision,
    as gnubg's ``AddStatcontext``).

    Examples
    --------
    >>> a, b = Statistics(), Statistics()
    >>> a.unforced_moves[0], b.unforced_moves[0] = 3, 4
    >>> sum_games([a, b]).unforced_moves[0]
    7
    """
    total = Statistics()
    for g in games:
        total += g
    return total


def result_gain(met: MET | None, length: int, score: tuple[int, int], winner: int,
                points: int, crawford: bool) -> float:  # fmt: skip
    """The winner's gain of a game (gnubg ``getME`` after minus ``getMEAtScore`` before; money:
    the points), single precision.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> round(result_gain(t, 5, (0, 0), 0, 1, False), 5) == round(t.mwc((4, 5)) - 0.5, 5)
    True
    """
    from mathbg.analysis.match_audit.equity import mwc_after, mwc_now

    if not length:
        return float(points)
    assert met is not None
    away = [length - score[0], length - score[1]]
    post = crawford or 1 in away
    after = list(away)
    after[winner] -= points
    gain = f32(f32(mwc_after(met, (after[0], after[1]), winner, post))
               - f32(mwc_now(met, (away[0], away[1]), winner, crawford)))
    return float(gain)
