"""Test engines, not shipped: importing this module registers ``instant``; ``legal`` is
planted by the registry test itself.

``instant``
    A player whose game ends at once, its result drawn from the given chances of the
    first roller: ``players=("instant:W,WG,WB,LG,LB", ...)``. With no cube
    (``cube_limit=1``) its self-play table is :func:`mathbg.met.cubeless` with gammon rate
    ``WG + LG`` and backgammon rate ``WB + LB``; its cube decisions read the same chances
    at the contact cube life.
``legal``
    A player that picks a legal play with mathbg's own move generator (the play that
    leaves the fewest pips, the first of equals) and evaluates every position as even:
    a new engine is one registration (the registry test plants it and plays a game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathbg.analysis.base import Board, GameEnd, check_probabilities
from mathbg.analysis.evaluation import GivenEvaluator
from mathbg.analysis.registry import engines, register_engine
from mathbg.cube.life import CONTACT_CUBE_LIFE

Probs = tuple[float, float, float, float, float]


class InstantPlayer:
    """The game ends at the first play: the mover wins with ``W`` (gammons ``WG``,
    backgammons ``WB``, cumulative) and loses gammons ``LG`` and backgammons ``LB``."""

    name = "instant"
    own_cube = False

    def __init__(self, probabilities: Any) -> None:
        self.probabilities: Probs = check_probabilities(probabilities)

    @property
    def label(self) -> str:
        return "instant:" + ",".join(f"{p:g}" for p in self.probabilities)

    def chances(self, board: Board) -> Probs:
        return self.probabilities

    def cube_life(self, board: Board) -> float:
        return CONTACT_CUBE_LIFE

    def play(self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator) -> GameEnd:
        w, wg, wb, lg, lb = self.probabilities
        if u < w:
            return GameEnd(True, 3 if u < wb else 2 if u < wg else 1)
        u -= w
        return GameEnd(False, 3 if u < lb else 2 if u < lg else 1)

    def roll_equities(self, board: Board) -> None:
        return None


class LegalPlayer:
    """mathbg's move generator picks the play (fewest pips left, the first of equals)."""

    name = "legal"
    label = "legal (fewest pips)"
    own_cube = False

    def chances(self, board: Board) -> Probs:
        return (0.5, 0.0, 0.0, 0.0, 0.0)

    def cube_life(self, board: Board) -> float:
        return CONTACT_CUBE_LIFE

    def play(
        self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator
    ) -> Board | GameEnd:
        from mathbg.rules.position import Position

        pos = Position.from_board(np.asarray(board))
        plays = pos.legal_plays((d1, d2))
        best = min((p.result for p in plays), key=lambda r: r.pips()[0], default=pos)
        if best.player_off == 15:
            loser = best.opponent
            if best.opponent_off:
                return GameEnd(True, 1)
            return GameEnd(True, 3 if any(loser[18:]) else 2)
        nxt = best.swap()
        return (tuple(nxt.board[0].tolist()), tuple(nxt.board[1].tolist()))

    def roll_equities(self, board: Board) -> None:
        return None


def _instant(probabilities: Any) -> InstantPlayer:
    return InstantPlayer(probabilities)


def register() -> None:
    """Register the ``instant`` test engine (once per process)."""
    if "instant" not in engines():
        register_engine("instant", None, capabilities=("play",), player=_instant,
                        player_options=("probabilities",),
                        help="test engine: the game ends at once")  # fmt: skip


def plant_legal(name: str = "legal") -> None:
    """Register the ``legal`` engine under ``name`` (it evaluates and plays)."""
    register_engine(name, lambda: GivenEvaluator([0.5, 0.0, 0.0, 0.0, 0.0]), options=(),
                    capabilities=("evaluate", "play"), player=LegalPlayer, player_options=(),
                    help="planted by a test: mathbg's move generator")  # fmt: skip


register()
