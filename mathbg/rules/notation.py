"""Standard play notation: render and parse ``24/18 13/11``, ``bar/22*``, ``6/off(2)``.

Writing (:func:`format_moves`), the usual conventions (as gnubg writes plays):

- each checker's path is written ``from/to`` with the side's own point numbers, ``bar``
  and ``off``; moves of one checker are joined (``24/18 18/14`` -> ``24/14``), keeping an
  intermediate point only where a blot was hit there (``24/18*/14``);
- a hit is marked ``*`` after the point where it happens;
- identical paths are written once with a count: ``8/5(2)``, ``6/off(2)``;
- paths are listed by decreasing starting point.

Reading (:func:`parse_notation`, :func:`resolve`): a play is identified by its net effect
on the mover's checkers (how many leave and reach each point) plus the points where it
hits, so any correct spelling works (``24/14``, ``24/18/14``, ``24/18 18/14``,
``24/20(2)`` or ``24/20 24/20``). A point that is written and holds an opposing blot is a
hit even without ``*``. When two legal plays have the same net effect and differ only in
a hit, the one whose hits are exactly those written (or implied) is chosen, as in gnubg's
spelling (``24/14`` does not hit, ``24/18*/14`` does); otherwise the notation is
ambiguous. Notation that is not a legal play raises :class:`IllegalPlayError` saying why.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from mathbg.errors import AmbiguousPlayError, IllegalPlayError, InvalidNotationError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.board import BasePosition

__all__ = ["ParsedPlay", "format_moves", "hits_of", "parse_notation", "resolve"]

_BAR, _OFF = 25, 0


class PlayLike(Protocol):
    """What reading notation needs of a play (a :class:`~mathbg.rules.plays.Play`)."""

    @property
    def result(self) -> BasePosition: ...

    @property
    def moves(self) -> tuple[tuple[int, int], ...]: ...

    @property
    def dice(self) -> tuple[int, ...]: ...

    @property
    def hits(self) -> tuple[int, ...]: ...

    @property
    def notation(self) -> str: ...


_PlayT = TypeVar("_PlayT", bound=PlayLike, covariant=True)


class PlaysLike(Protocol[_PlayT]):
    """What reading notation needs of the legal plays of a roll (a
    :class:`~mathbg.rules.plays.Plays`): this module sits below them, they call it."""

    @property
    def position(self) -> BasePosition: ...

    @property
    def roll(self) -> tuple[int, int]: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[_PlayT]: ...

    def with_net(self, delta: tuple[int, ...]) -> Sequence[_PlayT]:
        """The plays whose :func:`play_net` is ``delta``, in order."""
        ...


#: The names of the points 0..25 as notation writes them.
_POINT_NAMES = tuple("bar" if p == _BAR else "off" if p == _OFF else str(p) for p in range(26))


def _point_name(p: int) -> str:
    return _POINT_NAMES[p] if 0 <= p <= 25 else str(p)


def _from_high(move: Sequence[int]) -> int:
    return -move[0]


def _chain_order(chain: list[int]) -> tuple[int, int]:
    return -chain[0], -chain[-1]


def _blots(position: BasePosition) -> frozenset[int]:
    """Points (mover's numbering 1..24) holding exactly one opposing checker."""
    return _blots_of(position.cells[:24])


@lru_cache(maxsize=4096)
def _blots_of(opp: bytes) -> frozenset[int]:
    """:func:`_blots` of the opponent's cells 0..23 (a position's plays share them)."""
    # the mover's point p is the opponent's point 25 - p, i.e. its 0-based cell 24 - p
    return frozenset(p for p in range(1, 25) if opp[24 - p] == 1)


def hits_of(position: BasePosition, moves: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Points (mover's numbering) where a play of ``moves`` hits, highest first.

    A blot is hit when any checker lands on its point (opposing checkers do not move
    during the turn, so this does not depend on the order of the moves).
    """
    blots = _blots(position)
    return tuple(sorted({m[1] for m in moves} & blots, reverse=True))


def format_moves(
    position: BasePosition, moves: Sequence[tuple[int, ...]], marks: Collection[int] | None = None
) -> str:
    """Standard notation of a play.

    Parameters
    ----------
    position : BasePosition
        The position before the play (the mover on roll).
    moves : sequence of (from, to[, die])
        The single-die moves, in an order they can be played, with public point numbers
        (25 = bar, 0 = off).
    marks : collection of int, optional
        The points to mark with ``*`` when a path lands there; default the points holding
        an opposing blot (hits). A variant passes its own (Plakoto: the pins it makes).

    Notes
    -----
    The spelling is canonical: moves are chained by decreasing starting point, and each
    hit is marked on the first path (in writing order) landing on the blot's point, so
    every way of finding the same play is written the same way.
    """
    chains: list[list[int]] = []  # each: [from, p1, ..., pk]
    for m in sorted(moves, key=_from_high):  # stable
        f = m[0]
        for chain in chains:
            if chain[-1] == f and f != _OFF:
                chain.append(m[1])
                break
        else:
            chains.append([f, m[1]])
    if len(chains) > 1:
        chains.sort(key=_chain_order)
    blots = _blots(position) if marks is None else frozenset(marks)
    marked: set[int] = set()
    counts: dict[str, int] = {}
    for chain in chains:
        last = len(chain) - 1
        text = _point_name(chain[0])
        for j in range(1, last + 1):
            p = chain[j]
            hit = p in blots and p not in marked
            if hit:
                marked.add(p)
            if j == last:
                text += "/" + _point_name(p) + ("*" if hit else "")
            elif hit:
                text += f"/{p}*"
        counts[text] = counts.get(text, 0) + 1
    return " ".join(s if n == 1 else f"{s}({n})" for s, n in counts.items())


@dataclass(frozen=True)
class ParsedPlay:
    """A play as written: checker paths, without reference to a position.

    Attributes
    ----------
    paths : tuple of (points, starred, count)
        ``points``: the points written along one checker's path (25 = bar, 0 = off),
        ``starred``: the points marked ``*``, ``count``: the ``(n)`` multiplier.
    text : str
        The original text.
    """

    paths: tuple[tuple[tuple[int, ...], frozenset[int], int], ...]
    text: str

    def net_change(self) -> tuple[int, ...]:
        """Net change of the mover's checkers per point 0..25 (0 = off, 25 = bar)."""
        delta = [0] * 26
        for points, _, count in self.paths:
            delta[points[0]] -= count
            delta[points[-1]] += count
        return tuple(delta)

    def starred(self) -> set[int]:
        return set().union(*(s for _, s, _ in self.paths)) if self.paths else set()

    def landings(self) -> set[int]:
        """Every written landing point (intermediate or final), off excluded."""
        return {p for points, _, _ in self.paths for p in points[1:] if p != _OFF}


#: The longest path a play can write (four moves of one checker with hits and a count).
_LONGEST_TOKEN = 40
_TOKEN = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<count>[0-9]{1,3})\))?$")


