"""The kernels compiled ahead of time (mathbg._native): the same bits as numba's, the types
their callers pass, and a process that runs them without importing numba."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mathbg import _native
from mathbg.rules.dice import ROLLS
from mathbg.rules.position import Position

REQUIRE = os.environ.get("MATHBG_REQUIRE_EXTRAS") == "1"
MATCH = Path(__file__).resolve().parent.parent / "data" / "matches" / "match10014006.txt"


@pytest.fixture
def built() -> None:
    """Skip unless the extension is built and current (fail in CI, which builds it)."""
    if _native.compiled("net_run") is None:
        if REQUIRE:
            pytest.fail(f"the compiled kernels are not in use: {_native.status()}")
        pytest.skip(f"the compiled kernels are not in use: {_native.status()}")


def test_the_extension_is_used_only_when_built_from_these_sources(monkeypatch, built):
    monkeypatch.setattr(_native, "_module", _native._UNSET)
    monkeypatch.setattr(_native, "digest", lambda: -1)  # sources edited since the build
    assert _native.compiled("net_run") is None
    assert _native.status() == "numba (the compiled extension is older than the kernels' sources)"
    monkeypatch.undo()
    import mathbg._native_kernels as ext

    if int(ext.processor()):  # compiled for this processor's instructions: only here
        assert int(ext.processor()) == _native.processor()
        monkeypatch.setattr(_native, "_module", _native._UNSET)
        monkeypatch.setattr(_native, "processor", lambda: 1)
        assert _native.compiled("exact_shells") is None
        assert _native.status() == "numba (the compiled extension was built for another processor)"
    monkeypatch.setattr(_native, "_module", _native._UNSET)
    monkeypatch.setenv("MATHBG_NATIVE", "0")
    assert _native.compiled("movegen_generate") is None
    assert _native.status() == "numba (MATHBG_NATIVE=0)"
    with pytest.raises(KeyError):
        _native.compiled("no_such_kernel")


def test_every_kernel_the_exports_call_is_in_the_digested_sources():
    """An edit to any function the compiled code is made of changes the digest."""
    import importlib

    from numba.core.registry import CPUDispatcher

    root = Path(_native.__file__).resolve().parent
    seen: set[str] = set()
    todo = [getattr(importlib.import_module(m), f) for m, f in _native.EXPORTS.values()]
    files: set[str] = set()
    while todo:
        disp = todo.pop()
        func = getattr(disp, "py_func", disp)
        if func.__qualname__ + func.__module__ in seen:
            continue
        seen.add(func.__qualname__ + func.__module__)
        files.add(Path(func.__code__.co_filename).resolve().relative_to(root).as_posix())
        codes = [func.__code__]
        names: set[str] = set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
        for name in names:
            obj = func.__globals__.get(name)
            if isinstance(obj, CPUDispatcher) or type(obj).__name__ == "Intrinsic":
                todo.append(getattr(obj, "_defn", obj))
    assert files <= set(_native.SOURCES), files - set(_native.SOURCES)
    assert "bearoff/_play_kernels.py" in _native.SOURCES  # ROLL_WEIGHTS, read by the solver


def _outputs() -> dict[str, object]:
    """Every compiled kernel through its public caller, on contact, race and bearoff boards."""
    from mathbg.analysis.net.engine import best_plays, cached_outputs, evaluate_boards, play_outputs
    from mathbg.analysis.sample import random_positions
    from mathbg.bearoff.exact.match import solve_game
    from mathbg.rules import movegen

    pos = (random_positions(12, seed=5, kind="contact") + random_positions(6, seed=6, kind="race")
           + [Position.initial()])  # fmt: skip
    boards = np.array([np.frombuffer(p.cells, dtype=np.uint8) for p in pos])
    rolls = np.array([ROLLS[(5 * i) % 21] for i in range(len(boards))])
    weights = np.tile([1.0, 1.0, 1.0, -1.0, -1.0], (len(boards), 1)) * np.linspace(
        0.5, 1.5, len(boards))[:, None]  # fmt: skip
    out: dict[str, object] = {
        "evaluate": evaluate_boards(boards),
        "cached": cached_outputs(boards),
        "plays": play_outputs(boards, rolls),
        "best": best_plays(boards, rolls, weights),
        "pruned": best_plays(boards, rolls, weights, keep=3),
        "successors": movegen.successors(boards),
        "counts": movegen.count_plays(boards),
        "generate": [movegen.generate(p.cells, 6, 6) for p in pos[:4]],
        "solve": solve_game(5, 3, (3, 5), "normal", lambda a, b, kind: 0.5 + 0.05 * (b - a)),
    }
    from mathbg.hyper import hyper_met, solve_money, solve_score

    money = solve_money(1, store=False)
    score = solve_score((3, 3), checkers=1, store=False)
    out["hyper money"] = (money.values, tuple(money.opening().probabilities))
    out["hyper score"] = (score.values, score.gammons, score.opening(),
                          score.decision("AACAAAAAAgAAAA").optimal)  # fmt: skip
    out["hyper met"] = hyper_met(1, 3, store=False).mwc((2, 3))
    from mathbg.cube.cubeful import cubeful_mwc_rows

    probs = evaluate_boards(boards)[0]
    n = len(probs)
    from mathbg.analysis.match_audit.plays import board_classes

    out["board classes"] = board_classes(np.concatenate([boards, play_outputs(boards, rolls)[1]]))
    from mathbg.analysis.match_audit.plays import ScoreStates, play_values
    from mathbg.met import as_met

    results, plays_probs = play_outputs(boards, rolls)[1:]
    m = len(results)
    cubes = 2 ** (np.arange(m) % 3)
    states = ScoreStates(np.stack([np.arange(m) % 7 + 1, np.full(m, 5)], axis=1), cubes,
                         np.where(cubes == 1, 0, np.arange(m) % 3), np.zeros(m, bool))  # fmt: skip
    v = play_values(results, plays_probs, states, as_met("kazaross-xg2"))
    out["play values"] = (v.equity, v.mwc, v.cubeless, v.passed)
    from mathbg.analysis.match_audit.plays import single_cube_values
    from mathbg.analysis.match_audit.single import CubeInfo

    rollers = [CubeInfo((1 + k % 7, 5), 2 ** (k % 3), -1 if k % 3 == 0 else k % 2, k % 2, False)
               for k in range(len(probs))]  # fmt: skip
    lives = np.full(len(probs), 0.68, np.float32)
    out["cube values"] = single_cube_values(probs.astype(np.float32), (lives, lives), rollers,
                                            as_met("kazaross-xg2"))  # fmt: skip
    from mathbg.analysis.match_audit.cube import cube_points
    from mathbg.analysis.match_audit.search import cube_values
    from mathbg.rules.formats.example import example_match

    points = cube_points(example_match())[:6:2]
    out["n-ply search"] = [cube_values(points, as_met("kazaross-xg2"), plies) for plies in (1, 2)]
    out["cubeful rows"] = cubeful_mwc_rows(probs, "kazaross-xg2", (np.arange(n) % 7 + 1, 5),
                                           2 ** (np.arange(n) % 3), np.arange(n) % 3, 0.68)
    return out


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and (
            a.tobytes() == b.tobytes())  # fmt: skip
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return isinstance(b, float) and a.hex() == b.hex()
    if hasattr(a, "no_double"):  # a GameSolution
        return _same(a.no_double, b.no_double) and a.states == b.states
    return bool(a == b)


def _shape(ty: object) -> object:
    """A numba type without its read-only flag (the compiled code does not see it)."""
    from numba.core import types as t

    if isinstance(ty, t.Array):
        return ("array", str(ty.dtype), ty.ndim, ty.layout)
    if isinstance(ty, t.BaseTuple):
        return tuple(_shape(x) for x in ty.types)
    return str(ty)


@pytest.mark.slow  # compiles numba's kernels (about 30 CPU-s on a cold cache)
def test_compiled_kernels_give_numbas_bits_on_the_types_their_callers_pass(monkeypatch, built):
    import importlib

    from mathbg.analysis.net import engine
    from mathbg.rules import movegen

    compiled = _outputs()
    monkeypatch.setattr(_native, "_module", None)  # numba's kernels from here on
    monkeypatch.setattr(engine._LOCAL, "work", None)  # a fresh position cache
    monkeypatch.setattr(movegen, "_port_calls_left", 0)  # the kernel, not the Python port
    from mathbg.hyper import space

    space.space.cache_clear()  # the Hypergammon play tables made again, by numba's kernels
    jitted = _outputs()
    for key, value in compiled.items():
        assert _same(value, jitted[key]), key
    # numba compiled each kernel for exactly the types the compiled function takes
    for name, sig in _native.signatures().items():
        module, function = _native.EXPORTS[name]
        disp = getattr(importlib.import_module(module), function)
        assert disp.signatures, name
        for got in disp.signatures:
            assert tuple(_shape(a) for a in got) == tuple(_shape(a) for a in sig.args), name


def test_an_audit_runs_without_numba(built):
    """The point of the extension: numba's import and its cache's load are not paid (once
    the default two-sided database is built: its first build runs numba's kernels)."""
    from mathbg.bearoff import TwoSided

    TwoSided.largest(cubeful=True) or TwoSided.build(6, 6)
    code = ("import sys; from mathbg.cli import main; rc = main(['audit', sys.argv[1]]); "
            "print('numba' in sys.modules, 'mathbg.analysis.rollouts' in sys.modules, rc)")
    done = subprocess.run([sys.executable, "-c", code, str(MATCH)], capture_output=True,
                          text=True, check=True)  # fmt: skip
    # nor the rollouts, which only a re-check runs
    assert done.stdout.strip().splitlines()[-1] == "False False 0", done.stderr


def test_the_engine_refuses_rolls_that_do_not_match_its_boards():
    """The compiled kernel reads a roll for every board: a short list is refused first."""
    from mathbg.analysis.net.engine import play_outputs
    from mathbg.errors import InvalidParameterError

    board = np.frombuffer(Position.initial().cells, dtype=np.uint8)
    with pytest.raises(InvalidParameterError, match="2 boards need 2 rolls"):
        play_outputs(np.stack([board, board]), [(3, 1)])
