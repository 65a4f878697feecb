"""Deprecated alias of :mod:`mathbg.cube.cubeful` (cubeless -> cubeful)."""

from typing import Any

import mathbg.cube.cubeful
from mathbg._deprecation import warn_deprecated
from mathbg.cube.cubeful import *  # noqa: F403
from mathbg.cube.cubeful import __all__  # noqa: F401

warn_deprecated("mathbg.cube.convert", "mathbg.cube.cubeful", stacklevel=2)


def __getattr__(name: str) -> Any:
    return getattr(mathbg.cube.cubeful, name)
