"""Match equity table models: Zadeh, Tornberg's MEC, Montgomery (matches with a cube).

Each function builds a :class:`~mathbg.met.MET` from stated assumptions and records them in
``met.parameters``; matches without a cube (the cubeless MET, the Tavli rotation) are in
:mod:`mathbg.met.nocube`. Computed in double precision (gnubg uses single precision); the numeric
kernels are compiled with numba on first use.

References
----------
.. [Zadeh1977] N. Zadeh, "On Doubling in Tournament Backgammon", Management Science
   23(9):986-993 (1977).
.. [Tornberg1996] C. Tornberg, mec - match equity calculator for backgammon (1996), as
   distributed with GNU Backgammon (``mec.c``).
.. [Montgomery] D. Montgomery's normal-distribution MET model, as in gnubg ``ExtendMET``.
"""

from __future__ import annotations

import numpy as np

from mathbg.errors import InvalidParameterError
from mathbg.met._core import (
    PC_FREE_DROP_2,
    PC_FREE_DROP_4,
    PC_GAMMON_RATE,
    check_equities,
    check_length,
    check_rate,
    continue_post_crawford,
    montgomery_array,
    recurrence,
)
from mathbg.met.table import MET

__all__ = ["extend", "mec", "montgomery", "zadeh", "zadeh_post_crawford"]


#: What each model's tables record about it: (source, title, description).
MODEL_ABOUT = {
    "zadeh": (
        "N. Zadeh, Management Science 23(9):986-993 (1977), as implemented in gnubg",
        "N. Zadeh",
        "Zadeh (1977) tournament-doubling model, gnubg's implementation",
    ),
    "mec": (
        "C. Tornberg, mec - match equity calculator for backgammon (1996)",
        "mec (match equity calculator)",
        "Tornberg's mec, free-drop sign corrected",
    ),
    "montgomery": (
        "D. Montgomery's normal-distribution model, as in gnubg ExtendMET",
        "Montgomery normal model",
        "Normal-distribution approximation; post-Crawford by Zadeh's recurrence",
    ),
    "cubeless": (
        "T. Zoidis (2023), gnubg met/cubeless.xml recipe",
        "Cubeless MET",
        "Match equity without a doubling cube (Zoidis 2023 recipe)",
    ),
}


def model_table(
    model: str,
    pre: np.ndarray,
    post: np.ndarray,
    params: dict[str, float],
    *,
    source: str | None = None,
    notes: str = "",
) -> MET:
    """The table a generator built: named after ``model``, recording its parameters and
    what :data:`MODEL_ABOUT` says of it (``source`` given: that source instead)."""
    default_source, title, description = MODEL_ABOUT[model]
    return MET(
        pre=pre,
        post=post,
        name=model,
        source=default_source if source is None else source,
        parameters=params,
        model=model,
        title=title,
        description=description,
        notes=notes,
    )


def _levels(length: int) -> int:
    """Cube levels 1, 2, 4, ... up to the first that is dead at every score of the table."""
    levels = 1
    while (1 << (levels - 1)) < length:
        levels += 1
    return levels + 1


# ----------------------------------------------------------------------------- Zadeh
def zadeh_post_crawford(
    length: int = 25,
    gammon_rate: float = PC_GAMMON_RATE,
    free_drop_2: float = PC_FREE_DROP_2,
    free_drop_4: float = PC_FREE_DROP_4,
) -> np.ndarray:
    """Zadeh's post-Crawford trailer vector (n = 1..length), gnubg ``initPostCrawfordMET``.

    The trailer doubles at once, so a game is worth 2 points or, with a gammon (rate ``g``),
    4::

        PC(n) = 1/2 [(1 - g) PC(n - 2) + g PC(n - 4)],  PC(k <= 0) = 1,  PC(1) = 1/2,

    and the leader's free drop lowers the trailer's 2-away and 4-away values by
    ``free_drop_2`` and ``free_drop_4`` (before they feed later entries).
    Defaults (gnubg): g = 0.25, 0.015, 0.004, giving 0.5, 0.485, 0.3125, 0.302875, ...

    Parameters
    ----------
    length : int, optional
        Vector length.
    gammon_rate : float, optional
        The gammon rate ``g``.
    free_drop_2, free_drop_4 : float, optional
        The free-drop corrections at 2-away and 4-away.

    Returns
    -------
    ndarray, shape (length,)
        The trailer's MWC at 1..length away.

    Raises
    ------
    InvalidParameterError
        For parameters out of range.

    References
    ----------
    N. Zadeh (1977); gnubg ``initPostCrawfordMET``.

    Examples
    --------
    >>> zadeh_post_crawford(4).tolist()
    [0.5, 0.485, 0.3125, 0.302875]
    """
    n = check_length(length)
    g = check_rate(gammon_rate, "post-Crawford gammon rate")
    f2 = check_rate(free_drop_2, "free_drop_2", low=-0.5, high=0.5)
    f4 = check_rate(free_drop_4, "free_drop_4", low=-0.5, high=0.5)
    return continue_post_crawford(np.empty(0), n, g, f2, f4)


