"""Match winning chances after a game, as gnubg 1.07 looks them up (``getME``).

After a game the score reads the post-Crawford table when the game just played was the
Crawford game or a post-Crawford game (a side was 1-away); otherwise the pre-Crawford table,
whose 1-away entries are the Crawford game's (the side that just reached 1-away plays it
next). These are the values gnubg's ``eq2mwc``/``mwc2eq`` interpolate between and its
double/pass value (``GetDPEq``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET

__all__ = ["mwc_after", "win_lose"]


def mwc_after(met: MET, away: tuple[int, int], crawford: bool) -> float:
    """The first side's MWC at ``away`` after a game (see the module notes).

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        Points each side needs after the game (<= 0: that side has won the match).
    crawford : bool
        The game just played was the Crawford game or post-Crawford (a side 1-away before
        it).

    Returns
    -------
    float

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> mwc_after(t, (0, 3), False), mwc_after(t, (2, 0), False)
    (1.0, 0.0)
    >>> mwc_after(t, (1, 3), False) == t.mwc((1, 3), crawford=True)
    True
    """
    a, b = away
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if crawford:
        return float(met.mwc((a, b), post_crawford=a == 1 or b == 1))
    return float(met.mwc((a, b), crawford=(a == 1) != (b == 1)))


def win_lose(met: MET, away: tuple[int, int], cube: int, crawford: bool) -> tuple[float, float]:
    """The MWC of the first side after winning and after losing ``cube`` points (gnubg's
    ``getME`` of ``eq2mwc``).

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        Points each side needs now.
    cube : int
        The points at stake.
    crawford : bool
        This is the Crawford game.

    Returns
    -------
    (win, lose) : (float, float)

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> w, l = win_lose(t, (3, 3), 1, False)
    >>> w == t.mwc((2, 3)), l == t.mwc((3, 2))
    (True, True)
    """
    a, b = away
    post = crawford or a == 1 or b == 1
    return mwc_after(met, (a - cube, b), post), mwc_after(met, (a, b - cube), post)
