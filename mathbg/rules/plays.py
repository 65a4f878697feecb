"""Legal plays as Python objects: :class:`Plays` (a lazy sequence) of :class:`Play`.

``Position.legal_plays(roll)`` runs the numba kernel (:mod:`mathbg.rules.movegen`) once
and wraps its arrays in a :class:`Plays`; a :class:`Play` object, its resulting
:class:`Position` and its notation are only built when asked for, so a call costs a few
microseconds beyond the search itself.

Perspective: ``Play.result`` is the position right after the play, **still from the
mover's point of view** (the mover's checkers in row 1, ``result.player``); it is what a
one-ply evaluation or a bearoff database lookup of "my position after my move" wants.
``Play.next_position`` is ``result.swap()``: the position the opponent sees when the turn
passes (the opponent on roll).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import numpy as np

from mathbg.rules import movegen
from mathbg.rules.board import BasePosition, new_position
from mathbg.rules.dice import Roll, parse_roll
from mathbg.rules.notation import format_moves, hits_of, resolve

__all__ = ["Play", "Plays", "legal_plays"]

#: The class of the positions a play starts from and leads to (results are built with the
#: class of the starting position: a Position's plays lead to Positions).
P = TypeVar("P", bound=BasePosition, covariant=True)
#: The same, for a function that takes a position (a parameter cannot be covariant).
Q = TypeVar("Q", bound=BasePosition)

NORMAL_ROLL: dict[tuple[int, int], Roll] = {
    (a, b): (max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)
}


@dataclass(frozen=True, slots=True, eq=False)
class Play(Generic[P]):
    """One legal play: the checker moves of a roll and the position they lead to.

    Attributes
    ----------
    position : Position
        The position before the play (the mover on roll).
    roll : (int, int)
        The roll, higher die first.
    result : Position
        The position after the play, still from the mover's point of view (the mover is
        ``result.player``); see :attr:`next_position` for the opponent's view.
    moves : tuple of (from, to)
        The single-die moves in one legal order; points in the mover's numbering, 25 = bar,
        0 = off.
    dice : tuple of int
        The die used by each move.

    Notes
    -----
    Two plays are equal when they start from the same position and lead to the same
    result (hits included): that is how plays are counted, as in gnubg.
    """

    position: P
    roll: Roll
    result: P
    moves: tuple[tuple[int, int], ...]
    dice: tuple[int, ...]

    @property
    def notation(self) -> str:
        """Standard notation, e.g. ``"24/18 13/11"``, ``"bar/22*"``, ``"6/off(2)"``."""
        return format_moves(self.position, self.moves)

    @property
    def next_position(self) -> P:
        """The position after the play from the opponent's point of view (its turn)."""
        return self.result.swap()

    @property
    def hits(self) -> tuple[int, ...]:
        """Points (mover's numbering) where the play hits a blot, highest first."""
        return hits_of(self.position, self.moves)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return bool(self.position == other.position and self.result == other.result)

    def __hash__(self) -> int:
        return hash((self.position, self.result))

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        return f"<Play {self.roll[0]}{self.roll[1]}: {self.notation or '(no move)'}>"


