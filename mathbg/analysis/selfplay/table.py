"""The table being built: its entries (:class:`Entry`), their values and errors so far, the
value of a game's result under it, and the cube decisions it gives.

An entry is one score to play, named by its :class:`~mathbg.rules.match.ScoreState`
(``normal``, ``crawford`` or ``post-crawford``; double match point is a post-Crawford
game here, as in the exact bearoff solver) and the away scores of player 0 (the table's
row player) and player 1, ``away=(player 0's, player 1's)``. Entries are played in
increasing order of their level ``sum(away)``: a game at one level reads only the entries
below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from mathbg._docstrings import shared_sections
from mathbg.bearoff.exact.match import after_game, met_mwc, next_kind
from mathbg.met.table import MET
from mathbg.rules.match import ScoreState

__all__ = [
    "KINDS",
    "Entry",
    "ScoreTable",
    "after",
    "decide",
    "entries",
    "next_entry",
    "reads",
    "source",
    "swapped",
]

#: The states an entry can have, in the order of the seeds' ``kind_index`` (0 normal,
#: 1 Crawford, 2 post-Crawford) and of the entries within a level.
KINDS: tuple[ScoreState, ...] = (ScoreState.NORMAL, ScoreState.CRAWFORD, ScoreState.POST_CRAWFORD)

# the parameters that name a played game's result, for next_entry and after
_GAME_RESULT = """
entry : Entry
    The game's score.
won0, won1 : int
    The points player 0 and player 1 scored.
"""


class Entry(NamedTuple):
    """One score of the table: its state and the score ``away=(player 0's, player 1's)``."""

    state: ScoreState
    away: tuple[int, int]

    @property
    def level(self) -> int:
        """``sum(away)``: the entry reads only entries of lower level."""
        return self.away[0] + self.away[1]

    @property
    def kind_index(self) -> int:
        """The state's index in :data:`KINDS` (part of the seeds)."""
        return KINDS.index(self.state)

    def __str__(self) -> str:
        return f"{self.state.value} {self.away[0]}a/{self.away[1]}a"


def entries(length: int, crawford: bool, equal: bool) -> list[Entry]:
    """The entries to play, sorted by level (then state, then player 0's away score).

    Equal players play each pair once (``a < b``, the post-Crawford trailer's scores and
    the Crawford games of the trailer ``n``-away against 1-away); unequal players play
    every entry.

    Parameters
    ----------
    length : int
        Table length.
    crawford : bool
        The Crawford rule (False: no Crawford entries).
    equal : bool
        The same player on both sides.

    Returns
    -------
    list of Entry
        In playing order.

    Examples
    --------
    >>> [str(e) for e in entries(2, True, True)]
    ['crawford 2a/1a', 'post-crawford 2a/1a']
    """
    post, craw, normal = ScoreState.POST_CRAWFORD, ScoreState.CRAWFORD, ScoreState.NORMAL
    out: list[Entry] = []
    for n in range(1 if not equal else 2, length + 1):
        out.append(Entry(post, (n, 1)))
        if not equal and n > 1:
            out.append(Entry(post, (1, n)))
    if crawford:
        for n in range(2, length + 1):
            out.append(Entry(craw, (n, 1)))
            if not equal:
                out.append(Entry(craw, (1, n)))
    for a in range(2, length + 1):
        for b in range(2, length + 1):
            if (equal and a < b) or (not equal):
                out.append(Entry(normal, (a, b)))
    return sorted(out, key=lambda e: (e.level, e.kind_index, e.away[0]))


@shared_sections(game_result=_GAME_RESULT)
def next_entry(entry: Entry, won0: int, won1: int) -> Entry:
    """The score of the next game after a game at ``entry`` in which the players scored
    these points (its away scores <= 0 when the match is over).

    Parameters
    ----------
    {game_result}

    Returns
    -------
    Entry
        The next game's state and score.

    Examples
    --------
    >>> str(next_entry(Entry(ScoreState.NORMAL, (3, 3)), 2, 0))
    'crawford 1a/3a'
    """
    a2, b2 = entry.away[0] - won0, entry.away[1] - won1
    return Entry(next_kind(entry.state, a2, b2), (a2, b2))


