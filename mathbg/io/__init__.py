"""Deprecated: the ID codecs and file formats now live beside what they serialise.

- :mod:`mathbg.io.gnubg_ids` -> :mod:`mathbg.rules.ids` (parsers) and
  :mod:`mathbg.rules.idcodec` (bit-level codecs); :func:`mathbg.parse_id`.
- :mod:`mathbg.io.gnubg_bd` -> :mod:`mathbg.bearoff.gnubg_bd`.

Both old module names keep working for one release with a :class:`DeprecationWarning`.
"""
