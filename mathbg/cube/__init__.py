"""Doubling-cube theory: money play (Janowski) and match play (from a MET).

Sub-modules (loaded on first use):

- :mod:`mathbg.cube.money`: Janowski's take, beaver, raccoon, initial double (with and
  without Jacoby, with beavers), redouble, cash and too-good points for any cube life x;
  cubeful equities; the money cube action.
- :mod:`mathbg.cube.match`: dead and live take, double, cash and too-good points at any
  match score, gammon and backgammon values, market windows, Crawford and post-Crawford.
- :mod:`mathbg.cube.matrix`: the score matrix (every score, every cube level) as a pandas
  DataFrame.
- :mod:`mathbg.cube.cubeful`: cubeless probabilities -> cubeful MWC / equity at a score
  (gnubg's live/dead blend), EMG, the cube decision at a score.
- :mod:`mathbg.cube.life`: the cube-life model, :func:`cube_life` of a position class
  and pips (gnubg 1.07.001's cube efficiency), and the documented default rule.
- :mod:`mathbg.cube.decisions`: naming cube actions (:class:`CubeAction`) and the one
  result type of a cube decision (:class:`CubeDecision`).
- :class:`CubeOwner` (from :mod:`mathbg.rules.cube`): ``"centre"``, ``"player"``,
  ``"opponent"``, the one vocabulary of the cube owner.

Gammon and backgammon rates everywhere are **disjoint fractions of that side's wins**
(gammons that are not backgammons, and backgammons), as gnubg's ``show marketwindow``
takes them; ``(G0, G1)`` and ``(B0, B1)`` are the first-named player's and the opponent's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

__all__ = [
    "CubeAction",
    "CubeDecision",
    "CubeOwner",
    "cube_decision",
    "cube_life",
    "cubeful",
    "cubeful_mwc",
    "decisions",
    "life",
    "market_window",
    "match",
    "matrix",
    "money",
    "money_points",
    "points",
    "score_matrix",
    "take_point",
]

_SUBMODULES = {"cubeful", "decisions", "life", "match", "matrix", "money"}
_LAZY = {
    "CubeOwner": "mathbg.rules.cube",
    "CubeAction": "mathbg.cube.decisions",
    "CubeDecision": "mathbg.cube.decisions",
    "money_points": "mathbg.cube.money",
    "points": "mathbg.cube.match",
    "take_point": "mathbg.cube.match",
    "market_window": "mathbg.cube.match",
    "score_matrix": "mathbg.cube.matrix",
    "cubeful_mwc": "mathbg.cube.cubeful",
    "cube_decision": "mathbg.cube.cubeful",
    "cube_life": "mathbg.cube.life",
}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.cube import cubeful, decisions, life, match, matrix, money
    from mathbg.cube.cubeful import cube_decision, cubeful_mwc
    from mathbg.cube.decisions import CubeAction, CubeDecision
    from mathbg.cube.life import cube_life
    from mathbg.cube.match import market_window, points, take_point
    from mathbg.cube.matrix import score_matrix
    from mathbg.cube.money import money_points
    from mathbg.rules.cube import CubeOwner


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), _SUBMODULES)
