"""The documentation site's generated pages cover the whole public API and the CLI.

The site itself is built by CI with ``python -m sphinx -W -b html docs docs/_build/html``;
these tests check its generators without running Sphinx.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
import warnings
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import mathbg_api  # noqa: E402
import mathbg_cli  # noqa: E402

import mathbg  # noqa: E402


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("api")
    modules = mathbg_api.write_pages(out)
    return {name: (out / f"{name}.rst").read_text() for name in modules} | {
        "index": (out / "index.rst").read_text()
    }


def _all_modules() -> list[str]:
    names = ["mathbg"]
    for info in pkgutil.walk_packages(mathbg.__path__, prefix="mathbg."):
        names.append(info.name)
    return names


def _import(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(name)


def test_every_public_module_has_a_page(pages):
    for name in _all_modules():
        if any(part.startswith("_") for part in name.split(".")):
            continue
        module = _import(name)
        if (module.__doc__ or "").lstrip().startswith("Deprecated") or any(
            name.startswith(dep + ".") for dep in ("mathbg.io",)
        ):
            assert name not in pages
            continue
        assert name in pages, f"no API page for {name}"
        assert f"   {name}\n" in pages["index"]


def test_every_exported_function_and_class_is_in_its_module_page(pages):
    missing = []
    for name, text in pages.items():
        if name == "index":
            continue
        module = _import(name)
        for public in getattr(module, "__all__", []):
            obj = getattr(module, public)
            if not (inspect.isroutine(obj) or inspect.isclass(obj) or hasattr(obj, "py_func")):
                continue
            documented = (
                f".. autofunction:: {name}.{public}\n" in text
                or f".. autoclass:: {name}.{public}\n" in text
            )
            linked = re.search(rf"^   ~?([\w.]+\.)?{re.escape(public)}$", text, re.M)
            if not (documented or linked):
                missing.append(f"{name}.{public}")
    assert missing == []


def test_every_public_function_is_documented_where_it_is_defined(pages):
    """Each function or class a public module defines and exports gets its full entry there,
    so the summary links of the packages resolve."""
    missing = []
    for name, text in pages.items():
        if name == "index":
            continue
        module = _import(name)
        if hasattr(module, "__path__"):
            continue
        for public in getattr(module, "__all__", []):
            obj = getattr(module, public)
            if getattr(obj, "__module__", None) != name:
                continue
            if inspect.isroutine(obj) or hasattr(obj, "py_func"):
                if f".. autofunction:: {name}.{public}\n" not in text:
                    missing.append(f"{name}.{public}")
            elif inspect.isclass(obj) and f".. autoclass:: {name}.{public}\n" not in text:
                missing.append(f"{name}.{public}")
    assert missing == []


def test_cli_reference_holds_every_command_help():
    from mathbg.cli import SUBCOMMANDS

    texts = dict(mathbg_cli.help_texts())
    assert "mathbg" in texts and texts["mathbg"].startswith("usage: mathbg")
    for command in SUBCOMMANDS:
        assert f"mathbg {command}" in texts, command
        assert texts[f"mathbg {command}"].startswith(f"usage: mathbg {command}")
    assert {"mathbg bearoff build", "mathbg bearoff show", "mathbg cube money"} <= set(texts)


def test_site_sources_exist():
    for page in ("index.md", "getting-started.md", "cli.md", "notebooks.md", "theory.md"):
        assert (DOCS / page).is_file(), page
    index = (DOCS / "index.md").read_text()
    assert "mathbg.png" in index and (DOCS / "mathbg.png").is_file()
    notebooks = (DOCS / "notebooks.md").read_text()
    for nb in sorted((DOCS.parent / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.stem}\n" in notebooks, nb.name
