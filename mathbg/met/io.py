"""Deprecated alias of :mod:`mathbg.met.formats` (one module per format, one dispatch)."""

from mathbg._deprecation import warn_deprecated
from mathbg.met.formats import *  # noqa: F403
from mathbg.met.formats import __all__  # noqa: F401

warn_deprecated("mathbg.met.io", "mathbg.met.formats (or mathbg.met.read / write)", stacklevel=2)
