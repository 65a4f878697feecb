"""Input validation at the boundary: one rule for every number, string and document.

Used by the API functions that take user input and by the command line (which calls
the same functions), so both refuse the same inputs with the same
:class:`mathbg.errors.MathbgError` subclass and message. Standard library only.

The rule
--------
- Integers are whole numbers in a stated range; scores, match lengths and points away
  are at most :data:`MAX_SCORE`, cube values powers of two at most :data:`MAX_CUBE`.
  Python integers of any size, numpy integers and whole floats are accepted and
  checked *before* any numpy conversion (a 22-digit integer is an error, not an
  overflow).
- Floats are finite and in a stated range.
- Strings are bounded in length (:data:`MAX_TEXT`) before they are parsed.
- JSON and XML documents are bounded in size and nesting depth (:data:`MAX_DEPTH`);
  XML declaring an encoding Python does not know is refused.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mathbg.errors import (
    InputTooLargeError,
    InvalidParameterError,
    InvalidScoreError,
    MathbgError,
    METFormatError,
    TextEncodingError,
)

__all__ = [
    "MAX_CUBE",
    "MAX_DEPTH",
    "MAX_DOCUMENT",
    "MAX_SCORE",
    "MAX_TEXT",
    "away_pair",
    "away_score",
    "bounded_text",
    "check_depth",
    "cube_value",
    "finite_float",
    "integer",
    "json_loads",
    "options_or_keywords",
    "parse_int",
    "read_bounded",
    "read_text",
    "score",
    "strict_integer",
    "xml_encoding",
]

#: Largest score, match length or points away (gnubg's own limit is far below).
MAX_SCORE = 1024
#: Largest cube value (2**12).
MAX_CUBE = 1 << 12
#: Longest ID, XGID field or number text parsed.
MAX_TEXT = 4096
#: Deepest nesting of a JSON or XML document.
MAX_DEPTH = 64
#: Largest JSON or XML document read (bytes).
MAX_DOCUMENT = 64 << 20

O = TypeVar("O")


def _whole(value: Any, what: str, error: type[MathbgError]) -> int:
    """``value`` as a Python int (ints, numpy ints, whole finite floats), else ``error``."""
    if isinstance(value, bool):
        raise error(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isfinite(x) and x == math.floor(x):
            return int(x)
    if isinstance(value, str):
        return parse_int(value, what, error)
    raise error(f"{what} must be a whole number, got {_show(value)}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def integer(
    value: Any,
    what: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    error: type[MathbgError] = InvalidParameterError,
) -> int:
    """Check a whole number in ``lo..hi`` (either bound optional); return it as an int."""
    v = _whole(value, what, error)
    shown = str(v) if len(str(v)) <= 30 else f"a {len(str(abs(v)))}-digit number"
    return _within(v, what, lo, hi, error, shown)


def strict_integer(
    value: Any,
    what: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    error: type[MathbgError] = InvalidParameterError,
) -> int:
    """Check an integer proper (a Python or numpy int: not a bool, not a float) in ``lo..hi``
    (either bound optional); return it as an int. The rule of the options dataclasses."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise error(f"{what} must be an integer, got {value!r}")
    v = int(value)
    return _within(v, what, lo, hi, error, str(v))


def _within(
    v: int, what: str, lo: int | None, hi: int | None, error: type[MathbgError], shown: str
) -> int:
    """``v`` when it lies in ``lo..hi`` (either bound optional), else ``error`` naming
    ``what`` and the value as ``shown``."""
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise error(f"{what} must lie in {_bounds(lo, hi)}, got {shown}")
    return v


