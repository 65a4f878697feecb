"""A position's cube action at every score: evaluators and the score matrix.

- :mod:`mathbg.analysis.base`: the :class:`Evaluator` interface and :class:`Evaluation`;
  :mod:`mathbg.analysis.evaluation`: the engines behind the interface (a position and
  optionally its match state -> cubeless probabilities with the engine's name and plies)
  and the ``exact``, ``race``, ``given`` and ``auto`` engines;
  :mod:`mathbg.analysis.registry`: the engine registry (name -> factory, availability, the
  extra to install): :func:`get_evaluator`, :func:`engines`, :func:`register_engine`.
- :mod:`mathbg.analysis.gnubg_nn`: gnubg's networks from the ``gnubg-nn`` package
  (``pip install 'mathbg[engine]'``).
- :mod:`mathbg.analysis.gnubg_program`: the GNU Backgammon program in one subprocess
  (its evaluation and its own cubeful decisions).
- :mod:`mathbg.analysis.selfplay`: :func:`selfplay_met`, a match equity table measured by
  self-play at every score with error bars (locally or on a Dask cluster), by any engine
  that plays (:func:`get_player`).
- :mod:`mathbg.analysis.match_audit`: :func:`audit`: every cube decision of a real match
  judged at its score (errors in EMG and MWC, gnubg's categories, a second MET);
  :mod:`mathbg.analysis.corpus`: :func:`corpus_stats`: a collection's rates by score.
- :mod:`mathbg.analysis.matrix`: :func:`analyze` / :func:`position_matrix`: every score of
  a match (Crawford and post-Crawford), cube levels, money, exact bearoff values beside the
  approximation, and a second MET for sensitivity.

Imported lazily (no pandas until a DataFrame is asked for).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

_LAZY = {
    "ENGINES": "mathbg.analysis.registry",
    "EngineNotAvailableError": "mathbg.analysis.registry",
    "EngineSpec": "mathbg.analysis.registry",
    "UnknownEngineError": "mathbg.analysis.registry",
    "engine_help": "mathbg.analysis.registry",
    "engines": "mathbg.analysis.registry",
    "register_engine": "mathbg.analysis.registry",
    "get_evaluator": "mathbg.analysis.registry",
    "get_player": "mathbg.analysis.registry",
    "Player": "mathbg.analysis.base",
    "Evaluation": "mathbg.analysis.evaluation",
    "Evaluator": "mathbg.analysis.evaluation",
    "position_class": "mathbg.analysis.evaluation",
    "PositionAnalysis": "mathbg.analysis.matrix",
    "analyze": "mathbg.analysis.matrix",
    "analyze_many": "mathbg.analysis.matrix",
    "position_matrix": "mathbg.analysis.matrix",
    "PlayerSpec": "mathbg.analysis.selfplay",
    "SelfPlayOptions": "mathbg.analysis.selfplay",
    "selfplay_met": "mathbg.analysis.selfplay",
    "AuditResult": "mathbg.analysis.match_audit",
    "audit": "mathbg.analysis.match_audit",
    "CorpusStats": "mathbg.analysis.corpus",
    "corpus_stats": "mathbg.analysis.corpus",
}
_SUBMODULES = {
    "base",
    "corpus",
    "evaluation",
    "gnubg_nn",
    "gnubg_program",
    "match_audit",
    "matrix",
    "registry",
    "sample",
    "selfplay",
}
__all__ = [
    "ENGINES",
    "AuditResult",
    "CorpusStats",
    "EngineNotAvailableError",
    "EngineSpec",
    "Evaluation",
    "Evaluator",
    "Player",
    "PlayerSpec",
    "PositionAnalysis",
    "SelfPlayOptions",
    "UnknownEngineError",
    "analyze",
    "analyze_many",
    "audit",
    "corpus_stats",
    "engine_help",
    "engines",
    "get_evaluator",
    "get_player",
    "position_class",
    "position_matrix",
    "register_engine",
    "selfplay_met",
]

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.base import Player
    from mathbg.analysis.corpus import CorpusStats, corpus_stats
    from mathbg.analysis.evaluation import Evaluation, Evaluator, position_class
    from mathbg.analysis.match_audit import AuditResult, audit
    from mathbg.analysis.matrix import PositionAnalysis, analyze, analyze_many, position_matrix
    from mathbg.analysis.registry import (
        ENGINES,
        EngineNotAvailableError,
        EngineSpec,
        UnknownEngineError,
        engine_help,
        engines,
        get_evaluator,
        get_player,
        register_engine,
    )
    from mathbg.analysis.selfplay import PlayerSpec, SelfPlayOptions, selfplay_met

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), _SUBMODULES)
