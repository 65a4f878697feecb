"""Deprecated alias of :mod:`mathbg.bearoff.gnubg_bd`."""

from mathbg._deprecation import warn_deprecated
from mathbg.bearoff.gnubg_bd import *  # noqa: F403
from mathbg.bearoff.gnubg_bd import __all__  # noqa: F401

warn_deprecated("mathbg.io.gnubg_bd", "mathbg.bearoff.gnubg_bd", stacklevel=2)