class Plays(Sequence[Play[P]]):
    """The legal plays of one roll in one position (a lazy, read-only sequence).

    Supports ``len``, indexing, iteration and ``in`` (a :class:`Play`, a resulting
    :class:`Position`, or a notation string). Plays appear in the kernel's search order.

    Attributes
    ----------
    position : Position
        The position the plays start from.
    roll : (int, int)
        The roll, higher die first.
    """

    __slots__ = ("_boards", "_bytes", "_cache", "_moves", "_nets", "position", "roll")

    #: The class of the plays built (a variant's Plays uses its own).
    _play_class: type[Play[Any]] = Play

    def __init__(self, position: P, roll: Roll, boards: np.ndarray, moves: np.ndarray):
        self.position = position
        self.roll = roll
        self._boards = boards
        self._moves = moves
        self._cache: dict[int, Play[P]] = {}
        self._nets: np.ndarray | None = None
        self._bytes: bytes | None = None

    def __len__(self) -> int:
        return int(self._boards.shape[0])

    def _result(self, i: int) -> P:
        """The resulting position of play ``i`` (a variant's Plays builds its own kind)."""
        return new_position(type(self.position), self._boards[i].tobytes())

    def _play(self, i: int) -> Play[P]:
        play = self._cache.get(i)
        if play is None:
            rows = []
            for row in self._moves[i].tolist()[:4]:  # (from, to, die) rows; -1 after the last
                if row[0] < 0:
                    break
                rows.append(row)
            play = self._play_class(
                position=self.position,
                roll=self.roll,
                result=self._result(i),
                moves=tuple((f + 1, t + 1) for f, t, _ in rows),
                dice=tuple(d for _, _, d in rows),
            )
            self._cache[i] = play
        return play

    @overload
    def __getitem__(self, i: int) -> Play[P]: ...

    @overload
    def __getitem__(self, i: slice) -> list[Play[P]]: ...

    def __getitem__(self, i: int | slice) -> Play[P] | list[Play[P]]:
        n = len(self)
        if isinstance(i, slice):
            return [self._play(j) for j in range(*i.indices(n))]
        j = int(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"play index {i} out of range ({n} plays)")
        return self._play(j)

    def __iter__(self) -> Iterator[Play[P]]:
        for j in range(len(self)):
            yield self._play(j)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            return item.position == self.position and item.result in self._result_set()
        if isinstance(item, BasePosition):
            return item in self._result_set()
        if isinstance(item, str):
            try:
                self.parse(item)
            except ValueError:
                return False
            return True
        return False

    def _result_set(self) -> set[P]:
        return set(self.results)

    @property
    def results(self) -> tuple[P, ...]:
        """The resulting positions (mover's point of view), one per play."""
        cls = type(self.position)
        return tuple(new_position(cls, row.tobytes()) for row in self._boards)

    @property
    def boards(self) -> np.ndarray:
        """The resulting boards as a read-only uint8 array (n, 2, 25), TanBoard layout."""
        view = self._boards.reshape(-1, 2, 25)
        view.flags.writeable = False
        return view

    def notations(self) -> list[str]:
        """The notation of every play."""
        return [p.notation for p in self]

    def parse(self, text: str) -> Play[P]:
        """The legal play written as ``text`` (see :func:`mathbg.rules.notation.resolve`).

        Raises
        ------
        InvalidNotationError, IllegalPlayError, AmbiguousPlayError
        """
        return resolve(self, text)

    def with_net(self, delta: Sequence[int]) -> list[Play[P]]:
        """The plays whose net change of the mover's checkers is ``delta``, in order.

        Parameters
        ----------
        delta : sequence of 26 int
            Checkers gained per place: borne off first, then points 1..24, then the bar
            (:func:`mathbg.rules.notation.play_net` of a play's start and result).

        Returns
        -------
        list of Play
            Every play with that net change (several when they differ only in hits).

        Examples
        --------
        >>> from mathbg import Position
        >>> plays = Position.initial().legal_plays((3, 1))
        >>> net = [0] * 26
        >>> net[8], net[6], net[5] = -1, -1, 2
        >>> [p.notation for p in plays.with_net(net)]
        ['8/5 6/5']
        """
        if self._nets is None:
            start = np.frombuffer(self.position.cells, dtype=np.uint8)[25:50].astype(np.int16)
            moved = self._boards.reshape(-1, 50)[:, 25:50].astype(np.int16) - start
            self._nets = np.concatenate([-moved.sum(axis=1, keepdims=True), moved], axis=1)
        want = np.asarray(delta, dtype=np.int16)
        if want.shape != (26,):
            return []
        return [self._play(int(i)) for i in np.flatnonzero((self._nets == want).all(axis=1))]

    def find_index(self, cells: bytes) -> int:
        """The index of the play whose result (mover's view) has the 50 checker counts
        ``cells``, or -1 when no legal play leads there."""
        if len(cells) != 50 or not len(self):
            return -1
        if self._bytes is None:
            self._bytes = self._boards.tobytes()
        buf = self._bytes  # rows of 50 bytes; a match must start on a row
        i = buf.find(cells)
        while i > 0 and i % 50:
            i = buf.find(cells, i + 1)
        return i // 50 if i >= 0 else -1

    def find(self, result: BasePosition) -> Play[P] | None:
        """The play leading to ``result`` (mover's point of view), or None."""
        target = result.cells
        for j in range(len(self)):
            if self._boards[j].tobytes() == target:
                return self._play(j)
        return None

    def __repr__(self) -> str:
        return f"<Plays {self.roll[0]}{self.roll[1]} from {self.position!r}: {len(self)} plays>"


def legal_plays(position: Q, roll: Any) -> Plays[Q]:
    """The legal plays of ``roll`` in ``position`` (see :meth:`Position.legal_plays`)."""
    r = NORMAL_ROLL.get(roll) if type(roll) is tuple else None
    if r is None:
        r = parse_roll(roll)
    boards, moves = movegen.generate(position.cells, r[0], r[1])
    return Plays(position, r, boards, moves)
