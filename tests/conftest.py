"""Shared fixtures: the gnubg reference peer, and the fast lane's CPU budget.

Differential tests against gnubg come in two kinds, and each says which in its ``gnubg``
marker (``@pytest.mark.gnubg(kind=...)``; a test that uses the ``gnubg`` fixture without a
kind fails at collection):

- ``kind="exact"``: gnubg's 0-ply network outputs and exact quantities (bearoff databases,
  match equity tables, market windows, legal plays, IDs). These are bit-reproducible across
  machines, so they are compared tightly (to the digits gnubg prints or stores), with the
  live gnubg or with numbers it once printed.
- ``kind="multi-ply"``: gnubg's 2-ply and deeper evaluations (with pruning), which are not
  bit-reproducible across processors (gnubg 1.07.001 on two x86-64 machines: up to 2.9e-4
  at 2-ply and 3.2e-4 at 3-ply in win chance, :data:`gnubg_peer.GNUBG_MULTIPLY_SPREAD`).
  They are compared with the live gnubg on the same machine; a number gnubg once printed
  (a shipped file, a constant in a test) is compared only to that spread.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from gnubg_peer import GnubgPeer, find_peer

REQUIRE_GNUBG = os.environ.get("MATHBG_REQUIRE_GNUBG") == "1"
#: MATHBG_REQUIRE_EXTRAS=1 (CI sets it): a test of an optional extra fails, not skips, when
#: the extra is missing.
REQUIRE_EXTRAS = os.environ.get("MATHBG_REQUIRE_EXTRAS") == "1"

#: The optional extras of pyproject.toml and the modules each brings: a test marked
#: ``@pytest.mark.extra("engine")`` (or several names) needs them.
EXTRAS: dict[str, tuple[str, ...]] = {
    "engine": ("gnubg_nn",),
    "dask": ("dask", "distributed", "fsspec"),
    "docs": ("sphinx", "docutils", "myst_nb", "pydata_sphinx_theme"),
    "notebooks": ("nbformat", "nbclient", "ipykernel"),
}


def missing_extras(names: tuple[str, ...]) -> list[str]:
    """The extras among ``names`` with a module that cannot be found."""
    import importlib.util

    unknown = [n for n in names if n not in EXTRAS]
    if unknown:
        raise pytest.UsageError(f"unknown extra(s) {unknown}: tests/conftest.py EXTRAS knows "
                                f"{sorted(EXTRAS)}")  # fmt: skip
    return [n for n in names if any(importlib.util.find_spec(m) is None for m in EXTRAS[n])]


@pytest.fixture(autouse=True)
def _needs_extras(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.extra(name, ...)``: skip without the extra (fail under
    MATHBG_REQUIRE_EXTRAS=1)."""
    names = tuple(n for m in request.node.iter_markers("extra") for n in m.args)
    if request.node.get_closest_marker("dask") is not None:
        names += ("dask",)
    missing = missing_extras(names) if names else []
    if missing:
        need = " ".join(f"pip install 'mathbg[{n}]'" for n in missing)
        if REQUIRE_EXTRAS:
            pytest.fail(f"needs the {', '.join(missing)} extra ({need}); "
                        "MATHBG_REQUIRE_EXTRAS=1 forbids skipping")  # fmt: skip
        pytest.skip(f"needs the {', '.join(missing)} extra: {need}")


@pytest.fixture(scope="session")
def gnubg() -> GnubgPeer:
    """The installed gnubg; skips (or fails under MATHBG_REQUIRE_GNUBG=1) when absent."""
    peer = find_peer()
    if peer is None:
        reason = (
            "gnubg (the reference peer) is not installed: "
            "apt-get install -y gnubg, or run bash .ci/run"
        )
        if REQUIRE_GNUBG:
            pytest.fail(reason + " (MATHBG_REQUIRE_GNUBG=1 forbids skipping)")
        pytest.skip(reason)
    return peer


# ----------------------------------------------------------------------------- the fast lane
#
# `pytest -m "not slow"` is the fast lane (CI's first stage). A test that is not marked
# `slow` fails when its call phase spends more than FAST_CPU_BUDGET seconds of CPU time
# (time.process_time of the test process: all its threads). CPU time, not wall time, so the
# verdict does not depend on how loaded the machine is; numba compiling mathbg's kernels on
# first use is not counted (a cold cache costs every process the same compile once, whichever
# test comes first); the CPU of its subprocesses (a CLI or gnubg run in a child process) is. Set
# MATHBG_FAST_CPU_BUDGET to change the budget (0 turns the check off), and
# MATHBG_TEST_CPU_LOG=PATH to append every test's "nodeid<TAB>cpu<TAB>compile<TAB>setup
# <TAB>children" to PATH (setup: its fixtures' CPU; children: its subprocesses' CPU).

