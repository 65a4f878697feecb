"""gnubg Position IDs, Match IDs, the combined ``POSID:MATCHID`` form and XGIDs.

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

**XGID** (eXtreme Gammon; gnubg ``set.c:SetXGID`` and ``positionid.c:PositionFromXG``):
``XGID=`` + 26 board characters + 9 colon-separated fields. Board character 0 is the top
player's bar, 1..24 are points 1..24 of the bottom player, 25 is the bottom player's bar;
``-`` is empty, ``A``-``O`` are 1-15 checkers of the bottom player, ``a``-``o`` of the top
player. The fields are: log2 cube, cube position (1 bottom owns, 0 centred, -1 top owns),
turn (1 bottom, -1 top), dice (``00`` not rolled, ``D`` double offered, else two digits),
score of the bottom player, score of the top player, rules (match: 1 = Crawford game;
money: bit 0 Jacoby, bit 1 beavers), match length (0 = money), log2 of the maximum cube.
gnubg's player 1 is XG's bottom player and player 0 the top one.

The low-level functions here work on plain data (the 50 checker counts of a board, a dict
of Match ID fields) so that they import nothing from :mod:`mathbg.rules`; the high-level
:func:`parse_id`, :func:`decode_xgid` and :func:`encode_xgid` return and take
:class:`~mathbg.rules.position.Position` and :class:`~mathbg.rules.match.MatchState`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mathbg.errors import InvalidIdError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "MATCH_ID_FIELDS",
    "XGID",
    "decode_match_key",
    "decode_position_id",
    "decode_xgid",
    "encode_gnubg_id",
    "encode_match_key",
    "encode_position_id",
    "encode_xgid",
    "parse_id",
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


# ----------------------------------------------------------------------------------------
# GNUbgID (POSID:MATCHID) and XGID


def encode_gnubg_id(position: Position, match: MatchState) -> str:
    """The combined gnubg ID ``POSID:MATCHID``."""
    return f"{position.id}:{match.id}"


@dataclass(frozen=True)
class XGID:
    """A decoded XGID: the position, the match state and the XG-only fields.

    Attributes
    ----------
    position : Position
        From the point of view of the player on roll (``match.on_roll``), as everywhere in
        mathbg.
    match : MatchState
        gnubg conventions: player 1 is XG's bottom player, player 0 the top player.
    beavers : bool
        Money play: beavers allowed (rules field bit 1).
    max_cube_log2 : int
        The XGID's last field, log2 of the maximum cube (XG writes 10 by default).
    """

    position: Position
    match: MatchState
    beavers: bool = False
    max_cube_log2: int = 10

    @property
    def text(self) -> str:
        """The XGID string."""
        return encode_xgid(self.position, self.match, self.beavers, self.max_cube_log2)


_XG_CHARS = "-ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _xg_int(text: str, name: str, xgid: str) -> int:
    if not re.fullmatch(r"-?\d+", text):
        raise InvalidIdError(f"invalid XGID {xgid!r}: {name} {text!r} is not an integer")
    return int(text)


def decode_xgid(xgid: str) -> XGID:
    """Decode an XGID (``XGID=...`` prefix optional).

    Raises
    ------
    InvalidIdError
        If the string is malformed or a field is out of range, naming the field.
    InvalidPositionError
        If the board is not a legal position (see :meth:`Position.status`).
    """
    from mathbg.rules.match import GameStatus, MatchState
    from mathbg.rules.position import Position

    text = xgid.strip()
    if text.upper().startswith("XGID="):
        text = text[5:]
    parts = text.split(":")
    if len(parts) != 10:
        raise InvalidIdError(
            f"invalid XGID {xgid!r}: expected a 26-character board and 9 fields separated "
            f"by ':', got {len(parts) - 1} fields"
        )
    board, f_cube, f_cubepos, f_turn, f_dice, f_sb, f_st, f_rules, f_len, f_max = parts
    if len(board) != 26:
        raise InvalidIdError(
            f"invalid XGID {xgid!r}: the board has {len(board)} characters, expected 26"
        )
    bottom = [0] * 25  # player 1, points 1..24 + bar
    top = [0] * 25  # player 0, points 1..24 (its own side) + bar
    for i, ch in enumerate(board):
        if ch == "-":
            continue
        if "A" <= ch <= "O":
            owner, n = "bottom", ord(ch) - ord("A") + 1
        elif "a" <= ch <= "o":
            owner, n = "top", ord(ch) - ord("a") + 1
        else:
            raise InvalidIdError(f"invalid XGID {xgid!r}: board character {ch!r} at {i}")
        if i == 0:
            if owner != "top":
                raise InvalidIdError(
                    f"invalid XGID {xgid!r}: character 0 is the top "
                    "player's bar and must be lowercase or '-'"
                )
            top[24] = n
        elif i == 25:
            if owner != "bottom":
                raise InvalidIdError(
                    f"invalid XGID {xgid!r}: character 25 is the bottom "
                    "player's bar and must be uppercase or '-'"
                )
            bottom[24] = n
        elif owner == "bottom":
            bottom[i - 1] = n
        else:
            top[24 - i] = n
    log_cube = _xg_int(f_cube, "cube", xgid)
    cubepos = _xg_int(f_cubepos, "cube position", xgid)
    turn = _xg_int(f_turn, "turn", xgid)
    score_bottom = _xg_int(f_sb, "bottom score", xgid)
    score_top = _xg_int(f_st, "top score", xgid)
    rules = _xg_int(f_rules, "rules", xgid)
    length = _xg_int(f_len, "match length", xgid)
    max_cube = _xg_int(f_max, "maximum cube", xgid)
    if not 0 <= log_cube <= 15:
        raise InvalidIdError(f"invalid XGID {xgid!r}: cube field {log_cube} not in 0..15")
    if cubepos not in (-1, 0, 1):
        raise InvalidIdError(f"invalid XGID {xgid!r}: cube position {cubepos} not -1, 0 or 1")
    if turn not in (-1, 1):
        raise InvalidIdError(f"invalid XGID {xgid!r}: turn {turn} is not 1 or -1")
    if not 0 <= max_cube <= 15:
        raise InvalidIdError(f"invalid XGID {xgid!r}: maximum cube {max_cube} not in 0..15")
    if length < 0:
        raise InvalidIdError(f"invalid XGID {xgid!r}: negative match length")
    if length > 0:
        if rules not in (0, 1):
            raise InvalidIdError(
                f"invalid XGID {xgid!r}: rules field {rules} must be 0 or 1 (Crawford) in "
                "match play"
            )
        crawford, jacoby, beavers = bool(rules), False, False
    else:
        if rules not in (0, 1, 2, 3):
            raise InvalidIdError(
                f"invalid XGID {xgid!r}: rules field {rules} must be 0-3 in money play"
            )
        crawford, jacoby, beavers = False, bool(rules & 1), bool(rules & 2)
    on_roll = 1 if turn == 1 else 0
    doubled = False
    if f_dice == "D":
        dice = None
        doubled = True
    elif f_dice in ("B", "R"):
        raise InvalidIdError(
            f"invalid XGID {xgid!r}: beaver/raccoon states ({f_dice!r}) cannot be "
            "represented in a gnubg match state"
        )
    elif re.fullmatch(r"[0-6][0-6]", f_dice):
        d0, d1 = int(f_dice[0]), int(f_dice[1])
        if (d0 == 0) != (d1 == 0):
            raise InvalidIdError(f"invalid XGID {xgid!r}: dice {f_dice!r}")
        dice = (d0, d1) if d0 else None
    else:
        raise InvalidIdError(f"invalid XGID {xgid!r}: dice field {f_dice!r}")
    owner = {1: 1, 0: None, -1: 0}[cubepos]
    player_rows = {1: bottom, 0: top}
    position = Position.from_counts(player_rows[on_roll], player_rows[1 - on_roll])
    position.check()
    try:
        match = MatchState(
            length=length,
            score=(score_top, score_bottom),
            crawford=crawford,
            cube=1 << log_cube,
            cube_owner=owner,
            on_roll=on_roll,
            turn=(1 - on_roll) if doubled else on_roll,
            dice=dice,
            doubled=doubled,
            status=GameStatus.PLAYING,
            jacoby=jacoby,
        )
    except ValueError as exc:
        raise InvalidIdError(f"invalid XGID {xgid!r}: {exc}") from None
    return XGID(position=position, match=match, beavers=beavers, max_cube_log2=max_cube)


def encode_xgid(
    position: Position, match: MatchState, beavers: bool = False, max_cube_log2: int = 10
) -> str:
    """The XGID of a position (from ``match.on_roll``'s side) and match state.

    ``beavers`` and ``max_cube_log2`` fill the XG-only fields (money rules bit 1 and the
    last field). A resignation offer or a finished game cannot be written as an XGID.
    """
    if match.resigned:
        raise InvalidIdError("an XGID cannot record a resignation offer")
    rows = {match.on_roll: position.player, 1 - match.on_roll: position.opponent}
    bottom, top = rows[1], rows[0]
    chars = ["-"] * 26

    def put(i: int, n: int, upper: bool) -> None:
        if n == 0:
            return
        if chars[i] != "-":
            raise InvalidIdError(f"cannot write an XGID: point {i} is held by both sides")
        chars[i] = _XG_CHARS[n] if upper else _XG_CHARS[n].lower()

    put(0, top[24], upper=False)
    put(25, bottom[24], upper=True)
    for i in range(1, 25):
        put(i, bottom[i - 1], upper=True)
        put(i, top[24 - i], upper=False)
    cubepos = {1: 1, None: 0, 0: -1}[match.cube_owner]
    turn = 1 if match.on_roll == 1 else -1
    if match.doubled:
        dice = "D"
    elif match.dice is None:
        dice = "00"
    else:
        dice = f"{match.dice[0]}{match.dice[1]}"
    if match.length > 0:
        rules = int(match.crawford)
    else:
        rules = int(match.jacoby) | (2 if beavers else 0)
    fields = [
        match.cube.bit_length() - 1,
        cubepos,
        turn,
        dice,
        match.score[1],
        match.score[0],
        rules,
        match.length,
        max_cube_log2,
    ]
    return "XGID=" + "".join(chars) + ":" + ":".join(str(f) for f in fields)


def parse_id(text: str) -> tuple[Position, MatchState | None]:
    """Decode any ID a user may paste: a Position ID, ``POSID:MATCHID`` or an XGID.

    The position is strictly validated (an impossible position raises
    :class:`~mathbg.errors.InvalidPositionError`).

    Returns
    -------
    (Position, MatchState or None)
        The match state is None for a bare Position ID.
    """
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

    if not isinstance(text, str):
        raise InvalidIdError(f"an ID is a string, got {type(text).__name__}")
    s = text.strip()
    if s.upper().startswith("XGID=") or s.count(":") == 9:
        x = decode_xgid(s)
        return x.position, x.match
    if s.lower().startswith("gnubgid"):
        s = s[7:].strip()
    if ":" in s:
        pid, _, mid = s.partition(":")
        return Position.from_id(pid.strip()), MatchState.from_id(mid.strip())
    return Position.from_id(s), None
