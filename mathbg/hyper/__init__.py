"""Exact Hypergammon: money and match play solved outright, and the exact METs.

Hypergammon (1, 2 or 3 checkers a side, gnubg's variations; the rule sets of
:mod:`mathbg.rules.variations`) is small enough to solve with contact: every pair of
sides, bar and borne-off checkers included, by value iteration with gammons and
backgammons.

Public API (imported lazily; the kernels are compiled by the install, else by numba on
first use):

- :func:`solve_money` -> :class:`MoneySolution`: cubeless and cubeful money equities
  (centred, owned, Jacoby, beavers as options) of every position, as gnubg's ``makehyper``
  databases (:mod:`~mathbg.hyper.money`); :func:`read_gnubg_hyper` /
  :func:`write_gnubg_hyper` read and write those (:mod:`~mathbg.hyper.gnubg_hyper`);
- :func:`solve_score` -> :class:`ScoreSolution`: one match score solved exactly, every
  cube state (Crawford and post-Crawford too), and :func:`cube_action` for a position
  at a score; :func:`hyper_met` -> the exact Hypergammon match equity table
  (:mod:`~mathbg.hyper.match`);
- the by-products (:mod:`~mathbg.hyper.byproducts`): gammon rates under optimal play at
  every score, the cube efficiency the exact values imply, MET models against the truth.

Modules: :mod:`~mathbg.hyper.space` (the position index and the play tables),
:mod:`~mathbg.hyper.store` (the solutions on disk, with their identity checks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

__all__ = [
    "CubeEfficiency",
    "GnubgHyper",
    "HyperDecision",
    "HyperSpace",
    "MoneyEquity",
    "MoneySolution",
    "OpeningEquity",
    "ScoreSolution",
    "Store",
    "cube_action",
    "cube_efficiency",
    "gammon_rates",
    "hyper_met",
    "met_model_errors",
    "read_gnubg_hyper",
    "solve_game",
    "solve_money",
    "solve_score",
    "write_gnubg_hyper",
]

_LAZY = {
    "HyperSpace": "mathbg.hyper.space",
    "Store": "mathbg.hyper.store",
    "MoneySolution": "mathbg.hyper.money",
    "MoneyEquity": "mathbg.hyper.money",
    "OpeningEquity": "mathbg.hyper.money",
    "solve_money": "mathbg.hyper.money",
    "ScoreSolution": "mathbg.hyper.match",
    "HyperDecision": "mathbg.hyper.match",
    "solve_game": "mathbg.hyper.match",
    "solve_score": "mathbg.hyper.match",
    "cube_action": "mathbg.hyper.match",
    "hyper_met": "mathbg.hyper.match",
    "GnubgHyper": "mathbg.hyper.gnubg_hyper",
    "read_gnubg_hyper": "mathbg.hyper.gnubg_hyper",
    "write_gnubg_hyper": "mathbg.hyper.gnubg_hyper",
    "CubeEfficiency": "mathbg.hyper.byproducts",
    "cube_efficiency": "mathbg.hyper.byproducts",
    "gammon_rates": "mathbg.hyper.byproducts",
    "met_model_errors": "mathbg.hyper.byproducts",
}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.hyper.byproducts import (
        CubeEfficiency,
        cube_efficiency,
        gammon_rates,
        met_model_errors,
    )
    from mathbg.hyper.gnubg_hyper import GnubgHyper, read_gnubg_hyper, write_gnubg_hyper
    from mathbg.hyper.match import (
        HyperDecision,
        ScoreSolution,
        cube_action,
        hyper_met,
        solve_game,
        solve_score,
    )
    from mathbg.hyper.money import MoneyEquity, MoneySolution, OpeningEquity, solve_money
    from mathbg.hyper.space import HyperSpace
    from mathbg.hyper.store import Store


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
