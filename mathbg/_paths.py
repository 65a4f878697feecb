"""Where mathbg finds its shipped tables and keeps generated databases.

- Shipped, published tables live in the repository's ``data/met`` directory.
- Generated databases (bearoff, caches) go to ``$MATHBG_DATA`` when set, else to the
  repository's ``data/`` directory when it is writable (a source checkout), else to
  ``~/.cache/mathbg``.
"""

from __future__ import annotations

import os
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def repo_data_dir() -> Path:
    """The ``data/`` directory of the source checkout mathbg was imported from."""
    return _REPO_ROOT / "data"


def published_dir(kind: str = "met") -> Path:
    """Directory holding the shipped published tables of ``kind`` (e.g. ``"met"``)."""
    path = repo_data_dir() / kind
    if not path.is_dir():
        from mathbg.errors import DatabaseError

        raise DatabaseError(
            f"shipped tables not found at {path}: install mathbg from a source checkout "
            "(pip install -e .)"
        )
    return path


def cache_dir(sub: str | None = None) -> Path:
    """Directory for generated data, created on demand.

    ``$MATHBG_DATA`` wins; otherwise the checkout's ``data/`` when writable; otherwise
    ``~/.cache/mathbg``. ``sub`` names a sub-directory (e.g. ``"bearoff"``).
    """
    env = os.environ.get("MATHBG_DATA")
    if env:
        try:
            base = Path(env).expanduser()
        except RuntimeError:  # '~nouser/...' or no home directory
            from mathbg.errors import ConfigurationError

            raise ConfigurationError(
                f"MATHBG_DATA={env[:200]!r}: cannot expand '~' (no such user or no home "
                "directory); give an absolute path"
            ) from None
    else:
        base = repo_data_dir()
        if not (base.is_dir() and os.access(base, os.W_OK)):
            base = Path.home() / ".cache" / "mathbg"
    path = base / sub if sub else base
    path.mkdir(parents=True, exist_ok=True)
    return path
