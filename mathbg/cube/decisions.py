"""Naming cube actions from the equities of no double, double/take and double/pass.

The classification follows gnubg's ``FindBestCubeDecision`` (eval.c): with ND, DT and DP
the doubler's equities (or match winning chances) for no double, double/take and
double/pass,

1. ND > DT > DP: too good, pass;   2. ND > DP > DT: too good, take;
3. DT >= ND > DP: too good, pass;  4. DT >= DP >= ND: double, pass;
5. DP > ND > DT: no double, take;  6. DP > DT >= ND: double, take.

A "too good" needs a possible gammon (otherwise gnubg says double, pass or no double,
take). In money play with beavers allowed, a double/take where the doubler's DT equity is
in [-2, 0] (the taker is better off holding the doubled cube) is beavered; it stays a
double only if the beavered game (worth 2 DT to the doubler) is still no worse than ND.


The result of a cube decision is one type, :class:`CubeDecision` (no double, double/take,
double/pass, the optimal value and the action); the money, match, race, bearoff and
exact-match results are it or extend it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from mathbg._output import FrameMixin

__all__ = ["CubeAction", "CubeDecision", "classify"]


class CubeAction(StrEnum):
    """A cube action as a player would name it."""

    NO_DOUBLE_TAKE = "no double, take"
    NO_DOUBLE_BEAVER = "no double, beaver"
    DOUBLE_TAKE = "double, take"
    DOUBLE_BEAVER = "double, beaver"
    DOUBLE_PASS = "double, pass"
    TOO_GOOD_TAKE = "too good, take"
    TOO_GOOD_PASS = "too good, pass"
    NOT_AVAILABLE = "cube not available"

    @property
    def doubles(self) -> bool:
        """True when the right action is to double."""
        return self in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_BEAVER, CubeAction.DOUBLE_PASS)

    @property
    def too_good(self) -> bool:
        """True when the player is too good to double (plays on for a gammon)."""
        return self in (CubeAction.TOO_GOOD_TAKE, CubeAction.TOO_GOOD_PASS)

    @property
    def short(self) -> str:
        """Coarse name: ``no double``, ``double/take``, ``double/pass``, ``too good``,
        ``beaver`` or ``not available``."""
        return {
            CubeAction.NO_DOUBLE_TAKE: "no double",
            CubeAction.NO_DOUBLE_BEAVER: "no double",
            CubeAction.DOUBLE_TAKE: "double/take",
            CubeAction.DOUBLE_BEAVER: "beaver",
            CubeAction.DOUBLE_PASS: "double/pass",
            CubeAction.TOO_GOOD_TAKE: "too good",
            CubeAction.TOO_GOOD_PASS: "too good",
            CubeAction.NOT_AVAILABLE: "not available",
        }[self]


def classify(
    nd: float,
    dt: float,
    dp: float,
    *,
    can_gammon: bool = True,
    beavers: bool = False,
    money: bool = True,
) -> CubeAction:
    """Name the cube action from the doubler's no-double, double/take and double/pass values.

    Parameters
    ----------
    nd, dt, dp : float
        The doubler's equity (money, per unit of the current cube) or match winning chance
        after no double, double/take and double/pass. In money play DT is the equity of the
        doubled game already multiplied by 2 and DP is +1.
    can_gammon : bool
        Whether the doubler can still win a gammon; without one, "too good" is reported as
        double/pass (or no double/take), as gnubg does.
    beavers : bool
        Money play only: the taker may beaver.
    money : bool
        Money play (beavers apply) or match play.

    Returns
    -------
    CubeAction
        The action (gnubg ``FindBestCubeDecision`` cases 1-6; optional doubles are named as
        the plain action).

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``FindBestCubeDecision``.

    Examples
    --------
    >>> str(classify(0.1, 0.3, 1.0))
    'double, take'
    >>> str(classify(0.6, 1.2, 1.0))
    'double, pass'
    >>> str(classify(0.1, -0.2, 1.0))
    'no double, take'
    """
    beaverable = money and beavers and -2.0 <= dt <= 0.0
    if dt >= nd and dp >= nd:
        if dp > dt:
            if beaverable:  # after the beaver the doubler has 2 DT: double only if >= ND
                return CubeAction.NO_DOUBLE_BEAVER if 2.0 * dt < nd else CubeAction.DOUBLE_BEAVER
            return CubeAction.DOUBLE_TAKE
        return CubeAction.DOUBLE_PASS
    if nd > dt:
        if dt > dp:
            return CubeAction.TOO_GOOD_PASS if can_gammon else CubeAction.DOUBLE_PASS
        if nd > dp:
            return CubeAction.TOO_GOOD_TAKE if can_gammon else CubeAction.NO_DOUBLE_TAKE
        return CubeAction.NO_DOUBLE_BEAVER if beaverable else CubeAction.NO_DOUBLE_TAKE
    # DT >= ND > DP
    return CubeAction.TOO_GOOD_PASS if can_gammon else CubeAction.DOUBLE_PASS


@dataclass(frozen=True)
class CubeDecision(FrameMixin):
    """A cube decision of the player on roll: the three values and the action.

    Attributes
    ----------
    action : CubeAction
        The right action, one spelling everywhere (``"no double, take"``, ``"double,
        take"``, ``"double, pass"``, ``"too good, pass"``, ..., ``"cube not available"``).
    no_double, double_take, double_pass : float
        The doubler's values after no double, double/take and double/pass: money equities
        per unit of the current cube (``unit="equity"``; ``double_take`` already doubled,
        ``double_pass`` = +1) or match winning chances (``unit="mwc"``).
        ``double_take`` and ``double_pass`` are None when the cube is not available.
    optimal : float
        The value of the right action.
    unit : {"equity", "mwc"}
        What the values are.
    emg : (float, float or None, float or None) or None
        Match play: the same three values as EMG equities at the current cube.
    cube_life : float, (float, float) or None
        The cube life x the values were computed with (None: exact, no cube-life model).
    """

    action: CubeAction
    no_double: float
    double_take: float | None
    double_pass: float | None
    optimal: float
    unit: str
    emg: tuple[float, float | None, float | None] | None = None
    cube_life: float | tuple[float, float] | None = None

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "emg": ("no_double", "double_take", "double_pass"),
        "cube_life": ("no_double", "double_take"),
    }

    def as_dict(self) -> dict[str, Any]:
        """The JSON object (``mathbg cube decide --json``): values as fractions (MWC) or
        equities, ``null`` where a value does not apply, and the cube life used."""
        out: dict[str, Any] = {
            "action": str(self.action),
            "unit": self.unit,
            "cube_life": list(self.cube_life)
            if isinstance(self.cube_life, tuple)
            else self.cube_life,
            "no_double": self.no_double,
            "double_take": self.double_take,
            "double_pass": self.double_pass,
            "optimal": self.optimal,
        }
        if self.emg is not None:
            out["emg"] = dict(zip(self.FRAME_PARTS["emg"], self.emg, strict=True))
        return out

    @property
    def should_double(self) -> bool:
        """Whether doubling is right (``action.doubles``)."""
        return bool(self.action.doubles)

    @property
    def available(self) -> bool:
        """Whether the player has access to the cube."""
        return self.action != CubeAction.NOT_AVAILABLE
