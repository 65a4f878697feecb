"""The ``mathbg`` command line.

Each subcommand lives in its own module of this package, named as the command, which
exposes ``HELP`` (one line for ``mathbg --help``), ``DESCRIPTION`` and ``EPILOG`` (its
``--help``, examples included), ``add_arguments(parser)`` and ``run(args) -> int``, the
handler (a command with sub-commands sets each one's ``handler`` in ``add_arguments``);
:func:`build_parser` makes each command's parser from them. Registration must stay cheap:
import heavy modules inside the handler, not at the top.

``main(argv)`` runs any subcommand in-process, prints to stdout and returns the exit
status. Input errors (every :class:`mathbg.errors.MathbgError`), file errors
(:class:`OSError`), memory exhaustion and usage errors are printed as one line on stderr
with exit status 2; any other exception is a bug and prints one ``internal error, please
report`` line with exit status 1. Never a traceback (see :func:`run_handler`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from mathbg import __version__

#: numpy's BLAS on one thread in the ``mathbg`` command's processes (and the Dask workers
#: they start), unless the user set these: mathbg's matrix products are small, and an
#: OpenBLAS thread spins on after each one, CPU spent for nothing (a 13-point match audit:
#: 1.10-1.26x the CPU with two BLAS threads, ``benchmarks/bench_match_analysis.py --blas``).
#: Set at import, before any handler imports numpy; no effect where numpy is loaded already.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
if "numpy" not in sys.modules:
    for _name, _value in BLAS_THREADS.items():
        os.environ.setdefault(_name, _value)

#: Subcommand modules, in the order ``mathbg --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "position",
    "met",
    "takepoint",
    "cube",
    "bearoff",
    "race",
    "hyper",
    "selfplay",
    "analyze",
    "rollout",
    "convert",
    "audit",
    "corpus",
    "cache",
)

EPILOG = """examples:
  mathbg position 4HPwATDgc/ABMA --roll 31
  mathbg met --model kazaross-xg2 --length 7
  mathbg takepoint --away 3,5 --cube 2
  mathbg cube money --gammons 0.2,0.2
  mathbg bearoff show 0,0,0,0,0,15
  mathbg race /38AAADfAwAAAA
  mathbg hyper AACgAgAAKgAAAA --checkers 3 --away 3,5
  mathbg selfplay --variant plakoto --games 1000 --seed 1
  mathbg analyze 4HPwATDgc/ABMA --length 7 --probs 0.70,0.20,0.01,0.05,0.002
  mathbg rollout 4HPwATDgc/ABMA --away 3,5 --trials 1296
  mathbg convert match.txt match.sgf
  mathbg audit match.mat --engine gnubg-nn --compare-met woolsey
  mathbg corpus matches/ --plot gammons.png
  mathbg cache clear analyses --older-than 30

run 'mathbg COMMAND --help' for a command's options."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (exit status 2).

    Subcommand parsers inherit the class (``add_subparsers`` uses the parent's type).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(
            2, f"{self.prog}: error: {message}{_dash_hint(message)} (see '{self.prog} --help')\n"
        )


#: The command line being parsed (for the hint of :func:`_dash_hint`).
_ARGV: list[str] = []


def _dash_hint(message: str) -> str:
    """argparse reads ``--gammons -0.1,0.2`` as two options: say to attach the value."""
    import re

    found = re.match(r"argument (--[\w-]+)(?:/\S+)?: expected one argument", message)
    if found is None or found.group(1) not in _ARGV:
        return ""
    i = _ARGV.index(found.group(1))
    value = _ARGV[i + 1] if i + 1 < len(_ARGV) else ""
    if not value.startswith("-"):
        return ""
    return f"; a value that starts with '-' must be attached: {found.group(1)}={value}"


