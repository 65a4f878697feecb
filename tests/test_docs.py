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


def _toctree(text: str) -> list[str]:
    """The documents a generated page's toctree names, in order."""
    if ".. toctree::" not in text:
        return []
    block = text.split(".. toctree::", 1)[1].split("\n\n", 2)[1]
    return [line.strip() for line in block.splitlines()]


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
        if name == "mathbg.cli" or name.startswith("mathbg.cli."):
            continue  # the command's modules: test_the_cli_is_not_in_the_api_reference
        assert name in pages, f"no API page for {name}"


def test_each_module_sits_beneath_its_package(pages):
    # the sidebar is a tree: the index names the top level, each package page its own
    # modules, and every page is reached exactly once
    reached = {"index": _toctree(pages["index"])}
    reached |= {name: _toctree(text) for name, text in pages.items() if name != "index"}
    entries = [doc for docs in reached.values() for doc in docs]
    assert sorted(entries) == sorted(n for n in pages if n != "index"), "a page reached twice"
    for name in pages:
        if name in ("index", "mathbg"):
            continue
        package = name.rpartition(".")[0]
        where = "index" if package == "mathbg" else package
        assert name in reached[where], f"{name} is not listed beneath {where}"
        assert f"- :mod:`{name}`: " in pages[where], f"{name} has no line on {where}'s page"


def test_the_index_lists_the_packages_in_layer_order(pages):
    # docs/architecture.md's layers, bottom to top; the command has its own page (cli.md)
    assert _toctree(pages["index"]) == [
        "mathbg",
        "mathbg.errors",
        "mathbg.cache",
        "mathbg.rules",
        "mathbg.met",
        "mathbg.cube",
        "mathbg.bearoff",
        "mathbg.race",
        "mathbg.hyper",
        "mathbg.analysis",
        "mathbg.plots",
    ]


def test_the_cli_is_not_in_the_api_reference(pages):
    assert not [n for n in pages if n == "mathbg.cli" or n.startswith("mathbg.cli.")]
    assert not [n for n, text in pages.items() if "mathbg.cli" in text]
    assert ":doc:`../cli`" in pages["index"]


def _listed(text: str) -> list[str]:
    """The names a generated page lists: its summary entries and its type aliases."""
    summary = ""
    if ".. autosummary::" in text:
        summary = text.split(".. autosummary::", 1)[1].split("\n\n", 2)[1]
    names = [line.strip().lstrip("~").rsplit(".", 1)[-1] for line in summary.splitlines()]
    names += re.findall(r"^\.\. py:data:: [\w.]+\.(\w+)$", text, re.M)
    return names


def test_each_page_lists_exactly_its_modules_all(pages):
    # equality, not inclusion: a name dropped from a page, or a page naming what __all__
    # does not export, both fail (the pages are generated from __all__ at every build)
    wrong = {}
    for name, text in pages.items():
        if name == "index":
            continue
        module = _import(name)
        expected = [n for n in getattr(module, "__all__", mathbg_api.exported(module))]
        expected = [n for n in expected if n != "__version__"]
        listed = _listed(text)
        if sorted(listed) != sorted(expected) or len(set(listed)) != len(listed):
            wrong[name] = (sorted(set(listed) ^ set(expected)), len(listed), len(expected))
    assert not wrong, wrong


def test_the_root_page_lists_the_analysis_package(pages):
    assert "analysis" in _listed(pages["mathbg"]) and "mathbg.analysis" in pages


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
    # the CLI page's directive is a Sphinx extension: only with the docs extra installed
    pytest.importorskip("docutils")
    pytest.importorskip("sphinx")
    import mathbg_cli

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


def _css_rules(css: str) -> dict[str, dict[str, str]]:
    """Selector -> declarations of a plain CSS file (no nesting, comments dropped)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
        pairs = (d.split(":", 1) for d in body.split(";") if ":" in d)
        decls = {k.strip(): v.strip() for k, v in pairs}
        rules.setdefault(" ".join(selector.split()), {}).update(decls)
    return rules


def _conf_value(name: str):
    """The literal value ``docs/conf.py`` assigns to ``name`` (read, not executed: running
    the file writes the generated pages)."""
    import ast

    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py does not set {name}")


def test_wide_formulas_fit_the_column():
    """A display formula wider than the text column is broken into lines by MathJax, or
    scrolls inside its block; the theme alone cuts it at the column's edge at 1280 px."""
    assert "_static" in _conf_value("html_static_path")
    css_files = _conf_value("html_css_files")
    assert "mathbg.css" in css_files
    assert _conf_value("mathjax4_config")["output"]["displayOverflow"] == "linebreak"
    rules = _css_rules((DOCS / "_static" / "mathbg.css").read_text(encoding="utf-8"))
    block = rules["div.math"]
    # a flex row (the theme's) makes MathJax measure a zero line width: a block measures right
    assert block["display"] == "block"
    assert block["overflow-x"] == "auto"
    container = rules["div.math mjx-container"]
    assert container["overflow-x"] == "auto" and container["min-width"] == "0"
