"""The package's module names, for the tests that walk the whole public API."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def public_modules() -> list[str]:
    """Every public module (no ``_`` in its dotted name) of the package, sorted."""
    names = []
    for path in sorted((ROOT / "mathbg").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return sorted(names)
