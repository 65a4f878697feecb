"""The package face and layers of docs/architecture.md (issue 12)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest
from package_modules import public_modules

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = PYPROJECT["tool"]["importlinter"]["contracts"]


def _layers() -> tuple[list[set[str]], list[set[str]]]:
    """The layers of the import-linter contract in pyproject.toml (the one copy), bottom to
    top, as package names (``"met"``, ``"_files"``); and the groups of independent packages."""
    (contract,) = [c for c in CONTRACTS if c["type"] == "layers"]
    layers, independent = [], []
    for layer in reversed(contract["layers"]):
        layer = layer.strip().strip("()")
        names = [n.strip().removeprefix("mathbg.") for n in re.split(r"[|:]", layer)]
        layers.append(set(names))
        if "|" in layer:
            independent.append(set(names))
    for c in CONTRACTS:
        if c["type"] == "independence":
            independent.append({n.removeprefix("mathbg.") for n in c["modules"]})
    return layers, independent


#: Bottom to top; a module may import its own package and the packages of lower layers.
LAYERS, INDEPENDENT = _layers()
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def test_the_layers_are_read_from_pyproject() -> None:
    assert LAYERS[0] >= {"errors", "_files", "_jit", "_compile", "_special", "_paths", "_lazy"}
    assert LAYER["rules"] == LAYER["met"] < LAYER["cube"] < LAYER["bearoff"] < LAYER["race"]
    assert LAYER["race"] < LAYER["analysis"] < LAYER["plots"] < LAYER["cli"]
    assert {"rules", "met"} in INDEPENDENT
    # every module of the package's top level is in a layer (a new base module too)
    tops = {p.stem for p in (ROOT / "mathbg").glob("*.py")} | {
        p.parent.name for p in (ROOT / "mathbg").glob("*/__init__.py")
    }
    unplaced = tops - set(LAYER) - {"__init__", "__main__"}
    assert not unplaced, f"add {sorted(unplaced)} to the layers in pyproject.toml"


def test_the_architecture_doc_shows_the_same_layers() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Layers, bottom to top", 1)[1].split("\n\n", 2)[1]
    rows: dict[int, set[str]] = {}
    for number, modules in re.findall(r"^\| (\d+) \| ([^|]+) \|", table, re.M):
        names = re.findall(r"`mathbg\.([\w.]+)`", modules)
        rows.setdefault(int(number), set()).update(names)
    assert [rows[i] for i in sorted(rows)] == LAYERS


PUBLIC = public_modules()


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def test_the_doc_points_to_the_generated_api() -> None:
    section = DOC.read_text(encoding="utf-8").split("## Public API", 1)[1]
    assert "`__all__`" in section and "docs/_ext/mathbg_api.py" in section


def test_every_public_module_has_an_all_and_every_name_imports() -> None:
    missing, broken = [], []
    for name in PUBLIC:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(name)
        if (module.__doc__ or "").lstrip().startswith("Deprecated"):
            continue  # the last of the development spellings (bearoff), going in 0.1.0
        if name.startswith("mathbg.cli"):
            continue  # the command's modules: its interface is the command (docs/cli.md)
        if not hasattr(module, "__all__"):
            missing.append(name)
            continue
        broken += [f"{name}.{n}" for n in module.__all__ if getattr(module, n, None) is None]
    assert not missing, f"public modules without __all__: {missing}"
    assert not broken, f"__all__ names that do not import: {broken}"


def test_the_root_face_names_every_sub_package() -> None:
    import mathbg

    packages = {p.parent.name for p in (ROOT / "mathbg").glob("*/__init__.py")}
    packages |= {"errors", "plots"}  # the public modules of the top level
    packages -= {"cli"}  # the command, not an API
    assert {n for n in packages if not n.startswith("_")} <= set(mathbg.__all__)
    assert "analysis" in mathbg.__all__


def _faces() -> list[str]:
    """The public modules that define ``dir()`` (the lazy package faces, ``mathbg.plots``)."""
    faces = []
    for name in PUBLIC:
        path = ROOT / name.replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        if re.search(r"^(__getattr__, )?__dir__ = |^def __dir__\(", path.read_text(), re.M):
            faces.append(name)
    return faces


def test_the_faces_include_the_root_and_the_sub_packages() -> None:
    assert {"mathbg", "mathbg.cube", "mathbg.analysis", "mathbg.plots"} <= set(_faces())


@pytest.mark.parametrize("package", _faces())
def test_dir_of_a_package_face_is_its_all(package: str) -> None:
    # in a fresh process: what users see before anything else is imported
    code = f"import {package} as m; print(sorted(dir(m))); print(sorted(m.__all__))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    listed, exported = (ast.literal_eval(line) for line in out)
    assert all(_dunder(n) for n in set(listed) - set(exported))
    assert [n for n in listed if not _dunder(n)] == [n for n in exported if not _dunder(n)]
    assert len(exported) == len(set(exported))


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
            # __main__ (and a module the layers do not place yet) sits on top
            if other in LAYER and other != own and LAYER[other] > LAYER.get(own, len(LAYERS)):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
            if own != other and any({own, other} <= group for group in INDEPENDENT):
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
    """No import by name, and no string naming a mathbg module (the trick of a module name
    kept in a constant and imported elsewhere), outside the loaders."""
    wrong = []
    for path in sorted((ROOT / "mathbg").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(LOADS_BY_NAME):
            continue
        wrong += [f"{rel}:{line} {call}" for line, call in _loads_by_name(path)]
        wrong += [f"{rel}:{line} {text!r}" for line, text in _module_name_strings(path)]
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


#: Where a string names a ``mathbg`` module on purpose: the loaders above, the lazy faces'
#: ``_LAZY`` tables, the compile notice's labels (matched against a kernel's module name,
#: never imported) and the kernels the build compiles ahead of time (``setup.py`` imports
#: them; the package never does by name).
NAMES_ON_PURPOSE = {("mathbg/_compile.py", "_LABELS"), ("mathbg/_native.py", "EXPORTS"),
                    ("mathbg/_native.py", "MODULE")}  # fmt: skip
_MODULE_NAME = re.compile(r"mathbg(?:\.[A-Za-z_]\w*)+")


def _module_name_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of ``path`` that name a ``mathbg`` module (docstrings, ``_LAZY``
    tables and the tables of :data:`NAMES_ON_PURPOSE` aside)."""
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))  # a docstring
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if "_LAZY" in names or any((rel, n) in NAMES_ON_PURPOSE for n in names):
            skip.update(id(v) for v in ast.walk(node))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in skip and _MODULE_NAME.fullmatch(node.value)
    ]


def test_the_rule_set_registry_names_only_its_providers() -> None:
    """The registry loads the built-in rule sets by name, as plug-ins are loaded, and
    nothing else: the match formats are imported plainly by the code that uses them."""
    from mathbg.rules import registry

    names = {text for _, text in _module_name_strings(ROOT / "mathbg/rules/registry.py")}
    assert names == set(registry.PROVIDERS)
    assert not hasattr(registry, "match_formats")
    record = (ROOT / "mathbg/rules/record.py").read_text(encoding="utf-8")
    imported = {target for _, target in _imports(ROOT / "mathbg/rules/record.py")}
    assert not {t for t in imported if t.startswith("mathbg.rules.formats")}
    assert "formats" not in re.sub(r'"""(?:.|\n)*?"""', "", record)  # the record knows none


def test_the_module_name_check_catches_a_planted_name(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('"""mathbg.rules.formats in a docstring is fine."""\n'
                       'FORMATS = "mathbg.rules.formats"\n'
                       '_LAZY = {"x": "mathbg.rules.record"}\n', encoding="utf-8")
    assert _module_name_strings(planted) == [(2, "mathbg.rules.formats")]
