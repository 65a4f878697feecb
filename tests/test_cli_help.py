"""The command line explains itself and fails politely.

Every command and sub-command (found by walking the parser, so a new one cannot be
forgotten) has a ``--help`` with at least one example; ``mathbg --version`` prints the
version; bad input of each command ends with exit status 2 and a single line on stderr
naming the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

import mathbg
from mathbg.cli import build_parser, main


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from _commands(sub, (*prefix, name))


COMMANDS = list(_commands(build_parser()))

#: One bad input per command (each fails before any database is built).
BAD_INPUT: dict[tuple[str, ...], list[str]] = {
    ("position",): ["position", "NOTANID"],
    ("cache",): ["cache", "frobnicate"],
    ("cache", "show"): ["cache", "show", "--older-than", "3"],
    ("cache", "clear"): ["cache", "clear", "analyses", "--older-than", "-1"],
    ("met",): ["met", "--model", "no-such-table"],
    ("takepoint",): ["takepoint", "--away", "3,5", "--cube", "3"],
    ("cube",): ["cube", "frobnicate"],
    ("cube", "money"): ["cube", "money", "--gammons", "2,0"],
    ("cube", "decide"): ["cube", "decide", "--probs", "0.5,0.6,0,0,0"],
    ("bearoff",): ["bearoff", "frobnicate"],
    ("bearoff", "build"): ["bearoff", "build", "--checkers", "16"],
    ("bearoff", "show"): ["bearoff", "show", "0,0,x"],
    ("bearoff", "match"): ["bearoff", "match", "0,0,1", "0,0,1", "--away", "3,3", "--cube", "3"],
    ("race",): ["race", "4HPwATDgc/ABMA"],  # a contact position: not a race
    ("hyper",): ["hyper", "4HPwATDgc/ABMA"],  # 15 checkers a side: not Hypergammon
    ("selfplay",): ["selfplay", "--variant", "chess"],
    ("analyze",): ["analyze", "4HPwATDgc/ABMA", "--length", "5", "--engine", "race"],
    ("convert",): ["convert", "no-such-match.mat", "out.sgf"],
    ("audit",): ["audit", "no-such-match.mat"],
    ("corpus",): ["corpus", "no-such-folder"],
    ("rollout",): ["rollout", "4HPwATDgc/ABMA", "--away", "3,5", "--trials", "0"],
}

#: Usage errors that argparse itself reports.
USAGE_ERRORS = [
    ["no-such-command"],
    ["takepoint", "--cube", "x"],
    ["cube", "money", "--cube-life"],
    ["position"],  # missing ID
]


def test_the_parser_has_commands() -> None:
    names = {c[0] for c in COMMANDS}
    assert {"position", "met", "takepoint", "cube", "bearoff"} <= names


def test_top_level_help_lists_every_command_with_examples(capsys: pytest.CaptureFixture) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "example" in out
    for (name,) in (c for c in COMMANDS if len(c) == 1):
        assert name in out
        assert f"mathbg {name}" in out, f"no example of {name} in mathbg --help"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_explains_with_an_example(command: tuple, capsys: pytest.CaptureFixture) -> None:
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: mathbg " + " ".join(command))
    assert "example" in out.lower()
    assert f"mathbg {command[0]} " in out.split("example", 1)[1]  # an example of this command


def test_version(capsys: pytest.CaptureFixture) -> None:
    assert main(["--version"]) == 0
    from mathbg._native import status

    assert capsys.readouterr().out.strip() == f"mathbg {mathbg.__version__}\nkernels: {status()}"


def test_every_command_has_a_bad_input_case() -> None:
    assert set(BAD_INPUT) == set(COMMANDS)


def _run(argv: list[str], tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MATHBG_DATA=str(tmp_path), MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, "-m", "mathbg", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _assert_one_line_error(proc: subprocess.CompletedProcess, argv: list[str]) -> None:
    assert proc.returncode == 2, (argv, proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, (argv, proc.stderr)
    assert lines[0].startswith("mathbg") and "error" in lines[0]


@pytest.mark.parametrize("command", list(BAD_INPUT), ids=" ".join)
def test_bad_input_is_one_line_exit_2(command: tuple, tmp_path) -> None:
    argv = BAD_INPUT[command]
    _assert_one_line_error(_run(argv, tmp_path), argv)


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=" ".join)
def test_usage_errors_are_one_line_exit_2(argv: list[str], tmp_path) -> None:
    _assert_one_line_error(_run(argv, tmp_path), argv)


@pytest.mark.slow
def test_unwritable_output_is_one_line_exit_2(tmp_path) -> None:
    argv = ["met", "--format", "xg", "--out", str(tmp_path)]  # a directory, not a file
    _assert_one_line_error(_run(argv, tmp_path), argv)
    argv = ["met", "--format", "xg", "--out", str(tmp_path / "no" / "such" / "dir" / "x.met")]
    _assert_one_line_error(_run(argv, tmp_path), argv)


@pytest.mark.slow
def test_bad_input_message_names_the_problem(tmp_path) -> None:
    proc = _run(["takepoint", "--away", "3,5", "--cube", "3"], tmp_path)
    assert "power of two" in proc.stderr
    proc = _run(["position", "NOTANID"], tmp_path)
    assert "NOTANID" in proc.stderr


@pytest.mark.parametrize("given", [None, "2"])
def test_the_command_runs_blas_on_one_thread_unless_told(given: str | None) -> None:
    """``mathbg``'s processes run numpy's BLAS on one thread (spinning BLAS threads cost CPU
    for nothing on mathbg's small products); a user's own setting is kept."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS",
                                                               "MKL_NUM_THREADS")}  # fmt: skip
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = ("import os, mathbg.cli, numpy; "
            "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS'])")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == [given or "1", "1"]


