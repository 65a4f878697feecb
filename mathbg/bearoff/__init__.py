"""Bearoff databases: exact one-sided and two-sided tables for the last stage of a race.

Public API (imported lazily; numba compiles on first use):

- :class:`OneSided`: per position, the distribution of the number of rolls to bear off
  (and of the rolls until the first checker is off), mean, sd, EPC, wastage.
- :class:`TwoSided`: per pair of positions, the exact cubeless winning chance and the
  cubeful money equities for the three cube states, with the root cube decision.
- :func:`successors`: the CSR table of legal-play results per (position, roll), the
  building block the race evaluator and the match-play solvers reuse;
  :func:`play_results` for one position and roll.
- Index helpers: :func:`rank`, :func:`unrank`, :func:`n_positions`, :func:`all_positions`.
- :func:`match_equity`: exact cube decisions and match winning chances of a bearoff at a
  match score (:mod:`mathbg.bearoff.exact_match`; analyses in
  :mod:`mathbg.bearoff.exact_match_analysis`).

Positions are checker counts on points 1..P, ace point first, in the side's own
numbering; the databases use gnubg's bearoff index, so they interoperate with gnubg's
``.bd`` files (:mod:`mathbg.bearoff.gnubg_bd`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

__all__ = [
    "Equities",
    "OneSided",
    "SuccessorTable",
    "TwoSided",
    "all_positions",
    "match_equity",
    "n_positions",
    "play_results",
    "rank",
    "successors",
    "unrank",
]

_LAZY = {
    "OneSided": "mathbg.bearoff.db",
    "TwoSided": "mathbg.bearoff.db",
    "Equities": "mathbg.bearoff.db",
    "SuccessorTable": "mathbg.bearoff.moves",
    "successors": "mathbg.bearoff.moves",
    "play_results": "mathbg.bearoff.moves",
    "rank": "mathbg.bearoff.index",
    "unrank": "mathbg.bearoff.index",
    "n_positions": "mathbg.bearoff.index",
    "all_positions": "mathbg.bearoff.index",
    "match_equity": "mathbg.bearoff.exact_match",
}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.bearoff.db import Equities, OneSided, TwoSided
    from mathbg.bearoff.exact_match import match_equity
    from mathbg.bearoff.index import all_positions, n_positions, rank, unrank
    from mathbg.bearoff.moves import SuccessorTable, play_results, successors


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
