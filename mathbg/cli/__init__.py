"""The ``mathbg`` command line.

Each subcommand lives in its own module of this package and exposes
``register(subparsers) -> None``, which adds its parser and sets ``handler`` (a function
``(args: argparse.Namespace) -> int``) with ``parser.set_defaults(handler=...)``.
Registration must stay cheap: import heavy modules inside the handler, not at the top.

``main(argv)`` runs any subcommand in-process, prints to stdout and returns the exit
status. Input errors (any :class:`ValueError`, which includes every
:class:`mathbg.errors.MathbgError`), file errors (:class:`OSError`) and usage errors are
printed as one line on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from mathbg import __version__

#: Subcommand modules, in the order ``mathbg --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "position",
    "met",
    "takepoint",
    "cube",
    "bearoff",
    "race",
    "selfplay",
    "analyze",
)

EPILOG = """examples:
  mathbg position 4HPwATDgc/ABMA --roll 31
  mathbg met --model kazaross-xg2 --length 7
  mathbg takepoint --away 3,5 --cube 2
  mathbg cube money --gammons 0.2,0.2
  mathbg bearoff show 0,0,0,0,0,15
  mathbg race /38AAADfAwAAAA
  mathbg selfplay --variant plakoto --games 1000 --seed 1
  mathbg analyze 4HPwATDgc/ABMA --length 7 --probs 0.70,0.20,0.01,0.05,0.002

run 'mathbg COMMAND --help' for a command's options."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (exit status 2).

    Subcommand parsers inherit the class (``add_subparsers`` uses the parent's type).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand registered."""
    parser = _Parser(
        prog="mathbg",
        description="mathbg: match equity tables, cube theory, bearoff databases and race "
        "analysis for backgammon.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mathbg {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"mathbg.cli.{name}")
        except ModuleNotFoundError as exc:  # a subcommand not built yet
            if exc.name == f"mathbg.cli.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mathbg`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except (ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"mathbg {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except OSError as exc:  # a file that cannot be read or written
        print(f"mathbg {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
