"""Dice: the 21 distinct rolls, their probabilities, and the opening roll.

Two fair dice give 36 equally likely ordered outcomes. As unordered rolls there are 21:
the 6 doubles (probability 1/36 each) and the 15 non-doubles (2/36 each):
``6 * 1/36 + 15 * 2/36 = 1``.

Opening roll (standard rules; gnubg manual "Rules of the game"): each player rolls one
die; equal dice are rolled again; the player with the higher die moves first, playing the
two numbers shown. So the first play is never a double in standard backgammon (the Tavla
rule, where the winner re-rolls both dice, belongs to a variant's rule set).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mathbg.errors import InvalidRollError

__all__ = [
    "ROLLS",
    "ROLL_INDEX",
    "WEIGHTS",
    "OpeningRoll",
    "Roll",
    "opening_roll",
    "parse_roll",
    "probability",
    "roll_dice",
    "rolls_with_weights",
]

#: A roll: two dice values 1..6. mathbg writes the higher die first.
Roll = tuple[int, int]

#: The 21 distinct rolls, higher die first, in gnubg's bearoff order:
#: (1,1), (2,1), (2,2), (3,1), (3,2), (3,3), ..., (6,6).
ROLLS: tuple[Roll, ...] = tuple((hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1))

#: Weight of each of :data:`ROLLS` out of 36: 1 for a double, 2 otherwise.
WEIGHTS: tuple[int, ...] = tuple(1 if hi == lo else 2 for hi, lo in ROLLS)

#: Index of a normalised roll in :data:`ROLLS`.
ROLL_INDEX: dict[Roll, int] = {r: i for i, r in enumerate(ROLLS)}


def parse_roll(roll: Any) -> Roll:
    """Normalise a roll to ``(higher, lower)``.

    Parameters
    ----------
    roll : (int, int) or str
        Two dice values 1..6 in any order: ``(6, 4)``, ``[4, 6]``, ``"64"``, ``"6-4"``,
        ``"6 4"``.

    Raises
    ------
    InvalidRollError
        If ``roll`` is not exactly two dice 1..6, naming what is wrong.
    """
    if isinstance(roll, str):
        text = roll.strip()
        m = re.fullmatch(r"(\d)\s*[-,/x ]?\s*(\d)", text)
        if not m:
            raise InvalidRollError(f"invalid roll {roll!r}: write two dice, e.g. '64' or '6-4'")
        dice: list[Any] = [int(m.group(1)), int(m.group(2))]
    else:
        try:
            dice = list(roll)
        except TypeError:
            raise InvalidRollError(f"invalid roll {roll!r}: expected two dice") from None
    if len(dice) != 2:
        raise InvalidRollError(f"invalid roll {roll!r}: expected two dice, got {len(dice)}")
    out = []
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int | float) or int(d) != d:
            raise InvalidRollError(f"invalid roll {roll!r}: {d!r} is not a die value")
        if not 1 <= d <= 6:
            raise InvalidRollError(f"invalid roll {roll!r}: die {d} is not in 1..6")
        out.append(int(d))
    a, b = out
    return (a, b) if a >= b else (b, a)


def probability(roll: Any) -> float:
    """Probability of an unordered roll: 1/36 for a double, 2/36 otherwise."""
    hi, lo = parse_roll(roll)
    return (1 if hi == lo else 2) / 36


def rolls_with_weights() -> Iterator[tuple[Roll, int]]:
    """Iterate over the 21 rolls with their weights out of 36."""
    return zip(ROLLS, WEIGHTS, strict=True)


def roll_dice(rng: random.Random | None = None) -> Roll:
    """Two fair dice, in the order rolled."""
    r = rng or random
    return r.randint(1, 6), r.randint(1, 6)


@dataclass(frozen=True)
class OpeningRoll:
    """Outcome of the opening roll.

    Attributes
    ----------
    winner : int
        Player (0 or 1) who moves first.
    roll : (int, int)
        The winner's die then the loser's die (the winner plays both).
    ties : int
        How many times equal dice were rolled before the decisive throw (relevant for
        automatic doubles).
    """

    winner: int
    roll: Roll
    ties: int = 0


def opening_roll(rng: random.Random | None = None) -> OpeningRoll:
    """Roll one die per player until they differ; the higher die moves first."""
    r = rng or random
    ties = 0
    while True:
        d0, d1 = r.randint(1, 6), r.randint(1, 6)
        if d0 != d1:
            winner = 0 if d0 > d1 else 1
            return OpeningRoll(winner=winner, roll=(max(d0, d1), min(d0, d1)), ties=ties)
        ties += 1
