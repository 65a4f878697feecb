"""Deprecated alias of :mod:`mathbg.bearoff.exact_match_analysis`."""

from typing import Any

import mathbg.bearoff.exact_match_analysis
from mathbg._deprecation import warn_deprecated
from mathbg.bearoff.exact_match_analysis import *  # noqa: F403
from mathbg.bearoff.exact_match_analysis import __all__  # noqa: F401

warn_deprecated(
    "mathbg.bearoff.match_analysis", "mathbg.bearoff.exact_match_analysis", stacklevel=2
)


def __getattr__(name: str) -> Any:
    return getattr(mathbg.bearoff.exact_match_analysis, name)