def zadeh(
    length: int = 25,
    *,
    doubler_gammon_rate: float = 0.25,
    taker_gammon_rate: float = 0.15,
    delta: float = 0.08,
    delta_bar: float = 0.06,
    post_crawford_gammon_rate: float = PC_GAMMON_RATE,
    free_drop_2: float = PC_FREE_DROP_2,
    free_drop_4: float = PC_FREE_DROP_4,
) -> MET:
    """Zadeh's (1977) tournament-doubling MET, as gnubg computes it (``initMETZadeh``).

    Parameters
    ----------
    length : int
        Table length N (1..1024). Entries do not depend on N.
    doubler_gammon_rate : float
        Fraction of the doubler's wins that are gammons in the drop-point formulas (gnubg
        calls it ``gammon-rate-leader``; in fact it weights the doubler's wins whoever leads),
        also the Crawford-game trailer's gammon rate. Default 0.25.
    taker_gammon_rate : float
        Fraction of the taker's wins that are gammons (gnubg ``gammon-rate-trailer``).
        Default 0.15.
    delta : float
        Zadeh's delta: the live-cube correction added to the opponent's next-level drop
        point (semi-efficient recube). Default 0.08.
    delta_bar : float
        Zadeh's delta-bar: how far past the cash points the game-winning chance overshoots
        (market losers). Default 0.06.
    post_crawford_gammon_rate, free_drop_2, free_drop_4 : float
        Post-Crawford vector parameters, see :func:`zadeh_post_crawford` (0.25, 0.015, 0.004).

    Notes
    -----
    With ``PC`` the post-Crawford vector, ``M(i, j)`` the MWC needing i vs j (terminal values
    1 when i <= 0, 0 when j <= 0) and g1, g2 the doubler's and taker's gammon rates:

    - Crawford game: ``M(n, 1) = 1/2 [g1 PC(n - 2) + (1 - g1) PC(n - 1)]``.
    - For each cube level c (highest first) the taker's dead-cube drop point in the doubler's
      winning chance is ``D̄ = [M(i - c, j) - L] / [W - L]`` with the doubler's win value
      ``W = g1 M(i - 4c', j) + (1 - g1) M(i - 2c', j)`` and loss value
      ``L = g2 M(i, j - 4c') + (1 - g2) M(i, j - 2c')``; ``c' = 2c`` when the doubler needs
      at most 2c but the taker more (automatic redouble), else ``c' = c``. When both need
      more than 2c the cube is live: ``D = 1 + (D_opp(2c) + delta) (D̄ - 1)``.
    - ``M(i, j) = [(D2 + δ̄ - 1/2) M(i - 1, j) + (D1 + δ̄ - 1/2) M(i, j - 1)] /
      (D1 + D2 + 2 δ̄ - 1)``: the chance a martingale started at 1/2 reaches the player's
      cash point (widened by δ̄) before the opponent's.

    gnubg 1.07 never displays these numbers after loading its ``zadeh.xml`` (length -1: the
    whole table is overwritten by Montgomery's model, see :func:`montgomery`); it does with a
    fixed ``<length>``. Reference values (defaults): Crawford 2a/1a 0.3125, 3a/2a 0.3970,
    4a/2a 0.3229, 5a/3a 0.3492, 11a/6a 0.2470.

    References
    ----------
    N. Zadeh, Management Science 23(9):986-993 (1977); gnubg ``matchequity.c``.

    Returns
    -------
    MET
        Zadeh's ``length``-point table, its parameters recorded in ``parameters``.

    Raises
    ------
    InvalidScoreError
        For a length outside 1..1024.
    InvalidParameterError
        For gammon rates, ``delta`` or ``delta_bar`` out of range, or a table that breaks
        down (Zadeh's live-cube drop points fail for a large ``delta``).

    Examples
    --------
    >>> t = zadeh(5)
    >>> round(float(t.pre[1, 0]), 4), round(float(t.pre[2, 1]), 4)  # 2a/1a, 3a/2a
    (0.3125, 0.397)
    """
    n = check_length(length)
    g1 = check_rate(doubler_gammon_rate, "doubler_gammon_rate")
    g2 = check_rate(taker_gammon_rate, "taker_gammon_rate")
    d = check_rate(delta, "delta", low=-0.5, high=0.5)
    db = check_rate(delta_bar, "delta_bar", low=-0.5, high=0.5)
    post = zadeh_post_crawford(n, post_crawford_gammon_rate, free_drop_2, free_drop_4)
    params = {
        "doubler_gammon_rate": g1,
        "taker_gammon_rate": g2,
        "delta": d,
        "delta_bar": db,
        "post_crawford_gammon_rate": float(post_crawford_gammon_rate),
        "free_drop_2": float(free_drop_2),
        "free_drop_4": float(free_drop_4),
    }
    try:
        with np.errstate(all="ignore"):
            pre = recurrence("zadeh_table")(n, post, g1, g2, d, db, _levels(n))
    except ZeroDivisionError:
        pre = np.full((n, n), np.nan)
    check_equities((pre, post), "zadeh", params)
    return model_table("zadeh", pre, post, params)