class _Version(argparse.Action):
    """``--version``: the version, and whether the hot kernels were compiled ahead of time
    by the build or are compiled by numba on first use (:mod:`mathbg._native`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:  # fmt: skip
        from mathbg._native import status

        print(f"mathbg {__version__}\nkernels: {status()}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand registered (``only``: that
    one alone, when it is one: the command line names it, and the others' modules and
    options are neither imported nor built)."""
    parser = _Parser(
        prog="mathbg",
        description="mathbg: match equity tables, cube theory, bearoff databases and race "
        "analysis for backgammon.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version and how mathbg runs its kernels, and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [only] if only in SUBCOMMANDS else SUBCOMMANDS:
        try:
            module = importlib.import_module(f"mathbg.cli.{name}")
        except ModuleNotFoundError as exc:  # a subcommand not built yet
            if exc.name == f"mathbg.cli.{name}":
                continue
            raise
        register = getattr(module, "register", None)
        if register is not None:  # a command that builds its own parser
            register(subparsers)
            continue
        from mathbg.cli._args import add_command

        command = add_command(subparsers, name, help=module.HELP,
                              description=module.DESCRIPTION, epilog=module.EPILOG)  # fmt: skip
        module.add_arguments(command)
        if command.get_default("handler") is None:
            command.set_defaults(handler=module.run)
    return parser


#: The CLI's first cyclic-garbage threshold: a command allocates millions of objects that
#: form no cycles (numbers, tuples, arrays), and Python's default (700) runs a collection
#: every few hundred of them, about 3 % of a match audit's CPU; at 20,000 a 13-point
#: audit still made three collections of 3-4 ms, at 100,000 none (its peak memory the
#: same: what a collection finds is a few hundred objects).
GC_THRESHOLD = 100_000


#: glibc's ``mallopt`` parameters (``malloc.h``) and the values the command sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_HEAP_BLOCKS = 256 << 20
#: The commands that build large tables under a memory budget: their allocator is left as
#: it is (their arrays are large and long-lived; freed memory goes back to the system).
_OWN_MEMORY = frozenset({"bearoff", "hyper"})


def _keep_freed_memory() -> bool:
    """Let glibc keep freed blocks of up to 256 MiB in the heap for the next allocation.

    By default a block above a threshold (128 KiB at first) is mapped from the kernel
    and given back when freed, so each of a command's large temporary arrays faults in
    fresh zeroed pages (about a tenth of a match audit's CPU). A command is one short
    process: its peak memory is what it needs anyway. Called for the command line only
    (not for :func:`main` called with arguments, in another program's process), and not
    for the commands that build tables under a memory budget (:data:`_OWN_MEMORY`);
    nothing happens outside glibc. Returns whether the allocator took both settings.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return False
    # mallopt returns 1 on success
    return bool(mallopt(_M_MMAP_THRESHOLD, _HEAP_BLOCKS) == 1
                and mallopt(_M_TRIM_THRESHOLD, 2 * _HEAP_BLOCKS) == 1)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mathbg`` with ``argv`` (default ``sys.argv[1:]``, the command line); return
    the exit status."""
    import gc

    if argv is None and (sys.argv[1:2] or [""])[0] not in _OWN_MEMORY:
        _keep_freed_memory()
    before = gc.get_threshold()
    gc.set_threshold(max(GC_THRESHOLD, before[0]), *before[1:])
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*before)
        if argv is None:
            gc.unfreeze()


#: The exit status when stdout cannot be flushed at the end (Python's own, ``Py_RunMain``).
_FLUSH_FAILED = 120


