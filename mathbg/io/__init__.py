"""Interoperability with other backgammon software.

Each format lives in its own module and is imported on demand:

- :mod:`mathbg.io.gnubg_ids`: gnubg Position ID, Match ID, the combined ``POSID:MATCHID``
  form and eXtreme Gammon's XGID.
"""