def source(entry: Entry, equal: bool, crawford: bool) -> tuple[Entry, float] | None:
    """The played entry a score's value reads, and the sign (-1: ``1 - M``); None where
    the value is exact (a finished match, or equal players at equal scores).

    Parameters
    ----------
    entry : Entry
        A score (either side may be <= 0: the match is over).
    equal : bool
        The same player on both sides (the mirrored entries are played once).
    crawford : bool
        The Crawford rule (without it a Crawford score reads the post-Crawford entry).

    Returns
    -------
    (Entry, float) or None
        The played entry and the sign of its value in this one.

    Examples
    --------
    >>> e = Entry(ScoreState.NORMAL, (4, 2))
    >>> found, sign = source(e, True, True)
    >>> str(found), sign
    ('normal 2a/4a', -1.0)
    """
    state, (a, b) = entry
    if a <= 0 or b <= 0:
        return None
    if state is ScoreState.CRAWFORD and not crawford:
        state = ScoreState.POST_CRAWFORD
    if not equal:
        return Entry(state, (a, b)), 1.0
    if a == b:
        return None
    if state is ScoreState.NORMAL:
        return (Entry(state, (a, b)), 1.0) if a < b else (Entry(state, (b, a)), -1.0)
    return (Entry(state, (a, 1)), 1.0) if b == 1 else (Entry(state, (b, 1)), -1.0)


def reads(entry: Entry, equal: bool, crawford: bool) -> list[Entry]:
    """The played entries a game at ``entry`` can lead to: the values its games end on
    and its cube decisions read (every later score of the match, each side winning 1 to
    ``away - 1`` points).

    Parameters
    ----------
    entry : Entry
        The entry played.
    equal, crawford : bool
        As :func:`source`.

    Returns
    -------
    list of Entry
        The played entries (no exact values), each once, in the order found.

    Examples
    --------
    >>> [str(e) for e in reads(Entry(ScoreState.POST_CRAWFORD, (4, 1)), True, True)]
    ['post-crawford 3a/1a', 'post-crawford 2a/1a']
    """
    a, b = entry.away
    found: list[Entry] = []
    for won in [(n, 0) for n in range(1, a)] + [(0, n) for n in range(1, b)]:
        src = source(next_entry(entry, *won), equal, crawford)
        if src is not None and src[0] not in found:
            found.append(src[0])
    return found


@shared_sections(game_result=_GAME_RESULT)
def after(met: MET, entry: Entry, won0: int, won1: int) -> float:
    """Player 0's MWC after a game at ``entry`` in which the players scored these points
    (:func:`mathbg.bearoff.exact.match.after_game` under ``met``).

    Parameters
    ----------
    met : MET
        The table.
    {game_result}

    Returns
    -------
    float
        Player 0's match winning chance at the next game (1 or 0 when the match is over).

    Examples
    --------
    >>> from mathbg.met import load
    >>> xg = load("kazaross-xg2")
    >>> after(xg, Entry(ScoreState.NORMAL, (3, 3)), 1, 0) == float(xg.mwc((2, 3)))
    True
    """
    state, (a, b) = next_entry(entry, won0, won1)
    return after_game(met_mwc(met), a, b, state)


def swapped(met: MET) -> MET:
    """The same table seen by player 1 (rows: player 1's away score).

    Parameters
    ----------
    met : MET
        A table seen by player 0 (rows: player 0's away score, ``post[0]`` player 0's
        post-Crawford row).

    Returns
    -------
    MET
        ``pre`` is ``1 - pre.T``, the post-Crawford rows exchanged.

    Examples
    --------
    >>> from mathbg.met import load
    >>> xg = load("kazaross-xg2", length=3)
    >>> float(swapped(xg).pre[0, 2]) == 1 - float(xg.pre[2, 0])
    True
    """
    return MET(pre=1.0 - met.pre.T, post=met.post[::-1], name=met.name + "-swapped")


