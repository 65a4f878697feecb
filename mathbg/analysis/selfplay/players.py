"""Who plays the self-play games: a player's settings (:class:`PlayerSpec`), read from a
string, and the player the engine registry makes of them.

Any engine with the ``play`` capability plays (:func:`mathbg.analysis.registry.engines`
``("play")``); the settings a player takes are the engine's (``plies``, ``noise``,
``probabilities``), checked by the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from mathbg.analysis.base import Player, check_probabilities
from mathbg.analysis.registry import engines, get_player
from mathbg.errors import InvalidParameterError

__all__ = ["PlayerSpec", "make_player", "parse_player", "player_settings"]

#: What a player's settings string looks like (the error names it).
_FORM = (
    "a player is ENGINE or ENGINE:plies=K,noise=S (e.g. gnubg-nn:noise=0.05), or "
    "ENGINE:W,WG,WB,LG,LB for an engine that plays from given chances"
)


@dataclass(frozen=True)
class PlayerSpec:
    """One player's engine and settings.

    ``noise`` (gnubg-nn) makes a weaker player as gnubg's noisy players are made: Gaussian
    noise of this standard deviation (cubeless equity, in points a game) is added to each
    candidate play's equity before the best is chosen, drawn from the batch's own seeded
    noise stream (the dice are untouched, so ``noise=0`` is the plain player bit for bit).
    Cube decisions stay noise-free. ``probabilities`` (the first roller's W, WG, WB, LG,
    LB, cumulative gammons) go with an engine that plays from given chances. As a string:
    ``"gnubg-nn:plies=1,noise=0.05"``.

    Attributes
    ----------
    engine : str
        A registered engine with the ``play`` capability.
    plies : int
        Search depth (engines that take it).
    probabilities : tuple of 5 floats or None
        Given chances (engines that take them).
    noise : float
        A noisy player's noise (engines that take it).
    """

    engine: str = "gnubg-nn"
    plies: int = 0
    probabilities: tuple[float, ...] | None = None
    noise: float = 0.0


def parse_player(value: PlayerSpec | str | Mapping[str, Any] | None, engine: str,
                 plies: int) -> PlayerSpec:  # fmt: skip
    """A :class:`PlayerSpec` from what a caller gives (None: ``engine`` at ``plies``).

    Parameters
    ----------
    value : PlayerSpec, str, mapping or None
        ``ENGINE``, ``ENGINE:plies=K,noise=S`` (either setting, any order),
        ``ENGINE:W,WG,WB,LG,LB``, a mapping of the fields, or a spec.
    engine : str
        The engine when ``value`` is None.
    plies : int
        The plies when ``value`` is None or names no plies.

    Returns
    -------
    PlayerSpec
        Not checked yet (:func:`make_player` checks it).

    Raises
    ------
    InvalidParameterError
        For a string that is none of the forms, or another type.

    Examples
    --------
    >>> parse_player("gnubg-nn:noise=0.05", "gnubg-nn", 0)
    PlayerSpec(engine='gnubg-nn', plies=0, probabilities=None, noise=0.05)
    >>> parse_player(None, "exact", 0).engine
    'exact'
    """
    if value is None:
        return PlayerSpec(engine, plies)
    if isinstance(value, PlayerSpec):
        return value
    if isinstance(value, Mapping):
        return PlayerSpec(**value)
    if not isinstance(value, str):
        raise InvalidParameterError(f"a player is an engine name or a PlayerSpec, got {value!r}")
    name, _, settings = value.partition(":")
    name = name.strip().lower()
    items = [t.strip() for t in settings.split(",") if t.strip()]
    if items and not any("=" in t for t in items):  # ENGINE:W,WG,WB,LG,LB
        try:
            return PlayerSpec(name, 0, tuple(float(t) for t in items))
        except ValueError:
            raise InvalidParameterError(f"{_FORM}; got {value!r}") from None
    got: dict[str, Any] = {"plies": plies, "noise": 0.0}
    for item in items:
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        try:
            if not eq or key not in got:
                raise ValueError
            got[key] = int(val) if key == "plies" else float(val)
        except ValueError:
            raise InvalidParameterError(f"{_FORM}; got {value!r}") from None
    return PlayerSpec(name, got["plies"], None, got["noise"])


def make_player(spec: PlayerSpec) -> tuple[PlayerSpec, Player]:
    """The checked spec (engine name normalised, chances checked) and the registry's
    player for it.

    Parameters
    ----------
    spec : PlayerSpec
        The settings.

    Returns
    -------
    (PlayerSpec, Player)
        The spec as recorded and the player.

    Raises
    ------
    InvalidParameterError
        For an engine that cannot play (the message lists those that can), settings the
        engine does not take or values out of range.
    EngineNotAvailableError
        For an engine that is not installed (the message names what to install).

    Examples
    --------
    >>> spec, player = make_player(PlayerSpec("EXACT"))
    >>> spec.engine, player.own_cube
    ('exact', True)
    """
    name = str(spec.engine).strip().lower()
    players = engines("play")
    if name not in players:
        extra = " (it evaluates positions but cannot play games here)" if name in engines() else ""
        raise InvalidParameterError(
            f"unknown self-play engine {spec.engine!r}{extra}; choose one of " + ", ".join(players)
        )
    plies, noise = spec.plies, spec.noise
    if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
        raise InvalidParameterError(f"plies must be a non-negative integer, got {plies!r}")
    probs = None if spec.probabilities is None else check_probabilities(spec.probabilities)
    player = get_player(name, plies=plies or None, noise=noise or None, probabilities=probs)
    return PlayerSpec(name, plies, probs, noise), player


def player_settings(spec: PlayerSpec) -> dict[str, object]:
    """A player's settings as a table's metadata records them (``noise`` only when set).

    Parameters
    ----------
    spec : PlayerSpec
        A checked spec.

    Returns
    -------
    dict
        ``engine``, ``plies``, ``probabilities`` (and ``noise``).

    Examples
    --------
    >>> player_settings(PlayerSpec("gnubg-nn", 1))
    {'engine': 'gnubg-nn', 'plies': 1, 'probabilities': None}
    """
    return {k: v for k, v in asdict(spec).items() if k != "noise" or v}
