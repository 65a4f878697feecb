"""Match records: real matches as data, independent of any file format.

A :class:`MatchRecord` is what a match file says: the match length, the two players, the
rules in force (:class:`MatchRules`), the event tags, and the games. A
:class:`GameRecord` is one game: its number, the score before it, its actions in order and
its result (:class:`GameOutcome`). The actions are value objects:

=================  ====================================================================
action             meaning
=================  ====================================================================
:class:`Move`      ``player`` rolled ``dice`` and played ``moves`` (empty: no play)
:class:`Double`    ``player`` doubled; ``value`` is the cube value if taken
:class:`Take`      ``player`` took the double on offer
:class:`Pass`      ``player`` passed (dropped) the double on offer and lost the game
:class:`Beaver`    ``player`` beavered (took and redoubled to ``value``, money play)
:class:`Resign`    ``player`` offered to resign at ``level`` (1 single, 2 gammon, 3 bg)
:class:`Accept`    ``player`` accepted the resignation on offer (the game ends)
:class:`Reject`    ``player`` rejected the resignation on offer (play goes on)
=================  ====================================================================

Players are 0 and 1: player 0 is the first-named player of the file (the left column of a
``.mat`` file), as gnubg numbers them after importing it. Points in ``Move.moves`` are in
the mover's own numbering, 1..24, 25 = the bar and 0 = off, one ``(from, to)`` pair per
checker step as written (a path ``13/7/1`` is two steps, ``6/off(2)`` two pairs).

Replaying (:func:`replay`, :meth:`MatchRecord.replay`) walks every action with the rules
model and yields one :class:`Decision` per action: the position and match state *before*
the action, with the Position ID and Match ID as gnubg prints them for that decision.
Every play is checked against the legal plays of the position; an illegal play, a cube
action the state does not allow, or a result the record contradicts raises a
:class:`~mathbg.errors.MatchFileError` naming the file, game and move.

File formats live in :mod:`mathbg.rules.formats` (one module each) and never leak into
these classes: :func:`read_match` detects the format by content, :meth:`MatchRecord.write`
chooses it from the file name (or ``format=``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.plays import Play
    from mathbg.rules.position import Position

__all__ = [
    "RESULT_KINDS",
    "Accept",
    "Action",
    "Beaver",
    "Decision",
    "Double",
    "GameOutcome",
    "GameRecord",
    "MatchRecord",
    "MatchRules",
    "Move",
    "Pass",
    "Reject",
    "Resign",
    "Take",
    "read_match",
    "replay",
]

#: The ways a game ends, as :attr:`GameOutcome.kind` spells them.
RESULT_KINDS = ("single", "gammon", "backgammon", "pass", "resign")
ResultName: TypeAlias = Literal["single", "gammon", "backgammon", "pass", "resign"]

Moves: TypeAlias = tuple[tuple[int, int], ...]


# ----------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class MatchRules:
    """The rules a match was played under.

    Attributes
    ----------
    crawford : bool
        The Crawford rule (match play; on by default).
    jacoby : bool
        The Jacoby rule (money play only).
    beavers : bool
        Beavers allowed (money play only).
    cube_limit : int or None
        Highest cube value allowed (a power of two), None for no limit.
    variant : str
        The game played; ``"backgammon"`` (the only one replayed this round).
    """

    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    variant: str = "backgammon"


# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Move:
    """A roll and its play.

    Attributes
    ----------
    player : int
        The player who rolled (0 or 1).
    dice : (int, int)
        The two dice as written (the replay orders them, higher first).
    moves : tuple of (from, to)
        Checker steps in the mover's numbering (25 = bar, 0 = off); empty when the roll
        could not be played (a dance) or the file left a forced play blank.
    """

    player: int
    dice: tuple[int, int]
    moves: Moves = ()


@dataclass(frozen=True, slots=True)
class Double:
    """``player`` doubles (before rolling); ``value`` is the cube value if taken."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Take:
    """``player`` takes the double on offer."""

    player: int


