"""Deprecated alias of :mod:`mathbg.bearoff.exact_match` (exact match play in bearoffs)."""

from typing import Any

import mathbg.bearoff.exact_match
from mathbg._deprecation import warn_deprecated
from mathbg.bearoff.exact_match import *  # noqa: F403
from mathbg.bearoff.exact_match import __all__  # noqa: F401

warn_deprecated("mathbg.bearoff.match", "mathbg.bearoff.exact_match", stacklevel=2)


def __getattr__(name: str) -> Any:
    return getattr(mathbg.bearoff.exact_match, name)
