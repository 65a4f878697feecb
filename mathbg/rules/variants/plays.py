"""Legal plays of a variant: :class:`VariantPlays`, a :class:`~mathbg.rules.plays.Plays`.

The plays of Portes (and of Tavla with standard movement) come from the standard numba
kernel; every other rule set uses :mod:`mathbg.rules.variants._kernel`. Results are
:class:`~mathbg.rules.variants.position.VariantPosition` objects (with Plakoto's pins), the
notation marks a hit (Portes, Tavla) or a pin (Plakoto) with ``*`` as gnubg marks hits,
and Fevga and Long Nardi plays never carry a ``*``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mathbg.errors import (
    AmbiguousPlayError,
    IllegalPlayError,
    InvalidPositionError,
)
from mathbg.rules.board import BasePosition
from mathbg.rules.dice import parse_roll
from mathbg.rules.notation import ParsedPlay, format_moves, parse_notation, play_net, segment_ok
from mathbg.rules.plays import NORMAL_ROLL, Play, Plays
from mathbg.rules.position import Position
from mathbg.rules.variants.geometry import Contact, Variant
from mathbg.rules.variants.position import VariantPosition, make_variant_position, mirror_mask

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.dice import Roll
    from mathbg.rules.variants.position import VariantPosition

__all__ = ["VariantPlays", "variant_legal_plays"]

_MASK24 = (1 << 24) - 1
#: Bit-reversed bytes, to re-number 24-bit point masks k -> 23 - k in bulk.
_REV8 = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.int64)


class KernelRules(Protocol):
    """What the generator needs of a rule set: a
    :class:`~mathbg.rules.variants.rules.VariantRuleSet`, which calls it (and so sits above
    this module)."""

    @property
    def name(self) -> str: ...

    @property
    def variant(self) -> Variant: ...

    @property
    def contact(self) -> Contact: ...

    @property
    def first_roll_doubles(self) -> tuple[int, ...]: ...

    @property
    def kernel_arguments(self) -> tuple[int, int, int]: ...

    def uses_standard_kernel(self) -> bool: ...


@dataclass(frozen=True, slots=True, eq=False)
class VariantPlay(Play["VariantPosition"]):
    """A legal play of a variant (see :class:`~mathbg.rules.plays.Play`).

    ``*`` marks a hit (Portes, Tavla) or a pin that the play leaves in place (Plakoto: a
    checker that pins and moves on releases the opposing checker, so no ``*``); Fevga and
    Long Nardi plays never hit.
    """

    def marks(self) -> set[int]:
        """Points (mover's numbering) where this play hits or pins."""
        pos = self.position
        assert isinstance(pos, VariantPosition)
        if pos.contact == Contact.PIN:
            before = pos.pins >> 24
            after = getattr(self.result, "pins", 0) >> 24
            return {25 - (k + 1) for k in range(24) if (after >> k) & 1 and not (before >> k) & 1}
        if pos.contact == Contact.HIT:
            return {m[1] for m in self.moves} & pos.markable_points()
        return set()

    @property
    def notation(self) -> str:
        """Notation with the variant's marks, e.g. ``"10/6*"`` for a pin in Plakoto."""
        return format_moves(self.position, self.moves, marks=self.marks())

    @property
    def hits(self) -> tuple[int, ...]:
        """Points (mover's numbering) where the play hits or pins, highest first."""
        return tuple(sorted(self.marks(), reverse=True))


class VariantPlays(Plays["VariantPosition"]):
    """The legal plays of one roll in a variant position (a lazy, read-only sequence).

    As :class:`~mathbg.rules.plays.Plays`; each play's ``.result`` is a
    :class:`VariantPosition` seen from the mover, ``.next_position`` from the opponent.
    """

    __slots__ = ("_pins",)

    _play_class = VariantPlay
    position: VariantPosition

    def __init__(
        self,
        position: VariantPosition,
        roll: Roll,
        boards: np.ndarray,
        moves: np.ndarray,
        pins: np.ndarray,
    ):
        super().__init__(position, roll, boards, moves)
        self._pins = pins

    def _result(self, i: int) -> VariantPosition:
        return make_variant_position(
            self._boards[i].tobytes(), self.position.variant, int(self._pins[i])
        )

    @property
    def pins(self) -> np.ndarray:
        """The resulting positions' pin masks (see :class:`VariantPosition`), int64 (n,)."""
        view = self._pins.view()
        view.flags.writeable = False
        return view

    @property
    def results(self) -> tuple[VariantPosition, ...]:
        """The resulting positions (mover's point of view), one per play."""
        return tuple(self._result(i) for i in range(len(self)))

    def _index_of(self, result: object) -> int | None:
        """Index of the play leading to ``result`` (compared on the arrays), or None."""
        if not isinstance(result, VariantPosition) or result.variant != self.position.variant:
            return None
        row = np.frombuffer(result.cells, dtype=np.uint8)
        same = (self._boards == row).all(axis=1) & (self._pins == result.pins)
        hit = np.flatnonzero(same)
        return int(hit[0]) if len(hit) else None

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            return item.position == self.position and self._index_of(item.result) is not None
        if isinstance(item, Position):
            return self._index_of(item) is not None
        return super().__contains__(item)

    def find(self, result: BasePosition) -> Play[VariantPosition] | None:
        """The play leading to ``result`` (mover's point of view), or None."""
        i = self._index_of(result)
        return None if i is None else self._play(i)

    def parse(self, text: str) -> Play[VariantPosition]:
        """The legal play written as ``text`` (any spelling with the same net effect;
        ``*`` marks a hit or a pin).

        Raises
        ------
        InvalidNotationError, IllegalPlayError, AmbiguousPlayError
        """
        return _resolve(self, text)


def _pins_in(position: VariantPosition) -> tuple[int, int]:
    """(mover's pinned mask, opponent checkers pinned by the mover in the mover's
    numbering) for the kernel."""
    p = position.pins
    return p & _MASK24, mirror_mask(p >> 24)


def variant_legal_plays(rules: KernelRules, position: Position, roll: Any) -> VariantPlays:
    """The legal plays of ``roll`` in ``position`` under ``rules``.

    Raises
    ------
    InvalidRollError
        If ``roll`` is not two dice 1..6.
    InvalidPositionError
        If ``position`` is not a position of ``rules``' variant, or a point holds more
        than 15 checkers (the kernels pack counts in 4 bits).
    """
    if not isinstance(position, VariantPosition) or position.variant != rules.variant:
        what = getattr(position, "variant", "backgammon")
        raise InvalidPositionError(
            f"a {rules.name} rule set plays {rules.name} positions, not a {what} position "
            f"(use Position.initial({rules.name!r}) or VariantPosition)"
        )
    r = NORMAL_ROLL.get(roll) if type(roll) is tuple else None
    if r is None:
        r = parse_roll(roll)
    cells = position.cells
    if max(cells) > 15:
        raise InvalidPositionError(
            "legal plays need at most 15 checkers on a point (the kernel packs counts in 4 bits)"
        )
    if rules.uses_standard_kernel():
        from mathbg.rules import movegen

        boards, moves = movegen.generate(cells, r[0], r[1])
        pins = np.zeros(len(boards), np.int64)
    else:
        from mathbg.rules.variants import _kernel

        contact, flags, head = rules.kernel_arguments
        mine, theirs = _pins_in(position) if rules.contact == Contact.PIN else (0, 0)
        if head and rules.first_roll_doubles and r[0] == r[1] and cells[48] == 15:
            if r[0] in rules.first_roll_doubles:
                head = 2
        boards, masks, moves = _kernel.generate(
            cells, r[0], r[1], contact, flags, head, mine, theirs
        )
        if rules.contact == Contact.PIN:
            rev = _REV8
            mirrored = (
                (rev[masks & 255] << 16) | (rev[(masks >> 8) & 255] << 8) | rev[(masks >> 16) & 255]
            )
            pins = mine | (mirrored << 24)
        else:
            pins = np.zeros(len(boards), np.int64)
    return VariantPlays(position, r, boards, moves, pins)


# ----------------------------------------------------------------------------------------
# reading notation


def _resolve(plays: VariantPlays, text: str | ParsedPlay) -> Play[VariantPosition]:
    parsed = text if isinstance(text, ParsedPlay) else parse_notation(text)
    pos = plays.position
    assert isinstance(pos, VariantPosition)
    roll = plays.roll
    rtxt = f"{roll[0]}-{roll[1]}"
    written = parsed.text.strip()
    if not parsed.paths:
        if not plays:
            raise IllegalPlayError(f"{rtxt} cannot be played: there is no play (the turn passes)")
        raise IllegalPlayError(
            f"{rtxt} can be played ({len(plays)} legal plays): an empty play is illegal"
        )
    for points, _, _ in parsed.paths:
        for a, b in itertools.pairwise(points):
            if not segment_ok(a, b, roll):
                raise IllegalPlayError(f"{written!r}: {a}/{b} cannot be played with {rtxt}")
    blocked = pos.blocked_points()
    for points, _, _ in parsed.paths:
        for p in points[1:]:
            if p in blocked:
                raise IllegalPlayError(
                    f"{written!r}: point {p} is closed to the side on roll in {pos.variant}"
                )
    want = parsed.net_change()
    cands = [p for p in plays if play_net(pos, p.result) == want]
    if not cands:
        if not plays:
            raise IllegalPlayError(f"{written!r}: {rtxt} cannot be played at all here")
        raise IllegalPlayError(
            f"{written!r} is not a legal play of {rtxt} in this {pos.variant} position "
            f"({len(plays)} legal plays, e.g. {plays[0].notation})"
        )
    if len(cands) == 1:
        return cands[0]
    marks = pos.markable_points()
    required = parsed.starred() | (parsed.landings() & marks)
    exact = [p for p in cands if set(p.hits) == required]
    if len(exact) == 1:
        return exact[0]
    options = " | ".join(p.notation for p in cands)
    raise AmbiguousPlayError(f"{written!r} fits {len(cands)} legal plays of {rtxt}: {options}")
