"""Where mathbg finds its shipped tables and keeps the data it generates.

Shipped tables
    The published tables live in the repository's top-level ``data/`` directory
    (``data/met/*.xml``). A built wheel or sdist carries them as package data under
    ``mathbg/_data`` (``setup.py`` maps ``data/`` onto the package ``mathbg._data``), read
    with :mod:`importlib.resources`; a source checkout (``PYTHONPATH`` or an editable
    install) reads the checkout's ``data/`` directly.

Generated data
    Bearoff databases and other caches go to ``$MATHBG_DATA`` when it is set, else to the
    platform's user cache directory (:func:`platformdirs.user_cache_dir`, which honours
    ``XDG_CACHE_HOME`` on Linux: ``~/.cache/mathbg`` by default). mathbg never writes into its
    source tree or installation unless ``MATHBG_DATA`` points there.
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["cache_dir", "cache_root", "checkout_data_dir", "published_dir", "published_files"]

#: Environment variable naming the directory for generated data (wins over the default).
DATA_ENV = "MATHBG_DATA"

#: Sub-directory of the installed package holding the shipped tables.
_PACKAGE_DATA = "_data"


def checkout_data_dir() -> Path | None:
    """The ``data/`` directory of the source checkout mathbg runs from, or None.

    None for an installed wheel (no checkout around the package).
    """
    root = Path(__file__).resolve().parent.parent
    data = root / "data"
    if (root / "pyproject.toml").is_file() and (data / "met").is_dir():
        return data
    return None


def published_dir(kind: str = "met") -> Traversable:
    """Directory holding the shipped tables of ``kind`` (e.g. ``"met"``).

    The package data of an installed mathbg (``mathbg/_data/KIND``) when present, else the
    source checkout's ``data/KIND``. The result is a :class:`importlib.resources.abc.Traversable`
    (a :class:`pathlib.Path` in every ordinary installation); open files with ``/`` and
    ``.open()`` or ``.read_text()``.

    Raises
    ------
    DatabaseError
        Neither location holds the directory (a broken installation).
    """
    packaged = resources.files("mathbg") / _PACKAGE_DATA / kind
    if packaged.is_dir():
        return packaged
    checkout = checkout_data_dir()
    if checkout is not None and (checkout / kind).is_dir():
        return checkout / kind
    from mathbg.errors import DatabaseError

    raise DatabaseError(
        f"shipped tables ({kind}) missing from this installation: neither the package data "
        f"mathbg/{_PACKAGE_DATA}/{kind} nor a source checkout's data/{kind} exists; "
        "reinstall mathbg"
    )


def published_files(kind: str = "met", suffix: str = ".xml") -> dict[str, Traversable]:
    """The shipped files of ``kind`` by stem (``{"kazaross-xg2": <.../kazaross-xg2.xml>}``).

    Empty when the directory is missing, so a catalogue lists only what it can open.
    """
    from mathbg.errors import DatabaseError

    try:
        folder = published_dir(kind)
    except DatabaseError:  # a broken installation lists nothing
        return {}
    return {
        item.name[: -len(suffix)]: item
        for item in folder.iterdir()
        if item.is_file() and item.name.endswith(suffix)
    }


def _default_cache_root() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("mathbg", appauthor=False))


def cache_root() -> Path:
    """The directory for generated data, not created (:func:`cache_dir` creates it).

    ``$MATHBG_DATA`` wins; otherwise the platform's user cache directory for mathbg
    (``$XDG_CACHE_HOME/mathbg``, by default ``~/.cache/mathbg`` on Linux).

    Raises
    ------
    ConfigurationError
        ``MATHBG_DATA`` starts with a ``~`` that cannot be expanded.
    """
    env = os.environ.get(DATA_ENV)
    if not env:
        return _default_cache_root()
    try:
        return Path(env).expanduser()
    except RuntimeError:  # '~nouser/...' or no home directory
        from mathbg.errors import ConfigurationError

        raise ConfigurationError(
            f"MATHBG_DATA={env[:200]!r}: cannot expand '~' (no such user or no home "
            "directory); give an absolute path"
        ) from None


def cache_dir(sub: str | None = None) -> Path:
    """Directory for generated data, created on demand.

    ``$MATHBG_DATA`` wins; otherwise the platform's user cache directory for mathbg
    (``$XDG_CACHE_HOME/mathbg``, by default ``~/.cache/mathbg`` on Linux). ``sub`` names a
    sub-directory (e.g. ``"bearoff"``).
    """
    base = cache_root()
    path = base / sub if sub else base
    path.mkdir(parents=True, exist_ok=True)
    return path
