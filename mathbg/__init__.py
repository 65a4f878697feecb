"""mathbg: the mathematics of backgammon.

Match equity tables (:mod:`mathbg.met`), doubling-cube theory (:mod:`mathbg.cube`),
bearoff databases (:mod:`mathbg.bearoff`), race evaluation (:mod:`mathbg.race`), exact
Hypergammon (:mod:`mathbg.hyper`) and a
complete rules model with gnubg's and XG's IDs (:mod:`mathbg.rules`, :func:`parse_id`);
a position's cube action at every score (:mod:`mathbg.analysis`).

Importing :mod:`mathbg` is cheap: sub-packages, and anything compiled with numba, load
only when first used (``import mathbg; mathbg.cube`` works).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

__version__ = "0.1.0"

_SUBMODULES = (
    "analysis", "bearoff", "cache", "cube", "errors", "hyper", "met", "plots", "race", "rules"
)

__all__ = [
    "MET",
    "MatchState",
    "MathbgError",
    "Position",
    "__version__",
    "analysis",
    "bearoff",
    "cache",
    "cube",
    "errors",
    "hyper",
    "met",
    "parse_id",
    "plots",
    "race",
    "rules",
]

_LAZY = {
    "Position": "mathbg.rules.position",
    "MatchState": "mathbg.rules.match",
    "MathbgError": "mathbg.errors",
    "MET": "mathbg.met.table",
    "parse_id": "mathbg.rules.ids",
}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.errors import MathbgError
    from mathbg.met.table import MET
    from mathbg.rules.ids import parse_id
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), _SUBMODULES)

# numba caches mathbg's kernels in the user cache directory, never beside the source
# (installed right after numba's import; importing mathbg does not import numba)
from mathbg._compile import use_user_cache_for_kernels  # noqa: E402

use_user_cache_for_kernels()
