"""The engine registry: engine name -> factory, availability check and what to install.

Every user of an engine (``mathbg analyze``, :func:`mathbg.analysis.analyze`, the cube audit,
the self-play tables) looks engines up here with :func:`get_evaluator`, and the CLI takes
its ``--engine`` choices and help from :func:`engines` and :func:`engine_help`. Adding an
engine is one :func:`register_engine` call.

Shipped engines
---------------
``auto``
    ``exact``, else ``race``, else ``gnubg-nn``, else ``gnubg`` (per position).
``exact``
    The two-sided bearoff database (both sides within 6 points and 6 checkers).
``race``
    :func:`mathbg.race.race_chances` (no contact).
``gnubg-nn``
    gnubg's neural networks from the ``gnubg-nn`` package (extra ``engine``).
``gnubg``
    The GNU Backgammon program as a subprocess (installed apart from pip).
``given``
    Probabilities the user supplies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from mathbg.analysis import evaluation as _ev
from mathbg.analysis.base import EngineNotAvailableError, Evaluator
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
    "register_engine",
    "unregister_engine",
]

#: The keyword options a factory may take (``plies`` and ``probabilities``).
OPTIONS: tuple[str, ...] = ("plies", "probabilities")
#: What an engine can do: ``evaluate`` (a position's cubeless chances from the position
#: itself), ``fixed`` (the same chances, given, for every position: ``given``).
CAPABILITIES: tuple[str, ...] = ("evaluate", "fixed")


@dataclass(frozen=True)
class EngineSpec:
    """One registered engine.

    Attributes
    ----------
    name : str
        The engine's name (lower case, as ``--engine`` takes it).
    factory : callable
        Called with the keyword options the engine takes (a subset of ``plies`` and
        ``probabilities``, only those given) and returns an :class:`Evaluator`.
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
    """

    name: str
    factory: Callable[..., Evaluator]
    available: Callable[[], bool]
    extra: str | None
    install: str
    help: str
    options: tuple[str, ...]
    capabilities: tuple[str, ...] = ("evaluate",)


_REGISTRY: dict[str, EngineSpec] = {}


def _always() -> bool:
    return True


def register_engine(
    name: str,
    factory: Callable[..., Evaluator],
    *,
    available: Callable[[], bool] | None = None,
    extra: str | None = None,
    install: str | None = None,
    help: str = "",
    options: Sequence[str] = ("plies",),
    capabilities: Sequence[str] = ("evaluate",),
    replace: bool = False,
) -> EngineSpec:
    """Register an engine under ``name``.

    Parameters
    ----------
    name : str
        The engine's name (stored lower case).
    factory : callable
        ``factory(**options) -> Evaluator``; receives only the options of ``options``
        that the caller gave.
    available : callable, optional
        ``available() -> bool``; default: always available.
    extra : str, optional
        The pip extra that installs the engine (named in the error when it is missing).
    install : str, optional
        The message when the engine is not available; default names ``extra``.
    help : str, optional
        One line for the CLI's ``--engine`` help.
    options : sequence of str, optional
        The keyword options the factory takes, from ``("plies", "probabilities")``.
    capabilities : sequence of str, optional
        What the engine can do, from :data:`CAPABILITIES` (default ``("evaluate",)``).
    replace : bool, optional
        Allow replacing an engine already registered under ``name``.

    Returns
    -------
    EngineSpec
        The registered entry.

    Raises
    ------
    InvalidParameterError
        For an empty name, a name already taken (without ``replace``) or an unknown
        option.

    Examples
    --------
    >>> from mathbg.analysis import register_engine, get_evaluator, engines
    >>> from mathbg.analysis.evaluation import GivenEvaluator
    >>> spec = register_engine("even", lambda: GivenEvaluator([0.5, 0, 0, 0, 0]),
    ...                        options=(), help="every position a coin toss")
    >>> "even" in engines()
    True
    >>> get_evaluator("even").name
    'given'
    >>> unregister_engine("even")
    """
    key = str(name).strip().lower()
    if not key:
        raise InvalidParameterError("an engine needs a name")
    if key in _REGISTRY and not replace:
        raise InvalidParameterError(f"engine {key!r} is already registered (replace=True)")
    unknown = [o for o in options if o not in OPTIONS]
    if unknown:
        raise InvalidParameterError(
            f"engine options are {', '.join(OPTIONS)}; got {', '.join(unknown)}"
        )
    odd = [c for c in capabilities if c not in CAPABILITIES]
    if odd or not capabilities:
        raise InvalidParameterError(
            f"engine capabilities are {', '.join(CAPABILITIES)}; got {', '.join(odd) or 'none'}"
        )
    if install is None:
        install = f"the {key} engine is not installed"
        if extra is not None:
            install += f": pip install 'mathbg[{extra}]'"
    spec = EngineSpec(key, factory, available or _always, extra, install, help, tuple(options),
                      tuple(capabilities))  # fmt: skip
    _REGISTRY[key] = spec
    return spec


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
    >>> engines()[:6]
    ('auto', 'exact', 'race', 'gnubg-nn', 'gnubg', 'given')
    >>> "given" in engines("evaluate")
    False
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
    for spec in (_REGISTRY[n] for n in engines(*capabilities)):
        needs = f"; pip install 'mathbg[{spec.extra}]'" if spec.extra else ""
        parts.append(f"{spec.name} ({spec.help}{needs})" if spec.help else spec.name)
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
    if not spec.available():
        raise EngineNotAvailableError(spec.install)
    kwargs: dict[str, Any] = {}
    if plies is not None and "plies" in spec.options:
        kwargs["plies"] = plies
    if probabilities is not None:
        kwargs["probabilities"] = probabilities
    return spec.factory(**kwargs)


# ----------------------------------------------------------------------------- shipped


def _gnubg_nn(plies: int = 0) -> Evaluator:
    from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

    return GnubgNNEvaluator(plies=plies)


def _gnubg(plies: int = 0) -> Evaluator:
    from mathbg.analysis.gnubg_program import GnubgEvaluator

    return GnubgEvaluator(plies=plies)


register_engine("auto", _ev.AutoEvaluator, help="the first of exact, race, gnubg-nn, gnubg "
                "that applies")  # fmt: skip
register_engine("exact", _ev.ExactEvaluator, options=(),
                help="two-sided bearoff database, <= 6 checkers a side")  # fmt: skip
register_engine("race", _ev.RaceEvaluator, options=(), help="no contact")
register_engine(
    "gnubg-nn",
    _gnubg_nn,
    available=lambda: _ev.gnubg_nn_installed(),
    extra="engine",
    install=_ev.INSTALL["gnubg-nn"],
    help="gnubg's networks",
)
register_engine(
    "gnubg",
    _gnubg,
    available=lambda: _ev.gnubg_program_installed(),
    install=_ev.INSTALL["gnubg"],
    help="the GNU Backgammon program",
)
register_engine("given", _ev.GivenEvaluator, options=("probabilities",),
                capabilities=("fixed",), help="--probs")  # fmt: skip
