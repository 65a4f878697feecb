"""Agreement, not speed: mathbg's ``show statistics match`` against gnubg 1.07's own, line by
line, on every shared match (issue 32's goal: every statistic equal to the digits gnubg
prints).

Run: ``python benchmarks/bench_statistics_agreement.py [--engine native gnubg sgf money]
[--limit N]``.

For each match gnubg 1.07 imports it and runs ``analyse match`` at 0 plies in one
long-lived ``gnubg -t`` process (``show statistics match``: its text), and mathbg audits
it (``audit(..., exact=False, take_points=False)``, the statistics gnubg's analysis
defines) with each engine asked for:

- ``native``: gnubg 1.07's networks in mathbg's kernels, gnubg's cube step and luck to
  the bit (``mathbg.analysis.match_audit.single``);
- ``gnubg``: the values of gnubg's own analysis, mathbg's statistics of them;
- ``sgf``: the native engine's analysis written back as ``.sgf`` (``audit --sgf``), which
  gnubg loads (``load match``) and recomputes its statistics from; the lines that differ are
  set against gnubg's own round trip of the match (``analyse match``, ``save match``,
  ``load match``), which shifts some last digits too (the file's values are rounded);
- ``money``: each match replayed as a money session (Jacoby rule on, as gnubg imports
  one), the native engine's statistics against gnubg's (not run by default).

Printed per engine: the matches and lines compared, the lines that differ, split into those
that differ by one unit in their last digit and the rest, each kind's count by the line's
label, and the matches where gnubg scores a game differently from the file (the actual
result lines: Backgammon Galaxy writes some gammons as singles, which mathbg reads as the
Jacoby rule and gnubg re-scores by the board). Takes 1-3 minutes an engine.
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

    def analyse_match(self, record: Any, **options: Any) -> Any:  # the audit's own options
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
    plays_decided = plays_other = 0
    start = time.perf_counter()
    for path in paths:
        rec = read_match(path)
        if engine == "gnubg":
            res = audit(rec, engine=recorded, exact=False, take_points=False)
            ref = statistics_block(recorded.texts[-1])
        else:
            analysis = peer.analyse_match(rec, statistics=True)
            ref = statistics_block(analysis["statistics"])
            res = audit(rec, engine=engine, exact=False, take_points=False)
            decided, other_best = best_plays(rec, analysis, res.plays)
            plays_decided += decided
            plays_other += other_best
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
    if plays_decided:
        print(f"  rolls where gnubg's two best plays differ by more than 1e-4: {plays_decided}; "
              f"mathbg's best play is another in {plays_other}")


def best_plays(record: Any, analysis: Any, plays: Any) -> tuple[int, int]:
    """Of the rolls where gnubg's two best plays differ by more than 1e-4: how many, and in
    how many mathbg's best play leaves another position than gnubg's."""
    from mathbg.analysis.match_audit.turns import match_turns

    moves = [a for g in analysis["games"] for a in g["game"] if a["action"] == "move"]
    decided = other = 0
    for p, a, t in zip(plays, moves, match_turns(record), strict=True):
        listed = (a.get("analysis") or {}).get("moves") or []
        if len(listed) < 2 or listed[0]["score"] - listed[1]["score"] <= 1e-4:
            continue
        decided += 1
        text = " ".join(f"{'bar' if f == 25 else f}/{'off' if s == 0 else s}"
                        for f, s in listed[0]["move"])  # fmt: skip
        legal = t.position.legal_plays(t.dice)
        other += legal.parse(text).next_position != legal.parse(p.best).next_position
    return decided, other


def reloaded(paths: list[Path]) -> None:
    """gnubg's statistics of the analysed ``.sgf`` mathbg writes, against mathbg's."""
    import tempfile

    add_tests_to_path()
    from gnubg_match_peer import statistics_block
    from gnubg_peer import find_peer

    from mathbg.analysis import audit
    from mathbg.analysis.match_audit.sgf import analysed_sgf
    from mathbg.rules.formats import read_match

    peer = find_peer()
    assert peer is not None, "gnubg is not installed"
    same = 0
    own: list[str] = []
    other: list[str] = []
    rescored: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            rec = read_match(path)
            m = audit(rec, engine="native", exact=False, take_points=False).matches[0]
            sgf = Path(tmp) / f"{path.stem}.sgf"
            sgf.write_text(analysed_sgf(rec, m))
            ours = m.statistics_text().rstrip("\n").splitlines()
            theirs = statistics_block(peer.run_commands([f"load match {sgf}",
                                                         "show statistics match"]))  # fmt: skip
            diff = {a for a, b in zip(theirs, ours, strict=True) if a != b}
            if len(theirs) != len(ours):
                other.append(f"{path.name}: {len(theirs)} lines, ours {len(ours)}")
                continue
            if any(a.startswith("Actual result") for a in diff):
                rescored.append(path.name)
                diff = {a for a in diff if not a.startswith(RESULT_LINES)}
            if not diff:
                same += 1
                continue
            # gnubg's own round trip of the same match: analyse, save, load
            saved = Path(tmp) / f"{path.stem}-gnubg.sgf"
            first = statistics_block(peer.run_commands([
                "set analysis chequerplay evaluation plies 0",
                "set analysis cubedecision evaluation plies 0", f"import mat {path}",
                "analyse match", "show statistics match", f"save match {saved}"]))
            again = statistics_block(peer.run_commands([f"load match {saved}",
                                                        "show statistics match"]))  # fmt: skip
            shifted = {b for a, b in zip(first, again, strict=True) if a != b}
            for line in sorted(diff):
                (own if line in shifted else other).append(f"{path.name}: {line.strip()}")
    print(f"sgf: gnubg loads mathbg's analysed .sgf of {len(paths)} matches "
          f"({time.perf_counter() - start:.0f} s); its statistics are mathbg's, line for "
          f"line, in {same}")
    print(f"  lines that differ as they do in gnubg's own saved .sgf: {len(own)}")
    for line in own:
        print(f"    {line}")
    print(f"  other differences: {len(other)}")
    for line in other:
        print(f"    {line}")
    print(f"  matches gnubg scores differently (their {', '.join(RESULT_LINES)} lines left "
          f"out): {len(rescored)} {sorted(rescored)}")


def money(paths: list[Path]) -> None:
    """Each match replayed as a money session (the file's length line made "0 point
    match", the Jacoby rule on as gnubg imports a money session): gnubg's statistics
    against the native engine's, line for line; matches whose scoring only makes sense at
    their score (a gammon the match end capped, a resignation worth less than the cube)
    are skipped and counted."""
    import dataclasses
    import tempfile
    import warnings

    add_tests_to_path()
    from gnubg_match_peer import statistics_block

    from mathbg.analysis import audit
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.errors import MathbgError
    from mathbg.rules.formats import read_match

    peer = GnubgEvaluator(plies=0)
    sessions = lines = skipped = 0
    differ: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            text = re.sub(r"(?m)^ *\d+ point match", " 0 point match", path.read_text())
            q = Path(tmp) / path.name
            q.write_text(text)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rec = read_match(q)
                rec = dataclasses.replace(rec, rules=dataclasses.replace(rec.rules,
                                                                         jacoby=True))  # fmt: skip
                ref = statistics_block(peer.analyse_match(rec, statistics=True)["statistics"])
            except MathbgError:
                skipped += 1
                continue
            ours = audit(rec, engine="native", exact=False,
                         take_points=False).matches[0].statistics_text()  # fmt: skip
            ours_lines = ours.rstrip("\n").splitlines()
            sessions += 1
            lines += len(ref)
            if len(ours_lines) != len(ref):
                differ.append(f"{path.name}: {len(ours_lines)} lines, gnubg {len(ref)}")
                continue
            differ += [f"{path.name}: {a.strip()} | {b.strip()}"
                       for a, b in zip(ref, ours_lines, strict=True) if a != b]  # fmt: skip
    print(f"money: {sessions} sessions ({skipped} skipped), {lines} lines of gnubg's `show "
          f"statistics match` ({time.perf_counter() - start:.0f} s)")
    print(f"  lines that differ: {len(differ)}")
    for line in differ:
        print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", nargs="+", default=["native", "gnubg", "sgf"],
                        choices=["native", "gnubg", "sgf", "money"])  # fmt: skip
    parser.add_argument("--limit", type=int, default=None, help="the first N matches only")
    args = parser.parse_args()
    paths = sorted(SHARED.glob("*.txt"))[: args.limit]
    for engine in args.engine:
        if engine == "sgf":
            reloaded(paths)
        elif engine == "money":
            money(paths)
        else:
            compare(engine, paths)


if __name__ == "__main__":
    main()
