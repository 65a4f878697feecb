"""Matches without a cube: the Tavli match and single-variant matches, with match equities.

Rules
-----
- A match is won by the first player to reach ``length`` points; a game is worth 1
  (single) or 2 (gammon / mars / Plakoto's mother) points, credited only up to the points
  the winner still needs. There is no cube, hence no Crawford rule.
- The Tavli match plays Portes, Plakoto and Fevga in turn (Portes first), usually to 3, 5
  or 7 points (Wikipedia "Plakoto", "Fevga"; BrainKing Fevga rules; the seed text's
  "Tavli greco"). A single-variant match repeats one game (Tavla, Long Nardi, ...).
- With ``winner_starts_next`` (the Tavli and Long Nardi custom) the winner of a game
  starts the next one, rolling both dice; the first game, and a game after a drawn
  Plakoto game, start with the opening roll.

Match equity
------------
This module keeps the score. The chance of winning a match without a cube is computed in
:mod:`mathbg.met.nocube` (:func:`mathbg.met.match_mwc`, :func:`mathbg.met.rotation_met`),
which reads a :class:`VariantMatch` through its :meth:`~VariantMatch.away`,
:meth:`~VariantMatch.gammon_rates`, :meth:`~VariantMatch.draw_rates` and
:attr:`~VariantMatch.next_game_index`; :data:`DEFAULT_GAMMON_RATES` and
:data:`DEFAULT_DRAW_RATES` are the measured per-variant rates it uses by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.rules.ruleset import get_ruleset
from mathbg.rules.variants.geometry import Variant
from mathbg.rules.variants.rules import VariantRuleSet

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.game import GameResult, GameState
    from mathbg.rules.ruleset import RuleSet

__all__ = [
    "DEFAULT_DRAW_RATES",
    "DEFAULT_GAMMON_RATES",
    "TAVLI_ROTATION",
    "VariantMatch",
]

#: The games of a Tavli match, in order.
TAVLI_ROTATION: tuple[Variant, ...] = (Variant.PORTES, Variant.PLAKOTO, Variant.FEVGA)

#: Share of decisive games worth 2 points (gammon, mars, mother; backgammons included
#: for the standard game) when both sides play the heuristic player of
#: :mod:`mathbg.rules.variants.selfplay`, measured with ``mathbg selfplay --variant NAME
#: --games 4000 --seed 1 --player heuristic`` (standard error about 0.7 %). A property
#: of that simple player, not of expert play: pass measured rates for serious work.
DEFAULT_GAMMON_RATES: dict[Variant, float] = {
    Variant.BACKGAMMON: 0.1668,  # 611 gammons + 56 backgammons in 4000 games
    Variant.PORTES: 0.1618,  # 647 / 4000
    Variant.PLAKOTO: 0.2432,  # (316 gammons + 644 mothers) / 3947 decisive games
    Variant.FEVGA: 0.1500,  # 600 / 4000
    Variant.TAVLA: 0.1713,  # 685 / 4000
    Variant.LONG_NARDI: 0.1953,  # 781 / 4000
}

#: Share of games drawn (Plakoto only: both mothers pinned), measured as above (53 / 4000).
DEFAULT_DRAW_RATES: dict[Variant, float] = {Variant.PLAKOTO: 0.0133}


def _variant_of(rs: RuleSet) -> Variant:
    return rs.variant if isinstance(rs, VariantRuleSet) else Variant(rs.name)


@dataclass(frozen=True)
class VariantMatch:
    """A match to ``length`` points without a cube, its games taken from ``rotation`` in
    turn (see the module docstring).

    Parameters
    ----------
    length : int
        Points to win (>= 1; Tavli is usually played to 3, 5 or 7).
    rotation : tuple of RuleSet
        The rule sets of the games, cycled; one for a single-variant match.
    score : (int, int)
        Points of player 0 and player 1.
    games : int
        Games played so far (draws included); the next is ``rotation[games % len]``.
    starter : int or None
        The player who starts the next game (rolls first), or None for an opening roll.

    Raises
    ------
    InvalidScoreError
        For an impossible score; InvalidParameterError for an empty rotation or a rule
        set with a cube.
    """

    length: int
    rotation: tuple[RuleSet, ...]
    score: tuple[int, int] = (0, 0)
    games: int = 0
    starter: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "rotation", tuple(get_ruleset(rs) for rs in self.rotation))
        set_(self, "score", tuple(int(s) for s in self.score))
        if not self.rotation:
            raise InvalidParameterError("a match needs at least one game variant")
        if any(rs.cube for rs in self.rotation):
            raise InvalidParameterError(
                "a variant match has no cube: use MatchState for cube matches"
            )
        if int(self.length) != self.length or self.length < 1:
            raise InvalidScoreError(f"match length must be a positive integer, got {self.length}")
        if len(self.score) != 2 or min(self.score) < 0 or max(self.score) > self.length:
            raise InvalidScoreError(f"score {self.score} impossible in a {self.length}-point match")
        if min(self.score) >= self.length:
            raise InvalidScoreError("both players cannot have won the match")
        if self.games < 0:
            raise InvalidScoreError(f"games played must be >= 0, got {self.games}")
        if self.starter not in (None, 0, 1):
            raise InvalidScoreError(f"starter must be 0, 1 or None, got {self.starter}")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def tavli(cls, length: int = 5) -> VariantMatch:
        """A Tavli match: Portes, Plakoto, Fevga in turn, first to ``length`` points."""
        return cls(length=length, rotation=tuple(get_ruleset(v.value) for v in TAVLI_ROTATION))

    @classmethod
    def single(cls, variant: str | RuleSet, length: int) -> VariantMatch:
        """A match of one variant (e.g. ``"tavla"``, ``"long-nardi"``) to ``length``."""
        return cls(length=length, rotation=(get_ruleset(variant),))

    # ------------------------------------------------------------------ state
    @property
    def next_ruleset(self) -> RuleSet:
        """The rule set of the next game."""
        return self.rotation[self.games % len(self.rotation)]

    @property
    def is_over(self) -> bool:
        return max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        if not self.is_over:
            return None
        return 0 if self.score[0] >= self.length else 1

    def away(self, player: int) -> int:
        """Points ``player`` still needs."""
        return self.length - self.score[player]

    def after_game(self, result: GameResult) -> VariantMatch:
        """The match after a game ended with ``result`` (a draw changes no score).

        Raises
        ------
        InvalidScoreError
            If the match is already over.
        """
        if self.is_over:
            raise InvalidScoreError("the match is over")
        score = list(self.score)
        starter = None
        if result.winner is not None:
            score[result.winner] = min(self.length, score[result.winner] + result.points)
            if getattr(self.next_ruleset, "winner_starts_next", False):
                starter = result.winner
        return replace(self, score=(score[0], score[1]), games=self.games + 1, starter=starter)

    def new_game(self) -> GameState:
        """The next game: in phase OPENING, or ROLL for ``starter`` when the winner of the
        previous game starts it."""
        from mathbg.rules.game import GameState, Phase

        if self.is_over:
            raise InvalidScoreError("the match is over: no new game")
        state = GameState.new(variant=self.next_ruleset)
        if self.starter is None:
            return state
        pos = state.position if self.starter == 0 else state.position.swap()
        return replace(state, position=pos, turn=self.starter, phase=Phase.ROLL)

    # ------------------------------------------------------------------ rates
    @property
    def next_game_index(self) -> int:
        """Index in :attr:`rotation` of the next game."""
        return self.games % len(self.rotation)

    def gammon_rates(self, given: Sequence[float] | dict[Any, float] | None = None) -> list[float]:
        """``G_k`` for each game of the rotation: ``given`` (one per game, or a dict by
        variant), else :data:`DEFAULT_GAMMON_RATES`."""
        return _rates(self.rotation, given, DEFAULT_GAMMON_RATES, "gammon rates")

    def draw_rates(self, given: Sequence[float] | dict[Any, float] | None = None) -> list[float]:
        """``D_k`` for each game of the rotation: ``given`` (one per game, or a dict by
        variant), else :data:`DEFAULT_DRAW_RATES`."""
        return _rates(self.rotation, given, DEFAULT_DRAW_RATES, "draw rates")


def _rates(
    rotation: Sequence[RuleSet],
    given: Sequence[float] | dict[Any, float] | None,
    defaults: dict[Variant, float],
    what: str,
) -> list[float]:
    if given is None:
        out = [defaults.get(_variant_of(rs), 0.0) for rs in rotation]
    elif isinstance(given, dict):
        keyed = {Variant(str(getattr(k, "value", k))): float(v) for k, v in given.items()}
        out = [keyed.get(_variant_of(rs), defaults.get(_variant_of(rs), 0.0)) for rs in rotation]
    else:
        out = [float(x) for x in given]
        if len(out) != len(rotation):
            raise InvalidParameterError(
                f"{what}: {len(out)} values for a rotation of {len(rotation)} games"
            )
    for x in out:
        if not 0.0 <= x <= 1.0 or (what == "draw rates" and x >= 1.0):
            raise InvalidParameterError(f"{what} must be in [0, 1): got {x}")
    return out
