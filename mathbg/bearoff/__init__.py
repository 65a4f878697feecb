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
  match score (:mod:`mathbg.bearoff.exact.match`; analyses in
  :mod:`mathbg.bearoff.exact.analysis`).

Positions are checker counts on points 1..P, ace point first, in the side's own
numbering; the databases use gnubg's bearoff index, so they interoperate with gnubg's
``.bd`` files (:mod:`mathbg.bearoff.gnubg_bd`).

Modules: :mod:`~mathbg.bearoff.onesided` (:class:`OneSided` and the statistics of a
distribution), :mod:`~mathbg.bearoff.twosided` (:class:`TwoSided`, :class:`Equities`,
cube decisions), :mod:`~mathbg.bearoff.index`, :mod:`~mathbg.bearoff.plays`,
:mod:`~mathbg.bearoff.gnubg_bd` (gnubg's files), :mod:`~mathbg.bearoff.native` (the
native directory format); the generators and the block build in
:mod:`mathbg.bearoff.generate`, exact match play in :mod:`mathbg.bearoff.exact`.
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
    "OneSided": "mathbg.bearoff.onesided",
    "TwoSided": "mathbg.bearoff.twosided",
    "Equities": "mathbg.bearoff.twosided",
    "SuccessorTable": "mathbg.bearoff.plays",
    "successors": "mathbg.bearoff.plays",
    "play_results": "mathbg.bearoff.plays",
    "rank": "mathbg.bearoff.index",
    "unrank": "mathbg.bearoff.index",
    "n_positions": "mathbg.bearoff.index",
    "all_positions": "mathbg.bearoff.index",
    "match_equity": "mathbg.bearoff.exact.match",
}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.bearoff.exact.match import match_equity
    from mathbg.bearoff.index import all_positions, n_positions, rank, unrank
    from mathbg.bearoff.onesided import OneSided
    from mathbg.bearoff.plays import SuccessorTable, play_results, successors
    from mathbg.bearoff.twosided import Equities, TwoSided


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
