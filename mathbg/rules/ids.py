"""IDs a user pastes, parsed into the game model: Position ID, ``POSID:MATCHID`` and XGID.

The bit-level Position ID and Match ID codecs are in :mod:`mathbg.rules.idcodec`; here they
meet :class:`~mathbg.rules.position.Position` and :class:`~mathbg.rules.match.MatchState`.

**XGID** (eXtreme Gammon; gnubg ``set.c:SetXGID`` and ``positionid.c:PositionFromXG``):
``XGID=`` + 26 board characters + 9 colon-separated fields. Board character 0 is the top
player's bar, 1..24 are points 1..24 of the bottom player, 25 is the bottom player's bar;
``-`` is empty, ``A``-``O`` are 1-15 checkers of the bottom player, ``a``-``o`` of the top
player. The fields are: log2 cube, cube position (1 bottom owns, 0 centred, -1 top owns),
turn (1 bottom, -1 top), dice (``00`` not rolled, ``D`` double offered, else two digits),
score of the bottom player, score of the top player, rules (match: 1 = Crawford game;
money: bit 0 Jacoby, bit 1 beavers), match length (0 = money), log2 of the maximum cube.
gnubg's player 1 is XG's bottom player and player 0 the top one.

The codec names (:func:`encode_position_id`, :func:`decode_match_key`, ...) are re-exported
here so that every ID function is importable from one module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mathbg.errors import InvalidIdError
from mathbg.rules.idcodec import (
    MATCH_ID_FIELDS,
    decode_match_key,
    decode_position_id,
    encode_match_key,
    encode_position_id,
    match_fields_from_id,
    match_id_from_fields,
)
from mathbg.rules.match import GameStatus, MatchState
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
    "is_xgid",
    "match_fields_from_id",
    "match_id_from_fields",
    "money_rules",
    "parse_id",
]


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


#: Longest ID text parsed (an XGID is about 60 characters).
MAX_ID_LENGTH = 256


def _bounded(text: str, what: str) -> str:
    """Refuse an over-long ID before parsing it (one rule: :mod:`mathbg._validate`)."""
    from mathbg._validate import bounded_text

    return bounded_text(text, what, MAX_ID_LENGTH, error=InvalidIdError)


def _xg_int(text: str, name: str, xgid: str) -> int:
    if len(text) > 6:
        raise InvalidIdError(f"invalid XGID: {name} field has {len(text)} characters (at most 6)")
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
    text = _bounded(xgid, "an XGID").strip()
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
        if i in (0, 25):  # the bars: character 0 the top player's, 25 the bottom's
            side, case, counts = (
                ("top", "lowercase", top) if i == 0 else ("bottom", "uppercase", bottom)
            )
            if owner != side:
                raise InvalidIdError(
                    f"invalid XGID {xgid!r}: character {i} is the {side} "
                    f"player's bar and must be {case} or '-'"
                )
            counts[24] = n
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
    cube_owner = {1: 1, 0: None, -1: 0}[cubepos]
    player_rows = {1: bottom, 0: top}
    position = Position.from_counts(player_rows[on_roll], player_rows[1 - on_roll])
    position.check()
    try:
        match = MatchState(
            length=length,
            score=(score_top, score_bottom),
            crawford=crawford,
            cube=1 << log_cube,
            cube_owner=cube_owner,
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


def is_xgid(text: str) -> bool:
    """Whether :func:`parse_id` reads ``text`` as an XGID (``XGID=...``, or the ten
    colon-separated fields without the prefix).

    Examples
    --------
    >>> is_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10"), is_xgid("4HPwATDgc/ABMA")
    (True, False)
    """
    s = text.strip()
    return s.upper().startswith("XGID=") or s.count(":") == 9


def money_rules(text: object, match: MatchState | None) -> tuple[bool, bool]:
    """The money-play rules an ID carries: (the Jacoby rule, beavers).

    A money Match ID carries its Jacoby flag (beavers: gnubg's default, allowed); a money
    XGID its rules field (bit 0 the Jacoby rule, bit 1 beavers). Anything else (no ID, a
    match's ID, whose XGID rules field is the Crawford flag) carries none: gnubg's
    defaults, both on.

    Parameters
    ----------
    text : object
        What the position was given as (an XGID string is read for its beaver bit).
    match : MatchState or None
        The match state :func:`parse_id` decoded from it.

    Returns
    -------
    (bool, bool)
        The Jacoby rule, beavers.

    Examples
    --------
    >>> xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:10"
    >>> money_rules(xgid, parse_id(xgid)[1])
    (False, True)
    >>> money_rules("4HPwATDgc/ABMA", None)
    (True, True)
    """
    if match is None or not match.is_money:
        return True, True
    beavers = True
    if isinstance(text, str) and is_xgid(text):
        beavers = decode_xgid(text.strip()).beavers
    return bool(match.jacoby), bool(beavers)


def parse_id(text: str) -> tuple[Position, MatchState | None]:
    """Decode any ID a user may paste: a Position ID, ``POSID:MATCHID`` or an XGID.

    The position is strictly validated (an impossible position raises
    :class:`~mathbg.errors.InvalidPositionError`).

    Returns
    -------
    (Position, MatchState or None)
        The match state is None for a bare Position ID.
    """
    if not isinstance(text, str):
        raise InvalidIdError(f"an ID is a string, got {type(text).__name__}")
    s = _bounded(text, "an ID").strip()
    if is_xgid(s):
        x = decode_xgid(s)
        return x.position, x.match
    if s.lower().startswith("gnubgid"):
        s = s[7:].strip()
    if ":" in s:
        pid, _, mid = s.partition(":")
        return Position.from_id(pid.strip()), MatchState.from_id(mid.strip())
    return Position.from_id(s), None