def test_a_command_line_that_names_a_command_builds_that_parser_alone() -> None:
    """The parser of the command run is the one the full parser holds (same options), and
    the others are not built; a name that is not a command gets the full parser."""
    from mathbg.cli import SUBCOMMANDS

    def options(parser: argparse.ArgumentParser, name: str) -> list[list[str]]:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return [a.option_strings or [a.dest] for a in sub.choices[name]._actions]

    everything = build_parser()
    for name in SUBCOMMANDS:
        alone = list(_commands(build_parser(name)))
        assert {c[0] for c in alone} == {name}
        assert alone == [c for c in COMMANDS if c[0] == name]
        assert options(build_parser(name), name) == options(everything, name)
    assert list(_commands(build_parser("no-such-command"))) == COMMANDS
    assert list(_commands(build_parser("--help"))) == COMMANDS


def test_the_allocator_is_tuned_for_the_command_line_only(monkeypatch) -> None:
    """``main()`` reading the command line keeps freed memory for its process (glibc's
    ``mallopt``); ``main(argv)`` in another program's process leaves the allocator alone,
    and the garbage collector's thresholds as they were."""
    import contextlib
    import gc
    import io
    import sys

    import mathbg.cli as cli

    calls: list[int] = []
    monkeypatch.setattr(cli, "_keep_freed_memory", lambda: bool(calls.append(1)))
    before = gc.get_threshold()
    assert main(["--version"]) == 0
    assert calls == [] and gc.get_threshold() == before
    monkeypatch.setattr(sys, "argv", ["mathbg", "--version"])
    assert main() == 0
    assert calls == [1] and gc.get_threshold() == before
    monkeypatch.setattr(sys, "argv", ["mathbg", "bearoff", "--help"])  # a memory budget
    with contextlib.redirect_stdout(io.StringIO()):
        assert main() == 0
    assert calls == [1]


def test_the_command_line_freezes_the_start_up_for_the_collector(monkeypatch) -> None:
    """On the command line, what the start-up made is frozen for the garbage collector
    (:func:`gc.freeze`) while the command runs, and thawed when it is done; ``main(argv)``
    in another program's process freezes nothing."""
    import gc
    import sys

    import mathbg.cli as cli

    seen: list[int] = []

    def handler(*args: object) -> int:
        seen.append(gc.get_freeze_count())
        return 0

    monkeypatch.setattr(cli, "run_handler", handler)
    assert main(["audit", "x.mat"]) == 0
    monkeypatch.setattr(sys, "argv", ["mathbg", "audit", "x.mat"])
    assert main() == 0
    assert seen[0] == 0 and seen[1] > 1000 and gc.get_freeze_count() == 0


