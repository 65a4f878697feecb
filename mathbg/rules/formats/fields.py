"""The fields every match file holds, read and written by one set of rules.

- **Numbers.** :func:`read_number` reads every number of a ``.mat`` or ``.sgf`` file (the
  match length, a score, a cube value, the points of a result, a game number), bounded
  in its digits *before* it is converted (a 5,000-digit number is one line naming the
  file, the line and the value, never Python's "Exceeds the limit" error) and checked
  against its range: the match length 0..64 as gnubg (``MAXSCORE``; 0 is a money
  session), a score within the length, a cube value a power of two within the cube limit
  (at most gnubg's ``MAX_CUBE``, 4096).
- **Names and tags.** :func:`clean_text` makes a player's name or a tag's value one line
  (each whitespace character a space, as gnubg does with names; SGF's simple text turns
  line breaks into spaces too), so that both formats hold it; an empty name is the side's
  number (:func:`player_name`).
- **Variations.** :data:`VARIATIONS` is the one table between the rule sets of mathbg
  and the names gnubg writes for them: ``; [Variation "NackGammon"]`` in a ``.mat``
  file, ``RU[Nackgammon]`` in an ``.sgf`` file (gnubg's ``import.c``, ``export.c`` and
  ``sgf.c``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mathbg.errors import MatchFileError
from mathbg.rules.record import resignation

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import MatchRecord

__all__ = [
    "MAX_CUBE",
    "MAX_DIGITS",
    "MAX_GAMES",
    "MAX_MATCH_LENGTH",
    "MAX_POINTS",
    "MAX_TEXT",
    "VARIATIONS",
    "Variation",
    "clean_text",
    "cube_value",
    "player_name",
    "read_number",
    "text_field",
    "variation_of_mat",
    "variation_of_rule",
    "writable_text",
    "written_points",
]

#: Longest match gnubg reads (its ``MAXSCORE``: "Match length must be between 0
#: (unlimited session) and 64").
MAX_MATCH_LENGTH = 64
#: Largest cube value (gnubg's ``MAX_CUBE``, 2**12).
MAX_CUBE = 1 << 12
#: Most points a file may give for one game, or hold as a money session's score: far
#: above any real game (a backgammon at the largest cube is 12,288), low enough to bound
#: every number read.
MAX_POINTS = 1_000_000
#: Highest game number read.
MAX_GAMES = 1_000_000
#: Most digits a number field may have before it is refused unread.
MAX_DIGITS = 12
#: Longest name, tag name or tag value read (characters).
MAX_TEXT = 1024

_NUMBER = re.compile(r"[+-]?[0-9]+")


def read_number(
    text: str, what: str, lo: int, hi: int, *, source: str | None, line: int | None
) -> int:
    """The whole number ``text`` in ``lo..hi``, or a :class:`MatchFileError` naming
    ``what``, the file ``source``, the ``line`` and the value.

    Examples
    --------
    >>> read_number("7", "the match length", 0, 64, source="m.mat", line=3)
    7
    >>> read_number("9" * 5000, "the length", 0, 64, source="m.mat", line=3)
    Traceback (most recent call last):
    ...
    mathbg.errors.MatchFileError: m.mat, line 3: the length is a 5000-digit number, not in 0..64
    >>> read_number("100000", "the match length", 0, 64, source="m.mat", line=3)
    Traceback (most recent call last):
    ...
    mathbg.errors.MatchFileError: m.mat, line 3: the match length is 100000, not in 0..64
    """
    body = text.strip()
    digits = body.lstrip("+-")
    if len(digits) > MAX_DIGITS and digits.isdigit():
        raise MatchFileError(
            f"{what} is a {len(digits.lstrip('0')) or 1}-digit number, not in {lo}..{hi}",
            source, line)
    if not _NUMBER.fullmatch(body):
        shown = body if len(body) <= 20 else body[:17] + "..."
        raise MatchFileError(f"{what} is {shown!r}, not a whole number", source, line)
    value = int(body)
    if not lo <= value <= hi:
        raise MatchFileError(f"{what} is {value}, not in {lo}..{hi}", source, line)
    return value


def cube_value(
    text: str, what: str, limit: int | None, *, source: str | None, line: int | None,
    lo: int = 2,
) -> int:
    """A cube value: a power of two in ``lo..limit`` (``limit`` None: :data:`MAX_CUBE`).

    Examples
    --------
    >>> cube_value("8", "the cube value", 1024, source=None, line=None)
    8
    >>> cube_value("12", "the cube value", 1024, source="m.mat", line=9)
    Traceback (most recent call last):
    ...
    mathbg.errors.MatchFileError: m.mat, line 9: the cube value is 12, not a power of two
    """
    top = MAX_CUBE if limit is None else limit
    value = read_number(text, what, lo, top, source=source, line=line)
    if value & (value - 1):
        raise MatchFileError(f"{what} is {value}, not a power of two", source, line)
    return value


def clean_text(text: str) -> str:
    """``text`` on one line: every whitespace character (line breaks, tabs, ...) a space.

    Examples
    --------
    >>> clean_text("Ann\\nLee\\t2")
    'Ann Lee 2'
    """
    if text.isprintable() and "\t" not in text:
        return text
    return "".join(" " if ch.isspace() or not ch.isprintable() else ch for ch in text)


def text_field(text: str, what: str, *, source: str | None, line: int | None) -> str:
    """A name, tag name or tag value as read: at most :data:`MAX_TEXT` characters (else a
    :class:`MatchFileError` naming ``what``), on one line (:func:`clean_text`)."""
    if len(text) > MAX_TEXT:
        raise MatchFileError(f"{what} is {len(text)} characters long; at most {MAX_TEXT} are "
                             "read", source, line)
    return clean_text(text)


def player_name(text: str, side: int, *, source: str | None = None,
                line: int | None = None) -> str:
    """A player's name as read (:func:`text_field`), stripped; an empty name is the
    side's number, ``"Player 1"`` for player 0 (the file's first-named player).

    Examples
    --------
    >>> player_name("  Ann  Lee ", 0), player_name("", 1)
    ('Ann  Lee', 'Player 2')
    """
    name = text_field(text, f"the name of player {side}", source=source, line=line).strip()
    return name or f"Player {side + 1}"


def writable_text(text: str, what: str, *, strip: bool = True) -> str:
    """``text`` as both formats hold it (one line of at most :data:`MAX_TEXT` characters;
    with ``strip``, not empty and without leading or trailing spaces), else an
    :class:`~mathbg.errors.InvalidParameterError` naming ``what`` (for the writers: a
    record built by hand may hold anything)."""
    from mathbg.errors import InvalidParameterError

    clean = clean_text(text)
    if len(text) > MAX_TEXT or clean != text or (strip and (not text or text.strip() != text)):
        raise InvalidParameterError(
            f"{what} {text[:40]!r} cannot be written in a match file: it must be one line of "
            f"at most {MAX_TEXT} characters" + (" without leading or trailing spaces"
                                                if strip else ""))
    return text


@dataclass(frozen=True)
class Variation:
    """One game variation as mathbg and gnubg name it.

    Attributes
    ----------
    ruleset : str
        The rule set's name in mathbg (:func:`mathbg.rules.ruleset.get_ruleset`).
    mat : str
        gnubg's name in a ``.mat`` file's ``; [Variation "..."]`` tag.
    sgf : str or None
        gnubg's token in an ``.sgf`` file's ``RU`` property (None: standard, no token).
    """

    ruleset: str
    mat: str
    sgf: str | None


#: The variations gnubg writes, by mathbg's rule-set name.
VARIATIONS: dict[str, Variation] = {
    v.ruleset: v
    for v in (
        Variation("backgammon", "Backgammon", None),
        Variation("nackgammon", "NackGammon", "Nackgammon"),
        Variation("hypergammon1", "HyperGammon (1)", "Hypergammon1"),
        Variation("hypergammon2", "HyperGammon (2)", "Hypergammon2"),
        Variation("hypergammon3", "HyperGammon (3)", "Hypergammon3"),
    )
}

#: Other ``.mat`` spellings read: ``Standard`` (Jellyfish), ``HyperGammon 1``.
_MAT_ALIASES = {"standard": "backgammon"}


def _key(name: str) -> str:
    return re.sub(r"[\s()_-]+", "", name).lower()


_BY_MAT = {_key(v.mat): v for v in VARIATIONS.values()}
_BY_MAT.update({_key(k): VARIATIONS[v] for k, v in _MAT_ALIASES.items()})
_BY_SGF = {v.sgf.lower(): v for v in VARIATIONS.values() if v.sgf}


def variation_of_mat(name: str) -> Variation | None:
    """The variation a ``.mat`` file's ``Variation`` tag names (any case and spacing:
    ``"HyperGammon (1)"``, ``"Hypergammon 1"``), None for a name gnubg does not write.

    Examples
    --------
    >>> variation_of_mat("NackGammon").ruleset, variation_of_mat("hypergammon 2").ruleset
    ('nackgammon', 'hypergammon2')
    """
    return _BY_MAT.get(_key(name))


def variation_of_rule(token: str) -> Variation | None:
    """The variation an ``.sgf`` ``RU`` token names (``Nackgammon``, ``Hypergammon1``),
    None for any other token."""
    return _BY_SGF.get(token.strip().lower())


def written_points(record: MatchRecord, index: int, *, resignation_value: bool = False
                   ) -> tuple[int, bool]:  # fmt: skip
    """The points a file writes for game ``index``'s result, and whether the game won the
    match.

    A match resigned is written as the points the winner needed (the readers give it the
    resignation's value back). Another resignation is written as its value, level times
    cube (gnubg's ``nPoints``, which its writers print), with ``resignation_value`` (an
    ``.sgf``: gnubg reads the level back as those points over the cube) or where the
    points it scored would read back as another level (a gammon resigned at cube 2 to a
    side 1 point from winning); else, like any other result, as the points it scored, as
    the sites write them."""
    g = record.games[index]
    r = g.result
    assert r is not None
    length = record.length
    if r.match_resigned:
        points = length - g.score[r.winner]
    elif r.kind == "resign" and (resignation_value or resignation(
            r.winner, r.points, r.cube, None)[0].resign_level != r.resign_level):
        points = r.resign_level * r.cube
    else:
        points = r.points
    won = bool(length) and (r.match_resigned or g.score[r.winner] + points >= length)
    return points, won