# ----------------------------------------------------------------------------- MEC
def mec(
    length: int = 25,
    gammon_rate: float = 0.26,
    win_rate: float = 0.5,
    free_drop_2: float = 0.0,
    free_drop_4: float = 0.0,
    *,
    post_crawford_gammon_rate: float | None = None,
) -> MET:
    """Claes Tornberg's match equity calculator (mec, 1996), with unequal players.

    Parameters
    ----------
    length : int
        Table length N (1..1024).
    gammon_rate : float
        Fraction of games (won by either side) that are gammons. Default 0.26 (``mec26``).
    win_rate : float
        Player 0's chance of winning a game, in (0, 1): 0.5 for equal players, more for a
        favourite. Tables with ``win_rate != 0.5`` are asymmetric: ``pre[a-1, b-1]`` is the
        favourite's MWC at a-away vs b-away and ``post[1]`` is the underdog's vector.
    free_drop_2, free_drop_4 : float
        Free-drop vigorish post-Crawford: the trailer's MWC at 2-away and 4-away is lowered
        by these (the leader's gains), in [-0.5, 0.5]. Default 0 (Tornberg's original
        program). gnubg's ``mec.xml`` uses 0.015 and 0.004; ``free_drop_4=-0.004``
        reproduces what gnubg's mec.c computes from it.
    post_crawford_gammon_rate : float, optional
        Gammon rate in the post-Crawford recurrence (default: ``gammon_rate``).

    Notes
    -----
    With w the favourite's game-winning chance and g the gammon rate:

    - Post-Crawford, trailer odd n: ``E(n) = w [(1 - g) E(n - 2) + g E(n - 4)]`` (trailer
      doubles at once; losing a game loses the match), ``E(n) = E(n - 1)`` for even n, then
      the free-drop terms.
    - Crawford game (no cube): ``E(n) = w [(1 - g) PC(n - 1) + g PC(n - 2)]``.
    - Other scores: each player's doubling point (= the opponent's take point) comes from a
      recursion over redoubles: the taker's MWC is taken as linear in his winning chance,
      from (0, his MWC losing the doubled game, gammon-weighted) to (his redouble point,
      his MWC there); the take point is where that line reaches his MWC for passing. The
      entry is the linear interpolation at w between the two players' doubling points in
      (winning chance, MWC).

    gnubg's ``mec.c`` adds the 4-away free-drop term to the trailer with the wrong sign
    (the trailer's 4-away MWC goes up, above 3-away); mathbg subtracts it, as the 2-away
    term. Reproduces gnubg's ``mec26.xml`` (g = 0.26, w = 0.5, no free drops) to the three
    printed decimals.

    References
    ----------
    C. Tornberg, mec.c (1996), distributed with GNU Backgammon.

    Returns
    -------
    MET
        Tornberg's ``length``-point table (asymmetric unless ``win_rate`` is 0.5).

    Raises
    ------
    InvalidScoreError
        For a length outside 1..1024.
    InvalidParameterError
        For rates out of range or a table that breaks down.

    Examples
    --------
    >>> t = mec(5)
    >>> float(t.pre[0, 0]), round(float(t.pre[1, 0]), 4)
    (0.5, 0.315)
    """
    n = check_length(length)
    g = check_rate(gammon_rate, "gammon_rate")
    w = check_rate(win_rate, "win_rate", open_ends=True)
    f2 = check_rate(free_drop_2, "free_drop_2", low=-0.5, high=0.5)
    f4 = check_rate(free_drop_4, "free_drop_4", low=-0.5, high=0.5)
    pg = (
        g
        if post_crawford_gammon_rate is None
        else check_rate(post_crawford_gammon_rate, "post_crawford_gammon_rate")
    )
    params = {"gammon_rate": g, "win_rate": w, "free_drop_2": f2, "free_drop_4": f4}
    if post_crawford_gammon_rate is not None:
        params["post_crawford_gammon_rate"] = pg
    try:
        with np.errstate(all="ignore"):
            pre, post0, post1 = recurrence("mec_table")(n, g, pg, w, f2, f4)
    except ZeroDivisionError:
        pre = np.full((n, n), np.nan)
        post0 = post1 = np.full(n, np.nan)
    check_equities((pre, post0, post1), "mec", params)
    if w == 0.5:  # equal players: the two vectors agree mathematically; drop rounding noise
        post1 = post0
    return model_table("mec", pre, np.vstack([post0, post1]), params)


