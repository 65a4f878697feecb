"""What the exact Hypergammon solutions tell that no other source can.

- :func:`gammon_rates`: at every score, the probability that the game ends in a gammon
  (or backgammon) for either side under optimal play, cube included;
- :func:`cube_efficiency`: how well the take points of :mod:`mathbg.cube.match` (dead
  cube, fully live cube, or a cube life ``x`` between them) predict the exact take/pass
  decisions of every position at a score, and the cube life that predicts them best;
- :func:`met_model_errors`: each MET model's (Zadeh, Tornberg's mec, the cubeless
  table, any published table) error against the exact table, in MWC.

The positions' cubeless chances (winning chance and gammon rates) are the exact money
cubeless ones (:class:`~mathbg.hyper.money.MoneySolution`), what an engine would report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.met.table import MET

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.hyper.match import ScoreSolution
    from mathbg.hyper.money import MoneySolution

__all__ = ["CubeEfficiency", "cube_efficiency", "gammon_rates", "met_model_errors"]


def gammon_rates(met: MET) -> pd.DataFrame:
    """The gammon rates under optimal play at every score of an exact Hypergammon MET.

    Parameters
    ----------
    met : MET
        A table from :func:`mathbg.hyper.hyper_met` (its ``frames["games"]``).

    Returns
    -------
    pandas.DataFrame
        One row per game: ``away`` (player 0's, player 1's), ``game`` (normal, crawford,
        post-crawford), ``mwc`` (player 0's), ``gammon_win`` / ``gammon_lose``
        (P(player 0 wins / loses a gammon or more) from the opening, cube included) and
        ``gammon_rate`` (their sum: the fraction of games that end in a gammon).

    Examples
    --------
    >>> from mathbg.hyper import hyper_met
    >>> rates = gammon_rates(hyper_met(1, 2, store=False))
    >>> list(rates.columns)
    ['away', 'game', 'mwc', 'gammon_win', 'gammon_lose', 'gammon_rate']
    """
    frame = met.frames["games"][["away", "game", "mwc", "gammon_win", "gammon_lose"]].copy()
    frame["gammon_rate"] = frame["gammon_win"] + frame["gammon_lose"]
    return frame.reset_index(drop=True)


@dataclass(frozen=True)
class CubeEfficiency:
    """How the take-point formulas predict the exact take/pass decisions at a score.

    Attributes
    ----------
    away : (int, int)
        The doubler's and the taker's away scores.
    positions : int
        Positions judged (the taker's cubeless winning chance in [5 %, 50 %]).
    excluded : int
        Positions in that window left out because a side's backgammons outnumber its
        plain gammons (rates :mod:`mathbg.cube` cannot express).
    agreement_dead, agreement_live : float
        Fraction of them where "take iff the taker's winning chance >= the take point"
        with the dead-cube (live-cube) take point agrees with the exact decision.
    cube_life : float
        The cube life x in [0, 1] whose take point agrees best.
    agreement : float
        Its agreement.
    take_point_dead, take_point_live, take_point : float
        The gammonless take points at x = 0, 1 and the best x.
    """

    away: tuple[int, int]
    positions: int
    excluded: int
    agreement_dead: float
    agreement_live: float
    cube_life: float
    agreement: float
    take_point_dead: float
    take_point_live: float
    take_point: float


def cube_efficiency(
    score: ScoreSolution,
    money: MoneySolution,
    met: MET,
    *,
    sample: int | None = 20_000,
    seed: int = 0,
) -> CubeEfficiency:
    """The cube life the exact values imply for an initial double at a score.

    Parameters
    ----------
    score : ScoreSolution
        The exact game (the doubler is player 0, on roll, cube centred).
    money : MoneySolution
        The exact money solution of the same checker count (cubeless chances).
    met : MET
        The table the formulas use (the exact Hypergammon MET for a fair comparison).
    sample : int, optional
        Positions drawn at random (None: all).
    seed : int
        Seed of the draw.

    Returns
    -------
    CubeEfficiency

    Examples
    --------
    >>> from mathbg.hyper import hyper_met, solve_money, solve_score
    >>> met = hyper_met(1, 3, store=False)
    >>> eff = cube_efficiency(solve_score((3, 3), checkers=1, met=met, store=False),
    ...                       solve_money(1, store=False), met)
    >>> 0.0 <= eff.cube_life <= 1.0 and eff.agreement >= max(eff.agreement_dead,
    ...                                                       eff.agreement_live)
    True
    """
    from mathbg.cube.match import take_point

    a, b = score.away
    q = score.states.cls[(0, 0, 0)]
    pairs = np.argwhere(score.space.legal)
    chances = money.values[pairs[:, 1], pairs[:, 0], 5:10]
    p_taker = 1.0 - chances[:, 0]
    # mathbg.cube's rates are disjoint shares of a side's wins (the cumulative outputs less
    # the backgammons) and cannot say "more backgammons than plain gammons": such
    # positions are left out (counted in ``excluded``)
    g, bgs = _disjoint_rates(chances, p_taker)
    expressible = (bgs[0] <= g[0] + 1e-12) & (bgs[1] <= g[1] + 1e-12)
    window = (p_taker >= 0.05) & (p_taker <= 0.5)
    keep = window & expressible
    excluded = int(np.count_nonzero(window & ~expressible))
    pick = np.flatnonzero(keep)
    if sample is not None and len(pick) > sample:
        pick = np.sort(np.random.default_rng(seed).choice(pick, sample, replace=False))
    pairs, p_taker = pairs[pick], p_taker[pick]
    g = (g[0][pick], g[1][pick])
    bgs = (bgs[0][pick], bgs[1][pick])
    takes = np.array([_exact_take(score, int(i), int(j), q) for i, j in pairs], dtype=bool)
    lives = np.linspace(0.0, 1.0, 21)
    agree = []
    for x in lives:
        tp = np.asarray(take_point(met, (b, a), 1, g, bgs, cube_life=float(x)))
        agree.append(float(np.mean((p_taker >= tp) == takes)))
    best = int(np.argmax(agree))

    def tp0(x: float) -> float:
        return float(np.asarray(take_point(met, (b, a), 1, cube_life=x)))

    return CubeEfficiency(
        away=(a, b), positions=len(pairs), excluded=excluded, agreement_dead=agree[0],
        agreement_live=agree[-1],
        cube_life=float(lives[best]), agreement=agree[best], take_point_dead=tp0(0.0),
        take_point_live=tp0(1.0), take_point=tp0(float(lives[best])),
    )


def _disjoint_rates(
    chances: NDArray[np.float64], p_taker: NDArray[np.float64]
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]],
           tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """The taker's and the doubler's gammon and backgammon rates (disjoint fractions of
    their wins) from the doubler's cumulative cubeless chances."""
    taker = np.maximum(p_taker, 1e-12)
    doubler = np.maximum(chances[:, 0], 1e-12)
    bg = (np.clip(chances[:, 4] / taker, 0, 1), np.clip(chances[:, 2] / doubler, 0, 1))
    gam = (np.clip((chances[:, 3] - chances[:, 4]) / taker, 0, 1 - bg[0]),
           np.clip((chances[:, 1] - chances[:, 2]) / doubler, 0, 1 - bg[1]))
    return gam, bg


def _exact_take(score: ScoreSolution, i: int, j: int, q: int) -> bool:
    """The taker's exact answer to the roller's double (take when it beats passing)."""
    nv, _, _ = score._pair_values(i, j)
    st = score.states
    return bool(nv[st.dbl[q]] < st.win[q, 0])


def met_model_errors(exact: MET, models: dict[str, Any]) -> pd.DataFrame:
    """Each table's error against the exact one, over the pre-Crawford entries.

    Parameters
    ----------
    exact : MET
        The exact table (:func:`mathbg.hyper.hyper_met`).
    models : dict
        Name -> MET or anything :func:`mathbg.met.as_met` takes.

    Returns
    -------
    pandas.DataFrame
        Per table: ``max_error`` and ``mean_error`` (absolute, in MWC, over every
        ``a, b >= 2`` entry), ``worst`` (the score of the largest error) and
        ``post_max_error`` (the post-Crawford vector).

    Examples
    --------
    >>> from mathbg.hyper import hyper_met
    >>> exact = hyper_met(1, 3, store=False)
    >>> met_model_errors(exact, {"itself": exact})["max_error"].tolist()
    [0.0]
    """
    import pandas as pd

    from mathbg.met.catalogue import as_met

    n = exact.length
    rows = []
    for name, model in models.items():
        table = as_met(model).extend(n)
        diff = np.abs(table.pre[1:, 1:] - exact.pre[1:, 1:])
        worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.size else (0, 0)
        rows.append({
            "table": name,
            "max_error": float(diff.max()) if diff.size else 0.0,
            "mean_error": float(diff.mean()) if diff.size else 0.0,
            "worst": (int(worst[0]) + 2, int(worst[1]) + 2),
            "post_max_error": float(np.abs(table.post[0] - exact.post[0]).max()),
        })
    return pd.DataFrame(rows).set_index("table")
