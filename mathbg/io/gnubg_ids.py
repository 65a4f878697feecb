"""Deprecated alias of :mod:`mathbg.rules.ids` (and :mod:`mathbg.rules.idcodec`)."""

from mathbg._deprecation import warn_deprecated
from mathbg.rules.ids import *  # noqa: F403
from mathbg.rules.ids import __all__  # noqa: F401

warn_deprecated("mathbg.io.gnubg_ids", "mathbg.rules.ids (or mathbg.parse_id)", stacklevel=2)