FAST_CPU_BUDGET = float(os.environ.get("MATHBG_FAST_CPU_BUDGET", "5"))
_COMPILE_CPU = [0.0]  # CPU seconds numba spent compiling in this process so far


def _watch_numba_compiles() -> None:
    from numba.core import event

    class _CompileClock(event.Listener):  # type: ignore[misc]
        depth = 0
        started = 0.0

        def on_start(self, ev: object) -> None:
            self.depth += 1
            if self.depth == 1:
                self.started = time.process_time()

        def on_end(self, ev: object) -> None:
            self.depth -= 1
            if self.depth == 0:
                _COMPILE_CPU[0] += time.process_time() - self.started

    event.register("numba:compile", _CompileClock())


GNUBG_KINDS = ("exact", "multi-ply")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that runs gnubg says which kind of differential test it is."""
    missing = []
    for item in items:
        if "gnubg" not in getattr(item, "fixturenames", ()):
            continue
        kinds = {m.kwargs.get("kind") for m in item.iter_markers("gnubg")}
        if not kinds or not kinds <= set(GNUBG_KINDS):
            missing.append(f"{item.nodeid}: {sorted(map(str, kinds)) or 'no gnubg marker'}")
    if missing:
        raise pytest.UsageError(
            "tests that run gnubg need @pytest.mark.gnubg(kind='exact' | 'multi-ply') "
            "(tests/conftest.py explains the kinds):\n" + "\n".join(missing)
        )


def pytest_configure(config: pytest.Config) -> None:
    from mathbg._compile import after_numba_import

    after_numba_import(_watch_numba_compiles)  # without importing numba
    # `-n N` (pytest-xdist): whole test files to a worker (xdist's `--dist loadfile`) rather
    # than single tests, so that two workers do not both compile, at the same time, the numba
    # kernels a file's tests share while the cache is still cold. Another --dist is kept.
    option = config.option
    if getattr(option, "numprocesses", None) and getattr(option, "dist", "") == "load":
        option.dist = "loadfile"


def _children_cpu() -> float:
    """CPU seconds of this process's children: those waited for, and those still running
    (a long-lived gnubg session a test leaves for the next one). The difference of two
    readings is the children's CPU between them, whether a child ended in between or not."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + _live_children_cpu()


def _live_children_cpu() -> float:
    """CPU seconds so far of this process's running children (Linux's /proc; 0 elsewhere)."""
    if not os.path.isdir("/proc/self"):
        return 0.0
    me, tick, total = os.getpid(), os.sysconf("SC_CLK_TCK"), 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()  # after "pid (comm)"
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 12 and int(fields[1]) == me:  # ppid; utime and stime in ticks
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):  # type: ignore[no-untyped-def]
    cpu, children = time.process_time(), _children_cpu()
    yield
    item.stash[_SETUP_KEY] = (time.process_time() - cpu, _children_cpu() - children)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    cpu, compiled, children = time.process_time(), _COMPILE_CPU[0], _children_cpu()
    yield
    compiled = _COMPILE_CPU[0] - compiled
    item.stash[_CPU_KEY] = (
        time.process_time() - cpu - compiled,
        compiled,
        _children_cpu() - children,
    )


_SETUP_KEY = pytest.StashKey[tuple[float, float]]()
_CPU_KEY = pytest.StashKey[tuple[float, float, float]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or _CPU_KEY not in item.stash:
        return
    cpu, compiled, children = item.stash[_CPU_KEY]
    setup, setup_children = item.stash.get(_SETUP_KEY, (0.0, 0.0))
    log = os.environ.get("MATHBG_TEST_CPU_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(
                f"{item.nodeid}\t{cpu:.3f}\t{compiled:.3f}\t{setup:.3f}"
                f"\t{children + setup_children:.3f}\n"
            )
    if (
        report.passed
        and 0 < FAST_CPU_BUDGET < cpu + children
        and item.get_closest_marker("slow") is None
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} spent {cpu + children:.1f} s of CPU time (its subprocesses included, "
            "numba's compiling excluded), over "
            f"the fast lane's budget of {FAST_CPU_BUDGET:g} s: mark it @pytest.mark.slow "
            "(or make it faster)"
        )
