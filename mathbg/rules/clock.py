"""The game clock of online and tournament play: delay, reserve, bonus and cap.

The online rules in the project's seed texts describe it: each action (a roll or a move)
has a fixed **delay** (15 s) that runs first; when it is used up the player's **reserve**
(20 s at the start) runs. A fast action earns a **bonus** added to the reserve, up to 5 s
per action ("the faster the move, the more the reserve grows"), and the reserve never
exceeds a **cap** (2 minutes). A player whose reserve runs out loses the whole match.

The seed text does not say how the bonus depends on speed; mathbg's default is linear:
an action taking ``t`` seconds earns ``bonus x max(0, 1 - t / delay)``, so an instant
action earns the full bonus and one that used the whole delay (or some reserve) earns
nothing. ``bonus_rule="fixed"`` gives the full bonus to every action finished within the
delay. All parameters are configurable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from mathbg.errors import IllegalActionError, InvalidParameterError

__all__ = ["ClockRules", "ClockState"]


@dataclass(frozen=True)
class ClockRules:
    """Clock parameters, in seconds.

    Parameters
    ----------
    delay : float
        Time per action consumed before the reserve (15).
    reserve : float
        Each player's reserve at the start (20).
    bonus : float
        The most an action can add to the reserve (5).
    cap : float
        The largest the reserve can grow (120).
    bonus_rule : {"linear", "fixed"}
        How the bonus depends on the action's duration (see the module docstring).
    """

    delay: float = 15.0
    reserve: float = 20.0
    bonus: float = 5.0
    cap: float = 120.0
    bonus_rule: Literal["linear", "fixed"] = "linear"

    def __post_init__(self) -> None:
        for name in ("delay", "reserve", "bonus", "cap"):
            if getattr(self, name) < 0:
                raise InvalidParameterError(f"clock {name} must be >= 0")
        if self.reserve > self.cap:
            raise InvalidParameterError("the starting reserve exceeds the cap")
        if self.bonus_rule not in ("linear", "fixed"):
            raise InvalidParameterError(f"unknown bonus rule {self.bonus_rule!r}")

    def bonus_for(self, elapsed: float) -> float:
        """Reserve earned by an action that took ``elapsed`` seconds."""
        if elapsed >= self.delay:
            return 0.0
        if self.bonus_rule == "fixed":
            return self.bonus
        return self.bonus * (1.0 - elapsed / self.delay) if self.delay > 0 else 0.0


@dataclass(frozen=True)
class ClockState:
    """Both players' reserves, and who (if anyone) has run out of time.

    Attributes
    ----------
    rules : ClockRules
    reserve : (float, float)
        Reserve of player 0 and player 1.
    flagged : int or None
        The player whose reserve ran out: they lose the match.
    """

    rules: ClockRules
    reserve: tuple[float, float]
    flagged: int | None = None

    @classmethod
    def start(cls, rules: ClockRules | None = None) -> ClockState:
        """Both players with the starting reserve."""
        r = rules or ClockRules()
        return cls(rules=r, reserve=(r.reserve, r.reserve))

    def time_left(self, player: int) -> float:
        """Longest the next action of ``player`` may take: delay + reserve."""
        return self.rules.delay + self.reserve[player]

    def spend(self, player: int, elapsed: float) -> ClockState:
        """``player`` finishes an action that took ``elapsed`` seconds.

        The delay absorbs the first ``delay`` seconds, the reserve the rest; reaching zero
        reserve flags the player. Otherwise the reserve grows by the bonus, up to the cap.
        """
        if self.flagged is not None:
            raise IllegalActionError(f"player {self.flagged} has already lost on time")
        if player not in (0, 1):
            raise InvalidParameterError("players are numbered 0 and 1")
        if elapsed < 0:
            raise InvalidParameterError("elapsed time must be >= 0")
        res = list(self.reserve)
        over = max(0.0, elapsed - self.rules.delay)
        res[player] -= over
        if over > 0 and res[player] <= 0:
            res[player] = 0.0
            return replace(self, reserve=(res[0], res[1]), flagged=player)
        res[player] = min(self.rules.cap, res[player] + self.rules.bonus_for(elapsed))
        return replace(self, reserve=(res[0], res[1]))
