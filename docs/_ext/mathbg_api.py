"""Generate the API reference pages (one per public module) for the Sphinx site.

A public module is any module of the ``mathbg`` package whose dotted name has no component
starting with ``_``, that is not a deprecated alias (its docstring starts with "Deprecated")
and that is not part of the command line (``mathbg.cli``: the command is documented by its
own page, ``docs/cli.md``). Each page shows the module's docstring, a summary table of its
``__all__``, and the full documentation of the names the module defines itself; names it
re-exports link to the module that defines them.

The reference reads as a tree, not a flat list: the index names the packages in layer order
(bottom to top, as ``[tool.importlinter]`` in ``pyproject.toml`` stacks them), and each
package's page lists its public modules beneath its names, so the sidebar shows about ten
entries that open into their modules. Run by ``docs/conf.py`` at every build (pages go to
``docs/api/``, which git ignores); ``tests/test_docs.py`` checks the result.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import tomllib
import warnings
from pathlib import Path
from types import ModuleType

ROOT = "mathbg"
EXCLUDED = ("mathbg.cli",)  # the command's modules: its interface is the command (docs/cli.md)
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _is_deprecated(module: ModuleType) -> bool:
    return (module.__doc__ or "").lstrip().startswith("Deprecated")


def public_modules() -> list[str]:
    """Dotted names of the public modules of mathbg, sorted (packages before their modules)."""
    root = importlib.import_module(ROOT)
    names = [ROOT]
    for info in pkgutil.walk_packages(root.__path__, prefix=ROOT + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if any(info.name == ex or info.name.startswith(ex + ".") for ex in EXCLUDED):
            continue
        names.append(info.name)
    out = []
    for name in sorted(names):
        if any(name.startswith(dep + ".") for dep in out if dep.startswith("!")):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(name)
        if _is_deprecated(module):
            out.append("!" + name)  # marks a deprecated package: skip its sub-modules
            continue
        out.append(name)
    return [n for n in out if not n.startswith("!")]


def defined_names(module: ModuleType) -> set[str]:
    """Names bound at the top level of the module's own source (defs, classes, assignments)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return set()
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def exported(module: ModuleType) -> list[str]:
    """The module's public names: ``__all__``, else its public top-level definitions."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = sorted(n for n in defined_names(module) if not n.startswith("_"))
    return [n for n in names if n != "__version__"]


def _is_alias(obj: object) -> bool:
    """A type alias (``tuple[int, int]``, ``int | None``, ``typing.Union[...]``)."""
    import types
    import typing

    if inspect.isclass(obj):  # including Protocol classes, whose metaclass is in typing
        return False
    return isinstance(obj, types.GenericAlias | types.UnionType) or type(obj).__module__ == (
        typing.__name__
    )


def _canonical(module: ModuleType, name: str) -> str:
    """Where ``name`` (exported by ``module``) is documented: its defining public module."""
    obj = getattr(module, name, None)
    home = getattr(obj, "__module__", None)
    if isinstance(home, str) and home.startswith(ROOT) and home != module.__name__:
        if not any(part.startswith("_") for part in home.split(".")):
            return f"{home}.{name}"
    return f"{module.__name__}.{name}"


def layer_order(pyproject: Path = PYPROJECT) -> list[str]:
    """The top-level public modules, bottom layer first, as ``pyproject.toml`` layers them.

    Reads the ``layers`` contract of ``[tool.importlinter]`` (listed top to bottom; ``a | b``
    and ``a : b`` are siblings of one layer, kept in their written order).
    """
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c.get("type") == "layers")
    out = []
    for layer in reversed(layers):
        for part in layer.replace("|", ":").split(":"):
            name = part.strip().strip("()")
            if name.split(".")[-1].startswith("_") or name in EXCLUDED:
                continue
            out.append(name)
    return out


def parent(name: str) -> str:
    """The package a module belongs to (``mathbg.cube.money`` -> ``mathbg.cube``)."""
    return name.rpartition(".")[0]


def top_level(modules: list[str]) -> list[str]:
    """The root and the top-level public modules of ``modules``, in layer order.

    A top-level module missing from the layers (a new package) goes last, so it is never
    dropped from the reference.
    """
    tops = [m for m in modules if parent(m) == ROOT]
    order = layer_order()
    ranked = sorted(tops, key=lambda m: (order.index(m) if m in order else len(order), m))
    return [ROOT, *ranked] if ROOT in modules else ranked


def children(name: str, modules: list[str]) -> list[str]:
    """The public modules directly beneath package ``name`` (none for the root: the index
    lists the packages)."""
    if name == ROOT:
        return []
    return [m for m in modules if parent(m) == name]


def _summary_line(name: str) -> str:
    """The first paragraph of module ``name``'s docstring, its cross-references made absolute
    (the index and a package page are not that module's page)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(name)
    doc = inspect.getdoc(module) or ""
    line = doc.strip().split("\n\n", 1)[0].replace("\n", " ")
    line = line.removeprefix(name.rpartition(".")[2] + ": ")  # "mathbg: the mathematics ..."

    def absolute(m: re.Match[str]) -> str:
        role, target = m[1], m[2]
        if not hasattr(module, target):
            return m[0]
        return f":{role}:`~{_canonical(module, target)}`"

    return re.sub(r":(\w+):`([A-Za-z_]\w*)`", absolute, line)


def _module_list(modules: list[str], heading: str) -> list[str]:
    """A rubric, a bullet list (link and first docstring paragraph) and a hidden toctree."""
    if not modules:
        return []
    lines = [f".. rubric:: {heading}", ""]
    for m in modules:
        lines.append(f"- :mod:`{m}`: {_summary_line(m)}")
    lines += ["", ".. toctree::", "   :hidden:", "", *[f"   {m}" for m in modules], ""]
    return lines


def module_page(name: str, modules: list[str] | None = None) -> str:
    """reStructuredText of the API page of module ``name``; a package's page ends with the
    list of its public modules (``modules``, default all of them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(name)
    is_package = hasattr(module, "__path__")
    names = exported(module)
    own = defined_names(module)
    documented = [] if is_package else [n for n in names if n in own]
    elsewhere = [n for n in names if n not in documented]
    title = f"``{name}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {name}", "   :no-members:", ""]
    aliases = [n for n in names if _is_alias(getattr(module, n, None))]
    if names:
        lines += [".. rubric:: Summary", "", ".. autosummary::", "   :nosignatures:", ""]
        for n in names:
            if n in aliases:
                continue
            if n not in elsewhere:
                lines.append(f"   {n}")
                continue
            # autosummary resolves names relative to the current module (set by automodule)
            # and refuses names that repeat it
            target = _canonical(module, n)
            lines.append(f"   ~{target.removeprefix(name + '.')}")
        lines.append("")
    for n in documented:
        obj = getattr(module, n, None)
        if n in aliases:  # autodoc cannot format type aliases such as tuple[int, int]
            lines += [f".. py:data:: {name}.{n}", "", f"   Type alias: ``{obj!r}``.", ""]
            continue
        if inspect.isclass(obj):
            directive = "autoclass"
        elif inspect.isroutine(obj) or hasattr(obj, "py_func"):  # functions, numba kernels
            directive = "autofunction"
        else:
            directive = "autodata"
        lines += [f".. {directive}:: {name}.{n}", ""]
        if directive == "autoclass":
            lines += ["   :members:", ""]
    if is_package:
        lines += _module_list(children(name, modules or public_modules()), "Modules")
    return "\n".join(lines)


def write_pages(out_dir: Path) -> list[str]:
    """Write ``index.rst`` and one page per public module into ``out_dir``; return the modules."""
    out_dir.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    for name in modules:
        text = module_page(name, modules)
        path = out_dir / f"{name}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for stale in out_dir.glob("mathbg*.rst"):
        if stale.stem not in modules:
            stale.unlink()
    index = [
        "API reference",
        "=============",
        "",
        "Every public module of mathbg, with the functions, classes and constants it exports",
        "(its ``__all__``). After the names the top level exports come the packages in layer",
        "order, bottom to top: each uses only those listed before it. A package's page lists the",
        "names it exports and, beneath them, its modules. Names a package re-exports link to the",
        "module that defines them. The command line has its own page (:doc:`../cli`).",
        "",
        *_module_list(top_level(modules), "Packages, in layer order"),
    ]
    (out_dir / "index.rst").write_text("\n".join(index), encoding="utf-8")
    return modules
