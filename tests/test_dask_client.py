"""``--scheduler``: one spelling, one behaviour and one set of errors in every command
(:mod:`mathbg._dask`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mathbg._dask import check_scheduler, dask_client
from mathbg.cli import build_parser
from mathbg.errors import InvalidParameterError

TESTS = Path(__file__).resolve().parent
MATCHES = TESTS / "data" / "matches"


def _scheduler_actions() -> dict[str, argparse.Action]:
    """Every (sub)command's --scheduler option, by the command's name."""
    found: dict[str, argparse.Action] = {}

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if "--scheduler" in action.option_strings:
                found[name] = action
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}".strip())

    walk(build_parser(), "")
    return found


def test_every_scheduler_option_is_spelled_and_explained_the_same() -> None:
    actions = _scheduler_actions()
    assert {"bearoff build", "corpus", "met"} <= set(actions)
    helps = {a.help.split("run ", 1)[1].split(" on Dask: ", 1)[1] for a in actions.values()}
    assert len(helps) == 1 and "local:N" in helps.pop()
    assert {a.metavar for a in actions.values()} == {"SCHEDULER"}


@pytest.mark.parametrize("good", ["local", "local:1", "LOCAL:4", "tcp://10.0.0.5:8786", "h:1"])
def test_good_spellings_pass(good: str) -> None:
    check_scheduler(good)


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ("local:0", "local:N"),
        ("local:x", "local:N"),
        ("garbage", "no HOST:PORT"),
        ("inproc://x", "inproc"),
        ("bogus://h:1", "unknown protocol"),
        ("tcp://h:99999", "no HOST:PORT"),
    ],
)
def test_bad_spellings_are_refused_in_one_line(bad: str, named: str) -> None:
    with pytest.raises(InvalidParameterError, match=named):
        check_scheduler(bad)


@pytest.mark.parametrize("command", [["corpus", str(MATCHES)], ["met", "--model", "selfplay"]])
def test_every_command_refuses_a_bad_scheduler_before_any_work(command, capsys) -> None:
    from mathbg.cli import main

    status = main([*command, "--scheduler", "local:0"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "local:N" in err


def test_no_scheduler_no_client() -> None:
    with dask_client(None) as client:
        assert client is None


@pytest.mark.slow  # a LocalCluster and a corpus run: a few CPU-s
@pytest.mark.dask
def test_corpus_runs_on_local_n(capsys) -> None:
    """The spelling notebook 09 recommends works for corpus as it does for met."""
    pytest.importorskip("distributed")
    from mathbg.cli import main

    files = sorted(MATCHES.glob("*.txt"))[:2]
    assert main(["corpus", *map(str, files), "--scheduler", "local:1", "--json"]) == 0
    assert '"files"' in capsys.readouterr().out


@pytest.mark.slow  # a LocalCluster: a few CPU-s
@pytest.mark.dask
def test_a_local_cluster_says_nothing_when_the_dashboard_port_is_taken() -> None:
    """``local:N`` beside another cluster (or a second mathbg run): distributed's default
    port 8787 is taken, and the run prints no "Port 8787 is already in use" warning."""
    import socket
    import warnings

    pytest.importorskip("distributed")
    holder = socket.socket()
    try:
        holder.bind(("", 8787))  # taken already: the case under test all the same
        holder.listen()
    except OSError:
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with dask_client("local:1") as client:
                assert client.submit(sum, [1, 2]).result() == 3
    finally:
        holder.close()
    assert not [w for w in caught if "already in use" in str(w.message)]
