"""Positions for tests, benchmarks and notebooks: sampled from random games.

:func:`random_positions` plays games with uniformly random legal plays
(:func:`mathbg.rules.game.play_random_game`) and keeps the positions where a side is about
to roll, as the side on roll sees them: contact positions, races (no contact, outside the
two-sided bearoff database) or two-sided bearoffs (both sides within 6 points and 6
checkers). Deterministic for a seed.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from mathbg.analysis.base import evaluation_class
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.position import Position

__all__ = ["KINDS", "random_positions"]

#: What :func:`random_positions` can sample.
KINDS = ("contact", "race", "two-sided bearoff")


def random_positions(
    n: int, seed: int = 0, kind: str = "contact", *, stride: int = 3
) -> list[Position]:
    """``n`` distinct positions of ``kind`` (see :data:`KINDS`) from random games.

    Every ``stride``-th position of a game (counting the positions of that kind) is kept,
    so that one game does not supply long runs of similar positions.

    Parameters
    ----------
    n : int
        How many positions.
    seed : int, optional
        The random seed (the same seed gives the same positions).
    kind : str, optional
        One of :data:`KINDS`.
    stride : int, optional
        Keep every ``stride``-th position of a game.

    Returns
    -------
    list of Position
        ``n`` distinct positions.

    Raises
    ------
    InvalidParameterError
        For a count below 1, an unknown kind, or when ``100 n + 100`` random games do
        not give ``n`` distinct positions of it.

    Examples
    --------
    >>> ps = random_positions(3, seed=1, kind="race")
    >>> len(ps), all(p.position_class != "contact" for p in ps)
    (3, True)
    """
    from mathbg._validate import integer
    from mathbg.rules.game import Phase, play_random_game

    n = integer(n, "n", 1)
    if kind not in KINDS:
        raise InvalidParameterError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    rng = random.Random(seed)
    seen: set[bytes] = set()
    out: list[Position] = []
    for _ in range(100 * n + 100):
        rec = play_random_game(rng)
        k = 0
        for st in rec.states:
            if st.phase != Phase.ROLL:
                continue
            pos = st.position
            if pos.is_game_over() or evaluation_class(pos) != _class_of(kind, pos):
                continue
            k += 1
            if k % stride or pos.cells in seen:
                continue
            seen.add(pos.cells)
            out.append(pos)
            if len(out) == n:
                return out
    raise InvalidParameterError(f"found only {len(out)} positions of kind {kind!r}")


def _class_of(kind: str, pos: Position) -> str:
    if kind == "race":  # races and one-sided bearoffs (gnubg's cube life differs; both fine)
        cls = evaluation_class(pos)
        return cls if cls in ("race", "one-sided bearoff") else "race"
    return kind