def test_glibc_takes_the_allocator_settings() -> None:
    import platform
    import sys

    import mathbg.cli as cli

    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert cli._keep_freed_memory() is glibc  # both mallopt calls accepted; elsewhere none


def _program(code: str, tmp_path) -> subprocess.CompletedProcess:
    """``code`` then the ``mathbg`` program (:func:`mathbg.cli.script`) in a new process,
    its output buffered as in a user's shell (``PYTHONUNBUFFERED`` unset)."""
    env = dict(os.environ, MATHBG_DATA=str(tmp_path), MPLBACKEND="Agg")
    env.pop("PYTHONUNBUFFERED", None)
    program = code + "\nfrom mathbg.cli import script\nscript()"
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip


def test_the_program_is_the_script_entry_point() -> None:
    from importlib.metadata import entry_points

    (ep,) = (e for e in entry_points(group="console_scripts") if e.name == "mathbg")
    assert ep.value == "mathbg.cli:script"


def test_the_program_writes_all_of_its_output_and_keeps_its_status(tmp_path) -> None:
    """The program ends without taking the interpreter apart: its output must still be
    whole (a report larger than any buffer, the same as :func:`main` prints in this
    process), its exit status :func:`main`'s, on success and on bad input."""
    import contextlib
    import io

    argv = ["met", "--model", "zadeh", "--length", "64", "--format", "json"]  # 80 KB
    proc = _program(f"import sys; sys.argv = ['mathbg', *{argv!r}]", tmp_path)
    assert proc.returncode == 0, proc.stderr
    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        assert main(argv) == 0
    assert len(proc.stdout) > 65536 and proc.stdout == here.getvalue()
    bad = _program("import sys; sys.argv = ['mathbg', 'audit', 'no-such.mat']", tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "no-such.mat" in bad.stderr


def test_the_program_runs_the_exit_handlers(tmp_path) -> None:
    """What an exit must do still happens: :mod:`atexit` handlers run (after the command),
    and so do the finalizers they guard (a temporary directory is removed)."""
    code = ("import atexit, sys, tempfile\n"
            "atexit.register(lambda: print('handler ran'))\n"
            "held = tempfile.TemporaryDirectory()\n"
            "print(held.name)\n"
            "sys.argv = ['mathbg', '--version']")  # fmt: skip
    proc = _program(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("mathbg ") and lines[-1] == "handler ran"
    assert not os.path.exists(lines[0])


def test_the_program_waits_for_its_threads(tmp_path) -> None:
    """A thread still running when the command ends is waited for, as Python does."""
    code = ("import sys, threading, time\n"
            "threading.Thread(target=lambda: (time.sleep(0.5), print('thread done'))).start()\n"
            "sys.argv = ['mathbg', '--version']")  # fmt: skip
    proc = _program(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "thread done"


def test_the_program_piped_into_a_closed_pipe_exits_quietly(tmp_path) -> None:
    """``mathbg ... | head -c 1``: the reader leaves, the program exits 0 without a word."""
    env = dict(os.environ, MATHBG_DATA=str(tmp_path), MPLBACKEND="Agg")
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.run(
        f"'{sys.executable}' -m mathbg met --model zadeh --length 64 --format json "
        f"| head -c 1 > /dev/null; echo ${{PIPESTATUS[0]}}",
        shell=True, executable="/bin/bash", capture_output=True, text=True, env=env,
        timeout=300)  # fmt: skip
    assert proc.stdout.strip() == "0" and proc.stderr == ""


def test_the_program_under_a_profiler_exits_the_normal_way(tmp_path) -> None:
    """``python -m cProfile -o FILE -m mathbg ...``: the profiler writes its file when the
    program ends, which it does only at the normal exit."""
    out = tmp_path / "run.prof"
    env = dict(os.environ, MATHBG_DATA=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "mathbg",
                           "--version"], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
