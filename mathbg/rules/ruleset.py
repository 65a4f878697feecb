"""Rule sets: the hook through which game variants plug into the rules model.

A :class:`RuleSet` bundles everything that differs between variants of the race game on
the 24-point board: the starting position, the legal-play generator, which results exist
(gammons, backgammons) and whether the doubling cube is used. The game flow
(:mod:`mathbg.rules.game`) asks its rule set for these, never the variant's name.

Standard backgammon is defined here. Its generator is the dedicated numba kernel behind
:meth:`Position.legal_plays`; the regional variants (Portes, Plakoto, Fevga, Tavla, Long
Nardi) are :class:`~mathbg.rules.variants.rules.VariantRuleSet` instances with their own
generator, registered in :data:`RULESETS` (the registry of :mod:`mathbg.rules.registry`) when
:mod:`mathbg.rules.variants` is first imported (which :func:`get_ruleset` does on demand),
so the standard game never pays for a variant's rules.

How a game ends under a rule set (:func:`classify_result`) is decided here too, from the
checkers alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mathbg.errors import UnknownVariantError
from mathbg.rules.match import ResultKind
from mathbg.rules.registry import RULESETS, lookup, register

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.plays import Plays
    from mathbg.rules.position import Position

__all__ = ["BACKGAMMON", "RULESETS", "RuleSet", "classify_result", "get_ruleset"]


def _standard_initial() -> Position:
    from mathbg.rules.position import INITIAL

    return INITIAL


def _standard_plays(position: Position, roll: Any) -> Plays[Position]:
    from mathbg.rules.plays import legal_plays

    return legal_plays(position, roll)


@dataclass(frozen=True)
class RuleSet:
    """A game variant.

    Attributes
    ----------
    name : str
        Lower-case name, e.g. ``"backgammon"``.
    initial : callable
        ``() -> Position``: the starting position (side on roll's view; symmetric starts
        need no orientation).
    plays : callable
        ``(Position, roll) -> Plays``: the legal plays of a roll.
    gammons, backgammons : bool
        Whether a gammon (x2) and a backgammon (x3) exist in this variant.
    cube : bool
        Whether the doubling cube is used.
    opening_doubles : bool
        Whether the opening roll may be a double (the opening-roll winner re-rolls both
        dice, as in Tavla) instead of playing the two single dice.
    checkers : int
        Checkers a side plays with (15; Hypergammon 1, 2 or 3): a loser who has borne off
        none of them loses a gammon.
    """

    name: str
    initial: Callable[[], Position]
    plays: Callable[[Position, Any], Plays[Position]]
    gammons: bool = True
    backgammons: bool = True
    cube: bool = True
    opening_doubles: bool = False
    checkers: int = 15

    def initial_position(self) -> Position:
        """The starting position."""
        return self.initial()

    def legal_plays(self, position: Position, roll: Any) -> Plays[Position]:
        """The legal plays of ``roll`` in ``position`` under this rule set."""
        return self.plays(position, roll)

    def game_end(self, position: Position) -> tuple[ResultKind | None, str] | None:
        """How the game ends right after a play leading to ``position`` (mover's view).

        Returns ``(kind, reason)`` with the mover as winner (reason ``"played"``; a
        variant may add others, and a ``kind`` of None for a draw), or None while the
        game goes on. Here: :func:`classify_result`.
        """
        kind = classify_result(position, self)
        return None if kind is None else (kind, "played")


#: Standard backgammon (international rules; gnubg's ``VARIATION_STANDARD``).
BACKGAMMON = RuleSet(name="backgammon", initial=_standard_initial, plays=_standard_plays)

register({"backgammon": BACKGAMMON})


def classify_result(position: Position, ruleset: RuleSet = BACKGAMMON) -> ResultKind | None:
    """How the game is won in ``position``, or None if nobody has finished.

    ``position`` is seen from the player who just finished (``position.player`` has no
    checker left on the board), e.g. a :attr:`Play.result`. The loser
    (``position.opponent``) has borne off a checker: single; none: gammon; none and a
    checker on the bar or in the winner's home board (the loser's points 19-24): backgammon.
    A rule set without gammons or backgammons caps the result.
    """
    c = position.cells
    if any(c[25:]):
        return None
    if sum(c[:25]) < ruleset.checkers:  # the loser has borne off a checker
        kind = ResultKind.SINGLE
    elif any(c[18:25]):  # loser's points 19..24 (winner's home board) and its bar
        kind = ResultKind.BACKGAMMON
    else:
        kind = ResultKind.GAMMON
    if kind == ResultKind.BACKGAMMON and not ruleset.backgammons:
        kind = ResultKind.GAMMON
    if kind == ResultKind.GAMMON and not ruleset.gammons:
        kind = ResultKind.SINGLE
    return kind


def get_ruleset(name: str | RuleSet = "backgammon") -> RuleSet:
    """The rule set called ``name`` (case-insensitive; ``long_nardi``, ``Long Nardi`` and
    ``nardi`` are ``long-nardi``); a RuleSet is returned unchanged.

    Raises
    ------
    UnknownVariantError
        For an unknown name, listing the known ones.
    """
    if isinstance(name, RuleSet):
        return name
    if not isinstance(name, str):
        raise UnknownVariantError(f"a variant name is a string, got {type(name).__name__}")
    rs: RuleSet = lookup(name)
    return rs
