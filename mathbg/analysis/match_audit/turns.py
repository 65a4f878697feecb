"""The turns of a replayed match: each roll with its play and the state before it.

A :class:`Turn` is what the checker-play and luck analysis look at: the position before the
roll (the roller's view), the dice, the match state seen by the roller (their score, the
cube and who holds it, the Crawford game), the position the play left (the roller's view;
the position itself for a roll that could not be played) and the play as the file wrote
it. :func:`match_turns` lists them in the match's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.match_audit.plays import ScoreStates

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.plays import Plays
    from mathbg.rules.position import Position
    from mathbg.rules.record import Decision, MatchRecord

__all__ = ["Turn", "match_turns", "score_states"]


@dataclass(frozen=True)
class Turn:
    """One roll of a match and its play.

    Attributes
    ----------
    game, move : int
        The game number and the move number (as a ``.mat`` file numbers its lines).
    player : int
        The roller (0 or 1, the record's order).
    position : Position
        The board before the roll, the roller's view.
    match : MatchState
        The state before the play (the dice set), as the replay gives it.
    dice : (int, int)
        The roll, higher die first.
    result : bytes
        The cells of the board the play left, still the roller's view (the position
        itself when nothing could be played).
    opening : bool
        The board is the starting position and the roll not a double: gnubg values the
        luck of such a roll against both players' 15 non-double rolls (``LuckFirst``).
    plays : Plays or None
        The legal plays of the roll, as the replay found them (None: not given; the
        position's :meth:`~mathbg.rules.position.Position.legal_plays`).
    """

    game: int
    move: int
    player: int
    position: Position
    match: MatchState
    dice: tuple[int, int]
    result: bytes
    opening: bool
    plays: Plays[Position] | None = field(default=None, compare=False, repr=False)

    def legal_plays(self) -> Plays[Position]:
        """The legal plays of the roll (the replay's when it kept them)."""
        return self.plays if self.plays is not None else self.position.legal_plays(self.dice)

    @property
    def position_id(self) -> str:
        """gnubg's Position ID of the board before the roll."""
        return self.position.id

    @property
    def match_id(self) -> str:
        """gnubg's Match ID of the turn (the dice set)."""
        return self.match.id


def match_turns(
    record: MatchRecord, *, decisions: Sequence[Decision] | None = None
) -> list[Turn]:
    """Every roll of ``record`` in order (see :class:`Turn`).

    Parameters
    ----------
    record : MatchRecord
        A match (replayed with every play checked).
    decisions : sequence of Decision, optional
        The record's checked replay (``list(record.replay())``) when the caller has it;
        default: replayed here.

    Returns
    -------
    list of Turn

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> turns = match_turns(example_match())
    >>> t = turns[0]
    >>> (t.game, t.move, t.player, t.dice, t.opening), len(turns)
    ((1, 1, 1, (5, 4), True), 14)
    """
    from mathbg.rules.position import INITIAL
    from mathbg.rules.record import Move

    out: list[Turn] = []
    for d in record.replay() if decisions is None else decisions:
        if not isinstance(d.action, Move):
            continue
        dice = d.match.dice
        assert dice is not None
        play = d.play
        result = play.result.cells if play is not None else d.position.cells
        opening = d.position.cells == INITIAL.cells and dice[0] != dice[1]
        out.append(Turn(d.game, d.move, d.player, d.position, d.match, dice, result, opening,
                        d.plays))  # fmt: skip
    return out


def score_states(matches: Sequence[MatchState], players: Sequence[int]) -> ScoreStates:
    """The score and cube state of each match state, seen by ``players`` (money play when
    the first is a money session).

    Parameters
    ----------
    matches : sequence of MatchState
        The states.
    players : sequence of int
        The side (0 or 1) each is seen by.

    Returns
    -------
    ScoreStates

    Examples
    --------
    >>> from mathbg.rules.match import MatchState
    >>> st = score_states([MatchState(length=5, score=(1, 3), cube=2, cube_owner=1)], [0])
    >>> st.away.tolist(), st.cube.tolist(), st.owner.tolist()
    ([[4, 2]], [2], [2])
    """
    n = len(matches)
    away = np.zeros((n, 2), dtype=np.int64)
    cube = np.ones(n, dtype=np.int64)
    owner = np.zeros(n, dtype=np.int64)
    crawford: NDArray[np.bool_] = np.zeros(n, dtype=bool)
    money = bool(n) and matches[0].length == 0
    for i, (m, p) in enumerate(zip(matches, players, strict=True)):
        if m.length:
            away[i] = (m.length - m.score[p], m.length - m.score[1 - p])
        cube[i] = m.cube
        owner[i] = 0 if m.cube_owner is None else (1 if m.cube_owner == p else 2)
        crawford[i] = bool(m.crawford)
    jacoby = bool(n) and money and bool(matches[0].jacoby)
    return ScoreStates(away, cube, owner, crawford, money, jacoby,
                       np.asarray(players, dtype=np.int64).reshape(n))  # fmt: skip