@dataclass(frozen=True, slots=True)
class Pass:
    """``player`` passes (drops) the double on offer and loses the game at the cube value
    before the double."""

    player: int


@dataclass(frozen=True, slots=True)
class Beaver:
    """``player`` beavers the double on offer: takes and redoubles to ``value`` at once
    (money play, when beavers are allowed)."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` offers to resign a single (1), gammon (2) or backgammon (3)."""

    player: int
    level: int


@dataclass(frozen=True, slots=True)
class Accept:
    """``player`` accepts the resignation on offer: the game ends."""

    player: int


@dataclass(frozen=True, slots=True)
class Reject:
    """``player`` rejects the resignation on offer: play goes on."""

    player: int


Action: TypeAlias = Move | Double | Take | Pass | Beaver | Resign | Accept | Reject


# ----------------------------------------------------------------------------- games


@dataclass(frozen=True)
class GameOutcome:
    """How a game ended.

    Attributes
    ----------
    winner : int
        The player who won the game (0 or 1).
    points : int
        Points awarded as the file says (``Wins N points``): in match play at most the
        points the winner still needed (files cap them, as gnubg does); the replay checks
        them against the rules.
    kind : str
        ``"single"``, ``"gammon"`` or ``"backgammon"`` for a game played out; ``"pass"``
        for a dropped double; ``"resign"`` for an accepted resignation.
    cube : int
        The cube value the game ended at (for a pass: the value before the double).
    resign_level : int
        For ``"resign"``: the level accepted, 1 (single), 2 (gammon) or 3 (backgammon);
        0 otherwise (or when the file does not say).
    """

    winner: int
    points: int
    kind: ResultName
    cube: int = 1
    resign_level: int = 0


@dataclass(frozen=True)
class GameRecord:
    """One game of a match.

    Attributes
    ----------
    number : int
        The game number (1-based, as in the file).
    score : (int, int)
        Points of players 0 and 1 before the game.
    actions : tuple of Action
        Everything that happened, in order.
    result : GameOutcome or None
        How the game ended; None for a game the file leaves unfinished.
    """

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...] = ()
    result: GameOutcome | None = None

    @property
    def first_player(self) -> int | None:
        """The player who acted first (None for a game without actions)."""
        return self.actions[0].player if self.actions else None


# ----------------------------------------------------------------------------- matches


