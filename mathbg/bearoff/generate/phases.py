"""Wall and CPU time of a build's phases (blocks, assembly, checksum), cheap to record.

CPU time is the whole process's (:func:`time.process_time`: user + system time of every
thread, numba's workers and the block writer included), so ``cpu / wall`` is the number of
cores the phase kept busy. Each phase costs two clock reads at its start and end.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["BuildReport", "Phase", "PhaseClock"]


@dataclass(frozen=True)
class Phase:
    """One phase of a build: its name, wall seconds and CPU seconds (all threads)."""

    name: str
    wall: float
    cpu: float

    @property
    def cores(self) -> float:
        """Cores in use on average (CPU seconds / wall seconds)."""
        return self.cpu / self.wall if self.wall > 0 else 0.0


@dataclass(frozen=True)
class BuildReport:
    """The phases of one build and its total (the phases plus whatever ran between them)."""

    phases: tuple[Phase, ...]
    total: Phase

    def __getitem__(self, name: str) -> Phase:
        for phase in self.phases:
            if phase.name == name:
                return phase
        raise KeyError(name)

    def line(self) -> str:
        """One line: ``phases: blocks 1.2 s wall 2.0 s CPU, ...; total ... (1.6 cores)``."""
        parts = [f"{p.name} {p.wall:.2f} s wall {p.cpu:.2f} s CPU" for p in self.phases]
        t = self.total
        return (
            f"phases: {', '.join(parts)}; total {t.wall:.2f} s wall {t.cpu:.2f} s CPU "
            f"({t.cores:.2f} cores)"
        )


@dataclass
class PhaseClock:
    """Times named phases from its creation on; :meth:`report` sums them up."""

    _wall0: float = field(default_factory=time.perf_counter)
    _cpu0: float = field(default_factory=time.process_time)
    _phases: list[Phase] = field(default_factory=list)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the ``with`` body as phase ``name`` (recorded even when it raises)."""
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self._phases.append(Phase(name, time.perf_counter() - wall, time.process_time() - cpu))

    def report(self) -> BuildReport:
        """The phases so far and the total since the clock was created."""
        total = Phase("total", time.perf_counter() - self._wall0, time.process_time() - self._cpu0)
        return BuildReport(tuple(self._phases), total)
