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
:func:`mathbg.cube.life.cube_life` of the position's class (gnubg 1.07.001's 0-ply cube
efficiency). Inside the two-sided database gnubg backs the cube life out of the exact
money equities (:func:`mathbg.race.race_cube_decision` does the same).

References
----------
GNU Backgammon 1.07.001 eval.c (``ClassifyPosition``, ``EvalEfficiency``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mathbg.analysis.base import (
    TWO_SIDED_CHECKERS,
    TWO_SIDED_POINTS,
    BatchEvaluator,
    Board,
    Candidates,
    EngineNotAvailableError,
    Evaluation,
    Evaluator,
    GameEnd,
    as_position,
    check_probabilities,
    evaluation_class,
    match_list,
    top_point,
)
from mathbg.cube.life import BEAROFF_CUBE_LIFE, cube_life
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from mathbg.cube.decisions import CubeDecision
    from mathbg.met.table import MET
    from mathbg.rules.cube import CubeOwner
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "AutoEvaluator",
    "EngineNotAvailableError",
    "Evaluation",
    "Evaluator",
    "ExactEvaluator",
    "ExactPlayer",
    "GivenEvaluator",
    "RaceEvaluator",
    "as_position",
    "check_probabilities",
    "evaluation_class",
    "gnubg_nn_installed",
    "gnubg_program_installed",
]


class _Base:
    """Default batch: one position at a time."""

    name = ""
    plies: int | None = None

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        raise NotImplementedError  # pragma: no cover

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        ms = match_list(positions, matches)
        return [self.evaluate(p, m) for p, m in zip(positions, ms, strict=True)]


class GivenEvaluator(_Base):
    """Probabilities supplied by the user (the same for every position)."""

    name = "given"

    def __init__(self, probabilities: Any) -> None:
        self.probabilities = check_probabilities(probabilities)

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        klass = evaluation_class(position)
        life = cube_life(klass, position.pips()[0])
        how = "given by the user"
        return Evaluation(self.probabilities, "given", None, klass, life, method=how)


def _sides(position: Position) -> tuple[list[int], list[int]]:
    """Both sides' counts on points 1..6 (roller first), for the bearoff databases."""
    return list(position.player[:TWO_SIDED_POINTS]), list(position.opponent[:TWO_SIDED_POINTS])


class ExactEvaluator(_Base):
    """The two-sided bearoff database: exact chances when both sides fit (6 x 6)."""

    name = "exact"

    def covers(self, position: Position) -> bool:
        """Both sides fit the two-sided database (no contact, 6 points, <= 6 checkers)."""
        return evaluation_class(position) == "two-sided bearoff"

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
        return Evaluation(probs, "exact", None, "two-sided bearoff", BEAROFF_CUBE_LIFE,
                          method=ch.method, exact=True)  # fmt: skip

    def money(
        self, position: Position, *, owner: CubeOwner | str = "centre", beavers: bool = True
    ) -> CubeDecision:
        """The exact money cube decision (the cube centred, or held by ``owner``: the
        roller ``"player"`` or the ``"opponent"``) from the two-sided database."""
        from mathbg.race import race_cube_decision

        return race_cube_decision(position, owner=str(owner), beavers=beavers)

    def match(
        self,
        position: Position,
        away: tuple[int, int],
        cube: int,
        owner: CubeOwner | str,
        crawford: bool,
        met: MET | str,
        *,
        disk_cache: bool = False,
    ) -> CubeDecision:
        """The exact match cube decision (:func:`mathbg.bearoff.match_equity`), solved in
        the smallest bearoff space holding both sides (values are the same in any space
        that holds them: no play leaves it). ``disk_cache``: keep each score's solution in
        mathbg's cache directory (:func:`mathbg.bearoff.match_equity`)."""
        from mathbg.bearoff import match_equity

        me, opp = _sides(position)
        points = max(top_point(me), top_point(opp), 1)
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
            disk_cache=disk_cache,
        )


