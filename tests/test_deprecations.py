"""Old spellings keep working for one release, with a DeprecationWarning (issue 12)."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

OLD_MODULES = {
    "mathbg.io.gnubg_ids": "mathbg.rules.ids",
    "mathbg.io.gnubg_bd": "mathbg.bearoff.gnubg_bd",
    "mathbg.met.io": "mathbg.met.formats",
    "mathbg.cube.convert": "mathbg.cube.cubeful",
}


@pytest.mark.parametrize("old", sorted(OLD_MODULES))
def test_old_module_warns_and_forwards(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=OLD_MODULES[old].replace(".", r"\.")):
        module = importlib.import_module(old)
    new = importlib.import_module(OLD_MODULES[old])
    for name in new.__all__:
        assert getattr(module, name) is getattr(new, name)


def test_old_id_functions_give_the_same_ids() -> None:
    sys.modules.pop("mathbg.io.gnubg_ids", None)
    with pytest.warns(DeprecationWarning):
        from mathbg.io.gnubg_ids import parse_id
    position, match = parse_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert position.id == "4HPwATDgc/ABMA"  # the gnubg manual's start position
    assert match is not None and match.id == "cAkAAAAAAAAA"


def test_met_write_method_is_deprecated(tmp_path) -> None:
    from mathbg.met import load, read

    met = load("kazaross-xg2")
    with pytest.warns(DeprecationWarning, match=r"mathbg\.met\.write"):
        path = met.write(tmp_path / "k.json")
    assert np.array_equal(read(path).pre, met.pre)


def test_variant_match_equity_spellings_are_deprecated() -> None:
    from mathbg.met import match_mwc, rotation_met
    from mathbg.rules.variants import match as vm

    m = vm.VariantMatch(length=3, rotation=("portes", "plakoto", "fevga"), score=(1, 0))
    with pytest.warns(DeprecationWarning, match="match_mwc"):
        assert m.mwc(0) == match_mwc(m, 0)
    with pytest.warns(DeprecationWarning, match="match_mwc"):
        assert vm.match_equity(m, 1) == match_mwc(m, 1)
    with pytest.warns(DeprecationWarning, match=r"mathbg\.met\.rotation_met"):
        assert np.array_equal(vm.rotation_met(3, [0.2, 0.3]), rotation_met(3, [0.2, 0.3]))
    with pytest.warns(DeprecationWarning, match=r"VariantMatch\.tavli"):
        assert vm.TavliMatch(5) == vm.VariantMatch.tavli(5)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("roller", "player"),
        ("owned", "player"),
        ("centred", "centre"),
        ("center", "centre"),
        ("opponent_owns", "opponent"),
    ],
)
def test_old_cube_owner_names_warn(old: str, new: str) -> None:
    from mathbg.cube import CubeOwner

    with pytest.warns(DeprecationWarning, match=repr(new)):
        assert CubeOwner.parse(old) == new
    assert CubeOwner.parse(new.upper()) is CubeOwner(new)


def test_cube_owner_is_one_vocabulary() -> None:
    import json

    from mathbg.cube import CubeOwner
    from mathbg.cube.inputs import OWNERS
    from mathbg.errors import InvalidParameterError

    assert tuple(CubeOwner) == OWNERS == ("centre", "player", "opponent")
    assert json.dumps(CubeOwner.PLAYER) == '"player"'
    assert CubeOwner.of(None, 0) is CubeOwner.CENTRE
    assert CubeOwner.of(1, 1) is CubeOwner.PLAYER and CubeOwner.of(0, 1) is CubeOwner.OPPONENT
    with pytest.raises(InvalidParameterError, match="centre, player, opponent"):
        CubeOwner.parse("nobody")


def test_money_point_names() -> None:
    from mathbg.cube import money

    for old in ("take_point", "cash_point", "too_good_point"):
        with pytest.warns(DeprecationWarning, match=f"money_{old}"):
            value = getattr(money, old)(1.0, 1.0, 0.0)
        assert value == getattr(money, f"money_{old}")(1.0, 1.0, 0.0)
    # Janowski, dead cube, no gammons: take point 1/4, cash point 3/4 (Janowski 1993)
    assert money.money_take_point(1.0, 1.0, 0.0) == pytest.approx(0.25)
    assert money.money_cash_point(1.0, 1.0, 0.0) == pytest.approx(0.75)