# ----------------------------------------------------------------------------- Montgomery
def montgomery(length: int = 25) -> MET:
    """A whole table from Montgomery's normal model (what gnubg 1.07 shows for zadeh.xml).

    For the trailer (a >= b) ``MWC(a, b) = Phi(6) - Phi((a - b) / sigma)`` with
    ``sigma = sqrt(s(a)^2 + s(b)^2) sqrt((a + b) / 2)`` and per-game standard deviations
    s(n) = 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72 for n = 1..10, 1.77
    beyond; the leader's value is the complement, so the diagonal is Phi(6) - 1/2, not 1/2.
    The post-Crawford vector is Zadeh's (g = 0.25, free drops 0.015 and 0.004), which is
    what gnubg pairs with it. Examples: 2a/1a 0.322756, 3a/2a 0.372376, 7a/3a 0.209901.

    Parameters
    ----------
    length : int, optional
        Table length N.

    Returns
    -------
    MET
        The model's ``length``-point table with Zadeh's post-Crawford vector.

    Raises
    ------
    InvalidScoreError
        For a length outside 1..1024.

    References
    ----------
    gnubg 1.07 matchequity.c (``initMETZadeh`` with ``<length>-1</length>``).

    Examples
    --------
    >>> round(float(montgomery(5).pre[1, 0]), 6)  # 2a/1a
    0.322756
    """
    n = check_length(length)
    aways = np.arange(1, n + 1)
    pre = montgomery_array(aways[:, None], aways[None, :])
    post = continue_post_crawford(np.empty(0), n)
    return model_table("montgomery", pre, post, {})



def extend(met: MET, length: int) -> MET:
    """``met`` lengthened to ``length`` with Montgomery's model, or cut down to it:
    :meth:`MET.extend <mathbg.met.MET.extend>`.

    Parameters
    ----------
    met : MET
        The table.
    length : int
        The new length.

    Returns
    -------
    MET
        The table at ``length`` points (``met`` itself when it has that length).

    Raises
    ------
    InvalidParameterError
        For a ``met`` that is not a :class:`MET`.
    InvalidScoreError
        For a length outside 1..1024.

    References
    ----------
    Montgomery's normal model as gnubg 1.07 extends tables (matchequity.c).

    Examples
    --------
    >>> from mathbg.met import load
    >>> extend(load("kazaross-xg2"), 30).length, extend(load("kazaross-xg2"), 7).length
    (30, 7)
    """
    if not isinstance(met, MET):
        raise InvalidParameterError(f"extend needs a MET, got {type(met).__name__}")
    return met.extend(length)