def _bounds(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"


def score(value: Any, what: str = "score", lo: int = 0) -> int:
    """A score, match length or points away: a whole number in ``lo..MAX_SCORE``."""
    return integer(value, what, lo, MAX_SCORE, error=InvalidScoreError)


def away_pair(value: Any, what: str = "away") -> tuple[Any, Any]:
    """Split a match score given as one pair ``(player_away, opponent_away)``.

    The one spelling of a score in the API (as ``--away 3,5`` on the command line and
    ``"away": [3, 5]`` in JSON): the player's (the table's row, the first-named side's)
    points to go first. The two elements are returned as given, so a vectorised function
    can take a pair of arrays; :func:`away_score` also checks two whole numbers.

    Raises
    ------
    InvalidScoreError
        For anything but a sequence of two items (a number, a string, a mapping, three
        numbers, ...).
    """
    try:
        n = -1 if isinstance(value, str | bytes | bytearray | dict) else len(value)
    except TypeError:  # a number, None, a 0-d array
        n = -1
    if n != 2 or not hasattr(value, "__getitem__"):
        rule = "must be a pair (player_away, opponent_away) such as (3, 5)"
        raise InvalidScoreError(f"{what} {rule}, got {_show(value)}")
    return value[0], value[1]


def away_score(value: Any, what: str = "away", lo: int | None = 1) -> tuple[int, int]:
    """A match score ``(player_away, opponent_away)``: two whole numbers in ``lo..MAX_SCORE``.

    ``lo=None`` accepts a side at 0 or fewer points to go (a finished match), as
    :meth:`mathbg.met.MET.mwc` does.

    Raises
    ------
    InvalidScoreError
        For a value that is not a pair (:func:`away_pair`) or an element that is not a
        whole number in range, named by its place (``away[1]``).
    """
    first, second = away_pair(value, what)
    return (
        _away(first, f"{what}[0] (the player's points away)", lo),
        _away(second, f"{what}[1] (the opponent's points away)", lo),
    )


def _away(value: Any, what: str, lo: int | None) -> int:
    v = _whole(value, what, InvalidScoreError)
    if lo == 1 and v < 1:
        raise InvalidScoreError(
            f"{what} must be at least 1 (a side 0-away has already won the match); got {v}"
        )
    return integer(v, what, lo, MAX_SCORE, error=InvalidScoreError)


def cube_value(value: Any, what: str = "cube value") -> int:
    """A cube value: a power of two 1, 2, 4, ..., :data:`MAX_CUBE`."""
    v = integer(value, what, 1, MAX_CUBE, error=InvalidScoreError)
    if v & (v - 1):
        raise InvalidScoreError(
            f"{what} must be a power of two (1, 2, 4, ..., {MAX_CUBE}); got {v}"
        )
    return v


def finite_float(
    value: Any,
    what: str,
    lo: float | None = None,
    hi: float | None = None,
    *,
    error: type[MathbgError] = InvalidParameterError,
) -> float:
    """Check a finite real number in ``[lo, hi]``; return it as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real | str):
        raise error(f"{what} must be a number, got {_show(value)}")
    if isinstance(value, str):
        text = bounded_text(value, what, 64, error=error).strip()
        try:
            value = float(text)
        except ValueError:
            raise error(f"{what} must be a number, got {_show(text)}") from None
    try:
        x = float(value)
    except OverflowError:
        raise error(f"{what} is out of range, got {_show(value)}") from None
    if not math.isfinite(x):
        raise error(f"{what} must be finite, got {x}")
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise error(f"{what} must lie in [{lo}, {hi}], got {x}")
    return x


def options_or_keywords(first: Any, keywords: Mapping[str, Any], kind: type[O], what: str) -> O:
    """``first`` when it is a ``kind`` already (then no keywords beside it), else
    ``kind(first, **keywords)``: a function that takes its options either way."""
    if isinstance(first, kind):
        if keywords:
            raise InvalidParameterError(f"give the {what} either as {kind.__name__} or keywords")
        return first
    build: Callable[..., O] = kind
    return build(first, **keywords)


def bounded_text(
    text: Any, what: str, max_len: int = MAX_TEXT, *, error: type[MathbgError] = InputTooLargeError
) -> str:
    """Check that ``text`` is a string of at most ``max_len`` characters; return it."""
    if not isinstance(text, str):
        raise error(f"{what} must be text, got {type(text).__name__}")
    if len(text) > max_len:
        raise error(f"{what} is {len(text)} characters long; at most {max_len} are accepted")
    return text


_INT = re.compile(r"\s*[+-]?\d+\s*")


def parse_int(
    text: str, what: str, error: type[MathbgError] = InvalidParameterError, max_digits: int = 30
) -> int:
    """Parse a decimal integer of at most ``max_digits`` digits (no float syntax)."""
    bounded_text(text, what, max_digits + 40, error=error)
    if not _INT.fullmatch(text):
        raise error(f"{what} must be a whole number, got {_show(text)}")
    digits = text.strip().lstrip("+-")
    if len(digits.lstrip("0")) > max_digits:
        raise error(f"{what} has {len(digits)} digits; at most {max_digits} are accepted")
    return int(text)


def check_depth(text: str | bytes, what: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a JSON document nested deeper than ``max_depth`` (brackets outside strings)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(data) > MAX_DOCUMENT:
        raise METFormatError(f"{what}: {len(data)} bytes, at most {MAX_DOCUMENT} are read")
    depth = 0
    in_string = False
    escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > max_depth:
                raise METFormatError(f"{what}: nested deeper than {max_depth} levels")
        elif byte in (0x5D, 0x7D):
            depth -= 1


def json_loads(text: str | bytes, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` with the size and depth bounded; errors are :class:`METFormatError`."""
    import json

    check_depth(text, what, max_depth)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise METFormatError(f"{what}: not valid JSON ({exc})") from None


_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']{0,64})["']""")


def xml_encoding(data: bytes, what: str) -> str | None:
    """The encoding an XML declaration names, refused when Python does not know it."""
    import codecs

    if len(data) > MAX_DOCUMENT:
        raise METFormatError(f"{what}: {len(data)} bytes, at most {MAX_DOCUMENT} are read")
    m = _XML_DECL.match(data[:512])
    if m is None:
        return None
    name = m.group(1).decode("ascii", "replace")
    try:
        codec = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a NUL byte in the name
        raise METFormatError(f"{what}: unknown XML encoding {name!r}") from None
    if codec.name not in _XML_NATIVE and not _single_byte(codec.name):
        raise METFormatError(
            f"{what}: XML encoding {name!r} is not supported (use UTF-8, UTF-16 or a "
            "single-byte encoding such as latin-1)"
        )
    return name


#: Encodings the XML parser (expat) reads itself; others must be single-byte.
_XML_NATIVE = frozenset({"utf-8", "utf-16", "utf-16-le", "utf-16-be", "ascii", "latin-1",
                         "iso8859-1"})  # fmt: skip


def _single_byte(name: str) -> bool:
    """Does the codec map each byte to one character (what expat accepts besides its own)?"""
    try:
        return len(bytes(range(256)).decode(name, "replace")) == 256
    except Exception:  # a codec without 'replace' (idna, punycode, ...) or not a text codec
        return False


def cube_state(cube: int, centred: bool, crawford: bool) -> None:
    """Refuse a cube the rules do not allow: in the Crawford game nobody may double, so
    the cube is 1 and centred there.

    Used by every API function that takes a cube with a Crawford flag (take points,
    cube decisions, the exact bearoff match solver) and so by the command line.
    """
    if crawford and (cube != 1 or not centred):
        where = "centred" if centred else "owned"
        raise InvalidScoreError(
            f"the cube is not used in the Crawford game: it stays on 1 in the centre "
            f"(got cube {cube}, {where})"
        )


def read_bounded(path: Any, what: str | None = None, limit: int = MAX_DOCUMENT) -> bytes:
    """The bytes of the file ``path``, refused (:class:`InputTooLargeError`) once more than
    ``limit`` bytes are read: reading stops at the limit (a 3 GB file or ``/dev/zero`` is
    never read whole). File errors are :class:`OSError` as ``open`` raises them."""
    name = what or str(path)
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputTooLargeError(f"{name}: longer than {limit:,} bytes, the most mathbg reads")
    return data


def read_text(path: Any, what: str | None = None, limit: int = MAX_DOCUMENT) -> str:
    """The text of a UTF-8 file (a byte-order mark is accepted and dropped), read up to
    ``limit`` bytes (:func:`read_bounded`); bytes that are not UTF-8 are refused with the
    line they are on (:class:`mathbg.errors.TextEncodingError`)."""
    name = what or str(path)
    return decode_utf8(read_bounded(path, name, limit), name)


def decode_utf8(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); bytes that are not
    UTF-8 are a :class:`mathbg.errors.TextEncodingError` naming the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TextEncodingError(
            f"{what}: not UTF-8 text (line {line}: byte 0x{data[exc.start]:02x}); save the "
            "file as UTF-8"
        ) from None
