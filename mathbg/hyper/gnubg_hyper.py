"""gnubg's Hypergammon databases (``hyper1.bd``, ``hyper2.bd``, ``hyper3.bd``), read and written.

``makehyper -c C`` writes a 40-byte header (``gnubg-H`` and the checker count, padded
with ``x`` to 39 characters and a newline) and then, for every pair in the order
``roller`` (outer) x ``opponent`` (inner) of the index of :mod:`mathbg.hyper.space`, 28
bytes: the five cubeless probabilities (win, win gammon, win backgammon, lose gammon,
lose backgammon; cumulative) as 24-bit little-endian fractions of ``0xFFFFFF``, then the
four cubeful equities (roller owns, centred, centred under the Jacoby rule, opponent
owns) as 24-bit ``(e / 6 + 1/2) * 0xFFFFFF``, and one padding byte (``makehyper.c``
``WriteHyperFile``). Pairs that are not positions (a point held by both sides) hold
zeros. The 24-bit fields resolve 6e-8 in a probability and 3.6e-7 in an equity.

:func:`write_gnubg_hyper` writes a :class:`~mathbg.hyper.money.MoneySolution` in that
format, so gnubg can play and analyse Hypergammon with mathbg's values (and
``makehyper -r`` can restart from them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg._validate import read_bounded
from mathbg.errors import DatabaseCorruptError, DatabaseError
from mathbg.hyper.space import check_checkers, space

__all__ = ["GnubgHyper", "read_gnubg_hyper", "write_gnubg_hyper"]

_HEADER = 40
_RECORD = 28
_SCALE = float(0xFFFFFF)


@dataclass(frozen=True, eq=False)
class GnubgHyper:
    """The contents of a gnubg Hypergammon database.

    Attributes
    ----------
    checkers : int
        Checkers a side (1, 2 or 3), as the file's header (``gnubg-H1`` ...) says.
    probabilities : numpy.ndarray
        ``float64[n, n, 5]``, ``[roller, opponent]``: win, win gammon, win backgammon,
        lose gammon, lose backgammon.
    equities : numpy.ndarray
        ``float64[n, n, 4]``: roller owns, centred, centred Jacoby, opponent owns.
    """

    checkers: int
    probabilities: NDArray[np.float64]
    equities: NDArray[np.float64]

    @property
    def cubeless(self) -> NDArray[np.float64]:
        """The cubeless equity of every pair (gnubg's ``Utility`` of the probabilities)."""
        p = self.probabilities
        out: NDArray[np.float64] = 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]
        return out


def _header(checkers: int) -> bytes:
    text = f"gnubg-H{checkers}"
    return (text + "x" * (39 - len(text)) + "\n").encode("ascii")


def read_gnubg_hyper(path: str | os.PathLike[str]) -> GnubgHyper:
    """Read a gnubg Hypergammon database.

    Parameters
    ----------
    path : str or os.PathLike
        A ``hyperC.bd`` file written by ``makehyper`` (or :func:`write_gnubg_hyper`).

    Returns
    -------
    GnubgHyper

    Raises
    ------
    DatabaseError
        If the file is not one (header), or its size is not the checker count's.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from mathbg.hyper import solve_money
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "hyper1.bd"
    >>> db = read_gnubg_hyper(write_gnubg_hyper(solve_money(1, store=False), path))
    >>> db.checkers, db.equities.shape
    (1, (26, 26, 4))
    """
    p = Path(path)
    with open(p, "rb") as fh:
        head = fh.read(_HEADER)
    if len(head) < _HEADER or not head.startswith(b"gnubg-H") or head[7:8] not in b"123":
        raise DatabaseError(f"{p}: not a gnubg Hypergammon database (header {head[:12]!r})")
    c = int(head[7:8])
    n = space(c).n
    size = _HEADER + n * n * _RECORD
    if p.stat().st_size != size:
        raise DatabaseCorruptError(
            f"{p}: {p.stat().st_size} bytes, a {c}-checker database has {size}"
        )
    raw = np.frombuffer(read_bounded(p, str(p), limit=size), dtype=np.uint8, offset=_HEADER)
    fields = raw.reshape(n, n, _RECORD)[:, :, :27].reshape(n, n, 9, 3).astype(np.int64)
    u = fields[..., 0] | (fields[..., 1] << 8) | (fields[..., 2] << 16)
    probs = u[..., :5] / _SCALE
    eqs = (u[..., 5:] / _SCALE - 0.5) * 6.0
    return GnubgHyper(c, probs, eqs)


def _game_over(
    c: int, probs: NDArray[np.float64], eqs: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The pairs where a side has no checker left, as gnubg's ``EvalOver`` fills them
    (makehyper reads a finished game's value from these entries)."""
    from mathbg.hyper import _layout as k

    sp = space(c)
    kind = sp.tables["opp"][:, k.LOSE_KIND]
    probs, eqs = probs.copy(), eqs.copy()
    for r in range(sp.n):  # the opponent finished: the roller lost (kind[r])
        lost = kind[r] if r else 1
        probs[r, 0] = [0.0, 0.0, 0.0, float(lost >= 2), float(lost >= 3)]
        eqs[r, 0] = [-lost, -lost, -1.0, -lost]
    for o in range(1, sp.n):  # the roller finished: he won (kind[o])
        won = kind[o]
        probs[0, o] = [1.0, float(won >= 2), float(won >= 3), 0.0, 0.0]
        eqs[0, o] = [won, won, 1.0, won]
    return probs, eqs


def write_gnubg_hyper(solution: Any, path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write a money solution as gnubg's ``hyperC.bd`` (atomically).

    Parameters
    ----------
    solution : MoneySolution
    path : str or os.PathLike
        The file (gnubg looks for ``hyper1.bd`` .. ``hyper3.bd`` in its data directory).
    force : bool
        Replace an existing file (the format has no room for a "written by mathbg" mark,
        so any existing file is refused without it).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TargetExistsError
        For an existing file without ``force``.

    Examples
    --------
    See :func:`read_gnubg_hyper`.
    """
    from mathbg import _files
    from mathbg.hyper import _layout as k

    c = check_checkers(solution.checkers)
    v = np.transpose(np.asarray(solution.values), (1, 0, 2))  # [roller, opponent]
    legal = space(c).legal
    probs = np.where(legal[..., None], np.clip(v[..., 5:10], 0.0, 1.0), 0.0)
    cols = [k.OWNED, k.CENTRE, k.JACOBY, k.OPPONENT]
    eqs = np.where(legal[..., None], np.clip(v[..., cols], -3.0, 3.0), 0.0)
    probs, eqs = _game_over(c, probs, eqs)
    u = np.concatenate([np.rint(probs * _SCALE), np.rint((eqs / 6.0 + 0.5) * _SCALE)], axis=-1)
    u = u.astype(np.int64)
    n = v.shape[0]
    rec = np.zeros((n, n, _RECORD), dtype=np.uint8)
    for b in range(3):
        rec[:, :, b:27:3] = (u >> (8 * b)) & 0xFF
    target = Path(path)

    with _files.atomic_file(target, what="gnubg Hypergammon database",
                            is_same_kind=_files.never_ours,
                            force=force, needed_bytes=rec.nbytes + _HEADER) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(_header(c))
            fh.write(rec.tobytes())
    return target
