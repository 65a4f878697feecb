"""Evaluators: a position (and optionally its match state) -> cubeless probabilities.

Every evaluator answers with an :class:`Evaluation`: gnubg's five outputs for the side on
roll, ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)`` with
*cumulative* gammons (a backgammon also counts as a gammon), as gnubg prints them, plus
the engine's name and plies, the position class and gnubg 1.07's 0-ply cube life for it.

Engines
-------
``exact``
    Both sides inside the two-sided bearoff database (6 points x 6 checkers): the exact
    probability of bearing off first (no gammons are possible there), the exact money
    cubeful equities, and exact match play through :func:`mathbg.bearoff.match_equity`.
``race``
    :func:`mathbg.race.race_chances` for positions without contact.
``gnubg-nn``
    gnubg's neural networks from the ``gnubg-nn`` PyPI package (``mathbg[engine]``):
    :mod:`mathbg.analysis.gnubg_nn`.
``gnubg``
    The GNU Backgammon program run as a subprocess: :mod:`mathbg.analysis.gnubg_program`.
``given``
    Probabilities the user supplies.
``auto``
    ``exact``, else ``race``, else ``gnubg-nn``, else ``gnubg``, else
    :class:`mathbg.errors.EngineNotAvailableError` naming what to install.

Cube life
---------
gnubg 1.07.001's 0-ply cube efficiency by position class (eval.c ``EvalEfficiency``,
``show cubeefficiency``): contact and crashed positions 0.68; races
``0.55 + 0.00125 x (roller's pips)`` clamped to [0.6, 0.7]
(:func:`mathbg.race.evaluate.race_cube_life`); one-sided bearoffs (both sides on their
6 home points) 0.6. Inside the two-sided database gnubg backs the cube life out of the
exact money equities (:func:`mathbg.race.race_cube_decision` does the same).

References
----------
GNU Backgammon 1.07.001 eval.c (``ClassifyPosition``, ``EvalEfficiency``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from mathbg.errors import InvalidParameterError, InvalidPositionError, MathbgError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.cube import CubeOwner
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "CONTACT_CUBE_LIFE",
    "ENGINES",
    "ONE_SIDED_CUBE_LIFE",
    "EngineNotAvailableError",
    "Evaluation",
    "Evaluator",
    "ExactEvaluator",
    "GivenEvaluator",
    "RaceEvaluator",
    "as_position",
    "check_probabilities",
    "cube_life",
    "get_evaluator",
    "position_class",
]

#: Engine names accepted by :func:`get_evaluator` (and ``mathbg analyze --engine``).
ENGINES: tuple[str, ...] = ("auto", "exact", "race", "gnubg-nn", "gnubg", "given")
#: gnubg 1.07's 0-ply cube life for contact and crashed positions.
CONTACT_CUBE_LIFE = 0.68
#: gnubg 1.07's cube life for one-sided bearoff positions (``rOSCubeX``).
ONE_SIDED_CUBE_LIFE = 0.6
#: Position classes (gnubg's, merged where the cube life is the same).
CLASSES: tuple[str, ...] = ("contact", "race", "one-sided bearoff", "two-sided bearoff")
#: The two-sided database the exact engine and gnubg's BEAROFF2 class cover.
TWO_SIDED_POINTS = 6
TWO_SIDED_CHECKERS = 6


class EngineNotAvailableError(MathbgError):
    """An evaluation engine that is not installed or cannot evaluate the position."""


# ----------------------------------------------------------------------------- positions


def as_position(position: Any) -> tuple[Position, MatchState | None]:
    """A checked, playable position and its match state (or None) from any input.

    ``position`` is a :class:`~mathbg.rules.position.Position`, a gnubg Position ID,
    ``POSID:MATCHID`` or an XGID. Raises :class:`~mathbg.errors.InvalidPositionError` for
    an impossible or finished position (a side with no checker left).
    """
    from mathbg.rules.position import Position

    match = None
    if isinstance(position, Position):
        pos = position.check()
    elif isinstance(position, str):
        from mathbg.rules.ids import parse_id

        pos, match = parse_id(position)
    else:
        raise InvalidPositionError(
            "a position is a Position or a Position ID / POSID:MATCHID / XGID string; "
            f"got {type(position).__name__}"
        )
    if pos.is_game_over():
        raise InvalidPositionError(
            f"position {pos.id}: the game is over (a side has no checker left)"
        )
    if match is not None and match.is_over:
        raise InvalidPositionError("the match is over: nothing left to analyse")
    return pos, match


def _top(row: Sequence[int]) -> int:
    """Highest occupied point of a side (bar = 25), 0 when all are off."""
    return next((k + 1 for k in range(len(row) - 1, -1, -1) if row[k]), 0)


def position_class(position: Position) -> str:
    """gnubg's position class as far as the cube life goes.

    ``"contact"`` (gnubg's contact and crashed classes), ``"race"``, ``"one-sided
    bearoff"`` (both sides on their home points, gnubg BEAROFF1) or ``"two-sided
    bearoff"`` (both sides within 6 points and 6 checkers, gnubg BEAROFF2).
    """
    if position.has_contact():
        return "contact"
    me, opp = position.player, position.opponent
    tops = (_top(me), _top(opp))
    if max(tops) <= TWO_SIDED_POINTS:
        if sum(me) <= TWO_SIDED_CHECKERS and sum(opp) <= TWO_SIDED_CHECKERS:
            return "two-sided bearoff"
        return "one-sided bearoff"
    return "race"


def cube_life(position: Position, klass: str | None = None) -> float:
    """gnubg 1.07's 0-ply cube life of ``position`` (see the module notes).

    The two-sided class gets 0.6 here (gnubg's cap on the life it backs out of the exact
    equities); the score matrix follows gnubg's exact rule there.
    """
    klass = klass or position_class(position)
    if klass == "contact":
        return CONTACT_CUBE_LIFE
    if klass == "race":
        from mathbg.race.evaluate import race_cube_life

        return float(race_cube_life(position.pips()[0]))
    return ONE_SIDED_CUBE_LIFE


def check_probabilities(probs: Any) -> tuple[float, float, float, float, float]:
    """Validate gnubg's five outputs (cumulative gammons) and return them as floats.

    Needs ``0 <= win_bg <= win_gammon <= win <= 1`` and ``0 <= lose_bg <= lose_gammon
    <= 1 - win``.
    """
    try:
        p = np.asarray(probs, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"probabilities must be 5 numbers, got {probs!r}") from None
    if p.shape != (5,):
        raise InvalidParameterError(
            "give 5 probabilities W,WG,WB,LG,LB (win, win gammon, win backgammon, lose "
            f"gammon, lose backgammon; cumulative gammons), got {p.size}"
        )
    w, wg, wb, lg, lb = (float(v) for v in p)
    tol = 1e-6  # gnubg's outputs are single precision
    if not (
        np.all(np.isfinite(p))
        and -tol <= wb <= wg + tol
        and wg <= w + tol
        and w <= 1 + tol
        and -tol <= lb <= lg + tol
        and lg <= 1 - w + tol
    ):
        raise InvalidParameterError(
            "inconsistent probabilities: need 0 <= WB <= WG <= W <= 1 and "
            f"0 <= LB <= LG <= 1 - W (cumulative gammons); got {w}, {wg}, {wb}, {lg}, {lb}"
        )
    w = min(max(w, 0.0), 1.0)
    wg = min(max(wg, 0.0), w)
    wb = min(max(wb, 0.0), wg)
    lg = min(max(lg, 0.0), 1.0 - w)
    lb = min(max(lb, 0.0), lg)
    return (w, wg, wb, lg, lb)


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Evaluation:
    """Cubeless probabilities of the side on roll and where they came from.

    Attributes
    ----------
    probabilities : tuple of 5 floats
        ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, cumulative
        gammons (gnubg's outputs).
    engine : str
        The engine that produced them (``exact``, ``race``, ``gnubg-nn``, ``gnubg``,
        ``given``).
    plies : int or None
        Its search depth (None where plies do not apply: exact, race, given).
    position_class : str
        :func:`position_class`.
    cube_life : float
        gnubg 1.07's 0-ply cube life for the class (:func:`cube_life`).
    method : str
        A finer description (e.g. the race evaluator's method).
    exact : bool
        The probabilities are exact (the two-sided bearoff database).
    gnubg : dict or None
        The gnubg engine's own 0-ply cubeful decision at the position's match state
        (``optimal``, ``no_double``, ``double_take``, ``double_pass`` as gnubg's
        normalised equities, ``action`` as gnubg words it), else None.
    """

    probabilities: tuple[float, float, float, float, float]
    engine: str
    plies: int | None
    position_class: str
    cube_life: float
    method: str = ""
    exact: bool = False
    gnubg: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def win(self) -> float:
        return self.probabilities[0]

    @property
    def win_gammon(self) -> float:
        return self.probabilities[1]

    @property
    def win_backgammon(self) -> float:
        return self.probabilities[2]

    @property
    def lose_gammon(self) -> float:
        return self.probabilities[3]

    @property
    def lose_backgammon(self) -> float:
        return self.probabilities[4]

    def probabilities_dict(self) -> dict[str, float]:
        """The five probabilities by name (the JSON ``probabilities`` object)."""
        names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
        return dict(zip(names, self.probabilities, strict=True))

    def engine_dict(self) -> dict[str, Any]:
        """``{"name": engine, "plies": plies}`` (the JSON ``engine`` object)."""
        return {"name": self.engine, "plies": self.plies}


@runtime_checkable
class Evaluator(Protocol):
    """Anything that turns positions into :class:`Evaluation` objects."""

    name: str
    plies: int | None

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        """Evaluate one position (the side on roll's view)."""
        ...

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        """Evaluate many positions (batched where the engine can)."""
        ...


class _Base:
    """Default batch: one position at a time."""

    name = ""
    plies: int | None = None

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        raise NotImplementedError  # pragma: no cover

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        ms = list(matches) if matches is not None else [None] * len(positions)
        return [self.evaluate(p, m) for p, m in zip(positions, ms, strict=True)]


class GivenEvaluator(_Base):
    """Probabilities supplied by the user (the same for every position)."""

    name = "given"

    def __init__(self, probabilities: Any) -> None:
        self.probabilities = check_probabilities(probabilities)

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        klass = position_class(position)
        return Evaluation(self.probabilities, "given", None, klass, cube_life(position, klass),
                          method="given by the user")  # fmt: skip


def _sides(position: Position) -> tuple[list[int], list[int]]:
    """Both sides' counts on points 1..6 (roller first), for the bearoff databases."""
    return list(position.player[:TWO_SIDED_POINTS]), list(position.opponent[:TWO_SIDED_POINTS])


class ExactEvaluator(_Base):
    """The two-sided bearoff database: exact chances when both sides fit (6 x 6)."""

    name = "exact"

    def covers(self, position: Position) -> bool:
        """Both sides fit the two-sided database (no contact, 6 points, <= 6 checkers)."""
        return position_class(position) == "two-sided bearoff"

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        if not self.covers(position):
            raise EngineNotAvailableError(
                f"position {position.id} is not a bearoff of at most {TWO_SIDED_CHECKERS} "
                f"checkers a side on the {TWO_SIDED_POINTS} home points: the exact engine "
                "does not cover it (use --engine race, gnubg-nn or gnubg)"
            )
        from mathbg.race import race_chances

        ch = race_chances(position)
        probs = check_probabilities(ch.probabilities)
        return Evaluation(probs, "exact", None, "two-sided bearoff", ONE_SIDED_CUBE_LIFE,
                          method=ch.method, exact=True)  # fmt: skip

    def money(self, position: Position, *, beavers: bool = True) -> Any:
        """The exact money cube decision (cube centred) from the two-sided database."""
        from mathbg.race import race_cube_decision

        return race_cube_decision(position, beavers=beavers)

    def match(
        self,
        position: Position,
        away: tuple[int, int],
        cube: int,
        owner: CubeOwner | str,
        crawford: bool,
        met: Any,
    ) -> Any:
        """The exact match cube decision (:func:`mathbg.bearoff.match_equity`), solved in
        the smallest bearoff space holding both sides (values are the same in any space
        that holds them: no play leaves it)."""
        from mathbg.bearoff import match_equity

        me, opp = _sides(position)
        points = max(_top(me), _top(opp), 1)
        checkers = max(sum(me), sum(opp), 1)
        return match_equity(
            me[:points],
            opp[:points],
            away=away,
            cube=cube,
            owner=owner,
            crawford=crawford,
            met=met,
            points=points,
            checkers=checkers,
        )


class RaceEvaluator(_Base):
    """mathbg's race evaluator (:func:`mathbg.race.race_chances`) for positions without
    contact: exact in the two-sided database, one-sided databases, else a one-sided
    rollout."""

    name = "race"

    def __init__(self, samples: int | None = None) -> None:
        self.samples = samples

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        if position.has_contact():
            raise EngineNotAvailableError(
                f"position {position.id} has contact: the race engine only takes positions "
                "without contact (use --engine gnubg-nn or gnubg)"
            )
        from mathbg.race import race_chances

        kwargs = {} if self.samples is None else {"samples": self.samples}
        ch = race_chances(position, **kwargs)
        klass = position_class(position)
        return Evaluation(check_probabilities(ch.probabilities), "race", None, klass,
                          cube_life(position, klass), method=ch.method,
                          exact=klass == "two-sided bearoff")  # fmt: skip


# ----------------------------------------------------------------------------- choosing


def gnubg_nn_installed() -> bool:
    """Is the ``gnubg-nn`` package importable?"""
    return importlib.util.find_spec("gnubg_nn") is not None


def gnubg_program_installed() -> bool:
    """Is the GNU Backgammon program on PATH or in /usr/games?"""
    from mathbg.analysis.gnubg_program import find_gnubg

    return find_gnubg() is not None


_INSTALL = {
    "gnubg-nn": "the gnubg-nn package is not installed: pip install 'mathbg[engine]' "
    "(or pip install gnubg-nn)",
    "gnubg": "the GNU Backgammon program is not installed: apt-get install gnubg "
    "(or put gnubg on PATH)",
}


def get_evaluator(
    engine: str = "auto", *, plies: int | None = None, probabilities: Any = None
) -> Evaluator:
    """The evaluator named ``engine`` (one of :data:`ENGINES`).

    ``plies`` applies to ``gnubg-nn`` and ``gnubg`` (default 0); ``probabilities`` is
    required by ``given``. ``auto`` returns an evaluator that picks per position.

    Raises
    ------
    EngineNotAvailableError
        For ``gnubg-nn`` or ``gnubg`` when not installed (the message names what to
        install).
    InvalidParameterError
        For an unknown engine name, or ``given`` without probabilities.
    """
    name = str(engine).strip().lower()
    if name not in ENGINES:
        choices = ", ".join(ENGINES)
        raise InvalidParameterError(f"unknown engine {engine!r}; choose one of {choices}")
    if plies is not None and (int(plies) != plies or plies < 0):
        raise InvalidParameterError(f"plies must be a non-negative integer, got {plies}")
    if name == "given" or (probabilities is not None and name == "auto"):
        if probabilities is None:
            raise InvalidParameterError("the given engine needs --probs W,WG,WB,LG,LB")
        return GivenEvaluator(probabilities)
    if probabilities is not None:
        raise InvalidParameterError(f"--probs goes with --engine given, not {name}")
    if name == "exact":
        return ExactEvaluator()
    if name == "race":
        return RaceEvaluator()
    if name == "gnubg-nn":
        if not gnubg_nn_installed():
            raise EngineNotAvailableError(_INSTALL["gnubg-nn"])
        from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

        return GnubgNNEvaluator(plies=plies or 0)
    if name == "gnubg":
        if not gnubg_program_installed():
            raise EngineNotAvailableError(_INSTALL["gnubg"])
        from mathbg.analysis.gnubg_program import GnubgEvaluator

        return GnubgEvaluator(plies=plies or 0)
    return AutoEvaluator(plies=plies)


class AutoEvaluator(_Base):
    """``exact``, else ``race``, else ``gnubg-nn``, else ``gnubg`` (per position)."""

    name = "auto"

    def __init__(self, plies: int | None = None) -> None:
        self.plies = plies
        self._exact = ExactEvaluator()
        self._race = RaceEvaluator()
        self._contact: Evaluator | None = None

    def contact_engine(self) -> Evaluator:
        """The engine for contact positions: gnubg-nn, else the gnubg program."""
        if self._contact is None:
            if gnubg_nn_installed():
                from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

                self._contact = GnubgNNEvaluator(plies=self.plies or 0)
            elif gnubg_program_installed():
                from mathbg.analysis.gnubg_program import GnubgEvaluator

                self._contact = GnubgEvaluator(plies=self.plies or 0)
            else:
                raise EngineNotAvailableError(
                    "a contact position needs a neural-network engine: "
                    + _INSTALL["gnubg-nn"]
                    + "; or "
                    + _INSTALL["gnubg"].split(": ", 1)[1]
                )
        return self._contact

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        return self.evaluate_many([position], [match])[0]

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        ms = list(matches) if matches is not None else [None] * len(positions)
        out: list[Evaluation | None] = [None] * len(positions)
        contact = []
        for i, (p, m) in enumerate(zip(positions, ms, strict=True)):
            if self._exact.covers(p):
                out[i] = self._exact.evaluate(p, m)
            elif not p.has_contact():
                out[i] = self._race.evaluate(p, m)
            else:
                contact.append(i)
        if contact:
            engine = self.contact_engine()
            done = engine.evaluate_many([positions[i] for i in contact], [ms[i] for i in contact])
            for i, ev in zip(contact, done, strict=True):
                out[i] = ev
        return [replace(e) for e in out if e is not None]
