"""The rule-set registry: variant names to rule sets (the rules model's one indirection).

Why a registry
--------------
:meth:`Position.initial` answers for every variant, yet a variant's position
(:class:`~mathbg.rules.variants.position.VariantPosition`) *is* a
:class:`~mathbg.rules.position.Position`, defined above it; and the variants' rule sets
extend :class:`~mathbg.rules.ruleset.RuleSet`, above it too. Importing them from
``position`` or ``ruleset`` would close an import cycle, so both look names up here instead.

How it works
------------
:data:`RULESETS` maps a canonical name to its rule set. A rule-set module registers its
rule sets when imported (:func:`register`). A name not registered yet loads the built-in
providers listed in :data:`PROVIDERS` (module names, as plug-in entry points are written),
in order until the name is found, so ``Position.initial("portes")`` works on a fresh
interpreter while the standard game never imports a variant. This module imports nothing
of the rules model.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from mathbg.errors import UnknownVariantError

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "RULESETS",
    "lookup",
    "normalise_name",
    "register",
]

#: Known rule sets by canonical name (filled by the modules that define them).
RULESETS: dict[str, Any] = {}

#: The modules whose import registers the built-in rule sets, in load order.
PROVIDERS: tuple[str, ...] = (
    "mathbg.rules.ruleset",
    "mathbg.rules.variations",
    "mathbg.rules.variants",
)

#: Other spellings accepted for variant names (after lower-casing, ``_``/space -> ``-``).
ALIASES: dict[str, str] = {
    "nardi": "long-nardi",
    "long-nardy": "long-nardi",
    "nardy": "long-nardi",
    "narde": "long-nardi",
    "longnardi": "long-nardi",
    "uzun-tavla": "tavla",
    "hypergammon": "hypergammon3",
    **{f"hypergammon-{n}": f"hypergammon{n}" for n in (1, 2, 3)},
    **{f"{n}-chequer-hypergammon": f"hypergammon{n}" for n in (1, 2, 3)},
}


def normalise_name(name: str) -> str:
    """Canonical spelling of a variant name (lower case, ``-`` separators, aliases)."""
    key = "-".join(name.strip().lower().replace("_", " ").split())
    return ALIASES.get(key, key)


def register(rulesets: Mapping[str, Any]) -> None:
    """Register rule sets under their canonical names."""
    RULESETS.update(rulesets)


def lookup(name: Any) -> Any:
    """The rule set called ``name`` (case-insensitive, aliases accepted); an object that
    already is a rule set (it has ``initial_position``) is returned unchanged.

    Raises
    ------
    UnknownVariantError
        For an unknown name, listing the known ones.
    """
    if not isinstance(name, str):
        if callable(getattr(name, "initial_position", None)):
            return name
        raise UnknownVariantError(f"a variant name is a string, got {type(name).__name__}")
    key = name.strip().lower()
    rs = RULESETS.get(key)
    for module in PROVIDERS:  # in order, only as far as needed (backgammon: no variant)
        if rs is not None:
            break
        importlib.import_module(module)
        rs = RULESETS.get(key)
    if rs is None:
        rs = RULESETS.get(normalise_name(key))
    if rs is None:
        known = ", ".join(sorted(RULESETS))
        raise UnknownVariantError(f"unknown variant {name!r}: known variants are {known}")
    return rs
