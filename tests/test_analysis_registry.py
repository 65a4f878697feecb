"""The engine registry: names, lookup errors, availability, registration, the CLI's choices."""

from __future__ import annotations

import pytest

from mathbg.analysis import (
    ENGINES,
    EngineNotAvailableError,
    UnknownEngineError,
    engine_help,
    engines,
    get_evaluator,
    register_engine,
)
from mathbg.analysis import evaluation as evmod
from mathbg.analysis.evaluation import GivenEvaluator
from mathbg.analysis.registry import engine_spec, unregister_engine
from mathbg.cli import main
from mathbg.errors import InvalidParameterError

SHIPPED = ("auto", "exact", "race", "native", "gnubg-nn", "gnubg", "given")


def test_shipped_engines_listed():
    assert engines()[: len(SHIPPED)] == SHIPPED
    assert tuple(ENGINES) == engines() and "race" in ENGINES and "nope" not in ENGINES
    assert engine_spec(" GNUBG-NN ").extra == "engine"


def test_unknown_engine_names_the_choices():
    with pytest.raises(UnknownEngineError, match="choose one of auto, exact, race") as info:
        get_evaluator("nope")
    assert isinstance(info.value, InvalidParameterError)
    assert str(info.value).startswith("unknown engine 'nope'")


def test_missing_engine_names_the_extra(monkeypatch):
    monkeypatch.setattr(evmod, "gnubg_nn_installed", lambda: False)
    with pytest.raises(EngineNotAvailableError, match=r"pip install 'mathbg\[engine\]'"):
        get_evaluator("gnubg-nn", plies=1)


def test_register_engine_round_trip(monkeypatch):
    calls = []

    def factory(plies: int = 0) -> GivenEvaluator:
        calls.append(plies)
        return GivenEvaluator([0.5, 0.1, 0.0, 0.1, 0.0])

    register_engine("test-coin", factory, extra="coin", help="a coin")
    try:
        assert "test-coin" in engines() and "test-coin" in ENGINES
        assert "test-coin (a coin; pip install 'mathbg[coin]')" in engine_help()
        get_evaluator("test-coin")
        get_evaluator("Test-Coin", plies=2)
        assert calls == [0, 2]
        with pytest.raises(InvalidParameterError, match="already registered"):
            register_engine("test-coin", factory)
        register_engine("test-coin", factory, available=lambda: False, extra="coin",
                        replace=True)  # fmt: skip
        with pytest.raises(EngineNotAvailableError, match=r"mathbg\[coin\]"):
            get_evaluator("test-coin")
    finally:
        unregister_engine("test-coin")
    assert "test-coin" not in engines()
    with pytest.raises(InvalidParameterError, match="options"):
        register_engine("bad", factory, options=("depth",))


def test_options_checked_per_engine():
    with pytest.raises(InvalidParameterError, match="plies"):
        get_evaluator("race", plies=1)
    with pytest.raises(InvalidParameterError, match="--probs goes with"):
        get_evaluator("race", probabilities=[0.5, 0, 0, 0, 0])
    assert get_evaluator("auto", probabilities=[0.5, 0, 0, 0, 0]).name == "given"


def test_cli_choices_come_from_the_registry(capsys):
    assert main(["analyze", "--help"]) == 0
    out = capsys.readouterr().out
    assert "gnubg-nn (gnubg's networks; pip install 'mathbg[engine]')" in " ".join(out.split())
    assert main(["analyze", "4HPwATDgc/ABMA", "--engine", "nope"]) == 2
    assert "choose from 'auto', 'exact'" in capsys.readouterr().err


def _engine_choices(command: list[str]) -> tuple[str, ...]:
    """The --engine choices of a command, as its parser offers them."""
    import argparse

    from mathbg.cli import build_parser

    parser = build_parser()
    for name in command:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    (action,) = [a for a in parser._actions if "--engine" in a.option_strings]
    return tuple(action.choices or ())


#: Every command with an --engine flag (a new command with one belongs here).
ENGINE_COMMANDS = (["analyze"], ["audit"], ["corpus"], ["met"], ["rollout"])


def test_every_engine_flag_is_listed_here():
    """The commands with an --engine flag are the ones this file checks."""
    import argparse

    from mathbg.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    found = [[name] for name, p in sub.choices.items()
             if any("--engine" in a.option_strings for a in p._actions)]  # fmt: skip
    assert sorted(found) == sorted(ENGINE_COMMANDS)


