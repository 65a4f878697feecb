"""Regional variants of backgammon: Portes, Plakoto, Fevga (Greek Tavli), Tavla, Long Nardi.

Every variant is a rule set (:class:`~mathbg.rules.variants.rules.VariantRuleSet`, a
:class:`~mathbg.rules.ruleset.RuleSet`) selected by name, so the game flow, results and
match scoring of :mod:`mathbg.rules` work for all of them::

    from mathbg import Position
    pos = Position.initial("plakoto")           # a VariantPosition
    pos.legal_plays((6, 4))                     # Plakoto's rules
    GameState.new(variant="long-nardi")         # a game of Long Nardi

Modules:

- :mod:`~.geometry`: :class:`Variant` names and the coordinate convention (both sides'
  points numbered from their own bear-off; opposite or same direction of travel);
- :mod:`~.rules`: the rule sets, their options and sources;
- :mod:`~.position`: :class:`VariantPosition` (pins, text form, diagram);
- :mod:`~.plays`: :class:`VariantPlays`; :mod:`~._kernel`: the numba generator;
- :mod:`~.reference`: a literal pure-Python generator (for tests);
- :mod:`~.match`: the Tavli match (Portes -> Plakoto -> Fevga) and single-variant
  matches, with match equities from the cubeless MET;
- :mod:`~.selfplay`: random and heuristic players, self-play statistics (gammon rates).

Importing this package registers the rule sets with :func:`mathbg.rules.ruleset.get_ruleset`
and loads no numba code (the kernel compiles on first use).
"""

from __future__ import annotations

from mathbg._lazy import lazy_exports
from mathbg.rules.registry import register
from mathbg.rules.variants.geometry import Contact, Movement, Variant, normalise_name
from mathbg.rules.variants.position import VariantPosition, parse_position
from mathbg.rules.variants.rules import (
    FEVGA,
    LONG_NARDI,
    PLAKOTO,
    PORTES,
    TAVLA,
    VARIANT_RULESETS,
    PrimeRule,
    VariantRuleSet,
)

register(VARIANT_RULESETS)

_LAZY = {
    "VariantPlays": "mathbg.rules.variants.plays",
    "VariantMatch": "mathbg.rules.variants.match",
    "play_game": "mathbg.rules.variants.selfplay",
    "play_match": "mathbg.rules.variants.selfplay",
    "selfplay": "mathbg.rules.variants.selfplay",
}

__all__ = [
    "FEVGA",
    "LONG_NARDI",
    "PLAKOTO",
    "PORTES",
    "TAVLA",
    "VARIANT_RULESETS",
    "Contact",
    "Movement",
    "PrimeRule",
    "Variant",
    "VariantMatch",
    "VariantPlays",
    "VariantPosition",
    "VariantRuleSet",
    "normalise_name",
    "parse_position",
    "play_game",
    "play_match",
    "selfplay",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
