"""Lazy package exports (PEP 562): names resolved from their modules on first access.

Keeps ``import mathbg`` and ``import mathbg.<package>`` cheap: nothing below a package is
imported until one of its names is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_exports(
    package: str,
    table: Mapping[str, str],
    namespace: Mapping[str, Any],
    submodules: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    ``table`` maps an exported name to the module defining it; ``submodules`` are
    sub-modules of ``package`` exported as attributes; ``namespace`` is the package's
    ``globals()``. ``dir(package)`` lists the public API only: the package's ``__all__``
    (else the names of ``table`` and ``submodules``), never ``TYPE_CHECKING``,
    ``annotations`` or the private tables.
    """

    def __getattr__(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        if "__all__" in namespace:
            return sorted(namespace["__all__"])
        return sorted(set(table) | set(submodules))

    return __getattr__, __dir__