class ExactPlayer:
    """The exact match bearoff solver as a player: checker play *and* cube decisions from
    :func:`mathbg.bearoff.exact.match.solve_game` under the table being built, in bearoff
    races of up to 6 points and 14 checkers a side (``own_cube``: it plays its own games,
    the self-play tables' ``exact`` engine, only against itself and from a bearoff
    ``start``). The board methods of :class:`~mathbg.analysis.base.Player` do not apply."""

    name = "exact"
    label = "exact"
    own_cube = True

    def _refuse(self) -> InvalidParameterError:
        return InvalidParameterError(
            "the exact engine plays its own bearoff games (checkers and cube from the exact "
            "solver): it is no board player"
        )

    def chances(self, board: Board) -> tuple[float, float, float, float, float]:
        raise self._refuse()

    def cube_life(self, board: Board) -> float:
        raise self._refuse()

    def play(
        self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator
    ) -> Board | GameEnd:
        raise self._refuse()

    def roll_equities(self, board: Board) -> tuple[float, ...] | None:
        return None

    def candidates(self, board: Board, d1: int, d2: int, plies: int | None = None) -> Candidates:
        raise self._refuse()


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
        klass = evaluation_class(position)
        return Evaluation(check_probabilities(ch.probabilities), "race", None, klass,
                          cube_life(klass, position.pips()[0]), method=ch.method,
                          exact=klass == "two-sided bearoff")  # fmt: skip


# ----------------------------------------------------------------------------- choosing


def gnubg_nn_installed() -> bool:
    """Is the ``gnubg-nn`` package importable?

    Returns
    -------
    bool
        True when ``import gnubg_nn`` would succeed.

    Examples
    --------
    >>> isinstance(gnubg_nn_installed(), bool)
    True
    """
    return importlib.util.find_spec("gnubg_nn") is not None


def gnubg_program_installed() -> bool:
    """Is the GNU Backgammon program on PATH or in /usr/games?

    Returns
    -------
    bool
        True when :func:`mathbg.analysis.gnubg_program.find_gnubg` finds the program.

    Examples
    --------
    >>> isinstance(gnubg_program_installed(), bool)
    True
    """
    from mathbg.analysis.gnubg_program import find_gnubg

    return find_gnubg() is not None


#: What to install when a program-backed engine is missing.
INSTALL: dict[str, str] = {
    "gnubg-nn": "the gnubg-nn package is not installed: pip install 'mathbg[engine]' "
    "(or pip install gnubg-nn)",
    "gnubg": "the GNU Backgammon program is not installed: apt-get install gnubg "
    "(or put gnubg on PATH)",
}


class AutoEvaluator(BatchEvaluator):
    """``exact``, else ``race``, else (contact) ``native`` at 0 plies, ``gnubg-nn`` or
    ``gnubg`` deeper (per position)."""

    name = "auto"

    def __init__(self, plies: int | None = None) -> None:
        self.plies = plies
        self._exact = ExactEvaluator()
        self._race = RaceEvaluator()
        self._contact: Evaluator | None = None

    def contact_engine(self) -> Evaluator:
        """The engine for contact positions: at 0 plies the native engine (gnubg 1.07's
        networks in mathbg's kernels); deeper gnubg-nn, else the gnubg program."""
        if self._contact is None:
            if not self.plies:
                from mathbg.analysis.net.engine import NativeEvaluator

                self._contact = NativeEvaluator()
            elif gnubg_nn_installed():
                from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

                self._contact = GnubgNNEvaluator(plies=self.plies or 0)
            elif gnubg_program_installed():
                from mathbg.analysis.gnubg_program import GnubgEvaluator

                self._contact = GnubgEvaluator(plies=self.plies or 0)
            else:
                raise EngineNotAvailableError(
                    "a contact position needs a neural-network engine: "
                    + INSTALL["gnubg-nn"]
                    + "; or "
                    + INSTALL["gnubg"].split(": ", 1)[1]
                )
        return self._contact

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        ms = match_list(positions, matches)
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
