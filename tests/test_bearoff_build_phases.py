"""The phases a two-sided build reports (blocks, assembly, checksum): wall and CPU time.

No timings are asserted, only what holds for any clock: every phase is non-negative and
the phases, disjoint intervals of the build, add up to no more than its total (wall time
and process CPU time are both monotonic).
"""

from __future__ import annotations

import time

import pytest

from mathbg.bearoff import TwoSided
from mathbg.bearoff.generate.phases import PhaseClock

PHASES = ("blocks", "assembly", "checksum")


def _check(report) -> None:  # type: ignore[no-untyped-def]
    assert tuple(p.name for p in report.phases) == PHASES
    for p in (*report.phases, report.total):
        assert p.wall >= 0.0 and p.cpu >= 0.0
    assert sum(p.wall for p in report.phases) <= report.total.wall
    assert sum(p.cpu for p in report.phases) <= report.total.cpu + 1e-9


@pytest.mark.parametrize("memory", [None, "1GiB"])
def test_a_tiny_build_reports_its_phases(tmp_path, memory):
    db = TwoSided.build(3, 3, dtype="u16", memory=memory, path=tmp_path / "db", progress=False)
    _check(db.build_report)
    assert db.build_report["blocks"] is db.build_report.phases[0]
    line = db.build_report.line()
    assert line.startswith("phases: blocks ") and "assembly" in line and "checksum" in line
    # a database found at the target is reused: no build, no report
    again = TwoSided.build(3, 3, dtype="u16", memory=memory, path=tmp_path / "db", progress=False)
    assert again.build_report is None


def test_the_cli_prints_the_phases_of_a_two_sided_build(tmp_path, capsys):
    from mathbg.cli import main

    argv = ["bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
            "--cubeless-only", "--out", str(tmp_path / "db"), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("phases: blocks ") and lines[-1].endswith("cores)")
    assert main(argv) == 0  # reused: nothing built, no phases line
    assert not any(x.startswith("phases:") for x in capsys.readouterr().out.splitlines())


def test_phase_clock_counts_cpu_of_busy_work_and_not_of_sleep():
    clock = PhaseClock()
    with clock.phase("sleep"):
        time.sleep(0.05)
    with clock.phase("spin"):
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass
    with pytest.raises(RuntimeError), clock.phase("failed"):
        raise RuntimeError
    report = clock.report()
    assert [p.name for p in report.phases] == ["sleep", "spin", "failed"]
    assert report["sleep"].wall >= 0.05 and report["sleep"].cpu < report["sleep"].wall
    assert report["spin"].cpu >= 0.05
    with pytest.raises(KeyError):
        report["nothing"]