def script() -> NoReturn:
    """The ``mathbg`` program (the console script, ``python -m mathbg``): :func:`main` on
    the command line, then the process ends without taking the interpreter apart.

    A command's process holds thousands of objects and hundreds of modules; freeing them
    one by one at exit is about 0.03 CPU-s, a twentieth of a match audit's whole process,
    and the system frees them at once. What an exit must still do is done first: stdout
    and stderr are flushed, and the exit handlers run (:mod:`atexit`, which also closes
    what :func:`weakref.finalize` guards, e.g. temporary directories, and mathbg's long
    lived gnubg process). A process with other threads still running exits the normal way
    (Python waits for them), and so does one under a profiler, a tracer or a debugger
    (``python -m cProfile -m mathbg ...``, coverage: they write their files at the normal
    exit). Never returns: the exit status is :func:`main`'s.

    Examples
    --------
    >>> import subprocess, sys
    >>> run = subprocess.run([sys.executable, "-m", "mathbg", "--version"],
    ...                      capture_output=True, text=True)
    >>> run.returncode, run.stdout.startswith("mathbg ")
    (0, True)
    """
    code = main()
    import threading

    if threading.active_count() > 1 or sys.gettrace() is not None or (
            sys.getprofile() is not None):  # a profiler, coverage or a debugger: they
        sys.exit(code)  # finish their work (write their files) in the normal exit
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # e.g. piped into head: what was written is all they read
            _silence_stdout()
        except (OSError, ValueError, AttributeError):  # as Python's own exit: status 120
            code = code or _FLUSH_FAILED
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    _ARGV[:] = list(argv) if argv is not None else sys.argv[1:]
    parser = build_parser(_ARGV[0] if _ARGV else None)
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    from mathbg._compile import announce_compiles

    announce_compiles()  # one stderr line when a first use compiles kernels for over 1 s
    import warnings

    if argv is None:
        # the command line: what the start-up made (modules, classes, functions) lives to
        # the end; the collector need not look at it again (a tenth of an audit's
        # collections, 10 ms). main() thaws it when the command is done.
        import gc

        gc.freeze()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return run_handler(handler, args, str(args.command))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Warnings on one line of stderr: ``mathbg: warning: ...``."""
    print(f"mathbg: warning: {_one_line(Exception(str(message)))}", file=sys.stderr)


#: What the CLI prints after a MemoryError (exit status 2).
MEMORY_HINT = (
    "out of memory: this needs more memory than the machine (or its ulimit -v / cgroup "
    "limit) allows; try a smaller size"
)


def os_error_words(exc: OSError) -> str:
    """An OSError in plain words naming the file: ``no such file: missing.txt``."""
    import errno

    name = exc.filename
    if name is None:
        return _one_line(exc)
    words = {
        errno.ENOENT: "no such file",
        errno.EACCES: "permission denied",
        errno.EISDIR: "a directory, not a file",
        errno.ENOTDIR: "not a directory (in the path of)",
        errno.ENOSPC: "no space left on the device for",
    }.get(exc.errno or 0, (exc.strerror or "cannot use").lower())
    return f"{words}: {name}"


def run_handler(handler: Any, args: argparse.Namespace, command: str) -> int:
    """Run a subcommand's handler under the CLI's error contract; return the exit status.

    - a :class:`mathbg.errors.MathbgError` (bad input, a refused file, a short resource)
      or an :class:`OSError` (a file that cannot be read or written): one line on
      stderr, exit status 2;
    - :class:`MemoryError`: one line with a hint, exit status 2;
    - anything else is a bug: one ``internal error, please report`` line, exit status 1.
    """
    from mathbg.errors import MathbgError

    try:
        from mathbg.cli._args import precheck

        precheck(args)  # checks every command shares, before any work
        return int(handler(args) or 0)
    except MathbgError as exc:
        print(f"mathbg {command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        _silence_stdout()
        return 0
    except OSError as exc:  # a file that cannot be read or written
        print(f"mathbg {command}: error: {os_error_words(exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"mathbg {command}: error: {MEMORY_HINT}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"mathbg {command}: interrupted", file=sys.stderr)
        return 130
    except RecursionError as exc:
        print(f"mathbg {command}: internal error, please report: {_one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # the contract: never a traceback
        text = f"{type(exc).__name__}: {_one_line(exc)}"
        print(f"mathbg {command}: internal error, please report: {text}", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line (a KeyError's message unquoted)."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    text = " ".join(text.split())
    return text if len(text) <= 2000 else text[:1997] + "..."


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush cannot fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    script()
