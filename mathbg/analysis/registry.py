"""The engine registry: engine name -> what it can do, its factories, availability check and
what to install.

An engine *evaluates* (capability ``evaluate``: positions -> cubeless chances, an
:class:`~mathbg.analysis.base.Evaluator` from :func:`get_evaluator`) and/or *plays*
(capability ``play``: the play for a board and a roll, a
:class:`~mathbg.analysis.base.Player` from :func:`get_player`); an engine with the
``cubeful`` capability also takes its own cubeful cube decisions
(:class:`~mathbg.analysis.base.CubefulEvaluator`). Every user of an engine
(``mathbg analyze``, :func:`mathbg.analysis.analyze`, the cube audit, the corpus, the
self-play tables, the rollouts) obtains it here, and the CLI takes its ``--engine`` choices
and help from :func:`engines` and :func:`engine_help`, by capability. Adding an engine is
one :func:`register_engine` call.

Shipped engines
---------------
``auto``
    ``exact``, else ``race``, else ``native`` at 0 plies (deeper: ``gnubg-nn``, else
    ``gnubg``), per position.
``exact``
    The two-sided bearoff database (both sides within 6 points and 6 checkers); it plays
    bearoff races with the exact match solver (checkers and cube).
``race``
    :func:`mathbg.race.race_chances` (no contact).
``native``
    gnubg 1.07's neural networks evaluated by mathbg's own kernels (:mod:`mathbg.analysis.
    net`), 0 plies, bit for bit gnubg's ``evaluate``; it also plays.
``gnubg-nn``
    gnubg's neural networks from the ``gnubg-nn`` package (extra ``engine``); it also plays
    (``plies``, ``noise``).
``gnubg``
    The GNU Backgammon program as a subprocess (installed apart from pip).
``given``
    Probabilities the user supplies.

Examples
--------
An engine that plays is one registration: here a player whose games end at its first
play, a coin deciding who wins.

>>> from mathbg.analysis.base import GameEnd
>>> class Coin:
...     name, label, own_cube = "coin", "a coin", False
...     def chances(self, board): return (0.5, 0.0, 0.0, 0.0, 0.0)
...     def cube_life(self, board): return 0.68
...     def play(self, board, d1, d2, u, noise): return GameEnd(u < 0.5, 1)
...     def roll_equities(self, board): return None
>>> _ = register_engine("coin", None, capabilities=("play",), player=Coin, player_options=())
>>> engines("play")[-1], get_player("coin").label
('coin', 'a coin')
>>> unregister_engine("coin")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from mathbg.analysis import evaluation as _ev
from mathbg.analysis.base import EngineNotAvailableError, Evaluator, Player
from mathbg.errors import InvalidParameterError, UnknownEngineError

__all__ = [
    "CAPABILITIES",
    "ENGINES",
    "EngineNotAvailableError",
    "EngineSpec",
    "UnknownEngineError",
    "engine_help",
    "engine_spec",
    "engines",
    "get_evaluator",
    "get_player",
    "register_engine",
    "unregister_engine",
]

#: The keyword options an evaluator factory may take (``plies`` and ``probabilities``).
OPTIONS: tuple[str, ...] = ("plies", "probabilities")
#: The keyword options a player factory may take.
PLAYER_OPTIONS: tuple[str, ...] = ("plies", "noise", "probabilities")
#: What an engine can do: ``evaluate`` (a position's cubeless chances from the position
#: itself), ``fixed`` (the same chances, given, for every position: ``given``), ``play``
#: (the play for a board and a roll: self-play and rollouts), ``cubeful`` (its own cubeful
#: cube decision at a score, a :class:`~mathbg.analysis.base.CubefulEvaluator`: the score
#: matrix's ``cube_eval="engine"``).
CAPABILITIES: tuple[str, ...] = ("evaluate", "fixed", "play", "cubeful")


@dataclass(frozen=True)
class EngineSpec:
    """One registered engine.

    Attributes
    ----------
    name : str
        The engine's name (lower case, as ``--engine`` takes it).
    factory : callable or None
        Called with the keyword options the engine takes (a subset of ``plies`` and
        ``probabilities``, only those given) and returns an :class:`Evaluator`; None for
        an engine that only plays.
    available : callable
        ``available()`` is True when the engine can be used here.
    extra : str or None
        The pip extra that installs it (``pip install 'mathbg[extra]'``), None when it
        needs no extra or is installed another way.
    install : str
        What to do when it is not available (the message of
        :class:`EngineNotAvailableError`).
    help : str
        One line for ``--engine``'s help.
    options : tuple of str
        The keyword options the factory takes.
    capabilities : tuple of str
        What it can do (:data:`CAPABILITIES`): the commands offer an engine for the work
        it can do (``--engine``'s choices).
    player : callable or None
        With ``play``: called with the player options given (a subset of
        ``player_options``) and returns a :class:`~mathbg.analysis.base.Player`.
    player_options : tuple of str
        The keyword options the player factory takes (:data:`PLAYER_OPTIONS`).
    play_help : str
        One line for the ``--engine`` help of the commands that play (default ``help``).
    """

    name: str
    factory: Callable[..., Evaluator] | None
    available: Callable[[], bool]
    extra: str | None
    install: str
    help: str
    options: tuple[str, ...]
    capabilities: tuple[str, ...] = ("evaluate",)
    player: Callable[..., Player] | None = None
    player_options: tuple[str, ...] = ()
    play_help: str = ""


_REGISTRY: dict[str, EngineSpec] = {}


def _always() -> bool:
    return True


def register_engine(
    name: str,
    factory: Callable[..., Evaluator] | None,
    *,
    available: Callable[[], bool] | None = None,
    extra: str | None = None,
    install: str | None = None,
    help: str = "",
    options: Sequence[str] = ("plies",),
    capabilities: Sequence[str] = ("evaluate",),
    player: Callable[..., Player] | None = None,
    player_options: Sequence[str] = ("plies",),
    play_help: str = "",
    replace: bool = False,
) -> EngineSpec:
    """Register an engine under ``name``.

    Parameters
    ----------
    name : str
        The engine's name (stored lower case).
    factory : callable or None
        ``factory(**options) -> Evaluator``; receives only the options of ``options``
        that the caller gave. None for an engine that only plays.
    available : callable, optional
        ``available() -> bool``; default: always available.
    extra, install : str, optional
        The pip extra that installs the engine, and the message when it is not available
        (default: names ``extra``).
    help : str, optional
        One line for the CLI's ``--engine`` help.
    options : sequence of str, optional
        The keyword options the factory takes, from ``("plies", "probabilities")``.
    capabilities : sequence of str, optional
        What the engine can do, from :data:`CAPABILITIES` (default ``("evaluate",)``).
    player, player_options : callable, sequence of str, optional
        With the ``play`` capability (and only with it): ``player(**options) -> Player``,
        given only the options of ``player_options`` (:data:`PLAYER_OPTIONS`) the caller gave.
    play_help : str, optional
        ``--engine``'s help line in the commands that play (default ``help``).
    replace : bool, optional
        Allow replacing an engine already registered under ``name``.

    Returns
    -------
    EngineSpec
        The registered entry.

    Raises
    ------
    InvalidParameterError
        For an empty name, a name taken (without ``replace``), an unknown option or
        capability, or factories that do not match the capabilities.

    Examples
    --------
    >>> from mathbg.analysis import register_engine, get_evaluator, engines
    >>> from mathbg.analysis.evaluation import GivenEvaluator
    >>> spec = register_engine("even", lambda: GivenEvaluator([0.5, 0, 0, 0, 0]),
    ...                        options=(), help="every position a coin toss")
    >>> "even" in engines(), get_evaluator("even").name
    (True, 'given')
    >>> unregister_engine("even")
    """
    key = str(name).strip().lower()
    if not key:
        raise InvalidParameterError("an engine needs a name")
    if key in _REGISTRY and not replace:
        raise InvalidParameterError(f"engine {key!r} is already registered (replace=True)")
    _check_registration(factory, options, capabilities, player, player_options)
    if install is None:
        install = f"the {key} engine is not installed"
        if extra is not None:
            install += f": pip install 'mathbg[{extra}]'"
    spec = EngineSpec(key, factory, available or _always, extra, install, help, tuple(options),
                      tuple(capabilities), player, tuple(player_options) if player else (),
                      play_help)  # fmt: skip
    _REGISTRY[key] = spec
    return spec


def _check_registration(
    factory: Callable[..., Evaluator] | None,
    options: Sequence[str],
    capabilities: Sequence[str],
    player: Callable[..., Player] | None,
    player_options: Sequence[str],
) -> None:
    """Refuse options and capabilities the registry does not know, and factories that do
    not match the capabilities."""
    unknown = [o for o in options if o not in OPTIONS]
    if unknown:
        raise InvalidParameterError(
            f"engine options are {', '.join(OPTIONS)}; got {', '.join(unknown)}"
        )
    unknown = [o for o in player_options if o not in PLAYER_OPTIONS]
    if unknown:
        raise InvalidParameterError(
            f"player options are {', '.join(PLAYER_OPTIONS)}; got {', '.join(unknown)}"
        )
    odd = [c for c in capabilities if c not in CAPABILITIES]
    if odd or not capabilities:
        raise InvalidParameterError(
            f"engine capabilities are {', '.join(CAPABILITIES)}; got {', '.join(odd) or 'none'}"
        )
    if ("play" in capabilities) != (player is not None):
        raise InvalidParameterError("an engine that plays has a player factory, and only such")
    if (set(capabilities) - {"play"}) and factory is None:
        raise InvalidParameterError(f"an engine that can {capabilities[0]} needs a factory")


def unregister_engine(name: str) -> None:
    """Remove the engine ``name`` (no error when it is not registered).

    Parameters
    ----------
    name : str
        The engine's name.

    Examples
    --------
    >>> unregister_engine("no-such-engine")

    Returns
    -------
    None
    """
    _REGISTRY.pop(str(name).strip().lower(), None)


def engines(*capabilities: str) -> tuple[str, ...]:
    """The names of the registered engines, in registration order.

    Parameters
    ----------
    *capabilities : str
        Only the engines with one of these capabilities (:data:`CAPABILITIES`); none: all.

    Returns
    -------
    tuple of str
        The names :func:`get_evaluator` accepts.

    Examples
    --------
    >>> engines()[:7]
    ('auto', 'exact', 'race', 'native', 'gnubg-nn', 'gnubg', 'given')
    >>> "given" in engines("evaluate")
    False
    >>> engines("play")[:4]
    ('auto', 'exact', 'native', 'gnubg-nn')
    """
    if not capabilities:
        return tuple(_REGISTRY)
    return tuple(n for n, s in _REGISTRY.items() if set(s.capabilities) & set(capabilities))


class _EngineNames(Sequence[str]):
    """A live, read-only view of the registered names (``ENGINES``)."""

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        return engines()[i]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[str]:
        return iter(engines())

    def __contains__(self, name: object) -> bool:
        return name in _REGISTRY

    def __repr__(self) -> str:
        return repr(engines())


#: The registered engine names (a live view: engines registered later appear in it).
ENGINES: Sequence[str] = _EngineNames()


def engine_spec(name: str) -> EngineSpec:
    """The registry entry of ``name``.

    Parameters
    ----------
    name : str
        An engine name (case and surrounding blanks ignored).

    Returns
    -------
    EngineSpec
        Its factory, availability check and install hint.

    Raises
    ------
    UnknownEngineError
        When no engine has that name (the message lists the choices).

    Examples
    --------
    >>> engine_spec("gnubg-nn").extra
    'engine'
    """
    key = str(name).strip().lower()
    try:
        return _REGISTRY[key]
    except KeyError:
        choices = ", ".join(_REGISTRY)
        raise UnknownEngineError(f"unknown engine {name!r}; choose one of {choices}") from None


def engine_help(*capabilities: str) -> str:
    """``--engine``'s help: every engine (with one of ``capabilities``, if given) with its
    line and what it needs.

    Parameters
    ----------
    *capabilities : str
        As :func:`engines`.

    Returns
    -------
    str
        ``name (what it does; needs ...)`` for each engine, comma separated.

    Examples
    --------
    >>> engine_help().startswith("auto (")
    True
    """
    parts = []
    playing = capabilities == ("play",)
    for spec in (_REGISTRY[n] for n in engines(*capabilities)):
        needs = f"; pip install 'mathbg[{spec.extra}]'" if spec.extra else ""
        line = (spec.play_help or spec.help) if playing else spec.help
        parts.append(f"{spec.name} ({line}{needs})" if line else spec.name)
    return ", ".join(parts)


def get_evaluator(
    engine: str = "auto", *, plies: int | None = None, probabilities: Any = None
) -> Evaluator:
    """The evaluator named ``engine`` (one of :func:`engines`).

    Parameters
    ----------
    engine : str, optional
        A registered engine name (default ``auto``).
    plies : int, optional
        Search depth for the engines that take it (``gnubg-nn``, ``gnubg`` and
        ``auto``'s contact engine; their default 0).
    probabilities : sequence of 5 floats, optional
        Required by ``given``; with ``auto`` it means ``given``.

    Returns
    -------
    Evaluator
        The engine (``auto`` picks per position).

    Raises
    ------
    UnknownEngineError
        For an unknown engine name (an :class:`~mathbg.errors.InvalidParameterError`).
    EngineNotAvailableError
        For an engine that is not installed (the message names what to install).
    InvalidParameterError
        For negative or fractional plies, plies or probabilities given to an engine that
        does not take them, or ``given`` without probabilities.

    Examples
    --------
    >>> get_evaluator("race").name
    'race'
    >>> get_evaluator("given", probabilities=[0.6, 0.1, 0.0, 0.05, 0.0]).probabilities
    (0.6, 0.1, 0.0, 0.05, 0.0)
    """
    spec = engine_spec(engine)
    name = spec.name
    if plies is not None and (int(plies) != plies or plies < 0):
        raise InvalidParameterError(f"plies must be a non-negative integer, got {plies}")
    if plies is not None and "plies" not in spec.options:
        raise InvalidParameterError(
            f"plies apply to the gnubg-nn and gnubg engines (and auto's contact engine), "
            f"not to {name}"
        )
    if name == "auto" and probabilities is not None:
        spec = engine_spec("given")
        name = spec.name
    if "probabilities" in spec.options and probabilities is None:
        raise InvalidParameterError(f"the {name} engine needs --probs W,WG,WB,LG,LB")
    if probabilities is not None and "probabilities" not in spec.options:
        raise InvalidParameterError(f"--probs goes with --engine given, not {name}")
    if spec.factory is None:
        raise InvalidParameterError(
            f"the {name} engine plays games but does not evaluate positions; choose one of "
            + ", ".join(engines("evaluate", "fixed"))
        )
    if not spec.available():
        raise EngineNotAvailableError(spec.install)
    kwargs: dict[str, Any] = {}
    if plies is not None and "plies" in spec.options:
        kwargs["plies"] = plies
    if probabilities is not None:
        kwargs["probabilities"] = probabilities
    return spec.factory(**kwargs)


def _takers(option: str) -> str:
    """The engines whose player takes ``option`` (for the error messages)."""
    names = [n for n, s in _REGISTRY.items() if option in s.player_options]
    return ", ".join(names) or "no engine"


def get_player(
    engine: str,
    *,
    plies: int | None = None,
    noise: float | None = None,
    probabilities: Sequence[float] | None = None,
) -> Player:
    """The player of ``engine`` (one of :func:`engines` ``("play")``).

    Parameters
    ----------
    engine : str
        A registered engine with the ``play`` capability.
    plies : int, optional
        Search depth, for the engines whose player takes it (``gnubg-nn``; default 0).
    noise : float, optional
        A noisy player's noise, for the engines whose player takes it (``gnubg-nn``).
    probabilities : sequence of 5 floats, optional
        Given chances, for (and required by) the engines whose player plays from them.

    Returns
    -------
    Player
        The player.

    Raises
    ------
    UnknownEngineError
        For an unknown engine name.
    InvalidParameterError
        For an engine that does not play, an option its player does not take, or a
        missing required one.
    EngineNotAvailableError
        For an engine that is not installed (the message names what to install).

    Examples
    --------
    >>> get_player("exact").own_cube
    True
    >>> get_player("race")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: the race engine evaluates positions but does not ...
    """
    spec = engine_spec(engine)
    name = spec.name
    if spec.player is None:
        raise InvalidParameterError(
            f"the {name} engine evaluates positions but does not play; choose one of "
            + ", ".join(engines("play"))
        )
    given = {"plies": plies, "noise": noise, "probabilities": probabilities}
    kwargs = {k: v for k, v in given.items() if v is not None}
    for key in kwargs:
        if key in spec.player_options:
            continue
        if key == "probabilities":
            raise InvalidParameterError(
                f"probabilities go with the {_takers(key)} engine, not {name}"
            )
        verb = "applies" if key == "noise" else "apply"
        raise InvalidParameterError(f"{key} {verb} to {_takers(key)}, not to {name}")
    if "probabilities" in spec.player_options and probabilities is None:
        raise InvalidParameterError(f"the {name} engine needs probabilities W,WG,WB,LG,LB")
    if not spec.available():
        raise EngineNotAvailableError(spec.install)
    return spec.player(**kwargs)


# ----------------------------------------------------------------------------- shipped


def _gnubg_nn(plies: int = 0) -> Evaluator:
    from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

    return GnubgNNEvaluator(plies=plies)


def _gnubg_nn_player(plies: int = 0, noise: float = 0.0) -> Player:
    from mathbg.analysis.gnubg_nn import GnubgNNPlayer

    return GnubgNNPlayer(plies=plies, noise=noise)


def _native(plies: int = 0) -> Evaluator:
    from mathbg.analysis.net.engine import NativeEvaluator

    return NativeEvaluator(plies=plies)


def _native_player(plies: int = 0) -> Player:
    from mathbg.analysis.net.engine import NativePlayer

    return NativePlayer(plies=plies)


def _auto_player(plies: int = 0) -> Player:
    """The native player at 0 plies, gnubg-nn's deeper."""
    if not plies:
        return _native_player()
    if not _ev.gnubg_nn_installed():
        raise EngineNotAvailableError(
            f"at {plies} plies the auto player is gnubg-nn's, and "
            + _ev.INSTALL["gnubg-nn"].replace("the gnubg-nn package", "it")
        )
    return _gnubg_nn_player(plies=plies)


def _exact_player() -> Player:
    return _ev.ExactPlayer()


def _gnubg(plies: int = 0) -> Evaluator:
    from mathbg.analysis.gnubg_program import GnubgEvaluator

    return GnubgEvaluator(plies=plies)


register_engine("auto", _ev.AutoEvaluator, help="the first of exact, race, native (0 plies; "
                "deeper gnubg-nn, gnubg) that applies", capabilities=("evaluate", "play"),
                player=_auto_player, player_options=("plies",),
                play_help="native at 0 plies, gnubg-nn deeper")  # fmt: skip
register_engine("exact", _ev.ExactEvaluator, options=(),
                help="two-sided bearoff database, <= 6 checkers a side",
                capabilities=("evaluate", "play"), player=_exact_player, player_options=(),
                play_help="the exact match bearoff solver, checkers and cube, in bearoff "
                "races from --start")  # fmt: skip
register_engine("race", _ev.RaceEvaluator, options=(), help="no contact")
register_engine(
    "native",
    _native,
    help="gnubg 1.07's networks in mathbg's own kernels, 0 plies",
    capabilities=("evaluate", "play"),
    player=_native_player,
    player_options=("plies",),
)
register_engine(
    "gnubg-nn",
    _gnubg_nn,
    available=lambda: _ev.gnubg_nn_installed(),
    extra="engine",
    install=_ev.INSTALL["gnubg-nn"],
    help="gnubg's networks",
    capabilities=("evaluate", "play"),
    player=_gnubg_nn_player,
    player_options=("plies", "noise"),
)
register_engine(
    "gnubg",
    _gnubg,
    available=lambda: _ev.gnubg_program_installed(),
    install=_ev.INSTALL["gnubg"],
    help="the GNU Backgammon program",
    capabilities=("evaluate", "cubeful"),
)
register_engine("given", _ev.GivenEvaluator, options=("probabilities",),
                capabilities=("fixed",), help="--probs")  # fmt: skip