class ScoreTable:
    """The table built so far: values, standard errors and games by cell, and a MET view.

    Cells of entries not played yet hold Montgomery's values (placeholders no game reads:
    a level reads only the levels below it); equal players' diagonal is 1/2, exact.
    """

    def __init__(self, length: int, crawford: bool, equal: bool) -> None:
        from mathbg.met import montgomery

        self.length, self.crawford, self.equal = length, crawford, equal
        base = montgomery(max(length, 2))
        n = length
        self.pre = np.array(base.pre[:n, :n])
        self.post = np.array(base.post[:, :n])
        self.pre_se = np.full((n, n), np.nan)
        self.post_se = np.full((2, n), np.nan)
        self.pre_n = np.zeros((n, n))
        self.post_n = np.zeros((2, n))
        if equal:
            for a in range(1, n + 1):
                self.pre[a - 1, a - 1] = 0.5
            self.post[:, 0] = 0.5

    def _cells(self, entry: Entry, value: float) -> list[tuple[str, tuple[int, int], float]]:
        """The cells (``"pre"``/``"post"``, index, value) an entry's value fills."""
        state, (a, b) = entry
        cells: list[tuple[str, tuple[int, int], float]] = []
        if state is ScoreState.POST_CRAWFORD:
            if b == 1:
                cells.append(("post", (0, a - 1), value))
                if self.equal:
                    cells.append(("post", (1, a - 1), value))
                if a == 1:  # DMP (unequal players)
                    cells.append(("post", (1, 0), 1.0 - value))
                    cells.append(("pre", (0, 0), value))
            else:
                cells.append(("post", (1, b - 1), 1.0 - value))
            if not self.crawford and a != b:  # no Crawford rule: 1-away games are all alike
                cells.append(("pre", (a - 1, b - 1), value))
                if self.equal:
                    cells.append(("pre", (b - 1, a - 1), 1 - value))
        else:
            cells.append(("pre", (a - 1, b - 1), value))
            if self.equal:
                cells.append(("pre", (b - 1, a - 1), 1.0 - value))
        return cells

    def set(self, entry: Entry, value: float, se: float, games: int) -> None:
        """Record an entry's value, its standard error and its games in its cells."""
        for where, idx, v in self._cells(entry, value):
            arr, err, cnt = (
                (self.pre, self.pre_se, self.pre_n)
                if where == "pre"
                else (self.post, self.post_se, self.post_n)
            )
            arr[idx] = v
            err[idx] = se
            cnt[idx] = games

    def met(self) -> MET:
        """The table so far as a MET (values clipped into 0..1)."""
        return MET(pre=np.clip(self.pre, 0, 1), post=np.clip(self.post, 0, 1), name="selfplay")


def decide(
    probs: NDArray[np.float64],
    x: NDArray[np.float64],
    views: Sequence[MET],
    view: NDArray[np.int64],
    ar: NDArray[np.int64],
    br: NDArray[np.int64],
    cube: NDArray[np.int64],
    centred: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """No double and double/take (the roller's MWC) by mathbg's cube theory, vectorised.

    :func:`mathbg.cube.cubeful.cubeful_mwc` (gnubg's ``Cl2CfMatch``) for each group of
    rollers reading the same view of the table and owning the cube alike.

    Parameters
    ----------
    probs : ndarray, shape (n, 5)
        The rollers' cubeless chances.
    x : ndarray, shape (n,)
        The cube lives.
    views : sequence of MET
        The table as each player reads it (rows: the player's away score).
    view : ndarray of int, shape (n,)
        Which view each roller reads.
    ar, br : ndarray of int, shape (n,)
        The roller's and the opponent's away scores.
    cube : ndarray of int, shape (n,)
        The cube values.
    centred : ndarray of bool, shape (n,)
        The cube is centred (else the roller owns it).

    Returns
    -------
    (ndarray, ndarray)
        ND and DT, the roller's cubeful MWC.

    Examples
    --------
    >>> from mathbg.met import load
    >>> one = np.ones(1, dtype=np.int64)
    >>> nd, dt = decide(np.array([[0.7, 0.2, 0.01, 0.05, 0.0]]), np.array([0.68]),
    ...                 [load("kazaross-xg2")], 0 * one, 3 * one, 5 * one, one, one == 1)
    >>> bool(dt[0] > nd[0])
    True
    """
    from mathbg.cube.cubeful import cubeful_mwc

    nd = np.empty(len(probs))
    dt = np.empty(len(probs))
    for v in np.unique(view):
        for own in (True, False):
            g = (view == v) & (centred == own)
            if g.any():
                owner = "centre" if own else "player"
                nd[g] = cubeful_mwc(probs[g], views[v], (ar[g], br[g]), cube=cube[g],
                                    owner=owner, cube_life=x[g])  # fmt: skip
        g = view == v
        dt[g] = cubeful_mwc(probs[g], views[v], (ar[g], br[g]), cube=2 * cube[g],
                            owner="opponent", cube_life=x[g])  # fmt: skip
    return nd, dt
