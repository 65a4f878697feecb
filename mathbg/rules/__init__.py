"""The complete rules model of backgammon.

- :mod:`~mathbg.rules.position`: :class:`Position` (immutable, side on roll's view),
  :class:`PositionStatus`; its checkers-only base
  :class:`~mathbg.rules.board.BasePosition` in :mod:`~mathbg.rules.board`.
- :mod:`~mathbg.rules.dice`: the 21 rolls and their weights, the opening roll.
- :mod:`~mathbg.rules.movegen`: legal plays (numba kernel, batch successors, reference
  generator); :mod:`~mathbg.rules.plays`: :class:`Play`, :class:`Plays`.
- :mod:`~mathbg.rules.notation`: ``24/18 13/11`` notation, written and read.
- :mod:`~mathbg.rules.cube`: cube rules, cube state transitions and :class:`CubeOwner`.
- :mod:`~mathbg.rules.ids`: :func:`parse_id` and the gnubg/XG ID writers (bit-level codecs
  in :mod:`~mathbg.rules.idcodec`).
- :mod:`~mathbg.rules.match`: :class:`MatchState` (gnubg's match snapshot) and scoring.
- :mod:`~mathbg.rules.game`: the game flow state machine and a random game player.
- :mod:`~mathbg.rules.clock`: the delay + reserve + bonus clock.
- :mod:`~mathbg.rules.ruleset`: rule sets (variants plug in here, through
  :mod:`~mathbg.rules.registry`).
- :mod:`~mathbg.rules.record`: match records (:class:`MatchRecord`, :func:`replay`); the
  match files in :mod:`~mathbg.rules.formats` (:func:`read_match`, :func:`write_match`,
  :func:`render_match`).
- :mod:`~mathbg.rules.variants`: Portes, Plakoto, Fevga, Tavla, Long Nardi; the Tavli match.

Names are imported lazily: ``import mathbg.rules`` does not load numba.
"""

from __future__ import annotations

from mathbg._lazy import lazy_exports

_LAZY = {
    "Position": "mathbg.rules.position",
    "PositionStatus": "mathbg.rules.position",
    "Play": "mathbg.rules.plays",
    "Plays": "mathbg.rules.plays",
    "ROLLS": "mathbg.rules.dice",
    "WEIGHTS": "mathbg.rules.dice",
    "MatchState": "mathbg.rules.match",
    "GameStatus": "mathbg.rules.match",
    "ResultKind": "mathbg.rules.match",
    "CubeOwner": "mathbg.rules.cube",
    "CubeRules": "mathbg.rules.cube",
    "CubeState": "mathbg.rules.cube",
    "GameState": "mathbg.rules.game",
    "GameResult": "mathbg.rules.game",
    "ClockRules": "mathbg.rules.clock",
    "ClockState": "mathbg.rules.clock",
    "parse_id": "mathbg.rules.ids",
    "RuleSet": "mathbg.rules.ruleset",
    "get_ruleset": "mathbg.rules.ruleset",
    "Variant": "mathbg.rules.variants",
    "VariantPosition": "mathbg.rules.variants",
    # match records (mathbg.rules.record) and match files (mathbg.rules.formats)
    "MatchRecord": "mathbg.rules.record",
    "GameRecord": "mathbg.rules.record",
    "GameOutcome": "mathbg.rules.record",
    "MatchRules": "mathbg.rules.record",
    "Decision": "mathbg.rules.record",
    "Move": "mathbg.rules.record",
    "Double": "mathbg.rules.record",
    "Take": "mathbg.rules.record",
    "Pass": "mathbg.rules.record",
    "Beaver": "mathbg.rules.record",
    "Resign": "mathbg.rules.record",
    "Accept": "mathbg.rules.record",
    "Reject": "mathbg.rules.record",
    "replay": "mathbg.rules.record",
    "read_match": "mathbg.rules.formats",
    "render_match": "mathbg.rules.formats",
    "write_match": "mathbg.rules.formats",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
