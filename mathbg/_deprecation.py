"""Deprecation warnings for old spellings kept working for one release."""

from __future__ import annotations

import warnings


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (a :class:`DeprecationWarning`).

    ``stacklevel`` counts from the caller of this function (3 = the caller's caller).
    """
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