def _parse_point(text: str, token: str, first: bool, last: bool) -> int:
    t = text.lower()
    if t == "bar":
        if not first:
            raise InvalidNotationError(f"in {token!r}: 'bar' can only start a path")
        return _BAR
    if t == "off":
        if not last or first:
            raise InvalidNotationError(f"in {token!r}: 'off' can only end a path")
        return _OFF
    if not (t.isascii() and t.isdigit()) or len(t) > 3:  # a point has at most two digits
        raise InvalidNotationError(
            f"in {token!r}: {text[:12]!r} is not a point (1-24, bar, off)"
        )
    p = int(t)
    if first and p == 25:
        return _BAR
    if last and p == 0:
        return _OFF
    if not 1 <= p <= 24:
        raise InvalidNotationError(f"in {token!r}: point {p} is not in 1..24")
    return p


def parse_notation(text: str) -> ParsedPlay:
    """Parse standard notation into checker paths (no legality check).

    Accepts ``from/to`` paths separated by spaces, points 1-24, ``bar`` (or 25 as a
    start) and ``off`` (or 0 as an end), ``*`` after a point for a hit and ``(n)`` for a
    path played n times. An empty string (or ``-``) is the empty play of a dance.

    Raises
    ------
    InvalidNotationError
        Naming the token that cannot be read.
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"a play in notation is a string, got {type(text).__name__}")
    stripped = text.strip()
    if stripped in ("", "-") or stripped.lower() in ("cannot move", "no move", "pass"):
        return ParsedPlay(paths=(), text=text)
    paths = []
    for token in stripped.replace(",", " ").split():
        if len(token) > _LONGEST_TOKEN:
            raise InvalidNotationError(
                f"cannot read {token[:20]!r}... ({len(token)} characters; a path such as "
                f"bar/20*/14 has at most {_LONGEST_TOKEN})"
            )
        m = _TOKEN.match(token)
        if not m:
            raise InvalidNotationError(f"cannot read {token!r}")
        count = int(m.group("count") or 1)
        if not 1 <= count <= 4:
            raise InvalidNotationError(f"in {token!r}: a path is played 1 to 4 times")
        pieces = m.group("path").split("/")
        if len(pieces) < 2 or any(not p for p in pieces):
            raise InvalidNotationError(f"cannot read {token!r}: write moves as from/to")
        points: list[int] = []
        starred: set[int] = set()
        for i, piece in enumerate(pieces):
            star = piece.endswith("*")
            name = piece.rstrip("*")
            if piece.count("*") > 1 or (star and i == 0):
                raise InvalidNotationError(f"in {token!r}: misplaced '*'")
            p = _parse_point(name, token, first=i == 0, last=i == len(pieces) - 1)
            if star:
                if p == _OFF:
                    raise InvalidNotationError(f"in {token!r}: nothing is hit when bearing off")
                starred.add(p)
            points.append(p)
        for a, b in itertools.pairwise(points):
            if b >= a:
                raise InvalidNotationError(
                    f"in {token!r}: {_point_name(a)}/{_point_name(b)} does not move forward "
                    "(checkers move from higher to lower points)"
                )
        paths.append((tuple(points), frozenset(starred), count))
    return ParsedPlay(paths=tuple(paths), text=text)


# ----------------------------------------------------------------------------------------
# resolving notation against the legal plays


def play_net(start: BasePosition, result: BasePosition) -> tuple[int, ...]:
    s, r = start.cells, result.cells
    delta = [0] * 26
    for k in range(25):
        delta[k + 1] = r[25 + k] - s[25 + k]
    delta[0] = result.player_off - start.player_off
    return tuple(delta)


def segment_ok(a: int, b: int, roll: tuple[int, int]) -> bool:
    """Can one checker go from a to b (off = 0) with some of the dice of roll?"""
    d1, d2 = roll
    steps = [d1] * 4 if d1 == d2 else [d1, d2]
    sums: set[int] = set()
    for mask in range(1, 1 << len(steps)):
        sums.add(sum(s for i, s in enumerate(steps) if mask >> i & 1))
    dist = a - b
    if b == _OFF:
        return any(s >= dist for s in sums)  # exact or overshoot (legality checked later)
    return dist in sums


def _diagnose(plays: PlaysLike[PlayLike], parsed: ParsedPlay) -> str:
    """Why a parsed play matches no legal play (best effort, most specific first)."""
    pos = plays.position
    roll = plays.roll
    me = pos.player
    opp = pos.opponent
    rtxt = f"{roll[0]}-{roll[1]}"
    delta = parsed.net_change()
    if not plays:
        return f"{rtxt} cannot be played at all in this position (the play is empty)"
    if not parsed.paths:
        return f"{rtxt} can be played ({len(plays)} legal plays): an empty play is illegal"
    after = [me[k] + delta[k + 1] for k in range(25)]
    for k in range(25):
        if after[k] < 0:
            where = "the bar" if k == 24 else f"point {k + 1}"
            have = me[k]
            return (
                f"not enough checkers on {where}: the play moves {have - after[k]}, "
                f"there {'is' if have == 1 else 'are'} {have}"
            )
    for points, _, _ in parsed.paths:
        for a, b in itertools.pairwise(points):
            if not segment_ok(a, b, roll):
                return f"{_point_name(a)}/{_point_name(b)} cannot be played with {rtxt}"
        for p in points[1:]:
            if p != _OFF and opp[24 - p] >= 2:
                return f"point {p} is blocked (the opponent has {opp[24 - p]} checkers there)"
    if (
        me[24] > 0
        and delta[25] > -me[24]
        and any(points[0] != _BAR for points, _, _ in parsed.paths)
    ):
        return f"{me[24]} checker(s) on the bar must enter before any other checker moves"
    if delta[0] > 0 and any(after[k] for k in range(6, 25)):
        return "cannot bear off while checkers are outside the home board"
    legal_pips = max(sum(p.dice) for p in plays)
    written = 0
    for points, _, count in parsed.paths:
        written += (points[0] - points[-1]) * count
    if written < legal_pips and delta[0] == 0:
        n_dice = max(len(p.moves) for p in plays)
        if roll[0] != roll[1] and n_dice == 1:
            return f"only one die of {rtxt} can be played and it must be the larger ({roll[0]})"
        what = "both dice" if n_dice == 2 else f"{n_dice} dice"
        return f"{what} of {rtxt} must be played when possible (the play moves {written} pips)"
    return f"not a legal play of {rtxt} in this position"


def resolve(plays: PlaysLike[_PlayT], text: str | ParsedPlay) -> _PlayT:
    """The legal play written as ``text``.

    Raises
    ------
    InvalidNotationError
        If the text cannot be read.
    IllegalPlayError
        If it is not a legal play of the roll, with the reason.
    AmbiguousPlayError
        If it fits several legal plays (differing in hits), listing them.
    """
    parsed = text if isinstance(text, ParsedPlay) else parse_notation(text)
    pos = plays.position
    rtxt = f"{plays.roll[0]}-{plays.roll[1]}"
    if not parsed.paths:
        if not plays:
            raise IllegalPlayError(
                f"{rtxt} cannot be played: there is no play to choose (the turn passes)"
            )
        raise IllegalPlayError(_diagnose(plays, parsed))
    want = parsed.net_change()
    cands = plays.with_net(want)
    if not cands:
        raise IllegalPlayError(f"{parsed.text.strip()!r}: {_diagnose(plays, parsed)}")
    opp = pos.opponent
    for points, _, _ in parsed.paths:
        for p in points[1:]:
            if p != _OFF and opp[24 - p] >= 2:
                raise IllegalPlayError(
                    f"{parsed.text.strip()!r}: point {p} is blocked (the opponent has "
                    f"{opp[24 - p]} checkers there)"
                )
        for a, b in itertools.pairwise(points):
            if not segment_ok(a, b, plays.roll):
                raise IllegalPlayError(
                    f"{parsed.text.strip()!r}: {_point_name(a)}/{_point_name(b)} cannot be "
                    f"played with {rtxt}"
                )
    required = parsed.starred() | {p for p in parsed.landings() if opp[24 - p] == 1}
    fitting = [p for p in cands if required <= set(p.hits)]
    if not fitting:
        missing = sorted(required - set().union(*(set(p.hits) for p in cands)))
        where = ", ".join(str(p) for p in missing) or ", ".join(str(p) for p in sorted(required))
        raise IllegalPlayError(
            f"{parsed.text.strip()!r}: no legal play with this effect hits on {where}"
        )
    if len(fitting) == 1:
        return fitting[0]
    exact = [p for p in fitting if set(p.hits) == required]
    if len(exact) == 1:
        return exact[0]
    options = " | ".join(p.notation for p in fitting)
    raise AmbiguousPlayError(
        f"{parsed.text.strip()!r} fits {len(fitting)} legal plays of {rtxt}: {options}"
    )
