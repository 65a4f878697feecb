"""The doubling cube: rule options and state transitions.

Rules (bkgm.com/rules.html "Doubling"; gnubg manual "Optional rules"; the competitive and
online rules of the project's seed texts):

- The cube starts at 1, centred. Before rolling, the player on roll may double if the cube
  is centred or theirs. The opponent takes (owns the cube at twice the value) or drops
  (loses the game at the value before the double).
- Beaver (money only, an option): instead of taking, the doubled player takes and at once
  redoubles, keeping the cube; the original doubler may take that (the beaver's author
  keeps the cube) or drop it (losing twice the original value).
- Raccoon (money only, an option, only after a beaver): the original doubler answers the
  beaver by redoubling again and keeping the cube; the other player takes or drops.
- Cap (an option; online play caps the cube at 64): no double may raise the cube above
  the cap.
- Jacoby rule (money only, an option): gammons and backgammons count single while the
  cube is centred (gnubg's definition, ``play.c``): see :func:`mathbg.rules.match.game_points`.
- Automatic doubles (money only, an option, off by default): each tie of the opening roll
  doubles the centred cube, at most ``automatic_doubles`` times.
- Match play: no doubling in the Crawford game, and (gnubg's rule) none when the cube is
  already dead for the doubler (its value at least the points the doubler needs).

States are immutable: every transition returns a new :class:`CubeState` or raises
:class:`~mathbg.errors.IllegalActionError` saying why the action is not allowed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mathbg.errors import IllegalActionError, InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState

__all__ = ["ONLINE_RULES", "CubeOffer", "CubeOwner", "CubeRules", "CubeState", "OfferKind"]


class CubeOwner(enum.StrEnum):
    """Who owns the cube, seen from the player whose decision it is (the player on roll,
    or the first-named player of a score): one word per owner, everywhere in mathbg (the
    Python API, the CLI's ``--owner`` choices and the JSON outputs).

    ``CENTRE``: nobody (either side may double); ``PLAYER``: the player (only they may
    double; "the roller" when that player is on roll); ``OPPONENT``: the other side (the
    player may not double). :class:`CubeState` and the Match ID keep the owner as a player
    number instead (0, 1, or None when centred); :meth:`CubeOwner.of` converts.
    """

    CENTRE = "centre"
    PLAYER = "player"
    OPPONENT = "opponent"

    @classmethod
    def parse(cls, value: CubeOwner | str) -> CubeOwner:
        """The owner named by ``value`` (case-insensitive): ``"centre"``, ``"player"`` or
        ``"opponent"``.

        Raises
        ------
        InvalidParameterError
            For anything else.
        """
        if isinstance(value, cls):
            return value
        key = str(value).strip().lower()
        try:
            return cls(key)
        except ValueError:
            raise InvalidParameterError(
                f"cube owner must be one of centre, player, opponent; got {value!r}"
            ) from None

    @classmethod
    def of(cls, owner: int | None, player: int) -> CubeOwner:
        """The owner as ``player`` sees it, from an absolute owner (0, 1 or None)."""
        if owner is None:
            return cls.CENTRE
        return cls.PLAYER if owner == player else cls.OPPONENT


def _is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


@dataclass(frozen=True)
class CubeRules:
    """Optional cube rules.

    Parameters
    ----------
    beavers : bool
        Beavers allowed (money only).
    raccoons : bool
        Raccoons allowed (money only; needs ``beavers``).
    jacoby : bool
        Jacoby rule in force (money only).
    cap : int or None
        Highest cube value allowed (a power of two), None for no limit.
    automatic_doubles : int
        Maximum number of automatic doubles on opening-roll ties (money only); 0 = off.
    """

    beavers: bool = False
    raccoons: bool = False
    jacoby: bool = False
    cap: int | None = None
    automatic_doubles: int = 0

    def __post_init__(self) -> None:
        if self.cap is not None and not _is_power_of_two(self.cap):
            raise InvalidParameterError(f"cube cap {self.cap} is not a power of two")
        if self.raccoons and not self.beavers:
            raise InvalidParameterError("raccoons need beavers (a raccoon answers a beaver)")
        if self.automatic_doubles < 0:
            raise InvalidParameterError("automatic_doubles must be >= 0")

    @property
    def money_only_options(self) -> list[str]:
        """The options set here that only exist in money play."""
        names = ["beavers", "raccoons", "jacoby", "automatic_doubles"]
        return [n for n in names if getattr(self, n)]

    def check_match_play(self) -> None:
        """Raise InvalidParameterError if a money-only option is set (for match play)."""
        bad = self.money_only_options
        if bad:
            raise InvalidParameterError(
                f"{', '.join(bad)}: money-play options, not used in match play"
            )

    def allows(self, value: int) -> bool:
        """Is a cube of ``value`` within the cap?"""
        return self.cap is None or value <= self.cap


#: The rules of the online game described in the project's seed texts: cap 64, no beavers,
#: no Jacoby, no automatic doubles.
ONLINE_RULES = CubeRules(cap=64)


class OfferKind(enum.IntEnum):
    """What is on offer: a double, a beaver (redouble by the doubled player) or a raccoon."""

    DOUBLE = 1
    BEAVER = 2
    RACCOON = 3


#: The redoubles a responder may make at once: the action's name, what it answers (in
#: words) and the offer it answers.
_REDOUBLES: dict[OfferKind, tuple[str, str, OfferKind]] = {
    OfferKind.BEAVER: ("beaver", "a double", OfferKind.DOUBLE),
    OfferKind.RACCOON: ("raccoon", "a beaver", OfferKind.BEAVER),
}


@dataclass(frozen=True)
class CubeOffer:
    """A pending cube offer.

    Attributes
    ----------
    by : int
        The player who offered it.
    value : int
        The cube value if it is taken.
    kind : OfferKind
    """

    by: int
    value: int
    kind: OfferKind = OfferKind.DOUBLE

    @property
    def responder(self) -> int:
        """The player who must take or drop."""
        return 1 - self.by

    @property
    def drop_points(self) -> int:
        """Points the offerer wins if the offer is dropped: the value already accepted."""
        return self.value // 2


@dataclass(frozen=True)
class CubeState:
    """Cube value, owner and any pending offer.

    Attributes
    ----------
    value : int
        The cube value (a power of two).
    owner : int or None
        The player who may redouble, None when centred.
    offer : CubeOffer or None
        A double (or beaver, raccoon) waiting for an answer.
    """

    value: int = 1
    owner: int | None = None
    offer: CubeOffer | None = None

    def __post_init__(self) -> None:
        if not _is_power_of_two(self.value):
            raise InvalidParameterError(f"cube value {self.value} is not a power of two")
        if self.owner not in (None, 0, 1):
            raise InvalidParameterError(f"cube owner must be 0, 1 or None: {self.owner}")

    @property
    def centred(self) -> bool:
        """True while the cube is in the middle (never turned, or only automatically)."""
        return self.owner is None

    # ------------------------------------------------------------------ doubling
    def double_refusal(
        self, player: int, rules: CubeRules | None = None, match: MatchState | None = None
    ) -> str | None:
        """Why ``player`` may not double now (None if they may).

        The caller checks the timing (before rolling, on one's own turn).
        """
        rules = rules or CubeRules()
        if self.offer is not None:
            return "a cube offer is already pending"
        if self.owner is not None and self.owner != player:
            return f"player {player} does not own the cube (player {self.owner} does)"
        if not rules.allows(2 * self.value):
            return f"the cube is capped at {rules.cap}"
        if match is not None and match.length:
            if match.crawford:
                return "doubling is not allowed in the Crawford game"
            need = match.length - match.score[player]
            if self.value >= need:
                return (
                    f"the cube is dead: player {player} needs {need} point(s) and the cube "
                    f"is already {self.value}"
                )
        return None

    def can_double(
        self, player: int, rules: CubeRules | None = None, match: MatchState | None = None
    ) -> bool:
        """May ``player`` double (see :meth:`double_refusal`)?"""
        return self.double_refusal(player, rules, match) is None

    def double(
        self, player: int, rules: CubeRules | None = None, match: MatchState | None = None
    ) -> CubeState:
        """``player`` offers a double."""
        why = self.double_refusal(player, rules, match)
        if why:
            raise IllegalActionError(f"cannot double: {why}")
        return replace(self, offer=CubeOffer(by=player, value=2 * self.value))

    def _responder_check(self, player: int, action: str) -> CubeOffer:
        if self.offer is None:
            raise IllegalActionError(f"cannot {action}: no cube offer is pending")
        if player != self.offer.responder:
            raise IllegalActionError(
                f"cannot {action}: player {self.offer.responder} must answer the offer"
            )
        return self.offer

    def take(self, player: int) -> CubeState:
        """``player`` takes the pending offer.

        A taken double gives the taker the cube; a taken beaver or raccoon leaves it with
        the player who made it.
        """
        offer = self._responder_check(player, "take")
        owner = player if offer.kind == OfferKind.DOUBLE else offer.by
        return CubeState(value=offer.value, owner=owner, offer=None)

    def drop(self, player: int) -> tuple[int, int]:
        """``player`` drops the pending offer: returns ``(winner, points)`` of the game
        (before any match cap)."""
        offer = self._responder_check(player, "drop")
        return offer.by, offer.drop_points

    def beaver(
        self, player: int, rules: CubeRules | None = None, match: MatchState | None = None
    ) -> CubeState:
        """``player``, just doubled, takes and redoubles at once, keeping the cube."""
        return self._redouble(player, rules or CubeRules(), match, OfferKind.BEAVER)

    def raccoon(
        self, player: int, rules: CubeRules | None = None, match: MatchState | None = None
    ) -> CubeState:
        """``player``, just beavered, redoubles again, keeping the cube."""
        return self._redouble(player, rules or CubeRules(), match, OfferKind.RACCOON)

    def _redouble(
        self, player: int, rules: CubeRules, match: MatchState | None, kind: OfferKind
    ) -> CubeState:
        """The responder's immediate redouble ``kind`` (a beaver or a raccoon), checked."""
        action, answers, answered = _REDOUBLES[kind]
        offer = self._responder_check(player, action)
        if not (rules.beavers if kind == OfferKind.BEAVER else rules.raccoons):
            raise IllegalActionError(f"cannot {action}: {action}s are not allowed")
        if match is not None and match.length:
            raise IllegalActionError(f"cannot {action}: {action}s exist only in money play")
        if offer.kind != answered:
            raise IllegalActionError(f"cannot {action}: a {action} answers {answers}")
        if not rules.allows(2 * offer.value):
            raise IllegalActionError(f"cannot {action}: the cube is capped at {rules.cap}")
        return replace(self, offer=CubeOffer(by=player, value=2 * offer.value, kind=kind))

    def automatic_double(self, rules: CubeRules, done: int, money: bool = True) -> CubeState:
        """The cube after an opening-roll tie, ``done`` automatic doubles having happened.

        Doubles the centred cube when automatic doubles are on, in money play, below their
        maximum and within the cap; otherwise returns the state unchanged.
        """
        if (
            money
            and self.owner is None
            and done < rules.automatic_doubles
            and rules.allows(2 * self.value)
        ):
            return replace(self, value=2 * self.value)
        return self
