"""Hypothesis: hostile inputs to the ID parsers, the MET readers and the cube functions
raise a :class:`mathbg.errors.MathbgError` (or give finite, in-range numbers), never
another exception (issue 13)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg.errors import MathbgError

# slow lane: many hypothesis examples per test (about 12 CPU-s in all)
pytestmark = pytest.mark.slow

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID_IDS = [
    "4HPwATDgc/ABMA",
    "4HPwATDgc/ABMA:cAkAAAAAAAAA",
    "/38AAADfAwAAAA",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10",
    "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:1:0:7:10",
]
ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:-XGID \u00e9\u0663"


@st.composite
def mutated(draw, originals: list[str], alphabet: str):
    text = list(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.integers(0, 2))
        k = draw(st.integers(0, len(text)))
        if op == 0 and text:
            text[min(k, len(text) - 1)] = draw(st.sampled_from(alphabet))
        elif op == 1:
            text.insert(k, draw(st.sampled_from(alphabet)))
        elif text:
            del text[min(k, len(text) - 1)]
    return "".join(text)


def _only_mathbg_errors(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except MathbgError:
        return None


# ------------------------------------------------------------------ ID parsers


@FAST
@given(st.one_of(mutated(VALID_IDS, ID_ALPHABET), st.text(max_size=80),
                 st.text(alphabet=ID_ALPHABET, max_size=80)))  # fmt: skip
def test_id_parsers_raise_only_mathbg_errors(text):
    from mathbg.rules.ids import decode_xgid, parse_id
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

    result = _only_mathbg_errors(parse_id, text)
    if result is not None:
        position, _match = result
        assert position.is_valid()
    _only_mathbg_errors(decode_xgid, text)
    _only_mathbg_errors(Position.from_id, text)
    _only_mathbg_errors(MatchState.from_id, text)


@FAST
@given(st.integers(min_value=-(10**30), max_value=10**30), st.integers(0, 9))
def test_xgid_numeric_fields_of_any_size(value, field):
    from mathbg.rules.ids import decode_xgid

    parts = VALID_IDS[3][5:].split(":")
    parts[1 + field % 9] = str(value)
    _only_mathbg_errors(decode_xgid, "XGID=" + ":".join(parts))


# ------------------------------------------------------------------ MET readers


@pytest.fixture(scope="module")
def met_texts():
    from mathbg.met import build
    from mathbg.met.formats import render

    met = build("kazaross-xg2", length=5)
    return {fmt: render(met, fmt).encode("utf-8") for fmt in ("gnubg-xml", "xg", "json")}


@st.composite
def byte_mutations(draw):
    ops = []
    for _ in range(draw(st.integers(1, 6))):
        ops.append((draw(st.integers(0, 3)), draw(st.floats(0, 1)), draw(st.integers(0, 255))))
    return ops


def _apply(data: bytes, ops) -> bytes:
    b = bytearray(data)
    for op, where, value in ops:
        k = int(where * max(len(b) - 1, 0))
        if op == 0 and b:
            b[k] = value
        elif op == 1:
            b.insert(k, value)
        elif op == 2 and b:
            del b[k]
        elif op == 3:
            b = b[:k]
    return bytes(b)


@FAST
@given(st.sampled_from(["gnubg-xml", "xg", "json"]), byte_mutations())
def test_met_readers_on_mutated_files(tmp_path_factory, met_texts, fmt, ops):
    from mathbg.met.formats import read

    data = _apply(met_texts[fmt], ops)
    f = tmp_path_factory.mktemp("m") / {"gnubg-xml": "t.xml", "xg": "t.met", "json": "t.json"}[fmt]
    f.write_bytes(data)
    met = _only_mathbg_errors(read, f)
    if met is not None:  # a file that still parses gives a table of probabilities
        assert np.all(np.isfinite(met.pre)) and np.all((met.pre >= 0) & (met.pre <= 1))


# ------------------------------------------------------------------ cube functions

EDGE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 0.5, 5e-324, 1e-308, 1 - 1e-16, 1 + 1e-16, 1e308]),
)


@FAST
@given(EDGE, EDGE, EDGE, EDGE, EDGE)
def test_money_points_on_edge_floats(g0, g1, b0, b1, x):
    from mathbg.cube.money import money_points

    pts = _only_mathbg_errors(money_points, (g0, g1), (b0, b1), x)
    if pts is not None:
        for name in ("take_point_dead", "take_point_live", "cash_point_dead"):
            value = getattr(pts, name, None)
            if value is not None:
                assert math.isfinite(float(value))


@FAST
@given(st.lists(EDGE, min_size=5, max_size=5), EDGE,
       st.sampled_from([1, 2, 3, 0, -4, 2**40]))  # fmt: skip
def test_cube_decision_on_edge_floats(probs, x, cube):
    from mathbg.cube.cubeful import cube_decision

    dec = _only_mathbg_errors(cube_decision, probs, cube=cube, cube_life=x)
    if dec is not None:
        assert math.isfinite(dec.no_double)


@settings(max_examples=120, deadline=None)
@given(st.integers(-3, 30), st.integers(-3, 30), EDGE, EDGE,
       st.sampled_from([1, 2, 3, 64, 2**13]), st.booleans())  # fmt: skip
def test_match_points_on_edge_inputs(a, b, g, x, cube, crawford):
    from mathbg.cube.match import points

    sp = _only_mathbg_errors(points, "kazaross-xg2", (a, b), cube=cube, gammons=(g, g),
                             cube_life=x, crawford=crawford)  # fmt: skip
    if sp is not None:
        assert sp.as_dict()
