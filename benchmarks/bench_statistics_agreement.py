"""Agreement, not speed: mathbg's ``show statistics match`` against gnubg 1.07's own, line by
line, on every shared match (issue 32's goal: every statistic equal to the digits gnubg
prints).

Run: ``python benchmarks/bench_statistics_agreement.py [--engine native gnubg] [--limit N]``.

For each match gnubg 1.07 imports it and runs ``analyse match`` at 0 plies in one
long-lived ``gnubg -t`` process (``show statistics match``: its text), and mathbg audits
it (``audit(..., exact=False, take_points=False)``, the statistics gnubg's analysis
defines) with each engine asked for:

- ``native``: gnubg 1.07's networks in mathbg's kernels, mathbg's cube step (double
  precision) and luck;
- ``gnubg``: the values of gnubg's own analysis, mathbg's statistics of them.

Printed per engine: the matches and lines compared, the lines that differ, split into those
that differ by one unit in their last digit and the rest, each kind's count by the line's
label, and the matches where gnubg scores a game differently from the file (the actual
result lines: Backgammon Galaxy writes some gammons as singles, which mathbg reads as the
Jacoby rule and gnubg re-scores by the board). Takes about 3 minutes an engine.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import add_tests_to_path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" / "matches" / "galaxy" for d in ROOT.parents
               if (d / "shared" / "matches" / "galaxy").is_dir()), ROOT / "data" / "matches")
#: The lines that follow from a game's result as scored (see the module notes).
RESULT_LINES = ("Actual result", "Luck adjusted result", "Luck based FIBS rating")
NUMBER = re.compile(r"-?\d+\.\d+")


def one_unit(a: str, b: str) -> bool:
    """The two lines differ only in numbers, each by at most one unit in its last digit."""
    if NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    return all(abs(float(x) - float(y)) <= 10.0 ** -len(x.split(".")[1]) * 1.01
               for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True))  # fmt: skip


class Recorded:
    """The gnubg engine, keeping gnubg's statistics text of each analysis."""

    def __init__(self, peer: Any) -> None:
        self.peer = peer
        self.name, self.plies = "gnubg", 0
        self.texts: list[str] = []
        self.evaluate_many = peer.evaluate_many

    def analyse_match(self, record: Any) -> Any:
        out = self.peer.analyse_match(record, statistics=True)
        self.texts.append(out["statistics"])
        return out


def compare(engine: str, paths: list[Path]) -> None:
    add_tests_to_path()
    from gnubg_match_peer import statistics_block

    from mathbg.analysis import audit
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.rules.formats import read_match

    peer = GnubgEvaluator(plies=0)
    recorded = Recorded(peer)
    lines = 0
    units: Counter[str] = Counter()
    others: Counter[str] = Counter()
    unit_matches: set[str] = set()
    rescored: set[str] = set()
    start = time.perf_counter()
    for path in paths:
        rec = read_match(path)
        if engine == "gnubg":
            res = audit(rec, engine=recorded, exact=False, take_points=False)
            ref = statistics_block(recorded.texts[-1])
        else:
            ref = statistics_block(peer.analyse_match(rec, statistics=True)["statistics"])
            res = audit(rec, engine=engine, exact=False, take_points=False)
        ours = res.matches[0].statistics_text().rstrip("\n").splitlines()
        lines += len(ref)
        if len(ours) != len(ref):
            others[f"{path.name}: {len(ours)} lines, gnubg {len(ref)}"] += 1
            continue
        diff = [(a, b) for a, b in zip(ref, ours, strict=True) if a != b]
        if any(a.startswith("Actual result") for a, _ in diff):
            rescored.add(path.name)
            diff = [(a, b) for a, b in diff if not a.startswith(RESULT_LINES)]
        for a, b in diff:
            label = re.split(r"\s{2,}", a.strip())[0]
            if one_unit(a, b):
                units[label] += 1
                unit_matches.add(path.name)
            else:
                others[f"{path.name}: {a.strip()} | {b.strip()}"] += 1
    print(f"engine {engine}: {len(paths)} matches, {lines} lines of gnubg's `show statistics "
          f"match` ({time.perf_counter() - start:.0f} s)")
    print(f"  lines that differ by one unit in the last digit: {sum(units.values())}, in "
          f"{len(unit_matches)} matches")
    for label, n in units.most_common():
        print(f"    {n:4d}  {label}")
    print(f"  other differences: {sum(others.values())}")
    for what in others:
        print(f"    {what}")
    print(f"  matches gnubg scores differently (their {', '.join(RESULT_LINES)} lines left "
          f"out): {len(rescored)} {sorted(rescored)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", nargs="+", default=["native", "gnubg"],
                        choices=["native", "gnubg"])  # fmt: skip
    parser.add_argument("--limit", type=int, default=None, help="the first N matches only")
    args = parser.parse_args()
    paths = sorted(SHARED.glob("*.txt"))[: args.limit]
    for engine in args.engine:
        compare(engine, paths)


if __name__ == "__main__":
    main()
