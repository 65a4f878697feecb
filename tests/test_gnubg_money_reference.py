"""Issue 23: the money row's embedded gnubg reference is evaluated under the row's rules.

gnubg's ``hint`` says "No double, beaver" for sGfwATDgc/ABMA (money, beavers allowed); the
reference ``cfevaluate`` said "No double, take" because ``gnubg.cubeinfo()`` leaves its
``beavers`` field 0 whatever ``set beavers`` says.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from mathbg.cli import main

pytestmark = pytest.mark.gnubg(kind="exact")


def run(*extra: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["analyze", "sGfwATDgc/ABMA", "--money", "--engine", "gnubg", "--json",
                       *extra])  # fmt: skip
    assert status == 0
    return json.loads(out.getvalue())


def test_money_reference_is_evaluated_with_beavers() -> None:
    data = run()
    assert data["money"]["action"] == "no double, beaver"
    assert data["gnubg"]["text"] == "No double, beaver"
    assert data["gnubg"]["rules"] == {"length": 0, "jacoby": True, "beavers": True}


def test_money_reference_is_labelled_with_its_rules() -> None:
    # the reference is evaluated with beavers; the row without: the label says which
    data = run("--no-beavers")
    assert data["money"]["action"] == "no double, take"
    assert data["gnubg"]["rules"]["beavers"] is True
