"""The Python versions mathbg states are the ones its tests run on.

``pyproject.toml``'s ``Programming Language :: Python :: 3.N`` classifiers name the tested
versions, ``requires-python`` starts at the oldest of them, and the README and the docs say the
same in words. A test run on a Python the classifiers do not name fails here, loudly, rather
than passing as if that version were supported: add its classifier and its sentence once the
whole suite passes on it.
"""

from __future__ import annotations

import platform
import re
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

packaging_specifiers = pytest.importorskip("packaging.specifiers")


def _stated() -> list[tuple[int, int]]:
    """The ``3.N`` versions the classifiers name, oldest first."""
    found = [
        re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", c)
        for c in PROJECT["classifiers"]
    ]
    return sorted((int(m[1]), int(m[2])) for m in found if m)


def _spec():
    return packaging_specifiers.SpecifierSet(PROJECT["requires-python"])


def _words(versions: list[tuple[int, int]]) -> str:
    return " and ".join(f"{major}.{minor}" for major, minor in versions)


def test_classifiers_and_requires_python_agree():
    stated = _stated()
    assert stated, "no Programming Language :: Python :: 3.N classifier"
    spec = _spec()
    for major, minor in stated:
        assert spec.contains(f"{major}.{minor}.0"), f"{major}.{minor} is outside requires-python"
    # requires-python starts at the oldest stated version: nothing older installs
    major, minor = stated[0]
    assert not spec.contains(f"{major}.{minor - 1}.99"), "requires-python allows an older Python"
    classifiers = set(PROJECT["classifiers"])
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert "Programming Language :: Python :: Implementation :: CPython" in classifiers


def test_the_running_python_is_a_stated_one():
    running = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    assert _spec().contains(running), f"Python {running} is outside requires-python"
    assert sys.version_info[:2] in _stated(), (
        f"the tests run on Python {running}, which pyproject.toml does not state as tested "
        f"(classifiers: {_words(_stated())}); add its classifier and the README's sentence "
        "once the whole suite passes on it"
    )
    assert platform.python_implementation() == "CPython", "only CPython is stated as tested"


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_install_text_names_the_tested_versions(page):
    text = " ".join((REPO / page).read_text(encoding="utf-8").split())
    assert f"Supported and tested: CPython {_words(_stated())}" in text
    # the versions allowed but not tested are said to be untested
    assert "untested" in text
