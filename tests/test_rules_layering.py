"""The rules model's internal layering keeps its behaviour: lookups by variant name go
through the registry, the standard game never loads a variant or numba until it plays."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return out.stdout.strip()


def test_standard_start_loads_no_variant_and_no_numba():
    code = (
        "import sys\n"
        "from mathbg.rules.position import Position\n"
        "p = Position.initial()\n"
        "print(type(p).__name__, 'mathbg.rules.variants' in sys.modules, 'numba' in sys.modules)"
    )
    assert _run(code) == "Position False False"


@pytest.mark.parametrize(
    ("name", "variant"),
    [("portes", "portes"), ("Long Nardi", "long-nardi"), ("nardi", "long-nardi")],
)
def test_variant_start_on_a_fresh_interpreter(name, variant):
    code = (
        "from mathbg.rules.position import Position\n"
        f"p = Position.initial({name!r})\n"
        "print(type(p).__name__, p.variant.value, isinstance(p, Position))"
    )
    assert _run(code) == f"VariantPosition {variant} True"


def test_plays_build_the_class_of_their_position():
    from mathbg.rules.plays import legal_plays
    from mathbg.rules.position import Position

    plays = legal_plays(Position.initial(), (3, 1))
    assert all(type(p.result) is Position for p in plays)
    assert type(plays.results[0]) is Position
    assert Position.from_id("4HPwATDgc/ABMA").swap() == Position.initial()
