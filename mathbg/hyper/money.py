"""Exact money play of Hypergammon: cubeless and cubeful equities of every position.

The game with 1, 2 or 3 checkers a side is small enough to solve outright: every pair of
sides (:mod:`mathbg.hyper.space`, the bar and borne-off checkers included) gets its
values by value iteration with gammons and backgammons, optimal checker play for each
value and optimal cube decisions (:mod:`mathbg.hyper._kernels`). The values are the ones
of gnubg's ``makehyper`` databases, per unit cube, for the player on roll *before* his
cube decision:

- ``cubeless``: the cubeless equity (gammons x2, backgammons x3), with its five
  probabilities (win, win a gammon or more, win a backgammon, lose a gammon or more, lose
  a backgammon: gnubg's cumulative outputs) along the play that maximises it;
- ``player``: the roller owns the cube; ``centre``: centred; ``centre_jacoby``: centred
  under the Jacoby rule (gammons count only once the cube is turned); ``opponent``: the
  opponent owns it. A cube decision (:meth:`MoneySolution.decision`) compares no double
  (the centred or owned value), double/take (twice the opponent-owned value) and
  double/pass (+1).

Options: ``beavers`` (a doubled player may beaver: redouble at once keeping the cube,
so the doubler gets ``4 E`` instead of ``2 E`` when ``E < 0``), and ``gnubg_dance``, which
reproduces ``makehyper`` 1.07.001: when the roller cannot play his roll it takes minus
the swapped pair's values state by state, so the cube changes owner and the opponent's
cube decision is skipped (the correct rule, the default, hands the turn over with the cube
where it is). Its cubeful values differ from the correct ones by up to 0.021 (2 checkers);
its cubeless values do not depend on it.

A solve stops when no value changed by more than ``tolerance`` in a sweep (the
*residual*, gnubg's "norm of delta"); solutions are kept in the store
(:mod:`mathbg.hyper.store`), checkpointed while solving and resumed after a kill.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.hyper import _layout as k
from mathbg.hyper._compiled import kernel
from mathbg.hyper._iterate import as_store, check_tolerance, finish, run_sweeps
from mathbg.hyper.space import HyperSpace, check_checkers, space
from mathbg.hyper.store import Store, digest
from mathbg.rules.cube import CubeOwner
from mathbg.rules.position import Position

__all__ = [
    "DEFAULT_TOLERANCE",
    "MoneyEquity",
    "MoneySolution",
    "OpeningEquity",
    "solve_money",
]

#: Default convergence tolerance (largest change of a value in the last sweep).
DEFAULT_TOLERANCE = 1e-9

_PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


@dataclass(frozen=True)
class MoneyEquity:
    """The exact money values of a position (the roller's, before his cube decision).

    Attributes
    ----------
    position : str
        Its gnubg Position ID.
    cubeless : float
        Cubeless equity.
    probabilities : tuple of float
        Win, win a gammon or more, win a backgammon, lose a gammon or more, lose a
        backgammon (cumulative, as gnubg's outputs).
    player, centre, centre_jacoby, opponent : float
        Cubeful equities per unit cube: the roller owns the cube; centred; centred under
        the Jacoby rule; the opponent owns it.
    """

    position: str
    cubeless: float
    probabilities: tuple[float, float, float, float, float]
    player: float
    centre: float
    centre_jacoby: float
    opponent: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "position": self.position,
            "cubeless": self.cubeless,
            "probabilities": dict(zip(_PROBABILITIES, self.probabilities, strict=True)),
            "player": self.player,
            "centre": self.centre,
            "centre_jacoby": self.centre_jacoby,
            "opponent": self.opponent,
        }


@dataclass(frozen=True)
class OpeningEquity:
    """The opening-roll winner's exact money equity (averaged over the 15 non-doubles).

    Attributes
    ----------
    cubeless : float
        Cubeless equity (Tom Keith's +0.0836795444708631 for 3 checkers).
    probabilities : tuple of float
        As :attr:`MoneyEquity.probabilities`.
    centre, centre_jacoby : float
        Cubeful equity with the cube centred (the opponent may double after the opening
        play), without and with the Jacoby rule.
    """

    cubeless: float
    probabilities: tuple[float, float, float, float, float]
    centre: float
    centre_jacoby: float


@dataclass(frozen=True, eq=False)
class MoneySolution:
    """Every position's exact money values for one checker count.

    Attributes
    ----------
    checkers : int
        Checkers a side (1, 2 or 3): the size of the solved space.
    values : numpy.ndarray
        ``float64[n, n, 10]``, ``values[opponent, roller]``: cubeless equity, the four
        cubeful equities (roller owns, centred, centred Jacoby, opponent owns), the five
        probabilities (see :mod:`mathbg.hyper._kernels`).
    tolerance, residual : float
        The convergence tolerance and the last sweep's largest change.
    residuals : tuple of float
        Every sweep's largest change.
    beavers, gnubg_dance : bool
        The options solved with (see the module docs).
    """

    checkers: int
    values: NDArray[np.float64]
    tolerance: float
    residuals: tuple[float, ...]
    beavers: bool = False
    gnubg_dance: bool = False

    @property
    def residual(self) -> float:
        """The last sweep's largest change of a value."""
        return self.residuals[-1]

    @property
    def sweeps(self) -> int:
        """Sweeps the solve took."""
        return len(self.residuals)

    @property
    def space(self) -> HyperSpace:
        """The position space."""
        return space(self.checkers)

    def _row(self, position: Position | str) -> tuple[NDArray[np.float64], Position]:
        i, j = self.space.pair(position)
        return self.values[j, i], self.space.position(i, j)

    def equity(self, position: Position | str) -> MoneyEquity:
        """The exact values of ``position`` (a Position or Position ID, side on roll's view).

        Raises
        ------
        InvalidPositionError
            For a position that is not one of this game in progress.

        Examples
        --------
        >>> sol = solve_money(1, store=False)
        >>> round(sol.equity("AACAAAAAAgAAAA").cubeless, 6)  # 1 checker, the start
        0.452773
        """
        v, pos = self._row(position)
        probs = tuple(float(x) for x in v[5:10])
        return MoneyEquity(pos.id, float(v[0]), probs, float(v[k.OWNED]),  # type: ignore[arg-type]
                           float(v[k.CENTRE]), float(v[k.JACOBY]), float(v[k.OPPONENT]))

    def decision(
        self,
        position: Position | str,
        owner: CubeOwner | str = CubeOwner.CENTRE,
        *,
        jacoby: bool = False,
    ) -> CubeDecision:
        """The exact money cube decision of the player on roll.

        Parameters
        ----------
        position : Position or str
        owner : CubeOwner or {"centre", "player", "opponent"}
            Who holds the cube ("player" is the side on roll).
        jacoby : bool
            The Jacoby rule (centred cube only).

        Returns
        -------
        CubeDecision
            ND, DT (twice the opponent-owned value), DP (+1) per unit cube.
        """
        who = CubeOwner.parse(owner)
        v, pos = self._row(position)
        if who == CubeOwner.OPPONENT:
            nd = float(v[k.OPPONENT])
            return CubeDecision(CubeAction.NOT_AVAILABLE, nd, None, None, nd, "equity")
        if who == CubeOwner.CENTRE:
            nd = float(v[k.JACOBY] if jacoby else v[k.CENTRE])
        else:
            nd = float(v[k.OWNED])
        e = float(v[k.OPPONENT])
        dt = 4.0 * e if (self.beavers and e < 0) else 2.0 * e
        action = classify(nd, 2.0 * e, 1.0, can_gammon=pos.opponent_off == 0,
                          beavers=self.beavers)
        return CubeDecision(action, nd, 2.0 * e, 1.0, max(nd, min(dt, 1.0)), "equity")

    def opening(self) -> OpeningEquity:
        """The opening-roll winner's equity, cubeless and cubeful (centred cube).

        Examples
        --------
        >>> round(solve_money(1, store=False).opening().cubeless, 6)
        0.314256
        """
        sp = self.space
        i0 = sp.rank(Position.initial(f"hypergammon{self.checkers}").player)
        out = np.empty((1024, 3), dtype=np.int64)
        start = np.empty(22, dtype=np.int64)
        t = sp.tables
        kernel("pair_plays")(int(i0), int(i0), t["ptr"], t["cand"], t["opp"], out, start)
        total = np.zeros(8)
        for r, (d0, d1) in enumerate(k.ROLL_DICE):
            if d0 == d1:
                continue
            best = np.full(3, -np.inf)
            probs = np.zeros(5)
            for p in range(start[r], start[r + 1]):
                v = self.values[out[p, 1], out[p, 0]]
                e0 = -v[0]
                cen = -max(v[k.CENTRE], min(2.0 * v[k.OPPONENT], 1.0))
                jac = -max(v[k.JACOBY], min(2.0 * v[k.OPPONENT], 1.0))
                if e0 > best[0]:
                    best[0] = e0
                    probs = np.array([1.0 - v[5], v[8], v[9], v[6], v[7]])
                best[1] = max(best[1], cen)
                best[2] = max(best[2], jac)
            total += np.concatenate(([best[0]], probs, best[1:])) / 15.0
        p5 = tuple(float(x) for x in total[1:6])
        return OpeningEquity(float(total[0]), p5, float(total[6]), float(total[7]))  # type: ignore[arg-type]


def _identity(checkers: int, tolerance: float, beavers: bool, gnubg_dance: bool) -> dict[str, Any]:
    return {"kind": "money", "checkers": checkers, "tolerance": tolerance,
            "beavers": beavers, "gnubg_dance": gnubg_dance}


def solve_money(
    checkers: int = 3,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    beavers: bool = False,
    gnubg_dance: bool = False,
    store: Store | str | os.PathLike[str] | bool | None = None,
    progress: bool = False,
    max_sweeps: int = 10_000,
    checkpoint_seconds: float = 300.0,
) -> MoneySolution:
    """Solve Hypergammon money play exactly (or load the solution from the store).

    Parameters
    ----------
    checkers : {1, 2, 3}
        Checkers a side.
    tolerance : float
        Stop when no value changed by more than this in a sweep (default 1e-9).
    beavers, gnubg_dance : bool
        See the module docs.
    store : Store, path, bool or None
        Where solutions are kept and resumed (default the cache directory; False: none).
    progress : bool
        Show a tqdm bar (pairs updated, ETA from the convergence rate).
    max_sweeps : int
        Stop after this many sweeps: the solution is returned with a warning (its residual
        says how far it got), kept as a checkpoint, and a later call continues it.
    checkpoint_seconds : float
        Checkpoint the table to the store at most this often (after whole sweeps).

    Returns
    -------
    MoneySolution

    Notes
    -----
    Memory: ``80 n^2`` bytes for the table, twice that at the peak (1.7 GB for 3
    checkers). Time: well under a second for 1 checker, seconds for 2, tens of minutes
    for 3 (``benchmarks/bench_hyper.py`` measures them).

    Examples
    --------
    >>> sol = solve_money(1, store=False)
    >>> sol.residual <= sol.tolerance
    True
    """
    from mathbg._resources import check_memory

    c = check_checkers(checkers)
    tol = check_tolerance(tolerance)
    st = as_store(store)
    ident = _identity(c, tol, bool(beavers), bool(gnubg_dance))
    name = f"money-c{c}-{digest(ident)}"
    if st is not None:
        hit = st.load(name, ident)
        if hit is not None:
            arrays, meta = hit
            return MoneySolution(c, arrays["values"], tol, tuple(meta["residuals"]),
                                 bool(beavers), bool(gnubg_dance))
    sp = space(c)
    n = sp.n
    # the table and, before an extrapolated sweep, its copy (mathbg.hyper._iterate)
    check_memory(2 * 80 * n * n,
                 f"solving {c}-checker Hypergammon money play ({n:,}^2 pairs)")
    values, residuals = _resume(st, name, ident, n)
    t = sp.tables
    sweep = partial(_money_sweep, values, t, bool(beavers), bool(gnubg_dance))
    checkpoint = None
    if st is not None:
        def checkpoint(done: list[float]) -> None:
            st.save(name + ".partial", {"values": values}, ident, {"residuals": done})
    residuals = run_sweeps(sweep, n, tolerance=tol, max_sweeps=max_sweeps, deltas=residuals,
                           progress=progress, desc=f"hypergammon{c} money",
                           checkpoint=checkpoint, checkpoint_seconds=checkpoint_seconds,
                           arrays=[values])
    if finish(st, name, {"values": values}, ident, {"residuals": residuals}, tol):
        values.setflags(write=False)
    return MoneySolution(c, values, tol, tuple(residuals), bool(beavers), bool(gnubg_dance))


def _money_sweep(
    values: NDArray[np.float64], t: dict[str, Any], beavers: bool, dance: bool, m0: int, m1: int
) -> float:
    return float(kernel("money_sweep")(int(m0), int(m1), np.ascontiguousarray(
        values, np.float64), t["ptr"], t["cand"], t["opp"], bool(beavers), bool(dance)))


def _resume(
    st: Store | None, name: str, ident: dict[str, Any], n: int
) -> tuple[NDArray[np.float64], list[float]]:
    """The table to start from: a checkpoint of this solve if there is one, else zeros."""
    if st is not None:
        hit = st.load(name + ".partial", ident)
        if hit is not None and hit[0]["values"].shape == (n, n, k.MONEY_VALUES):
            return np.array(hit[0]["values"]), list(hit[1]["residuals"])
    return np.zeros((n, n, k.MONEY_VALUES)), []
