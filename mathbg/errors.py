"""Exceptions raised by mathbg.

Every error caused by bad input is a subclass of :class:`MathbgError`, itself a
:class:`ValueError`, and carries a message that names the problem. The command line
prints that message and exits with status 2.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousPlayError",
    "ConfigurationError",
    "ContactPositionError",
    "DatabaseCorruptError",
    "DatabaseError",
    "IllegalActionError",
    "IllegalPlayError",
    "InputTooLargeError",
    "InsufficientMemoryError",
    "InsufficientSpaceError",
    "InvalidIdError",
    "InvalidNotationError",
    "InvalidParameterError",
    "InvalidPositionError",
    "InvalidRollError",
    "InvalidScoreError",
    "METFormatError",
    "MathbgError",
    "MathbgWarning",
    "ResourceError",
    "TargetExistsError",
    "UnknownTableError",
    "UnknownVariantError",
    "reason",
]


class MathbgError(ValueError):
    """Base class of all input errors raised by mathbg."""


class InvalidIdError(MathbgError):
    """A gnubg Position ID, Match ID or XGID that cannot be decoded."""


class InvalidPositionError(MathbgError):
    """A position that breaks the rules (too many checkers, a shared point, ...)."""


class InvalidRollError(MathbgError):
    """A roll that is not two dice with values 1..6."""


class InvalidNotationError(MathbgError):
    """A play written in notation that cannot be parsed."""


class IllegalPlayError(MathbgError):
    """A well-formed play that is not legal in the position for the roll."""


class AmbiguousPlayError(MathbgError):
    """A play in notation that matches more than one legal play."""


class IllegalActionError(MathbgError):
    """A game action (double, take, resign, ...) that the current state does not allow."""


class UnknownVariantError(MathbgError):
    """A rule-set (game variant) name that mathbg does not know."""


class InvalidScoreError(MathbgError):
    """A match score, match length or cube value that is out of range."""


class InvalidParameterError(MathbgError):
    """A model parameter (gammon rate, cube life, ...) that is out of range."""


class METFormatError(MathbgError):
    """A match equity table file that is malformed."""


class UnknownTableError(MathbgError, KeyError):
    """A shipped table name that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnknownEngineError(InvalidParameterError, KeyError):
    """An evaluation engine name that is not registered (the message lists the choices)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class EngineNotAvailableError(MathbgError):
    """An evaluation engine that is not installed or cannot evaluate the position."""


class DatabaseError(MathbgError):
    """A bearoff database that is missing, corrupt or does not cover a position."""


class DatabaseCorruptError(DatabaseError):
    """A database or cache file whose contents fail verification (checksum, size, header,
    plausibility): it is never served."""


class TargetExistsError(MathbgError):
    """A write refused because the target exists and is not a mathbg file of the same
    kind (pass ``force=True`` / ``--force`` to replace it)."""


class ResourceError(MathbgError):
    """Work refused or stopped because a machine resource (disk, memory) is short."""


class InsufficientSpaceError(ResourceError):
    """Not enough free disk space for the file(s) to be written."""


class InsufficientMemoryError(ResourceError):
    """Not enough memory (RAM, ``ulimit -v`` or the cgroup limit) for the work."""


class InputTooLargeError(MathbgError):
    """An input (text, number, nesting depth) beyond the bounds mathbg accepts."""


class TextEncodingError(MathbgError):
    """An input file that is not text in the encoding mathbg reads (UTF-8, a BOM allowed)."""


class ConfigurationError(MathbgError):
    """An environment setting (e.g. ``MATHBG_DATA``) that cannot be used."""


class ContactPositionError(MathbgError):
    """A position with contact given to a race-only evaluator."""


class MathbgWarning(UserWarning):
    """A warning from mathbg (e.g. a corrupted cache rebuilt); the CLI prints it on one line."""


class MatchFileError(MathbgError):
    """A match file that cannot be read: not a match, truncated, binary, an unknown line,
    a score or cube value that is impossible. The message names the file and the line;
    ``path`` and ``line`` hold them (either may be None)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = path or "<match>"
        if line is not None:
            where += f", line {line}"
        text = " ".join(str(message).split())  # one line, whatever the file held
        if len(text) > 400:
            text = text[:397] + "..."
        super().__init__(f"{where}: {text}")
        self.path = path
        self.line = line


class MatchReplayError(MatchFileError, IllegalPlayError):
    """A match record that breaks the rules when replayed: an illegal play, a cube action
    the state does not allow, a result or score the record contradicts. The message names
    the file, the game, the move number and the play."""


def reason(exc: BaseException, limit: int = 200) -> str:
    """What went wrong, on one line: ``"TypeName: message"`` with its whitespace folded,
    at most ``limit`` characters (the reason a warning about a damaged or unwritten cache
    file quotes).

    Parameters
    ----------
    exc : BaseException
        The exception.
    limit : int
        The longest reason returned.

    Returns
    -------
    str

    Examples
    --------
    >>> reason(OSError("No space left   on device"))
    'OSError: No space left on device'
    """
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:limit]
