"""Helpers shared by the ``mathbg`` subcommands: parsers, argument values, output.

Cheap to import (standard library only); matplotlib and the MET modules are imported
inside the functions that need them.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def add_command(
    subparsers: argparse._SubParsersAction[Any],
    name: str,
    *,
    help: str,
    description: str,
    epilog: str,
) -> argparse.ArgumentParser:
    """A subcommand parser whose description and examples keep their line breaks."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def parse_pair(
    text: str, what: str, cast: type = float, *, one_for_both: bool = True
) -> tuple[Any, Any]:
    """``"a,b"`` -> (a, b); a single value stands for both only with ``one_for_both`` (rates,
    whose --help says so; never a score: ``--away 3`` is refused, write ``--away 3,3``)."""
    from mathbg._validate import bounded_text, parse_int
    from mathbg.errors import InvalidParameterError

    parts = [p.strip() for p in bounded_text(str(text), what, 200).split(",")]
    if len(parts) == 1 and not one_for_both:
        raise InvalidParameterError(
            f"{what} wants both values A,B (the player's first); got {text!r}: "
            f"write {what} {parts[0]},{parts[0]} for the same value on both sides"
        )
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(parts):
        raise InvalidParameterError(f"{what} wants two values A,B; got {text!r}")
    if cast is int:  # whole numbers of any size stay exact (checked by the callers' ranges)
        return parse_int(parts[0], what), parse_int(parts[1], what)
    try:
        return cast(parts[0]), cast(parts[1])
    except ValueError:
        raise InvalidParameterError(f"{what}: {text!r} is not two numbers") from None


@contextmanager
def held_warnings() -> Iterator[None]:
    """Hold the block's warnings back: shown once each, in order, when it ends; dropped
    when it raises, so that a refused command prints its one line only (a file that warns
    before another is refused, say).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as shown:
    ...     with held_warnings():
    ...         warnings.warn("twice")
    ...         warnings.warn("twice")
    >>> [str(w.message) for w in shown]
    ['twice']
    """
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        yield
    seen: set[str] = set()
    for w in caught:
        if str(w.message) not in seen:
            seen.add(str(w.message))
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def load_met(name: str) -> Any:
    """A shipped table, a model, or a MET file (.xml, .met, .json): :func:`mathbg.met.as_met`."""
    from mathbg.met import as_met

    return as_met(name)


def extension_note(met: Any, away: int | None) -> None:
    """One stderr line when a score lies beyond the table's own length (gnubg warns too):
    the entries there come from Montgomery's extension, not from the table's source."""
    if away is None or isinstance(met, str):
        return
    from mathbg._validate import MAX_SCORE

    native = getattr(met, "native_length", None) or getattr(met, "length", None)
    if native is None or away <= native or away > MAX_SCORE:
        return  # beyond MAX_SCORE the score itself is refused: one line, the error
    import sys

    print(
        f"mathbg: note: {getattr(met, 'name', 'the table')} is {native} points long; scores "
        f"beyond {native}-away (here up to {away}-away) use Montgomery's extension, as gnubg does",
        file=sys.stderr,
    )


def print_json(obj: Any, indent: int | None = 2, decimals: int | None = None) -> None:
    """Print ``obj`` as JSON on stdout (one line with ``indent=None``).

    Numbers follow :mod:`mathbg._output`: NaN -> ``null``, floats rounded to ``decimals``
    places when given, else to 15 significant digits (no float noise).
    """
    from mathbg._output import dumps

    print(dumps(obj, indent=indent, decimals=decimals))


#: The ``--decimals`` range of every command (float64 holds 17 significant digits).
MAX_DECIMALS = 17


def decimals(text: str) -> int:
    """argparse ``type`` of ``--decimals``: a whole number in 0..:data:`MAX_DECIMALS`
    (refused before any work, in every command)."""
    from mathbg._validate import integer
    from mathbg.errors import MathbgError

    try:
        return integer(text, "--decimals", 0, MAX_DECIMALS)
    except MathbgError:
        raise argparse.ArgumentTypeError(
            f"--decimals must lie in 0..{MAX_DECIMALS}, got {text}"
        ) from None


