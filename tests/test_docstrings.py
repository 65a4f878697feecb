"""numpydoc sections on every public function of mathbg.met, mathbg.cube, mathbg.analysis,
mathbg.hyper, mathbg.errors and mathbg.cache, and their examples run as doctests."""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import pkgutil
import textwrap
import warnings
from collections.abc import Iterator
from types import FunctionType, ModuleType

import pytest

numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")

PACKAGES = ("mathbg.met", "mathbg.cube", "mathbg.analysis", "mathbg.hyper")
#: Top-level modules checked the same way.
MODULES = ("mathbg.errors", "mathbg.cache")
#: Deprecated modules the release removes (importing them warns).
SKIP_MODULES = {"mathbg.met.io", "mathbg.cube.convert"}


def _modules() -> Iterator[ModuleType]:
    for name in MODULES:
        yield importlib.import_module(name)
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        yield pkg
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            if info.name in SKIP_MODULES:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)
                yield importlib.import_module(info.name)


def _public_functions() -> list[tuple[str, FunctionType]]:
    out = []
    for mod in _modules():
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        for name in names:
            obj = vars(mod).get(name)
            if isinstance(obj, FunctionType) and obj.__module__ == mod.__name__:
                if "Deprecated" in (obj.__doc__ or "")[:40]:
                    continue  # removed by the release (no docs for a spelling going away)
                out.append((f"{mod.__name__}.{name}", obj))
    return out


FUNCTIONS = _public_functions()


def _raises(fn: FunctionType) -> bool:
    """The function's own body has a ``raise`` (nested functions excluded)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0]
    stack = list(ast.iter_child_nodes(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Raise):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


def test_there_are_functions_to_check() -> None:
    assert len(FUNCTIONS) > 80


@pytest.mark.parametrize(("name", "fn"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_numpydoc_sections(name: str, fn: FunctionType) -> None:
    doc = numpydoc_docscrape.FunctionDoc(fn)
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters if p not in ("self", "cls")]
    documented = {n.strip().lstrip("*") for p in doc["Parameters"] for n in p.name.split(",")}
    missing = [p for p in params if p not in documented]
    assert not missing, f"{name}: parameters without a Parameters entry: {missing}"
    if sig.return_annotation not in ("None", None, inspect.Signature.empty):
        assert doc["Returns"] or doc["Yields"], f"{name}: no Returns section"
    if _raises(fn):
        assert doc["Raises"], f"{name}: raises but has no Raises section"
    assert doc["Examples"], f"{name}: no Examples section"


@pytest.mark.parametrize("module", sorted({fn.__module__ for _, fn in FUNCTIONS}))
def test_examples_run(module: str) -> None:
    mod = importlib.import_module(module)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(mod, optionflags=flags, verbose=False)
    assert result.failed == 0, f"{module}: {result.failed} example(s) failed"
