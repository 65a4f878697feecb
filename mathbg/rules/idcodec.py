"""Bit-level codecs of gnubg's Position ID and Match ID (dependency free).

The parsers that build :class:`~mathbg.rules.position.Position` and
:class:`~mathbg.rules.match.MatchState` from IDs (and XGIDs) are in :mod:`mathbg.rules.ids`;
this module works on plain data and imports nothing from :mod:`mathbg.rules`.

Formats (all verified against gnubg 1.07 and the vectors of the gnubg manual):

**Position ID** (gnubg manual, "A technical description of the Position ID"). For the
player *not* on roll and then for the player on roll, for that player's points 1..24
(from their own side) and then the bar: as many 1-bits as checkers, then one 0-bit. The
bit string (at most 30 ones + 50 zeros = 80 bits) is packed least significant bit first
into 10 bytes and written as the first 14 characters of their standard base64 encoding.
Note that the old manual says the player on roll comes first: gnubg's code (and so every ID
it writes) puts the player *not* on roll first.

**Match ID** (gnubg manual, "A technical description of the Match ID"): a 9-byte key with
the same bit packing, written as 12 base64 characters. Bit fields (0-based):

====== ======================================================================
bits   field
====== ======================================================================
0-3    log2 of the cube value
4-5    cube owner: 0 = player 0, 1 = player 1, 3 = centred
6      player on roll (``fMove``)
7      Crawford game
8-10   game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11     player who must act (``fTurn``; differs from bit 6 after a double or resignation)
12     double offered
13-14  resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17  first die (gnubg writes the higher die first); 0 = not rolled
18-20  second die
21-35  match length (0 = money)
36-50  score of player 0
51-65  score of player 1
66     1 = Jacoby rule *not* in use (both values are accepted when decoding)
====== ======================================================================

The functions here work on plain data: the 50 checker counts of a board, the raw bit fields
of a Match ID (:func:`decode_match_key`) and their meaning (:func:`match_fields_from_id`,
:func:`match_id_from_fields`: the keyword arguments of ``MatchState``). All Match ID knowledge
lives here; the XGID format is described and parsed in :mod:`mathbg.rules.ids`.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Sequence
from typing import Any

from mathbg.errors import InvalidIdError

__all__ = [
    "MATCH_ID_FIELDS",
    "MATCH_ID_LENGTH",
    "POSITION_ID_LENGTH",
    "decode_match_key",
    "decode_position_id",
    "encode_match_key",
    "encode_position_id",
    "match_fields_from_id",
    "match_id_from_fields",
]

_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_RE = re.compile(r"^[A-Za-z0-9+/]*$")

#: Length of a Position ID and of a Match ID in characters.
POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12

# ----------------------------------------------------------------------------------------
# bit packing helpers (LSB-first, as gnubg)


def _b64_to_bytes(text: str, nbytes: int, what: str) -> bytes:
    nchars = (nbytes * 8 + 5) // 6
    if len(text) != nchars:
        raise InvalidIdError(
            f"invalid {what} {text!r}: expected {nchars} base64 characters, got {len(text)}"
        )
    if not _B64_RE.match(text):
        bad = next(c for c in text if c not in _B64_ALPHABET)
        raise InvalidIdError(f"invalid {what} {text!r}: {bad!r} is not a base64 character")
    pad = "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(text + pad, validate=True)
    except binascii.Error as exc:  # pragma: no cover - excluded by the checks above
        raise InvalidIdError(f"invalid {what} {text!r}: {exc}") from None
    # base64 of nchars characters carries 6*nchars bits; the bits past nbytes*8 must be 0
    # or the ID is not the canonical spelling of its key.
    last_value = _B64_ALPHABET.index(text[-1])
    spare = 6 * nchars - 8 * nbytes
    if last_value & ((1 << spare) - 1):
        raise InvalidIdError(
            f"invalid {what} {text!r}: the last character has padding bits set "
            "(not an ID gnubg writes)"
        )
    return raw[:nbytes]


def _bytes_to_b64(key: bytes, nchars: int) -> str:
    return base64.b64encode(key).decode("ascii")[:nchars]


def _get_bits(value: int, start: int, nbits: int) -> int:
    return (value >> start) & ((1 << nbits) - 1)


# ----------------------------------------------------------------------------------------
# Position ID


def encode_position_id(cells: Sequence[int] | bytes) -> str:
    """The gnubg Position ID of a board.

    Parameters
    ----------
    cells : sequence of 50 ints
        gnubg ``TanBoard`` order: the 25 counts (points 1..24 from its own side, then the
        bar) of the player *not* on roll, then the 25 of the player on roll.

    Returns
    -------
    str
        14 base64 characters.

    Raises
    ------
    InvalidIdError
        If the board does not fit the 80-bit key (more than 30 checkers in all, or more
        than 15 for a side).
    """
    if isinstance(cells, bytes):  # a position's own cells: the same board, the same ID
        return _position_id_of_bytes(cells)
    return _position_id(cells)


@functools.lru_cache(maxsize=1 << 14)
def _position_id_of_bytes(cells: bytes) -> str:
    return _position_id(cells)


def _position_id(cells: Sequence[int] | bytes) -> str:
    if len(cells) != 50:
        raise InvalidIdError(f"a board has 50 cells (2 x 25), got {len(cells)}")
    sides = (sum(cells[:25]), sum(cells[25:]))
    if max(sides) > 15:
        raise InvalidIdError(
            f"cannot encode a Position ID: a side has {max(sides)} checkers (at most 15)"
        )
    value = 0
    bit = 0
    for count in cells:
        if count < 0:
            raise InvalidIdError("cannot encode a negative checker count")
        value |= ((1 << count) - 1) << bit
        bit += count + 1
    return _bytes_to_b64(value.to_bytes(10, "little"), POSITION_ID_LENGTH)


def decode_position_id(pid: str) -> bytes:
    """The 50 checker counts of a gnubg Position ID, in ``TanBoard`` order.

    Parameters
    ----------
    pid : str
        14 base64 characters.

    Returns
    -------
    bytes
        50 counts: the player not on roll (points 1..24, bar), then the player on roll.

    Raises
    ------
    InvalidIdError
        If ``pid`` is not 14 base64 characters, its bit string does not describe exactly
        two sides of 25 cells, or a side has more than 15 checkers. (Further checks, such as
        a point held by both sides, are :meth:`Position.status`'s job.)
    """
    if not isinstance(pid, str):
        raise InvalidIdError(f"a Position ID is a string, got {type(pid).__name__}")
    value = int.from_bytes(_b64_to_bytes(pid, 10, "Position ID"), "little")
    cells = bytearray(50)
    bit = 0
    for k in range(50):
        count = 0
        while bit < 80 and (value >> bit) & 1:
            count += 1
            bit += 1
        if bit >= 80:
            raise InvalidIdError(
                f"invalid Position ID {pid!r}: the bit string ends before all 50 cells "
                "(too many checkers)"
            )
        bit += 1  # the separating zero
        cells[k] = count
    if value >> bit:
        raise InvalidIdError(f"invalid Position ID {pid!r}: checkers encoded after the last cell")
    for side, name in ((cells[:25], "player not on roll"), (cells[25:], "player on roll")):
        if sum(side) > 15:
            raise InvalidIdError(
                f"invalid Position ID {pid!r}: the {name} has {sum(side)} checkers (at most 15)"
            )
    return bytes(cells)


# ----------------------------------------------------------------------------------------
# Match ID

#: Match ID fields: name -> (first bit, number of bits).
MATCH_ID_FIELDS: dict[str, tuple[int, int]] = {
    "log_cube": (0, 4),
    "cube_owner": (4, 2),
    "on_roll": (6, 1),
    "crawford": (7, 1),
    "game_state": (8, 3),
    "turn": (11, 1),
    "doubled": (12, 1),
    "resigned": (13, 2),
    "die0": (15, 3),
    "die1": (18, 3),
    "length": (21, 15),
    "score0": (36, 15),
    "score1": (51, 15),
    "no_jacoby": (66, 1),
}


def decode_match_key(mid: str) -> dict[str, int]:
    """The raw bit fields of a gnubg Match ID (see :data:`MATCH_ID_FIELDS`).

    Only the syntax is checked here (12 base64 characters, unused bits 67-71 clear);
    :meth:`MatchState.from_id` checks that the fields make sense.
    """
    if not isinstance(mid, str):
        raise InvalidIdError(f"a Match ID is a string, got {type(mid).__name__}")
    value = int.from_bytes(_b64_to_bytes(mid, 9, "Match ID"), "little")
    if value >> 67:
        raise InvalidIdError(f"invalid Match ID {mid!r}: unused bits 67-71 are set")
    return {name: _get_bits(value, start, n) for name, (start, n) in MATCH_ID_FIELDS.items()}


def encode_match_key(fields: dict[str, int]) -> str:
    """A gnubg Match ID from raw bit fields (the inverse of :func:`decode_match_key`)."""
    value = 0
    for name, (start, n) in MATCH_ID_FIELDS.items():
        v = int(fields.get(name, 0))
        if not 0 <= v < (1 << n):
            raise InvalidIdError(f"Match ID field {name}={v} does not fit in {n} bits")
        value |= v << start
    return _bytes_to_b64(value.to_bytes(9, "little"), MATCH_ID_LENGTH)


def match_fields_from_id(mid: str) -> dict[str, Any]:
    """The match state a gnubg Match ID describes, as ``MatchState`` keyword arguments.

    Keys: ``length``, ``score`` (player 0, player 1), ``crawford``, ``cube`` (the value, not
    its log2), ``cube_owner`` (0, 1 or None = centred), ``on_roll``, ``turn``, ``dice``
    (``(d0, d1)`` or None), ``doubled``, ``resigned``, ``status`` (the game state, 0-4) and
    ``jacoby`` (bit 66 is "Jacoby *not* in use"; both values are accepted).

    Raises
    ------
    InvalidIdError
        If ``mid`` is malformed or a field has a value gnubg never writes (cube owner 2,
        game state above 4, a die above 6 or only one die rolled), naming the field.
    """
    f = decode_match_key(mid)
    if f["cube_owner"] == 2:
        raise InvalidIdError(
            f"invalid Match ID {mid!r}: cube owner field is 2 (0, 1 or 3 = centred)"
        )
    if f["game_state"] > 4:
        raise InvalidIdError(f"invalid Match ID {mid!r}: game state {f['game_state']} (0-4)")
    d0, d1 = f["die0"], f["die1"]
    if d0 > 6 or d1 > 6 or (d0 == 0) != (d1 == 0):
        raise InvalidIdError(f"invalid Match ID {mid!r}: dice {d0} and {d1}")
    return {
        "length": f["length"],
        "score": (f["score0"], f["score1"]),
        "crawford": bool(f["crawford"]),
        "cube": 1 << f["log_cube"],
        "cube_owner": None if f["cube_owner"] == 3 else f["cube_owner"],
        "on_roll": f["on_roll"],
        "turn": f["turn"],
        "dice": (d0, d1) if d0 else None,
        "doubled": bool(f["doubled"]),
        "resigned": f["resigned"],
        "status": f["game_state"],
        "jacoby": not f["no_jacoby"],
    }


def match_id_from_fields(
    *,
    length: int,
    score: tuple[int, int],
    crawford: bool,
    cube: int,
    cube_owner: int | None,
    on_roll: int,
    turn: int,
    dice: tuple[int, int] | None,
    doubled: bool,
    resigned: int,
    status: int,
    jacoby: bool,
) -> str:
    """The gnubg Match ID of a match state (the inverse of :func:`match_fields_from_id`).

    The higher die is written first, as gnubg does; a centred cube is owner field 3.
    """
    d = dice or (0, 0)
    return encode_match_key(
        {
            "log_cube": cube.bit_length() - 1,
            "cube_owner": 3 if cube_owner is None else cube_owner,
            "on_roll": on_roll,
            "crawford": int(crawford),
            "game_state": int(status),
            "turn": turn,
            "doubled": int(doubled),
            "resigned": resigned,
            "die0": max(d),
            "die1": min(d),
            "length": length,
            "score0": score[0],
            "score1": score[1],
            "no_jacoby": int(not jacoby),
        }
    )