def parse_probs(text: str) -> list[float]:
    """``--probs W,WG,WB,LG,LB``: five cubeless chances, fractions (not percentages)."""
    from mathbg.errors import InvalidParameterError

    form = "--probs W,WG,WB,LG,LB (P(win), P(win gammon), P(win backgammon), P(lose gammon), "
    form += "P(lose backgammon), fractions, e.g. 0.72,0.25,0.01,0.05,0.002)"
    try:
        probs = [float(v) for v in str(text).split(",")]
    except ValueError:
        raise InvalidParameterError(f"{form}: {text!r} is not five numbers") from None
    if len(probs) != 5:
        raise InvalidParameterError(f"{form}: got {len(probs)} numbers ({text!r})")
    if any(p > 1.0 for p in probs) and all(0.0 <= p <= 100.0 for p in probs):
        fractions = ",".join(f"{p / 100:g}" for p in probs)
        raise InvalidParameterError(
            f"--probs {text}: these look like percentages; give fractions: --probs {fractions}"
        )
    return probs


def add_decimals(parser: argparse.ArgumentParser) -> None:
    """The ``--decimals N`` option: round the numbers of JSON (and CSV) output."""
    parser.add_argument(
        "--decimals",
        type=decimals,
        metavar="N",
        help="round JSON numbers to N decimal places, 0..17 (default: full precision, "
        "15 significant digits)",
    )


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (the CLI writes files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(
    figure: Any,
    path: str,
    *,
    dpi: int = 100,
    tight_layout: bool = True,
    force: bool = False,
    **savefig: Any,
) -> None:
    """Write ``figure`` to ``path`` (``--plot``; refused over a foreign file unless
    ``--force``: :func:`mathbg.plots.save_figure`) and close it."""
    pyplot()
    from mathbg.plots import save_figure as save

    save(figure, path, force=force, dpi=dpi, tight_layout=tight_layout, **savefig)


def check_output(path: str | None, force: bool, *, marked: bool = True) -> None:
    """Refuse an output target early (before the work), as the writer would: a directory,
    or an existing file mathbg did not write (without ``--force``); ``marked=False`` for
    formats with no marker (CSV), where any existing file needs ``--force``."""
    if path is None:
        return
    from mathbg._files import check_output as check

    check_directory(path)
    from mathbg._files import never_ours, written_by_mathbg

    check(path, force=force, is_ours=written_by_mathbg if marked else never_ours)


def check_directory(path: str | None) -> None:
    """Refuse an output file whose directory does not exist, before any work or output."""
    if path is None:
        return
    from pathlib import Path

    from mathbg.errors import InvalidParameterError

    parent = Path(path).parent
    if not parent.is_dir():
        what = "no such directory" if not parent.exists() else "not a directory"
        raise InvalidParameterError(f"{what}: {parent} (to write {path})")


def check_plot(path: str | None, force: bool) -> None:
    """Refuse a ``--plot`` target before the work: a format matplotlib cannot write (from
    the suffix), a directory that does not exist, or a file the writer would refuse."""
    if path is None:
        return
    from pathlib import Path

    from mathbg.errors import InvalidParameterError

    target = Path(path)
    fmt = target.suffix.lstrip(".").lower()
    if fmt:  # no suffix: PNG
        from matplotlib.backend_bases import FigureCanvasBase

        formats = FigureCanvasBase.get_supported_filetypes()
        if fmt not in formats:
            raise InvalidParameterError(
                f"--plot {path}: cannot draw a .{fmt} file; use one of "
                f"{', '.join('.' + f for f in sorted(formats))}"
            )
    check_directory(path)
    check_output(path, force)


def precheck(args: argparse.Namespace) -> None:
    """The cheap checks every command shares, run before its handler (before any work):
    the ``--plot`` target and the ``--scheduler`` value (no connection tried for a bad
    one)."""
    check_plot(getattr(args, "plot", None), bool(getattr(args, "force", False)))
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None:
        from mathbg._dask import check_scheduler

        check_scheduler(scheduler)


def add_force(parser: argparse.ArgumentParser) -> None:
    """The ``--force`` option of commands that write files."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace output files that mathbg did not write (never a directory)",
    )


def parse_counts(text: str) -> list[int]:
    """Checker counts on points 1..P from ``"0,0,0,3,5,7"`` (the CLI's position syntax)."""
    from mathbg.errors import InvalidPositionError

    try:
        counts = [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise InvalidPositionError(
            f"invalid position {text!r}: give checker counts on points 1..P, comma separated, "
            "e.g. 0,0,0,3,5,7"
        ) from None
    if not counts:
        raise InvalidPositionError(f"invalid position {text!r}: no checker counts")
    return counts


def cube_owner(text: str) -> str:
    """argparse ``type`` of ``--owner``: a :class:`~mathbg.rules.cube.CubeOwner` value."""
    from mathbg.rules.cube import CubeOwner

    return CubeOwner.parse(text).value


def add_money_rules(parser: argparse.ArgumentParser) -> None:
    """The ``--no-jacoby`` and ``--no-beavers`` options: money play's rules are gnubg's
    defaults (both on) or a money ID's (:func:`mathbg.rules.ids.money_rules`); each option
    turns one off."""
    parser.add_argument("--no-jacoby", action="store_true",
                        help="money play without the Jacoby rule (default: the rule, as gnubg, "
                        "or a money Match ID's or XGID's flag)")  # fmt: skip
    parser.add_argument("--no-beavers", action="store_true",
                        help="money play without beavers (default: beavers, as gnubg, or a "
                        "money XGID's flag)")  # fmt: skip


def add_owner_argument(
    parser: argparse.ArgumentParser,
    help: str,
    owners: tuple[str, ...] | None = None,
    default: str | None = "centre",
) -> None:
    """The ``--owner {centre,player,opponent}`` option (default centre); ``owners``
    restricts the choices."""
    from mathbg.rules.cube import CubeOwner

    choices = tuple(o.value for o in CubeOwner) if owners is None else owners
    parser.add_argument(
        "--owner",
        type=cube_owner,
        default=default,
        choices=choices,
        metavar="{" + ",".join(choices) + "}",
        help=help,
    )


def add_engine_argument(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    what: str,
    *capabilities: str,
    default: str = "auto",
) -> None:
    """``--engine NAME``: its choices and help from the engine registry
    (:func:`mathbg.analysis.registry.engines`), the engines with one of ``capabilities``:
    an engine registered later (a plug-in, a test's planted engine) is offered too."""
    from mathbg.analysis.registry import engine_help, engines

    parser.add_argument(
        "--engine",
        default=default,
        choices=engines(*capabilities),
        metavar="NAME",
        help=f"{what} (default {default}): {engine_help(*capabilities)}",
    )


#: The table the commands with an evaluation use without ``--met``: the analysis's
#: ``mathbg.analysis.matrix.DEFAULT_MET``, not imported here (start-up stays cheap).
_DEFAULT_MET = "kazaross-xg2"


def add_met_argument(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, what: str = "match equity table"
) -> None:
    """``--met NAME``, default Kazaross-XG2 (the analysis's; read with :func:`load_met`)."""
    parser.add_argument(
        "--met", default=_DEFAULT_MET, metavar="NAME", help=f"{what} (default {_DEFAULT_MET})"
    )


def add_seed_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--seed N``, default 0, for the commands that play random games (the same seed
    gives the same games)."""
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def add_scheduler_argument(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, what: str
) -> None:
    """``--scheduler``, spelled and explained the same in every command
    (:func:`mathbg._dask.dask_client` reads it)."""
    parser.add_argument(
        "--scheduler",
        metavar="SCHEDULER",
        help=f"run {what} on Dask: local or local:N (a LocalCluster of N worker processes on "
        "this machine, default 2) or a scheduler's address tcp://HOST:PORT "
        "(pip install 'mathbg[dask]')",
    )
