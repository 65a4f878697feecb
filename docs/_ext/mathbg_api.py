"""Generate the API reference pages (one per public module) for the Sphinx site.

A public module is any module of the ``mathbg`` package whose dotted name has no component
starting with ``_`` and that is not a deprecated alias (its docstring starts with
"Deprecated"). Each page shows the module's docstring, a summary table of its ``__all__``, and
the full documentation of the names the module defines itself; names it re-exports link to
the module that defines them. Run by ``docs/conf.py`` at every build (pages go to
``docs/api/``, which git ignores); ``tests/test_docs.py`` checks the result.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import warnings
from pathlib import Path
from types import ModuleType

ROOT = "mathbg"


def _is_deprecated(module: ModuleType) -> bool:
    return (module.__doc__ or "").lstrip().startswith("Deprecated")


def public_modules() -> list[str]:
    """Dotted names of the public modules of mathbg, sorted (packages before their modules)."""
    root = importlib.import_module(ROOT)
    names = [ROOT]
    for info in pkgutil.walk_packages(root.__path__, prefix=ROOT + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
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


def module_page(name: str) -> str:
    """reStructuredText of the API page of module ``name``."""
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
    return "\n".join(lines)


def write_pages(out_dir: Path) -> list[str]:
    """Write ``index.rst`` and one page per public module into ``out_dir``; return the modules."""
    out_dir.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    for name in modules:
        text = module_page(name)
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
        "(its ``__all__``). Names a package re-exports link to the module that defines them.",
        "Deprecated aliases of renamed modules are not listed.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *[f"   {name}" for name in modules],
        "",
    ]
    (out_dir / "index.rst").write_text("\n".join(index), encoding="utf-8")
    return modules
