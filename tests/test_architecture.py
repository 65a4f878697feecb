"""The package face and layers of docs/architecture.md (issue 12)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

#: Bottom to top; a module may import its own package and the packages of lower layers.
LAYERS: list[set[str]] = [
    {"errors", "_lazy", "_paths", "_deprecation", "_output", "_resources", "_validate", "_files",
     "__init__"},
    {"rules", "met"},
    {"cube"},
    {"bearoff"},
    {"race"},
    {"analysis"},
    {"plots"},
    {"cli", "__main__"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _documented() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Public API", 1)[1]
    pairs = []
    for module, names in re.findall(r"^- `(mathbg[\w.]*)`: (.+)$", section, re.M):
        pairs += [(module, name) for name in re.findall(r"`(\w+)`", names)]
    return pairs


DOCUMENTED = _documented()


def test_the_doc_lists_the_public_api() -> None:
    assert len(DOCUMENTED) > 150
    assert ("mathbg", "parse_id") in DOCUMENTED and ("mathbg.cube", "CubeOwner") in DOCUMENTED


@pytest.mark.parametrize(("module", "name"), DOCUMENTED)
def test_every_documented_name_imports(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is not None


def test_package_faces_list_the_public_api_only() -> None:
    code = (
        "import mathbg, sys; print(mathbg.cube.__name__, sorted(dir(mathbg)));"
        "import mathbg.plots as p; print(sorted(dir(p)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    assert out[0].startswith("mathbg.cube ")
    for hidden in ("TYPE_CHECKING", "annotations", "_LAZY", "np", "plt"):
        assert f"'{hidden}'" not in out[0] + out[1]
    documented = {n for m, n in DOCUMENTED if m == "mathbg"}
    assert documented <= set(ast.literal_eval(out[0].split(" ", 1)[1]))


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``mathbg`` import of a module, module-level and inside functions, and the
    modules its lazy face (``_LAZY``) names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("mathbg")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "mathbg":
                found += [(node.lineno, f"mathbg.{a.name}") for a in node.names]
            elif node.module.startswith("mathbg."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            # a lazy package face (``_LAZY = {"name": "mathbg.module"}``) imports its values
            if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets):
                found += [
                    (v.lineno, v.value)
                    for v in node.value.values
                    if isinstance(v, ast.Constant) and str(v.value).startswith("mathbg.")
                ]
    return found


def _package(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_imports_go_down_the_layers_including_inside_functions() -> None:
    wrong = []
    for path in sorted((ROOT / "mathbg").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        own = _package(".".join(rel.parts))
        if own == "__init__":  # the root face names everything lazily
            continue
        for line, target in _imports(path):
            other = _package(target)
            if other in LAYER and other != own and LAYER[other] > LAYER[own]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
            if {own, other} == {"rules", "met"}:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} (independent)")
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_another_modules_private_names() -> None:
    wrong = []
    for path in sorted((ROOT / "mathbg").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mathbg"):
                package = ROOT.joinpath(*(node.module or "").split("."))
                inside = path.is_relative_to(package)
                for alias in node.names:
                    module = (package / alias.name).with_suffix(".py")
                    if inside and (module.exists() or (package / alias.name).is_dir()):
                        continue  # a private module of the importer's own package
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}")
    assert not wrong, "\n".join(wrong)


#: The places that load modules by name on purpose: the lazy package faces, the rule-set
#: providers (plug-ins by name) and the CLI's sub-commands.
LOADS_BY_NAME = ("mathbg/_lazy.py", "mathbg/rules/registry.py", "mathbg/cli/")
_LOADERS = {"import_module", "__import__", "find_spec", "reload", "spec_from_file_location"}


def _loads_by_name(path: Path) -> list[tuple[int, str]]:
    """Calls that import a module by name (``importlib.import_module``, ``__import__``, ...)
    whose name is, or may be, a ``mathbg`` module: a literal starting with ``mathbg``, or
    anything computed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called not in _LOADERS:
            continue
        arg = node.args[0]
        literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
        if literal and not arg.value.startswith("mathbg"):  # type: ignore[union-attr]
            continue
        if called == "find_spec" and not literal and path.name == "_compile.py":
            continue  # the numba import hook looks up "numba" only (it checks the name)
        found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_imports_mathbg_by_name_outside_the_plugin_loaders() -> None:
    wrong = []
    for path in sorted((ROOT / "mathbg").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(LOADS_BY_NAME):
            continue
        wrong += [f"{rel}:{line} {call}" for line, call in _loads_by_name(path)]
    assert not wrong, "\n".join(wrong)


def test_the_import_by_name_check_catches_a_planted_import(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import importlib\n"
        "def f(name):\n"
        "    importlib.import_module('mathbg.met.nocube')\n"
        "    __import__(name)\n"
        "    importlib.import_module('json')\n",
        encoding="utf-8",
    )
    assert [line for line, _ in _loads_by_name(planted)] == [3, 4]
