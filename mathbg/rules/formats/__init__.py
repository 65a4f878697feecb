"""Match file formats: one module per format, each a reader and (where mathbg writes it)
a writer of :class:`~mathbg.rules.record.MatchRecord`.

- :mod:`~mathbg.rules.formats.mat`: Jellyfish/gnubg ``.mat`` text and its dialects.
- :mod:`~mathbg.rules.formats.sgf`: gnubg's ``.sgf`` (Smart Game Format, game 6).

:func:`detect` tells the format from the contents. Nothing here is imported by the record
classes except through :func:`reader` and :func:`writer`.
"""

from __future__ import annotations

__all__ = ["FORMATS", "detect"]

#: Formats mathbg reads and writes, with the file extensions that name them.
FORMATS: dict[str, tuple[str, ...]] = {"mat": (".mat", ".txt"), "sgf": (".sgf",)}


def detect(text: str) -> str | None:
    """The format of a match file's text (``"mat"`` or ``"sgf"``), None if neither."""
    raise NotImplementedError