@dataclass(frozen=True)
class MatchRecord:
    """A match as recorded in a file.

    Attributes
    ----------
    length : int
        The match length in points; 0 for a money session.
    players : (str, str)
        Names of players 0 and 1.
    games : tuple of GameRecord
    rules : MatchRules
    tags : dict of str to str
        Event tags as the file gives them (``Site``, ``EventDate``, ``Player 1 Elo``...),
        minus those the other fields already hold.
    source : str or None
        The file the record was read from (for messages; not compared).
    """

    length: int
    players: tuple[str, str]
    games: tuple[GameRecord, ...] = ()
    rules: MatchRules = field(default_factory=MatchRules)
    tags: Mapping[str, str] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False, repr=False)

    # -------------------------------------------------------------- derived
    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last finished game (capped at the match length)."""
        raise NotImplementedError

    @property
    def winner(self) -> int | None:
        """The player who won the match, None if it is unfinished (or money play)."""
        raise NotImplementedError

    # -------------------------------------------------------------- replay
    def replay(self, *, check: bool = True) -> Iterator[Decision]:
        """Every action of every game with the state before it: see :func:`replay`."""
        return replay(self, check=check)

    def validate(self) -> MatchRecord:
        """Replay the whole match, checking every play, cube action and result.

        Returns the record itself; raises :class:`~mathbg.errors.MatchFileError` (or
        its subclass :class:`~mathbg.errors.MatchReplayError`) at the first problem.
        """
        raise NotImplementedError

    def normalized(self) -> MatchRecord:
        """The same match with every play written as the rules model writes it (one
        legal order of single-die steps): two records of the same match read from
        different dialects compare equal after this."""
        raise NotImplementedError

    # -------------------------------------------------------------- output
    def dumps(self, format: str = "mat") -> str:
        """The record as the text of a ``format`` file (``"mat"`` or ``"sgf"``)."""
        raise NotImplementedError

    def write(self, path: str | os.PathLike[str], format: str | None = None) -> Path:
        """Write the record to ``path`` as ``format`` (default: from the file name's
        extension, ``.mat``/``.txt`` or ``.sgf``). Returns the path written.

        Raises
        ------
        InvalidParameterError
            For a format mathbg cannot write.
        """
        raise NotImplementedError


# ----------------------------------------------------------------------------- replay


@dataclass(frozen=True)
class Decision:
    """One action of a replayed match with everything known before it.

    Attributes
    ----------
    game : int
        The game number (1-based).
    move : int
        The move number as a ``.mat`` file numbers its lines (1-based; a line holds a
        turn of each player, a cube action takes a turn's place).
    index : int
        The action's index within the game's actions (0-based).
    player : int
        The player who acts (the roller for a move or a double; the doubled player for a
        take, pass or beaver; the resigning side's opponent for accept/reject).
    on_roll : int
        The player on roll (whose turn it is).
    position : Position
        The board before the action, from ``on_roll``'s side.
    match : MatchState
        The match state before the action: score, cube value and owner, Crawford, the
        dice for a move (``turn`` = ``player``; ``doubled`` set for a take/pass).
    action : Action
        What was done.
    play : Play or None
        For a :class:`Move`, the legal play it resolves to (None for a dance, or when
        replayed with ``check=False``).
    """

    game: int
    move: int
    index: int
    player: int
    on_roll: int
    position: Position
    match: MatchState
    action: Action
    play: Play[Position] | None = None

    @property
    def cube(self) -> int:
        """The cube value before the action."""
        return self.match.cube

    @property
    def cube_owner(self) -> int | None:
        """The cube's owner before the action (0, 1, or None when centred)."""
        return self.match.cube_owner

    @property
    def crawford(self) -> bool:
        """This is the Crawford game."""
        return self.match.crawford

    @property
    def position_id(self) -> str:
        """gnubg's Position ID for this decision (the roller's view)."""
        return self.position.id

    @property
    def match_id(self) -> str:
        """gnubg's Match ID for this decision, as gnubg prints it there."""
        return self.match.id


def replay(record: MatchRecord, *, check: bool = True) -> Iterator[Decision]:
    """Replay ``record`` with the rules model, one :class:`Decision` per action.

    Parameters
    ----------
    record : MatchRecord
    check : bool
        Check every play against the legal plays and every result against the rules
        (default). Without it, plays are applied as written (faster, for trusted input).

    Yields
    ------
    Decision
        In game order, the state before each action.

    Raises
    ------
    MatchReplayError
        For an illegal play (naming the file, game, move number and the play), a cube
        action the state does not allow, or a result or score the record contradicts.
    """
    raise NotImplementedError
    yield  # pragma: no cover


# ----------------------------------------------------------------------------- files


def read_match(
    source: str | os.PathLike[str] | bytes, *, format: str | None = None, check: bool = True
) -> MatchRecord:
    """Read a match file (``.mat`` in all its dialects, or gnubg ``.sgf``).

    Parameters
    ----------
    source : path, str or bytes
        A file path, or the file's contents (a ``str`` holding a newline, or ``bytes``).
    format : str, optional
        ``"mat"`` or ``"sgf"``; detected from the contents by default.
    check : bool
        Replay the match to check every play and result (default).

    Raises
    ------
    MatchFileError
        For a file that is not a match, is truncated, binary, holds an unknown line, a
        score contradicting the results before it, a cube value that is not a power of
        two, or (with ``check``) an illegal play: one line naming the file and the line.
    """
    raise NotImplementedError
