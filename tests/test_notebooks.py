"""The notebooks are the six the project promises (issues 7 and 9), kept clean in git.

Executing them is CI's job (``pytest --nbmake notebooks``); here only their shape: each
exists, opens with the question it answers, has no stored outputs (strip them with
``jupyter nbconvert --clear-output --inplace notebooks/*.ipynb`` before committing) and
imports only mathbg's public modules (no ``_private`` names).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPECTED = [
    "01_rules_and_ids",
    "02_match_equity_tables",
    "03_take_points_at_a_score",
    "04_cube_theory",
    "05_bearoff_and_race",
    "06_exact_match_cube",
    "07_at_which_scores_is_this_a_take",
]


def _load(name: str) -> dict:
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def test_the_promised_notebooks_exist() -> None:
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_opens_with_its_question(name: str) -> None:
    first = _load(name)["cells"][0]
    assert first["cell_type"] == "markdown"
    text = _source(first)
    assert text.startswith("# ")
    assert "**The question.**" in text


@pytest.mark.parametrize("name", EXPECTED)
def test_outputs_are_stripped(name: str) -> None:
    for cell in _load(name)["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs", []) == [], f"{name}: stored outputs"
            assert cell.get("execution_count") is None, f"{name}: stored execution count"


@pytest.mark.parametrize("name", EXPECTED)
def test_uses_only_the_public_api(name: str) -> None:
    code = "\n".join(_source(c) for c in _load(name)["cells"] if c["cell_type"] == "code")
    imports = re.findall(r"^\s*(?:from\s+(\S+)\s+)?import\s+(.+)$", code, re.M)
    assert imports
    for module, names in imports:
        assert "._" not in f"{module}." and not module.startswith("_"), (name, module)
        assert not re.search(r"(^|[\s,])_\w", names), (name, names)
    assert not re.search(r"\bmathbg(\.\w+)*\._", code), f"{name} reaches into a private module"