def test_a_planted_engine_is_offered_by_every_command_that_evaluates():
    """Every --engine flag takes its choices from the registry, by capability."""
    register_engine("test-planted", lambda plies=0: GivenEvaluator([0.6, 0.1, 0.0, 0.1, 0.0]),
                    help="planted by a test")  # fmt: skip
    try:
        for command in (["analyze"], ["audit"], ["corpus"]):
            assert "test-planted" in _engine_choices(command), command
        assert "given" in _engine_choices(["analyze"])
        assert "given" not in _engine_choices(["audit"])  # fixed chances judge no match
        assert "test-planted" not in _engine_choices(["met"])  # it cannot play
    finally:
        unregister_engine("test-planted")
    assert "test-planted" not in _engine_choices(["audit"])


def test_a_planted_engine_that_plays_is_offered_everywhere_and_plays_a_game(capsys):
    """One registration: an engine that evaluates and plays (its player picks a legal play
    with mathbg's own move generator) appears in every command's --engine choices and
    plays a self-play table, from the API and from the command line."""
    import numpy as np
    from instant_engine import plant_legal

    from mathbg.analysis import selfplay_met

    plant_legal("test-legal")
    try:
        for command in ENGINE_COMMANDS:
            assert "test-legal" in _engine_choices(command), command
        assert "test-legal" in engines("play") and "test-legal" in engines("evaluate")
        met = selfplay_met(2, games=30, batch_size=30, engine="test-legal", progress=False)
        scores = met.frames["scores"]
        # the Crawford game has no cube: whole games, played to the end by the planted player
        assert scores["games"].tolist() == [30, 30]
        assert scores.set_index("state").loc["crawford", "mean_rolls"] > 10
        assert 0.0 <= met.pre[1, 0] <= 1.0 and np.isfinite(met.stderr[1, 0])
        assert met.source.startswith("mathbg self-play, legal (fewest pips), 30 games")
        assert main(["met", "--model", "selfplay", "--length", "2", "--games", "30",
                     "--engine", "test-legal", "--format", "json"]) == 0  # fmt: skip
        assert '"players": [{"engine": "test-legal"' in capsys.readouterr().out
    finally:
        unregister_engine("test-legal")
    assert "test-legal" not in _engine_choices(["met"])


def test_capabilities_are_checked():
    with pytest.raises(InvalidParameterError, match="capabilities"):
        register_engine("bad", GivenEvaluator, capabilities=("fly",))
    with pytest.raises(InvalidParameterError, match="player factory"):
        register_engine("bad", GivenEvaluator, capabilities=("evaluate", "play"))
    with pytest.raises(InvalidParameterError, match="player options"):
        register_engine("bad", None, capabilities=("play",), player=object,
                        player_options=("speed",))  # fmt: skip
    assert "bad" not in engines()


def test_players_come_from_the_registry():
    from mathbg.analysis import get_player

    assert engines("play")[:4] == ("auto", "exact", "native", "gnubg-nn")
    assert get_player("exact").own_cube
    with pytest.raises(InvalidParameterError, match="does not play; choose one of auto, exact"):
        get_player("race")
    with pytest.raises(InvalidParameterError,
                       match="plies apply to auto, native, gnubg-nn, not to exact"):  # fmt: skip
        get_player("exact", plies=1)
    with pytest.raises(UnknownEngineError):
        get_player("nope")


def test_a_player_only_engine_does_not_evaluate():
    register_engine("test-mover", None, capabilities=("play",), player=lambda: None,
                    player_options=())  # fmt: skip
    try:
        assert "test-mover" in engines("play") and "test-mover" not in engines("evaluate")
        with pytest.raises(InvalidParameterError, match="does not evaluate positions"):
            get_evaluator("test-mover")
    finally:
        unregister_engine("test-mover")


def test_missing_player_names_the_extra(monkeypatch):
    from mathbg.analysis import get_player

    monkeypatch.setattr(evmod, "gnubg_nn_installed", lambda: False)
    with pytest.raises(EngineNotAvailableError, match=r"pip install 'mathbg\[engine\]'"):
        get_player("gnubg-nn", noise=0.1)
